#!/usr/bin/env bash
# The HTML reports render in headless Chromium and their maps show the cells they should:
#   1. `show 3 --html` of a vector add without masks: the lanes out of bounds, the four output
#      cells never written, the diagnostic at the kernel's line, and a program picked by the link;
#   2. `check --html` of a softmax that forgets to divide: the wrong cells and the diagnostic.
# Exits 77 (ctest's SKIP_RETURN_CODE) with the reason when Chromium is not installed.
# Usage: chromium_maps.sh TILEPUZZLES_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
binary=$1 source=$2 work=$3

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no Chromium to render the HTML report in (Debian: apt-get install chromium;" \
       "scripts/install-deps.sh --test installs it)"
  exit 77
fi

failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
expect_count() {  # what, expected, actual
  if [ "$2" != "$3" ]; then fail "$1: expected $2, found $3"; else echo "ok: $1 ($3)"; fi
}

dir=$work/html-student
mkdir -p "$dir"
# Every stub solved (the reference solutions in the stubs' namespace), then two planted bugs.
for f in "$source"/solutions/*.hpp; do
  sed -e 's/namespace solutions {/namespace puzzles {/' \
      -e 's|}  // namespace solutions|}  // namespace puzzles|' "$f" > "$dir/$(basename "$f").new"
  cmp -s "$dir/$(basename "$f").new" "$dir/$(basename "$f")" || mv "$dir/$(basename "$f").new" "$dir/$(basename "$f")"
  rm -f "$dir/$(basename "$f").new"
done
sed -i 's/, mask)/)/g' "$dir/vector_add.hpp"
sed -i 's|numerator / denominator.col(), mask|numerator, mask|' "$dir/softmax_fused.hpp"
grep -q 'tl::store(z + offsets, numerator, mask)' "$dir/softmax_fused.hpp" || fail "planting the softmax bug"

render() {  # file [#fragment] -> the DOM after the page's script ran
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/chromium-profile" --dump-dom "file://$1${2:-}" 2>/dev/null
}
# The <svg> of one buffer in one section of a DOM, on one line.
svg_of() {  # dom section-id buffer
  tr -d '\n' <<<"$1" | grep -o "<section[^>]*id=\"$2\".*" | grep -o "<svg[^>]*data-buffer=\"$3\".*</svg>" |
    sed 's|</svg>.*|</svg>|' || true
}
count() { grep -o "$1" <<<"$2" | wc -l | tr -d ' '; }

# 1. show, a vector add without masks, case 4 (N0 = 100, B0 = 32: programs 0 to 3).
page=$work/show-vector-add.html
"$binary" show 3 --case 4 --puzzles "$dir" --html "$page" >/dev/null
grep -qiE '<(link|img)[^>]* (href|src)="(https?:)?//|<script[^>]* src=' "$page" &&
  fail "the page loads something from elsewhere"
dom=$(render "$page")
grep -q 'data-ready="1"' <<<"$dom" || fail "the page's script did not run to its end"
z=$(svg_of "$dom" puzzle-3 z)
y=$(svg_of "$dom" puzzle-3 y)
expect_count "wrong cells of z (z[96..99] never written)" 4 "$(count 'class="cell wrong"' "$z")"
expect_count "cells of z stored by program 2" 32 "$(count 'data-program="2"' "$z")"
expect_count "cells of y loaded by program 3 before the error" 4 "$(count 'data-program="3"' "$y")"
grep -q 'Out of bounds: program (3, 0, 0) loads 28 lanes outside y' <<<"$dom" ||
  fail "the lanes out of bounds are not reported"
grep -q '<pre class="diagnostic">out-of-bounds: program (3, 0, 0)' <<<"$dom" ||
  fail "the diagnostic is not shown"
grep -q '<mark class="source-line">[ 0-9]*    auto sum = tl::load(x + offsets)' <<<"$dom" ||
  fail "the kernel's line is not marked"
# The link picks program 1: its 32 stores are coloured as stores, every other cell of z is not.
dom1=$(render "$page" "#program=1")
z1=$(svg_of "$dom1" puzzle-3 z)
expect_count "cells of z coloured as stored with program 1 picked" 32 "$(count 'fill="#ff7f0e"' "$z1")"

# 2. check, a softmax that forgets to divide: the cells the diagnostic counts are the wrong ones.
page=$work/check-softmax.html
set +e
"$binary" check 11 --puzzles "$dir" --html "$page" >/dev/null
status=$?
set -e
expect_count "exit status of the failing check" 1 "$status"
dom=$(render "$page")
grep -q '<section class="puzzle" id="puzzle-11"[^>]*data-verdict="FAILED wrong-result"' <<<"$dom" ||
  fail "the softmax's section does not say wrong-result"
grep -q '<pre class="diagnostic">wrong-result: case' <<<"$dom" || fail "no wrong-result diagnostic"
z=$(svg_of "$dom" puzzle-11 z)
cells=$(count '<rect class="cell' "$z")
wrong=$(count 'class="cell wrong"' "$z")
[ "$cells" -gt 0 ] || fail "the map of z has no cells"
counted=$(grep -o '[0-9]* of [0-9]* elements of z differ' <<<"$dom" | head -1)
differ=${counted%% of *}
elements=$(sed -E 's/^[0-9]+ of ([0-9]+) .*/\1/' <<<"$counted")
# A buffer wider than the map's width is drawn with merged cells, and the report says how many:
# "R x C elements as r x c cells". One cell per element otherwise.
merged=$(grep -o '[0-9]* x [0-9]* elements as [0-9]* x [0-9]* cells' <<<"$dom" | head -1 || true)
if [ -n "$merged" ]; then
  grid=$(sed -E 's/.* as ([0-9]+) x ([0-9]+) cells/\1 \2/' <<<"$merged")
  expect_count "cells in the map of z (the merged grid, $merged)" "$((${grid% *} * ${grid#* }))" "$cells"
  [ "$wrong" -ge 1 ] && [ "$wrong" -le "$differ" ] ||
    fail "wrong cells of z: $wrong merged cells for $differ wrong elements"
else
  expect_count "cells in the map of z (one per element)" "$elements" "$cells"
  expect_count "wrong cells of z" "$differ" "$wrong"
fi
[ "$wrong" -gt 0 ] || fail "no wrong cells in the map of z"

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all HTML checks passed"
