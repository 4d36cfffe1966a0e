"""The mutation fuzzer (tests/fuzz.py), time-boxed for CI: half a minute of mutated spec trees
(with their evidence files), hostile queries (crafted databases too), API calls with hostile
arrays and hostile templates, none of which may end in an exit status other than 0, 1 or 2, a
signal, a hang, an unlocated problem line, a write where a failed command must not write, or an
API call that crashes or answers wrongly.

Longer campaigns run by hand: `nice python3 tests/fuzz.py --trees 10000 --queries 2000 --api 5000
--renders 500 --log F`, or over many cores: `campaigns/fuzz_campaign.sh SEED OUTDIR ...`.
PTXSPEC_FUZZ_SEED picks another seed (the default replays the same cases on every run) and
PTXSPEC_FUZZ_SECONDS another time box.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FUZZER = Path(__file__).resolve().parent / "fuzz.py"


def test_fuzz_campaign_finds_nothing(tmp_path):
    seed = os.environ.get("PTXSPEC_FUZZ_SEED", "18")
    seconds = os.environ.get("PTXSPEC_FUZZ_SECONDS", "30")
    log = tmp_path / "fuzz.jsonl"
    proc = subprocess.run([sys.executable, str(FUZZER), "--seed", seed, "--seconds", seconds, "--log", str(log),
                           "--keep", str(tmp_path / "failed")],
                          capture_output=True, text=True, errors="replace", timeout=float(seconds) + 900)
    assert proc.returncode == 0, f"fuzz seed {seed} found failures (replay: tests/fuzz.py --seed {seed} " \
                                 f"--replay KIND:I):\n{proc.stderr[-6000:]}"
    cases = log.read_text().count("\n")
    assert cases >= 5, f"only {cases} cases ran:\n{proc.stderr[-3000:]}"
    assert all(k in proc.stderr for k in ("tree validate", "query", "api ", "render")), proc.stderr[-3000:]
