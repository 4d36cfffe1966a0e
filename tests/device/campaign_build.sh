# Shared by run_wgmma.sh and run_mma.sh (sourced): record the environment, build the campaign's
# kernels in parallel and link them with the host driver, then disassemble.
#   build_campaign NAME   uses HERE, B (the generated campaign), OUT and ARCH; writes
#                         $OUT/env.txt, $OUT/build.log, $B/${NAME}_run and $B/sass.txt
build_campaign() {
  local name="$1" t0 f p fail=0 pids=()
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    ptxas --version | tail -2
  } > "$OUT/env.txt" 2>&1
  cat "$OUT/env.txt"
  t0=$(date +%s)
  for f in "$B"/"$name"_kernels_*.cu; do
    p="${f%.cu}"
    nvcc $ARCH -O2 -c "$f" -o "$p.o" > "$p.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail=1; done
  cat "$B"/"$name"_kernels_*.log > "$OUT/build.log"
  [ $fail = 0 ] || { echo "kernel build failed"; tail -50 "$OUT/build.log"; return 1; }
  nvcc $ARCH -O2 -I"$B" "$HERE/${name}_host.cu" "$B"/"$name"_kernels_*.o -o "$B/${name}_run" >> "$OUT/build.log" 2>&1 \
    || { echo "host build failed"; tail -50 "$OUT/build.log"; return 1; }
  echo "built in $(( $(date +%s) - t0 )) s"
  cuobjdump -sass "$B/${name}_run" > "$B/sass.txt" 2>&1 || echo "cuobjdump failed: no disassembly"
}
