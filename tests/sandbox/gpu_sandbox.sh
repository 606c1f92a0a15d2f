#!/usr/bin/env bash
# check --gpu runs a student's stubs in the sandbox too (label gpu: needs an NVIDIA GPU and
# bubblewrap). A student copy of the puzzles in which vector-add is solved (the twin), softmax-fused
# writes a file outside as its module loads and long-sum takes 8 GiB of memory as its module loads:
# the first is solved on the GPU, the second fails with `sandbox` and nothing is written, the
# third fails with the memory limit; and the check never says it runs without the sandbox.
#   gpu_sandbox.sh TILEPUZZLES_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail
tilepuzzles=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work/student" "$work/outside"
cp "$source"/puzzles/*.hpp "$work/student/"
as_stub() { sed -e 's/namespace solutions {/namespace puzzles {/' -e 's|}  // namespace solutions|}  // namespace puzzles|' "$source/solutions/$1.hpp"; }
as_stub vector_add > "$work/student/vector_add.hpp"
{ echo '#include <cstdio>'
  echo "struct at_load { at_load() { if (FILE* f = std::fopen(\"$work/outside/at-load\", \"w\")) std::fclose(f); } };"
  echo 'inline at_load written_at_load;'
  as_stub softmax_fused; } > "$work/student/softmax_fused.hpp"
{ echo '#include <cstring>'
  echo '#include <vector>'
  echo 'struct hog { hog() { std::vector<char> big(std::size_t(8) << 30); std::memset(big.data(), 1, big.size()); } };'
  echo 'inline hog taken_at_load;'
  as_stub long_sum; } > "$work/student/long_sum.hpp"

"$tilepuzzles" check --gpu --json --puzzles "$work/student" vector-add softmax-fused long-sum \
  > "$work/report.json" 2> "$work/stderr.txt"
status=$?
cat "$work/stderr.txt"
python3 - "$work" "$status" <<'PY'
import json, os, sys
work, status = sys.argv[1], int(sys.argv[2])
reports = {r["id"]: r for r in json.load(open(work + "/report.json"))}
said = open(work + "/stderr.txt").read()
failures = []
def expect(ok, what):
    if not ok: failures.append(what)
def kind(r): return r["diagnostics"][0]["kind"] if r.get("diagnostics") else ""
def message(r): return r["diagnostics"][0]["message"] if r.get("diagnostics") else ""
va, sf, ls = reports["vector-add"], reports["softmax-fused"], reports["long-sum"]
expect(status == 1, f"exit status {status}, not 1")
expect(va["status"] == "solved" and va.get("gpu_runs", 0) > 0,
       f"vector-add (solved stub): {va['status']}, {va.get('gpu_runs')} GPU runs: {message(va)}")
expect(sf["status"] == "failed" and kind(sf) == "sandbox" and "at-load" in message(sf),
       f"softmax-fused (writes at load): {sf['status']} {kind(sf)}: {message(sf)}")
expect(not os.path.exists(work + "/outside/at-load"), "the file written at load exists outside")
expect(ls["status"] == "failed" and kind(ls) == "crash",
       f"long-sum (8 GiB at load): {ls['status']} {kind(ls)}: {message(ls)}")
expect("without the sandbox" not in said and "without it" not in said, "the check said: " + said)
for f in failures: print("FAIL:", f)
print(json.dumps(reports, indent=1)[:3000] if failures else "gpu sandbox: all as expected")
sys.exit(1 if failures else 0)
PY
