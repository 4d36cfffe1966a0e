"""Generate the mma device campaign from the spec: kernels (.cu), register inputs, the case list.

    python3 campaigns/gen_mma.py            # writes campaigns/build/mma/
    python3 campaigns/gen_mma.py --quick    # a handful of variants, to try the flow
    python3 campaigns/gen_mma.py --campaign sp   # every mma.sp: writes campaigns/build/mma-sp/

The variants are every warp-level mma of the spec that sm_90a can run
(`v.family == "mma" and v.instruction == "mma" and "sm_90a" in v.targets`; with `--campaign sp`
the `mma.sp` ones, cases by plan_sp_cases): rerun after the spec grows and new variants are
picked up. The dense campaign is unchanged by the sparse one (same kernels, seeds and bytes). One kernel per variant (and per value of any selector immediate); a case is one warp
(one block of 32 threads), so one launch runs all cases of a kernel. The asm statement of each
kernel is built from the variant's operand list: register counts from the model, constraint
letters from the operand's PTX register type (CONSTRAINT below).

Cases per kernel (method and results: campaigns/notes/2026-11-22-mma.md):
  random       A, B from small exact values (integers: every code; b1: random bits), C moderate;
               several independent seeds; tf32 also with random low 13 bits; integers also with C
               near the s32 limits (.satfinite clamps, plain wraps). Spec-independent: recorded.
  b-onehot     B a selection matrix (column n picks row (n + N*s) mod K), A every finite code, C = 0:
               D[m, n] = A[m, k(n)] shows where each A element went (shifts s cover all of K).
  a-onehot     A a selection matrix (row m picks column (m + M*s) mod K), B every finite code, C = 0.
  c-pass       B = 0, C every finite normal code: D = C.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mma_harness as H  # noqa: E402
from mma_harness import THREADS, Case, Draw  # noqa: E402

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build" / "mma"
BUILD_SP = HERE / "build" / "mma-sp"
SEED = 20261122_0009
TARGET = "sm_90a"
PARTS = 4

# PTX register type -> (inline-asm constraint, C type)
CONSTRAINT = {"f32": ("f", "float"), "f64": ("d", "double"), "b32": ("r", "uint32_t"), "s32": ("r", "uint32_t"),
              "u32": ("r", "uint32_t"), "b64": ("l", "uint64_t"), "s64": ("l", "uint64_t"),
              "u64": ("l", "uint64_t")}


GROUPS: tuple = ()  # --groups: only the variants of these spec groups


def select_variants(spec, quick: bool = False, instruction: str = "mma") -> list:
    """The sm_90a variants of one instruction of the mma family: `mma` (dense) or `mma.sp`."""
    vs = [v for v in spec.variants if v.family == "mma" and v.instruction == instruction and TARGET in v.targets
          and (not GROUPS or v.group in GROUPS)]
    if quick:
        seen, out = set(), []
        for v in vs:
            key = (v.atype, v.dtype, v.m)
            if key not in seen:
                seen.add(key)
                out.append(v)
        vs = out
    return vs


def plan_kernels(spec, quick: bool = False, instruction: str = "mma") -> list[dict]:
    ks = []
    for v in select_variants(spec, quick, instruction):
        axes = []
        for o in v.operands:
            if o.kind == "selector":
                axes.append([(o.name, s) for s in o.values])
            elif o.kind == "immediate":
                raise NotImplementedError(f"{v.id}: immediate operand {o.name!r}: teach gen_mma.py its values")
        for combo in itertools.product(*axes):
            ks.append({"id": len(ks), "variant": v.id, "imm": dict(combo)})
    return ks


# ---------------------------------------------------------------------------------------------
# Kernel source


def _reg_load(ctype: str, var: str, ptr: str, w: int) -> str:
    if ctype == "double":
        return f"  double {var} = __longlong_as_double(((unsigned long long){ptr}[{w + 1}] << 32) | {ptr}[{w}]);"
    if ctype == "uint64_t":
        return f"  uint64_t {var} = ((uint64_t){ptr}[{w + 1}] << 32) | {ptr}[{w}];"
    if ctype == "float":
        return f"  float {var} = __uint_as_float({ptr}[{w}]);"
    return f"  uint32_t {var} = {ptr}[{w}];"


def _reg_store(ctype: str, var: str, ptr: str, w: int) -> list[str]:
    if ctype in ("double", "uint64_t"):
        x = f"__double_as_longlong({var})" if ctype == "double" else var
        return [f"  {{ unsigned long long x_ = {x}; {ptr}[{w}] = (uint32_t)x_; "
                f"{ptr}[{w + 1}] = (uint32_t)(x_ >> 32); }}"]
    if ctype == "float":
        return [f"  {ptr}[{w}] = __float_as_uint({var});"]
    return [f"  {ptr}[{w}] = {var};"]


def kernel_source(spec, k: dict) -> str:
    v = spec.variant(k["variant"])
    name = f"mma_k{k['id']}"
    ptr_of = {"a": "pa", "b": "pb", "c": "pc", "d": "pd", "meta": "pm"}
    loads, stores, outs, ins, pieces = [], [], [], [], []
    for o in v.operands:
        if o.kind == "fragment":
            c, ctype = CONSTRAINT[o.reg_type]
            wide = ctype in ("double", "uint64_t")
            ptr = ptr_of[o.matrix if o.matrix in ptr_of else o.name]
            refs = []
            for r in range(o.regs):
                var = f"{o.name}{r}"
                w = r * (2 if wide else 1)
                if o.io in ("in", "inout"):
                    loads.append(_reg_load(ctype, var, ptr, w))
                else:
                    loads.append(f"  {ctype} {var};")
                if o.io in ("out", "inout"):
                    stores += _reg_store(ctype, var, "pd", w)
                    outs.append(f'"{"+" if o.io == "inout" else "="}{c}"({var})')
                    refs.append(("out", len(outs) - 1))
                else:
                    ins.append(f'"{c}"({var})')
                    refs.append(("in", len(ins) - 1))
            pieces.append(("list", refs))
        elif o.kind == "metadata":
            loads.append("  uint32_t meta = pm[0];")
            ins.append('"r"(meta)')
            pieces.append(("one", ("in", len(ins) - 1)))
        elif o.kind == "selector":
            ins.append(f'"n"({k["imm"][o.name]})')
            pieces.append(("one", ("in", len(ins) - 1)))
        else:
            raise NotImplementedError(f"{v.id}: operand kind {o.kind!r}: teach gen_mma.py how to feed it")

    def ref(m):
        where, i = m
        return f"%{i if where == 'out' else len(outs) + i}"

    ops = ["{" + ", ".join(ref(m) for m in x) + "}" if kind == "list" else ref(x) for kind, x in pieces]
    asm_text = f"{v.ptx} {', '.join(ops)};"
    wa, wb, wc, wm, wd = (H.operand_words(v, n) for n in ("a", "b", "c", "meta", "d"))
    body = [
        f"// {k['variant']}  {json.dumps(k['imm'])}",
        f"extern \"C\" __global__ void __launch_bounds__(32) {name}(KARGS)",
        "{",
        "  const size_t slot = (size_t)blockIdx.x * 32 + threadIdx.x;",
        f"  const uint32_t* pa = A + slot * {wa};",
        f"  const uint32_t* pb = B + slot * {wb};",
        f"  const uint32_t* pc = C + slot * {wc};",
        *([f"  const uint32_t* pm = MT + slot * {wm};"] if wm else []),
        f"  uint32_t* pd = D + slot * {wd};",
        *loads,
        f"  asm volatile(\"{asm_text}\\n\"",
        "    : " + ", ".join(outs),
        "    : " + ", ".join(ins) + ");",
        *stores,
        "}",
        "",
    ]
    return "\n".join(body)


PRELUDE = r"""// Generated by campaigns/gen_mma.py from the ptxspec model. Do not edit.
#include <cstdint>
#include <cuda_runtime.h>

#define KARGS const uint32_t* __restrict__ A, const uint32_t* __restrict__ B, const uint32_t* __restrict__ C, \
    const uint32_t* __restrict__ MT, uint32_t* __restrict__ D

"""


def write_sources(spec, kernels: list[dict], out: Path, parts: int = PARTS):
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("mma_kernels_*.cu"):
        old.unlink()
    parts = max(1, min(parts, len(kernels)))
    for p in range(parts):
        chunk = kernels[p::parts]
        src = [PRELUDE]
        src += [kernel_source(spec, k) for k in chunk]
        src.append(f"void mma_register_{p}(void** table)\n{{")
        src += [f"  table[{k['id']}] = (void*)mma_k{k['id']};" for k in chunk]
        src.append("}\n")
        (out / f"mma_kernels_{p}.cu").write_text("\n".join(src))
    hdr = [f"#define NKERNELS {len(kernels)}"]
    hdr += [f"void mma_register_{p}(void** table);" for p in range(parts)]
    hdr.append("static void mma_register_all(void** table) {")
    hdr += [f"  mma_register_{p}(table);" for p in range(parts)]
    hdr.append("}")
    (out / "mma_parts.h").write_text("\n".join(hdr) + "\n")


# ---------------------------------------------------------------------------------------------
# Cases


def _tname_class(spec, t):
    return spec.types[t].cls


def _ab_alphabet(spec, t: str, directed: bool) -> str:
    cls = _tname_class(spec, t)
    if cls == "float":
        return f"any:{t}" if directed else f"small:{t}"
    return f"int:{t}"  # s8/u8/s4/u4 over their full range, b1 random bits


def _c_alphabet(spec, t: str, sat: bool = False) -> str:
    if _tname_class(spec, t) == "float":
        return f"cf:{t}"
    return "sat:s32" if sat else "ci:s32"


def _onehot(v, mat: str, shift: int) -> np.ndarray:
    """Selection matrix codes: B[k, n] = 1 iff k == (n + N*shift) % K; A[m, k] = 1 iff k == (m + M*shift) % K."""
    one = ONE[v.atype if mat == "a" else v.btype]
    if mat == "b":  # a batch of products stacks B by columns: every column picks within its own product
        out = np.zeros((v.k, v.n * v.batch), np.uint64)
        n = np.arange(v.n * v.batch)
        out[(n % v.n + v.n * shift) % v.k, n] = one
    else:
        out = np.zeros((v.m * v.batch, v.k), np.uint64)
        m = np.arange(v.m * v.batch)
        out[m, (m % v.m + v.m * shift) % v.k] = one
    return out


ONE: dict = {}


class _Builder:
    def __init__(self, spec):
        self.spec = spec
        self.cases: list[Case] = []
        self.alphabets: dict[str, list[int]] = {}

    def alpha(self, name: str) -> tuple:
        if name not in self.alphabets:
            self.alphabets[name] = H.alphabet(self.spec, name)
        return tuple(self.alphabets[name])

    def draw(self, seed: int, bits: int, name: str, junk: int = 0) -> Draw:
        return Draw(seed, bits, junk, name, self.alpha(name))

    def add(self, k: dict, kind: str, note: str, draws: dict, data: dict | None = None):
        v = self.spec.variant(k["variant"])
        words = {n: H.operand_words(v, n) for n in ("a", "b", "c", "d", "meta")}
        words = {n: w for n, w in words.items() if w}
        c = Case(len(self.cases), k["id"], v.id, dict(k["imm"]), words, draws, data or {}, kind, note)
        self.cases.append(c)
        return c


def plan_cases(spec, kernels: list[dict], random_cases: int = 6) -> tuple[list[Case], dict]:
    b = _Builder(spec)
    for t in sorted({x for k in kernels for x in (spec.variant(k["variant"]).atype, spec.variant(k["variant"]).btype)}):
        ONE[t] = b.alpha(f"one:{t}")[0]
    for k in kernels:
        v = spec.variant(k["variant"])
        abits, bbits, cbits = (spec.types[t].bits for t in (v.atype, v.btype, v.ctype))
        isint = spec.types[v.dtype].cls != "float"
        base = SEED + 1_000_003 * k["id"]

        def seed(i, op):
            return base + 64 * i + op

        meta = None
        if v.sparse:
            geo = H.sparse_mod.geometry(v)
            meta_name = f"meta:{v.sparsity.name}"
            meta = lambda i: b.draw(seed(i, 3), geo["nibble_bits"], meta_name)  # noqa: E731

        def rnd(i, note, a_junk=0, b_junk=0, sat=False):
            d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, False), a_junk),
                 "b": b.draw(seed(i, 1), bbits, _ab_alphabet(spec, v.btype, False), b_junk),
                 "c": b.draw(seed(i, 2), cbits, _c_alphabet(spec, v.ctype, sat))}
            if meta:
                d["meta"] = meta(i)
            b.add(k, "random" if not sat else "satfinite", note, d)

        tf32_junk = lambda t: 0x1FFF if t == "tf32" else 0  # noqa: E731
        i = 0
        for r in range(random_cases):
            junk = r % 2 == 1  # tf32: every other case with random low 13 bits
            rnd(i, "random" + (", tf32 low bits random" if junk and "tf32" in (v.atype, v.btype) else ""),
                tf32_junk(v.atype) if junk else 0, tf32_junk(v.btype) if junk else 0)
            i += 1
        if isint and v.atype != "b1":
            for r in range(2):
                rnd(i, "C within 512 of the s32 limits (" + ("clamps" if v.satfinite else "wraps") + ")", sat=True)
                i += 1

        # directed: B a selection matrix, A every code; A a selection matrix, B every code; C = D
        zero_c = np.zeros((THREADS, H.operand_words(v, "c")), np.uint32)
        for s in range(-(-v.k // v.n)):
            d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, True))}
            if meta:
                d["meta"] = meta(i)
            b.add(k, "b-onehot", f"B[k, n] = 1 iff k = (n + {v.n}*{s}) mod {v.k}", d,
                  {"b": H.words_of(v.pack("b", _onehot(v, "b", s))), "c": zero_c})
            i += 1
        if not v.sparse:
            for s in range(-(-v.k // v.m)):
                d = {"b": b.draw(seed(i, 1), bbits, _ab_alphabet(spec, v.btype, True))}
                b.add(k, "a-onehot", f"A[m, k] = 1 iff k = (m + {v.m}*{s}) mod {v.k}", d,
                      {"a": H.words_of(v.pack("a", _onehot(v, "a", s))), "c": zero_c})
                i += 1
        cname = "sat:s32" if isint else f"anyn:{v.ctype}"
        d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, False)),
             "c": b.draw(seed(i, 2), cbits, cname)}
        if meta:
            d["meta"] = meta(i)
        b.add(k, "c-pass", "B = 0: D = C", d, {"b": np.zeros((THREADS, H.operand_words(v, "b")), np.uint32)})
        i += 1
    return b.cases, b.alphabets


# ---------------------------------------------------------------------------------------------
# mma.sp (campaigns/notes/2026-11-22-mma-sp.md)

SEED_SP = 20261122_0117
UNIFORM = (0x4, 0xE)  # metadata nibbles used in every slot of every thread by the uniform directed cases


def meta_alphabets(spec, v) -> list[str]:
    """The metadata alphabets of a variant's random cases: ordered nibbles for .sp::ordered_metadata;
    plain .sp alternates the ordered ones and all valid nibbles (the unordered included)."""
    sp = v.sparsity
    ordered = f"meta-ordered:{sp.name}"
    if "ordered" in v.qualifiers.get("spvariant", "") or \
            len(H.alphabet(spec, ordered)) == len(sp.valid_nibbles):
        return [ordered]
    return [ordered, f"meta:{sp.name}"]


def probe_metadata(spec, v, alpha_name: str, group: int) -> np.ndarray:
    """(THREADS, 1) metadata words of probe group r: nibble n of thread t is alphabet[digit r of 8t + n]
    (base = alphabet size), so the nibbles a chunk is expanded with over the groups name its slot."""
    alpha = H.alphabet(spec, alpha_name)
    nb = len(alpha)
    slot = np.arange(THREADS)[:, None] * 8 + np.arange(8)[None, :]
    digit = (slot // nb ** group) % nb
    nib = np.asarray(alpha, np.uint64)[digit]
    words = (nib << (np.arange(8, dtype=np.uint64) * np.uint64(4))[None, :]).sum(axis=1, dtype=np.uint64)
    return words.astype(np.uint32).reshape(THREADS, 1)


def probe_groups(spec, alpha_name: str) -> int:
    nb = len(H.alphabet(spec, alpha_name))
    r = 1
    while nb ** r < THREADS * 8:
        r += 1
    return r


def distinct_pairs_seed(spec, v, seed: int, bits: int, codes: tuple) -> int:
    """The first of seed, seed + 2**40, ... whose packed A (as the spec reads it) has the kept elements
    of every chunk distinct, so that each can be found by value in the dense A the hardware builds."""
    ue = v.sparsity.unit_elements  # pair-wise sparsity: the kept pairs must differ, as pairs
    ku = H.sparse_mod.geometry(v)["kept_elements"] // ue
    words = H.operand_words(v, "a")
    for j in range(1000):
        s = seed + (j << 40)
        regs = Draw(s, bits, 0, "", codes).materialize(words)
        packed = v.unpack("a", H.regs_of(v, "a", regs))
        p = packed.reshape(v.m, -1, ku, ue)
        if ku == 1 or all((p[:, :, x] != p[:, :, y]).any(axis=-1).all() for x in range(ku) for y in range(x + 1, ku)):
            return s
    raise RuntimeError(f"{v.id}: no seed with distinct pairs")


def plan_sp_cases(spec, kernels: list[dict], random_cases: int = 6, heldout_cases: int = 4,
                  seed0: int = SEED_SP) -> tuple[list[Case], dict]:
    """Cases of the mma.sp campaign, per kernel (variant + selector):

    random     set 1 (`random_cases`) and a held-out set 2 (`heldout_cases`, other seeds): A (packed),
               B, C and the metadata register of every thread drawn by the hash (random valid nibbles
               per chunk; ordered ones for ::ordered_metadata, plain .sp alternating ordered and all
               twelve); tf32 every other case with random low 13 bits. Spec-independent.
    satfinite  integers: C within 512 of the s32 limits.
    b-onehot   metadata uniform (the same nibble, 0x4 or 0xE by shift, in every slot of every thread, so
               the expansion does not depend on the metadata map), B a selection matrix (K/8 shifts), A
               every code, C = 0: D[m, n] = dense A[m, k(n)] shows the packed A map and B.
    a-onehot   metadata uniform, packed A a selection matrix (row m picks packed column (m + 16 s)
               mod K/2), B every code, C = 0: D[m, n] = B[k(m), n] shows B's map.
    meta-probe groups of K/8 b-onehot cases sharing A (nonzero codes) and a coded metadata register
               (probe_metadata): the dense A read back per group gives each chunk's nibble, and the
               groups' nibbles name the (thread, nibble) slot that governs the chunk.
    c-pass     B = 0: D = C.
    """
    b = _Builder(spec)
    for t in sorted({x for k in kernels for x in (spec.variant(k["variant"]).atype, spec.variant(k["variant"]).btype)}):
        ONE[t] = b.alpha(f"one:{t}")[0]
    for k in kernels:
        v = spec.variant(k["variant"])
        abits, bbits, cbits = (spec.types[t].bits for t in (v.atype, v.btype, v.ctype))
        isint = spec.types[v.dtype].cls != "float"
        base = seed0 + 1_000_003 * k["id"]
        geo = H.sparse_mod.geometry(v)
        metas = meta_alphabets(spec, v)
        kp = geo["packed_cols"]

        def seed(i, op):
            return base + 64 * i + op

        def uniform(nib):
            return np.full((THREADS, 1), nib * 0x11111111, np.uint32)

        i = 0
        for r in range(random_cases + heldout_cases):
            junk = r % 2 == 1 and "tf32" in (v.atype, v.btype)
            ma = metas[r % len(metas)]
            d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, False), 0x1FFF if junk else 0),
                 "b": b.draw(seed(i, 1), bbits, _ab_alphabet(spec, v.btype, False), 0x1FFF if junk else 0),
                 "c": b.draw(seed(i, 2), cbits, _c_alphabet(spec, v.ctype)),
                 "meta": b.draw(seed(i, 3), geo["nibble_bits"], ma)}
            note = ("set 1" if r < random_cases else "set 2 (held out)") + f", metadata {ma.split(':')[0]}" + \
                (", tf32 low bits random" if junk else "")
            b.add(k, "random", note, d)
            i += 1
        if isint:
            for r in range(2):
                ma = metas[r % len(metas)]
                d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, False)),
                     "b": b.draw(seed(i, 1), bbits, _ab_alphabet(spec, v.btype, False)),
                     "c": b.draw(seed(i, 2), cbits, "sat:s32"),
                     "meta": b.draw(seed(i, 3), geo["nibble_bits"], ma)}
                b.add(k, "satfinite", "C within 512 of the s32 limits (" + ("clamps" if v.satfinite else "wraps")
                      + f"), metadata {ma.split(':')[0]}", d)
                i += 1
        for s in range(v.k // v.n):  # every packed element shows, in its chunk's units 0-1 or 2-3
            nib = UNIFORM[s % 2]
            d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, True))}
            b.add(k, "b-onehot", f"metadata {nib:#x} everywhere; B[k, n] = 1 iff k = (n + {v.n}*{s}) mod {v.k}",
                  d, {"b": H.words_of(v.pack("b", _onehot(v, "b", s))), "meta": uniform(nib)})
            i += 1
        for nib in UNIFORM:
            for s in range(-(-kp // v.m)):
                one = np.zeros((v.m, kp), np.uint64)
                m = np.arange(v.m)
                one[m, (m + v.m * s) % kp] = ONE[v.atype]
                d = {"b": b.draw(seed(i, 1), bbits, _ab_alphabet(spec, v.btype, True))}
                b.add(k, "a-onehot", f"metadata {nib:#x} everywhere; packed A[m, j] = 1 iff j = (m + {v.m}*{s}) "
                      f"mod {kp}", d, {"a": H.words_of(v.pack("a", one)), "meta": uniform(nib)})
                i += 1
        ma = metas[-1]
        for g in range(probe_groups(spec, ma)):
            gseed = distinct_pairs_seed(spec, v, seed(i, 0), abits, b.alpha(f"anynz:{v.atype}"))
            meta = probe_metadata(spec, v, ma, g)
            for s in range(v.k // v.n):
                d = {"a": b.draw(gseed, abits, f"anynz:{v.atype}")}
                b.add(k, "meta-probe", f"group {g} ({ma.split(':')[0]} digit {g} of 8t+n); "
                      f"B[k, n] = 1 iff k = (n + {v.n}*{s}) mod {v.k}", d,
                      {"b": H.words_of(v.pack("b", _onehot(v, "b", s))), "meta": meta})
                i += 1
        cname = "sat:s32" if isint else f"anyn:{v.ctype}"
        d = {"a": b.draw(seed(i, 0), abits, _ab_alphabet(spec, v.atype, False)),
             "c": b.draw(seed(i, 2), cbits, cname),
             "meta": b.draw(seed(i, 3), geo["nibble_bits"], metas[0])}
        b.add(k, "c-pass", "B = 0: D = C", d, {"b": np.zeros((THREADS, H.operand_words(v, "b")), np.uint32)})
        i += 1
    return b.cases, b.alphabets


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--campaign", choices=("dense", "sp"), default="dense",
                    help="dense: every sm_90a `mma` (build/mma); sp: every sm_90a `mma.sp` (build/mma-sp)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--random-cases", type=int, default=6)
    ap.add_argument("--spec-dir", type=Path, help="generate from this spec tree instead of the repository's")
    ap.add_argument("--groups", default="", help="comma-separated spec groups: only their variants")
    args = ap.parse_args(argv)
    global GROUPS
    GROUPS = tuple(g for g in args.groups.split(",") if g)
    spec = H.ptxspec.load(args.spec_dir) if args.spec_dir else H.ptxspec.load()
    if args.campaign == "sp":
        kernels = plan_kernels(spec, args.quick, "mma.sp")
        cases, alphabets = plan_sp_cases(spec, kernels, args.random_cases)
    else:
        kernels = plan_kernels(spec, args.quick)
        cases, alphabets = plan_cases(spec, kernels, args.random_cases)
    args.out = args.out or (BUILD_SP if args.campaign == "sp" else BUILD)
    # every case's expected output must be computable (exact) before anything runs
    for c in cases:
        H.expected_output(spec, c)
    out = args.out
    write_sources(spec, kernels, out)
    H.write_inputs(out / "mma_in.bin", kernels, cases)
    (out / "kernels.json").write_text(json.dumps(kernels, indent=0) + "\n")
    (out / "alphabets.json").write_text(json.dumps(alphabets, sort_keys=True) + "\n")
    info = [{"index": c.index, "kernel": c.kernel, "variant": c.variant_id, "kind": c.kind, "note": c.note,
             "imm": c.imm, "words": c.words, "draws": {n: d.as_record() for n, d in c.draws.items()},
             "explicit": sorted(c.data)} for c in cases]
    (out / "cases.json").write_text(json.dumps(info) + "\n")
    kinds = {}
    for c in cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    print(f"{len(kernels)} kernels ({len({k['variant'] for k in kernels})} variants), {len(cases)} cases "
          f"{kinds}, inputs {(out / 'mma_in.bin').stat().st_size / 1e6:.2f} MB -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
