"""The bindings campaign: every variant sm_90a runs, executed through its generated C binding.

    python3 campaigns/bindings/gen_bindings.py [--spec DIR]     # here: writes build/bindings/
    bash campaigns/bindings/run_bindings.sh [BUILD]              # there: build, SASS, run -> $OUT
    python3 campaigns/bindings/check_bindings.py RESULTS         # here: compare, SASS verdict

One kernel per variant calls `ptxspec::<name>(...)` from generated/c (built from the same spec, into
BUILD/c/) once, on exact small-integer inputs: A, B, C drawn from {-2..2} (integers -3..3, b1 bits),
so every product and sum is exact in every accumulator type. Registers are placed by the model's
fragment maps, sparse A by `ptxspec.sparse` (metadata by the model's map), shared-memory operands
(wgmma descriptor forms and B) by `ptxspec.smem` in the K-major, no-swizzle canonical layout, whose
descriptor the kernel builds with the generated `ptxspec::smem_wgmma::make_descriptor`. The expected
D is the numpy product of the same matrices, packed by the model's D map.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import shutil
import sys
import tarfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ptxspec  # noqa: E402
from ptxspec.core import formats  # noqa: E402
from ptxspec.emit import cbind  # noqa: E402
from ptxspec.model import smem  # noqa: E402
from ptxspec.semantics import sparse  # noqa: E402

BUILD = HERE.parent / "build" / "bindings"
PARTS = 8
SEED = 20261122
RUN_TARGET, RUN_PTX = "sm_90a", "9.0"  # the H100 machine's nvcc 13.0 writes PTX 9.0
MMA_INSTRUCTIONS = ("wgmma.mma_async", "wgmma.mma_async.sp", "mma", "mma.sp")
LBO = 128  # K-major, no swizzle: core matrices along K are adjacent (128 bytes apart)


def runnable(spec) -> list:
    return [v for v in spec.variants if v.valid(RUN_TARGET, RUN_PTX) and v.instruction in MMA_INSTRUCTIONS]


def skipped(spec) -> list:
    """Variants sm_90a runs that this campaign does not execute (every family here is run)."""
    return [v for v in spec.variants if v.valid(RUN_TARGET, RUN_PTX) and v.instruction not in MMA_INSTRUCTIONS
            and not v.instruction.startswith(("wgmma.", "wmma."))]


# ---------------------------------------------------------------------------------------------
# wmma: a chain per kernel (load a, load b, load c, mma, store d), from and to memory


WMMA_PAD_BYTES = 32  # the explicit-stride overloads get rows (columns) this much longer than the default


def wmma_chains(spec) -> list[dict]:
    """One chain per wmma.mma variant, then more until every load and store variant ran once.
    Loads and stores are picked least-used first (space, layout and stride overload vary)."""
    ok = [v for v in spec.variants if v.family == "wmma" and v.valid(RUN_TARGET, RUN_PTX)]
    by = {ins: [v for v in ok if v.instruction == ins]
          for ins in ("wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma")}
    used = {v.id: 0 for v in ok}

    def fits(mv, lv, role):
        if (lv.m, lv.n, lv.k) != (mv.m, mv.n, mv.k):
            return False
        t = {"a": (lv.atype, mv.atype), "b": (lv.btype, mv.btype), "c": (lv.ctype, mv.ctype), "d": (lv.dtype, mv.dtype)}
        have, want = t[role]
        if have != want:
            return False
        if role in ("a", "b"):
            return lv.qualifiers.get("layout") == mv.qualifiers.get(f"{role}layout")
        return True

    def pick(mv, role, force=None):
        ins = "wmma.store.d" if role == "d" else f"wmma.load.{role}"
        if force is not None:
            return force
        cands = [lv for lv in by[ins] if fits(mv, lv, role)]
        if not cands:  # (wmma.mma m16n16k16 .f64: ptxas_only, no load or store of that shape exists)
            return None
        best = min(cands, key=lambda lv: used[lv.id])
        return best

    chains = []

    def add(mv, **force):
        chain = {"mma": mv}
        for role in "abcd":
            chain[role] = pick(mv, role, force.get(role))
            if chain[role] is not None:
                used[chain[role].id] += 1
        chain["stride"] = {role: chain[role] is not None and (used[chain[role].id] + len(chains)) % 2 == 1
                           for role in "abcd"}
        used[mv.id] += 1
        chains.append(chain)

    for mv in by["wmma.mma"]:
        add(mv)
    for ins, role in (("wmma.load.a", "a"), ("wmma.load.b", "b"), ("wmma.load.c", "c"), ("wmma.store.d", "d")):
        for lv in by[ins]:
            if used[lv.id]:
                continue
            mv = next((m for m in by["wmma.mma"] if fits(m, lv, role)), None)
            if mv is not None:
                add(mv, **{role: lv})
                continue
            # no wmma.mma of this shape and type (f32 C/D of the sub-byte shapes): a round trip
            # memory -> wmma.load.c -> wmma.store.d -> memory, both picked least-used
            other = "d" if role == "c" else "c"
            partner = min((x for x in by["wmma.store.d" if role == "c" else "wmma.load.c"]
                           if (x.m, x.n, x.k) == (lv.m, lv.n, lv.k) and (x.ctype or x.dtype) == (lv.ctype or lv.dtype)),
                          key=lambda x: used[x.id])
            chain = {"mma": None, "a": None, "b": None, role: lv, other: partner}
            used[lv.id] += 1
            used[partner.id] += 1
            chain["stride"] = {"a": False, "b": False, "c": len(chains) % 2 == 0, "d": len(chains) % 2 == 1}
            chains.append(chain)
    return chains


def _mem_image(spec, tname: str, codes: np.ndarray, layout: str, ld: int) -> tuple[bytes, int]:
    """Bytes of a matrix in memory: row-major (element (r, c) at r*ld + c) or column-major
    (c*ld + r); sub-byte elements packed low bits first; padding bytes 0xFF."""
    bits = spec.types[tname].bits
    rows, cols = codes.shape
    lead = rows if layout == "row" else cols
    nbits = lead * ld * bits
    nbytes = (nbits // 8 + 15) // 16 * 16
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    idx = (r * ld + c) if layout == "row" else (c * ld + r)
    buf = np.full(nbytes, 0xFF, dtype=np.uint8)
    vals = codes.astype(np.uint64)
    if bits >= 8:
        for j in range(bits // 8):
            buf[(idx * (bits // 8) + j).ravel()] = ((vals >> np.uint64(8 * j)) & np.uint64(0xFF)).astype(np.uint8).ravel()
    else:
        pos = (idx * bits).ravel()
        out = buf.astype(np.int64)
        byte, bit = pos // 8, pos % 8
        np.bitwise_and.at(out, byte, ~(((1 << bits) - 1) << bit))
        np.bitwise_or.at(out, byte, (vals.ravel().astype(np.int64) & ((1 << bits) - 1)) << bit)
        buf = out.astype(np.uint8)
    return buf.tobytes(), nbytes


def wmma_plan(spec, chain: dict, idx: int) -> dict:
    mv = chain["mma"]
    if mv is None:  # load.c -> store.d round trip
        rng = np.random.default_rng([SEED, idx])
        tname = chain["c"].ctype
        C = draw(spec, tname, (chain["c"].m, chain["c"].n), rng)
        regions = {}
        for role in "cd":
            lv = chain[role]
            layout = lv.qualifiers.get("layout")
            natural = C.shape[1] if layout == "row" else C.shape[0]
            ld = natural + (WMMA_PAD_BYTES * 8 // spec.types[tname].bits if chain["stride"][role] else 0)
            img, nbytes = _mem_image(spec, tname, encode(spec, tname, C), layout, ld)
            regions[role] = {"image": img, "bytes": nbytes, "ld": ld, "space": lv.qualifiers.get("space", "")}
        return {"chain": chain, "regions": regions, "undefined": False,
                "expected": np.frombuffer(regions["d"]["image"], dtype="<u4").copy()}
    if any(chain[r] is None for r in "abcd"):  # no load/store to chain with: registers in and out, unchecked
        words_out = 32 * sum(o.regs * (2 if o.reg_type in ("f64", "b64") else 1) for o in mv.operands if o.io != "in")
        return {"chain": chain, "regions": None, "expected": np.zeros(words_out, np.uint32), "undefined": True}
    rng = np.random.default_rng([SEED, idx])
    A = draw(spec, mv.atype, (mv.m, mv.k), rng)
    B = draw(spec, mv.btype, (mv.k, mv.n), rng)
    C = draw(spec, mv.ctype, (mv.m, mv.n), rng) if spec.types[mv.ctype].cls == "float" else \
        rng.integers(-50, 51, (mv.m, mv.n))
    op = mv.op.split(".")[0] if mv.op else ""
    P = _product(mv, A.astype(np.int64), B.astype(np.int64), op)
    if mv.qualifiers.get("rnd") == "rm":
        C = np.where(P + C == 0, C + 1, C)
    D = P + C
    if spec.types[mv.dtype].cls == "float":
        D = D.astype(np.float64)
    mats = {"a": (mv.atype, A), "b": (mv.btype, B), "c": (mv.ctype, C), "d": (mv.dtype, D)}
    regions = {}
    for role in "abcd":
        lv = chain[role]
        tname, vals = mats[role]
        layout = lv.qualifiers.get("layout")
        rows, cols = vals.shape
        natural = cols if layout == "row" else rows
        bits = spec.types[tname].bits
        ld = natural + (WMMA_PAD_BYTES * 8 // bits if chain["stride"][role] else 0)
        img, nbytes = _mem_image(spec, tname, encode(spec, tname, vals), layout, ld)
        regions[role] = {"image": img, "bytes": nbytes, "ld": ld, "space": lv.qualifiers.get("space", "")}
    return {"chain": chain, "regions": regions,
            "expected": np.frombuffer(regions["d"]["image"], dtype="<u4").copy(),
            "undefined": bool(mv.ptxas_only)}


def wmma_kernel_source(p: dict, idx: int, in_off: dict, out_off: int) -> str:
    ch, rg = p["chain"], p["regions"]
    if rg is None:
        mv = ch["mma"]
        body = ["  const int t = threadIdx.x;"]
        for o in mv.operands:
            _, ctype = cbind.REGISTER[o.reg_type]
            body.append(f"  {ctype} {o.name}[{o.regs}]" + (";" if o.io == "out" else " = {};"))
        body.append(f"  ptxspec::{cbind.name(mv)}(" + ", ".join(o.name for o in mv.operands) + ");")
        o = next(o for o in mv.operands if o.io != "in")
        _, ctype = cbind.REGISTER[o.reg_type]
        w = 2 if o.reg_type in ("f64", "b64") else 1
        body.append(f"  for (int r = 0; r < {o.regs}; ++r) st(out + {out_off} + (t * {o.regs} + r) * {w}, {o.name}[r]);")
        return (f"// {mv.id} (alone: no load or store of its shape)\n__global__ void __launch_bounds__(32) bk{idx}("
                "const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {\n" + "\n".join(body) + "\n}\n")
    shared_bytes = sum(x["bytes"] for x in rg.values() if x["space"] in cbind.SHARED_SPACES)
    body = ["  const int t = threadIdx.x;", "  (void)t;"]
    soff, addr = 0, {}
    if shared_bytes:
        body += [f"  __shared__ __align__(128) uint32_t sm[{shared_bytes // 4}];",
                 "  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(sm));"]
    for role in (r for r in "abcd" if r in rg):
        r = rg[role]
        words = r["bytes"] // 4
        if r["space"] in cbind.SHARED_SPACES:
            if role == "d":
                body.append(f"  for (int j = t; j < {words}; j += 32) sm[{soff // 4} + j] = 0xFFFFFFFFu;")
            else:
                body.append(f"  for (int j = t; j < {words}; j += 32) sm[{soff // 4} + j] = in[{in_off[role]} + j];")
            addr[role] = f"base + {soff}"
            r["soff"] = soff
            soff += r["bytes"]
        else:
            addr[role] = f"out + {out_off}" if role == "d" else f"in + {in_off[role]}"
    if shared_bytes:
        body.append("  __syncwarp();")
    mv = ch["mma"]
    if mv is None:
        o = next(o for o in ch["c"].operands if o.kind == "fragment")
        _, ctype = cbind.REGISTER[o.reg_type]
        body.append(f"  {ctype} r[{o.regs}];")
        for role in "cd":
            stride = f", {rg[role]['ld']}u" if ch["stride"][role] else ""
            body.append(f"  ptxspec::{cbind.name(ch[role])}(" + (f"r, {addr[role]}" if role == "c" else f"{addr[role]}, r")
                        + f"{stride});")
    decl = {}
    for o in (mv.operands if mv is not None else []):
        _, ctype = cbind.REGISTER[o.reg_type]
        decl[o.matrix] = f"  {ctype} {o.name}[{o.regs}];"
    for role in ("abc" if mv is not None else ""):
        lv = ch[role]
        body.append(decl[role])
        frag = next(o.name for o in mv.operands if o.matrix == role)
        stride = f", {rg[role]['ld']}u" if ch["stride"][role] else ""
        body.append(f"  ptxspec::{cbind.name(lv)}({frag}, {addr[role]}{stride});")
    if mv is not None:
        body.append(decl["d"])
        names = {o.matrix: o.name for o in mv.operands}
        body.append(f"  ptxspec::{cbind.name(mv)}({names['d']}, {names['a']}, {names['b']}, {names['c']});")
        stride = f", {rg['d']['ld']}u" if ch["stride"]["d"] else ""
        body.append(f"  ptxspec::{cbind.name(ch['d'])}({addr['d']}, {names['d']}{stride});")
    if rg["d"]["space"] in cbind.SHARED_SPACES:
        words = rg["d"]["bytes"] // 4
        body += ["  __syncwarp();",
                 f"  for (int j = t; j < {words}; j += 32) out[{out_off} + j] = sm[{rg['d']['soff'] // 4} + j];"]
    ids = " | ".join(ch[r].id for r in ("mma", "a", "b", "c", "d") if ch[r] is not None)
    return (f"// {ids}\n__global__ void __launch_bounds__(32) bk{idx}(const uint32_t* __restrict__ in, "
            f"uint32_t* __restrict__ out) {{\n" + "\n".join(body) + "\n}\n")


# ---------------------------------------------------------------------------------------------
# Values


def _code_table(spec, tname: str) -> dict[int, int]:
    codes = formats.all_codes(spec, tname)
    vals = formats.decode(spec, tname, codes)
    table = {}
    for c, x in zip(codes.tolist(), vals.tolist()):
        if x == x and float(x).is_integer() and -8 <= x <= 8 and not (x == 0 and str(x).startswith("-")):
            table.setdefault(int(x), int(c))
    return table


def encode(spec, tname: str, values: np.ndarray) -> np.ndarray:
    t = spec.types[tname]
    if t.cls != "float":
        return formats.encode_exact(spec, tname, values)
    try:
        return formats.encode_exact(spec, tname, values.astype(np.float64))
    except ValueError:
        table = _code_table(spec, tname)
        return np.vectorize(lambda x: table[int(x)], otypes=[np.uint64])(values)


def draw(spec, tname: str, shape, rng) -> np.ndarray:
    t = spec.types[tname]
    if t.bits == 1:
        return rng.integers(0, 2, shape)
    if t.cls == "float":
        return rng.integers(-2, 3, shape)
    return rng.integers(-3 if t.signed else 0, 4, shape)


def words(regs: np.ndarray, reg_type: str) -> np.ndarray:
    """(threads, regs) registers -> (threads, words) uint32 (64-bit registers: low word first)."""
    regs = np.asarray(regs)
    if reg_type in ("f64", "b64"):
        r = regs.astype(np.uint64)
        return np.stack([r & np.uint64(0xFFFFFFFF), r >> np.uint64(32)], axis=-1).reshape(regs.shape[0], -1) \
            .astype(np.uint32)
    return regs.astype(np.uint32)


def _product(v, a, b, op: str):
    nb = v.batch
    a3 = a.reshape(nb, a.shape[0] // nb, a.shape[1])
    b3 = b.reshape(b.shape[0], nb, b.shape[1] // nb).transpose(1, 0, 2)
    if op in ("and", "xor"):
        x = (a3[:, :, :, None] & b3[:, None, :, :]) if op == "and" else (a3[:, :, :, None] ^ b3[:, None, :, :])
        out = x.sum(axis=2)  # single bits: popcount of one bit is the bit
    else:
        out = a3 @ b3
    return out.reshape(a.shape[0], b.shape[1] // nb)


# ---------------------------------------------------------------------------------------------
# One variant: inputs, expected output, kernel


DEVICE_C_TYPES = {"f32": "static_cast<float>(x)", "s32": "x", "f16": "__half_as_ushort(__int2half_rn(x))"}


def device_c(v) -> bool:
    """The accumulator's initial value (C) is computed in the kernel (it is most of the data)."""
    return v.family == "wgmma" and v.operand("d").io == "inout" and v.dtype in DEVICE_C_TYPES


def c_formula(r, c, idx: int):
    return (r * 7 + c * 3 + idx) % 9 - 4


def digest(w: np.ndarray) -> int:
    """Of one kernel's output words: sum of (w + 1) * (2654435761 * j + 1), modulo 2^64."""
    w = np.asarray(w, dtype=np.uint64)
    j = np.arange(w.size, dtype=np.uint64)
    return int(((w + np.uint64(1)) * (j * np.uint64(2654435761) + np.uint64(1))).sum(dtype=np.uint64))


def plan(spec, v, idx: int) -> dict:
    rng = np.random.default_rng([SEED, idx])
    m_rows = v.m * v.batch
    n_cols = v.n * v.batch
    A = draw(spec, v.atype, (m_rows, v.k), rng)
    B = draw(spec, v.btype, (v.k, n_cols), rng)
    if device_c(v):  # the kernel computes C itself, placing it by the generated frag:: map
        r, c = np.meshgrid(np.arange(m_rows), np.arange(v.n), indexing="ij")
        C = c_formula(r, c, idx)
    else:
        C = draw(spec, v.ctype, (m_rows, v.n), rng) if spec.types[v.ctype].cls == "float" else \
            rng.integers(-50, 51, (m_rows, v.n))
    meta = None
    if v.sparse:
        kept = sparse.random_kept(v, rng, v.metadata_nibbles)
        A_stored = sparse.compress(v, A, kept)
        meta = sparse.pack_metadata(v, kept, sel=0)
        A = sparse.expand(v, A_stored, meta, 0)
    else:
        A_stored = A
    op = v.op.split(".")[0] if v.op else ""
    if op and spec.types[v.atype].bits > 1:
        op = ""  # .popc on s4/u4 (ptxas_only): the plain product (erratum mma-int4-popc-beyond-manual)
    P = _product(v, A.astype(np.int64), B.astype(np.int64), op)
    if v.qualifiers.get("rnd") == "rm":  # an exact zero sum is -0 when rounding toward -inf: avoid zeros
        C = np.where(P + C == 0, C + 1, C)
    D = P + C
    if spec.types[v.dtype].cls == "float":
        D = D.astype(np.float64)
    a_codes, b_codes = encode(spec, v.atype, A_stored), encode(spec, v.btype, B)
    c_codes, d_codes = encode(spec, v.ctype, C), encode(spec, v.dtype, D)
    ins: list[tuple[str, np.ndarray]] = []  # (what, uint32 words), in kernel order
    image = None
    descs = {}
    for o in v.operands:
        if o.kind == "fragment":
            if o.matrix == "d" and o.io == "inout":
                if not device_c(v):
                    ins.append(("d", words(v.pack("d", c_codes), o.reg_type)))
            elif o.matrix in ("a", "b", "c"):
                codes = {"a": a_codes, "b": b_codes, "c": c_codes}[o.matrix]
                ins.append((o.name, words(v.pack(o.matrix, codes), o.reg_type)))
        elif o.kind == "metadata":
            ins.append((o.name, meta.reshape(-1, 1).astype(np.uint32)))
        elif o.kind == "descriptor":
            descs[o.matrix] = None
    if descs:
        image = bytearray(45056)
        offset = 0
        for mat in sorted(descs):
            rows, cols = smem.operand_shape(v, mat)
            mn = rows if mat == "a" else cols
            kbits = (cols if mat == "a" else rows) * smem.element_bits(v, mat)
            sbo = (kbits // 128) * LBO  # 8 rows of core matrices, all of K, then the next 8 rows
            codes = a_codes if mat == "a" else b_codes
            smem.write_matrix(image, v, mat, "K", "none", offset, LBO, sbo, codes)
            descs[mat] = (offset, sbo)
            offset += (mn // 8) * sbo
            offset = (offset + 127) // 128 * 128
        image = bytes(image[:max(offset, 16)])
    dmap_words = words(v.pack("d", d_codes), v.operand("d").reg_type)
    return {"variant": v, "inputs": ins, "image": image, "descs": descs, "expected": dmap_words}


def kernel_source(spec, p: dict, idx: int, in_off: dict, out_off: int) -> str:
    v = p["variant"]
    T = v.threads
    body = ["  const int t = threadIdx.x;"]
    if p["image"] is not None:
        nwords = len(p["image"]) // 4
        body += [f"  __shared__ __align__(128) uint32_t sm[{nwords}];",
                 f"  for (int j = t; j < {nwords}; j += {T}) sm[j] = in[{in_off['image']} + j];",
                 '  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");',
                 "  __syncthreads();",
                 "  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(sm));"]
    args = []
    stores = []
    for o in v.operands:
        if o.kind == "fragment":
            _, ctype = cbind.REGISTER[o.reg_type]
            w = 2 if o.reg_type in ("f64", "b64") else 1
            body.append(f"  {ctype} {o.name}[{o.regs}];")
            if o.matrix == "d" and o.io == "inout" and device_c(v):
                F = f"ptxspec::frag::{cbind.name(v)}"
                enc = DEVICE_C_TYPES[v.dtype]
                body += [f"  for (int r = 0; r < {o.regs}; ++r) {o.name}[r] = 0;",
                         f"  for (int i = 0; i < {F}::d::elements; ++i) {{",
                         f"    const int x = ({F}::d::row(t, i) * 7 + {F}::d::col(t, i) * 3 + {idx}) % 9 - 4;",
                         f"    put({o.name}[{F}::d::reg(i)], {F}::d::slot(i), {F}::d::bits, {enc});",
                         "  }"]
            elif o.io != "out":
                body.append(f"  for (int r = 0; r < {o.regs}; ++r) ld(&{o.name}[r], in + {in_off[o.name]} + "
                            f"(t * {o.regs} + r) * {w});")
            if o.io != "in":
                stores.append(f"  for (int r = 0; r < {o.regs}; ++r) st(out + {out_off} + (t * {o.regs} + r) * {w}, "
                              f"{o.name}[r]);")
            args.append(o.name)
        elif o.kind == "metadata":
            args.append(f"in[{in_off[o.name]} + t]")
        elif o.kind == "descriptor":
            off, sbo = p["descs"][o.matrix]
            args.append(f"ptxspec::smem_wgmma::make_descriptor(ptxspec::SmemAddress(base + {off}), {LBO}, {sbo}, 0, "
                        "ptxspec::smem_wgmma::swizzle_none)")
        elif o.kind == "predicate":
            args.append("true")
        elif o.kind in ("immediate", "selector", "scale_selector", "address", "stride", "scale"):
            if o.kind in ("address", "stride", "scale"):
                raise ValueError(f"{v.id}: operand kind {o.kind} is not run by this campaign yet")
    tmpl = instantiate_immediates(v)
    call = f"ptxspec::{cbind.name(v)}" + (f"<{', '.join(tmpl)}>" if tmpl else "") + f"({', '.join(args)});"
    if v.family == "wgmma":
        body += ["  ptxspec::wgmma_fence_sync_aligned();", "  " + call,
                 "  ptxspec::wgmma_commit_group_sync_aligned();", "  ptxspec::wgmma_wait_group_sync_aligned<0>();"]
    else:
        body.append("  " + call)
    body += stores
    return (f"// {v.id}\n__global__ void __launch_bounds__({T}) bk{idx}(const uint32_t* __restrict__ in, "
            f"uint32_t* __restrict__ out) {{\n" + "\n".join(body) + "\n}\n")


def instantiate_immediates(v) -> list[str]:
    """Template arguments: scale +1, no transposition, selector 0, wait 0."""
    out = []
    for o in v.operands:
        if o.kind == "immediate":
            out.append("1" if o.name.startswith("imm_scale") else str(o.min_value or 0) if o.values is None
                       else ("0" if 0 in o.values else str(o.values[0])))
        elif o.kind == "selector":
            out.append("0")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=None)
    ap.add_argument("--out", default=str(BUILD))
    args = ap.parse_args(argv)
    spec = ptxspec.load(args.spec)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "c", ignore_errors=True)
    with tarfile.open(out / "c.tar.gz", "w:gz") as tar:  # the headers travel packed (the carry limit)
        for rel, data in cbind.build(spec).items():
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    vs = runnable(spec)
    chains = wmma_chains(spec)
    words_in: list[np.ndarray] = []
    pos = 0
    table = []
    sources = [[] for _ in range(PARTS)]
    out_pos = 0
    for j, ch in enumerate(chains):  # wmma chains: kernels len(vs) ...
        i = len(vs) + j
        p = wmma_plan(spec, ch, i)
        in_off = {}
        for role in ("abc" if p["regions"] else ""):
            if role not in p["regions"]:
                continue
            img = np.frombuffer(p["regions"][role]["image"], dtype="<u4")
            in_off[role] = pos
            words_in.append(img)
            pos += img.size
            if pos % 2:
                words_in.append(np.zeros(1, np.uint32))
                pos += 1
        exp = p["expected"]
        sources[i % PARTS].append(wmma_kernel_source(p, i, in_off, out_pos))
        table.append({"kernel": i, "variant": ch["mma"].id if ch["mma"] else ch["c"].id,
                      "chain": [ch[r].id if ch[r] else "" for r in "abcd"],
                      "stride": [ch["stride"][r] for r in "abcd"], "threads": 32, "out": out_pos,
                      "out_words": int(exp.size), "digest": digest(exp), "undefined": p["undefined"]})
        out_pos += exp.size + exp.size % 2
    for i, v in enumerate(vs):
        p = plan(spec, v, i)
        in_off = {}
        if p["image"] is not None:
            img = np.frombuffer(p["image"], dtype=np.uint32)
            in_off["image"] = pos
            words_in.append(img)
            pos += img.size
            if pos % 2:
                words_in.append(np.zeros(1, np.uint32))
                pos += 1
        for name, w in p["inputs"]:
            in_off[name] = pos
            words_in.append(w.reshape(-1))
            pos += w.size
            if pos % 2:
                words_in.append(np.zeros(1, np.uint32))
                pos += 1
        exp = p["expected"].reshape(-1)
        sources[i % PARTS].append(kernel_source(spec, p, i, in_off, out_pos))
        table.append({"kernel": i, "variant": v.id, "threads": v.threads, "out": out_pos, "out_words": int(exp.size),
                      "digest": digest(exp)})
        out_pos += exp.size + exp.size % 2
    head = ("#include <stdint.h>\n#include <string.h>\n#include <cuda_fp16.h>\n#include \"ptxspec.h\"\n"
            "// element code x into slot `slot` of a register (bits-wide slots, low first)\n"
            "__device__ __forceinline__ void put(float& reg, int, int, float x) { reg = x; }\n"
            "__device__ __forceinline__ void put(int32_t& reg, int, int, int x) { reg = x; }\n"
            "__device__ __forceinline__ void put(uint32_t& reg, int slot, int bits, unsigned x) {\n"
            "  const uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u);\n"
            "  reg = (reg & ~(mask << (slot * bits))) | ((x & mask) << (slot * bits));\n}\n"
            "// one register from / to 32-bit words (plain aligned loads and stores, nothing else)\n"
            "__device__ __forceinline__ void ld(uint32_t* x, const uint32_t* p) { *x = *p; }\n"
            "__device__ __forceinline__ void ld(int32_t* x, const uint32_t* p) { *x = static_cast<int32_t>(*p); }\n"
            "__device__ __forceinline__ void ld(float* x, const uint32_t* p) { *x = __uint_as_float(*p); }\n"
            "__device__ __forceinline__ void ld(double* x, const uint32_t* p) {\n"
            "  *x = *reinterpret_cast<const double*>(p); }\n"
            "__device__ __forceinline__ void st(uint32_t* p, uint32_t x) { *p = x; }\n"
            "__device__ __forceinline__ void st(uint32_t* p, int32_t x) { *p = static_cast<uint32_t>(x); }\n"
            "__device__ __forceinline__ void st(uint32_t* p, float x) { *p = __float_as_uint(x); }\n"
            "__device__ __forceinline__ void st(uint32_t* p, double x) { *reinterpret_cast<double*>(p) = x; }\n")
    for k in range(PARTS):
        ids = sorted(t["kernel"] for t in table if t["kernel"] % PARTS == k)
        threads = {t["kernel"]: t["threads"] for t in table}
        reg = ",\n".join(f"  {{bk{i}, {threads[i]}}}" for i in ids)
        text = head + "\n".join(sources[k]) + \
            f'\nstruct BindingKernel {{ void (*fn)(const uint32_t*, uint32_t*); int threads; }};\n' \
            f"extern const BindingKernel part{k}[] = {{\n{reg}\n}};\nextern const int part{k}_n = {len(ids)};\n"
        (out / f"bindings_kernels_{k}.cu").write_text(text)
    (out / "bindings_parts.h").write_text(
        "struct BindingKernel { void (*fn)(const uint32_t*, uint32_t*); int threads; };\n"
        + "".join(f"extern const BindingKernel part{k}[]; extern const int part{k}_n;\n" for k in range(PARTS))
        + f"#define PARTS {PARTS}\nstatic const BindingKernel* const parts[PARTS] = {{"
        + ", ".join(f"part{k}" for k in range(PARTS)) + "};\nstatic const int* const part_n[PARTS] = {"
        + ", ".join(f"&part{k}_n" for k in range(PARTS)) + "};\n")
    (out / "in.bin").unlink(missing_ok=True)
    with gzip.open(out / "in.bin.gz", "wb", compresslevel=6) as f:
        f.write(np.concatenate(words_in).astype("<u4").tobytes())
    pick: dict = {}
    for i, v in enumerate(vs):  # the SASS sample: per instruction, form and types, the kernel of least N
        key = (v.instruction, v.form, v.atype, v.btype, v.dtype, v.satfinite, v.op, tuple(sorted(v.qualifiers.items())))
        if key not in pick or (v.n or 0) < (vs[pick[key]].n or 0):
            pick[key] = i
    for j, ch in enumerate(chains):
        if ch["mma"] is None:
            continue
        key = ("wmma", ch["mma"].m, ch["mma"].n, ch["mma"].k, ch["mma"].atype, ch["mma"].dtype)
        pick.setdefault(key, len(vs) + j)
    sample = [f"_Z{len(f'bk{i}')}bk{i}PKjPj" for i in sorted(pick.values())]
    (out / "sass_sample.list").write_text("\n".join(sample) + "\n")
    (out / "kernels.json").write_text(json.dumps({"in_words": pos, "out_words": out_pos, "parts": PARTS,
                                                  "kernels": table,
                                                  "skipped": [v.id for v in skipped(spec)]}))
    print(f"{len(vs) + len(chains)} kernels ({sum(1 for v in vs if v.family == 'wgmma')} wgmma, "
          f"{len(chains)} wmma chains), {pos} input words, "
          f"{out_pos} output words, {len(skipped(spec))} sm_90a variants not run -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
