"""Device campaign of the .kind::* mma forms on a Blackwell GPU (sm_120a / sm_121a, or the
sm_100a family for the fp8 forms it accepts): the hardware's D registers against
ptxspec.blockscale, under the model and under every named alternative of it.

    python3 campaigns/blockscale/bsgen.py sources --out DIR [--target sm_120a] [--quick]
    bash campaigns/blockscale/run.sh [TARGET]      # there: sources, build, inputs, run, compare
    python3 campaigns/blockscale/bsgen.py inputs --build DIR
    python3 campaigns/blockscale/bsgen.py compare --build DIR --out OUTDIR

Kernels: every `.kind` variant valid on the target, with the first legal selectors, and
>= 10^5 outputs; and, for one variant of every distinct scale-factor map (instruction x
scale_vec), one kernel per legal selector of A (paired with the selectors of B in turn), so
every selector value of both operands runs. A case is one warp of one launch; every input
register is drawn from a seed (so nothing assumes the fragment or scale maps: a wrong map in the
executor shows as a mismatch). Case i draws by kind KINDS[i % len(KINDS)]:

  bits     every bit random (container padding, NaN/Inf codes, every scale byte)
  narrow   elements near 1, scales near 1
  wide     elements over their range, scales over theirs (0 .. 254 / 0 .. 0x7E)
  zero     elements mostly +-0, C +-0, tiny scales
  tiny     elements near 1, C +-0, scales making the products 2^-130 .. 2^-156: where the exponent
           a zero C counts as decides the truncation (zero_exp)
  special  1 in 8 elements or scales NaN/Inf, C Inf/NaN sometimes
  align    C 2^10 larger than the products: the F-bit window
  cancel   C = -(A.B) in f32 (from the model): the sum cancels to its last bits
  topbit   (ue4m3 only) scale bytes with bit 7 set: compared under `ue4m3_top_bit=ignore`
  zeroprod every product of half the rows has a zero factor (those rows of A all +-0), B and the
           scales large, C a small normal with low bits set: where a zero product counts (the
           zero rules of campaigns/survey/blockscale.md section 4: the model, zeros=mmasim-main/-dev/-v1)
  zerogroup per row, every other scale block of A all +-0 under large scales, the others small
           elements under small scales, the first group of odd rows cancelling to 0 (+x -x), C +-0
           or small: where a zero or cancelled fp4 group, a zero scale and a zero C count
  zeroc    elements over their range (even rows: one such product and one of the smallest
           subnormals, negative), C +-0, ue8m0 scales putting the largest products near 2^-140 and
           the smallest far below: where a zero C counts (-133, -126 or no term)

The comparison is bit for bit per D register; the report gives, per variant and per
alternative, the mismatching outputs by case kind, so one run says which alternative holds.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "generators"))
import ptxspec  # noqa: E402
from common import splitmix  # noqa: E402
from ptxspec.semantics import blockscale as bs# noqa: E402
from ptxspec.semantics import sparse as sparse_mod# noqa: E402
from ptxspec.semantics.execute import execute_kind  # noqa: E402
from ptxspec.semantics.numerics import computes_product  # noqa: E402

SEED = 2026_1123_1200
KINDS = ("bits", "narrow", "wide", "zero", "special", "align", "cancel", "tiny", "narrow", "bits", "zeroprod",
         "zerogroup", "zeroc")
MIN_OUTPUTS = 100_000
MAGIC_IN, MAGIC_OUT = 0x49534B42, 0x4F534B42  # "BKSI", "BKSO"
CHUNK = 40  # kernels per .cu (compiled in parallel)


def runnable(spec, target: str):
    # the .kind forms of the register products (tcgen05.mma's .kind forms compute in TMEM: not these kernels)
    return [v for v in spec.variants if v.qualifiers.get("kind") and computes_product(v) and target in v.targets]


def selectors(v):
    """(sel_a, sel_b) legal values, or () for an unscaled variant."""
    if not v.qualifiers.get("block_scale"):
        return (), ()
    pa, pb = dict(v.operand("sel_a").parts), dict(v.operand("sel_b").parts)
    return (list(itertools.product(pa["byte_id"], pa["thread_id"])),
            list(itertools.product(pb["byte_id"], pb["thread_id"])))


def plan(spec, target: str, quick: bool = False, only=None) -> list[dict]:
    ks, swept = [], set()
    for v in runnable(spec, target):
        if only and v.id not in only:
            continue
        sa, sb = selectors(v)
        n = 4 if quick else math.ceil(MIN_OUTPUTS / (v.m * v.n))
        ks.append({"variant": v.id, "sel_a": sa[0] if sa else None, "sel_b": sb[0] if sb else None, "cases": n})
        key = (v.instruction, bs.scale_vec(v) if sa else 0)
        if sa and key not in swept:  # every selector value of this map
            swept.add(key)
            for x, y in zip(sa if len(sa) >= len(sb) else itertools.cycle(sa), sb if len(sb) > len(sa) else itertools.cycle(sb)):
                if (x, y) != (sa[0], sb[0]):
                    ks.append({"variant": v.id, "sel_a": x, "sel_b": y, "cases": 2 if quick else len(KINDS) * 4})
    for i, k in enumerate(ks):
        k["id"] = i
    return ks


# ---------------------------------------------------------------------------------------------
# Kernels


def kernel_source(k: dict, v) -> str:
    outs, ins, loads, stores, texts = [], [], [], [], []
    off = 0
    for o in v.operands:
        if o.kind == "scale_selector":
            b, t = k["sel_a"] if o.name == "sel_a" else k["sel_b"]
            texts.append(f"{{{b}, {t}}}")
            continue
        if o.kind in ("selector", "immediate"):
            texts.append(str(o.values[0] if o.values else 0))
            continue
        names = []
        for j in range(o.regs):
            name = f"{o.name}{j}"
            ctype, letter = ("float", "f") if o.reg_type == "f32" else ("uint32_t", "r")
            if o.io == "out":
                loads.append(f"  {ctype} {name};")
                outs.append(f'"={letter}"({name})')
                stores.append(f"  q[{len(stores)}] = {'__float_as_uint(' + name + ')' if letter == 'f' else name};")
            else:
                val = f"__uint_as_float(p[{off}])" if letter == "f" else f"p[{off}]"
                loads.append(f"  const {ctype} {name} = {val};")
                ins.append(f'"{letter}"({name})')
                off += 1
            names.append("%{}")
        texts.append(("{" + ", ".join(names) + "}") if o.kind == "fragment" else names[0])
    n_in, n_out = off, len(stores)
    operands = ", ".join(texts)
    i = itertools.count()
    operands = operands.replace("%{}", "\0")
    operands = "".join(f"%{next(i)}" if ch == "\0" else ch for ch in operands)
    body = [f'extern "C" __global__ void bs_k{k["id"]}(const uint32_t* __restrict__ in, uint32_t* __restrict__ out)',
            "{", f"  const uint32_t* p = in + ((size_t)blockIdx.x * 32 + threadIdx.x) * {n_in};",
            f"  uint32_t* q = out + ((size_t)blockIdx.x * 32 + threadIdx.x) * {n_out};", *loads,
            f'  asm volatile("{v.ptx} {operands};"', f"               : {', '.join(outs)}", f"               : {', '.join(ins)});",
            *stores, "}", ""]
    return "\n".join(body)


def words(v) -> tuple[int, int]:
    n_in = sum(o.regs for o in v.operands if o.regs and o.io != "out")
    n_out = sum(o.regs for o in v.operands if o.io == "out")
    return n_in, n_out


def sources(spec, out: Path, target: str, quick: bool, only=None) -> list[dict]:
    ks = plan(spec, target, quick, only)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("bs_kernels_*.cu"):
        old.unlink()
    chunks = [ks[i:i + CHUNK] for i in range(0, len(ks), CHUNK)]
    for c, chunk in enumerate(chunks):
        text = ["// generated by campaigns/blockscale/bsgen.py -- do not edit", "#include <cstdint>", ""]
        text += [kernel_source(k, spec.variant(k["variant"])) for k in chunk]
        text.append(f"void bs_register_{c}(void** t)\n{{")
        text += [f"  t[{k['id']}] = (void*)bs_k{k['id']};" for k in chunk]
        text.append("}\n")
        (out / f"bs_kernels_{c}.cu").write_text("\n".join(text))
    reg = "\n".join(f"void bs_register_{c}(void** t);" for c in range(len(chunks)))
    calls = " ".join(f"bs_register_{c}(t);" for c in range(len(chunks)))
    (out / "bs_table.h").write_text(f"// generated by bsgen.py\n#define NKERNELS {len(ks)}\n{reg}\n"
                                    f"static void bs_register_all(void** t) {{ {calls} }}\n")
    (out / "plan.json").write_text(json.dumps({"target": target, "seed": SEED, "kernels": ks}, indent=0) + "\n")
    return ks


# ---------------------------------------------------------------------------------------------
# Inputs


def _seed(k: dict, i: int, what: str) -> int:
    sel = [list(k[x]) if k[x] is not None else None for x in ("sel_a", "sel_b")]  # as plan.json holds them
    h = hashlib.sha256(f"{SEED}:{k['variant']}:{sel}:{i}:{what}".encode()).digest()
    return int.from_bytes(h[:8], "little")


def _elements(spec, tname, shape, kind, seed):
    """Element codes (not containers) of a kind."""
    from numerics.numgen import float_codes  # the H100 campaign's generator of float codes by kind
    k = {"zero": "zerosub", "cancel": "narrow", "topbit": "narrow", "tiny": "narrow", "zeroprod": "wide",
         "zerogroup": "narrow", "zeroc": "wide"}.get(kind, kind)
    # numgen's exponent ranges assume 5+ exponent bits: for fp4/fp6 they wrap, so keep the element's bits
    return float_codes(spec, tname, shape, k, seed) & np.uint64((1 << spec.types[tname].bits) - 1)


def _scale_bytes(stype, n, kind, seed):
    z = splitmix(seed, n)
    r = (z >> np.uint64(24)).astype(np.int64)
    if stype == "ue8m0":
        pick = {"bits": z & np.uint64(0xFF), "narrow": np.uint64(124) + (z % np.uint64(7)),
                "wide": z % np.uint64(255), "zero": z % np.uint64(12),
                "special": np.where(r % 8 == 0, np.uint64(0xFF), np.uint64(120) + (z % np.uint64(15))),
                "tiny": np.uint64(52) + (z % np.uint64(8)), "zeroprod": np.uint64(200) + (z % np.uint64(55)),
                "zerogroup": np.uint64(40) + (z % np.uint64(60)), "zeroc": np.uint64(45) + (z % np.uint64(20))}
    else:
        pick = {"bits": z & np.uint64(0x7F), "narrow": np.uint64(0x30) + (z % np.uint64(16)),
                "wide": z % np.uint64(0x7F), "zero": np.where(r % 3 == 0, np.uint64(0), z % np.uint64(8)),
                "special": np.where(r % 8 == 0, np.uint64(0x7F), np.uint64(0x30) + (z % np.uint64(16))),
                "topbit": z & np.uint64(0xFF), "tiny": z % np.uint64(4), "zeroprod": np.uint64(0x70) + (z % np.uint64(15)),
                "zerogroup": np.where(r % 4 == 0, np.uint64(0), z % np.uint64(0x20))}
    return pick.get(kind, pick["narrow"]).astype(np.uint64)


def case_inputs(spec, k: dict, i: int) -> dict:
    """Every input register of case i: {operand: (threads, regs) uint32}, plus immediates."""
    v = spec.variant(k["variant"])
    kinds = KINDS + (("topbit",) if v.qualifiers.get("stype") == "ue4m3" else ())
    kind = kinds[i % len(kinds)]
    regs = {}
    A = _elements(spec, v.atype, (v.m, v.k), kind, _seed(k, i, "a"))
    B = _elements(spec, v.btype, (v.k, v.n), kind, _seed(k, i, "b"))
    if kind in ("zeroprod", "zerogroup", "zeroc"):
        A, B = _zero_pattern(spec, v, A, B, kind)
    for name, X, t in (("a", A, v.atype), ("b", B, v.btype)):
        T = spec.types[t]
        if bs._container(v, name):  # padding bits random in every kind but "narrow"
            pad = splitmix(_seed(k, i, name + "pad"), X.size).reshape(X.shape) & np.uint64(0xFF)
            keep = np.uint64(((1 << T.bits) - 1) << T.container_shift)
            X = (X << np.uint64(T.container_shift)) | (pad & ~keep if kind != "narrow" else np.uint64(0))
        if name == "a" and v.sparse:
            kept = sparse_mod.random_kept(v, np.random.default_rng(_seed(k, i, "kept") % (1 << 63)), v.metadata_nibbles)
            regs["e"] = sparse_mod.pack_metadata(v, kept, 0).astype(np.uint32)[:, None]
            X = sparse_mod.compress(v, X, kept)
        regs[name] = v.pack(name, X)
    c_kind = {"zero": "signedzero", "tiny": "signedzero", "zeroc": "signedzero", "align": "align",
              "cancel": "narrow"}.get(kind, kind)
    C = _elements(spec, v.ctype, (v.m, v.n), c_kind, _seed(k, i, "c"))
    if kind in ("zeroprod", "zerogroup"):
        C = _small_c(spec, v, kind, _seed(k, i, "c"))
    if kind == "align":
        C = np.where(C & np.uint64(0x7F800000) == 0, C, C + np.uint64(10 << 23))  # 2^10 larger (f32)
    regs["c"] = v.pack("c", C)
    if v.qualifiers.get("block_scale"):
        for name in ("scale_a", "scale_b"):
            b = _scale_bytes(v.qualifiers["stype"], 4 * v.threads, kind, _seed(k, i, name)).reshape(v.threads, 4)
            if kind == "zerogroup":  # even bytes (K-blocks 0, 2 at byte-id 0) large: A's zero blocks there
                big = np.uint64(230) if v.qualifiers["stype"] == "ue8m0" else np.uint64(0x70)
                b[:, 0::2] = big + (b[:, 0::2] % np.uint64(14))
            regs[name] = (b << (np.arange(4, dtype=np.uint64) * np.uint64(8))).sum(axis=1).astype(np.uint32)[:, None]
    if kind == "cancel":  # C = -(A.B) from the model with C = 0
        z = dict(regs, c=v.pack("c", np.zeros((v.m, v.n), np.uint64)))
        d = v.unpack("d", expected(spec, v, k, z))
        sign = np.uint64(1 << (spec.types[v.dtype].bits - 1))
        regs["c"] = v.pack("c", d ^ sign)
    return {n: np.asarray(r, np.uint32) for n, r in regs.items()}, kind


def _zero_pattern(spec, v, A, B, kind):
    """A and B with the zero-heavy pattern of `kind` (element codes, before containers and
    sparsity): zeroprod: even rows of A all +-0; zerogroup: in every row of A the even scale blocks
    all +-0, and in the odd rows the first group of each odd block cancelling (equal A elements in
    pairs, B's second of each pair negated)."""
    sa, sb = (np.uint64(1 << (spec.types[t].bits - 1)) for t in (v.atype, v.btype))
    rows = np.arange(v.m)[:, None]
    if kind == "zeroprod":
        return np.where(rows % 2 == 0, A & sa, A), B
    if kind == "zeroc":  # even rows: one product over the range and one of the two smallest
        k = np.arange(v.k)[None, :]  # subnormals, negative, about 2^-20 .. 2^-40 of the first
        A = np.where(rows % 2 == 0, np.where(k == 0, A, np.where(k == 1, sa | np.uint64(1), A & sa)), A)
        B = B.copy()
        B[1, :] = np.uint64(1)
        return A, B
    block = bs.block_size(v) if v.qualifiers.get("block_scale") else v.k // 2
    k = np.arange(v.k)
    blocks = k // block
    A = np.where(blocks[None, :] % 2 == 0, A & sa, A)
    second = np.flatnonzero((blocks % 2 == 1) & (k % block < min(16, block)) & (k % 2 == 1))
    A[:, second] = np.where(rows % 2 == 1, A[:, second - 1], A[:, second])
    B = B.copy()
    B[second, :] = B[second - 1, :] ^ sb
    return A, B


def _small_c(spec, v, kind, seed):
    """C codes (f32 or f16) of the zero-heavy kinds: small normals with random low bits and sign, +-0
    in a quarter (zerogroup: half) of them."""
    z = splitmix(seed, v.m * v.n).reshape(v.m, v.n)
    t = spec.types[v.ctype]
    e, m = t.format["exponent"], t.format["mantissa"]
    sign = ((z >> np.uint64(20)) & np.uint64(1)) << np.uint64(e + m)
    ex = np.uint64(1) + (z >> np.uint64(40)) % np.uint64(6)  # the smallest normal binades
    code = (ex << np.uint64(m)) | (z & np.uint64((1 << m) - 1)) | sign
    share = np.uint64(2 if kind == "zerogroup" else 4)
    return np.where((z >> np.uint64(50)) % share == 0, sign, code)


def operand_order(v):
    return [o.name for o in v.operands if o.regs and o.io != "out"]


def write_inputs(spec, build: Path) -> None:
    ks = json.loads((build / "plan.json").read_text())["kernels"]
    with open(build / "in.bin", "wb") as f:
        f.write(struct.pack("<2I", MAGIC_IN, len(ks)))
        for k in ks:
            v = spec.variant(k["variant"])
            n_in, n_out = words(v)
            f.write(struct.pack("<4I", k["id"], k["cases"], n_in, n_out))
            for i in range(k["cases"]):
                regs, _ = case_inputs(spec, k, i)
                f.write(np.concatenate([regs[n].reshape(v.threads, -1) for n in operand_order(v)], axis=1)
                        .astype("<u4").tobytes())


# ---------------------------------------------------------------------------------------------
# Expected results and the comparison


def expected(spec, v, k, regs, p=None, target=None) -> np.ndarray:
    kw = {n: regs[n] for n in ("a", "b", "c", "e", "scale_a", "scale_b") if n in regs}
    if v.qualifiers.get("block_scale"):
        kw.update(sel_a=tuple(k["sel_a"]), sel_b=tuple(k["sel_b"]))
    if v.sparse:
        kw["f"] = 0
    return execute_kind(v, **kw, p=p, target=target)


def read_outputs(path: Path) -> dict:
    data = path.read_bytes()
    magic, nk = struct.unpack_from("<2I", data, 0)
    if magic != MAGIC_OUT:
        raise SystemExit(f"{path}: not an output file")
    pos, out = 8, {}
    for _ in range(nk):
        kid, n, n_out, status = struct.unpack_from("<4I", data, pos)
        pos += 16
        cnt = n * 32 * n_out
        out[kid] = (status, np.frombuffer(data, "<u4", cnt, pos).reshape(n, 32, n_out))
        pos += 4 * cnt
    return out


def compare(spec, build: Path, outputs: dict) -> dict:
    meta = json.loads((build / "plan.json").read_text())
    target = meta["target"]
    report = {"target": target, "variants": {}}
    for k in meta["kernels"]:
        v = spec.variant(k["variant"])
        status, hw = outputs.get(k["id"], (None, None))
        rec = report["variants"].setdefault(v.id, {"outputs": 0, "status": [], "model": {}, "alternatives": {}})
        if status != 0:
            rec["status"].append(f"kernel {k['id']}: {'not run' if status is None else f'launch error {status}'}")
            continue
        base = bs.variant_params(v, target)
        alts = {} if base.path == "fp8emu" else bs.alternatives_for(v, base)
        for i in range(k["cases"]):
            regs, kind = case_inputs(spec, k, i)
            rec["outputs"] += v.m * v.n
            for label, p, into in [("model", base, rec["model"])] + [(n, q, rec["alternatives"].setdefault(n, {}))
                                                                    for n, q in alts.items()]:
                if kind == "topbit" and p.ue4m3_top_bit == "error":
                    continue  # the model refuses such bytes; the alternative says what they do
                d = expected(spec, v, k, regs, p)
                bad = int((v.unpack("d", d) != v.unpack("d", hw[i])).sum())
                if bad:
                    into[kind] = into.get(kind, 0) + bad
    return report


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sources")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--target", default="sm_120a")
    s.add_argument("--quick", action="store_true")
    i = sub.add_parser("inputs")
    i.add_argument("--build", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("--build", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    spec = ptxspec.load()
    if args.cmd == "sources":
        ks = sources(spec, args.out, args.target, args.quick)
        print(f"{len(ks)} kernels, {sum(k['cases'] for k in ks)} cases for {args.target} in {args.out}")
    elif args.cmd == "inputs":
        write_inputs(spec, args.build)
    else:
        report = compare(spec, args.build, read_outputs(args.out / "out.bin"))
        (args.out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
        bad = {vid: r for vid, r in report["variants"].items() if r["model"] or r["status"]}
        print(f"{len(report['variants'])} variants, {len(bad)} with mismatches under the model")
        for vid, r in sorted(report["variants"].items()):
            alts = ", ".join(f"{n.split(' (')[0]}: {sum(x.values())}" for n, x in r["alternatives"].items())
            print(f"{vid}: {r['outputs']} outputs, model {sum(r['model'].values())} {r['model'] or ''} | {alts}")


if __name__ == "__main__":
    main()
