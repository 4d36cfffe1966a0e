#!/usr/bin/env bash
# Run the wgmma device campaign on a machine with an sm_90a GPU (H100/H200).
#
#   python3 campaigns/gen_wgmma.py     # here: writes campaigns/build/
#   bash campaigns/run_wgmma.sh [BUILD] # there: builds, runs, writes results to $OUT
#                                          (BUILD: the generated campaign, default campaigns/build)
#   python3 campaigns/check_wgmma.py RESULTS   # here: compares with the spec
#
# Writes under $OUT (default campaigns/build/results): env.txt (GPU, driver, nvcc, ptxas),
# build.log, sass_opcodes.txt (the GMMA opcodes in the machine code), sass_sample.txt, run.log and
# wgmma_out.bin.gz (every case's D registers).
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="$(cd "${1:-$HERE/build}" && pwd)"
OUT="${OUT:-$B/results}"
mkdir -p "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
. "$HERE/campaign_build.sh"
build_campaign wgmma || exit 1

grep -oE "\b[A-Z]?GMMA(\.[A-Za-z0-9_]+)*" "$B/sass.txt" | sort | uniq -c | sort -rn > "$OUT/sass_opcodes.txt"
# one kernel per SASS opcode family, a few lines around the MMA
for op in HGMMA IGMMA QGMMA BGMMA; do
  grep -m3 -B2 -A1 "$op" "$B/sass.txt"
done > "$OUT/sass_sample.txt"
grep -E "Function : wg_k" "$B/sass.txt" | wc -l | sed 's/^/kernels with SASS: /' >> "$OUT/sass_opcodes.txt"

t0=$(date +%s)
rm -f "$B/wgmma_out.bin"
first=0
: > "$OUT/run.log"
for attempt in $(seq 1 50); do
  "$B/wgmma_run" "$B/cases.bin" "$B/wgmma_out.bin" "$first" >> "$OUT/run.log" 2>&1
  rc=$?
  [ $rc = 3 ] || break
  first=$(grep -oE "^NEXT [0-9]+" "$OUT/run.log" | tail -1 | cut -d' ' -f2)
done
echo "run rc=$rc in $(( $(date +%s) - t0 )) s"
tail -5 "$OUT/run.log"
grep -c FAILED "$OUT/run.log" | sed 's/^/failed launches: /'
gzip -9 -c "$B/wgmma_out.bin" > "$OUT/wgmma_out.bin.gz"
ls -la "$OUT"
