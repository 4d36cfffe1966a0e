"""The tcgen05.ld/st fragment maps of the database against the manual's figures (Figures 183-187 of
PTX ISA 9.7.16.2.3.1), as transcribed by hand in tcgen05_truth.py (Triton's linear layouts of the
five access atoms, which test_tcgen05_truth.py checks against CuTe's copy traits), and for
consistency: every lane/column of the access reached exactly once, for every shape and `.num`,
packed or not, with the register count of the manual's Table 49.

The truth gives (thread, register) -> (lane, 32-bit column); the database's `tile` matrix is the
same with, for .16x32bx2, the second access (at taddr + the split offset) as rows 16-31. With
.pack::16b / .unpack::16b a register holds the low 16 bits of two adjacent columns: register r of
the packed access holds columns 2c and 2c + 1 where c is the column of register r unpacked
(CuTe's _16b copy traits keep the unpacked thread/value layout; manual 9.7.16.8.2), low half
first. Nothing here ran on hardware.
"""
from __future__ import annotations

import pytest
import tcgen05_truth as T
from test_tcgen05_truth import cute_map, triton_map

SHAPE_COL = {"16x128b": 1, "16x256b": 2}  # Table 49's column of the shape (0: 16x32bx2, 16x64b, 32x32b)


def _variants(spec):
    return [v for v in spec.variants if v.instruction in ("tcgen05.ld", "tcgen05.st")]


def _truth(shape: str, num: int, packed: bool) -> dict[tuple[int, int], tuple[int, int]]:
    """(thread, element) -> (row, column) of the database's convention, from the transcription."""
    out = {}
    for (t, r), (lane, col) in triton_map(shape, num).items():
        if isinstance(col, tuple):  # ("half", c): the second access of .16x32bx2
            lane, col = lane + 16, col[1]
        if packed:
            out[(t, 2 * r)] = (lane, 2 * col)
            out[(t, 2 * r + 1)] = (lane, 2 * col + 1)
        else:
            out[(t, r)] = (lane, col)
    return out


def _spec_map(v) -> dict[tuple[int, int], tuple[int, int]]:
    matrix = "tile16" if v.qualifiers.get("pack") else "tile"
    fm = v.fragment_map(matrix)
    assert fm.threads == 32
    return {(t, e): (int(fm.row[t, e]), int(fm.col[t, e])) for t in range(fm.threads) for e in range(fm.elements)}


def test_every_shape_and_num_is_in_the_database(spec):
    got = {(v.instruction, v.qualifiers["tmem_shape"], v.n, bool(v.qualifiers.get("pack"))) for v in _variants(spec)}
    want = set()
    for inst in ("tcgen05.ld", "tcgen05.st"):
        for shape in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"):
            for num, regs in T.NUM_SHAPE_REGS.items():
                if regs[SHAPE_COL.get(shape, 0)] is not None:
                    want |= {(inst, shape, int(num[1:]), packed) for packed in (False, True)}
    assert got == want


def test_maps_match_the_figures(spec):
    checked = 0
    for v in _variants(spec):
        shape, num, packed = v.qualifiers["tmem_shape"], v.n, bool(v.qualifiers.get("pack"))
        want = _truth(shape, num, packed)
        got = _spec_map(v)
        assert got == want, v.id
        if num <= 4 and not packed:  # CuTe's transcription too, where it has the atom
            cute = {k: (lane + 16, c[1]) if isinstance(c, tuple) else (lane, c) for k, (lane, c) in cute_map(shape, num).items()}
            assert got == cute, v.id
        checked += 1
    nums = sum(1 for shape in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
               for regs in T.NUM_SHAPE_REGS.values() if regs[SHAPE_COL.get(shape, 0)] is not None)
    assert checked == 2 * 2 * nums  # ld and st, packed or not


@pytest.mark.parametrize("packed", [False, True])
def test_every_cell_once_with_table_49_registers(spec, packed):
    for v in _variants(spec):
        if bool(v.qualifiers.get("pack")) != packed:
            continue
        shape, num = v.qualifiers["tmem_shape"], v.n
        got = _spec_map(v)
        lanes = 16 if shape.startswith("16x") and shape != "16x32bx2" else 32
        per_rep = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8, "16x32bx2": 1}[shape]
        cols = per_rep * num * (2 if packed else 1)
        cells = list(got.values())
        assert len(cells) == len(set(cells)) == lanes * cols, v.id
        assert set(cells) == {(lane, c) for lane in range(lanes) for c in range(cols)}, v.id
        regs = T.NUM_SHAPE_REGS[f"x{num}"][SHAPE_COL.get(shape, 0)]
        data = next(o for o in v.operands if o.kind == "fragment")
        assert data.regs == regs, v.id
        assert max(e for _, e in got) + 1 == regs * (2 if packed else 1), v.id
