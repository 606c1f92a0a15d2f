#!/usr/bin/env bash
# scripts/update-puzzle-docs.sh --check notices a line of checker/puzzle_list.def that the docs do
# not follow, and after the script has run it does not: on a copy of the files it reads and writes.
#   bash docs_follow_the_list.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source_dir=$1 work=$2/docs-follow-the-list
rm -rf "$work"
mkdir -p "$work"
for f in scripts/update-puzzle-docs.sh checker/puzzle_list.def README.md docs/puzzles/README.md \
         docs/grading/points.txt docs/grading/github-classroom/classroom.yml; do
  mkdir -p "$work/$(dirname "$f")"
  cp "$source_dir/$f" "$work/$f"
done
cd "$work"
bash scripts/update-puzzle-docs.sh --check || { echo "the copy starts out of date" >&2; exit 1; }
sed -i 's/"two inputs under one mask"/"two inputs, one mask"/; s/, gpu, 8, "a 3-D grid/, gpu, 9, "a 3-D grid/' \
  checker/puzzle_list.def
if out=$(bash scripts/update-puzzle-docs.sh --check 2>&1); then
  echo "a changed line went unnoticed" >&2; exit 1
fi
for f in README.md docs/puzzles/README.md docs/grading/points.txt \
         docs/grading/github-classroom/classroom.yml; do
  grep -q "^$f is not what checker/puzzle_list.def makes" <<< "$out" ||
    { echo "$out" >&2; echo "--check did not name $f" >&2; exit 1; }
done
bash scripts/update-puzzle-docs.sh > /dev/null
bash scripts/update-puzzle-docs.sh --check
grep -q '| 3 | \[`vector-add`\](docs/puzzles/vector-add.md) | two inputs, one mask |' README.md
grep -q '^conv2d  *9$' docs/grading/points.txt
echo "the docs follow the list"
