#!/usr/bin/env bash
# The whole GPU-side check of one GPU kind, as docs/gpu-validation.md reports it: run on the GPU
# machine with native/gpu-check/dist (build.sh) next to this script. Writes into $OUT (or ./out):
#   check.log, results-all.json  correctness (96 checks, 16 FP8), two copies in one process, timing
#                                against SDPA
#   tables.md                    check.log as the Markdown tables of docs/gpu-validation.md
#   sanitize.log                 compute-sanitizer memcheck over every instance (two small shapes), then
#                                racecheck the same way: no hazard may be reported in libmha's
#                                kernels (PyTorch's own, the yardstick, report some: left in the log)
#   sm80-path.log                correctness again on the mma.sync kernels (MHA_DISABLE_SM90=1)
#   deterministic.log            correctness on the two-pass sm_90a backward (MHA_DETERMINISTIC=1),
#                                and the backward repeated: same bits every run there; dK and dV
#                                the same bits on the fused backward
#   ncu.txt                      Nsight Compute on the head dim 128 fp16 and FP8 kernels (seq 4096),
#                                clocks as the card runs them (--clock-control none)
# Exit status 1 when a check fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
cd "$here"
scratch=$(mktemp -d)
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/check.log"
python3 check.py all dist 2>&1 | tee -a "$out/check.log" || status=1
python3 summarize.py "$out/check.log" > "$out/tables.md"
OUT=$scratch compute-sanitizer --tool memcheck --error-exitcode 1 python3 check.py quick dist > "$out/sanitize.log" 2>&1 ||
  status=1
OUT=$scratch compute-sanitizer --tool racecheck python3 check.py quick dist > "$scratch/racecheck.log" 2>&1 || status=1
ours=$(grep "Race reported" "$scratch/racecheck.log" | grep -c "mha::cuda\|_ZN3mha4cuda")
{ echo; echo "racecheck over check.py quick: $ours hazard report(s) in libmha's kernels; all reports:";
  grep "Race reported" "$scratch/racecheck.log" | sed 's/+0x.*//' | sort | uniq -c; } >> "$out/sanitize.log"
[ "$ours" = 0 ] || status=1
OUT=$scratch MHA_DISABLE_SM90=1 python3 check.py correctness dist > "$out/sm80-path.log" 2>&1 || status=1
{ OUT=$scratch MHA_DETERMINISTIC=1 python3 check.py correctness dist && OUT=$scratch MHA_DETERMINISTIC=1 python3 check.py repeat dist &&
  OUT=$scratch python3 check.py repeat dist; } > "$out/deterministic.log" 2>&1 || status=1
OUT=$scratch ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
  -k 'regex:^(fwd_kernel|fused_kernel|finish_kernel|transpose_v_kernel)$' python3 check.py profile dist > "$out/ncu.txt" 2>&1 || status=1
rm -rf "$scratch"
tail -n 1 "$out/sanitize.log" "$out/sm80-path.log" "$out/deterministic.log"
grep -E "failure|FAIL" "$out/check.log" | tail -n 5
exit $status
