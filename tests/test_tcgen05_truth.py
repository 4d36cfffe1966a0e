"""The hand transcriptions in tcgen05_truth.py agree with each other.

Two independent encodings of the manual's tcgen05.ld/st figures (CuTe's copy traits and
Triton's linear layouts) must give the same thread/register -> lane/column map, every cell of
the access footprint must be reached exactly once, the register counts must match the manual's
Table 49, and the instruction descriptors CUTLASS builds must decode, field by field, to the
named configuration under the manual's tables. Nothing here reads the spec.
"""
from __future__ import annotations

import pytest
import tcgen05_truth as T


# ----------------------------------------------------------------------------------------------
# A small evaluator for CuTe layouts written as nested (shape, stride) tuples.
def _flatten(shape, stride):
    if isinstance(shape, tuple):
        out = []
        for s, d in zip(shape, stride):
            out += _flatten(s, d)
        return out
    return [(shape, stride)]


def cute_eval(layout, index: int) -> int:
    """Colexicographic: the first mode varies fastest."""
    shape, stride = layout
    out = 0
    for s, d in _flatten(shape, stride):
        out += (index % s) * d
        index //= s
    return out


def cute_size(layout) -> int:
    n = 1
    for s, _ in _flatten(*layout):
        n *= s
    return n


def cute_map(shape: str, num: int) -> dict[tuple[int, int], tuple[int, int]]:
    """(thread, register) -> (lane, 32-bit column) from the CuTe transcription. Threads index
    the first mode of DstLayout, values (bits) the second; register r = value bits 32r..32r+31."""
    bits_per_lane, layout = T.CUTE_TMEM_LOAD[(shape, num, False)]
    (tshape, vshape), (tstride, vstride) = layout
    tl, vl = (tshape, tstride), (vshape, vstride)
    out = {}
    for t in range(cute_size(tl)):
        for v in range(0, cute_size(vl), 32):
            bit = cute_eval(tl, t) + cute_eval(vl, v)
            # the 32 bits of a register are contiguous in the reference space
            assert all(cute_eval(tl, t) + cute_eval(vl, v + k) == bit + k for k in range(32))
            lane, inlane = divmod(bit, bits_per_lane)
            col = inlane // 32
            if shape == "16x32bx2":  # the two accesses side by side: col // per-access width
                per = bits_per_lane // 2 // 32
                col = ("half", col - per) if col >= per else col
            out[(t, v // 32)] = (lane, col)
    return out


def triton_map(shape: str, num: int) -> dict[tuple[int, int], tuple[int, int]]:
    tile = T.TRITON_TILE[shape]
    regs_per_rep = 1 << len(tile["reg"])
    out = {}
    for t in range(32):
        for r in range(regs_per_rep * num):
            rep, rr = divmod(r, regs_per_rep)
            row, col, half = 0, rep * tile["cols"], False
            for b, (dr, dc) in enumerate(tile["lane"]):
                if t >> b & 1:
                    if dr == "half":
                        half = True
                    else:
                        row, col = row + dr, col + dc
            for b, (dr, dc) in enumerate(tile["reg"]):
                if rr >> b & 1:
                    row, col = row + dr, col + dc
            out[(t, r)] = (row, ("half", col) if half else col)
    return out


SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
CASES = [(s, n) for s in SHAPES for n in (1, 2, 4)]


@pytest.mark.parametrize("shape,num", CASES)
def test_cute_and_triton_agree(shape, num):
    assert cute_map(shape, num) == triton_map(shape, num)


@pytest.mark.parametrize("shape,num", CASES)
def test_every_cell_once(shape, num):
    m = cute_map(shape, num)
    lanes = 32 if shape == "32x32b" else 16
    bits = int(shape.split("x")[1].rstrip("b").split("b")[0]) if shape != "16x32bx2" else 32
    cols = bits // 32 * num
    cells = sorted(m.values(), key=str)
    assert len(cells) == len(set(cells))
    want = {(lane, c) for lane in range(lanes) for c in range(cols)}
    if shape == "16x32bx2":
        want |= {(lane, ("half", c)) for lane in range(lanes) for c in range(cols)}
    assert set(cells) == want


@pytest.mark.parametrize("shape,num", CASES)
def test_register_counts_match_table_49(shape, num):
    col = {"16x128b": 1, "16x256b": 2}.get(shape, 0)
    regs = T.NUM_SHAPE_REGS[f"x{num}"][col]
    assert max(r for _, r in cute_map(shape, num)) + 1 == regs


# ----------------------------------------------------------------------------------------------
# Instruction descriptors: CUTLASS's values decode to their configuration under Tables 42-44.
def encode(kind: str, fields: dict) -> int:
    value = 0
    for name, lsb, width, legal in T.idesc_fields(kind):
        if name == "reserved":
            continue
        if name == "n":
            x = fields["n"] >> 3
        elif name == "m":
            x = fields["m"] >> (7 if (lsb, width) == (27, 2) else 4)
        elif name == "btype" and legal == "as atype":
            x = _code(kind, "atype", fields.get("btype"))
        elif isinstance(legal, dict) and name in fields and isinstance(fields[name], str):
            x = _code(kind, name, fields[name])
        else:
            x = fields.get(name, 0)
        assert 0 <= x < (1 << width), (name, x)
        value |= x << lsb
    return value


def _code(kind, name, value):
    for n, lsb, width, legal in T.idesc_fields(kind):
        if n != name:
            continue
        if kind in legal and isinstance(legal[kind], dict):
            legal = legal[kind]
        return legal[value]
    raise KeyError((kind, name))


@pytest.mark.parametrize("atom,kind,fields,value", T.CUTLASS_IDESCS, ids=[x[0][:60] for x in T.CUTLASS_IDESCS])
def test_cutlass_idesc_decodes_to_its_configuration(atom, kind, fields, value):
    assert encode(kind, fields) == value


def test_tables_cover_32_bits_once():
    for table in T.IDESC_TABLES:
        bits = [b for _, lsb, width, _ in table["fields"] for b in range(lsb, lsb + width)]
        assert sorted(bits) == list(range(32)), table["kinds"]


def test_block_scaled_m_fields_agree_with_cutlass_layout():
    """CUTLASS writes M >> 4 at bits 24-28 for block-scaled kinds; the manual M >> 7 at 27-28."""
    for m in (128, 256):
        assert (m >> 4) << 24 == (m >> 7) << 27


# ----------------------------------------------------------------------------------------------
# Data-path layouts: the CuTe atoms (virtual addressing: lane stride 1, column stride 128).
def _datapath(name: str, n_cols: int):
    _, (shape, stride) = T.DATAPATH_LAYOUTS[name]

    def subst(x):
        if isinstance(x, tuple):
            return tuple(subst(y) for y in x)
        return {"N": n_cols, "N/2": n_cols // 2, "N/4": n_cols // 4}.get(x, x)
    shape = subst(shape)
    rows = cute_size(((shape[0],), (1,))) if isinstance(shape[0], int) else cute_size((shape[0], shape[0]))
    out = {}
    for m in range(rows):
        for n in range(n_cols):
            addr = cute_eval((shape[0], stride[0]), m) + cute_eval((shape[1], stride[1]), n)
            out[(m, n)] = (addr % 128, addr // 128)
    return out


@pytest.mark.parametrize("n_cols", [64, 256])
def test_datapath_formulas(n_cols):
    N = n_cols
    for (m, n), cell in _datapath("4x1", N).items():
        assert cell == (m, n)
    for (m, n), cell in _datapath("4x1 half", N).items():
        assert cell == (m % 16 + 32 * (m // 16), n)
    for (m, n), cell in _datapath("2x2", N).items():
        assert cell == (m + 64 * (n // (N // 2)), n % (N // 2))
    for (m, n), cell in _datapath("1x4", N).items():
        assert cell == (m + 32 * (n // (N // 4)), n % (N // 4))
    for name in T.DATAPATH_LAYOUTS:
        cells = list(_datapath(name, N).values())
        assert len(cells) == len(set(cells))
