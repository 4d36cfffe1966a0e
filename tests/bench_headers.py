"""What including one header costs nvcc: a benchmark, not a test.

    python3 tests/bench_headers.py [--runs 5] [--arch compute_90a]

For the empty file and for a file that only includes each header of generated/c, nvcc 13.5 (the
wheel's) compiles to an object (host pass and device pass, -std=c++17); the cost of a header is
its time minus the empty file's. Reports the best of --runs of the CPU time nvcc and its
children used (user + system; steadier than wall time on a shared machine) and of wall time.
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

from ptxspec.ptxas import find_ptxas  # noqa: E402


def cost(nvcc: str, src: Path, arch: str, runs: int) -> tuple[float, float]:
    best_cpu = best_wall = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run([nvcc, "-std=c++17", "-c", "-gencode", f"arch={arch},code={arch}", "-I", str(ROOT / "generated" / "c"),
                        str(src), "-o", os.devnull], check=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
    return best_cpu, best_wall


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--arch", default="compute_90a")
    args = ap.parse_args()
    nvcc = str(Path(find_ptxas()).parent / "nvcc")
    headers = ["(empty)"] + sorted(p.name for p in (ROOT / "generated" / "c").glob("*.h"))
    with tempfile.TemporaryDirectory() as d:
        rows = []
        for h in headers:
            src = Path(d) / "tu.cu"
            src.write_text("" if h == "(empty)" else f'#include "{h}"\n')
            rows.append((h, *cost(nvcc, src, args.arch, args.runs)))
    base_cpu, base_wall = rows[0][1], rows[0][2]
    print(f"nvcc {nvcc}, -c -gencode arch={args.arch},code={args.arch}, best of {args.runs}")
    print(f"{'header':24} {'bytes':>10} {'cpu s':>7} {'+cpu s':>7} {'wall s':>7} {'+wall s':>8}")
    for h, cpu, wall in rows:
        size = 0 if h == "(empty)" else (ROOT / "generated" / "c" / h).stat().st_size
        print(f"{h:24} {size:>10} {cpu:7.2f} {cpu - base_cpu:7.2f} {wall:7.2f} {wall - base_wall:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
