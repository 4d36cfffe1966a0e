#!/usr/bin/env bash
# Run the mma device campaign on a machine with an sm_90a GPU (H100/H200).
#
#   python3 campaigns/gen_mma.py          # here: writes campaigns/build/mma/
#   bash campaigns/run_mma.sh [BUILD]     # there: builds, runs, writes results to $OUT
#                                            (BUILD: the generated campaign, default campaigns/build/mma)
#   python3 campaigns/check_mma.py RESULTS  # here: compares with the spec
# mma.sp: gen_mma.py --campaign sp; run_mma.sh campaigns/build/mma-sp; check_mma.py --campaign sp RESULTS
#
# Writes under $OUT (default BUILD/results): env.txt (GPU, driver, nvcc, ptxas), build.log,
# sass_opcodes.txt (the tensor-core and conversion opcodes in the machine code, counted),
# sass_kernels.txt (per kernel: its variant and the opcodes of interest in order), sass.txt.gz
# (the whole disassembly), run.log and mma_out.bin.gz (every case's D registers).
set -u -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="$(cd "${1:-$HERE/build/mma}" && pwd)"
OUT="${OUT:-$B/results}"
mkdir -p "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
. "$HERE/campaign_build.sh"
build_campaign mma || exit 1

OPS='\b(HMMA|IMMA|DMMA|BMMA|QMMA|OMMA|[A-Z]*GMMA|F2FP|F2F|I2F|F2I|I2IP|I2I|HADD2|HFMA2|POPC|LOP3|PRMT)(\.[A-Za-z0-9_]+)*'
grep -oE "$OPS" "$B/sass.txt" | grep -E "MMA" | sort | uniq -c | sort -rn > "$OUT/sass_opcodes.txt"
grep -E "Function : mma_k" "$B/sass.txt" | wc -l | sed 's/^/kernels with SASS: /' >> "$OUT/sass_opcodes.txt"
# per kernel: the MMA opcodes and the conversions around them, in program order
sass_sequences '^mma_k' '(HMMA|IMMA|DMMA|BMMA|QMMA|F2FP|F2F|I2F|I2IP|I2I|POPC)(\.[A-Za-z0-9_]+)*' "$B/sass.txt" \
  > "$OUT/sass_kernels.txt"
gzip -9 -c "$B/sass.txt" > "$OUT/sass.txt.gz"

t0=$(date +%s)
"$B/mma_run" "$B/mma_in.bin" "$B/mma_out.bin" > "$OUT/run.log" 2>&1
rc=$?
echo "run rc=$rc in $(( $(date +%s) - t0 )) s"
tail -5 "$OUT/run.log"
gzip -9 -c "$B/mma_out.bin" > "$OUT/mma_out.bin.gz"
ls -la "$OUT"
