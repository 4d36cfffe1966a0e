"""Tensor memory as tcgen05.mma sees it: where D, A (from TMEM) and the block-scale factors lie.

Everything is evaluated from the placements spec/layouts states for a descriptor's shapes and
kinds (`tmem:` of spec/layouts/tcgen05.yaml: data paths, scale factors, metadata, and each kind's
sparsity), which the model keeps with that descriptor (`tmem_layouts`, `scale_factor_layouts`,
`metadata_layouts`, `sparsity`); no lane or column constant lives here. Lanes and columns are
relative to the TMEM address the instruction names; columns are 32-bit cells.

    from ptxspec import tmem
    lay = tmem.datapath(spec, m=64, cta_group="cta_group::1", sparse=False, ws=False)   # layout F
    lane, col = tmem.d_cells(lay, n=128, align=16)     # (64, 128) arrays: D[m, n] is at (lane, col)
    lanes, col, bit = tmem.a_cells(lay, k=32, bits=8)  # A[m, k]: (copies, 64, 32) lanes, bit in the cell
    sf = tmem.scale_layout(spec, "scale_a", lay.id)    # where the scale factors of A lie
    ml = tmem.metadata_layout(spec, "kind::f16", "D")   # where a sparse A's metadata lies
    lane, col, bit = tmem.metadata_cells(ml, rows=128, chunks=8, sel=0)
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

from ptxspec.core.lazy import np

from ptxspec.core.expr import Formula
from ptxspec.core.words import integer

__all__ = ["datapath", "datapath_of", "d_cells", "a_cells", "scale_layout", "scale_cells", "scale_example", "sparsity_rule",
           "metadata_layout", "metadata_cells", "TmemError", "OutsideTensorMemory", "LANES", "COLUMNS", "CELL_BITS"]

LANES = 128  # lanes of a CTA's tensor memory (PTX ISA 9.7.16.1)
COLUMNS = 512  # 32-bit columns of a CTA's tensor memory (PTX ISA 9.7.16.1)
CELL_BITS = 32


@dataclass(frozen=True)
class TmemLayout:
    """A data-path layout of tcgen05.mma (the manual's layouts A-G): where each element of D, and
    of A when A comes from TMEM, lies in tensor memory. Formulas over m, n, N, L (ptxspec.tmem)."""
    id: str
    manual: str
    organization: str
    cases: tuple[tuple[int, str, tuple[bool, ...], bool], ...]  # (M, cta_group, sparse values, ws)
    rows: int  # rows of D (and A) one CTA holds
    alignments: tuple[int, ...]
    lane: Formula
    column: Formula
    a_lanes: tuple[Formula, ...]  # lanes of row m of A, one per copy; () when not stated
    description: str


@dataclass(frozen=True)
class ScaleFactorLayout:
    """Where the block-scale factors of A or B lie in tensor memory, under some data-path layouts."""
    name: str
    manual: str
    matrix: str  # scale_a | scale_b
    datapaths: tuple[str, ...]
    copies: int
    lane: Formula  # over r, s, q, id, N
    column: Formula
    byte: Formula
    description: str


@dataclass(frozen=True)
class MetadataLayout:
    """Where the sparsity metadata of A lies in tensor memory, for some kinds and data paths."""
    name: str
    manual: str
    kinds: tuple[str, ...]
    datapaths: tuple[str, ...]
    ids: tuple[int, ...]  # the sparsity-selector values described
    lane: Formula  # over r, c, id
    column: Formula
    bit: Formula
    description: str


class TmemError(ValueError):
    """A shape, alignment or scale factor the spec's TMEM layouts do not describe."""


def datapath(spec, m: int, cta_group: str, sparse: bool, ws: bool, family: str = "tcgen05", name: str = "idesc"):
    """The data-path layout (TmemLayout) of an M, CTA group, sparsity and .ws."""
    return datapath_of(spec.descriptor(family, name), m, cta_group, sparse, ws)


def datapath_of(desc, m: int, cta_group: str, sparse: bool, ws: bool):
    """The data-path layout (TmemLayout) of a descriptor's M, CTA group, sparsity and .ws."""
    for lay in desc.tmem_layouts:
        for cm, cg, sp, cws in lay.cases:
            if cm == m and cg == cta_group and bool(sparse) in sp and cws == bool(ws):
                return lay
    raise TmemError(f"no TMEM data-path layout for M = {m}, {cta_group}, {'sparse' if sparse else 'dense'}"
                    f"{', .ws' if ws else ''}")


def _align(lay, align: int) -> int:
    if align not in lay.alignments:
        raise TmemError(f"layout {lay.id}: lane alignment {align} is not one of {list(lay.alignments)}")
    return align


def _count(what: str, value, most: int) -> int:
    """A size argument: an integer from 1 to `most` (what fits in tensor memory), else TmemError."""
    try:
        return integer(what, value, 1, most)
    except ValueError:  # an integer, out of range (anything else is integer's TypeError)
        x = operator.index(value)
        room = f" (tensor memory, {LANES} lanes x {COLUMNS} columns of {CELL_BITS} bits, holds no more)" \
            if x > most else ""
        raise TmemError(f"{what} is an integer from 1 to {most}; got {x}{room}") from None


class OutsideTensorMemory(TmemError):
    """A layout that puts something outside tensor memory; `formula` names the formula at fault."""

    def __init__(self, message: str, formula: str):
        super().__init__(message)
        self.formula = formula


def _inside(what: str, lane: np.ndarray, col: np.ndarray, lane_formula: str = "lane") -> None:
    """Every cell a layout gives lies in tensor memory (lanes and columns relative to the address)."""
    for arr, top, name, formula in ((lane, LANES, "lane", lane_formula), (col, COLUMNS, "column", "column")):
        if arr.size and (arr.min() < 0 or arr.max() >= top):
            bad = int(arr.min() if arr.min() < 0 else arr.max())
            raise OutsideTensorMemory(f"{what} lands in {name} {bad}, outside 0-{top - 1}", formula)


def d_cells(lay, n: int, align: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(lane, column) of every element D[m, n] of this CTA's rows: two (rows, n) int arrays. Each
    element is a cell, so n is at most the cells a row of D can have (LANES * COLUMNS / rows)."""
    n = _count(f"layout {lay.id}: N", n, LANES * COLUMNS // lay.rows)
    m = np.arange(lay.rows, dtype=np.int64)[:, None]
    c = np.arange(n, dtype=np.int64)[None, :]
    L = _align(lay, align)
    lane = np.broadcast_to(np.asarray(lay.lane(m=m, n=c, N=n, L=L), np.int64), (lay.rows, n))
    col = np.broadcast_to(np.asarray(lay.column(m=m, n=c, N=n, L=L), np.int64), (lay.rows, n))
    _inside("D", lane, col)
    return lane.copy(), col.copy()


def a_cells(lay, k: int, bits: int, align: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lanes (copies, rows, k), column (rows, k), bit offset in the cell (rows, k)) of A[m, k]
    from TMEM: each row in the lanes `a_lanes` gives, its elements packed `bits` wide from column 0."""
    if not lay.a_lanes:
        raise TmemError(f"layout {lay.id}: where A from tensor memory lies is not stated in the spec")
    bits = _count("bits (the width of an element of A)", bits, CELL_BITS)
    if CELL_BITS % bits:
        raise TmemError(f"{bits}-bit elements do not pack into {CELL_BITS}-bit cells")
    k = _count(f"layout {lay.id}: K", k, COLUMNS * CELL_BITS // bits)  # a row of A in one lane's columns
    m = np.arange(lay.rows, dtype=np.int64)[:, None]
    kk = np.arange(k, dtype=np.int64)[None, :]
    L = _align(lay, align)
    lanes = np.stack([np.broadcast_to(np.asarray(f(m=m, n=0, N=0, L=L), np.int64), (lay.rows, k))
                      for f in lay.a_lanes])
    col = np.broadcast_to(kk * bits // CELL_BITS, (lay.rows, k)).copy()
    bit = np.broadcast_to(kk * bits % CELL_BITS, (lay.rows, k)).copy()
    _inside("a row of A", lanes, col, "a_lanes")
    return lanes, col, bit


def scale_layout(spec, matrix: str, datapath_id: str, family: str = "tcgen05", name: str = "idesc"):
    """The ScaleFactorLayout of scale_a or scale_b under a data-path layout."""
    for s in spec.descriptor(family, name).scale_factor_layouts:
        if s.matrix == matrix and datapath_id in s.datapaths:
            return s
    raise TmemError(f"no {matrix} layout in tensor memory under data-path layout {datapath_id}")


def scale_example(sf) -> tuple[int, int]:
    """(extent, N) that shows a scale-factor layout whole: 256 columns of B for a layout that folds
    N into lane halves (2x2 data paths), else 128 rows or columns with no N."""
    fold = "B" in sf.datapaths and sf.matrix == "scale_b" and sf.copies == 2
    return (256, 256) if fold else (128, 0)


def scale_cells(sf, extent: int, factors: int, sf_id: int, n: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lane (copies, extent, factors), column (extent, factors), byte (extent, factors)) of scale
    factor s of row r of A (column r of B), r < extent; `n` is the instruction's N (layouts that
    fold N name it)."""
    room = LANES * COLUMNS * CELL_BITS // 8 // max(1, sf.copies)  # a byte per factor and copy
    extent = _count(f"{sf.name}: the rows (columns) of scale factors", extent, room)
    factors = _count(f"{sf.name}: factors per row (column)", factors, room // extent)
    sf_id = integer(f"{sf.name}: the scale-factor id", sf_id, 0, CELL_BITS // 8 - 1)
    n = integer(f"{sf.name}: N", n, 0, LANES * COLUMNS)
    r = np.arange(extent, dtype=np.int64)[:, None]
    s = np.arange(factors, dtype=np.int64)[None, :]
    shape = (extent, factors)
    lane = np.stack([np.broadcast_to(np.asarray(sf.lane(r=r, s=s, q=q, id=sf_id, N=n), np.int64), shape)
                     for q in range(sf.copies)])
    col = np.broadcast_to(np.asarray(sf.column(r=r, s=s, q=0, id=sf_id, N=n), np.int64), shape).copy()
    byte = np.broadcast_to(np.asarray(sf.byte(r=r, s=s, q=0, id=sf_id, N=n), np.int64), shape).copy()
    outside = (byte < 0) | (byte > CELL_BITS // 8 - 1)
    if outside.any():
        r0 = int(np.nonzero(outside)[0][0])
        raise OutsideTensorMemory(f"{sf.name}: {factors} factors from byte {sf_id} do not fit in a {CELL_BITS}-bit "
                                  f"cell (those of row {r0} land in bytes {int(byte[r0].min())} to "
                                  f"{int(byte[r0].max())})", "byte")
    _inside(f"{sf.name}: a factor", lane, col)
    return lane, col, byte


def sparsity_rule(spec, kind: str, family: str = "tcgen05", name: str = "idesc"):
    """The Sparsity of a kind (ptxspec.model.sparsity): its chunk, sub-chunks and meaningful
    metadata codes, in elements (`chunk_elements`, `subchunk_elements`, `kept_subchunks`, `codes`)."""
    rule = spec.descriptor(family, name).sparsity.get(kind)
    if rule is not None:
        return rule
    raise TmemError(f"how a sparse A of {kind} is described is not in the spec")


def metadata_layout(spec, kind: str, datapath_id: str, family: str = "tcgen05", name: str = "idesc"):
    """The MetadataLayout of a kind's sparsity metadata under a data-path layout."""
    for m in spec.descriptor(family, name).metadata_layouts:
        if kind in m.kinds and datapath_id in m.datapaths:
            return m
    raise TmemError(f"where the sparsity metadata of {kind} lies under data-path layout {datapath_id} is not "
                    "stated in the spec")


def metadata_cells(ml, rows: int, chunks: int, sel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lane, column, bit) of the 4-bit metadata field of chunk c of row r (r < rows, c < chunks),
    three (rows, chunks) int arrays, for sparsity selector `sel`."""
    if sel not in ml.ids:
        raise TmemError(f"{ml.name}: sparsity selector {sel} is not described (it states {list(ml.ids)})")
    room = LANES * COLUMNS * CELL_BITS // 4  # a 4-bit field per chunk
    rows = _count(f"{ml.name}: rows", rows, LANES)
    chunks = _count(f"{ml.name}: chunks per row", chunks, room // rows)
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(chunks, dtype=np.int64)[None, :]
    shape = (rows, chunks)
    lane, col, bit = (np.broadcast_to(np.asarray(f(r=r, c=c, id=sel), np.int64), shape).copy()
                      for f in (ml.lane, ml.column, ml.bit))
    outside = (bit < 0) | (bit > CELL_BITS - 4)
    if outside.any():
        raise TmemError(f"a 4-bit field at bit {int(bit[outside][0])} does not fit in a {CELL_BITS}-bit cell")
    _inside(f"{ml.name}: a chunk", lane, col)
    return lane, col, bit
