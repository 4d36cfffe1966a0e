"""The fragment-loader composition (ptxspec.model.fragment_loaders) against independent truth.

The movement maps here are transcribed from the manual's text (PTX ISA, ldmatrix/stmatrix:
"lanes 8j..8j+7 give the row addresses of matrix j", "each group of four threads receives a row",
"each thread loads 4 consecutive columns (across 2 rows for 16x16)", "e0 is the least significant
byte") and CuTe's SM75/SM100 copy atoms (campaigns/survey/ldmatrix.md), the mma fragments are the
spec's (H100-proven), and every derived loader is checked by *running* the movement: an emulator
reads a random tile from memory at the derived per-lane addresses and the registers must be the
spec's `pack` of that tile. The H100 end-to-end samples must come out of the derivation unchanged.
"""
from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from ptxspec.model import fragment_loaders as L

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "campaigns"))

NUMS = {"x1": 1, "x2": 2, "x4": 4}


def _grid(n_elems: int):
    return np.arange(32)[:, None], np.arange(n_elems)[None, :]


def m8n8(num: str, trans: bool) -> L.MovementMap:
    """ldmatrix/stmatrix .m8n8 .b16: lane t, element i = 2j + h (register j, half h)."""
    t, i = _grid(2 * NUMS[num])
    j, h = i // 2, i % 2
    row = 8 * j + (2 * (t % 4) + h if trans else t // 4)
    col = (t // 4 + 0 * i) if trans else 2 * (t % 4) + h
    return L.movement_map(f"m8n8.{num}{'.trans' if trans else ''}.b16", *np.broadcast_arrays(row, col), 16)


def m16n16(num: str, packed: int = 0, shift: int = 0) -> L.MovementMap:
    """ldmatrix .m16n16 .trans: element i = 8m + 4r + k (matrix m, its register r, byte k): row
    4q + k of matrix m (lanes 16m..16m+15), byte g + 8r."""
    t, i = _grid(8 * NUMS[num])
    m, r, k = i // 8, (i // 4) % 2, i % 4
    row, col = 16 * m + 4 * (t % 4) + k, t // 4 + 8 * r
    return L.movement_map(f"m16n16.{num}.trans/{packed}", *np.broadcast_arrays(row, col), 8, packed, shift)


def m8n16(num: str, packed: int, shift: int) -> L.MovementMap:
    """ldmatrix .m8n16: element i = 4j + k: element 4q + k of row g of matrix j."""
    t, i = _grid(4 * NUMS[num])
    j, k = i // 4, i % 4
    return L.movement_map(f"m8n16.{num}/{packed}", *np.broadcast_arrays(8 * j + t // 4, 4 * (t % 4) + k), 8,
                          packed, shift)


def m16n8_store(num: str) -> L.MovementMap:
    """stmatrix .m16n8 .trans .b8: byte b of register j to row 2q + (b & 1) of matrix j, byte g + 8 (b >> 1)."""
    t, i = _grid(4 * NUMS[num])
    j, b = i // 4, i % 4
    return L.movement_map(f"m16n8.{num}.trans.b8", *np.broadcast_arrays(8 * j + 2 * (t % 4) + (b & 1),
                                                                           t // 4 + 8 * (b >> 1)), 8)


LOADS = ([m8n8(n, t) for n in NUMS for t in (False, True)] + [m16n16(n) for n in ("x1", "x2")]
         + [m16n16(n, 6, 0) for n in ("x1", "x2")] + [m16n16(n, 4, 2) for n in ("x1", "x2")]
         + [m8n16(n, 6, 0) for n in NUMS] + [m8n16(n, 4, 2) for n in NUMS])
STORES = [m8n8(n, t) for n in NUMS for t in (False, True)] + [m16n8_store(n) for n in NUMS]


@pytest.fixture(scope="module")
def spec():
    import ptxspec
    return ptxspec.load()


@lru_cache(maxsize=None)
def _fragments(spec_id: int):
    """One variant per distinct fragment of mma, mma.sp and wgmma (A from registers)."""
    spec = _SPEC[spec_id]
    seen, out = set(), []
    for v in spec.variants:
        if v.family not in ("mma", "wgmma") or (v.family == "wgmma" and v.form != "reg"):
            continue
        for op, (lay, bits, _) in v.fragment_layouts.items():
            if v.family == "wgmma" and op != "a" and op != "d":
                continue
            key = (lay.name, bits, lay.shape_key(v.m, v.n, v.k), v.threads, getattr(v, f"{op}type"))
            if key not in seen:
                seen.add(key)
                out.append((v, op))
    return out


_SPEC: dict = {}


def fragments(spec):
    _SPEC[id(spec)] = spec
    return _fragments(id(spec))


def emulate(m: L.MovementMap, fb_threads: int, n: int, memory: np.ndarray, addr: np.ndarray) -> np.ndarray:
    """Run the movement: (threads, n * m.regs) register words read from `memory` (bytes) at the
    row addresses addr[thread, instruction] (bytes); padding bits read as 0."""
    bits = np.unpackbits(memory, bitorder="little")
    out = np.zeros((fb_threads, n * m.regs, 32), np.uint8)
    for w in range(fb_threads // 32):
        for k in range(n):
            rows = addr[32 * w:32 * w + 32, k]
            lane, rowbit = m.lane, m.rowbit
            src = np.where(lane >= 0, rows[np.maximum(lane, 0)] * 8 + rowbit, -1)
            out[32 * w:32 * w + 32, k * m.regs:(k + 1) * m.regs] = np.where(src >= 0, bits[np.maximum(src, 0)], 0)
    return np.packbits(out, axis=-1, bitorder="little").view("<u4")[..., 0]


def tile_memory(codes: np.ndarray, storage: L.Storage, width: int, packed: int, ld_bits: int, base: int):
    """The tile (codes, rows x cols) in memory: its rows (columns for `col`) ld_bits apart."""
    m = codes.T if storage.transposed else codes
    rows, cols = m.shape
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    at = base * 8 + r * ld_bits + ((c // 16) * 128 + (c % 16) * packed if packed else c * width)
    nb = packed or width
    bits = np.zeros(base * 8 + rows * ld_bits + 128, np.uint8)
    for b in range(nb):
        bits[at + b] = (m >> b) & 1
    return np.packbits(bits, bitorder="little")


def test_derived_loaders_move_the_fragments(spec):
    """Every derived loader of every distinct fragment, run by the emulator on a random tile,
    gives exactly the spec's registers of that tile (data bits)."""
    rng = np.random.default_rng(7)
    checked = 0
    for v, op in fragments(spec):
        fb = L.fragment_bits(v, op)
        if fb is None:
            continue
        forms = LOADS if op in "abc" else STORES
        for m in forms:
            for st in (L.ROW, L.COL):
                res = L.compose(fb, m, st)
                if not res.ok:
                    continue
                pos = np.asarray(v.fragment(op))
                rows, cols = int(pos[..., 0].max()) + 1, int(pos[..., 1].max()) + 1
                codes = rng.integers(0, 1 << fb.data_bits, size=(rows, cols))
                stored_cols = rows if st.transposed else cols
                row_bits = -(-stored_cols // 16) * 128 if m.packed else stored_cols * fb.width
                ld_bits = -(-row_bits // 128) * 128 + 128 * int(rng.integers(0, 3))
                base = 16 * int(rng.integers(0, 4))
                mem = tile_memory(codes << (0 if m.packed else fb.shift), st, fb.width, m.packed, ld_bits, base)
                addr = np.where(res.rows >= 0, base + (res.rows * ld_bits) // 8
                                + ((res.cols // 16) * 16 if m.packed else res.cols * fb.width // 8), 0)
                got = emulate(m, fb.threads, res.instructions, mem, addr)
                want = np.asarray(v.pack(op, (codes << fb.shift).astype(np.uint64)), np.uint32).reshape(got.shape)
                mask = np.zeros(got.shape, np.uint32)
                for b in range(32):
                    mask |= (fb.ebit[..., b] >= 0).astype(np.uint32) << np.uint32(b)
                assert np.array_equal(got & mask, want & mask), (v.id, op, m.opcode, st.name)
                checked += 1
    assert checked >= 400


def test_h100_samples_are_derived(spec):
    """The twelve loaders the H100 ran end to end come out of the derivation, address for address."""
    import ldmatrix_e2e as e2e
    rec = json.loads((HERE.parent / "evidence" / "records" / "ldmatrix-2026-11-23.json").read_text())
    by = {f.opcode: f for f in LOADS}
    for s in e2e.SAMPLES:
        assert all(c["a_is_fragment"] and c["b_is_fragment"] for c in rec["e2e"][s.name]["cases"])
        v = e2e.variant_of(spec, s)
        for op, load in (("a", s.a), ("b", s.b), ("d", s.d)):
            if load is None:
                continue
            form = by[f"m8n8.{load.num}{'.trans' if load.trans else ''}.b16"]
            res = L.compose(L.fragment_bits(v, op), form, L.ROW if load.storage == "row" else L.COL)
            assert res.ok and res.instructions == 1, (s.name, op, res.reason)
            eb = spec.types[e2e.type_of(v, op)].bits // 8
            got = load.offset + (res.rows[:, 0] * load.ld + res.cols[:, 0]) * eb
            want = e2e.lane_offsets(load, eb, s.threads)
            used = res.rows[:, 0] >= 0
            assert np.array_equal(got[used], want[used]), (s.name, op)


def test_formulas(spec):
    v = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    res = L.compose(L.fragment_bits(v, "a"), m8n8("x4", False), L.ROW)
    assert (res.row_formula, res.col_formula) == ("(lane & 15)", "8*((lane >> 4) & 1)")
    res = L.compose(L.fragment_bits(v, "b"), m8n8("x2", True), L.ROW)
    assert (res.row_formula, res.col_formula) == ("(lane & 15)", "0")
    w = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    res = L.compose(L.fragment_bits(w, "a"), m8n8("x4", False), L.ROW)
    assert res.row_formula == "(lane & 15) + 16*(warp & 3)"


@pytest.mark.parametrize("vid, op, storage, form, why", [
    # stmatrix and ldmatrix move 16-bit (or 8-bit) elements: a 32-bit accumulator is two halves
    # that would have to come from different places
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "d", "row", "m8n8.x4.b16", "two values"),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "d", "col", "m8n8.x4.trans.b16", "two values"),
    # .trans moves 16-bit halves: an 8-bit A stored column-major needs 8-bit transposition
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "a", "col", "m8n8.x4.trans.b16", "two values"),
    # tf32 B stored row-major: each 32-bit element would need a transposed 32-bit load
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "b", "row", "m8n8.x2.trans.b16", "two values"),
])
def test_no_loader(spec, vid, op, storage, form, why):
    v = spec.variant(vid)
    m = {f.opcode: f for f in LOADS}[form]
    res = L.compose(L.fragment_bits(v, op), m, L.ROW if storage == "row" else L.COL)
    assert not res.ok and why in res.reason


def test_8bit_transposed_loads_need_m16n16(spec):
    """The manual's 16x16 .b8 form (sm_100a/sm_120a) is what loads an 8-bit A stored column-major."""
    v = spec.variant("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
    fb = L.fragment_bits(v, "a")
    assert L.compose(fb, m16n16("x2"), L.COL).ok
    assert not L.compose(fb, m16n16("x2"), L.ROW).ok
