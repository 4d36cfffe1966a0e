"""Benchmarks of the quality bars (run by hand: `python3 tests/bench.py`; not a timed test).

Full build <= 3 s, `ptxspec validate` <= 1 s, a query <= 5 ms in process and <= 200 ms through
the CLI, the database built in <= 1 s.
"""
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ptxspec
from ptxspec import build as build_mod
from ptxspec.emit import sqlite as sqlite_emit
from ptxspec.query import Database

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
            ("database built (rows + sqlite file)", timed(lambda: sqlite_emit.connect(spec).serialize())),
            ("database + its .sql text dump", timed(lambda: sqlite_emit.build(spec))),
        ]
        db = Database.open(ROOT / "generated" / "ptxspec.sqlite")
        vid = "wgmma.mma_async.sync.aligned.m64n200k32.f32.e4m3.e4m3:reg"
        rows += [
            ("db query: variants n=200 atype=e4m3", timed(lambda: db.variants(["n=200", "atype=e4m3"]), repeat=50)),
            ("db query: valid on sm_90a at PTX 8.2", timed(lambda: db.variants(target="sm_90a", ptx="8.2"), repeat=20)),
            ("db query: which thread holds D[17][5]", timed(lambda: db.fragment(vid, "d", row=17, col=5), repeat=50)),
            ("ptxspec query (CLI, end to end)", timed(lambda: subprocess.run(
                [sys.executable, "-m", "ptxspec", "query", "n=200", "atype=e4m3"], check=True, capture_output=True))),
        ]
    for name, secs in rows:
        print(f"{name:45s} {secs * 1000:9.2f} ms (median)")
    for path in sorted((ROOT / "generated").glob("ptxspec.*")):
        print(f"{'size of generated/' + path.name:45s} {path.stat().st_size / 1e6:9.2f} MB")


if __name__ == "__main__":
    main()
