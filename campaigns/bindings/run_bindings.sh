#!/usr/bin/env bash
# The bindings campaign, on a machine with an sm_90a GPU (see gen_bindings.py for the whole flow).
#   bash campaigns/bindings/run_bindings.sh [BUILD]    (BUILD: default campaigns/build/bindings)
# Writes under $OUT: env.txt, build.log (with per-part compile times and the one-TU header compile
# time), sass_sample.txt.gz (the whole SASS of the sampled kernels), sass_kernels.txt.gz (per kernel:
# its tensor-core opcodes in order), run.log, digests.json (per kernel: digest of its D words) and
# mismatch.bin.gz (the D words of kernels whose digest differs from the expected one).
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="$(cd "${1:-$HERE/../build/bindings}" && pwd)"
OUT="${OUT:-$B/results}"
mkdir -p "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
. "$HERE/../campaign_build.sh"
record_env
nproc >> "$OUT/env.txt"
cat "$OUT/env.txt"
[ -f "$B/in.bin" ] || gzip -dc "$B/in.bin.gz" > "$B/in.bin" || exit 1
[ -d "$B/c" ] || tar -xzf "$B/c.tar.gz" -C "$B" || exit 1
du -sb "$B/c" "$B"/c/*.h >> "$OUT/env.txt"
t0=$(date +%s)
# one translation unit that includes every header, nothing else: the cost of the include alone
printf '#include "ptxspec.h"\n__global__ void probe() {}\n' > "$B/include_only.cu"
{ /usr/bin/time -f "include-only TU: %e s, %M KB" nvcc $ARCH -std=c++17 -I"$B/c" -c "$B/include_only.cu" -o "$B/include_only.o"; } \
  > "$OUT/build.log" 2>&1
pids=()
for f in "$B"/bindings_kernels_*.cu; do
  p="${f%.cu}"
  ( /usr/bin/time -f "$(basename "$f"): %e s" nvcc $ARCH -O2 -std=c++17 -I"$B/c" -c "$f" -o "$p.o" ) > "$p.log" 2>&1 &
  pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
cat "$B"/bindings_kernels_*.log | grep -v "C7511\|C7517" >> "$OUT/build.log"
[ $fail = 0 ] || { echo "kernel build failed"; tail -40 "$OUT/build.log"; exit 1; }
nvcc $ARCH -O2 -I"$B" "$HERE/bindings_host.cu" "$B"/bindings_kernels_*.o -o "$B/bindings_run" >> "$OUT/build.log" 2>&1 \
  || { echo "host build failed"; tail -40 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" | tee -a "$OUT/build.log"
grep "include-only\|bindings_kernels_.*: " "$OUT/build.log"

cuobjdump -sass "$B/bindings_run" > "$B/sass.txt" 2>&1 || echo "cuobjdump failed"
# per kernel: the tensor-core opcodes in program order
sass_sequences '.' '[A-Z]*(MMA|GMMA)(\.[A-Za-z0-9_]+)*' "$B/sass.txt" | gzip -9 > "$OUT/sass_kernels.txt.gz"
# the sample: whole functions
awk -v list="$B/sass_sample.list" '
  BEGIN { while ((getline k < list) > 0) want[k] = 1 }
  /Function : / { keep = ($NF in want) }
  keep { print }' "$B/sass.txt" | gzip -9 > "$OUT/sass_sample.txt.gz"

t0=$(date +%s)
OUT_WORDS=$(python3 -c "import json; print(json.load(open('$B/kernels.json'))['out_words'])")
"$B/bindings_run" "$B/in.bin" "$OUT_WORDS" "$B/out.bin" > "$OUT/run.log" 2>&1
echo "run rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.log"
cat "$OUT/run.log"
python3 "$HERE/digest_outputs.py" "$B" "$OUT"
ls -la "$OUT"
