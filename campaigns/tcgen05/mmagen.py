#!/usr/bin/env python3
"""The tcgen05.mma device campaign for sm_100a: kernels, inputs, and the checker against the executors.

    python3 campaigns/tcgen05/mmagen.py BUILD          # BUILD/mma_kernels.cu, mma_cases.json
    bash campaigns/tcgen05/run_mma.sh BUILD            # on an sm_100a machine: BUILD/mma_results.bin
    python3 campaigns/tcgen05/mmagen.py BUILD --check  # BUILD/mma_report.json, exit 1 on any mismatch

One kernel per case (CASES: a tcgen05.mma / .mma.ws / .mma.sp variant, an instruction descriptor
and the operand addresses), launched as one warpgroup of one CTA. Each kernel copies its
shared-memory image into shared memory and its TMEM image (128 lanes x COLS columns: D, A from
TMEM, scale factors, sparsity metadata) into a fresh 512-column allocation with .32x32b stores;
thread 0 issues the instruction (descriptors made absolute by adding the shared image's address to their start-address field)
and commits it to an mbarrier every thread waits on; .32x32b loads read the COLS columns back.
A .cta_group::2 case runs as a cluster of two CTAs with an image of each: the even CTA issues,
the commit multicasts to both CTAs' mbarriers, and each CTA reads its own TMEM back.
The inputs come from the spec (ptxspec.smem canonical layouts through the descriptors the
executor decodes, the TMEM layouts of ptxspec.tmem), in two flavours per case: small integers
(every product and sum exact: the layouts and operand plumbing alone decide D) and random finite
codes (the arithmetic model decides the low bits). The checker compares every cell with
`Variant.execute` on the same images, so one run would prove or refute the executors' layouts
and arithmetic for these cases. Nothing here has run: no sm_100a GPU (see README.md).
"""
from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import numpy as np

from ptxspec.semantics import blockscale as bs
from ptxspec.semantics import tmem_mma

HERE = Path(__file__).resolve().parent
COLS = 96  # TMEM columns a case uses: D from 0, A (from TMEM) from 64, scale_a from 80, scale_b from 88,
# the sparsity metadata from 92
SMEM = 16384  # bytes of the shared-memory image: A from 0, B from 0x2000
A_TMEM, SA, SB, META = 64, 80, 88, 92
MAGIC_OUT = 0x5452534D

# (instruction, form, qualifiers, idesc fields, flavour of data)
CASES = [
    ("tcgen05.mma", "desc", {"kind": "kind::f16"}, dict(m=128, n=16, dtype="f32", atype="f16", btype="f16")),
    ("tcgen05.mma", "tmem", {"kind": "kind::f16"}, dict(m=128, n=32, dtype="f32", atype="bf16", btype="bf16")),
    ("tcgen05.mma", "desc", {"kind": "kind::f16"}, dict(m=64, n=8, dtype="f16", atype="f16", btype="f16")),
    ("tcgen05.mma", "desc", {"kind": "kind::tf32"}, dict(m=128, n=16, dtype="f32", atype="tf32", btype="tf32")),
    ("tcgen05.mma", "desc", {"kind": "kind::i8"}, dict(m=128, n=16, dtype="s32", atype="s8", btype="u8")),
    ("tcgen05.mma", "desc", {"kind": "kind::f8f6f4"}, dict(m=128, n=16, dtype="f32", atype="e4m3", btype="e5m2")),
    ("tcgen05.mma", "desc", {"kind": "kind::f8f6f4"}, dict(m=128, n=16, dtype="f32", atype="e2m1", btype="e3m2")),
    ("tcgen05.mma", "desc", {"kind": "kind::mxf8f6f4", "scale_vec": ""}, dict(m=128, n=16, atype="e4m3", btype="e4m3")),
    ("tcgen05.mma", "desc", {"kind": "kind::mxf4nvf4", "scale_vec": "scale_vec::4X"},
     dict(m=128, n=16, atype="e2m1", btype="e2m1", scale_type="ue8m0")),
    ("tcgen05.mma.ws", "desc", {"kind": "kind::f16"}, dict(m=32, n=64, dtype="f32", atype="f16", btype="f16")),
    ("tcgen05.mma.sp", "desc", {"kind": "kind::f16"},
     dict(m=128, n=16, dtype="f32", atype="f16", btype="f16", sparse="sparse", sparsity_selector=1)),
    ("tcgen05.mma.sp", "desc", {"kind": "kind::i8"}, dict(m=128, n=16, dtype="s32", atype="s8", btype="s8", sparse="sparse")),
    ("tcgen05.mma.sp", "desc", {"kind": "kind::f8f6f4"},
     dict(m=128, n=16, dtype="f32", atype="e4m3", btype="e4m3", sparse="sparse")),
    # CTA pairs (one cluster of two CTAs; the even one issues): layouts A and B, A from TMEM held
    # in both halves of layout B, and a sparse M = 256 with its metadata in each CTA's TMEM
    ("tcgen05.mma", "desc", {"kind": "kind::f16", "cta_group": "cta_group::2"},
     dict(m=256, n=32, dtype="f32", atype="f16", btype="f16")),
    ("tcgen05.mma", "tmem", {"kind": "kind::f16", "cta_group": "cta_group::2"},
     dict(m=128, n=32, dtype="f32", atype="bf16", btype="bf16")),
    ("tcgen05.mma.sp", "desc", {"kind": "kind::i8", "cta_group": "cta_group::2"},
     dict(m=256, n=32, dtype="s32", atype="s8", btype="s8", sparse="sparse")),
]


def ctas(i: int) -> int:
    """CTAs of case i's kernel: 2 for .cta_group::2 (a cluster pair), else 1."""
    return 2 if CASES[i][2].get("cta_group") == "cta_group::2" else 1
FLAVOURS = ("ints", "random")
#: Kinds whose cases also run zero-heavy data ("zeros"): where the zero rules of
#: campaigns/survey/blockscale.md section 4 (the model, zeros=mmasim-main/-dev/-v1) part. Rows 4q of A all
#: +-0 (only zero products), rows 4q + 1 with every other scale block +-0 (zero groups), rows 4q + 2
#: with the first group's products cancelling in pairs; scales large on those rows and even columns of
#: B, small (products near 2^-140) elsewhere; D (the accumulator) a small normal, or +-0 on half the rows.
ZERO_KINDS = ("kind::f8f6f4", "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4")


def variant(spec, instruction, form, q):
    want = {"cta_group": "cta_group::1", "ashift": "", "decompress": "", **q}
    for v in spec.variants:
        if v.instruction == instruction and v.form == form and all(v.qualifiers.get(k, "") == x for k, x in want.items()):
            return v
    raise KeyError((instruction, form, q))


def _codes(spec, tname, shape, flavour, rng, width):
    """Raw element codes (in `width`-bit containers where the kind puts them there)."""
    t = spec.types[tname]
    if flavour == "ints" or t.cls != "float":
        if t.cls == "float":
            import ml_dtypes
            np_t = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "tf32": np.float32, "f32": np.float32, "e4m3": ml_dtypes.float8_e4m3fn,
                    "e5m2": ml_dtypes.float8_e5m2, "e2m1": ml_dtypes.float4_e2m1fn, "e3m2": ml_dtypes.float6_e3m2fn,
                    "e2m3": ml_dtypes.float6_e2m3fn}[tname]
            vals = rng.integers(-2, 3, size=shape).astype(np.float32).astype(np_t)
            raw = vals.view(np.uint8 if t.bits <= 8 else np.uint16 if t.bits == 16 else np.uint32).astype(np.uint64)
            raw &= np.uint64((1 << t.bits) - 1)
        else:
            lo, hi = (-128, 128) if t.signed else (0, 256)
            raw = (rng.integers(lo, hi, size=shape) & ((1 << t.bits) - 1)).astype(np.uint64)
    else:  # random finite codes: exponent field below its all-ones value
        raw = rng.integers(0, 1 << t.bits, size=shape).astype(np.uint64)
        fmt = t.format or {}
        e, mbits = fmt.get("exponent", 0), fmt.get("mantissa", 0)
        if e and fmt.get("specials") != "none":
            top = np.uint64(((1 << e) - 1) << mbits)
            raw = np.where((raw & top) == top, raw & ~np.uint64(1 << (e + mbits - 1)), raw)
    if width > t.bits:
        raw = raw << np.uint64(t.container_shift)
    return raw


def build_case(spec, i, flavour):
    """(variant, operands for Variant.execute, TMEM image (128, 512) or, for a CTA pair, (2, 128, 512),
    shared-memory image bytes: one SMEM block per CTA)."""
    from ptxspec.model import descriptors as D
    from ptxspec.model import tmem
    from ptxspec.semantics import tmem_mma
    inst, form, q, fields = CASES[i]
    v = variant(spec, inst, form, q)
    rng = np.random.default_rng(1000 + 2 * i + FLAVOURS.index(flavour) if flavour in FLAVOURS else 5000 + i)
    idesc = D.encode(spec, q["kind"], **fields)
    p = tmem_mma.product(v, idesc)
    lay = tmem.datapath(spec, p.m, q.get("cta_group", "cta_group::1"), p.sparse, p.ws)
    ops = {"d": 0, "idesc": idesc, "enable_input_d": 1}
    imgs, bufs = [], []
    for _ in range(p.cta):
        img, buf = _cta_images(spec, v, p, lay, form, fields, flavour, rng, ops)
        imgs.append(img)
        bufs.append(bytes(buf))
    if p.ws:
        ops["zero_column_mask"] = 0
    if any(o.name == "disable_output_lane" for o in v.operands) and i == 0:
        ops["disable_output_lane"] = [0x0000F00F, 0, 0x80000001, 0]
    return v, ops, (imgs[0] if p.cta == 1 else np.stack(imgs)), b"".join(bufs)


def _cta_images(spec, v, p, lay, form, fields, flavour, rng, ops):
    """One CTA's TMEM image and shared memory: its rows of A, its N / CTAs columns of B, its D,
    scale factors and metadata; the operand addresses (the same in every CTA) go into ops."""
    from ptxspec.model import smem as S
    from ptxspec.model import tmem
    from ptxspec.semantics import tmem_mma
    width = tmem_mma._container_bits(v, p.kind)
    abits, bbits = max(width, spec.types[p.atype].bits), max(width, spec.types[p.btype].bits)
    img = np.zeros((128, 512), np.uint32)
    buf = bytearray(SMEM)
    a = _codes(spec, p.atype, (lay.rows, p.k // 2 if p.sparse else p.k), flavour, rng, abits)
    b = _codes(spec, p.btype, (p.k, p.n // p.cta), flavour, rng, bbits)
    if flavour == "zeros":
        a, b = _zero_rows(spec, v, p, a, b, abits, bbits)

    def place(matrix, mat, bits, start):
        rows = mat.shape[0] if matrix == "a" else mat.shape[1]
        sbo, lbo = 128, 128 * ((rows + 7) // 8)
        lay_s = S.layout_for(spec, "tcgen05", matrix, "K", "none", start, lbo, sbo, 0, *mat.shape, bits)
        for (r, c), byte in np.ndenumerate(lay_s.byte):
            if bits >= 8:
                for j in range(bits // 8):
                    buf[byte + j] = (int(mat[r, c]) >> (8 * j)) & 0xFF
            else:
                sh = int(lay_s.bit[r, c])
                buf[byte] = (buf[byte] & ~(((1 << bits) - 1) << sh)) | (int(mat[r, c]) << sh)
        return S.encode_descriptor(spec, start=start, lbo=lbo, sbo=sbo, swizzle="none", family="tcgen05")
    if form == "desc":
        ops["a_desc"] = place("a", a, abits, 0)
    else:
        lanes, col, bit = tmem.a_cells(lay, p.k, abits)
        for ln in lanes:
            np.bitwise_or.at(img, (ln, col + A_TMEM), (a.astype(np.uint64) << bit.astype(np.uint64)).astype(np.uint32))
        ops["a_tmem"] = A_TMEM
    ops["b_desc"] = place("b", b, bbits, 0x2000)
    lane, col = tmem.d_cells(lay, p.n)
    dbits = spec.types[p.dtype].bits
    img[lane, col] = _codes(spec, p.dtype, lane.shape, flavour, rng, dbits).astype(np.uint32)
    if flavour == "zeros":  # D: small normals with random low bits, +-0 on the rows 8q + 4 .. 8q + 7
        t = spec.types[p.dtype]
        e, m = t.format["exponent"], t.format["mantissa"]
        small = ((rng.integers(1, 7, lane.shape) << m) | rng.integers(0, 1 << m, lane.shape)
                 | (rng.integers(0, 2, lane.shape) << (e + m)))
        img[lane, col] = np.where(lane % 8 < 4, small, rng.integers(0, 2, lane.shape) << (e + m)).astype(np.uint32)
    if p.scaled:
        sf = tmem_mma.scale_factors(v, p)
        for matrix, extent, col0 in (("scale_a", lay.rows, SA), ("scale_b", p.n, SB)):
            place_sf = tmem.scale_layout(spec, matrix, lay.id)
            sl, sc, sb = tmem.scale_cells(place_sf, extent, sf, 0, p.n)
            vals = rng.integers(124, 131, size=(extent, sf)).astype(np.uint32)  # ue8m0 2^-3 .. 2^3
            if flavour == "zeros":  # large (2^103 .. 2^127) or small (2^-82 .. 2^-63) ue8m0 scales
                big = (np.arange(extent)[:, None] % 4 < 2) if matrix == "scale_a" else (np.arange(extent)[:, None] % 2 == 0)
                big = big & (np.arange(sf)[None, :] % 2 == 0) | (np.arange(extent)[:, None] % 4 == 0)
                vals = np.where(big, rng.integers(230, 255, (extent, sf)), rng.integers(45, 65, (extent, sf))).astype(np.uint32)
            for ln in sl:
                np.bitwise_or.at(img, (ln, sc + col0), vals << (8 * sb).astype(np.uint32))
            ops[matrix] = col0
    if p.sparse:  # random meaningful codes where the spec's metadata layout puts them
        rule = tmem.sparsity_rule(spec, p.kind)
        lane, col, bit = tmem.metadata_cells(tmem.metadata_layout(spec, p.kind, lay.id), lay.rows, p.k // rule.chunk_elements,
                                             fields.get("sparsity_selector", 0))
        pick = np.array([c for c, _ in rule.codes], np.uint32)[rng.integers(0, len(rule.codes), size=lane.shape)]
        np.bitwise_or.at(img, (lane, col + META), pick << bit.astype(np.uint32))
        ops["sp_meta"] = META
    return img, buf


def _sign_bit(spec, tname: str, width: int) -> np.uint64:
    """The sign bit of an element of `tname` in its `width`-bit slot (container or not)."""
    t = spec.types[tname]
    return np.uint64(1 << (t.bits - 1 + (t.container_shift if width > t.bits else 0)))


def _zero_rows(spec, v, p, a, b, abits, bbits):
    """The zero-heavy A and B of the "zeros" flavour (raw codes in their slots), see ZERO_KINDS."""
    sa, sb = _sign_bit(spec, p.atype, abits), _sign_bit(spec, p.btype, bbits)
    rows, K = np.arange(a.shape[0])[:, None], a.shape[1]
    block = K // (tmem_mma.scale_factors(v, p) if p.scaled else 2)
    k = np.arange(K)
    a = np.where(rows % 4 == 0, a & sa, a)  # only zero products
    a = np.where((rows % 4 == 1) & (k // block % 2 == 0), a & sa, a)  # zero blocks (groups)
    second = np.flatnonzero((k < 16) & (k % 2 == 1))  # the first group: pairs (x, x) against (y, -y)
    a[:, second] = np.where(rows % 4 == 2, a[:, second - 1], a[:, second])
    b = b.copy()
    b[second, :] = b[second - 1, :] ^ sb
    return a, b


# ----------------------------------------------------------------------------------------------
# CUDA source

PRELUDE = (HERE / "tmemgen.py").read_text(encoding="utf-8").split('PRELUDE = r"""', 1)[1].split('"""', 1)[0]


def _asm(v, ops) -> tuple[str, list[str]]:
    """The instruction's text with operands %0.. and the asm input list (in operand order)."""
    parts, ins = [], []
    for o in v.operands:
        if o.name not in ops:
            continue
        n = len(ins)
        if o.kind == "tmem_address":
            parts.append(f"[%{n}]")
            ins.append(f'"r"(tbase + {int(ops[o.name])}u)')
        elif o.kind in ("descriptor", "column_mask"):
            parts.append(f"%{n}")
            extra = " + sbase" if o.kind == "descriptor" else ""
            ins.append(f'"l"((unsigned long long){int(ops[o.name])}ull{extra})')
        elif o.kind == "idesc":
            parts.append(f"%{n}")
            ins.append(f'"r"({int(ops[o.name])}u)')
        elif o.kind == "lane_mask":
            regs = list(ops[o.name])
            parts.append("{" + ", ".join(f"%{n + j}" for j in range(len(regs))) + "}")
            ins += [f'"r"({int(r)}u)' for r in regs]
        elif o.kind == "predicate":
            parts.append("p")
            ins.append(f'"r"({int(ops[o.name])}u)')
        elif o.kind == "immediate":
            parts.append(str(int(ops[o.name])))
        else:
            raise ValueError(f"{v.id}: operand kind {o.kind} not handled")
    pred = next(i for i, o in enumerate([o for o in v.operands if o.name in ops]) if o.kind == "predicate")
    text = (f"{{ .reg .pred p; setp.ne.b32 p, %{_index_of(v, ops, pred)}, 0; "
            f"{v.ptx} {', '.join(parts)}; }}")
    return text, ins


def _index_of(v, ops, k: int) -> int:
    """asm input index of the k-th passed operand (a lane mask takes one per register)."""
    n = 0
    for o in [o for o in v.operands if o.name in ops][:k]:
        n += len(ops[o.name]) if o.kind == "lane_mask" else 0 if o.kind == "immediate" else 1
    return n


def _words(data: bytes) -> str:
    w = np.frombuffer(data, np.uint32)
    return ",".join(f"0x{x:x}u" for x in w.tolist())


PAIR_PRELUDE = r"""
// A CTA pair's tensor memory: every tcgen05 instruction of a pair kernel names .cta_group::2.
static __device__ __forceinline__ uint32_t cluster_rank()
{
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

static __device__ __forceinline__ void cluster_sync()
{
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ uint32_t tmem_setup2(uint32_t* slot)
{
  if (threadIdx.x / 32 == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\n"
                 :: "r"((uint32_t)__cvta_generic_to_shared(slot)), "r"(ALLOC) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  return *slot + (((threadIdx.x / 32) * 32) << 16);  // this warp's 32 lanes
}

static __device__ __forceinline__ void tmem_teardown2(uint32_t base)
{
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  cluster_sync();  // the peer no longer reads or writes this CTA's tensor memory
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  if (threadIdx.x / 32 == 0)
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n" :: "r"(base), "r"(ALLOC) : "memory");
}
"""


def kernel(spec, k: int, i: int, flavour: str) -> str:
    """One case's kernel. A pair kernel (.cta_group::2) runs as a cluster of two CTAs: each copies
    its own shared-memory and TMEM images, the even CTA's thread 0 issues the instruction and
    commits it to the mbarrier of both CTAs (multicast), and each CTA reads its own TMEM back."""
    v, ops, img, buf = build_case(spec, i, flavour)
    text, ins = _asm(v, ops)
    n = ctas(i)
    tm = np.asarray(img, np.uint32).reshape(n, 128, -1)[:, :, :COLS]
    pair = n == 2
    sync = "  cluster_sync();" if pair else "  __syncthreads();"
    commit = ('    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster'
              '.b64 [%0], %1;\\n" :: "r"(b), "h"((unsigned short)3) : "memory");' if pair else
              '    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\\n"'
              ' :: "r"(b) : "memory");')
    return "\n".join([
        f"// case {i} ({flavour}): {v.id}",
        f"__device__ const uint32_t smem_in_{k}[{n * SMEM // 4}] = {{{_words(buf)}}};",
        f"__device__ const uint32_t tmem_in_{k}[{n * 128 * COLS}] = {{{_words(tm.tobytes())}}};",
        f"__global__ void {'__cluster_dims__(2, 1, 1) ' if pair else ''}__launch_bounds__(128) mma_{k}(uint32_t* out)",
        "{",
        "  __shared__ __align__(1024) uint32_t sm[SMEM_WORDS];",
        "  __shared__ uint32_t slot;",
        "  __shared__ __align__(8) uint64_t bar;",
        f"  const uint32_t rank = {'cluster_rank()' if pair else '0'};",
        f"  for (int j = threadIdx.x; j < SMEM_WORDS; j += 128) sm[j] = smem_in_{k}[rank * SMEM_WORDS + j];",
        '  asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");',
        f"  const uint32_t base = tmem_setup{'2' if pair else ''}(&slot);  // this warp's lanes",
        "  const uint32_t lane = threadIdx.x;",
        "  for (int c0 = 0; c0 < COLS; c0 += 32)",
        f"    st32(base + c0, &tmem_in_{k}[(rank * 128 + lane) * COLS + c0]);",
        '  asm volatile("tcgen05.wait::st.sync.aligned;\\n" ::: "memory");',
        "  const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);",
        "  if (threadIdx.x == 0) {",
        '    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\\n" :: "r"(b) : "memory");',
        '    asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");',
        "  }",
        '  asm volatile("tcgen05.fence::before_thread_sync;\\n" ::: "memory");',
        "  __syncthreads();",
        sync,
        '  asm volatile("tcgen05.fence::after_thread_sync;\\n" ::: "memory");',
        "  const uint32_t tbase = slot;",
        "  const unsigned long long sbase = (unsigned long long)(__cvta_generic_to_shared(sm) >> 4);",
        "  if (rank == 0 && threadIdx.x == 0) {",
        f'    asm volatile("{text}\\n" :: {", ".join(ins)} : "memory");',
        commit,
        "  }",
        "  uint32_t done = 0;",
        "  while (!done)",
        '    asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0; selp.u32 %0, 1, 0, q; }\\n"',
        '                 : "=r"(done) : "r"(b) : "memory");',
        '  asm volatile("tcgen05.fence::after_thread_sync;\\n" ::: "memory");',
        "  uint32_t v[32];",
        "  for (int c0 = 0; c0 < COLS; c0 += 32) {",
        "    ld32(base + c0, v);",
        "    for (int j = 0; j < 32; ++j) out[(rank * 128 + lane) * COLS + c0 + j] = v[j];",
        "  }",
        f"  tmem_teardown{'2' if pair else ''}(slot);",
        "}",
    ])


def jobs() -> list[tuple[int, str]]:
    return [(i, f) for i in range(len(CASES)) for f in FLAVOURS] + \
        [(i, "zeros") for i in range(len(CASES)) if CASES[i][2]["kind"] in ZERO_KINDS]


def sources(spec, build: Path) -> list[tuple[int, str]]:
    build.mkdir(parents=True, exist_ok=True)
    js = jobs()
    st_regs = ", ".join(f"%{j + 1}" for j in range(32))
    st_args = ", ".join(f'"r"(v[{j}])' for j in range(32))
    ld_regs = ", ".join(f"%{j}" for j in range(32))
    ld_args = ", ".join(f'"=r"(v[{j}])' for j in range(32))
    prelude = PRELUDE % {"alloc": 512, "fill": 0, "st_regs": st_regs, "st_args": st_args, "ld_regs": ld_regs,
                         "ld_args": ld_args}
    body = [prelude, PAIR_PRELUDE, f"#define COLS {COLS}", f"#define SMEM_WORDS {SMEM // 4}"]
    body += [kernel(spec, k, i, f) for k, (i, f) in enumerate(js)]
    body.append("extern const void* const tmem_kernels[] = {" + ", ".join(f"(const void*)mma_{k}" for k in range(len(js)))
                + "};")
    body.append("extern const uint32_t tmem_words[] = {" + ", ".join(str(ctas(i) * 128 * COLS) for i, _ in js) + "};")
    body.append("extern const uint32_t tmem_ctas[] = {" + ", ".join(str(ctas(i)) for i, _ in js) + "};")
    body.append(f"extern const uint32_t tmem_nkernels = {len(js)};")
    (build / "mma_kernels.cu").write_text("\n".join(body) + "\n", encoding="utf-8")
    (build / "mma_cases.json").write_text(json.dumps([{"kernel": k, "case": i, "flavour": f, "variant": variant(
        spec, *CASES[i][:3]).id} for k, (i, f) in enumerate(js)], indent=1) + "\n", encoding="utf-8")
    return js


def expected(spec, i: int, flavour: str, kind_params=None) -> np.ndarray:
    """The COLS columns the executor says the kernel reads back: (128, COLS) uint32, (2, 128, COLS)
    for a CTA pair; `kind_params` (ptxspec.blockscale.KindParams): under that arithmetic instead."""
    v, ops, img, buf = build_case(spec, i, flavour)
    smem = np.frombuffer(buf, np.uint8).reshape(ctas(i), SMEM)
    extra = {} if kind_params is None else {"kind_params": kind_params}
    out = v.execute(tmem=img, smem=smem if ctas(i) == 2 else smem[0], smem_origin=0, **ops, **extra)
    return out[..., :COLS]


def zero_alternatives(spec, i: int) -> dict:
    """{name: KindParams} of the zero rules MMA-Sim published (ptxspec.blockscale.ALTERNATIVES), for
    case i's product (its kind's model with each)."""
    v, ops, _, _ = build_case(spec, i, "zeros")
    base = tmem_mma.arithmetic(spec, tmem_mma.product(v, int(ops["idesc"])))
    if not isinstance(base, bs.KindParams):
        raise ValueError(f"case {i}: {v.id} takes no block-scaling arithmetic")
    return {n: bs.with_alternative(base, n) for n in bs.ALTERNATIVES if n.startswith("zeros=")}


def read_results(path: Path) -> dict[int, tuple[int, np.ndarray]]:
    data = path.read_bytes()
    magic, n = struct.unpack_from("<II", data, 0)
    assert magic == MAGIC_OUT, "not a results file"
    off, out = 8, {}
    for _ in range(n):
        if off >= len(data):
            break
        k, err, words = struct.unpack_from("<III", data, off)
        off += 12
        cells = np.frombuffer(data, np.uint32, words, off).reshape(-1, 128, COLS)
        out[k] = (err, cells[0] if len(cells) == 1 else cells)
        off += 4 * words
    return out


def write_results(path: Path, results: dict[int, np.ndarray]) -> None:
    parts = [struct.pack("<II", MAGIC_OUT, len(results))]
    for k, arr in sorted(results.items()):
        a = np.ascontiguousarray(arr, np.uint32)
        parts += [struct.pack("<III", k, 0, a.size), a.tobytes()]
    path.write_bytes(b"".join(parts))


def check(spec, results: dict) -> dict:
    report = {}
    for k, (i, flavour) in enumerate(jobs()):
        want = expected(spec, i, flavour)
        got = results.get(k)
        if got is None or got[0]:
            report[str(k)] = {"case": i, "flavour": flavour, "ran": False, "error": None if got is None else got[0]}
            continue
        bad = np.argwhere(got[1] != want)
        report[str(k)] = {"case": i, "flavour": flavour, "ran": True, "mismatches": int(len(bad)),
                          "first": [[int(x) for x in b] + [int(got[1][tuple(b)]), int(want[tuple(b)])] for b in bad[:8]]}
        if flavour == "zeros":  # which zero rule the cells follow: mismatches under each alternative
            report[str(k)]["alternatives"] = {n.split(" ")[0]: int((got[1] != expected(spec, i, flavour, q)).sum())
                                              for n, q in zero_alternatives(spec, i).items()}
    return report


def main(argv: list[str]) -> int:
    import ptxspec
    spec = ptxspec.load()
    build = Path(argv[0]) if argv else HERE.parent / "build" / "tcgen05"
    if "--check" in argv:
        report = check(spec, read_results(build / "mma_results.bin"))
        (build / "mma_report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        bad = [k for k, r in report.items() if not r["ran"] or r["mismatches"]]
        print(f"{len(report)} kernels, {len(bad)} not run or mismatched")
        return 1 if bad else 0
    js = sources(spec, build)
    print(f"{len(js)} kernels in {build / 'mma_kernels.cu'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
