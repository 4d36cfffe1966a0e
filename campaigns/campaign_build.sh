# Shared by the device run scripts (sourced). They use HERE, B (the generated campaign), OUT, ARCH.
#   record_env             writes $OUT/env.txt: GPU, driver, nvcc and ptxas versions
#   compile_kernels NAME [NVCC FLAGS...]
#                          compiles every $B/NAME_kernels_*.cu in parallel; logs in $OUT/build.log
#   build_campaign NAME    record_env, compile_kernels, link with $HERE/NAME_host.cu into
#                          $B/NAME_run, disassemble into $B/sass.txt (run_wgmma.sh, run_mma.sh)
record_env() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    ptxas --version | tail -2
  } > "$OUT/env.txt" 2>&1
}

compile_kernels() {
  local name="$1" f p fail=0 pids=()
  shift
  for f in "$B"/"$name"_kernels_*.cu; do
    p="${f%.cu}"
    nvcc $ARCH -O2 "$@" -c "$f" -o "$p.o" > "$p.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail=1; done
  cat "$B"/"$name"_kernels_*.log > "$OUT/build.log"
  [ $fail = 0 ] || { echo "kernel build failed"; tail -50 "$OUT/build.log"; return 1; }
}

build_campaign() {
  local name="$1" t0
  record_env
  cat "$OUT/env.txt"
  t0=$(date +%s)
  compile_kernels "$name" || return 1
  nvcc $ARCH -O2 -I"$B" "$HERE/${name}_host.cu" "$B"/"$name"_kernels_*.o -o "$B/${name}_run" >> "$OUT/build.log" 2>&1 \
    || { echo "host build failed"; tail -50 "$OUT/build.log"; return 1; }
  echo "built in $(( $(date +%s) - t0 )) s"
  cuobjdump -sass "$B/${name}_run" > "$B/sass.txt" 2>&1 || echo "cuobjdump failed: no disassembly"
}

# sass_sequences FUNCTION_REGEX OPCODE_REGEX SASS_FILE: one line per function whose name the first
# regex matches, "name: op op ...", the opcodes the second regex matches in program order
sass_sequences() {
  FRE="$1" ORE="$2" awk 'BEGIN { fre = ENVIRON["FRE"]; ore = ENVIRON["ORE"] }  # (no escape processing)
    $0 ~ "Function : " && $NF ~ fre { if (name != "") print name ": " seq; name = $NF; seq = ""; next }
    /Function : / { if (name != "") print name ": " seq; name = ""; next }
    name != "" { line = $0; while (match(line, ore)) {
        seq = seq " " substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) } }
    END { if (name != "") print name ": " seq }' "$3"
}
