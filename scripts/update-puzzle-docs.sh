#!/usr/bin/env bash
# Makes what the docs say about the list of puzzles from checker/puzzle_list.def: the puzzle tables
# of README.md and docs/puzzles/README.md (between their `puzzle table` markers),
# docs/grading/points.txt, and the per-puzzle steps of docs/grading/github-classroom/classroom.yml
# (between its `puzzle steps` and `puzzle results` markers). Run it after adding a puzzle or
# changing its line:
#
#   bash scripts/update-puzzle-docs.sh           # rewrites what differs, and says which files
#   bash scripts/update-puzzle-docs.sh --check   # changes nothing; exit 1 if a file is out of date
#
# (the test suite runs --check).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then check=1; elif [ $# -gt 0 ]; then
  echo "usage: bash scripts/update-puzzle-docs.sh [--check]" >&2
  exit 2
fi

numbers=() ids=() titles=() points=() teaches=()
form='^TP_PUZZLE\(([0-9]+), *([a-z0-9_]+), *"([a-z0-9-]+)", *"([^"]*)", *(gpu|simulator), *([0-9]+), *"([^"]*)"\)$'
while IFS= read -r line; do
  [[ $line == TP_PUZZLE\(* ]] || continue
  if ! [[ $line =~ $form ]]; then
    echo "checker/puzzle_list.def: this line is not of the list's form:" >&2
    echo "  $line" >&2
    exit 2
  fi
  numbers+=("${BASH_REMATCH[1]}")
  ids+=("${BASH_REMATCH[3]}")
  titles+=("${BASH_REMATCH[4]}")
  points+=("${BASH_REMATCH[6]}")
  teaches+=("${BASH_REMATCH[7]}")
done < checker/puzzle_list.def
count=${#ids[@]}

readme_table() {
  echo "| # | puzzle | what it teaches |"
  echo "| - | ------ | --------------- |"
  for ((i = 0; i < count; i++)); do
    echo "| ${numbers[i]} | [\`${ids[i]}\`](docs/puzzles/${ids[i]}.md) | ${teaches[i]} |"
  done
}

pages_table() {
  echo "| # | id | page | what it teaches |"
  echo "| - | -- | ---- | --------------- |"
  for ((i = 0; i < count; i++)); do
    echo "| ${numbers[i]} | \`${ids[i]}\` | [${ids[i]}.md](${ids[i]}.md) | ${teaches[i]} |"
  done
}

points_file() {
  cat <<'EOF'
# Points per puzzle for `tilepuzzles grade` (docs/instructors.md): one line per puzzle, its id
# and its points. A solved puzzle earns its points, any other verdict none. 0 leaves a puzzle out
# of the grade (it is not even checked). Copy this file, edit it and pass it with --points FILE.
# (This copy is made by scripts/update-puzzle-docs.sh from checker/puzzle_list.def.)
EOF
  for ((i = 0; i < count; i++)); do printf '%-24s %s\n' "${ids[i]}" "${points[i]}"; done
}

classroom_steps() {
  for ((i = 0; i < count; i++)); do
    cat <<EOF
      - name: Puzzle ${numbers[i]}, ${ids[i]}
        id: puzzle-${numbers[i]}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: Puzzle ${numbers[i]} (${ids[i]})
          command: ./course/build/tilepuzzles check ${ids[i]} --puzzles submission/puzzles --report-only
          timeout: 10
          max-score: ${points[i]}
EOF
  done
}

classroom_results() {
  echo "      - name: Autograding Reporter"
  echo "        uses: classroom-resources/autograding-grading-reporter@v1"
  echo "        env:"
  local runners=""
  for ((i = 0; i < count; i++)); do
    echo "          PUZZLE-${numbers[i]}_RESULTS: \"\${{steps.puzzle-${numbers[i]}.outputs.result}}\""
    runners+="${runners:+,}puzzle-${numbers[i]}"
  done
  echo "        with:"
  echo "          runners: $runners"
}

# splice BEGIN END BODY: stdin with the lines strictly between the line containing BEGIN and the
# line containing END replaced by BODY.
splice() {
  local text
  text=$(cat)
  if ! grep -qF -- "$1" <<< "$text" || ! grep -qF -- "$2" <<< "$text"; then
    echo "the markers '$1' and '$2' are missing" >&2
    exit 2
  fi
  BODY=$3 awk -v begin="$1" -v end="$2" '
    index($0, begin) { print; print ENVIRON["BODY"]; skipping = 1; next }
    index($0, end) { skipping = 0 }
    !skipping { print }' <<< "$text"
}

stale=0
scratch=$(mktemp)
trap 'rm -f "$scratch"' EXIT
# update FILE: stdin is what FILE should hold.
update() {
  cat > "$scratch"
  cmp -s "$scratch" "$1" && return
  if [ "$check" = 1 ]; then
    echo "$1 is not what checker/puzzle_list.def makes: run bash scripts/update-puzzle-docs.sh" >&2
    diff "$1" "$scratch" | head -20 >&2 || true
    stale=1
  else
    cp "$scratch" "$1"
    echo "updated $1"
  fi
}

text=$(splice "<!-- puzzle table" "<!-- end of the puzzle table" "$(readme_table)" < README.md)
update README.md <<< "$text"
text=$(splice "<!-- puzzle table" "<!-- end of the puzzle table" "$(pages_table)" \
         < docs/puzzles/README.md)
update docs/puzzles/README.md <<< "$text"
update docs/grading/points.txt <<< "$(points_file)"
classroom=docs/grading/github-classroom/classroom.yml
text=$(splice "# puzzle steps" "# end of the puzzle steps" "$(classroom_steps)" < "$classroom")
text=$(splice "# puzzle results" "# end of the puzzle results" "$(classroom_results)" <<< "$text")
update "$classroom" <<< "$text"
exit $stale
