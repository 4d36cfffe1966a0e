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
WG_B_OFFSET = 0x3800  # wgmma's B (K-major, no swizzle), after everything else


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
    from ptxspec.expr import compile_formula
    r = loader(v, op, mv, direction)
    names = frozenset({"lane", "i", "warp"})
    rowf, colf = compile_formula(r.row, names), compile_formula(r.col, names)
    rows_named = 8 * sum(1 for _ in range(1))  # one 8-row matrix per register of an m8n8 form
    form_regs = spec.variant(r.variants[0]).regs["r"]
    rows_named = (16 if ".m16n16." in r.form else 8) * (form_regs // (2 if ".m16n16." in r.form else 1))
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
        mats["b"] = matrix_codes(spec, v, s, "b", case)
        from ptxspec import smem
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
