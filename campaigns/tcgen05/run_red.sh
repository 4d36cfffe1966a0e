#!/usr/bin/env bash
# On an sm_103a machine (B300/GB300 class), from the repository root:
#   python3 campaigns/tcgen05/redgen.py BUILD && bash campaigns/tcgen05/run_red.sh BUILD
#   python3 campaigns/tcgen05/redgen.py BUILD --check
set -euo pipefail
BUILD="${1:-campaigns/build/tcgen05}"
HERE="$(cd "$(dirname "$0")" && pwd)"
NVCC="${NVCC:-nvcc}"
ARCH=(-gencode arch=compute_103a,code=sm_103a)
"$NVCC" "${ARCH[@]}" -O1 -c "$BUILD/red_kernels.cu" -o "$BUILD/red_kernels.o"
"$NVCC" "${ARCH[@]}" -O1 "$HERE/tmem_host.cu" "$BUILD/red_kernels.o" -o "$BUILD/red_run"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader > "$BUILD/device.txt" || true
"$BUILD/red_run" "$BUILD/red_results.bin"
