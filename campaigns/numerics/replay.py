"""Recompute recorded hardware cases with the executor and compare digests (no GPU).

    python3 campaigns/numerics/replay.py RESULTS.json.gz [--only SUBSTR ...] [--cases N] [--bad]

RESULTS is the device run's numerics_results.json.gz (per kernel: every case's digest of the
hardware's D words). Prints per kernel the cases that match / differ.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numgen as G  # noqa: E402


def digest_words(w) -> str:
    return hashlib.sha256(np.ascontiguousarray(w, "<u4").tobytes()).hexdigest()[:24]


def replay_kernel(spec, k: dict, digests: list, case_ids, params=None):
    v = G.variant_of(spec, k["variant"])
    cases = [G.case_inputs(spec, k, i) for i in case_ids]
    exp = G.expected_words(spec, v, cases, params)
    return [(i, digest_words(exp[j]) == digests[i], cases[j]["kind"]) for j, i in enumerate(case_ids)]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("results", type=Path)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--bad", action="store_true", help="only kernels with mismatches")
    ap.add_argument("--spec-dir")
    a = ap.parse_args(argv)
    spec = G.ptxspec.load(a.spec_dir)
    recs = json.load(gzip.open(a.results, "rt"))
    tot = ok = 0
    for r in recs:
        if "digests" not in r or (a.only and not any(s in r["variant"] for s in a.only)):
            continue
        if a.bad and not r.get("mismatches"):
            continue
        k = {"variant": r["variant"], "imm": r["imm"]}
        ids = list(range(min(a.cases, len(r["digests"]))))
        res = replay_kernel(spec, k, r["digests"], ids)
        good = sum(x[1] for x in res)
        tot += len(res)
        ok += good
        bad = [(i, kind) for i, m, kind in res if not m]
        print(f"{r['variant']} {r['imm']}: {good}/{len(res)}" + (f" differ: {bad[:8]}" if bad else ""), flush=True)
    print(f"total {ok}/{tot} cases match")


if __name__ == "__main__":
    main()
