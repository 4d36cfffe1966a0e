"""Verdict of the bindings campaign (gen_bindings.py): results and SASS, and the record.

    python3 campaigns/bindings/check_bindings.py RESULTS [--build DIR] [--record FILE]

- Results: every kernel's D words (their digest, from the GPU) against the digest of the D that
  the current spec predicts (recomputed here: the same plan, the model's maps, a numpy product).
- SASS, every kernel: its tensor-core instructions (sass_kernels.txt.gz). SASS sample
  (sass_sample.txt.gz, whole functions): the tensor instruction(s) and the instructions around
  each, and whether any move (MOV, IMAD.MOV, UMOV, ...) sits next to one.
"""
from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_bindings as G  # noqa: E402
import ptxspec  # noqa: E402

TENSOR = re.compile(r"\b([A-Z]*(?:MMA|GMMA))(\.[A-Za-z0-9_]+)*")
MOVE = re.compile(r"^(MOV|MOV32I|IMAD\.MOV(\.U32)?|UMOV)\b")


def expected_digests(spec) -> dict[int, tuple[str, int, bool]]:
    """kernel -> (variant, digest of the predicted D words, result undefined)."""
    vs = G.runnable(spec)
    out = {}
    for j, ch in enumerate(G.wmma_chains(spec)):
        i = len(vs) + j
        p = G.wmma_plan(spec, ch, i)
        out[i] = ((ch["mma"] or ch["c"]).id, G.digest(p["expected"]), p["undefined"])
    for i, v in enumerate(vs):
        p = G.plan(spec, v, i)
        out[i] = (v.id, G.digest(p["expected"].reshape(-1)), False)
    return out


def sass_functions(text: str) -> dict[str, list[str]]:
    """Function name -> its instructions (opcode and operands), in order."""
    funcs, name = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][^;]*);", line)
        if name and m:
            funcs[name].append(m.group(1).strip())
    return funcs


LOAD = re.compile(r"^(LDG|LDS|LD|LDC|LDSM|BAR|WARPSYNC|ULDC|S2R|S2UR)\b")
STORE = re.compile(r"^(STG|STS|ST|RET|EXIT|BRA)\b")


def sample_verdict(funcs: dict[str, list[str]]) -> list[dict]:
    """Per sampled kernel: its tensor instructions, and what lies between the last load before the
    first of them and the first store after the last (the binding's code, with the harness's
    address arithmetic); moves there are what a wrapper could have added."""
    rows = []
    for name, ins in sorted(funcs.items(), key=lambda x: int(re.search(r"bk(\d+)", x[0]).group(1))):
        ops = [x.split()[0] for x in ins]
        hits = [k for k, op in enumerate(ops) if TENSOR.fullmatch(op) or TENSOR.match(op) and "MMA" in op]
        row = {"kernel": int(re.search(r"bk(\d+)", name).group(1)), "function": name,
               "tensor": [ops[k] for k in hits], "instructions": len(ins), "between": [], "moves_near": []}
        if hits:
            lo = max((k for k in range(hits[0]) if LOAD.match(ops[k])), default=-1) + 1
            hi = min((k for k in range(hits[-1] + 1, len(ops)) if STORE.match(ops[k])), default=len(ops))
            row["between"] = [ops[k] for k in range(lo, hi) if k not in hits]
            row["moves_near"] = [ins[k] for k in range(lo, hi) if k not in hits and MOVE.match(ops[k])]
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--build", default=str(G.BUILD))
    ap.add_argument("--spec", default=None)
    ap.add_argument("--record", help="write the record (JSON) here")
    args = ap.parse_args(argv)
    res = Path(args.results)
    spec = ptxspec.load(args.spec)
    table = {k["kernel"]: k for k in json.loads((Path(args.build) / "kernels.json").read_text())["kernels"]}
    got = {int(k): v for k, v in json.loads((res / "digests.json").read_text())["digests"].items()}
    want = expected_digests(spec)
    agree, differ, undefined, beyond = [], [], [], []
    for kid, (vid, dig, undef) in sorted(want.items()):
        if table[kid]["variant"] != vid:
            raise SystemExit(f"kernel {kid}: built for {table[kid]['variant']}, the spec now plans {vid}; regenerate")
        if undef:
            undefined.append(kid)
        elif got.get(kid) == dig:
            agree.append(kid)
        elif spec._by_id[vid].ptxas_only:  # beyond the manual: its erratum says what the hardware does
            beyond.append(kid)
        else:
            differ.append(kid)
    by_ins = collections.Counter()
    bad_ins = collections.Counter()
    for kid in agree:
        by_ins[spec._by_id[want[kid][0]].instruction + (" (chain)" if "chain" in table[kid] else "")] += 1
    for kid in differ:
        bad_ins[want[kid][0]] += 1
    print(f"results: {len(agree)} kernels agree with the spec's prediction, {len(differ)} differ, "
          f"{len(undefined)} not compared (wmma.mma with no load/store of its shape: run alone on zeros), "
          f"{len(beyond)} differ on variants beyond the manual (ptxas_only)")
    raw = {}
    if (res / "mismatch.json").exists():
        words = np.frombuffer(gzip.open(res / "mismatch.bin.gz").read(), dtype="<u4")
        raw = {m["kernel"]: words[m["offset"]:m["offset"] + m["words"]]
               for m in json.loads((res / "mismatch.json").read_text())}
    for kid in beyond:
        v = spec._by_id[want[kid][0]]
        vals = sorted({f"{int(x):#010x}" for x in raw.get(kid, [])})
        print(f"  beyond the manual: {v.id} (erratum {v.ptxas_only}): D words {', '.join(vals[:4]) or '?'}")
    for ins, n in sorted(by_ins.items()):
        print(f"  {ins}: {n} kernels agree")
    for vid in list(bad_ins)[:20]:
        print(f"  DIFFERS: {vid}")
    ran = set()
    for k in table.values():
        ran.add(k["variant"])
        ran.update(c for c in k.get("chain", []) if c)
    runnable = [v for v in spec.variants if v.valid(G.RUN_TARGET, G.RUN_PTX)]
    every_wgmma_kernel = ("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group")
    not_run = [v.id for v in runnable if v.id not in ran and v.instruction not in every_wgmma_kernel]
    print(f"coverage: {len(runnable)} variants sm_90a runs at PTX {G.RUN_PTX}; not executed: {len(not_run)} "
          "(wgmma.fence/commit_group/wait_group run in every wgmma kernel)")

    # SASS: every kernel's tensor instructions
    seqs = {}
    with gzip.open(res / "sass_kernels.txt.gz", "rt") as f:
        for line in f:
            name, _, rest = line.partition(":")
            m = re.search(r"bk(\d+)", name)
            if m:  # ("MMA" alone is the .MMA suffix of HFMA2.MMA: an FMA on the tensor pipe, not an mma)
                seqs[int(m.group(1))] = [x for x in rest.split() if x != "MMA"]
    counts = collections.Counter(len(s) for s in seqs.values())
    print(f"SASS: {len(seqs)} kernels; tensor instructions per kernel: {dict(sorted(counts.items()))}")
    multi = collections.Counter()
    for kid, s in seqs.items():
        if len(s) != 1:
            v = want[kid][0]
            multi[re.sub(r"\.[0-9]+x[0-9]+x[0-9]+", "", " ".join(s))] += 1
    for k, n in multi.most_common():
        print(f"  {n:4d} x  {k}")
    # the sample
    text = gzip.open(res / "sass_sample.txt.gz", "rt").read() if (res / "sass_sample.txt.gz").exists() else ""
    rows = sample_verdict(sass_functions(text))
    single = [r for r in rows if len(r["tensor"]) == 1]
    reg_moves = [r for r in single if any(re.match(r"\S+\s+R\d", m) for m in r["moves_near"])]
    uni_moves = [r for r in single if r["moves_near"] and r not in reg_moves]
    print(f"SASS sample: {len(rows)} kernels; {len(single)} with one tensor instruction, of which "
          f"{len(reg_moves)} have a move into a general register between their last load and first store "
          f"and {len(uni_moves)} only moves into uniform registers (UMOV: descriptor halves); "
          f"{len(rows) - len(single)} kernels are lowered by ptxas to several or no tensor instructions")
    for r in reg_moves[:10]:
        print(f"  MOVE: bk{r['kernel']} ({want[r['kernel']][0]}): {r['tensor']} {r['moves_near'][:4]}")
    between = collections.Counter(op for r in rows for op in r["between"])
    print(f"  instructions between the loads and the stores, over the sample: {dict(between.most_common(12))}")

    if args.record:  # one line per kernel: what ran (enough to re-plan it) and the hardware's digest
        lines = []
        for k in sorted(want):
            t = table[k]
            item = {"kernel": k, "variant": t["variant"], "hw_digest": got.get(k),
                    "undefined": k in undefined or k in beyond,
                    "tensor_instructions": len(seqs.get(k, []))}
            if "chain" in t:
                item["chain"], item["stride"] = t["chain"], t["stride"]
            lines.append(json.dumps(item, sort_keys=True))
        head = {"campaign": "bindings", "date": "2026-11-22", "seed": G.SEED,
                "env": (res / "env.txt").read_text().splitlines()[:5],
                "sample": [{k: r[k] for k in ("kernel", "tensor", "moves_near")} for r in rows]}
        Path(args.record).write_text(json.dumps(head, sort_keys=True) + "\n" + "\n".join(lines) + "\n")
    return 0 if not differ and not reg_moves else 1


if __name__ == "__main__":
    sys.exit(main())
