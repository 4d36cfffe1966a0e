"""Check the hardware outputs of an mma device campaign against the spec, and write the records.

    python3 tests/device/check_mma.py RESULTS [--build tests/device/build/mma] [--run main]
        [--record tests/device/records/mma-2026-11-22.json] [--spec-dir DIR] [-v]
    python3 tests/device/check_mma.py --simulate DIR    # no GPU: write the spec's own D as DIR/mma_out.bin.gz

RESULTS holds what run_mma.sh wrote under $OUT (mma_out.bin.gz, env.txt, sass_kernels.txt, ...);
the inputs are read back from the campaign's build directory (mma_in.bin: exactly what was sent),
and the random operands are checked to be what their seeds draw. Every case's expected D is
computed from the spec (mma_harness.expected_output) and compared element by element. Prints a
table per variant class (the spec's group) and, for mismatching cases, where the wrong elements
are; for directed cases, which input element each wrong D element holds.

--record writes this run's cases to the records file (replacing the run's earlier records): seeds
and alphabets of random operands, the raw words of explicit ones, and the digest of the hardware's
D registers; and per variant the SASS opcodes of its kernel.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mma_harness as H  # noqa: E402

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build" / "mma"

# Corrections the hardware demanded (formula in the spec -> formula the hardware confirmed); none so far.
CORRECTIONS: dict = {}


def load_campaign(build: Path):
    kernels = json.loads((build / "kernels.json").read_text())
    alphabets = json.loads((build / "alphabets.json").read_text())
    info = json.loads((build / "cases.json").read_text())
    sent = H.read_inputs(build / "mma_in.bin")
    cases, pos = [], defaultdict(int)
    for ci in info:
        k = ci["kernel"]
        j = pos[k]
        pos[k] += 1
        draws = {n: H.Draw(seed, sb, jm, name, tuple(alphabets[name]))
                 for n, (seed, sb, jm, name) in ci["draws"].items()}
        data = {n: sent[k][n][j] for n in ci["explicit"]}
        c = H.Case(ci["index"], k, ci["variant"], ci["imm"], ci["words"], draws, data, ci["kind"], ci["note"])
        arrays = {n: a[j] for n, a in sent[k].items()}
        mat = c.materialize()
        for n in H.INPUTS:
            if n in arrays and not np.array_equal(mat[n], arrays[n]):
                raise SystemExit(f"case {c.index}: operand {n} sent differs from what its seeds draw")
        c.position = j
        cases.append(c)
    return kernels, alphabets, cases, sent


def variant_class(v) -> str:
    return v.group


def sass_by_kernel(results: Path) -> dict[int, list[str]]:
    p = results / "sass_kernels.txt"
    out = {}
    if p.exists():
        for line in p.read_text().splitlines():
            m = re.match(r"mma_k(\d+):\s*(.*)", line)
            if m:
                out[int(m.group(1))] = m.group(2).split()
    return out


def _num(x) -> str:
    return f"{float(x):.9g}" if isinstance(x, (float, np.floating)) else str(int(x))


def sass_summary(ops: list[str]) -> str:
    """'F2FP.F16.E4M3.UNPACK_B x12, HMMA.16816.F32 x2': the opcodes of interest, by first appearance."""
    counts = {}
    for op in ops:
        counts[op] = counts.get(op, 0) + 1
    return ", ".join(op if n == 1 else f"{op} x{n}" for op, n in counts.items())


def diagnose(spec, c: H.Case, res: dict, arrays: dict) -> str:
    """For a directed case: which input element each wrong D element holds (first few)."""
    v = res["variant"]
    bad = np.argwhere(res["bad"])[:6]
    out = []
    if c.kind in ("b-onehot", "a-onehot", "c-pass"):
        src = {"b-onehot": "a", "a-onehot": "b", "c-pass": "c"}[c.kind]
        stype = {"a": v.atype, "b": v.btype, "c": v.ctype}[src]
        vals = H.decode_values(spec, stype, v.unpack(src, H.regs_of(v, src, arrays[src])))
        for r, col in bad:
            got = H.decode_values(spec, v.dtype, [int(res["hw"][r, col])])[0]
            want = H.decode_values(spec, v.dtype, [int(res["expected"][r, col])])[0]
            where = [tuple(int(x) for x in w) for w in np.argwhere(vals == got)[:3]] if got != 0 else "(zero)"
            out.append(f"D[{r},{col}]={_num(got)} (expected {_num(want)}) = {src.upper()} at {where or 'nowhere'}")
    else:
        for r, col in bad:
            out.append(f"D[{r},{col}]={int(res['hw'][r, col]):#x} expected {int(res['expected'][r, col]):#x}")
    return "; ".join(out)


def simulate(spec, build: Path, dest: Path):
    """Write the spec's expected D as if the hardware had returned it (tests the flow without a GPU)."""
    kernels, _, cases, _ = load_campaign(build)
    by_k = defaultdict(list)
    for c in cases:
        by_k[c.kernel].append(c)
    buf = bytearray(np.asarray([H.MAGIC_OUT, len(by_k)], "<u4").tobytes())
    for k in sorted(by_k):
        exp = [H.expected_output(spec, c)[0] for c in by_k[k]]
        wd = exp[0].shape[1]
        buf += np.asarray([k, len(exp), wd, 0], "<u4").tobytes() + np.stack(exp).astype("<u4").tobytes()
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "mma_out.bin.gz").write_bytes(gzip.compress(bytes(buf)))
    print(f"wrote the spec's own outputs for {len(cases)} cases to {dest}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, nargs="?")
    ap.add_argument("--build", type=Path, default=BUILD)
    ap.add_argument("--record", type=Path, help="merge this run's records into this JSON file")
    ap.add_argument("--run", default="main", help="the run's name in the records")
    ap.add_argument("--date", default="2026-11-22")
    ap.add_argument("--spec-dir", type=Path, help="check against this spec tree instead of the repository's")
    ap.add_argument("--simulate", type=Path, help="write the spec's expected outputs to this directory and stop")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)

    spec = H.ptxspec.load(args.spec_dir) if args.spec_dir else H.ptxspec.load()
    if args.simulate:
        simulate(spec, args.build, args.simulate)
        return 0
    if args.results is None:
        ap.error("RESULTS is required")
    kernels, alphabets, cases, sent = load_campaign(args.build)
    gz = args.results / "mma_out.bin.gz"
    outputs = H.read_outputs(gz if gz.exists() else args.results / "mma_out.bin")
    sass = sass_by_kernel(args.results)

    table = defaultdict(lambda: {"variants": set(), "cases": 0, "elements": 0, "mismatches": 0, "bad_cases": 0,
                                 "failed": 0, "kinds": defaultdict(int), "sass": set()})
    failures, records = [], []
    for c in cases:
        v = spec.variant(c.variant_id)
        row = table[variant_class(v)]
        row["variants"].add(v.id)
        row["cases"] += 1
        row["kinds"][c.kind] += 1
        for op in sass.get(c.kernel, []):
            if "MMA" in op:
                row["sass"].add(op)
        status, d = outputs.get(c.kernel, (None, None))
        if status is None or status != 0:
            row["failed"] += 1
            failures.append((c, f"kernel {c.kernel} status {status}"))
            continue
        arrays = {n: a[c.position] for n, a in sent[c.kernel].items()}
        res = H.compare(spec, c, d[c.position], arrays)
        row["elements"] += res["elements"]
        row["mismatches"] += res["mismatches"]
        if res["mismatches"]:
            row["bad_cases"] += 1
            failures.append((c, res, arrays))
        rec = c.as_record()
        rec.update(run=args.run, digest=res["digest"], elements=res["elements"],
                   spec_match=res["mismatches"] == 0)
        records.append(rec)

    total = {k: sum(r[k] for r in table.values()) for k in ("cases", "elements", "mismatches", "bad_cases", "failed")}
    nvar = sum(len(r["variants"]) for r in table.values())
    print(f"{'class':14s} {'variants':>8s} {'cases':>6s} {'elements':>9s} {'mismatch':>8s} {'bad':>4s} {'fail':>4s}"
          f"  kinds / SASS")
    for key in sorted(table):
        r = table[key]
        kinds = ",".join(f"{k}:{n}" for k, n in sorted(r["kinds"].items()))
        print(f"{key:14s} {len(r['variants']):8d} {r['cases']:6d} {r['elements']:9d} {r['mismatches']:8d} "
              f"{r['bad_cases']:4d} {r['failed']:4d}  {kinds}  {' '.join(sorted(r['sass']))}")
    print(f"TOTAL: {len(table)} classes, {nvar} variants, {total['cases']} cases, {total['elements']} elements "
          f"compared, {total['mismatches']} mismatches in {total['bad_cases']} cases, {total['failed']} cases "
          f"not run")
    for f in failures[: 80 if args.verbose else 25]:
        c = f[0]
        if isinstance(f[1], str):
            print(f"  case {c.index} {c.variant_id}: {f[1]}")
            continue
        res, arrays = f[1], f[2]
        print(f"  case {c.index} [{c.kind}] {c.variant_id} ({c.note}): {res['mismatches']}/{res['elements']} wrong: "
              f"{diagnose(spec, c, res, arrays)}")

    if args.record:
        doc = {"cases": [], "alphabets": {}, "runs": {}}
        if args.record.exists():
            doc = json.loads(args.record.read_text())
        kept = [r for r in doc["cases"] if r["run"] != args.run]
        env = args.results / "env.txt"
        doc.update({
            "campaign": f"mma {args.date}",
            "date": args.date,
            "about": ("Each case: one warp-level mma on an H100 (one warp). Inputs: random operands drawn slot by "
                      "slot by the hash in tests/device/mma_harness.py from the named alphabets and seeds (draws: "
                      "seed, slot bits, junk mask, alphabet); explicit operands of directed cases (b-onehot, "
                      "a-onehot, c-pass) as raw words (data: zlib + base64 of little-endian uint32, threads x "
                      "words). words: 32-bit words per thread of each operand. digest: sha256 (first 128 bits) of "
                      "the hardware's D words (threads x words, little-endian uint32, float -0 read as +0). "
                      "spec_match: whether the repository's spec reproduced it when recorded. runs.*.sass: the "
                      "tensor-core and conversion opcodes ptxas emitted for each variant."),
            "corrections": CORRECTIONS,
        })
        doc["runs"][args.run] = {"build": "tests/device/build/mma (python3 tests/device/gen_mma.py)",
                                 "env": env.read_text() if env.exists() else "",
                                 "cases": len(records),
                                 "sass": {k["variant"]: sass_summary(sass.get(k["id"], [])) for k in kernels}}
        doc["cases"] = kept + records
        used = {d[3] for r in doc["cases"] for d in r["draws"].values()}
        doc["alphabets"] = {k: v for k, v in {**doc.get("alphabets", {}), **alphabets}.items() if k in used}
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print(f"wrote {len(records)} records of run {args.run!r} to {args.record} "
              f"({len(doc['cases'])} in all, {args.record.stat().st_size / 1e6:.2f} MB)")
    return 0 if total["mismatches"] == 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
