"""End-to-end samples of the device campaign: ldmatrix into registers, then mma (or wgmma with A
from registers); some store D back with stmatrix.

A sample names an mma variant and, per operand, how its matrix is stored and loaded:

  storage  "row": the matrix itself is stored row-major (A: M x K, B: K x N, D: M x N);
           "col": its transpose is (the matrix column-major), so the stored rows are its columns
  ld       the stored row pitch in elements (padded, so consecutive rows are not contiguous)
  offset   byte offset of the stored matrix in the shared-memory window
  num      x1 / x2 / x4, and trans: the ldmatrix (stmatrix) form
  blocks   per register j of the form, the stored matrix's 8 x 8 block (of 16-bit units) that
           lanes 8j..8j+7 give the row addresses of: (first row, first 16-bit column); for
           wgmma one such tuple per warp

The blocks are the loaders under test, written from the manual's descriptions of the mma
fragments and of ldmatrix; the hardware judges them (the loaded registers must be the mma's
fragments of the stored matrices, and D must be A*B + C). Lane L gives the address of row L % 8 of
block (L % (8 * num)) // 8: lanes past the last matrix repeat the addresses of the lower lanes.

Inputs: A and B elements from exact alphabets (floats: {0, +-0.5, +-1, +-1.5, +-2, +-3}; integers:
every code), C registers drawn slot by slot from accumulator alphabets, all by SplitMix64 from
seeds that hash the sample's name; the rest of the window is 0x33 bytes.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ldmatrix_harness import IMAGE_BYTES, Job, seed_for, splitmix  # noqa: E402

BACKGROUND = 0x33
CASES = 3


@dataclass(frozen=True)
class Load:
    storage: str
    ld: int
    offset: int
    num: str
    trans: bool
    blocks: tuple

    def form(self, instr: str) -> str:
        return f"{instr}.sync.aligned.m8n8.{self.num}{'.trans' if self.trans else ''}.shared.b16"

    @property
    def count(self) -> int:
        return {"x1": 1, "x2": 2, "x4": 4}[self.num]


@dataclass(frozen=True)
class Sample:
    name: str
    variant: str
    form: str            # "" for mma, "reg" for wgmma with A from registers
    a: Load
    b: Load | None       # None: B through a descriptor (wgmma)
    d: Load | None = None  # stmatrix of D

    @property
    def threads(self) -> int:
        return 128 if self.form == "reg" else 32


A4 = ((0, 0), (8, 0), (0, 8), (8, 8))        # a 16 x 16 (16-bit units) tile, row-major registers
A4T = ((0, 0), (0, 8), (8, 0), (8, 8))       # the same fragment from the transposed tile
B2 = ((0, 0), (0, 8))
B2T = ((0, 0), (8, 0))


def _wg(blocks):
    return tuple(tuple((r + 16 * w, c) for r, c in blocks) for w in range(4))


def _wgt(blocks):
    return tuple(tuple((r, c + 16 * w) for r, c in blocks) for w in range(4))


MMA = "mma.sync.aligned"
SAMPLES = [
    Sample("k16-f16-rowA-colB", f"{MMA}.m16n8k16.row.col.f32.f16.f16.f32", "",
           Load("row", 24, 0x100, "x4", False, A4), Load("col", 24, 0x1000, "x2", False, B2)),
    Sample("k16-f16-colA-rowB", f"{MMA}.m16n8k16.row.col.f32.f16.f16.f32", "",
           Load("col", 24, 0x100, "x4", True, A4T), Load("row", 16, 0x1000, "x2", True, B2T)),
    Sample("k16-bf16-rowA-rowB", f"{MMA}.m16n8k16.row.col.f32.bf16.bf16.f32", "",
           Load("row", 40, 0x140, "x4", False, A4), Load("row", 8, 0x1000, "x2", True, B2T)),
    Sample("k16-f16acc-colA-colB-stD", f"{MMA}.m16n8k16.row.col.f16.f16.f16.f16", "",
           Load("col", 16, 0x100, "x4", True, A4T), Load("col", 16, 0x1000, "x2", False, B2),
           Load("row", 16, 0x2000, "x2", False, ((0, 0), (8, 0)))),
    Sample("k8-f16-rowA-colB", f"{MMA}.m16n8k8.row.col.f32.f16.f16.f32", "",
           Load("row", 16, 0x100, "x2", False, ((0, 0), (8, 0))), Load("col", 16, 0x1000, "x1", False, ((0, 0),))),
    Sample("k8-f16acc-colA-rowB-stDt", f"{MMA}.m16n8k8.row.col.f16.f16.f16.f16", "",
           Load("col", 24, 0x100, "x2", True, ((0, 0), (0, 8))), Load("row", 8, 0x1000, "x1", True, ((0, 0),)),
           Load("col", 24, 0x2000, "x2", True, ((0, 0), (0, 8)))),
    Sample("k8-tf32-rowA-colB", f"{MMA}.m16n8k8.row.col.f32.tf32.tf32.f32", "",
           Load("row", 12, 0x100, "x4", False, A4), Load("col", 12, 0x1000, "x2", False, B2)),
    Sample("k32-s8-rowA-colB", f"{MMA}.m16n8k32.row.col.s32.s8.s8.s32", "",
           Load("row", 48, 0x100, "x4", False, A4), Load("col", 48, 0x1000, "x2", False, B2)),
    Sample("k16-u8s8-rowA-colB", f"{MMA}.m16n8k16.row.col.s32.u8.s8.s32", "",
           Load("row", 32, 0x100, "x2", False, ((0, 0), (8, 0))), Load("col", 16, 0x1000, "x1", False, ((0, 0),))),
    Sample("k32-e4m3-rowA-colB", f"{MMA}.m16n8k32.row.col.f32.e4m3.e4m3.f32", "",
           Load("row", 32, 0x100, "x4", False, A4), Load("col", 32, 0x1000, "x2", False, B2)),
    Sample("wgmma-k16-f16-rowA", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "reg",
           Load("row", 24, 0x100, "x4", False, _wg(A4)), None),
    Sample("wgmma-k16-bf16-colA", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "reg",
           Load("col", 72, 0x100, "x4", True, _wgt(A4T)), None),
]
WG_B = {"offset": 0x3000, "lbo": 128, "sbo": 256}   # wgmma B: K-major, no swizzle


def blocks_of(load: Load, warp: int):
    return load.blocks[warp] if isinstance(load.blocks[0][0], tuple) else load.blocks


def lane_offsets(load: Load, elem_bytes: int, threads: int) -> np.ndarray:
    """Byte offset each thread gives for `load` (its warp's blocks)."""
    out = np.zeros(threads, np.uint32)
    for tid in range(threads):
        w, lane = divmod(tid, 32)
        j = (lane % (8 * load.count)) // 8
        r0, c0 = blocks_of(load, w)[j]
        out[tid] = load.offset + (r0 + lane % 8) * load.ld * elem_bytes + c0 * 2
    return out


# ---------------------------------------------------------------------------------------------
# Generation needs the spec (element types, register counts, alphabets, wgmma's B layout).
@functools.lru_cache(maxsize=1)
def _spec():
    import ptxspec
    return ptxspec.load()


def variant_of(spec, s: Sample):
    return spec.variant(s.variant, form=s.form or None)


def shapes(v):
    return {"a": (v.m, v.k), "b": (v.k, v.n), "d": (v.m, v.n)}


def type_of(v, operand: str) -> str:
    return {"a": v.atype, "b": v.btype, "c": v.ctype, "d": v.dtype}[operand]


def matrix_codes(spec, v, s: Sample, operand: str, case: int) -> np.ndarray:
    """The raw element codes of A or B (rows x cols)."""
    from mma_harness import alphabet
    t = type_of(v, operand)
    rows, cols = shapes(v)[operand]
    kind = "int" if spec.types[t].cls == "int" else "small"
    alpha = np.asarray(alphabet(spec, f"{kind}:{t}"), np.uint64)
    z = splitmix(seed_for(s.name, case, operand), rows * cols)
    return alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))].reshape(rows, cols)


def c_words(spec, v, s: Sample, case: int) -> np.ndarray:
    """(threads, regs) C registers, slot by slot from the accumulator alphabet."""
    from mma_harness import alphabet
    t = v.ctype if v.family != "wgmma" else v.dtype
    bits = spec.types[t].bits
    alpha = np.asarray(alphabet(spec, ("ci:" if spec.types[t].cls == "int" else "cf:") + t), np.uint64)
    op = "c" if v.family != "wgmma" else "d"
    nregs = v.regs[op]
    per = 32 // bits
    z = splitmix(seed_for(s.name, case, "c"), s.threads * nregs * per)
    slots = alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))].reshape(s.threads, nregs, per)
    shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    return ((slots & np.uint64((1 << bits) - 1)) << shifts).sum(axis=-1, dtype=np.uint64).astype(np.uint32)


def elem_bytes(spec, v, operand: str) -> int:
    return spec.types[type_of(v, operand)].bits // 8


def store_matrix(window: np.ndarray, load: Load, codes: np.ndarray, eb: int):
    """Write a matrix (its transpose for "col") row-major with pitch ld at load.offset."""
    m = codes if load.storage == "row" else codes.T
    rows, cols = m.shape
    for r in range(rows):
        for c in range(cols):
            a = load.offset + (r * load.ld + c) * eb
            window[a:a + eb] = np.frombuffer(int(m[r, c]).to_bytes(eb, "little"), np.uint8)


def wgmma_b(spec, v, window: np.ndarray, codes: np.ndarray, target: int) -> int:
    """Place B (K-major, no swizzle) and return its descriptor."""
    from ptxspec.model import smem
    start = target + WG_B["offset"]
    buf = bytearray(window.tobytes())
    smem.write_matrix(buf, v, "b", "K", "none", start, WG_B["lbo"], WG_B["sbo"], codes, origin=target)
    window[:] = np.frombuffer(bytes(buf), np.uint8)
    return smem.descriptor_for(v, start, WG_B["lbo"], WG_B["sbo"], "none")


def case_inputs(spec, s: Sample, case: int, target: int) -> dict:
    """Everything one run of a sample is made of."""
    v = variant_of(spec, s)
    window = np.full(IMAGE_BYTES, BACKGROUND, np.uint8)
    A = matrix_codes(spec, v, s, "a", case)
    B = matrix_codes(spec, v, s, "b", case)
    store_matrix(window, s.a, A, elem_bytes(spec, v, "a"))
    T = s.threads
    ins = [lane_offsets(s.a, elem_bytes(spec, v, "a"), T)]
    desc = None
    if s.b is not None:
        store_matrix(window, s.b, B, elem_bytes(spec, v, "b"))
        ins.append(lane_offsets(s.b, elem_bytes(spec, v, "b"), T))
    else:
        desc = wgmma_b(spec, v, window, B, target)
    C = c_words(spec, v, s, case)
    ins.append(C.ravel())
    if s.d is not None:
        ins.append(lane_offsets(s.d, spec.types[v.dtype].bits // 8, T))
    if desc is not None:
        ins.append(np.array([desc & 0xFFFFFFFF, desc >> 32], np.uint32))
    return {"variant": v, "A": A, "B": B, "C": C, "desc": desc, "window": window,
            "inputs": np.concatenate([np.asarray(x, np.uint32) for x in ins])}


def out_words(v, s: Sample) -> int:
    nb = s.b.count if s.b is not None else 0
    return s.threads * (s.a.count + nb + v.regs["d"])


def jobs(kid: int, s: Sample, target: int) -> list[Job]:
    spec = _spec()
    out = []
    for c in range(CASES):
        ci = case_inputs(spec, s, c, target)
        back = IMAGE_BYTES if s.d is not None else 0
        out.append(Job(kid, s.threads, ci["window"], ci["inputs"], out_words(ci["variant"], s), back,
                       f"{s.name}#{c}", {"sample": s.name, "case": c}))
    return out


# ---------------------------------------------------------------------------------------------
def kernel_source(kid: int, s: Sample) -> str:
    spec = _spec()
    v = variant_of(spec, s)
    T = s.threads
    na = s.a.count
    nb = s.b.count if s.b is not None else 0
    nd = v.regs["d"]
    nc = nd
    body = [f"// {s.name}: {s.variant} {s.form}", f"extern \"C\" __global__ void __launch_bounds__({T}, 1) ldm_k{kid}(KARGS)",
            "{", "  uint8_t* win = place_image(img, img_bytes, status);", "  if (!win) return;",
            "  const uint32_t tid = threadIdx.x;",
            f"  const uint32_t* cin = in + {T * (2 if s.b is not None else 1)};"]
    body.append("  uint32_t " + ", ".join([f"a{i}" for i in range(na)] + [f"b{i}" for i in range(nb)]) + ";")
    body.append("  const uint32_t pa = TARGET + in[tid];")
    outs = ", ".join(f"\"=r\"(a{i})" for i in range(na))
    body.append(f"  asm volatile(\"{s.a.form('ldmatrix')} {regs_list(0, na)}, [%{na}];\\n\" : {outs} : \"r\"(pa) : \"memory\");")
    if s.b is not None:
        body.append(f"  const uint32_t pb = TARGET + in[{T} + tid];")
        outs = ", ".join(f"\"=r\"(b{i})" for i in range(nb))
        body.append(f"  asm volatile(\"{s.b.form('ldmatrix')} {regs_list(0, nb)}, [%{nb}];\\n\" : {outs} : \"r\"(pb) : \"memory\");")
    if s.form == "reg":
        body += [f"  float d{i} = __uint_as_float(cin[tid * {nc} + {i}]);" for i in range(nd)]
        body.append(f"  const uint32_t* dw = cin + {T * nc};")
        body.append("  const uint64_t desc = (uint64_t)dw[0] | ((uint64_t)dw[1] << 32);")
        body.append("  asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");")
        asm = (f"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{nd + na + 1}, 0;\\n"
               f"{s.variant} {regs_list(0, nd)}, {regs_list(nd, na)}, %{nd + na}, p, 1, 1, 0;\\n}}\\n")
        outs = ", ".join(f"\"+f\"(d{i})" for i in range(nd))
        ins = ", ".join([f"\"r\"(a{i})" for i in range(na)] + ["\"l\"(desc)", "\"r\"(1)"])
        body.append(f"  asm volatile(\"{asm}\" : {outs} : {ins} : \"memory\");")
        body.append("  asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");")
        body.append("  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");")
        dval = [f"__float_as_uint(d{i})" for i in range(nd)]
    else:
        body += [f"  const uint32_t c{i} = cin[tid * {nc} + {i}];" for i in range(nc)]
        body.append("  uint32_t " + ", ".join(f"d{i}" for i in range(nd)) + ";")
        asm = (f"{s.variant} {regs_list(0, nd)}, {regs_list(nd, na)}, {regs_list(nd + na, nb)}, "
               f"{regs_list(nd + na + nb, nc)};\\n")
        outs = ", ".join(f"\"=r\"(d{i})" for i in range(nd))
        ins = ", ".join([f"\"r\"(a{i})" for i in range(na)] + [f"\"r\"(b{i})" for i in range(nb)]
                        + [f"\"r\"(c{i})" for i in range(nc)])
        body.append(f"  asm volatile(\"{asm}\" : {outs} : {ins});")
        dval = [f"d{i}" for i in range(nd)]
    body += [f"  out[tid * {na} + {i}] = a{i};" for i in range(na)]
    body += [f"  out[{T * na} + tid * {nb} + {i}] = b{i};" for i in range(nb)]
    body += [f"  out[{T * (na + nb)} + tid * {nd} + {i}] = {dv};" for i, dv in enumerate(dval)]
    if s.d is not None:
        n = s.d.count
        body.append(f"  const uint32_t pd = TARGET + cin[{T * nc} + tid];")
        ins = ", ".join(f"\"r\"({dval[i]})" for i in range(n))
        body.append(f"  asm volatile(\"{s.d.form('stmatrix')} [%0], {regs_list(1, n)};\\n\" :: \"r\"(pd), {ins} : \"memory\");")
    body += ["  give_back(win, smem_out, smem_back);", "}", ""]
    return "\n".join(body)


def regs_list(first: int, n: int) -> str:
    return "{" + ", ".join(f"%{first + i}" for i in range(n)) + "}"


# ---------------------------------------------------------------------------------------------
def expected(spec, s: Sample, case: int, target: int) -> dict:
    """What the hardware must return for a sample if the loaders are right: the A and B
    registers are the mma's fragments of A and B (the spec's maps), D is the spec's executor on
    them and on C, and stmatrix leaves D stored as s.d says over the same window."""
    ci = case_inputs(spec, s, case, target)
    v = ci["variant"]
    a = v.pack("a", ci["A"])
    out = {"variant": v, "a": a}
    if s.b is not None:
        b = v.pack("b", ci["B"])
        out["b"] = b
        out["d"] = v.execute(a=a, b=b, c=ci["C"])
    else:
        out["d"] = v.execute(d=ci["C"], a=a, b_desc=ci["desc"], smem=ci["window"].tobytes(), smem_origin=target,
                             scale_d=1, imm_scale_a=1, imm_scale_b=1, imm_trans_b=0)
    out["d"] = np.asarray(out["d"], np.uint32)
    if s.d is not None:
        window = ci["window"].copy()
        dmat = v.unpack("d", out["d"])
        store_matrix(window, s.d, np.asarray(dmat, np.uint64), spec.types[v.dtype].bits // 8)
        out["window_after"] = window
    return out
