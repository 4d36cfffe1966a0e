"""Generate the wgmma device campaign from the spec: kernels (.cu), the case file, the kernel list.

    python3 campaigns/gen_wgmma.py            # writes campaigns/build/
    python3 campaigns/gen_wgmma.py --quick    # a handful of kernels, to try the flow

Each kernel runs one variant with fixed immediates on one warpgroup; every runtime choice (the
shared-memory image, registers, descriptors, scale-d) comes from the case file, so one kernel
serves many cases: all swizzle modes, both LBO/SBO arrangements, directed and random inputs.
The asm statement of each kernel is built from the variant's operand list (constraint letters from
the operand's register type). Descriptors and shared-memory images are built with
ptxspec.smem from the spec's formulas; A, C and metadata registers with the variant's maps.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wgmma_harness as H  # noqa: E402
from ptxspec.model import smem as S  # noqa: E402
from wgmma_harness import SEG_DATA, SEG_RAND, TARGET, THREADS, Case, Segment  # noqa: E402

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"
SEED = 20261122

FLOAT_N = (8, 72, 256)
INT_N = (8, 64, 256)
DIRECTED_N = (64, 72)

CONSTRAINT = {"f32": "f", "b32": "r", "s32": "r", "u32": "r", "b64": "l"}
CTYPE = {"f": "float", "r": "uint32_t", "l": "uint64_t"}


# ---------------------------------------------------------------------------------------------
# The plan: which kernels (variant + immediates)


def _k(spec, ptx: str, form: str, **imm) -> dict:
    v = spec.variant(ptx, form)
    names = {o.name for o in v.operands}
    full = {}
    for name, default in (("imm_scale_a", 1), ("imm_scale_b", 1), ("imm_trans_a", 0), ("imm_trans_b", 0),
                          ("sp_sel", 0)):
        if name in names:
            full[name] = imm.pop(name, default)
    if imm:
        raise ValueError(f"{v.id} has no operands {sorted(imm)}")
    return {"variant": v.id, "imm": full}


def plan_kernels(spec, quick: bool = False) -> list[dict]:
    ks = []
    add = lambda ptx, form, **imm: ks.append(_k(spec, ptx, form, **imm))  # noqa: E731
    D, SP = "wgmma.mma_async.sync.aligned", "wgmma.mma_async.sp.sync.aligned"

    # dense f16 / bf16: both majors of A (descriptor form) and B, scales on a sample
    for at, dt in (("f16", "f32"), ("f16", "f16"), ("bf16", "f32")):
        for n in FLOAT_N:
            p = f"{D}.m64n{n}k16.{dt}.{at}.{at}"
            for tb in (0, 1):
                add(p, "reg", imm_trans_b=tb)
            for ta in (0, 1):
                for tb in (0, 1):
                    add(p, "desc", imm_trans_a=ta, imm_trans_b=tb)
            if n == 72:
                add(p, "reg", imm_scale_a=-1, imm_trans_b=1)
                add(p, "desc", imm_scale_b=-1, imm_trans_a=1)
                add(p, "desc", imm_scale_a=-1, imm_scale_b=-1)
    # dense tf32
    for n in FLOAT_N:
        p = f"{D}.m64n{n}k8.f32.tf32.tf32"
        add(p, "reg")
        add(p, "desc")
        if n == 72:
            add(p, "reg", imm_scale_a=-1)
            add(p, "desc", imm_scale_b=-1)
    # dense fp8: all four pairs at N=72, two at N=8 and 256; both accumulators
    pairs = (("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2"), ("e5m2", "e4m3"))
    for n in FLOAT_N:
        for at, bt in (pairs if n == 72 else pairs[::3]):
            for dt in ("f16", "f32"):
                p = f"{D}.m64n{n}k32.{dt}.{at}.{bt}"
                add(p, "reg")
                add(p, "desc")
    add(f"{D}.m64n72k32.f32.e4m3.e5m2", "reg", imm_scale_a=-1)
    add(f"{D}.m64n72k32.f16.e5m2.e4m3", "desc", imm_scale_a=-1, imm_scale_b=-1)
    # dense integer: all pairs with and without .satfinite at N=64, a sample at 8 and 256
    ipairs = [(a, b, s) for a in ("s8", "u8") for b in ("s8", "u8") for s in (False, True)]
    for n in INT_N:
        sel = ipairs if n == 64 else ([("s8", "u8", False), ("u8", "u8", True)] if n == 8
                                      else [("s8", "s8", False), ("u8", "s8", True)])
        for at, bt, sat in sel:
            p = f"{D}.m64n{n}k32{'.satfinite' if sat else ''}.s32.{at}.{bt}"
            add(p, "reg")
            add(p, "desc")
    # dense b1
    for n in INT_N:
        p = f"{D}.m64n{n}k256.s32.b1.b1.and.popc"
        add(p, "reg")
        add(p, "desc")

    # sparse f16 / bf16: both selectors, both majors
    for at, dt in (("f16", "f32"), ("f16", "f16"), ("bf16", "f32")):
        for n in FLOAT_N:
            p = f"{SP}.m64n{n}k32.{dt}.{at}.{at}"
            add(p, "reg", sp_sel=0, imm_trans_b=0)
            add(p, "reg", sp_sel=1, imm_trans_b=1)
            add(p, "desc", sp_sel=0, imm_trans_a=1, imm_trans_b=0)
            add(p, "desc", sp_sel=1, imm_trans_a=0, imm_trans_b=1)
            if n == 72:
                add(p, "desc", sp_sel=0, imm_trans_a=0, imm_trans_b=0)
                add(p, "desc", sp_sel=1, imm_trans_a=1, imm_trans_b=1, imm_scale_a=-1)
    # sparse tf32
    for n in FLOAT_N:
        p = f"{SP}.m64n{n}k16.f32.tf32.tf32"
        for sel in (0, 1):
            add(p, "reg", sp_sel=sel)
            add(p, "desc", sp_sel=sel)
        if n == 72:
            add(p, "reg", sp_sel=1, imm_scale_b=-1)
    # sparse fp8
    for n in FLOAT_N:
        for at, bt in (pairs if n == 72 else pairs[::3]):
            for dt in ("f16", "f32"):
                p = f"{SP}.m64n{n}k64.{dt}.{at}.{bt}"
                add(p, "reg")
                add(p, "desc")
    add(f"{SP}.m64n72k64.f32.e4m3.e4m3", "desc", imm_scale_a=-1, imm_scale_b=-1)
    # sparse integer
    for n in INT_N:
        sel = ipairs if n == 64 else ([("s8", "u8", False), ("u8", "u8", True)] if n == 8
                                      else [("s8", "s8", False), ("u8", "s8", True)])
        for at, bt, sat in sel:
            p = f"{SP}.m64n{n}k64{'.satfinite' if sat else ''}.s32.{at}.{bt}"
            add(p, "reg")
            add(p, "desc")
    if quick:
        keep = [0, 2, 6, 9]
        ks = [ks[i] for i in keep] + [k for k in ks if ".sp." in k["variant"]][:2] + \
             [k for k in ks if "b1" in k["variant"]][:2]
    for i, k in enumerate(ks):
        k["id"] = i
    return ks


# ---------------------------------------------------------------------------------------------
# Kernel source


def kernel_source(spec, k: dict) -> str:
    vid, form = k["variant"].rsplit(":", 1)
    v = spec.variant(vid, form)
    name = f"wg_k{k['id']}"
    outs, ins = [], []
    loads, stores = [], []
    n_d = v.operand("d").regs

    def new_in(constraint, expr):
        ins.append(f'"{constraint}"({expr})')
        return len(ins) - 1  # index among inputs; fixed up after outputs are known

    pieces = []  # asm operand text, with ("in", idx) markers
    pred_idx = None
    for o in v.operands:
        if o.kind == "fragment" and o.io == "inout":
            c = CONSTRAINT[o.reg_type]
            names = []
            for r in range(o.regs):
                var = f"d{r}"
                if c == "f":
                    loads.append(f"  float {var} = __uint_as_float(cr[tid * {o.regs} + {r}]);")
                    stores.append(f"  out[tid * {o.regs} + {r}] = __float_as_uint({var});")
                else:
                    loads.append(f"  uint32_t {var} = cr[tid * {o.regs} + {r}];")
                    stores.append(f"  out[tid * {o.regs} + {r}] = {var};")
                outs.append(f'"+{c}"({var})')
                names.append(("out", len(outs) - 1))
            pieces.append(("list", names))
        elif o.kind == "fragment":
            names = []
            for r in range(o.regs):
                var = f"a{r}"
                loads.append(f"  uint32_t {var} = ar[tid * {o.regs} + {r}];")
                names.append(("in", new_in(CONSTRAINT[o.reg_type], var)))
            pieces.append(("list", names))
        elif o.kind == "descriptor":
            expr = "adesc" if o.matrix == "a" else "bdesc"
            pieces.append(("one", ("in", new_in("l", expr))))
        elif o.kind == "metadata":
            loads.append("  uint32_t meta = mr[tid];")
            pieces.append(("one", ("in", new_in("r", "meta"))))
        elif o.kind == "predicate":
            pred_idx = new_in("r", "scale_d")
            pieces.append(("text", "p"))
        elif o.kind in ("immediate", "selector"):
            pieces.append(("one", ("in", new_in("n", str(k["imm"][o.name])))))
        else:
            raise ValueError(f"operand kind {o.kind}")

    def ref(m):
        where, i = m
        return f"%{i if where == 'out' else len(outs) + i}"

    ops = []
    for kind, x in pieces:
        if kind == "list":
            ops.append("{" + ", ".join(ref(m) for m in x) + "}")
        elif kind == "one":
            ops.append(ref(x))
        else:
            ops.append(x)
    lines = ["{", ".reg .pred p;"]
    if pred_idx is not None:
        lines.append(f"setp.ne.b32 p, %{len(outs) + pred_idx}, 0;")
    lines.append(f"{v.ptx} {', '.join(ops)};")
    lines.append("}")
    asm_text = "\\n".join(lines)
    fence = [f"  asm volatile(\"\" : \"+{CONSTRAINT[v.operand('d').reg_type]}\"(d{r}) :: \"memory\");"
             for r in range(n_d)]
    if v.form == "reg":
        fence_a = [f"  asm volatile(\"\" : \"+r\"(a{r}) :: \"memory\");" for r in range(v.operand("a").regs)]
    else:
        fence_a = []
    body = [
        f"// {k['variant']}  {json.dumps(k['imm'])}",
        f"extern \"C\" __global__ void __launch_bounds__(128, 1) {name}(KARGS)",
        "{",
        "  const uint32_t tid = threadIdx.x;",
        "  if (!load_image(img, img_bytes, status)) return;",
        *loads,
        *fence,
        *fence_a,
        "  asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");",
        f"  asm volatile(\"{asm_text}\\n\"",
        "    : " + ", ".join(outs),
        "    : " + ", ".join(ins) + ");",
        "  asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");",
        "  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");",
        *fence,
        *stores,
        "}",
        "",
    ]
    return "\n".join(body)


PRELUDE = r"""// Generated by campaigns/gen_wgmma.py from the ptxspec model. Do not edit.
#include <cstdint>
#include <cuda_runtime.h>

#define TARGET %(target)d
#define KARGS const uint8_t* __restrict__ img, uint32_t img_bytes, const uint32_t* __restrict__ ar, \
    const uint32_t* __restrict__ cr, const uint32_t* __restrict__ mr, uint64_t adesc, uint64_t bdesc, \
    uint32_t scale_d, uint32_t* __restrict__ out, uint32_t* __restrict__ status

extern __shared__ __align__(1024) uint8_t g_smem[];

// Copy the image so that its byte 0 lies at shared address TARGET, then make the writes visible
// to the async proxy that wgmma reads shared memory through.
static __device__ __forceinline__ bool load_image(const uint8_t* img, uint32_t nbytes, uint32_t* status)
{
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(g_smem);
  if (threadIdx.x == 0) status[0] = base;
  if (base > TARGET) return false;
  uint8_t* dst = g_smem + (TARGET - base);
  for (uint32_t j = threadIdx.x * 16; j < nbytes; j += 128 * 16)
    *(uint4*)(dst + j) = *(const uint4*)(img + j);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  return true;
}

"""


def write_sources(spec, kernels: list[dict], out: Path, parts: int):
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("wgmma_kernels_*.cu"):
        old.unlink()
    chunks = [kernels[i::parts] for i in range(parts)]
    for p, chunk in enumerate(chunks):
        src = [PRELUDE % {"target": TARGET}]
        for k in chunk:
            src.append(kernel_source(spec, k))
        src.append(f"void wgmma_register_{p}(void** table)\n{{")
        for k in chunk:
            src.append(f"  table[{k['id']}] = (void*)wg_k{k['id']};")
        src.append("}\n")
        (out / f"wgmma_kernels_{p}.cu").write_text("\n".join(src))
    hdr = [f"#define NKERNELS {len(kernels)}", f"#define NPARTS {parts}"]
    hdr += [f"void wgmma_register_{p}(void** table);" for p in range(parts)]
    hdr.append("static void wgmma_register_all(void** table) {")
    hdr += [f"  wgmma_register_{p}(table);" for p in range(parts)]
    hdr.append("}")
    (out / "wgmma_parts.h").write_text("\n".join(hdr) + "\n")


# ---------------------------------------------------------------------------------------------
# Cases


def _offsets(v, matrix: str, major: str, mode, choice: int) -> tuple[int, int, int]:
    """(LBO, SBO, start offset) in bytes for an operand, with gaps so a wrong field shows."""
    rows, cols = S.operand_shape(v, matrix)
    mn, k = (rows, cols) if matrix == "a" else (cols, rows)
    bits = S.element_bits(v, matrix)
    W = mode.width
    if major == "K":
        groups = -(-mn // 8)
        if mode.b == 0:  # 8x16-byte core matrices: mn groups of 8 (SBO), 16-byte K chunks (LBO)
            kchunks = -(-k * bits // 128)
            return (128, kchunks * 128 + 128, 0) if choice == 0 else (groups * 128 + 256, 128, 0)
        kbytes = k * bits // 8
        if kbytes > W:  # K longer than a swizzle row (sparse B, 32B mode): the next W bytes of K at +LBO
            return (8 * W * (groups + 1), 8 * W, 0) if choice == 0 else (8 * W, 16 * W, 0)
        slices = W // kbytes  # K slices of this wgmma that fit in one swizzle row
        if choice == 0:
            return 16, 8 * W, 0
        return 0x1230, 16 * W, (slices - 1) * kbytes  # LBO unused; start advanced along K
    if mode.b == 0:  # MN-major interleaved: 16-byte MN groups (SBO), 8-row K groups (LBO)
        groups = -(-mn * bits // 128)
        kgroups = -(-k // 8)
        return (groups * 128 + 128, 128, 0) if choice == 0 else (128, kgroups * 128 + 128, 0)
    atoms = -(-mn * bits // (8 * W))  # MN-major swizzled: W-byte MN atoms (LBO), 8-row K groups (SBO)
    kgroups = -(-k // 8)
    return (8 * W, 8 * W * (atoms + 1), 0) if choice == 0 else (8 * W * (kgroups + 1), 8 * W, 0)


def _k_longer_than_row(v, matrix, major, mode) -> bool:
    rows, cols = S.operand_shape(v, matrix)
    k = cols if matrix == "a" else rows
    return major == "K" and mode.b > 0 and k * S.element_bits(v, matrix) // 8 > mode.width


def _region(v, matrix, major, mode, choice, cursor, shift=0, base_offset=0):
    lbo, sbo, adv = _offsets(v, matrix, major, mode, choice)
    start = TARGET + cursor + adv + shift
    lay = S.operand_layout(v, matrix, major, mode.name, start, lbo, sbo)
    lo, hi = lay.span()
    if _k_longer_than_row(v, matrix, major, mode):
        hi = max(hi, start + lbo + 8 * mode.width * (-(-lay.shape[1 if matrix == "b" else 0] // 8)))
    else:
        flat = lay.byte * 8 + lay.bit
        assert np.unique(flat).size == flat.size, (v.id, matrix, major, mode.name, choice)
    assert lo >= TARGET + cursor
    end = -(-(hi - TARGET) // 1024) * 1024
    desc = S.descriptor_for(v, start, lbo, sbo, mode.name, base_offset)
    return desc, (mode.name, start, lbo, sbo), cursor, end


def _ebits(spec, t):
    return spec.types[t].bits


def _in_alpha(v, t, kind):
    """Alphabet and slot width of an A/B element type for a case kind."""
    spec = v.spec
    if t == "b1":
        return "bytes", 8
    if spec.types[t].cls == "int":
        return "bytes", 8
    return (f"any:{t}" if kind in ("a-onehot", "b-onehot") else f"small:{t}"), _ebits(spec, t)


class CaseBuilder:
    def __init__(self, spec, seed: int = SEED):
        self.spec = spec
        self.seed = seed
        self.cases: list[Case] = []
        self.alphabets: dict[str, list[int]] = {}

    def alpha(self, name):
        if name not in self.alphabets:
            self.alphabets[name] = H.alphabet(self.spec, name)
        return name, tuple(self.alphabets[name])

    def rand(self, offset, nbytes, seed, alpha_name, slot_bits, junk=0):
        name, codes = self.alpha(alpha_name)
        return Segment(offset, nbytes, SEG_RAND, seed, slot_bits, junk, name, codes)

    def add(self, k: dict, modes: tuple, choice: int, scale_d: int, kind: str = "random", meta: str = "meta-ordered",
            junk: bool = False, cfill: str | None = None, note: str = "", b_shift: int = 0, b_base: int = 0):
        spec = self.spec
        vid, form = k["variant"].rsplit(":", 1)
        v = spec.variant(vid, form)
        idx = len(self.cases)
        seed = self.seed * 1_000_003 + idx * 64
        imm = k["imm"]
        amaj = "MN" if imm.get("imm_trans_a") else "K"
        bmaj = "MN" if imm.get("imm_trans_b") else "K"
        amode, bmode = (S.swizzle_mode(spec, m, "wgmma") for m in modes)
        if kind != "open-k-row" and _k_longer_than_row(v, "b", bmaj, bmode):
            names = [m.name for m in spec.smem[v.family].swizzle_modes]
            bmode = S.swizzle_mode(spec, names[(names.index(bmode.name) + 1) % len(names)], "wgmma")
            modes = (modes[0], bmode.name)
        segs = {"img": [], "a": [], "c": [], "meta": []}
        cursor = 0
        a_desc = 0
        a_alpha, a_slot = _in_alpha(v, v.atype, kind)
        b_alpha, b_slot = _in_alpha(v, v.btype, kind)
        tf = spec.types["tf32"]
        junk_a = ((1 << (tf.bits - 1 - tf.format["exponent"] - tf.format["mantissa"])) - 1) \
            if junk and v.atype == "tf32" else 0
        junk_b = junk_a if v.btype == "tf32" else 0
        regions = []
        if form == "desc":
            a_desc, alay, lo, cursor = _region(v, "a", amaj, amode, choice & 1, cursor)
            regions.append(("a", alay, lo, cursor, a_alpha, a_slot, junk_a))
        b_desc, blay, lo, cursor = _region(v, "b", bmaj, bmode, (choice >> 1) & 1, cursor, b_shift, b_base)
        regions.append(("b", blay, lo, cursor, b_alpha, b_slot, junk_b))
        img_bytes = cursor
        n_a = v.operand("a").regs if form == "reg" else 0
        n_d = v.operand("d").regs
        image = None
        for j, (mat, lay, lo, hi, an, sb, jm) in enumerate(regions):
            seg = self.rand(lo, hi - lo, seed + j, an, sb, jm)
            directed = (kind == "b-onehot" and mat == "b") or (kind == "a-onehot" and mat == "a")
            if not directed:
                segs["img"].append(seg)
                continue
            if image is None:
                image = bytearray(img_bytes)
            region = bytearray(seg.materialize().tobytes())
            S.write_matrix(region, v, mat, amaj if mat == "a" else bmaj, *lay, values=_onehot(v, mat),
                           origin=TARGET + lo)
            segs["img"].append(Segment(lo, hi - lo, SEG_DATA, data=bytes(region)))
        if form == "reg":
            nbytes = THREADS * n_a * 4
            if kind == "a-onehot":
                regs = v.pack("a", _onehot(v, "a"))
                segs["a"].append(Segment(0, nbytes, SEG_DATA, data=np.ascontiguousarray(regs, "<u4").tobytes()))
            else:
                segs["a"].append(self.rand(0, nbytes, seed + 8, a_alpha, a_slot, junk_a))
        dt = v.dtype
        if cfill is None:
            cfill = "zero" if kind in ("a-onehot", "b-onehot") else (f"cf:{dt}" if spec.types[dt].cls == "float"
                                                                     else "ci:s32")
        segs["c"].append(self.rand(0, THREADS * n_d * 4, seed + 9, cfill, _ebits(spec, dt)))
        if v.sparse:
            segs["meta"].append(self.rand(0, THREADS * 4, seed + 10, f"{meta}:{v.sparsity.name}", 4))
        case = Case(idx, k["id"], k["variant"], dict(imm), scale_d, a_desc, b_desc, img_bytes, n_a, n_d, v.sparse,
                    segs, kind, note or f"A {amaj} {modes[0] if form == 'desc' else '-'}, B {bmaj} {modes[1]}, "
                                         f"layout choice {choice}" + (", tf32 low bits random" if junk else "")
                    + (f", metadata {meta}" if v.sparse else ""))
        self.cases.append(case)
        return case


def _onehot(v, mat):
    """Raw codes of a selection matrix: B[k, n] = 1 where n % K == k; A[m, k] = 1 where k == m % K."""
    spec = v.spec
    t = v.atype if mat == "a" else v.btype
    one = 1 if spec.types[t].cls != "float" else int(H.alphabet(spec, f"small:{t}")[H.SMALL.index(1.0)])
    rows, cols = S.operand_shape(v, mat)
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    sel = (c % rows == r) if mat == "b" else (c == r % cols)
    return np.where(sel, one, 0).astype(np.uint64)


def plan_cases(spec, kernels: list[dict], seed: int = SEED, only_open: frozenset = frozenset(),
               also_open_choice: bool = False, base_offsets=((256, 0), (256, 2), (512, 0), (512, 4)),
               base_modes=("128B",)) -> CaseBuilder:
    """Cases for each kernel. Kernels whose id is in `only_open` get only their open-k-row cases."""
    cb = CaseBuilder(spec, seed)
    names = [m.name for m in spec.smem["wgmma"].swizzle_modes]
    for kc, k in enumerate(kernels):
        if k["id"] in only_open:
            vid, form = k["variant"].rsplit(":", 1)
            v = spec.variant(vid, form)
            bmaj = "MN" if k["imm"].get("imm_trans_b") else "K"
            for m in names:
                if _k_longer_than_row(v, "b", bmaj, S.swizzle_mode(spec, m, "wgmma")):
                    for ch in (0, 2):
                        cb.add(k, (names[kc % 4], m), choice=ch, scale_d=1, kind="open-k-row",
                               note=f"B K-major {m}: K ({v.k} elements) is longer than one swizzle row, "
                                    f"layout choice {ch}")
            continue
        vid, form = k["variant"].rsplit(":", 1)
        v = spec.variant(vid, form)
        if v.n == 256:
            order = [names[kc % 4], names[(kc + 2) % 4]]
        else:
            order = names
        bmaj = "MN" if k["imm"].get("imm_trans_b") else "K"
        open_b = [m for m in names if _k_longer_than_row(v, "b", bmaj, S.swizzle_mode(spec, m, "wgmma"))]
        for i, m in enumerate(order):
            other = names[(names.index(m) + (kc % 3)) % 4]  # A's mode differs from B's on some kernels
            cb.add(k, (other, m), choice=(i + kc) % 4, scale_d=(i + kc) % 2)
        for m in open_b:
            for ch in ((0,) if not also_open_choice else (0, 2)):
                cb.add(k, (names[kc % 4], m), choice=ch, scale_d=1, kind="open-k-row",
                       note=f"B K-major {m}: K ({v.k} elements) is longer than one swizzle row, "
                            f"layout choice {ch}")
        if v.sparse and len(v.sparsity.valid_nibbles) > len(H.alphabet(spec, f"meta-ordered:{v.sparsity.name}")):
            cb.add(k, (names[kc % 4], names[(kc + 1) % 4]), choice=kc % 4, scale_d=1, meta="meta")
        if v.atype == "tf32":
            cb.add(k, (names[(kc + 1) % 4], names[kc % 4]), choice=(kc + 1) % 4, scale_d=1, junk=True)
        if spec.types[v.dtype].cls == "int" and v.atype != "b1":
            cb.add(k, (names[(kc + 3) % 4], names[(kc + 1) % 4]), choice=kc % 4, scale_d=1, cfill="sat:s32",
                   kind="satfinite")
        if v.n in DIRECTED_N or (v.atype == "b1" and v.n == 256):
            cb.add(k, (names[kc % 4], names[(kc + 1) % 4]), choice=kc % 4, scale_d=1, kind="b-onehot")
            if not v.sparse:
                cb.add(k, (names[(kc + 2) % 4], names[(kc + 3) % 4]), choice=(kc + 2) % 4, scale_d=0,
                       kind="a-onehot")
    # Swizzled B whose start is not on its pattern's boundary, with base_offset 0 and with the
    # base_offset the spec's description suggests: the spec's layout swizzles absolute addresses.
    by_id = {(k["variant"], json.dumps(k["imm"], sort_keys=True)): k for k in kernels}
    explore = [("wgmma.mma_async.sync.aligned.m64n72k16.f32.f16.f16:desc", {"imm_trans_a": 0, "imm_trans_b": 0}),
               ("wgmma.mma_async.sync.aligned.m64n72k16.f32.f16.f16:desc", {"imm_trans_a": 0, "imm_trans_b": 1}),
               ("wgmma.mma_async.sync.aligned.m64n72k32.f32.e4m3.e4m3:desc", {})]
    for vid, imm in explore:
        full = {"imm_scale_a": 1, "imm_scale_b": 1, **imm} if "f16" in vid else {"imm_scale_a": 1, "imm_scale_b": 1}
        k = by_id.get((vid, json.dumps(full, sort_keys=True)))
        if k is None:
            continue
        for mode in base_modes:
            rep = S.swizzle_mode(spec, mode, "wgmma").repeat
            for shift, base in base_offsets:
                cb.add(k, ("none", mode), choice=0, scale_d=1, kind="explore-base", b_shift=shift % rep,
                       b_base=base, note=f"B {mode} starting {shift % rep} bytes into its {rep}-byte pattern, "
                                         f"base_offset {base}")
    return cb


def plan_fix(spec):
    """The follow-up campaign: new seeds for the sparse 8-bit kernels (metadata map), the K-major
    32B-swizzled sparse B with two LBO/SBO arrangements, and the base offset in every swizzle mode."""
    allk = plan_kernels(spec)
    keep = []
    only_open = set()
    for k in allk:
        vid, form = k["variant"].rsplit(":", 1)
        v = spec.variant(vid, form)
        if v.sparse and v.sparsity.name.endswith("8bit"):
            keep.append(k)
        elif v.sparse and v.n == 72 and not k["imm"].get("imm_trans_b"):
            keep.append(k)
            only_open.add(k["id"])
        elif not v.sparse and v.n == 72 and v.atype == "f16" and v.dtype == "f32" and form == "desc" \
                and k["imm"].get("imm_scale_a") == 1 and k["imm"].get("imm_scale_b") == 1 \
                and not k["imm"].get("imm_trans_a"):
            keep.append(k)
    for i, k in enumerate(keep):
        k["old_id"] = k["id"]
        k["id"] = i
    only_open = frozenset(k["id"] for k in keep if k["old_id"] in only_open)
    combos = ((0, 1), (0, 3), (128, 1), (128, 0), (256, 2), (384, 3), (256, 5), (640, 5), (896, 7))
    cb = plan_cases(spec, keep, seed=SEED + 1, only_open=only_open, also_open_choice=True,
                    base_offsets=combos, base_modes=("128B", "64B", "32B"))
    return keep, cb


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=BUILD)
    ap.add_argument("--parts", type=int, default=8, help="split the kernels over this many .cu files")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--campaign", choices=("main", "fix"), default="main",
                    help="main: the full campaign (build/); fix: the follow-up of 2026-11-22 (build/fix/)")
    args = ap.parse_args(argv)
    import ptxspec
    spec = ptxspec.load()
    if args.campaign == "fix":
        if args.out == BUILD:
            args.out = BUILD / "fix"
        kernels, cb = plan_fix(spec)
    else:
        kernels = plan_kernels(spec, args.quick)
        cb = plan_cases(spec, kernels)
    write_sources(spec, kernels, args.out, min(args.parts, len(kernels)))
    H.write_case_file(args.out / "cases.bin", cb.cases)
    (args.out / "kernels.json").write_text(json.dumps(kernels, indent=0))
    (args.out / "alphabets.json").write_text(json.dumps(cb.alphabets))
    (args.out / "cases.json").write_text(json.dumps([{"index": c.index, "kind": c.kind, "note": c.note}
                                                     for c in cb.cases], indent=0))
    out_bytes = sum(THREADS * c.n_d * 4 + 16 for c in cb.cases)
    print(f"{len(kernels)} kernels, {len(cb.cases)} cases, case file "
          f"{(args.out / 'cases.bin').stat().st_size / 1e6:.2f} MB, output {out_bytes / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
