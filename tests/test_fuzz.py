"""The mutation fuzzer (tests/fuzz.py), boxed for CI (full tier): a fixed number of mutated spec
trees (with their evidence files), hostile queries (crafted databases too), API calls with hostile
arrays and hostile templates (the same cases on every machine, however fast: a box counted in
cases, not seconds), none of which may end in an exit status other than 0, 1 or 2, a signal, a
hang, an unlocated problem line, a write where a failed command must not write, or an API call
that crashes or answers wrongly.

Longer campaigns run by hand: `nice python3 tests/fuzz.py --trees 10000 --queries 2000 --api 5000
--renders 500 --log F`, or over many cores: `campaigns/fuzz_campaign.sh SEED OUTDIR ...`.
PTXSPEC_FUZZ_SEED picks another seed (the default replays the same cases on every run),
PTXSPEC_FUZZ_TREES, PTXSPEC_FUZZ_QUERIES, PTXSPEC_FUZZ_API and PTXSPEC_FUZZ_RENDERS another box.
The time limit here is a hang guard; the fuzzer's own per-case limits and its address-space limit
are what catch a runaway case.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FUZZER = Path(__file__).resolve().parent / "fuzz.py"
HANG_GUARD = 3600  # seconds: a campaign of this box that runs this long is stuck, however busy the machine
BOX = {"trees": "12", "queries": "12", "api": "24", "renders": "6"}  # cases of each kind


@pytest.mark.full
def test_fuzz_campaign_finds_nothing(tmp_path):
    seed = os.environ.get("PTXSPEC_FUZZ_SEED", "18")
    box = {k: os.environ.get(f"PTXSPEC_FUZZ_{k.upper()}", n) for k, n in BOX.items()}
    log = tmp_path / "fuzz.jsonl"
    proc = subprocess.run([sys.executable, str(FUZZER), "--seed", seed,
                           *[a for k, n in box.items() for a in (f"--{k}", n)],
                           "--log", str(log), "--keep", str(tmp_path / "failed")],
                          capture_output=True, text=True, errors="replace", timeout=HANG_GUARD)
    assert proc.returncode == 0, f"fuzz seed {seed} found failures (replay: tests/fuzz.py --seed {seed} " \
                                 f"--replay KIND:I):\n{proc.stderr[-6000:]}"
    cases = log.read_text().count("\n")
    assert cases == sum(int(n) for n in box.values()), f"{cases} cases ran, not the box {box}:\n{proc.stderr[-3000:]}"
    assert all(k in proc.stderr for k in ("tree validate", "query", "api ", "render")), proc.stderr[-3000:]
