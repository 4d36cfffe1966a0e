#!/usr/bin/env bash
# There (the GPU machine): the example GEMM's campaign. Copies the example and the headers into
# a folder that travels with the device call, or runs from a checkout:
#   here:  mkdir -p .device/gemm && cp examples/gemm/{gemm.cu,run.py} .device/gemm/ && cp -r generated/c .device/gemm/c
#   there: bash campaigns/gemm/run_gemm.sh .device/gemm      (writes $OUT/gemm.json, $OUT/log.txt)
# Here, the record: add "source_sha256" (of the gemm.cu that ran) and save it as
# evidence/records/gemm-<date>.json; tests/test_cbind_api.py checks it.
set -euo pipefail
DIR=${1:-examples/gemm}
HEADERS=${2:-$DIR/c}
[ -d "$HEADERS" ] || HEADERS=generated/c
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum "$DIR/gemm.cu"
python3 "$DIR/run.py" --headers "$HEADERS" --out "${OUT:-.}" 2>&1 | tee "${OUT:-.}/log.txt"
