#!/usr/bin/env bash
# A fuzz campaign of tests/fuzz.py over many cores: one worker per slice of case numbers, each of
# one kind (tree, api, render, query), all with the same seed, so that any case replays alone
# (tests/fuzz.py --seed SEED --replay KIND:I). Workers stop starting cases after SECONDS.
#
#   campaigns/fuzz_campaign.sh SEED OUTDIR TREES API RENDERS QUERIES [WORKERS] [SECONDS]
#
# OUTDIR gets campaign.jsonl (every case), workers.txt (each worker's summary line and failures)
# and summary.txt (python3 tests/fuzz_review.py --summary over the log).
set -u
seed=$1 out=$2 trees=$3 api=$4 renders=$5 queries=$6 workers=${7:-$(nproc)} seconds=${8:-540}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/logs"
side=$(( workers / 16 > 0 ? workers / 16 : 1 ))    # workers for each of api, render and query cases
tw=$(( workers - 3 * side > 0 ? workers - 3 * side : 1 ))
launch() {  # kind count nworkers
    local kind=$1 count=$2 n=$3 per=$(( ($2 + $3 - 1) / $3 )) k
    for (( k = 0; k < n; k++ )); do
        nice python3 "$here/tests/fuzz.py" --seed "$seed" --start $(( k * per )) --"$kind" "$per" \
            --seconds "$seconds" --log "$out/logs/$kind$k.jsonl" --keep "$out/keep" >"$out/logs/$kind$k.err" 2>&1 &
    done
}
launch trees "$trees" "$tw"
launch api "$api" "$side"
launch renders "$renders" "$side"
launch queries "$queries" "$side"
wait
cat "$out"/logs/*.jsonl >"$out/campaign.jsonl"
for f in "$out"/logs/*.err; do echo "== $(basename "$f")"; grep -E "^(FAIL|fuzz seed)" "$f"; done >"$out/workers.txt"
python3 "$here/tests/fuzz_review.py" --summary "$out/campaign.jsonl" --seed "$seed" >"$out/summary.txt"
