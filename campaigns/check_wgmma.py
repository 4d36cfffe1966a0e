"""Check the hardware outputs of a wgmma device campaign against the spec, and write the records.

    python3 campaigns/check_wgmma.py RESULTS [--build campaigns/build] [--run main]
        [--record evidence/records/wgmma-2026-11-22.json] [--proposed-spec DIR]

RESULTS holds what run_wgmma.sh wrote under $OUT (wgmma_out.bin.gz, env.txt, ...); the case file
and the kernel list are read from the campaign's build directory (the exact inputs that were sent).
Every case's expected D registers are computed from the spec (wgmma_harness.expected_output) and
compared element by element. Prints a table per variant group and, for mismatching cases, where
the wrong elements are.

--record merges this run's spec-independent cases into the records file (replacing the run's
earlier records). A record that the repository's spec does not reproduce gets the ids of the
corrections (CORRECTIONS below) that it depends on; with --proposed-spec, the checker also
verifies that the corrected spec tree reproduces it. The swizzle formula of a proposed spec may
name `o` (the descriptor's base offset), which the current model does not yet accept.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wgmma_harness as H  # noqa: E402

HERE = Path(__file__).resolve().parent

# What the hardware contradicted in the spec of 2026-11-22, with the formula it confirmed.
CORRECTIONS = {
    "sparse-8bit-metadata": {
        "where": "spec/layouts/wgmma.yaml sparsity wgmma.sparse.8bit",
        "spec": {"row": "16*(t//32) + (t%32)//4 + 8*(n//4)", "chunk_index": "4*(t%4) + n%4"},
        "hardware": {"row": "16*(t//32) + (t%32)//4 + 8*(t%2)", "chunk_index": "8*((t%4)//2) + n"},
        "evidence": ("B = selection (B[k, n] = 1 where n % 64 == k) shows the dense A the hardware built: each "
                     "thread's eight nibbles describe eight consecutive 4-element chunks of ONE row (row g for "
                     "even t%4, g+8 for odd; chunks 0-7 for t%4 in {0, 1}, 8-15 for {2, 3}); 33 directed cases "
                     "agree on all 1024 chunks. With this map all 636 other 8-bit sparse cases of both runs "
                     "(random, unordered nibbles, satfinite; the second run with new seeds, predicted before "
                     "it ran) match exactly, and 171 more with the K-major LBO correction."),
    },
    "k-major-lbo": {
        "where": "spec/smem/wgmma.yaml canonical_layouts, major K, swizzled",
        "spec": {"bit_offset": "(mn%8)*W*8 + (mn//8)*SBO*8 + k*bits"},
        "hardware": {"bit_offset": "(mn%8)*W*8 + (mn//8)*SBO*8 + (k*bits)%(W*8) + ((k*bits)//(W*8))*LBO*8"},
        "evidence": ("Sparse B (64 bytes of K per row) in 32B K-major swizzle: the second 32 bytes of K are at "
                     "+LBO, not contiguous; 91 + 142 cases (the second run predicted) over f16, bf16, tf32, "
                     "e4m3/e5m2, s8/u8 and two LBO/SBO arrangements. Identical to the old formula whenever K "
                     "fits in one swizzle row (every dense shape), where LBO stays unused (random LBO values "
                     "had no effect)."),
    },
    "swizzle-base-offset": {
        "where": "spec/smem/wgmma.yaml swizzle (and the model: the formula must see the base offset `o`)",
        "spec": {"swizzle": "a ^ (((a >> 7) & ((1 << b) - 1)) << 4)"},
        "hardware": {"swizzle": "a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4)"},
        "evidence": ("The swizzle XORs absolute address bits (start not on a pattern boundary, base_offset 0: "
                     "exact); a nonzero base_offset o shifts the row phase to (a >> 7) - o: 66 cases (54 with "
                     "o != 0) over 128B, 64B and 32B, K- and MN-major, o in 0..7 with and without matching "
                     "starts (64B and 32B predicted before they ran); (a >> 7) + o and (a >> 7) ^ o are "
                     "refuted."),
    },
}


def correction_ids(spec, case: H.Case) -> list[str]:
    """The corrections a case's expected output depends on (by what it exercises)."""
    v = spec.variant(*case.variant_id.rsplit(":", 1))
    ids = []
    if v.sparse and v.sparsity.name.endswith("8bit"):
        ids.append("sparse-8bit-metadata")
    if case.kind == "open-k-row":
        ids.append("k-major-lbo")
    descs = [case.b_desc] + ([case.a_desc] if v.form == "desc" else [])
    if any(H.smem_mod.decode_descriptor(spec, d, "wgmma")["base_offset"] for d in descs):
        ids.append("swizzle-base-offset")
    return ids


def load_outputs(results: Path) -> dict:
    gz = results / "wgmma_out.bin.gz"
    return H.read_output_file(gz if gz.exists() else results / "wgmma_out.bin")


def load_campaign(build: Path):
    kernels = json.loads((build / "kernels.json").read_text())
    alphabets = json.loads((build / "alphabets.json").read_text())
    cases = H.read_case_file(build / "cases.bin", kernels)
    for c, info in zip(cases, json.loads((build / "cases.json").read_text())):
        assert c.index == info["index"]
        c.kind, c.note = info["kind"], info["note"]
    by_codes = {tuple(v): k for k, v in alphabets.items()}  # the case file holds codes: name them
    for c in cases:
        for segs in c.segments.values():
            for s in segs:
                if s.kind == H.SEG_RAND:
                    s.alphabet = by_codes[tuple(s.codes)]
    return kernels, alphabets, cases


def group_key(case: H.Case) -> tuple:
    vid, form = case.variant_id.rsplit(":", 1)
    shape = vid.split(".aligned.")[1].split(".")
    n = int(shape[0].split("n")[1].split("k")[0])
    return ("sparse" if ".sp." in vid else "dense", ".".join(shape[1:]), n, form)


def evaluate(spec, case, regs, arrays) -> dict:
    """Compare one case; {'unmodelled': reason} where the spec cannot express its inputs."""
    try:
        return H.compare(spec, case, regs, arrays)
    except H.smem_mod.BaseOffsetUnsupported as exc:
        v = spec.variant(*case.variant_id.rsplit(":", 1))
        return {"unmodelled": str(exc), "digest": H.digest(H.canonical(spec, v, regs)), "elements": 64 * v.n,
                "mismatches": None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path)
    ap.add_argument("--build", type=Path, default=HERE / "build")
    ap.add_argument("--record", type=Path, help="merge this run's records into this JSON file")
    ap.add_argument("--run", default="main", help="the run's name in the records")
    ap.add_argument("--date", default="2026-11-22")
    ap.add_argument("--spec-dir", type=Path, help="check against this spec tree instead of the repository's")
    ap.add_argument("--proposed-spec", type=Path, help="a corrected spec tree that failing records must match")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)

    if args.spec_dir:
        spec = H.ptxspec.load(args.spec_dir)
    else:
        spec = H.ptxspec.load()
    proposed = None
    if args.proposed_spec:
        proposed = H.ptxspec.load(args.proposed_spec)
    kernels, alphabets, cases = load_campaign(args.build)
    outputs = load_outputs(args.results)

    table = defaultdict(lambda: {"cases": 0, "elements": 0, "mismatches": 0, "failed_cases": 0, "unmodelled": 0,
                                 "kinds": set()})
    bases, failures, unmodelled, records = set(), [], [], []
    for c in cases:
        row = table[group_key(c)]
        row["cases"] += 1
        row["kinds"].add(c.kind)
        if c.index not in outputs:
            failures.append((c, "no output"))
            row["failed_cases"] += 1
            continue
        status, regs = outputs[c.index]
        if status >= 0xE0000000 or status > H.TARGET:
            failures.append((c, f"launch failed / status {status:#x}"))
            row["failed_cases"] += 1
            continue
        bases.add(status)
        arrays = c.materialize()
        res = evaluate(spec, c, regs, arrays)
        if "unmodelled" in res:
            row["unmodelled"] += 1
            unmodelled.append((c, res["unmodelled"]))
        else:
            row["elements"] += res["elements"]
            row["mismatches"] += res["mismatches"]
            if res["mismatches"]:
                row["failed_cases"] += 1
                failures.append((c, res))
        if not c.spec_independent():
            continue
        rec = c.as_record()
        rec.update(run=args.run, digest=res["digest"], elements=res["elements"],
                   spec_match=res["mismatches"] == 0)
        if not rec["spec_match"]:
            rec["corrections"] = correction_ids(spec, c)
            if not rec["corrections"]:
                print(f"  case {c.index}: fails and no correction explains it")
            if proposed is not None:
                pres = evaluate(proposed, c, regs, arrays)
                if pres.get("mismatches") != 0:
                    print(f"  case {c.index}: the proposed spec does not reproduce it either")
                    rec["corrections"].append("unexplained")
        records.append(rec)

    # ---- report
    total_cases = sum(r["cases"] for r in table.values())
    total_el = sum(r["elements"] for r in table.values())
    total_bad = sum(r["mismatches"] for r in table.values())
    print(f"shared-memory base address(es) seen: {sorted(hex(b) for b in bases)}")
    print(f"{'class':7s} {'types':30s} {'N':>4s} {'form':5s} {'cases':>5s} {'elements':>9s} {'mismatch':>8s} "
          f"{'bad':>4s} {'unmod':>5s}  kinds")
    for key in sorted(table):
        r = table[key]
        print(f"{key[0]:7s} {key[1]:30s} {key[2]:4d} {key[3]:5s} {r['cases']:5d} {r['elements']:9d} "
              f"{r['mismatches']:8d} {r['failed_cases']:4d} {r['unmodelled']:5d}  {','.join(sorted(r['kinds']))}")
    print(f"TOTAL: {len(table)} groups, {total_cases} cases, {total_el} elements compared, {total_bad} mismatches, "
          f"{len(failures)} failing cases, {len(unmodelled)} cases the spec cannot express")
    for c, why in unmodelled[:3]:
        print(f"  case {c.index} [{c.kind}] {c.variant_id}: {why}")
    for c, res in failures[: 60 if args.verbose else 25]:
        if isinstance(res, str):
            print(f"  case {c.index} {c.variant_id} {c.imm}: {res}")
            continue
        bad = np.argwhere(res["bad"])
        print(f"  case {c.index} [{c.kind}] {c.variant_id} imm={c.imm} scale_d={c.scale_d} ({c.note}): "
              f"{res['mismatches']}/{res['elements']} wrong; first at (row, col) "
              f"{[tuple(int(x) for x in b) for b in bad[:6]]}")

    if args.record:
        doc = {"cases": [], "alphabets": {}, "runs": {}}
        if args.record.exists():
            doc = json.loads(args.record.read_text())
        kept = [r for r in doc["cases"] if r["run"] != args.run]
        env = args.results / "env.txt"
        doc.update({
            "campaign": f"wgmma {args.date}",
            "date": args.date,
            "target_shared_address": H.TARGET,
            "about": ("Each case: one wgmma on an H100 with spec-independent random inputs (segments drawn by the "
                      "hash in campaigns/wgmma_harness.py from the named alphabets and seeds). digest: sha256 "
                      "(first 128 bits) of the hardware's D registers (threads x regs, little-endian uint32, "
                      "float -0 read as +0). spec_match: whether the repository's spec reproduced it when "
                      "recorded; corrections: what it needs otherwise (see 'corrections')."),
            "corrections": CORRECTIONS,
        })
        doc["runs"][args.run] = {"build": str(args.build.relative_to(HERE.parent)) if args.build.is_absolute()
                                 and HERE.parent in args.build.parents else str(args.build),
                                 "env": env.read_text() if env.exists() else "",
                                 "cases": len(records)}
        doc["cases"] = kept + records
        used = {s[5] for r in doc["cases"] for segs in r["segments"].values() for s in segs}
        doc["alphabets"] = {k: v for k, v in {**doc.get("alphabets", {}), **alphabets}.items() if k in used}
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print(f"wrote {len(records)} records of run {args.run!r} to {args.record} "
              f"({len(doc['cases'])} in all, {args.record.stat().st_size / 1e6:.2f} MB)")
    return 0 if total_bad == 0 and not failures and not unmodelled else 1


if __name__ == "__main__":
    sys.exit(main())
