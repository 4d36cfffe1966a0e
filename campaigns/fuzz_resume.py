"""Finish a fuzz campaign whose tree workers stopped at their time limit: run, with the same seed,
every tree case below TREES that OUTDIR/campaign.jsonl lacks (each worker's unrun tail of its
slice), one worker per contiguous run of case numbers, then rebuild campaign.jsonl, workers.txt
and summary.txt over all the logs, as campaigns/fuzz_campaign.sh writes them.

    python3 campaigns/fuzz_resume.py SEED OUTDIR TREES [SECONDS]

A case's outcome depends only on the seed and its number (tests/fuzz.py), so the campaign that
results is the one fuzz_campaign.sh would have run with more time.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def missing_runs(log: Path, trees: int) -> list[tuple[int, int]]:
    """(first case, count) of each contiguous run of tree cases below `trees` not in the log."""
    done = {int(json.loads(line)["case"].split(":")[1]) for line in log.read_text().splitlines()
            if json.loads(line)["case"].startswith("tree:")}
    runs: list[tuple[int, int]] = []
    for case in range(trees):
        if case in done:
            continue
        if runs and runs[-1][0] + runs[-1][1] == case:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((case, 1))
    return runs


def main() -> None:
    seed, out, trees = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    seconds = sys.argv[4] if len(sys.argv) > 4 else "540"
    runs = missing_runs(out / "campaign.jsonl", trees)
    print(f"{sum(n for _, n in runs)} tree cases to run, in {len(runs)} runs")
    procs = []
    for i, (first, count) in enumerate(runs):
        err = (out / "logs" / f"resume{i}.err").open("w")
        procs.append(subprocess.Popen(
            ["nice", sys.executable, str(HERE / "tests" / "fuzz.py"), "--seed", str(seed), "--start", str(first),
             "--trees", str(count), "--seconds", seconds, "--log", str(out / "logs" / f"resume{i}.jsonl"),
             "--keep", str(out / "keep")], stdout=err, stderr=subprocess.STDOUT))
    for p in procs:
        p.wait()
    logs = sorted((out / "logs").glob("*.jsonl"))
    (out / "campaign.jsonl").write_text("".join(p.read_text() for p in logs))
    lines = []
    for err in sorted((out / "logs").glob("*.err")):
        lines.append(f"== {err.name}")
        lines += [x for x in err.read_text().splitlines() if x.startswith(("FAIL", "fuzz seed"))]
    (out / "workers.txt").write_text("\n".join(lines) + "\n")
    summary = subprocess.run([sys.executable, str(HERE / "tests" / "fuzz_review.py"), "--summary",
                              str(out / "campaign.jsonl"), "--seed", str(seed)], capture_output=True, text=True,
                             check=True).stdout
    (out / "summary.txt").write_text(summary)
    print(summary)


if __name__ == "__main__":
    main()
