"""End-to-end samples taken from the model's fragment_loaders table (the second ldmatrix campaign).

Where ldmatrix_e2e.py writes its loaders by hand, these take them from `Variant.loaders()`: for each
operand the sample names a storage and which of the table's rows to run (the fewest runs, or the
row with a given number of runs), and every lane's address is the row's `row`/`col` formulas,
evaluated as written. The kernel runs the form as many times as the row says, multiplies
(mma, mma.sp with random valid metadata, or wgmma with A from registers), and returns every
loaded register and D; a stored operand (D) goes back through stmatrix. The hardware then judges
the table: the loaded registers must be the spec's fragments of the stored matrices, D the spec's
executor on them, the stored tile D as the row says.

Inputs: A, B (and a loaded C) from exact alphabets, stored with padded rows; C registers, where C is
not loaded, and the metadata drawn slot by slot; all by SplitMix64 from seeds that hash the sample's
name (ldmatrix_harness.seed_for).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ldmatrix_e2e as e2e  # noqa: E402
from ldmatrix_harness import IMAGE_BYTES, Job, seed_for, splitmix  # noqa: E402

CASES = 3
OFFSETS = {"a": 0x100, "b": 0x1400, "c": 0x2400, "d": 0x3000}
WG_B_OFFSET = 0x3C00  # wgmma's B (K-major, no swizzle), after everything else


@dataclass(frozen=True)
class Move:
    storage: str       # row | col
    ld: int            # stored row pitch, elements
    runs: int = 0      # which table row: 0 the fewest runs, else the row with this many


@dataclass(frozen=True)
class TSample:
    name: str
    variant: str
    form: str = ""     # "reg": wgmma with A from registers
    loads: dict = field(default_factory=dict)   # operand -> Move
    stores: dict = field(default_factory=dict)  # operand -> Move (D)

    @property
    def threads(self) -> int:
        return 128 if self.form == "reg" else 32


MMA = "mma.sync.aligned"
SP = "mma.sp::ordered_metadata.sync.aligned"
SAMPLES = [
    TSample("t-k16-f16-x1runs", f"{MMA}.m16n8k16.row.col.f32.f16.f16.f32",
            loads={"a": Move("row", 24, 4), "b": Move("row", 16, 2)}),
    TSample("t-k16-f16acc-loadC-storeD", f"{MMA}.m16n8k16.row.col.f16.f16.f16.f16",
            loads={"a": Move("col", 24), "b": Move("col", 24), "c": Move("row", 16)}, stores={"d": Move("col", 24)}),
    TSample("t-k4-tf32", f"{MMA}.m16n8k4.row.col.f32.tf32.tf32.f32", loads={"a": Move("row", 8), "b": Move("col", 8)}),
    TSample("t-k64-s4", f"{MMA}.m16n8k64.row.col.s32.s4.s4.s32", loads={"a": Move("row", 160), "b": Move("col", 96)}),
    TSample("t-k256-b1", f"{MMA}.m16n8k256.row.col.s32.b1.b1.s32.xor.popc",
            loads={"a": Move("row", 384), "b": Move("col", 512)}),
    TSample("t-sp-k32-f16", f"{SP}.m16n8k32.row.col.f32.f16.f16.f32", loads={"a": Move("row", 24), "b": Move("col", 40)}),
    TSample("t-sp-k32-bf16-colB", f"{SP}.m16n8k32.row.col.f32.bf16.bf16.f32",
            loads={"a": Move("row", 16), "b": Move("row", 16)}),
    TSample("t-sp-k64-s8", f"{SP}.m16n8k64.row.col.s32.s8.s8.s32", loads={"a": Move("row", 48), "b": Move("col", 80)}),
    TSample("t-sp-k16-tf32", f"{SP}.m16n8k16.row.col.f32.tf32.tf32.f32",
            loads={"a": Move("row", 12), "b": Move("col", 20)}),
    TSample("t-wgmma-k16-f16acc-storeD", "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "reg",
            loads={"a": Move("row", 24)}, stores={"d": Move("row", 24)}),
    TSample("t-wgmma-k32-e4m3", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "reg",
            loads={"a": Move("row", 48)}),
]


def variant_of(spec, s: TSample):
    return spec.variant(s.variant, form=s.form or None)


def loader(v, op: str, mv: Move, direction: str):
    rows = [r for r in v.loaders(op) if r.storage == mv.storage and r.direction == direction and r.status == "ok"]
    rows = [r for r in rows if not mv.runs or r.instructions == mv.runs]
    if not rows:
        raise ValueError(f"{v.id}: the table has no {direction} of {op} from a {mv.storage} tile with {mv.runs} runs")
    return rows[0]


def elem_bits(spec, v, op: str) -> int:
    return v.fragment_map(op).bits


def offsets(spec, v, s: TSample, op: str, mv: Move, direction: str) -> np.ndarray:
    """(threads, runs) byte offsets in the window: the table row's formulas, lanes past the form's
    rows repeating the lower lanes' (the manual's advice for sm_75)."""
    from ptxspec.core.expr import compile_formula
    r = loader(v, op, mv, direction)
    names = frozenset({"lane", "i", "warp"})
    rowf, colf = compile_formula(r.row, names), compile_formula(r.col, names)
    form = spec.variant(r.variants[0])
    rows_named = form.fragment_map(next(iter(form.fragment_layouts))).rows  # lanes that give a row
    bits = elem_bits(spec, v, op)
    out = np.zeros((s.threads, r.instructions), np.int64)
    for tid in range(s.threads):
        warp, lane = divmod(tid, 32)
        for i in range(r.instructions):
            lz = lane % rows_named
            row, col = int(rowf(lane=lz, i=i, warp=warp)), int(colf(lane=lz, i=i, warp=warp))
            out[tid, i] = OFFSETS[op] + (row * mv.ld * bits + col * bits) // 8
    return out


def matrix_codes(spec, v, s: TSample, op: str, case: int) -> np.ndarray:
    """The raw codes of the operand's matrix as its fragment map indexes it (sparse A: packed)."""
    from mma_harness import alphabet
    fm = v.fragment_map(op)
    t = v.element_type(op)
    cls = spec.types[t].cls
    name = ("int" if cls in ("int", "bit") else "small") if op in "ab" else ("ci" if cls == "int" else "cf")
    alpha = np.asarray(alphabet(spec, f"{name}:{t}"), np.uint64)
    z = splitmix(seed_for(s.name, case, op), fm.rows * fm.cols)
    return alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))].reshape(fm.rows, fm.cols)


def store_tile(window: np.ndarray, codes: np.ndarray, storage: str, ld: int, offset: int, bits: int):
    m = codes if storage == "row" else codes.T
    rows, cols = m.shape
    if bits >= 8:
        eb = bits // 8
        for r in range(rows):
            for c in range(cols):
                a = offset + (r * ld + c) * eb
                window[a:a + eb] = np.frombuffer(int(m[r, c]).to_bytes(eb, "little"), np.uint8)
        return
    for r in range(rows):
        for c in range(cols):
            bit = offset * 8 + (r * ld + c) * bits
            byte, sh = divmod(bit, 8)
            window[byte] = (int(window[byte]) & ~(((1 << bits) - 1) << sh)) | (int(m[r, c]) << sh)


def meta_words(spec, v, s: TSample, case: int) -> np.ndarray:
    from mma_harness import alphabet
    kind = "meta-ordered" if v.metadata_order else "meta"
    alpha = np.asarray(alphabet(spec, f"{kind}:{v.sparsity.name}"), np.uint64)
    z = splitmix(seed_for(s.name, case, "e"), s.threads * 8)
    nib = alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))].reshape(s.threads, 8)
    return (nib << (np.arange(8, dtype=np.uint64) * np.uint64(4))).sum(axis=1, dtype=np.uint64).astype(np.uint32)


def case_inputs(spec, s: TSample, case: int, target: int) -> dict:
    v = variant_of(spec, s)
    window = np.full(IMAGE_BYTES, e2e.BACKGROUND, np.uint8)
    mats, ins, runs = {}, [], {}
    for op, mv in s.loads.items():
        mats[op] = matrix_codes(spec, v, s, op, case)
        store_tile(window, mats[op], mv.storage, mv.ld, OFFSETS[op], elem_bits(spec, v, op))
        off = offsets(spec, v, s, op, mv, "load")
        runs[op] = off.shape[1]
        ins.append(off.ravel())
    desc = None
    if s.form == "reg":
        from mma_harness import alphabet
        from ptxspec.model import smem
        rows, cols = smem.operand_shape(v, "b")
        alpha = np.asarray(alphabet(spec, f"{'int' if spec.types[v.btype].cls == 'int' else 'small'}:{v.btype}"),
                           np.uint64)
        z = splitmix(seed_for(s.name, case, "b"), rows * cols)
        mats["b"] = alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))].reshape(rows, cols)
        start = target + WG_B_OFFSET
        buf = bytearray(window.tobytes())
        smem.write_matrix(buf, v, "b", "K", "none", start, 128, 256, mats["b"], origin=target)
        window[:] = np.frombuffer(bytes(buf), np.uint8)
        desc = smem.descriptor_for(v, start, 128, 256, "none")
    acc = "c" if "c" in v.fragment_layouts else "d"
    C = None
    if acc not in s.loads:
        C = e2e.c_words(spec, v, e2e.Sample(s.name, s.variant, s.form, None, None), case)  # type: ignore[arg-type]
        ins.append(C.ravel())
    meta = meta_words(spec, v, s, case) if v.sparse else None
    if meta is not None:
        ins.append(meta)
    for op, mv in s.stores.items():
        off = offsets(spec, v, s, op, mv, "store")
        runs["st_" + op] = off.shape[1]
        ins.append(off.ravel())
    if desc is not None:
        ins.append(np.array([desc & 0xFFFFFFFF, desc >> 32], np.uint32))
    return {"variant": v, "mats": mats, "C": C, "meta": meta, "desc": desc, "window": window, "runs": runs,
            "inputs": np.concatenate([np.asarray(x).astype(np.uint32) for x in ins])}


def _regs(v, op: str) -> int:
    return [o.regs for o in v.operands if o.kind == "fragment" and o.matrix == op][0]


def kernel_source(kid: int, s: TSample) -> str:
    spec = e2e._spec()
    v = variant_of(spec, s)
    T = s.threads
    ci = case_inputs(spec, s, 0, 0x2000)
    runs = ci["runs"]
    body = [f"// {s.name}: {s.variant} {s.form}", f"extern \"C\" __global__ void __launch_bounds__({T}, 1) ldm_k{kid}(KARGS)",
            "{", "  uint8_t* win = place_image(img, img_bytes, status);", "  if (!win) return;",
            "  const uint32_t tid = threadIdx.x;", "  const uint32_t* p = in;"]
    regs = {op: _regs(v, op) for op in ("a", "b", "c", "d") if any(o.kind == "fragment" and o.matrix == op
                                                                    for o in v.operands)}
    for op in regs:
        body.append(f"  uint32_t {op}[{regs[op]}];")
    for op, mv in s.loads.items():
        r = loader(v, op, mv, "load")
        per = regs[op] // runs[op]
        for i in range(runs[op]):
            outs = ", ".join(f"\"=r\"({op}[{i * per + j}])" for j in range(per))
            rl = "{" + ", ".join(f"%{j}" for j in range(per)) + "}"
            form = next(x for x in r.variants if ".shared." in x and "::cta" not in x)  # 32-bit address
            body.append(f"  {{ const uint32_t at = TARGET + p[tid * {runs[op]} + {i}];")
            body.append(f"    asm volatile(\"{form} {rl}, [%{per}];\\n\" : {outs} : \"r\"(at) : \"memory\"); }}")
        body.append(f"  p += {T * runs[op]};")
    acc = "c" if "c" in v.fragment_layouts else "d"
    if acc not in s.loads:
        body.append(f"  for (int i = 0; i < {regs[acc]}; ++i) {acc}[i] = p[tid * {regs[acc]} + i];")
        body.append(f"  p += {T * regs[acc]};")
    if v.sparse:
        body += ["  const uint32_t e = p[tid];", f"  p += {T};"]
    st = {}
    for op, mv in s.stores.items():
        st[op] = loader(v, op, mv, "store")
        body += ["  const uint32_t* so = p;", f"  p += {T * runs['st_' + op]};"]
    if s.form == "reg":
        dtype_f32 = v.operand("d").reg_type == "f32"
        nd, na = regs["d"], regs["a"]
        body.append("  const uint64_t desc = (uint64_t)p[0] | ((uint64_t)p[1] << 32);")
        if dtype_f32:
            body.append(f"  float df[{nd}];")
            body.append(f"  for (int i = 0; i < {nd}; ++i) df[i] = __uint_as_float(d[i]);")
        body.append("  asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");")
        imms = [str(o.default) for o in v.operands if o.kind == "immediate"]  # scale 1, no transposition
        asm = (f"{{\\n.reg .pred q;\\nsetp.ne.b32 q, %{nd + na + 1}, 0;\\n{s.variant} "
               + "{" + ", ".join(f"%{j}" for j in range(nd)) + "}, {" + ", ".join(f"%{nd + j}" for j in range(na))
               + f"}}, %{nd + na}, q, {', '.join(imms)};\\n}}\\n")
        outs = ", ".join(f"\"+f\"(df[{j}])" if dtype_f32 else f"\"+r\"(d[{j}])" for j in range(nd))
        ins = ", ".join([f"\"r\"(a[{j}])" for j in range(na)] + ["\"l\"(desc)", "\"r\"(1)"])
        body.append(f"  asm volatile(\"{asm}\" : {outs} : {ins} : \"memory\");")
        body.append("  asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");")
        body.append("  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");")
        if dtype_f32:
            body.append(f"  for (int i = 0; i < {nd}; ++i) d[i] = __float_as_uint(df[i]);")
    else:
        pieces, outs, ins, k = [], [], [], 0
        for o in v.operands:
            if o.kind == "fragment" and o.io == "out":
                pieces.append("{" + ", ".join(f"%{k + j}" for j in range(o.regs)) + "}")
                outs += [f"\"=r\"({o.matrix}[{j}])" for j in range(o.regs)]
                k += o.regs
        for o in v.operands:
            if o.kind == "fragment" and o.io != "out":
                pieces.append("{" + ", ".join(f"%{k + j}" for j in range(o.regs)) + "}")
                ins += [f"\"r\"({o.matrix}[{j}])" for j in range(o.regs)]
                k += o.regs
            elif o.kind == "metadata":
                pieces.append(f"%{k}")
                ins.append("\"r\"(e)")
                k += 1
            elif o.kind == "selector":
                pieces.append("0")
        body.append(f"  asm volatile(\"{s.variant} {', '.join(pieces)};\\n\" : {', '.join(outs)} : {', '.join(ins)});")
    w = 0
    for op in list(s.loads) + ["d"]:
        body.append(f"  for (int i = 0; i < {regs[op]}; ++i) out[{w} + tid * {regs[op]} + i] = {op}[i];")
        w += T * regs[op]
    for op, r in st.items():
        n = runs["st_" + op]
        per = regs[op] // n
        form = next(x for x in r.variants if ".shared." in x and "::cta" not in x)
        for i in range(n):
            rl = "{" + ", ".join(f"%{1 + j}" for j in range(per)) + "}"
            ins = ", ".join(f"\"r\"({op}[{i * per + j}])" for j in range(per))
            body.append(f"  {{ const uint32_t at = TARGET + so[tid * {n} + {i}];")
            body.append(f"    asm volatile(\"{form} [%0], {rl};\\n\" :: \"r\"(at), {ins} : \"memory\"); }}")
    body += ["  give_back(win, smem_out, smem_back);", "}", ""]
    return "\n".join(body)


def out_words(v, s: TSample) -> int:
    return s.threads * sum(_regs(v, op) for op in list(s.loads) + ["d"])


def jobs(kid: int, s: TSample, target: int) -> list[Job]:
    spec = e2e._spec()
    out = []
    for c in range(CASES):
        ci = case_inputs(spec, s, c, target)
        back = IMAGE_BYTES if s.stores else 0
        out.append(Job(kid, s.threads, ci["window"], ci["inputs"], out_words(ci["variant"], s), back,
                       f"{s.name}#{c}", {"tsample": s.name, "case": c}))
    return out


def expected(spec, s: TSample, case: int, target: int) -> dict:
    """The loaded registers (the spec's fragments of the stored matrices), D (the executor) and the
    window after the stores."""
    ci = case_inputs(spec, s, case, target)
    v = ci["variant"]
    frags = {op: np.asarray(v.pack(op, ci["mats"][op]), np.uint32) for op in s.loads}
    acc = "c" if "c" in v.fragment_layouts else "d"
    accum = frags[acc] if acc in frags else ci["C"]
    if s.form == "reg":
        d = v.execute(d=accum, a=frags["a"], b_desc=ci["desc"], smem=ci["window"].tobytes(), smem_origin=target,
                      scale_d=1)  # the other immediates at their defaults: no negation, no transposition
    else:
        ops = {"a": frags["a"], "b": frags["b"], "c": accum}
        if v.sparse:
            ops.update(e=ci["meta"], f=0)
        d = v.execute(**ops)
    out = {"variant": v, "frags": frags, "d": np.asarray(d, np.uint32)}
    if s.stores:
        window = ci["window"].copy()
        for op, mv in s.stores.items():
            store_tile(window, np.asarray(v.unpack(op, out["d"]), np.uint64), mv.storage, mv.ld, OFFSETS[op],
                       elem_bits(spec, v, op))
        out["window_after"] = window
    out["words"] = np.concatenate([out["frags"][op].ravel() for op in s.loads] + [out["d"].ravel()])
    return out


def chain(v, s: TSample) -> list[str]:
    """The variant ids a sample runs."""
    ids = [next(x for x in loader(v, op, mv, "load").variants if ".shared." in x and "::cta" not in x)
           for op, mv in s.loads.items()]
    ids.append(v.id)
    ids += [next(x for x in loader(v, op, mv, "store").variants if ".shared." in x and "::cta" not in x)
            for op, mv in s.stores.items()]
    if s.form == "reg":
        ids += ["wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned"]
    return ids
