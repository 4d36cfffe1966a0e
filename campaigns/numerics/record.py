"""Turn device results into a committed records file (evidence/records/numerics-DATE.json).

    python3 campaigns/numerics/record.py RESULTS_DIR [RESULTS_DIR ...] --date 2026-11-22 \\
        --out evidence/records/numerics-2026-11-22.json

Each RESULTS_DIR is an $OUT of run.sh (numerics_results.json.gz and plan.json). Kernels with a
mismatch or an error are refused: a records file holds only bit-exact kernels (the campaign's
markdown reports the others with their figures). With --recheck, a kernel whose comparison on
the device found mismatches (against the model of that day) is recomputed here: every case's
inputs redrawn from its seed, executed with the current executor and its D words' digest
compared with the hardware's; it is recorded when every case matches. With --skip-errors,
kernels that did not run (an error) are left out and listed, for a later run.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numgen as G  # noqa: E402
from replay import replay_kernel  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--date", required=True)
    ap.add_argument("--device", default="NVIDIA H100 80GB HBM3; nvcc/ptxas 13.0; -gencode arch=compute_90a,code=sm_90a")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--recheck", action="store_true", help="recompute kernels with mismatches (see above)")
    ap.add_argument("--skip-errors", action="store_true", help="leave out kernels that did not run")
    a = ap.parse_args(argv)
    kernels, bad, skipped = {}, [], []
    spec = spec_all = G.ptxspec.load()
    for d in a.results:
        for r in json.load(gzip.open(d / "numerics_results.json.gz", "rt")):
            key = (r["variant"], json.dumps(r["imm"], sort_keys=True))
            hw = G.variant_of(spec_all, r["variant"]).hardware
            if hw != "H100":  # the spec says the H100 computes nothing there (hardware_note)
                print(f"not recorded: {r['variant']}: {hw[:100]}")
                continue
            if r.get("error") or r.get("mismatches") is None:
                skipped.append(key)  # refused below unless another results dir ran it
                continue
            if r.get("mismatches"):
                if not a.recheck or len(r.get("digests") or ()) != r["cases"]:
                    bad.append(key)
                    continue
                res = replay_kernel(spec, {"variant": r["variant"], "imm": r["imm"]}, r["digests"],
                                    list(range(r["cases"])))
                differ = [i for i, ok, _ in res if not ok]
                print(f"recheck {r['variant']} {r['imm']}: {r['cases'] - len(differ)}/{r['cases']} cases match "
                      f"(the device's model: {r['mismatches']} mismatching outputs)", flush=True)
                if differ:
                    bad.append(key)
                    continue
                r = {**r, "mismatches": 0}
            kernels[key] = r
    for key in sorted(set(skipped) - set(kernels)):
        print(f"not run (error): {key[0]} {key[1]}")
        if not a.skip_errors:
            bad.append(key)
    if bad:
        sys.exit(f"{len(bad)} kernels with mismatches or errors, e.g. {bad[:3]}: not recorded")
    out = []
    for i, (key, r) in enumerate(sorted(kernels.items())):
        rc = i % len(G.KINDS)  # the replayed case rotates through the input kinds
        out.append({"variant": r["variant"], "imm": r["imm"], "cases": r["cases"], "outputs": r["outputs"],
                    "mismatches": 0, "all_cases": hashlib.sha256("".join(r["digests"]).encode()).hexdigest()[:24],
                    "replay": [rc, r["digests"][rc]]})
    doc = {"campaign": f"numerics {a.date}", "date": a.date,
           "about": "See evidence/records/numerics-2026-11-22.json (same format).",
           "device": a.device, "seed": G.SEED, "kinds": list(G.KINDS), "kernels": out}
    a.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{len(out)} kernels, {sum(k['outputs'] for k in out)} outputs -> {a.out}")


if __name__ == "__main__":
    main()
