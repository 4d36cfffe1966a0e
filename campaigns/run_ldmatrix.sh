#!/usr/bin/env bash
# Run the ldmatrix / stmatrix / movmatrix device campaign on a machine with an sm_90a GPU.
#
#   python3 campaigns/gen_ldmatrix.py BUILD          # here: kernels, jobs.bin, jobs.json
#   bash campaigns/run_ldmatrix.sh BUILD             # there: builds, runs, writes $OUT
#   python3 campaigns/check_ldmatrix.py BUILD RESULTS [--record FILE]
#
# Writes under $OUT (default BUILD/results): env.txt, build.log, sass_kernels.txt (per kernel the
# LDSM/STSM/MOVM/HMMA/IMMA/BMMA/QMMA/HGMMA/QGMMA/IGMMA opcodes in program order), run.log, results.bin.gz.
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="$(cd "${1:-$HERE/build/ldmatrix}" && pwd)"
OUT="${OUT:-$B/results}"
mkdir -p "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
. "$HERE/campaign_build.sh"
build_campaign ldmatrix || exit 1
sass_sequences '^ldm_k' '(LDSM|STSM|MOVM|HMMA|IMMA|BMMA|QMMA|HGMMA|QGMMA|IGMMA|WARPGROUP)(\.[A-Za-z0-9_]+)*' "$B/sass.txt" \
  | sort -V > "$OUT/sass_kernels.txt"
wc -l < "$OUT/sass_kernels.txt" | sed 's/^/kernels with SASS: /'
t0=$(date +%s)
rm -f "$B/results.bin"
first=0
: > "$OUT/run.log"
for attempt in $(seq 1 50); do
  "$B/ldmatrix_run" "$B/jobs.bin" "$B/results.bin" "$first" >> "$OUT/run.log" 2>&1
  rc=$?
  [ $rc = 3 ] || break
  first=$(grep -oE "^NEXT [0-9]+" "$OUT/run.log" | tail -1 | cut -d' ' -f2)
done
echo "run rc=$rc in $(( $(date +%s) - t0 )) s"
tail -3 "$OUT/run.log"
gzip -9 -c "$B/results.bin" > "$OUT/results.bin.gz"
ls -la "$OUT"
