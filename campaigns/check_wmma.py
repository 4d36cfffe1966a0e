"""Compare a wmma device run with the spec, and write its records.

    python3 campaigns/check_wmma.py RESULTS [--build campaigns/build/wmma]
                                       [--record evidence/records/wmma-2026-11-22.json]

RESULTS is the folder run_wmma.sh wrote (wmma_raw.npz, env.txt, sass_kernels.txt). Every kernel's
raw result becomes one or more record entries (the inputs are implied by the entry: see
wmma_replay.py) with the digest of what the H100 returned; each entry is then replayed through
the current spec. Prints a table per instruction and group; exit 1 on any mismatch.

When the run also executed kernels assembled by another ptxas (wmma_raw_cubins.npz: the wheel's
ptxas 13.5, see gen_wmma.py --cubins), their results are replayed as well and compared with the
main run's, entry by entry.

The .f64 wmma.mma at m16n16k16 and m16n16k8 (ptxas accepts them, the manual does not define them)
have no fragment map: their D is recorded as an observation (how many distinct values D held),
not replayed.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "generators"))
sys.path.insert(0, str(HERE))

import ptxspec  # noqa: E402
import wmma_device as W  # noqa: E402
import wmma_replay as R  # noqa: E402
from common import canonical, digest  # noqa: E402


def entries_from_run(spec, plan: list[dict], raw) -> tuple[list[dict], list[dict]]:
    """(record entries, unmapped observations) from one run's raw results."""
    entries, unmapped = [], []
    for k in plan:
        i = k["index"]
        if int(raw[f"k{i}_rc"]) != 0:
            raise SystemExit(f"kernel {i} ({k['opcode']}) failed on the device: rc {int(raw[f'k{i}_rc'])}")
        if k["kind"] == "load":
            out = raw[f"k{i}_out"]
            entries.append({"kind": "load", "opcode": k["opcode"], "stride": k["stride"], "ld": int(raw[f"k{i}_ld"]),
                            "passes": int(out.shape[0]), "digest": digest(out)})
        elif k["kind"] == "store":
            entries.append({"kind": "store", "opcode": k["opcode"], "stride": k["stride"], "ld": int(raw[f"k{i}_ld"]),
                            "digest": digest(raw[f"k{i}_buf"])})
        else:
            v = spec.variant(k["opcode"])
            mapped = all(x in v.fragment_layouts for x in "abcd")
            cases = W.MMA_CASES if k["kind"] == "mma" else W.CHAIN_CASES
            for c in range(cases):
                d = raw[f"k{i}_c{c}_d"]
                if not mapped:
                    unmapped.append({"opcode": k["opcode"], "case": c, "d_distinct_words": int(np.unique(d).size)})
                    continue
                e = {"kind": k["kind"], "opcode": k["opcode"], "case": c}
                if k["kind"] == "mma":
                    e["digest"] = digest(canonical(spec, v, d))
                else:
                    for x in "abc":
                        e[f"digest_{x}"] = digest(raw[f"k{i}_c{c}_{x}"])
                    e["digest_d"] = digest(canonical(spec, v, d))
                entries.append(e)
    return entries, unmapped


def inputs_check(spec, plan, raw) -> list[str]:
    """The run's recorded inputs are the ones wmma_replay redraws (so the records replay the run)."""
    problems = []
    for k in plan:
        i = k["index"]
        if k["kind"] == "mma":
            v = spec.variant(k["opcode"])
            if not all(x in v.fragment_layouts for x in "abcd"):
                continue
            for c in range(W.MMA_CASES):
                regs = R.mma_inputs(v, c)
                if any((regs[x] != raw[f"k{i}_c{c}_{x}"]).any() for x in "abc"):
                    problems.append(f"{k['opcode']} case {c}: inputs differ from the redraw")
        elif k["kind"] == "chain":
            v = spec.variant(k["opcode"])
            for c in range(W.CHAIN_CASES):
                mats = R.chain_matrices(v, c)
                if any((mats[x] != raw[f"k{i}_c{c}_m{x}"]).any() for x in "abc"):
                    problems.append(f"{k['opcode']} chain case {c}: matrices differ from the redraw")
        elif k["kind"] == "store":
            v = spec.variant(k["opcode"])
            regs, _ = R.store_inputs(v)
            if (regs != raw[f"k{i}_in"]).any():
                problems.append(f"{k['opcode']}: store inputs differ")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--build", type=Path, default=HERE / "build" / "wmma")
    ap.add_argument("--record", type=Path)
    args = ap.parse_args(argv)
    spec = ptxspec.load()
    plan = json.loads((args.build / "kernels.json").read_text())["kernels"]
    raw = np.load(args.results / "wmma_raw.npz")
    problems = inputs_check(spec, plan, raw)
    if problems:
        print("\n".join(problems[:20]))
        return 2
    entries, unmapped = entries_from_run(spec, plan, raw)
    table = defaultdict(lambda: [0, 0])
    bad = []
    for e in entries:
        v = spec.variant(e["opcode"])
        ok = R.replay(spec, e)
        row = table[(v.instruction, e["kind"], v.group)]
        row[0] += 1
        row[1] += 0 if ok else 1
        if not ok:
            bad.append(e)
    print(f"{'instruction':14} {'kind':6} {'group':18} {'cases':>6} {'mismatch':>8}")
    for (inst, kind, group), (n, b) in sorted(table.items()):
        print(f"{inst:14} {kind:6} {group:18} {n:6} {b:8}")
    total = len(entries)
    print(f"{total} cases, {len(bad)} mismatches; {len(unmapped)} cases of variants without a fragment map "
          f"(distinct D words per case: {sorted({u['d_distinct_words'] for u in unmapped})})")
    for e in bad[:10]:
        print("MISMATCH", e)
    second = None
    if (args.results / "wmma_raw_cubins.npz").exists():
        raw2 = np.load(args.results / "wmma_raw_cubins.npz")
        entries2, unmapped2 = entries_from_run(spec, plan, raw2)
        bad2 = [e for e in entries2 if not R.replay(spec, e)]
        same = sum(a == b for a, b in zip(entries, entries2))
        who = (args.results / "cubins_ptxas.txt").read_text().strip() if (args.results / "cubins_ptxas.txt").exists() else ""
        print(f"second build ({who}): {len(entries2)} cases, {len(bad2)} mismatches, {same} identical to the main run")
        bad += bad2
        second = {"built_by": who, "cases": len(entries2), "mismatches": len(bad2), "identical_to_main_run": same,
                  "unmapped_distinct_d_words": sorted({u["d_distinct_words"] for u in unmapped2})}
    if args.record:
        env = (args.results / "env.txt").read_text().strip().splitlines() if (args.results / "env.txt").exists() else []
        sass = (args.results / "sass_kernels.txt").read_text().splitlines() if (args.results / "sass_kernels.txt").exists() else []
        names = {k["name"]: k["opcode"] for k in plan if k["kind"] == "mma"}
        no_mma = sorted({names[line.split(":")[0]] for line in sass if line.split(":")[0] in names
                         and "MMA" not in line})
        doc = {
            "campaign": "wmma-2026-11-22",
            "description": "campaigns/notes/2026-11-22-wmma.md; entries replay through campaigns/wmma_replay.py",
            "environment": env,
            "seed": W.SEED,
            "counts": {kind: sum(1 for e in entries if e["kind"] == kind) for kind in ("load", "store", "mma", "chain")},
            "second_build": second,
            "entries": entries,
            "unmapped": {"note": "wmma.mma .f64 m16n16k16/m16n16k8: no multiply in the SASS; D one constant",
                         "sass_without_mma": no_mma, "cases": unmapped},
        }
        args.record.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")
        print(f"wrote {args.record} ({args.record.stat().st_size} bytes)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
