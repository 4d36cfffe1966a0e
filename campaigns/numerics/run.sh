#!/usr/bin/env bash
# The executor campaign on a machine with an sm_90a GPU (see numgen.py):
#   bash campaigns/numerics/run.sh [SPEC_DIR] [numgen device options...]
# Generates the kernels from the spec, builds them in parallel, runs every kernel's cases and
# compares every D register with ptxspec's executor there; results under $OUT.
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SPEC="${1:-$ROOT/spec}"; shift || true
OUT="${OUT:-/tmp/ngout}"; mkdir -p "$OUT"
B=/tmp/ngb; mkdir -p "$B"
ARCH="-gencode arch=compute_90a,code=sm_90a"
export PYTHONPATH="$ROOT/generators${PYTHONPATH:+:$PYTHONPATH}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; ptxas --version | tail -1;
  python3 -c 'import numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__)'; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
t0=$(date +%s)
python3 "$HERE/numgen.py" sources --out "$B" --spec-dir "$SPEC" || exit 1
echo "sources in $(( $(date +%s) - t0 )) s"
pids=()
for f in "$B"/ngwg_kernels_*.cu "$B"/mma_kernels_*.cu; do
  nvcc $ARCH -O2 -diag-suppress 177,550 -c "$f" -o "${f%.cu}.o" > "${f%.cu}.log" 2>&1 & pids+=($!)
done
fail=0; for p in "${pids[@]}"; do wait "$p" || fail=1; done
cat "$B"/*.log | grep -i error | head -20
[ $fail = 0 ] || { echo "kernel build failed"; exit 1; }
nvcc $ARCH -O2 -I"$B" "$HERE/ngwg_host.cu" "$B"/ngwg_kernels_*.o -o "$B/ngwg_run" || exit 1
nvcc $ARCH -O2 -I"$B" "$ROOT/campaigns/mma_host.cu" "$B"/mma_kernels_*.o -o "$B/mma_run" || exit 1
echo "built in $(( $(date +%s) - t0 )) s"
cuobjdump -sass "$B/mma_run" | awk '/Function : mma_k/ {name=$NF} /(HMMA|IMMA|DMMA|BMMA|QMMA|F2FP|HADD2|HFMA2|FADD|FFMA|DFMA)/ {
  match($0, /(HMMA|IMMA|DMMA|BMMA|QMMA|F2FP|HADD2|HFMA2|FADD|FFMA|DFMA)(\.[A-Za-z0-9_]+)*/); ops[name] = ops[name] " " substr($0, RSTART, RLENGTH) }
  END { for (n in ops) print n ":" ops[n] }' | sort -V > "$OUT/mma_sass.txt"
python3 "$HERE/numgen.py" device --build "$B" --out "$OUT" --spec-dir "$SPEC" "$@" 2>&1 | tee "$OUT/compare.log" | tail -150
echo "total $(( $(date +%s) - t0 )) s"
