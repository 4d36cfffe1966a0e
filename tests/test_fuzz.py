"""The mutation fuzzer (tests/fuzz.py), boxed for CI (full tier): a fixed number of mutated spec
trees and hostile queries (the same cases on every machine, however fast: a box counted in cases,
not seconds), none of which may end in an exit status other than 0, 1 or 2, a signal, a hang, an
unlocated problem line, or a write where a failed command must not write.

Longer campaigns run by hand: `nice python3 tests/fuzz.py --trees 10000 --queries 2000 --log F`
(and on 32-core device hosts: 15,000 trees a session).
PTXSPEC_FUZZ_SEED picks another seed (the default replays the same cases on every run),
PTXSPEC_FUZZ_TREES and PTXSPEC_FUZZ_QUERIES another box. The time limit here is a hang guard; the
fuzzer's own per-case limits and its address-space limit are what catch a runaway case.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FUZZER = Path(__file__).resolve().parent / "fuzz.py"
HANG_GUARD = 3600  # seconds: a campaign of this box that runs this long is stuck, however busy the machine


@pytest.mark.full
def test_fuzz_campaign_finds_nothing(tmp_path):
    seed = os.environ.get("PTXSPEC_FUZZ_SEED", "18")
    trees, queries = os.environ.get("PTXSPEC_FUZZ_TREES", "12"), os.environ.get("PTXSPEC_FUZZ_QUERIES", "12")
    log = tmp_path / "fuzz.jsonl"
    proc = subprocess.run([sys.executable, str(FUZZER), "--seed", seed, "--trees", trees, "--queries", queries,
                           "--log", str(log), "--keep", str(tmp_path / "failed")],
                          capture_output=True, text=True, errors="replace", timeout=HANG_GUARD)
    assert proc.returncode == 0, f"fuzz seed {seed} found failures (replay: tests/fuzz.py --seed {seed} " \
                                 f"--replay KIND:I):\n{proc.stderr[-6000:]}"
    cases = log.read_text().count("\n")
    assert cases == int(trees) + int(queries), f"{cases} cases ran, not {trees} trees and {queries} queries:\n{proc.stderr[-3000:]}"
    assert "tree validate" in proc.stderr and "query" in proc.stderr, proc.stderr[-3000:]
