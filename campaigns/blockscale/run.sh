#!/usr/bin/env bash
# The .kind::* mma campaign on a Blackwell GPU (see bsgen.py). No GPU of this project has run it.
#
#   bash campaigns/blockscale/run.sh [TARGET] [--quick]   # TARGET: sm_120a (default), sm_121a, sm_100a, ...
#
# Generates the kernels and the inputs from the spec, builds with nvcc for TARGET, lists the
# tensor opcodes of the SASS, runs every kernel, and compares every D register with
# ptxspec.blockscale under the model and under each named alternative. Writes under $OUT:
# env.txt, build.log, sass_opcodes.txt, run.log, out.bin.gz, report.json, compare.log.
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="${1:-sm_120a}"; shift || true
OUT="${OUT:-/tmp/bsout}"; mkdir -p "$OUT"
B="${B:-/tmp/bsbuild}"; mkdir -p "$B"
ARCH="-gencode arch=compute_${TARGET#sm_},code=$TARGET"
export PYTHONPATH="$ROOT/generators:$ROOT/generated${PYTHONPATH:+:$PYTHONPATH}"
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; nvcc --version | tail -2
  ptxas --version | tail -1; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
t0=$(date +%s)
python3 "$HERE/bsgen.py" sources --out "$B" --target "$TARGET" "$@" || exit 1
pids=()
for f in "$B"/bs_kernels_*.cu; do
  nvcc $ARCH -O2 -c "$f" -o "${f%.cu}.o" > "${f%.cu}.log" 2>&1 & pids+=($!)
done
python3 "$HERE/bsgen.py" inputs --build "$B" & pids+=($!)
fail=0; for p in "${pids[@]}"; do wait "$p" || fail=1; done
cat "$B"/bs_kernels_*.log > "$OUT/build.log"
[ $fail = 0 ] || { echo "build or inputs failed"; tail -40 "$OUT/build.log"; exit 1; }
nvcc $ARCH -O2 -I"$B" "$HERE/bs_host.cu" "$B"/bs_kernels_*.o -o "$B/bs_run" >> "$OUT/build.log" 2>&1 \
  || { echo "host build failed"; tail -40 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
cuobjdump -sass "$B/bs_run" | grep -oE '\b[A-Z]*MMA(\.[A-Za-z0-9_]+)*' | sort | uniq -c | sort -rn > "$OUT/sass_opcodes.txt"
"$B/bs_run" "$B/in.bin" "$OUT/out.bin" > "$OUT/run.log" 2>&1; rc=$?
echo "run rc=$rc"; tail -3 "$OUT/run.log"
python3 "$HERE/bsgen.py" compare --build "$B" --out "$OUT" 2>&1 | tee "$OUT/compare.log" | head -40
gzip -9 -f "$OUT/out.bin"
echo "total $(( $(date +%s) - t0 )) s"
