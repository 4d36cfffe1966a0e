"""Where tcgen05.mma.sp finds its sparsity metadata in tensor memory, against an independent route.

The truth here is JAX's Mosaic GPU (jax-ml/jax, read 2026-11-26; nothing copied): its
`format_tcgen05_sparse_metadata` lays the metadata of an M = 128 tile out in shared memory as
rows of 64 two-bit indices, `async_copy_sparse_metadata_smem_to_tmem` copies each 64-index tile
with tcgen05.cp.128x128b (16-byte row i to lane i, four columns) to column 4 x tile, and its MMA
names column 2j with sparsity selector 0 or 1 for the (2j)-th and (2j+1)-th kind::f16
instruction, column 2j with selector 0 for the j-th 8-bit one. Its test_mma_sparse compares
M = 128 f16, bf16, s8, e4m3 and e5m2 products with a dense reference. The index arithmetic below
is that route written out in our words; the spec's metadata layouts must put every chunk's field
in the same bits. Nothing here ran on a Blackwell GPU.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import ptxspec
import pytest
from ptxspec.model import descriptors as D
from ptxspec.model import tmem
from test_tcgen05_execute import ORIGIN, codes, desc_for, f32_of, small_ints, variant

SPEC = ptxspec.load()
RNG = np.random.default_rng(29)
COLS = 512
TWO_OF_FOUR = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]  # PTX ISA 9.7.16.10.8.2, rising


def jax_smem_index(r: int, j: int, sixteen_bit: bool) -> tuple[int, int, int]:
    """(tile, row, index) of 2-bit index j of row r (j < K/2 of the whole K) in JAX's shared-memory
    image (tiles of 128 rows x 64 indices). 8-bit operands: row r, index j % 64 of tile j // 64.
    16-bit operands: rows are split as r = 16a + 8b + c and indices as j = 64t + 16d + 8e + f, and
    the index lands in row 16a + 8e + c at position 16d + 8b + f of tile t (the two 8 x 8 blocks
    of rows b and index-halves e trade places)."""
    t, jj = divmod(j, 64)
    if not sixteen_bit:
        return t, r, jj
    a, b, c = r // 16, (r // 8) % 2, r % 8
    d, e, f = jj // 16, (jj // 8) % 2, jj % 8
    return t, 16 * a + 8 * e + c, 16 * d + 8 * b + f


def jax_tmem_image(meta: np.ndarray, sixteen_bit: bool, col0: int) -> np.ndarray:
    """The TMEM image JAX's route leaves: meta (rows, K/4, 2) two-bit indices -> 128 lanes; index
    p of a 64-index shared-memory row is bits 2(p % 4) of byte p // 4 (sub-byte elements fill a
    byte from its low bits), and tcgen05.cp.128x128b puts byte q of row i in lane i, column
    q // 4, bits 8(q % 4), tile t at column 4t."""
    rows, chunks, _ = meta.shape
    img = np.zeros((128, COLS), np.uint32)
    flat = meta.reshape(rows, 2 * chunks)
    for r in range(rows):
        for j in range(2 * chunks):
            t, lane, p = jax_smem_index(r, j, sixteen_bit)
            q = p // 4
            img[lane, col0 + 4 * t + q // 4] |= np.uint32(int(flat[r, j]) << (8 * (q % 4) + 2 * (p % 4)))
    return img


def random_meta(rows: int, chunks: int) -> np.ndarray:
    return np.array(TWO_OF_FOUR, np.int64)[RNG.integers(0, 6, size=(rows, chunks))]


@pytest.mark.parametrize("kind,sixteen_bit,k_sparse", [("kind::f16", True, 32), ("kind::i8", False, 64),
                                                        ("kind::f8f6f4", False, 64)])
def test_metadata_layout_is_where_jax_puts_it(kind, sixteen_bit, k_sparse):
    """Four instructions' worth of metadata (K = 4 x the instruction's K): every chunk's 4-bit field
    of instruction i, read where the spec's layout says for the address and selector JAX names,
    holds the two indices JAX wrote."""
    n_instr = 4
    chunks = k_sparse // 4
    meta = random_meta(128, n_instr * chunks)
    img = jax_tmem_image(meta, sixteen_bit, col0=8)
    ml = tmem.metadata_layout(SPEC, kind, "D")
    for i in range(n_instr):
        col_addr, sel = (8 + 2 * (i // 2), i % 2) if sixteen_bit else (8 + 2 * i, 0)
        lane, col, bit = tmem.metadata_cells(ml, 128, chunks, sel)
        field = (img[lane, col + col_addr].astype(np.int64) >> bit) & 0xF
        want = meta[:, i * chunks:(i + 1) * chunks]
        assert (field == want[..., 0] | (want[..., 1] << 2)).all(), f"instruction {i}"


def test_metadata_fields_are_each_read_once():
    """Per kind, data path and selector, the fields of all rows and chunks are distinct nibbles."""
    desc = D.descriptor(SPEC, "tcgen05", "idesc")
    rows = {t.id: t.rows for t in desc.tmem_layouts}
    seen = 0
    for ml in desc.metadata_layouts:
        for kind in ml.kinds:
            chunks = 2 * desc.k[kind] // tmem.sparsity_rule(SPEC, kind).chunk_elements
            for path in ml.datapaths:
                for sel in ml.ids:
                    lane, col, bit = tmem.metadata_cells(ml, rows[path], chunks, sel)
                    nib = (lane * COLS + col) * 8 + bit // 4
                    assert len(np.unique(nib)) == nib.size
                    seen += 1
    assert seen >= 10  # f16 at two selectors and five 8-bit / 4-bit kinds, under layouts A and D


def sparse_case(kind, atype, m, n, sel=0, meta_col=0x100, cta="cta_group::1"):
    """A sparse product whose metadata lies in TMEM as JAX's route puts it: (v, img, smem, ops, truth)."""
    v = variant("tcgen05.mma.sp", "desc", cta_group=cta, kind=kind)
    k = D.shapes(SPEC, kind, cta, False, True)[2]
    sixteen = SPEC.types[atype].bits == 16
    dt = np.float16 if atype == "f16" else None
    dense, b = small_ints((m, k)), small_ints((k, n))
    meta = random_meta(m, k // 4)
    pos = (meta + 4 * np.arange(k // 4)[None, :, None]).reshape(m, k // 2)
    packed = np.take_along_axis(dense, pos, axis=1)
    kept = np.zeros((m, k), bool)
    np.put_along_axis(kept, pos, True, axis=1)
    if sixteen:  # the selector-th instruction of a pair: its metadata is the second of two
        pair = np.concatenate([random_meta(m, k // 4), meta], axis=1) if sel else meta
        img = jax_tmem_image(pair, True, col0=meta_col)
    else:
        img = jax_tmem_image(meta, False, col0=meta_col)
    buf = bytearray(1 << 16)
    enc = (lambda x: codes(x, dt)) if dt else (lambda x: (x.astype(np.int64) & 0xFF).astype(np.uint64))
    bits = SPEC.types[atype].bits
    ops = dict(d=0, a_desc=desc_for(ORIGIN, enc(packed), bits, buf),
               b_desc=desc_for(ORIGIN + 0x8000, enc(b).T.copy(), bits, buf), sp_meta=meta_col,
               idesc=D.encode(SPEC, kind, m=m, n=n, dtype={"f16": "f32", "s8": "s32"}[atype], atype=atype,
                              btype=atype, sparse="sparse", sparsity_selector=sel))
    return v, img, np.frombuffer(bytes(buf), np.uint8), ops, np.where(kept, dense, 0) @ b


@pytest.mark.parametrize("sel", [0, 1])
def test_f16_sparse_product_reads_its_metadata_from_tmem(sel):
    v, img, smem, ops, truth = sparse_case("kind::f16", "f16", 128, 16, sel=sel)
    out = v.execute(tmem=img, smem=smem, smem_origin=ORIGIN, **ops)
    assert (f32_of(out[:, :16]) == truth).all()


def test_i8_sparse_product_reads_its_metadata_from_tmem():
    v, img, smem, ops, truth = sparse_case("kind::i8", "s8", 128, 16)
    out = v.execute(tmem=img, smem=smem, smem_origin=ORIGIN, **ops)
    assert (out[:, :16].view(np.int32) == truth).all()


def test_undefined_metadata_and_undescribed_layouts_are_refused():
    v, img, smem, ops, _ = sparse_case("kind::f16", "f16", 128, 16)
    bad = img.copy()
    bad[3, 0x100] = (bad[3, 0x100] & ~np.uint32(0xF)) | np.uint32(0b0110)  # listed, order not stated
    with pytest.raises(ValueError, match="0b0110"):
        v.execute(tmem=bad, smem=smem, smem_origin=ORIGIN, **ops)
    bad[3, 0x100] &= ~np.uint32(0xF)  # 0b0000: both indices name element 0
    with pytest.raises(ValueError, match="row 3, chunk 0 is 0b0000"):
        v.execute(tmem=bad, smem=smem, smem_origin=ORIGIN, **ops)
    with pytest.raises(tmem.TmemError, match="selector 2"):
        v.execute(tmem=img, smem=smem, smem_origin=ORIGIN,
                  **{**ops, "idesc": ops["idesc"] | 2})
    no_addr = {k: x for k, x in ops.items() if k != "sp_meta"}
    with pytest.raises(TypeError, match="sp_meta"):
        v.execute(tmem=img, smem=smem, smem_origin=ORIGIN, **no_addr)
    # M = 64 (layout F): no metadata layout in the spec; kept positions may be passed instead
    v, img, smem, ops, truth = sparse_case("kind::f16", "f16", 64, 16)
    with pytest.raises(tmem.TmemError, match="layout F is not stated"):
        v.execute(tmem=img, smem=smem, smem_origin=ORIGIN, **ops)
    kept = np.array(TWO_OF_FOUR)[RNG.integers(0, 6, size=(64, 8))]
    assert v.execute(tmem=img, smem=smem, smem_origin=ORIGIN, meta=kept, **ops).shape == img.shape


@pytest.mark.full  # the quick tier diffs in test_diff (one edit of each kind)
def test_diff_reports_a_moved_metadata_field_and_a_dropped_code(tmp_path):
    """Where the metadata lies, and what a code keeps, are breaking changes (one diff for both)."""
    import shutil
    import subprocess
    import sys
    base = Path(__file__).resolve().parents[1] / "spec"
    head = tmp_path / "spec"
    shutil.copytree(base, head)
    p = head / "layouts" / "tcgen05.yaml"
    text = p.read_text(encoding="utf-8")
    for old, new in (('bit: "4 * (c % 8)"', 'bit: "4 * (7 - c % 8)"'),
                     ("[0x4, 0x8, 0xC, 0x9, 0xD, 0xE]", "[0x4, 0x8, 0xC, 0x9, 0xD]")):  # 0b1110 (2:4 and 4:8)
        assert text.count(old) == 1
        text = text.replace(old, new)
    p.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "ptxspec", "diff", str(base), str(head), "--fail-on", "breaking"],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    found = [ln for ln in r.stdout.splitlines() if "descriptor.tmem_changed" in ln]
    assert any("metadata_layouts meta_f8f6f4" in ln for ln in found), r.stdout
    assert any("sparsity kind::f16, kind::f8f6f4, kind::i8, kind::mxf4, kind::mxf4nvf4, kind::mxf8f6f4" in ln
               for ln in found), r.stdout
