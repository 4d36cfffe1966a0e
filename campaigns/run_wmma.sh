#!/usr/bin/env bash
# Run the wmma device campaign on a machine with an sm_90a GPU (H100/H200).
#
#   python3 campaigns/gen_wmma.py            # here: writes campaigns/build/wmma/
#   bash campaigns/run_wmma.sh [BUILD]       # there: builds libwmma.so, runs wmma_device.py
#   python3 campaigns/check_wmma.py RESULTS  # here: compares with the spec, writes the records
# Optional: cubins assembled here by the oracle ptxas (13.5) run too, from BUILD/cubins:
#   python3 campaigns/gen_wmma.py --cubins   # compiles them with the nvcc/ptxas of the wheel
#
# Writes under $OUT (default BUILD/results): env.txt, build.log, sass_kernels.txt (per kernel the
# tensor-core and memory opcodes in program order), run.log and wmma_raw.npz (every raw result).
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="$(cd "${1:-$HERE/build/wmma}" && pwd)"
OUT="${OUT:-$B/results}"
mkdir -p "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
. "$HERE/campaign_build.sh"
record_env
cat "$OUT/env.txt"
t0=$(date +%s)
compile_kernels wmma -Xcompiler -fPIC || exit 1
nvcc $ARCH -O2 -shared -Xcompiler -fPIC -I"$B" "$HERE/wmma_host.cu" "$B"/wmma_kernels_*.o -lcuda -o "$B/libwmma.so" \
  >> "$OUT/build.log" 2>&1 || { echo "host build failed"; tail -30 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
cuobjdump -sass "$B/libwmma.so" > "$B/sass.txt" 2>&1 || echo "cuobjdump failed"
sass_sequences '^wk' '(HMMA|IMMA|DMMA|BMMA|LDSM|LDS|LDG|STS|STG|MOVM)(\.[A-Za-z0-9_]+)*' "$B/sass.txt" \
  | sort -V > "$OUT/sass_kernels.txt"
wc -l < "$OUT/sass_kernels.txt" | sed 's/^/kernels with SASS: /'
t0=$(date +%s)
PYTHONUNBUFFERED=1 python3 "$HERE/wmma_device.py" "$B" "$OUT/wmma_raw.npz" 2>&1 | tee "$OUT/run.log" | tail -20
echo "ran in $(( $(date +%s) - t0 )) s"
# the same campaign on kernels assembled elsewhere (cubins carried in $B/cubins, e.g. by ptxas 13.5)
if ls "$B"/cubins/wmma_kernels_*.cubin > /dev/null 2>&1; then
  cat "$B/cubins/ptxas.txt" 2>/dev/null
  WMMA_CUBINS="$B/cubins" PYTHONUNBUFFERED=1 python3 "$HERE/wmma_device.py" "$B" "$OUT/wmma_raw_cubins.npz" 2>&1 \
    | tee "$OUT/run_cubins.log" | tail -5
  cp "$B/cubins/ptxas.txt" "$OUT/cubins_ptxas.txt" 2>/dev/null
fi
ls -la "$OUT"
