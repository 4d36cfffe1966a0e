"""ptxspec.smem and ptxspec.sparse: descriptors, operand layouts, sparse compression, metadata."""
import numpy as np
import pytest
from ptxspec.model import smem as S
from ptxspec.semantics import sparse as SP

D = "wgmma.mma_async.sync.aligned"


def test_descriptor_round_trip(spec):
    d = S.encode_descriptor(spec, start=0x2000, lbo=16, sbo=1024, swizzle="128B", family="wgmma")
    assert d == 0x4000004000010200  # CUTLASS's GmmaDescriptor for the same fields
    got = S.decode_descriptor(spec, d, "wgmma")
    assert (got["start_address"], got["leading_byte_offset"], got["stride_byte_offset"], got["swizzle_name"]) == \
        (0x2000, 16, 1024, "128B")
    assert got["unused_bits"] == 0
    for mode in spec.smem["wgmma"].swizzle_modes:
        d = S.encode_descriptor(spec, 0x3F0, 0x1230, 0x3FFF0, mode.name, base_offset=5, family="wgmma")
        back = S.decode_descriptor(spec, d, "wgmma")
        assert (back["start_address"], back["leading_byte_offset"], back["stride_byte_offset"],
                back["base_offset"], back["swizzle"]) == (0x3F0, 0x1230, 0x3FFF0, 5, mode.code)


@pytest.mark.parametrize("bad", [dict(start=0x2008), dict(lbo=0x40000), dict(base_offset=8)])
def test_descriptor_rejects_unrepresentable(spec, bad):
    args = dict(start=0x2000, lbo=16, sbo=1024, swizzle="none") | bad
    with pytest.raises(ValueError):
        S.encode_descriptor(spec, **args, family="wgmma")


@pytest.mark.parametrize("ptx, major", [
    (f"{D}.m64n72k16.f32.f16.f16", "K"), (f"{D}.m64n72k16.f32.bf16.bf16", "MN"),
    (f"{D}.m64n72k8.f32.tf32.tf32", "K"), (f"{D}.m64n72k32.f16.e4m3.e5m2", "K"),
    (f"{D}.m64n64k32.s32.u8.s8", "K"), (f"{D}.m64n64k256.s32.b1.b1.and.popc", "K"),
    ("wgmma.mma_async.sp.sync.aligned.m64n72k32.f32.f16.f16", "MN"),
])
@pytest.mark.parametrize("mode", ["none", "32B", "64B", "128B"])
def test_write_read_round_trip(spec, ptx, major, mode):
    v = spec.variant(ptx, "desc")
    rng = np.random.default_rng(0)
    for matrix in ("a", "b"):
        rows, cols = S.operand_shape(v, matrix)
        bits = S.element_bits(v, matrix)
        mn, k = (rows, cols) if matrix == "a" else (cols, rows)
        W = S.swizzle_mode(spec, mode, "wgmma").width
        if major == "K":
            lbo, sbo = (128, -(-k * bits // 128) * 128) if mode == "none" else (16, 8 * W)
            if mode != "none" and k * bits > 8 * W:
                lbo, sbo = 8 * W * -(-mn // 8), 8 * W
        else:
            atoms = -(-mn * bits // (8 * W))
            lbo, sbo = ((-(-mn * bits // 128)) * 128, 128) if mode == "none" else (8 * W, 8 * W * atoms)
        vals = rng.integers(0, 1 << min(bits, 16), size=(rows, cols)).astype(np.uint64)
        buf = bytearray(64 * 1024)
        lay = S.write_matrix(buf, v, matrix, major, mode, 0x1000, lbo, sbo, vals, origin=0)
        flat = lay.byte * 8 + lay.bit
        assert np.unique(flat).size == flat.size
        back = S.read_matrix(buf, v, matrix, major, mode, 0x1000, lbo, sbo, origin=0)
        assert np.array_equal(back.astype(np.uint64), vals)
        out = S.operand_byte_addresses(v, matrix, major, mode, 0x1000, lbo, sbo)
        assert isinstance(out, tuple) == (bits < 8)


def test_swizzle_permutes_16_byte_units_within_rows(spec):
    v = spec.variant(f"{D}.m64n8k16.f32.f16.f16", "desc")
    plain = S.operand_byte_addresses(v, "a", "K", "128B", 0x2000, 16, 1024) - 0x2000
    # K-major 128B: row r at r*128 (within 8 rows), its 16-byte units XORed with r % 8
    assert sorted(set((plain[:8] // 128).ravel())) == list(range(8))
    assert ((plain[:8] % 128) // 16 == (np.arange(8)[:, None] ^ (np.arange(16)[None, :] // 8))).all()


@pytest.mark.parametrize("name", ["wgmma.sparse.16bit", "wgmma.sparse.tf32", "wgmma.sparse.8bit"])
def test_sparse_round_trip(spec, name):
    v = next(x for x in spec.variants if x.sparsity is not None and x.sparsity.name == name and x.n == 72
             or (x.sparsity is not None and x.sparsity.name == name and x.n == 64))
    rng = np.random.default_rng(1)
    g = SP.geometry(v)
    for sel in v.selectors:
        kept = SP.random_kept(v, rng)
        dense = rng.integers(1, 1000, size=(v.m, v.k))
        packed = SP.compress(v, dense, kept)
        assert packed.shape == (v.m, g["packed_cols"])
        meta = SP.pack_metadata(v, kept, sel)
        assert np.array_equal(SP.unpack_metadata(v, meta, sel), kept)
        full = SP.expand(v, packed, meta, sel)
        keep = full != 0
        assert (keep.sum(axis=1) == v.k // 2).all()
        assert np.array_equal(full[keep], dense[keep])
        # threads that do not contribute are ignored
        contributes, _, _ = SP.metadata_map(v, sel)
        noisy = np.where(contributes, meta, np.uint32(0xFFFFFFFF))
        assert np.array_equal(SP.expand(v, packed, noisy, sel), full)


def test_sparse_rejects_invalid_kept(spec):
    v = spec.variant("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32", "reg")
    kept = SP.nibble_to_kept(v, np.full((64, 8), 0x8))  # units 0 and 2: half of two tf32 elements
    with pytest.raises(ValueError):
        SP.compress(v, np.zeros((64, 16)), kept)
