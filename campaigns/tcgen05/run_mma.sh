#!/usr/bin/env bash
# On an sm_100a machine (B200/GB200 class), from the repository root:
#   python3 campaigns/tcgen05/mmagen.py BUILD && bash campaigns/tcgen05/run_mma.sh BUILD
#   python3 campaigns/tcgen05/mmagen.py BUILD --check
set -euo pipefail
BUILD="${1:-campaigns/build/tcgen05}"
HERE="$(cd "$(dirname "$0")" && pwd)"
NVCC="${NVCC:-nvcc}"
ARCH=(-gencode arch=compute_100a,code=sm_100a)
"$NVCC" "${ARCH[@]}" -O1 -c "$BUILD/mma_kernels.cu" -o "$BUILD/mma_kernels.o"
"$NVCC" "${ARCH[@]}" -O1 "$HERE/tmem_host.cu" "$BUILD/mma_kernels.o" -o "$BUILD/mma_run"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader > "$BUILD/device.txt" || true
"$BUILD/mma_run" "$BUILD/mma_results.bin"
