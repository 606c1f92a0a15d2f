#!/usr/bin/env bash
# The HTML reports render in headless Chromium and their maps show the cells they should:
#   1. `show 3 --html` of a vector add without masks: the lanes out of bounds, the four output
#      cells never written, the diagnostic at the kernel's line, and a program picked by the link;
#   2. `check --html` of a softmax that forgets to divide: the map of the case the diagnostic
#      reports, its cells (summarised where the case is wide) and wrong cells as the text report's;
#   3. `show --html` of a run that is right, with 32 programs: its verdict in another colour than
#      a failure's, and a legend of 32 programs in 32 colours.
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
# The DOM of a copy of a report with a probe appended: each verdict and legend swatch carries the
# colour Chromium computed for it (data-colour), which the page's own DOM does not say.
probe() {  # file -> the DOM
  local copy=${1%.html}.probed.html
  sed 's|</body>|<script>document.querySelectorAll(".verdict").forEach(function (v) { v.dataset.colour = getComputedStyle(v).color; }); document.querySelectorAll(".legend .swatch").forEach(function (s) { s.dataset.colour = getComputedStyle(s).backgroundColor; });</script></body>|' "$1" > "$copy"
  render "$copy"
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
expect_count "wrong cells of z (z[96..99] never written)" 4 "$(count 'class="cell wrong"' "$z")"
expect_count "cells of z stored by program 2" 32 "$(count 'data-program="2"' "$z")"
# Which load of `x + y` runs first is the compiler's choice (g++ loads y first, clang x): the one
# reported out of bounds is the one whose first 4 lanes program 3 loaded before the error.
first=$(grep -o 'Out of bounds: program (3, 0, 0) loads 28 lanes outside [xy]' <<<"$dom" | tail -c 2 || true)
if [ -z "$first" ]; then
  fail "the lanes out of bounds are not reported"
else
  loaded=$(svg_of "$dom" puzzle-3 "$first")
  expect_count "cells of $first loaded by program 3 before the error" 4 "$(count 'data-program="3"' "$loaded")"
fi
grep -q '<pre class="diagnostic">out-of-bounds: program (3, 0, 0)' <<<"$dom" ||
  fail "the diagnostic is not shown"
grep -q '<mark class="source-line">[ 0-9]*    auto sum = tl::load(x + offsets)' <<<"$dom" ||
  fail "the kernel's line is not marked"
# The link picks program 1: its 32 stores are coloured as stores, every other cell of z is not.
dom1=$(render "$page" "#program=1")
z1=$(svg_of "$dom1" puzzle-3 z)
expect_count "cells of z coloured as stored with program 1 picked" 32 "$(count 'fill="#ff7f0e"' "$z1")"

# 2. check, a softmax that forgets to divide: the map of z is the map of the case the diagnostic
#    reports, and its cells are the ones the report's own text map shows. Which case fails first
#    depends on the puzzle's cases, and a wide case is summarised (several elements per cell), so
#    every expected count comes from the reported case and the report, never a fixed number.
#    In the sandbox: the run is traced there again and the maps drawn from what it sends back.
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
# The reported case (N0, T) and the counts of its diagnostic: "W of E elements of z differ".
reported=$(grep -o 'wrong-result: case [0-9]* of [0-9]*: N0=[0-9]*, T=[0-9]*' <<<"$dom" | head -1)
n0=$(sed -E 's/.*N0=([0-9]+).*/\1/' <<<"$reported")
t=$(sed -E 's/.*T=([0-9]+)$/\1/' <<<"$reported")
counted=$(grep -o '[0-9]* of [0-9]* elements of z differ' <<<"$dom" | head -1)
differ=${counted%% of *}
elements=$(sed -E 's/^[0-9]+ of ([0-9]+) .*/\1/' <<<"$counted")
[ -n "$n0" ] && [ -n "$t" ] && [ -n "$differ" ] || fail "no case or count in the diagnostic"
expect_count "elements of z in the diagnostic (N0 x T of the reported case)" "$((n0 * t))" "$elements"
heading=$(tr -d '\n' <<<"$dom" | grep -o '<section[^>]*id="puzzle-11".*' | grep -o '<h3>z: [^<]*</h3>' | head -1)
expect_count "shape of the map of z (the reported case's)" "[$n0, $t]" \
  "$(grep -o '\[[0-9, ]*\]' <<<"$heading")"
# The report's text map: "map of z (R x C elements as SR x SC cells, # = wrong):", then SR lines
# of SC cells, '#' for a cell with a wrong element; without "as ...", one cell per element.
text_map=$(awk '/map of z \(/ { on = 1; next } on && /^ *[.#]+ *$/ { gsub(/ /, ""); print; next }
                on { exit }' <<<"$dom")
if grep -q ' elements as [0-9]* x [0-9]* cells' <<<"$heading"; then
  shown=$(grep -o 'as [0-9]* x [0-9]* cells' <<<"$heading")
  read -r _ shown_rows _ shown_cols _ <<<"$shown"
  [ "$((shown_rows * shown_cols))" -lt "$elements" ] || fail "a summarised map with a cell per element"
  expected_cells=$((shown_rows * shown_cols))
  if grep -q "map of z ($n0 x $t elements $shown" <<<"$dom"; then
    # The text map merges the same cells: its '#' are the wrong cells, exactly.
    expected_wrong=$(tr -cd '#' <<<"$text_map" | wc -c | tr -d ' ')
    expect_count "rows of the text map" "$shown_rows" "$(grep -c . <<<"$text_map")"
    expect_count "cells of the text map" "$expected_cells" "$(tr -d '\n' <<<"$text_map" | wc -c | tr -d ' ')"
  else
    # Merged differently: a merged cell is wrong when one of its elements is.
    expected_wrong=""
  fi
else
  expected_cells=$elements
  expected_wrong=$differ
fi
z=$(svg_of "$dom" puzzle-11 z)
cells=$(count '<rect class="cell' "$z")
wrong=$(count 'class="cell wrong"' "$z")
expect_count "cells in the map of z (every element of z is stored)" "$expected_cells" "$cells"
if [ -n "$expected_wrong" ]; then
  expect_count "wrong cells in the map of z (as the report's text map)" "$expected_wrong" "$wrong"
else
  [ "$wrong" -le "$differ" ] || fail "wrong cells of z: $wrong merged cells for $differ wrong elements"
fi
[ "$wrong" -gt 0 ] || fail "no wrong cells in the map of z"

failed_colour=$(probe "$page" | grep -o 'class="verdict failed"[^>]*data-colour="[^"]*"' | head -1 |
  sed -E 's/.*data-colour="([^"]*)"/\1/')

# 3. show of a run that is right, with 32 programs (vector-add's N0 = 1000, B0 = 32): its verdict
#    is not drawn in the colour of a failure, and the legend gives each program its own colour.
page=$work/show-right.html
"$binary" show 3 --impl solution --case 7 --blocks B0=32 --html "$page" >/dev/null
dom=$(probe "$page")
right_colour=$(grep -o 'class="verdict right"[^>]*data-colour="[^"]*"' <<<"$dom" | head -1 |
  sed -E 's/.*data-colour="([^"]*)"/\1/')
[ -n "$right_colour" ] && [ -n "$failed_colour" ] || fail "no verdict colours (right: '$right_colour', failed: '$failed_colour')"
[ "$right_colour" != "$failed_colour" ] || fail "a right run's verdict is drawn in FAILED's colour ($failed_colour)"
echo "ok: verdict colours: right $right_colour, failed $failed_colour"
swatches=$(grep -o '<span class="program"><i class="swatch"[^>]*data-colour="[^"]*"' <<<"$dom" |
  sed -E 's/.*data-colour="([^"]*)"/\1/')
expect_count "programs in the legend of a run of 32" 32 "$(grep -c . <<<"$swatches")"
expect_count "distinct colours in that legend" 32 "$(sort -u <<<"$swatches" | grep -c .)"
expect_count "legend colours that are the map's colour of several programs or of masked lanes" 0 \
  "$(grep -c -x -e 'rgb(68, 68, 68)' -e 'rgb(217, 217, 217)' -e 'rgb(244, 244, 244)' <<<"$swatches" || true)"

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all HTML checks passed"
