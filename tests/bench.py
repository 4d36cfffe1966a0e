"""Benchmarks of the quality bars (run by hand: `python3 tests/bench.py`; not a timed test).

Full build <= 3 s, `ptxspec validate` <= 1 s, an in-process query <= 5 ms.
"""
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ptxspec
from ptxspec import build as build_mod

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    spec = ptxspec.load()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            ("ptxspec validate (CLI, end to end)",
             timed(lambda: subprocess.run([sys.executable, "-m", "ptxspec", "validate"], check=True,
                                          capture_output=True))),
            ("ptxspec build (CLI, end to end)",
             timed(lambda: subprocess.run([sys.executable, "-m", "ptxspec", "build", "--out", tmp], check=True,
                                          capture_output=True))),
            ("load + resolve (in process)", timed(ptxspec.load)),
            ("artifacts from a loaded model", timed(lambda: build_mod.artifacts(spec))),
            ("query n=200 atype=e4m3 (in process)",
             timed(lambda: spec.query(family="wgmma", n=200, atype="e4m3"), repeat=50)),
            ("variant lookup by opcode", timed(lambda: spec.variant(
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "reg"), repeat=1000)),
        ]
    for name, secs in rows:
        print(f"{name:45s} {secs * 1000:9.2f} ms (median)")


if __name__ == "__main__":
    main()
