# How long the build of scripts/check.sh has left, in seconds, from what is done so far: the
# seconds elapsed, scaled by the cost of the steps left over the cost of the steps done. A step's
# cost is its CPU time in scripts/build-costs.txt (measured on a fresh build); a step not in
# the table costs the table's median. Counting steps instead (every step alike) said "about 2 min
# left" at 1m02s and again at 2m35s: the steps that come first are the cheap ones.
#
#   awk -v elapsed=SECONDS -v jobs=N -f scripts/build-eta.awk scripts/build-costs.txt PLAN DONE
#
# PLAN: the steps of the build, one a line, as `ninja -n` prints them ("[3/54] Building CXX
# object CMakeFiles/x.dir/checker/main.cpp.o"); DONE: the build's output so far, whose
# "[N/M] ..." lines are the steps finished (Ninja prints a step when it ends, off a terminal).
# JOBS: the steps Ninja runs at once. Prints nothing until a few steps are done: before that the
# scale is a guess.
function output_of(line,    rest) {
  rest = line
  sub(/^\[[0-9]+\/[0-9]+\] /, "", rest)
  sub(/^(Building|Linking) [A-Z]+ (object|static library|shared library|shared module|executable) /, "", rest)
  return rest
}
FILENAME == ARGV[1] && /^#/ { next }
FILENAME == ARGV[1] { cost[$2] = $1; costs[++ncosts] = $1; next }
FILENAME == ARGV[2] && /^\[[0-9]+\/[0-9]+\] / { plan[++nplan] = output_of($0); next }
FILENAME == ARGV[3] && /^\[[0-9]+\/[0-9]+\] / { done[output_of($0)] = 1; ndone++; next }
END {
  # The median cost, for steps the table does not know.
  for (i = 2; i <= ncosts; i++)  # insertion sort: mawk has no asort
    for (j = i; j > 1 && costs[j - 1] > costs[j]; j--) {
      t = costs[j]; costs[j] = costs[j - 1]; costs[j - 1] = t
    }
  median = ncosts ? costs[int((ncosts + 1) / 2)] : 1
  # Ninja starts the steps about in the plan's order, `jobs` at a time: the first steps not done
  # are running, half done on average.
  running = jobs > 0 ? jobs : 1
  for (i = 1; i <= nplan; i++) {
    step = plan[i]
    c = (step in cost) ? cost[step] : median
    if (c < 0.1) c = 0.1
    if (step in done) spent += c
    else if (running-- > 0) { spent += c / 2; left += c / 2 }
    else left += c
  }
  if (ndone < 3 || spent <= 0 || elapsed <= 0) exit
  printf "%d\n", elapsed * left / spent
}
