"""tcgen05.mma's tensor-memory layouts (D, A from TMEM, block-scale factors) against independent truth.

Truth, transcribed here by hand (never read back from the spec):
* the manual's "Data path layout organization" table (PTX ISA 9.7.16.10.5), which is text: M,
  CTA group, sparsity, .ws -> organization, layout letter, lane alignments;
* CuTe's TMEM atoms (cutlass include/cute/atom/mma_traits_sm100.hpp: tmem_frg, tmem_frg_ws,
  tmem_sf_frg), as (shape, stride) pairs in CuTe's "virtual" TMEM addressing (lane stride 1,
  column stride 128), evaluated by the small CuTe-layout evaluator below;
* first principles: every element in exactly one cell (bijectivity), every cell inside the 128
  lanes and the columns the instruction's N allows, the half-data-path layouts using 16 lanes of
  each 32-lane partition, each scale factor once per partition it is duplicated to.
The manual's figures are images; nothing here is from hardware (no sm_100a GPU).
"""
from __future__ import annotations

import sqlite3

import numpy as np
import ptxspec
import pytest
from ptxspec.core.paths import default_database
from ptxspec.model import descriptors as D
from ptxspec.model import tmem

SPEC = ptxspec.load()

# PTX ISA 9.7.16.10.5, the organization table: (M, cta_group, sparse values, ws values) ->
# (organization as printed, layout letter, lane alignments).
MANUAL_TABLE = [
    (32, "cta_group::1", (False, True), (True,), "1x4", "G", (0,)),
    (64, "cta_group::1", (False, True), (True,), "2x3", "E", (0,)),
    (64, "cta_group::1", (False, True), (False,), "4x1 (1/2 datapath utilized)", "F", (0, 16)),
    (128, "cta_group::1", (False, True), (False, True), "4x1", "D", (0,)),
    (128, "cta_group::2", (False,), (False,), "2x2", "B", (0,)),
    (128, "cta_group::2", (True,), (False,), "4x1 (1/2 datapath utilized)", "C", (0, 16)),
    (256, "cta_group::2", (False, True), (False,), "4x1", "A", (0,)),
]


def cute_eval(shape, stride, coord_shape):
    """A CuTe layout (nested shape/stride) evaluated on every coordinate of a 2-D domain
    (rows, cols) given by the two top-level modes: the offset of each (row, col), colexicographic
    within a mode as CuTe orders it."""
    def flat(s, d):
        if isinstance(s, tuple):
            out = []
            for a, b in zip(s, d):
                out += flat(a, b)
            return out
        return [(s, d)]

    def mode(s, d, idx):
        off = np.zeros_like(idx)
        rest = idx.copy()
        for size, st in flat(s, d):
            off += (rest % size) * st
            rest //= size
        return off

    rows, cols = coord_shape
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    return mode(shape[0], stride[0], np.broadcast_to(r, (rows, cols)).copy()) + \
        mode(shape[1], stride[1], np.broadcast_to(c, (rows, cols)).copy())


def cute_d_atom(letter, n):
    """CuTe's D atom for a layout letter (virtual addressing: offset = lane + 128 * column)."""
    if letter in ("A", "D"):
        return (128, n), (1, 128)
    if letter in ("B", "E"):
        return (64, (n // 2, 2)), (1, (128, 64))
    if letter in ("C", "F"):  # tmem_frg 1SM M64 (NonInterleaved): 16 lanes per partition
        return ((16, 4), n), ((1, 32), 128)
    if letter == "G":
        return (32, (n // 4, 4)), (1, (128, 32))
    raise KeyError(letter)


def legal_ns(letter):
    """Every N some kind allows for the layout's cases (Table 39, via the spec's descriptor shapes)."""
    ns = set()
    for m, cta, sps, wss, _, le, _ in MANUAL_TABLE:
        if le != letter:
            continue
        for kind in ("kind::f16", "kind::i8", "kind::mxf4"):
            for ws in wss:
                for sp in sps:
                    got = D.shapes(SPEC, kind, cta, ws, sp)
                    if got and m in got[0]:
                        ns |= set(got[1])
    return sorted(ns)


@pytest.mark.parametrize("row", MANUAL_TABLE, ids=lambda r: r[5])
def test_the_manual_table_picks_each_layout(row):
    m, cta, sps, wss, org, letter, aligns = row
    for sp in sps:
        for ws in wss:
            lay = tmem.datapath(SPEC, m, cta, sp, ws)
            assert lay.id == letter
            assert lay.alignments == aligns
            half = "1/2" in org
            assert ("half" in lay.organization) == half
            if letter != "E":  # the manual prints 2x3 for E; CuTe's .ws atom (followed) is 2x2
                assert lay.organization.split(",")[0] == org.split(" ")[0]
            assert lay.rows == (m // 2 if cta.endswith("2") else m)


def test_no_other_shape_has_a_layout():
    listed = {(m, c, sp, ws) for m, c, sps, wss, *_ in MANUAL_TABLE for sp in sps for ws in wss}
    for m in (16, 32, 64, 128, 256):
        for c in ("cta_group::1", "cta_group::2"):
            for sp in (False, True):
                for ws in (False, True):
                    if (m, c, sp, ws) not in listed:
                        with pytest.raises(tmem.TmemError):
                            tmem.datapath(SPEC, m, c, sp, ws)


@pytest.mark.parametrize("letter", "ABCDEFG")
def test_d_matches_cute_and_is_a_bijection(letter):
    lay = next(t for t in D.descriptor(SPEC).tmem_layouts if t.id == letter)
    ns = legal_ns(letter)
    assert ns, letter
    for n in ns:
        for L in lay.alignments:
            lane, col = tmem.d_cells(lay, n, L)
            shape, stride = cute_d_atom(letter, n)
            virt = cute_eval(shape, stride, (lay.rows, n))
            assert (lane == virt % 128 + L).all() and (col == virt // 128).all(), (letter, n, L)
            cells = lane * 4096 + col
            assert np.unique(cells).size == cells.size  # every element its own cell
            assert lane.min() >= 0 and lane.max() < 128 and col.min() == 0
            folds = {"B": 2, "E": 2, "G": 4}.get(letter, 1)
            assert col.max() == n // folds - 1  # columns used: N, or N folded into lane groups
            used = np.unique(lane)
            if "half" in lay.organization:  # 16 lanes of each 32-lane partition, from L
                assert sorted(used.tolist()) == [32 * p + L + i for p in range(4) for i in range(16)]
            else:
                assert used.size == min(128, lay.rows * folds)


def test_half_data_path_alignments_are_disjoint():
    """The two alignments of a half-data-path layout use complementary lanes (two accumulators fit)."""
    for letter in "CF":
        lay = next(t for t in D.descriptor(SPEC).tmem_layouts if t.id == letter)
        a, _ = tmem.d_cells(lay, 8, 0)
        b, _ = tmem.d_cells(lay, 8, 16)
        assert not set(a.ravel()) & set(b.ravel()) and len(set(a.ravel()) | set(b.ravel())) == 128


@pytest.mark.parametrize("letter,copies", [("A", [0]), ("B", [0, 64]), ("C", None), ("D", [0]), ("F", None)])
def test_a_from_tmem(letter, copies):
    """A is packed along K (CuTe tmem_frg with StorageType = ValueType: an 8-bit atom (128, 64):(1, 128)
    in byte columns), in the lanes of D's rows (the manual: the half-data-path layouts use the same
    lane alignment for A, D and the metadata); two CTAs duplicate a 64-row A in both lane halves."""
    lay = next(t for t in D.descriptor(SPEC).tmem_layouts if t.id == letter)
    for bits, k in ((8, 32), (16, 16), (32, 8), (4, 64)):
        for L in lay.alignments:
            lanes, col, bit = tmem.a_cells(lay, k, bits, L)
            kk = np.arange(k)
            assert (col == kk * bits // 32).all() and (bit == kk * bits % 32).all()
            d_lane, _ = tmem.d_cells(lay, 16, L)
            if copies is None:
                assert (lanes[0] == d_lane[:, :1]).all()
            else:
                assert [int(x) for x in (lanes[:, :, 0] - np.arange(lay.rows)).mean(axis=1)] == copies
            cells = (lanes * 4096 + col * 32 + bit).ravel()
            assert np.unique(cells).size == cells.size


def test_ws_small_m_does_not_guess_a():
    for letter in "EG":
        lay = next(t for t in D.descriptor(SPEC).tmem_layouts if t.id == letter)
        with pytest.raises(tmem.TmemError):
            tmem.a_cells(lay, 16, 16)


def cute_sf(mn, nsf, duplicated_2x2=False):
    """CuTe tmem_sf_frg (8-bit factors, virtual addressing in bytes: lane + 128 * byte column):
    4x1: (((32, MN/32), 4), (VS, NSF)) : (((1, 512), 32), (0, 128)); 2x2: (((32, MN/64), 2, 2), ...) :
    (((1, 512), 64, 32), ...). Returns (copies, MN, NSF) offsets."""
    r = np.arange(mn)[:, None]
    s = np.arange(nsf)[None, :]
    if not duplicated_2x2:
        return np.stack([(r % 32) + (r // 32) * 512 + 32 * q + 128 * s for q in range(4)])
    half = mn // 2
    return np.stack([(r % 32) + ((r % half) // 32) * 512 + 64 * (r // half) + 32 * q + 128 * s for q in range(2)])


@pytest.mark.parametrize("matrix,letter,extent", [("scale_a", "D", 128), ("scale_a", "A", 128), ("scale_a", "B", 64),
                                                  ("scale_b", "D", 256), ("scale_b", "A", 256), ("scale_b", "B", 256),
                                                  ("scale_b", "B", 32)])
def test_scale_factors_match_cute(matrix, letter, extent):
    sf = tmem.scale_layout(SPEC, matrix, letter)
    dup = matrix == "scale_b" and letter == "B"
    for nsf, ids in ((1, (0, 1, 2, 3)), (2, (0, 2)), (4, (0,))):  # scale_vec 1X, 2X, 4X and their ids
        for sf_id in ids:
            lane, col, byte = tmem.scale_cells(sf, extent, nsf, sf_id, extent)
            virt = cute_sf(extent, nsf, dup)
            assert (lane == virt % 128).all()
            assert (col * 4 + byte - sf_id == virt[0] // 128).all()
            assert lane.shape[0] == (2 if dup else 4)
            # each factor once per copy; the copies in distinct 32-lane partitions
            cells = (lane * 4096 + col * 4 + byte)
            assert np.unique(cells).size == cells.size
            assert (np.unique(lane // 32, axis=0).shape[0] == lane.shape[0]) or extent <= 32


def test_scale_factor_ids_select_distinct_bytes():
    """1X: ids 0-3 take the four bytes of a cell; 2X: ids 0 and 2 its two halves (Figures 231-232's
    colours, as the text describes them)."""
    sf = tmem.scale_layout(SPEC, "scale_a", "D")
    one = {i: set(tmem.scale_cells(sf, 128, 1, i)[2].ravel()) for i in range(4)}
    assert one == {0: {0}, 1: {1}, 2: {2}, 3: {3}}
    two = {i: set(tmem.scale_cells(sf, 128, 2, i)[2].ravel()) for i in (0, 2)}
    assert two == {0: {0, 1}, 2: {2, 3}}
    with pytest.raises(tmem.TmemError):
        tmem.scale_cells(sf, 128, 4, 2)


def test_database_rows():
    db = sqlite3.connect(default_database())
    rows = db.execute("SELECT layout, m, cta_group, sparse, ws FROM tmem_layouts").fetchall()
    want = {(le, m, c, int(sp), int(ws)) for m, c, sps, wss, _, le, _ in MANUAL_TABLE for sp in sps for ws in wss}
    assert set(rows) == want and len(rows) == len(want)
    described = {r[0] for r in db.execute("SELECT column_name FROM descriptions WHERE object = 'tmem_layouts'")}
    cols = {r[1] for r in db.execute("PRAGMA table_info(tmem_layouts)")}
    assert cols <= described
    sl = db.execute("SELECT matrix, layout, copies FROM tmem_scale_layouts").fetchall()
    assert sorted(sl) == [("scale_a", "A", 4), ("scale_a", "B", 4), ("scale_a", "D", 4), ("scale_b", "A", 4),
                          ("scale_b", "B", 2), ("scale_b", "D", 4)]
