"""What including one header costs nvcc: a benchmark, not a test.

    python3 tests/bench_headers.py [--runs 8] [--arch compute_90a] [--code sm_90a]

For the empty file and for a file that only includes each header of generated/c, nvcc 13.5 (the
wheel's) compiles to an object (host pass and device pass, -std=c++17, `-gencode
arch=ARCH,code=CODE`; CODE defaults to ARCH, PTX only, and sm_90a adds ptxas); the cost of a
header is its time minus the empty file's. Reports the best of --runs of the CPU time nvcc and its
children used (user + system; steadier than wall time on a shared machine) and of wall time; the
files take turns, run after run, so that a spell of load elsewhere touches all of them alike.
(`nvcc -arch=sm_90a` is not one of these: it also compiles a compute_90 PTX, a second device pass.)
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generators"))

from ptxspec.oracle.ptxas import find_ptxas  # noqa: E402


def cost(nvcc: str, src: Path, gencode: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([nvcc, "-std=c++17", "-c", "-gencode", gencode, "-I", str(ROOT / "generated" / "c"),
                    str(src), "-o", os.devnull], check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--arch", default="compute_90a")
    ap.add_argument("--code", default=None, help="default: the --arch (PTX only)")
    args = ap.parse_args()
    gencode = f"arch={args.arch},code={args.code or args.arch}"
    nvcc = str(Path(find_ptxas()).parent / "nvcc")
    headers = ["(empty)"] + sorted(p.name for p in (ROOT / "generated" / "c").glob("*.h"))
    best = {h: (float("inf"), float("inf")) for h in headers}
    with tempfile.TemporaryDirectory() as d:
        for h in headers:
            (Path(d) / f"{len(h)}_{h}.cu").write_text("" if h == "(empty)" else f'#include "{h}"\n')
        for _ in range(args.runs):
            for h in headers:
                cpu, wall = cost(nvcc, Path(d) / f"{len(h)}_{h}.cu", gencode)
                best[h] = (min(best[h][0], cpu), min(best[h][1], wall))
    base_cpu, base_wall = best["(empty)"]
    print(f"nvcc {nvcc}, -c -gencode {gencode}, best of {args.runs}")
    print(f"{'header':24} {'bytes':>10} {'cpu s':>7} {'+cpu s':>7} {'wall s':>7} {'+wall s':>8}")
    for h in headers:
        cpu, wall = best[h]
        size = 0 if h == "(empty)" else (ROOT / "generated" / "c" / h).stat().st_size
        print(f"{h:24} {size:>10} {cpu:7.2f} {cpu - base_cpu:7.2f} {wall:7.2f} {wall - base_wall:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
