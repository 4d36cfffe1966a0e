"""The .kind::* mma forms (ptxspec.blockscale) against independent truth.

* Decoding: every code of e2m1, e2m3, e3m2, ue8m0 and ue4m3 against ml_dtypes' types, bare and in
  the 8-bit containers the manual describes (fp6 in the low six bits, e2m1 in bits 2..5).
* Scale-factor maps: the manual's figures of the selector rules (thread-id-a, thread-id-b,
  byte-id), transcribed below as literal tables, and CuTe's SFALayout / SFBLayout of the SM120
  block-scaled atoms (transcribed as shape:stride with a small layout evaluator written here),
  for every block-scaled variant and every legal selector.
* Arithmetic: results that exact arithmetic fixes (small integers, powers of two), computed here in
  integers from ml_dtypes' values; scale bytes of 1.0 against the unscaled .kind::f8f6f4 variant;
  a scale 2^j on one block against that block of A multiplied by 2^j; sparse forms drop exactly
  the positions the metadata says (Inf and NaN in B where no row keeps a k take no part).
"""
import itertools
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from ptxspec.core import formats
from ptxspec.semantics import blockscale as bs
from ptxspec.semantics import sparse as sparse_mod
from ptxspec.semantics.execute import execute_kind
from ptxspec.semantics.numerics import computes_product

ML = {"e2m1": ml_dtypes.float4_e2m1fn, "e2m3": ml_dtypes.float6_e2m3fn, "e3m2": ml_dtypes.float6_e3m2fn,
      "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "ue8m0": ml_dtypes.float8_e8m0fnu}
ELEMENT_BITS = {"e2m1": 4, "e2m3": 6, "e3m2": 6, "e4m3": 8, "e5m2": 8}


def ml_values(tname, codes):
    return np.asarray(codes, np.uint8).view(ML[tname]).astype(np.float64)


def ml_codes(tname, values):
    """Element codes of exactly representable values (ml_dtypes' encoding, checked exact)."""
    v = np.asarray(values, np.float64)
    codes = v.astype(ML[tname]).view(np.uint8).astype(np.uint64)
    assert np.array_equal(ml_values(tname, codes), v), f"values not exact in {tname}"
    return codes


# ---------------------------------------------------------------------------------------------
# Decoding


@pytest.mark.parametrize("tname", ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2"])
def test_element_decode_every_code(spec, tname):
    codes = np.arange(1 << ELEMENT_BITS[tname], dtype=np.uint64)
    got = formats.decode(spec, tname, codes)
    assert np.array_equal(got, ml_values(tname, codes), equal_nan=True)


@pytest.mark.parametrize("tname, shift", [("e2m1", 2), ("e2m3", 0), ("e3m2", 0)])
def test_container_decode_every_byte(spec, tname, shift):
    """Every byte of an 8-bit container: the element is bits shift .. shift+width-1 (the manual:
    fp6 in the low six bits, e2m1 in the middle four); the other bits are padding."""
    width = ELEMENT_BITS[tname]
    byte = np.arange(256, dtype=np.uint64)
    got = formats.decode(spec, tname, bs.element_codes(spec, tname, byte, container=True))
    want = ml_values(tname, (byte >> np.uint64(shift)) & np.uint64((1 << width) - 1))
    assert np.array_equal(got, want)


def test_packed_e2m1_registers(spec):
    """mxf4: e2m1 packed two per byte; element i of a register is nibble i, low first."""
    v = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0")
    rng = np.random.default_rng(1)
    regs = rng.integers(0, 1 << 32, (32, 4), dtype=np.uint64).astype(np.uint32)
    A = v.unpack("a", regs)
    fm = v.fragment_map("a")
    t, i = 5, 11  # thread 5, element 11: register 1, nibble 3
    assert A[fm.row[t, i], fm.col[t, i]] == (int(regs[t, 1]) >> 12) & 0xF
    vals = formats.decode(spec, "e2m1", A)
    assert np.array_equal(vals, ml_values("e2m1", A))


def test_ue8m0_every_code(spec):
    codes = np.arange(256)
    num, frac, exp, nan = bs.scale_fields(spec, "ue8m0", codes)
    got = np.where(nan, np.nan, np.ldexp(num / 2.0 ** frac, exp))
    assert np.array_equal(got, ml_values("ue8m0", codes), equal_nan=True)
    assert nan[255] and nan.sum() == 1  # 0xFF is the only NaN; 0x00 is 2^-127
    assert np.array_equal(formats.decode(spec, "ue8m0", codes), ml_values("ue8m0", codes), equal_nan=True)


def test_ue4m3_every_code(spec):
    codes = np.arange(128)
    num, frac, exp, nan = bs.scale_fields(spec, "ue4m3", codes)
    got = np.where(nan, np.nan, np.ldexp(num / 2.0 ** frac, exp))
    assert np.array_equal(got, ml_values("e4m3", codes), equal_nan=True)  # e4m3 with the sign bit 0
    assert nan[0x7F] and nan.sum() == 1
    with pytest.raises(bs.ScaleError, match="0x80 is not a .ue4m3 code"):
        bs.scale_fields(spec, "ue4m3", np.arange(256))
    num, frac, exp, nan = bs.scale_fields(spec, "ue4m3", np.arange(256), top_bit="ignore")  # MMA-Sim: |e4m3|
    got = np.where(nan, np.nan, np.ldexp(num / 2.0 ** frac, exp))
    assert np.array_equal(got, np.abs(ml_values("e4m3", np.arange(256))), equal_nan=True)


# ---------------------------------------------------------------------------------------------
# Scale-factor maps: the manual's figures

# Figure "selection of SF_A by thread-id-a": lane -> row of A whose scales it supplies.
MANUAL_SFA_LANES = {
    0: {0: 0, 1: 8, 4: 1, 5: 9, 8: 2, 9: 10, 12: 3, 13: 11, 16: 4, 17: 12, 20: 5, 21: 13, 24: 6, 25: 14, 28: 7, 29: 15},
    1: {2: 0, 3: 8, 6: 1, 7: 9, 10: 2, 11: 10, 14: 3, 15: 11, 18: 4, 19: 12, 22: 5, 23: 13, 26: 6, 27: 14, 30: 7, 31: 15},
}
# Figure "selection of SF_B by thread-id-b": lane -> column of B.
MANUAL_SFB_LANES = {
    0: {0: 0, 4: 1, 8: 2, 12: 3, 16: 4, 20: 5, 24: 6, 28: 7},
    1: {1: 0, 5: 1, 9: 2, 13: 3, 17: 4, 21: 5, 25: 6, 29: 7},
    2: {2: 0, 6: 1, 10: 2, 14: 3, 18: 4, 22: 5, 26: 6, 30: 7},
    3: {3: 0, 7: 1, 11: 2, 15: 3, 19: 4, 23: 5, 27: 6, 31: 7},
}
# Figure "selection by byte-id": scale_vec -> byte-id -> the bytes holding scale column 0, 1, ...
MANUAL_BYTES = {1: {0: [0], 1: [1], 2: [2], 3: [3]}, 2: {0: [0, 1], 2: [2, 3]}, 4: {0: [0, 1, 2, 3]}}


def block_scaled(spec):
    # the register products' block-scaled forms (tcgen05.mma's take their scale factors from TMEM)
    return [v for v in spec.variants if v.qualifiers.get("block_scale") and computes_product(v)]


def test_block_scaled_count(spec):
    vs = block_scaled(spec)
    assert len(vs) == 110
    assert sum(v.sparse for v in vs) == 55


def test_scale_maps_match_the_manual_figures(spec):
    checked = 0
    for v in block_scaled(spec):
        sv = bs.scale_vec(v)
        for operand, lanes_by_tid in (("scale_a", MANUAL_SFA_LANES), ("scale_b", MANUAL_SFB_LANES)):
            sel = dict(v.operand("sel_a" if operand == "scale_a" else "sel_b").parts)
            assert sorted(sel["byte_id"]) == sorted(MANUAL_BYTES[sv])  # the legal byte-ids (Table 37)
            assert sorted(sel["thread_id"]) == sorted(lanes_by_tid)
            for byte_id, tid in itertools.product(sel["byte_id"], sel["thread_id"]):
                want = np.full((32, 4, 2), -1)
                for lane, index in lanes_by_tid[tid].items():
                    for j, byte in enumerate(MANUAL_BYTES[sv][byte_id]):
                        want[lane, byte] = (index, j)
                assert np.array_equal(bs.scale_map(v, operand, byte_id, tid), want), (v.id, operand, byte_id, tid)
                checked += 1
    assert checked == sum(len(MANUAL_BYTES[bs.scale_vec(v)]) * (2 + 4) for v in block_scaled(spec))


def test_block_sizes(spec):
    """K / scale_vec consecutive k (of the dense K) share one scale (the manual's Table 35)."""
    for v in block_scaled(spec):
        assert bs.block_size(v) * bs.scale_vec(v) == v.k
        written = [int(q[len("scale_vec::")]) for q in v.ptx.split(".") if q.startswith("scale_vec::")]
        default = 1 if "kind::mxf8f6f4" in v.ptx else 2  # the manual: mxf8f6f4 1X, mxf4 2X, mxf4nvf4 none
        assert bs.scale_vec(v) == (written[0] if written else default)


def test_bad_selector_is_an_error(spec):
    v = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")
    with pytest.raises(bs.ScaleError, match=r"selector \{1, 0\} of scale_a is undefined"):
        bs.scale_map(v, "scale_a", 1, 0)
    with pytest.raises(bs.ScaleError, match="thread-id in"):
        bs.scale_map(v, "scale_a", 0, 2)


# ---------------------------------------------------------------------------------------------
# Scale-factor maps: CuTe's SFALayout / SFBLayout of the SM120 block-scaled atoms


def cute_offset(shape, stride, i):
    """Offset of the i-th coordinate (colexicographic) of a CuTe layout given as nested tuples."""
    if isinstance(shape, int):
        return (i % shape) * stride
    off = 0
    for s, d in zip(shape, stride):
        size = int(np.prod(list(_flat(s))))
        off += cute_offset(s, d, i % size)
        i //= size
    return off


def _flat(s):
    if isinstance(s, int):
        yield s
    else:
        for x in s:
            yield from _flat(x)


# (instruction, kind, scale_vec, stype, K of the atom, SFVecSize the atom asserts), read from
# include/cute/atom/mma_traits_sm120{,_sparse}.hpp and include/cute/arch/mma_sm120{,_sparse}.hpp
CUTE_ATOMS = [
    ("mma", "kind::mxf8f6f4", 1, "ue8m0", 32, 32),
    ("mma", "kind::mxf4nvf4", 2, "ue8m0", 64, 32),
    ("mma", "kind::mxf4nvf4", 4, "ue4m3", 64, 16),
    ("mma.sp", "kind::mxf8f6f4", 1, "ue8m0", 64, 64),
    ("mma.sp", "kind::mxf4nvf4", 2, "ue8m0", 128, 64),
    ("mma.sp", "kind::mxf4nvf4", 4, "ue4m3", 128, 32),
]
CUTE_SFA = ((2, 2, 8), (8, 0, 1), 16)  # thread mode shape, stride; stride of the value (k) mode: M = 16
CUTE_SFB = ((4, 8), (0, 1), 8)  # N = 8


@pytest.mark.full
def test_scale_maps_match_cute(spec):
    covered = 0
    for v in block_scaled(spec):
        atom = [x for x in CUTE_ATOMS if x[0] == v.instruction and x[1] == v.qualifiers["kind"]
                and x[2] == bs.scale_vec(v) and x[3] == v.qualifiers["stype"] and x[4] == v.k]
        if not atom:
            continue  # .kind::mxf4, and ue8m0 with 4X: CuTe has no atom
        covered += 1
        vs_ = atom[0][5]
        assert bs.block_size(v) == vs_
        for operand, (tshape, tstride, kstride), extent in (("scale_a", CUTE_SFA, 16), ("scale_b", CUTE_SFB, 8)):
            # CuTe fixes the selectors at {0, 0}; its stride-0 thread modes are the lanes that the
            # other thread-id values select: they must map to the same row / column
            tids = dict(v.operand("sel_a" if operand == "scale_a" else "sel_b").parts)["thread_id"]
            for tid in tids:
                m = bs.scale_map(v, operand, 0, tid)
                for lane in range(32):
                    for kk in range(v.k):  # the atom's value mode runs over every k
                        off = cute_offset(tshape, tstride, lane) + kstride * kk
                        index, k = off % extent, off // extent
                        assert k == kk
                        blk = k // vs_  # the physical scale vector: one byte per SFVecSize k
                        hit = np.argwhere((m[lane, :, 1] == blk) & (m[lane, :, 0] >= 0))
                        if len(hit):
                            assert m[lane, hit[0][0], 0] == index, (v.id, operand, tid, lane)
                            assert hit[0][0] == blk  # byte j of the register holds K-block j
                        else:
                            assert tid != _cute_thread_id(operand, lane)
    assert covered == 104  # all but the 4 .kind::mxf4 and the 2 ue8m0 4X variants


def _cute_thread_id(operand, lane):
    return (lane % 4) // 2 if operand == "scale_a" else lane % 4


# ---------------------------------------------------------------------------------------------
# Arithmetic


def registers_from_scales(v, operand, scales, byte_id, tid, rng):
    """Scale registers built from the manual's figures (not from ptxspec's map); bytes no one reads random."""
    regs = rng.integers(0, 1 << 32, 32, dtype=np.uint64)
    sv = bs.scale_vec(v)
    lanes = (MANUAL_SFA_LANES if operand == "scale_a" else MANUAL_SFB_LANES)[tid]
    for lane, index in lanes.items():
        r = int(regs[lane])
        for j, byte in enumerate(MANUAL_BYTES[sv][byte_id]):
            code = int(scales[index, j] if operand == "scale_a" else scales[j, index])
            r = (r & ~(0xFF << (8 * byte))) | (code << (8 * byte))
        regs[lane] = r
    return regs.astype(np.uint32)[:, None]


def exact_f32(spec, x):
    return formats.encode_exact(spec, "f32", np.asarray(x, np.float64))


def test_small_integers_give_the_exact_product(spec):
    """Integer-valued A, B, C and power-of-two scales: D is the exact sum, for every block-scaled
    variant and selector (registers built from the manual's figures)."""
    rng = np.random.default_rng(7)
    for v in block_scaled(spec):
        M, N, K = v.m, v.n, v.k
        sv = bs.scale_vec(v)
        ints = {"e2m1": [0, 1, 2, 3, 4, -1, -2, -3], "e2m3": [0, 1, 2, 3, -1, -2], "e3m2": [0, 1, 2, 3, 4, -2, -4],
                "e4m3": [0, 1, 2, 3, 5, -1, -4], "e5m2": [0, 1, 2, 3, 4, -2, -3]}
        Av = rng.choice(ints[v.atype], (M, K)).astype(np.float64)
        Bv = rng.choice(ints[v.btype], (K, N)).astype(np.float64)
        Cv = rng.integers(-1000, 1000, (M, N)).astype(np.float64)
        if v.qualifiers["stype"] == "ue8m0":
            ja, jb = rng.integers(-3, 4, (M, sv)), rng.integers(-3, 4, (sv, N))
            sa, sb = (ja + 127).astype(np.uint64), (jb + 127).astype(np.uint64)
            SA, SB = 2.0 ** ja, 2.0 ** jb
        else:
            SA, SB = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0], (M, sv)), rng.choice([0.25, 1.0, 1.5, 2.5], (sv, N))
            sa, sb = ml_codes("e4m3", SA), ml_codes("e4m3", SB)
        blk = np.arange(K) // (K // sv)
        want = (Av * SA[:, blk]) @ (Bv * SB[blk, :]) + Cv  # exact: integers and short binary fractions
        if v.sparse:
            kept_idx = sparse_mod.random_kept(v, rng, v.metadata_nibbles)
            mask = kept_mask(v, kept_idx)
            Av = np.where(mask, Av, 0.0)
            want = (Av * SA[:, blk]) @ (Bv * SB[blk, :]) + Cv
        A, B = ml_codes(v.atype, Av), ml_codes(v.btype, Bv)
        regs = dict(b=v.pack("b", container(spec, v, "b", B)), c=v.pack("c", exact_f32(spec, Cv)))
        if v.sparse:
            packed = sparse_mod.compress(v, container(spec, v, "a", A), kept_idx)
            regs.update(a=v.pack("a", packed), e=sparse_mod.pack_metadata(v, kept_idx, 0), f=0)
        else:
            regs["a"] = v.pack("a", container(spec, v, "a", A))
        parts_a = dict(v.operand("sel_a").parts)
        parts_b = dict(v.operand("sel_b").parts)
        for (ba, ta), (bb, tb) in zip(itertools.product(parts_a["byte_id"], parts_a["thread_id"]),
                                      itertools.cycle(itertools.product(parts_b["byte_id"], parts_b["thread_id"]))):
            d = execute_kind(v, **regs, scale_a=registers_from_scales(v, "scale_a", sa, ba, ta, rng),
                               scale_b=registers_from_scales(v, "scale_b", sb, bb, tb, rng),
                               sel_a=(ba, ta), sel_b=(bb, tb))
            assert np.array_equal(v.unpack("d", d), exact_f32(spec, want)), (v.id, ba, ta, bb, tb)


def container(spec, v, mat, codes):
    """Element codes placed in the variant's register slots (8-bit containers where it uses them)."""
    t = spec.types[getattr(v, f"{mat}type")]
    _, ebits, _ = v.fragment_layouts[mat]
    return codes << np.uint64(t.container_shift) if ebits > t.bits else codes


def kept_mask(v, kept_idx):
    """Dense M x K mask of the kept elements, from kept unit indices per chunk (written here: 2:4 on
    8-bit containers keeps elements 4c + i; the pair-wise 4:8 of packed fp4 keeps 8c + 2i, 8c + 2i + 1)."""
    M, K = v.m, v.k
    mask = np.zeros((M, K), bool)
    pairwise = v.atype == "e2m1" and not bs._container(v, "a")
    for r, c, j in itertools.product(range(M), range(kept_idx.shape[1]), range(kept_idx.shape[2])):
        i = int(kept_idx[r, c, j])
        if pairwise:
            mask[r, 8 * c + 2 * i] = mask[r, 8 * c + 2 * i + 1] = True
        else:
            mask[r, 4 * c + i] = True
    assert mask.sum() == M * K // 2
    return mask


MXF8 = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.{a}.{b}.f32.ue8m0"
F8F6F4 = "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.{a}.{b}.f32"


@pytest.mark.parametrize("a, b", list(itertools.product(["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"], repeat=2)))
def test_unit_scales_equal_the_unscaled_kind(spec, a, b):
    """Every scale byte 1.0 (ue8m0 127): bit for bit the .kind::f8f6f4 result, random register bits."""
    vs, vu = spec.variant(MXF8.format(a=a, b=b)), spec.variant(F8F6F4.format(a=a, b=b))
    rng = np.random.default_rng(11)
    regs = {x: rng.integers(0, 1 << 32, (8, 32, vs.operand(x).regs), dtype=np.uint64).astype(np.uint32)
            for x in "abc"}
    one = np.full((8, 32, 1), 0x7F7F7F7F, np.uint32)
    d_scaled = execute_kind(vs, **regs, scale_a=one, scale_b=one, sel_a=(2, 1), sel_b=(3, 2))
    d_plain = execute_kind(vu, **regs)
    assert np.array_equal(d_scaled, d_plain)


@pytest.mark.parametrize("vid, atype", [
    ("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e5m2.f32.ue8m0", "e4m3"),
    ("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e2m3.f32.ue8m0", "e3m2"),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0", "e2m1"),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0", "e2m1"),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", "e2m1"),
])
def test_power_of_two_scale_is_multiplying_the_block(spec, vid, atype):
    """scale_A[r][blk] = 2^j gives what A's block multiplied by 2^j gives (values chosen so both are
    exact in the format), whatever the other data (random B and C bits)."""
    v = spec.variant(vid)
    rng = np.random.default_rng(5)
    sv, K = bs.scale_vec(v), v.k
    small = {"e4m3": [0.25, 0.5, -0.75, 1.0, 1.5], "e3m2": [0.25, 0.5, -0.75, 1.0, 1.5], "e2m1": [0.5, 1.0, -1.5, 0.0]}
    one = 127 if v.qualifiers["stype"] == "ue8m0" else 0x38
    for trial in range(20):
        j = int(rng.integers(1, 3))
        Av = rng.choice(small[atype], (v.m, K))
        B = rng.integers(0, 256, (K, v.n)).astype(np.uint64) & np.uint64((1 << spec.types[v.btype].bits) - 1)
        C = rng.integers(0, 1 << 32, (v.m, v.n), dtype=np.uint64)
        r, blk = int(rng.integers(v.m)), int(rng.integers(sv))
        sa = np.full((v.m, sv), one, np.uint64)
        sb = np.full((sv, v.n), one, np.uint64)
        sa[r, blk] = 127 + j if one == 127 else ml_codes("e4m3", [2.0 ** j])[0]
        Av2 = Av.copy()
        Av2[r, blk * (K // sv):(blk + 1) * (K // sv)] *= 2.0 ** j
        p = bs.variant_params(v)
        d1 = bs.mma_kind(spec, ml_codes(atype, Av), B, C, v.atype, v.btype, "f32", "f32", p, sa, sb, v.qualifiers["stype"])
        sa[r, blk] = one
        d2 = bs.mma_kind(spec, ml_codes(atype, Av2), B, C, v.atype, v.btype, "f32", "f32", p, sa, sb, v.qualifiers["stype"])
        assert np.array_equal(d1, d2), (trial, r, blk, j)


@pytest.mark.parametrize("vid", [
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
])
def test_sparse_drops_exactly_the_metadata_positions(spec, vid):
    """Every row keeps the same positions; B holds Inf and NaN (where its type has them) at every k
    no row keeps, huge values elsewhere never meet them: D is the exact sum over the kept k."""
    v = spec.variant(vid)
    rng = np.random.default_rng(3)
    kept_idx = sparse_mod.random_kept(v, rng, v.metadata_nibbles)
    kept_idx[:] = kept_idx[0]  # the same metadata for every row
    mask = kept_mask(v, kept_idx)
    Av = np.where(mask, rng.choice([1.0, 2.0, -1.0, 0.5], (v.m, v.k)), 0.0)
    Bv = rng.choice([1.0, -2.0, 3.0, 0.5], (v.k, v.n))
    want = Av @ Bv
    B = ml_codes(v.btype, Bv)
    if v.btype == "e5m2":
        dropped = ~mask[0]
        B[dropped, :] = np.where(rng.random((dropped.sum(), v.n)) < 0.5, 0x7C, 0x7F)  # +Inf, NaN
    A = container(spec, v, "a", ml_codes(v.atype, Av))
    regs = dict(a=v.pack("a", sparse_mod.compress(v, A, kept_idx)), b=v.pack("b", container(spec, v, "b", B)),
                c=v.pack("c", exact_f32(spec, np.zeros((v.m, v.n)))), e=sparse_mod.pack_metadata(v, kept_idx, 0), f=0)
    if v.qualifiers.get("block_scale"):
        sv = bs.scale_vec(v)
        one = 127 if v.qualifiers["stype"] == "ue8m0" else 0x38
        regs["scale_a"] = registers_from_scales(v, "scale_a", np.full((v.m, sv), one), 0, 0, rng)
        regs["scale_b"] = registers_from_scales(v, "scale_b", np.full((sv, v.n), one), 0, 0, rng)
    d = execute_kind(v, **regs)
    assert np.array_equal(v.unpack("d", d), exact_f32(spec, want))


def test_nan_scale_poisons_its_row_and_column_only(spec):
    v = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0")
    rng = np.random.default_rng(2)
    A = rng.integers(0, 16, (16, 64)).astype(np.uint64)
    B = rng.integers(0, 16, (64, 8)).astype(np.uint64)
    C = exact_f32(spec, rng.integers(-9, 9, (16, 8)))
    sa, sb = np.full((16, 2), 127, np.uint64), np.full((2, 8), 127, np.uint64)
    sa[3, 1], sb[0, 6] = 0xFF, 0xFF
    d = bs.mma_kind(spec, A, B, C, "e2m1", "e2m1", "f32", "f32", bs.variant_params(v), sa, sb, "ue8m0")
    nan = d == 0x7FFFFFFF
    want = np.zeros((16, 8), bool)
    want[3, :] = want[:, 6] = True
    assert np.array_equal(nan, want)


def test_bad_scale_operands_are_errors(spec):
    v = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")
    z = {x: np.zeros((32, v.operand(x).regs), np.uint32) for x in "abc"}
    ok = np.full((32, 1), 0x38383838, np.uint32)
    with pytest.raises(bs.ScaleError, match="is block-scaled: pass scale_a= and scale_b="):
        execute_kind(v, **z)
    with pytest.raises(bs.ScaleError, match="undefined"):
        execute_kind(v, **z, scale_a=ok, scale_b=ok, sel_a=(2, 0))
    bad = ok.copy()
    bad[0] = 0x38383880  # lane 0 supplies row 0 with selector {0, 0}: byte 0x80 is no ue4m3 code
    with pytest.raises(bs.ScaleError, match="0x80 is not a .ue4m3 code"):
        execute_kind(v, **z, scale_a=bad, scale_b=ok)
    execute_kind(v, **z, scale_a=bad, scale_b=ok, sel_a=(0, 1))  # lane 0 is not read with thread-id 1
    u = spec.variant(F8F6F4.format(a="e4m3", b="e4m3"))
    with pytest.raises(bs.ScaleError, match="takes no scale operands"):
        execute_kind(u, **{x: np.zeros((32, u.operand(x).regs), np.uint32) for x in "abc"}, scale_a=ok, scale_b=ok)


@pytest.mark.parametrize("kind_id, plain_id", [
    ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"),
    ("mma.sync.aligned.m16n8k16.row.col.kind::mxf4.f16.e5m2.e5m2.f16", "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16"),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32"),
])
def test_sm100_is_the_h100_proven_fp8_emulation(spec, kind_id, plain_id):
    """On sm_100a ptxas emulates the fp8 .kind forms exactly as it emulates plain fp8 mma on sm_90a
    (F2FP to f16, two HMMA steps, a rounding add: campaigns/survey/blockscale-sass-13.5.37.json), so the
    sm_100a arithmetic is the executor's H100-proven one for the plain form."""
    vk, vp = spec.variant(kind_id), spec.variant(plain_id)
    rng = np.random.default_rng(9)
    regs = {x: rng.integers(0, 1 << 32, (4, 32, vk.operand(x).regs), dtype=np.uint64).astype(np.uint32) for x in "abc"}
    kw = {}
    if vk.sparse:
        kept = sparse_mod.random_kept(vk, rng, vk.metadata_nibbles)
        kw = dict(e=sparse_mod.pack_metadata(vk, kept, 0), f=0)
    got = execute_kind(vk, **regs, **kw, target="sm_100a")
    want = vp.execute(**regs, **kw)
    assert np.array_equal(got, want)


def test_who_holds_a_scale_and_what_a_byte_covers(spec):
    """The issue's question, answered from the manual's figures: which byte of which thread's
    scale-a register scales A[37 % 16][k-block 1] of mxf4nvf4 .scale_vec::4X (blocks of 16 k)?"""
    v = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")
    row, k = 37 % 16, 16  # k 16..31: K-block 1
    want = [(0, tid, lane, 1) for tid, lanes in MANUAL_SFA_LANES.items() for lane, r in lanes.items() if r == row]
    assert sorted(bs.scale_holders(v, "scale_a", row, k)) == sorted(want) == [(0, 0, 20, 1), (0, 1, 22, 1)]
    assert bs.scale_coverage(v, "scale_a", 21, 3) == [(0, 0, 13, 3, 48, 63)]  # lane 21: row 5 + 8, byte 3
    assert bs.scale_coverage(v, "scale_b", 21, 0) == [(0, 1, 5, 0, 0, 15)]  # thread-id-b 1: column 5
    rows = bs.scale_rows(v)
    assert len(rows) == 2 * 16 * 4 + 4 * 8 * 4  # A: 2 thread-ids x 16 lanes x 4 bytes; B: 4 x 8 x 4
    with pytest.raises(ValueError, match="must lie in 0..15 and 0..63"):
        bs.scale_holders(v, "scale_a", 16, 0)


def test_scale_rows_cover_every_scale_once_per_selector(spec):
    for v in block_scaled(spec):
        rows = bs.scale_rows(v)
        for operand, extent in (("scale_a", v.m), ("scale_b", v.n)):
            for sel in bs.selector_values(v, operand):
                got = sorted((r[5] if operand == "scale_a" else r[6], r[7]) for r in rows if r[0] == operand
                             and r[1:3] == sel)
                assert got == sorted(itertools.product(range(extent), range(bs.scale_vec(v))))
        assert all(r[9] - r[8] + 1 == bs.block_size(v) for r in rows)


# ---------------------------------------------------------------------------------------------
# The open questions: every named alternative is a live parameter


ALT_VARIANTS = [
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
]


def _random_case(spec, v, rng, n):
    """Random element codes, C zero in half the cases (so a zero C's exponent matters), scales
    small enough that products fall near C's zero exponent now and then."""
    bits = spec.types[v.atype].bits
    A = rng.integers(0, 1 << bits, (n, v.m, v.k)).astype(np.uint64)
    B = rng.integers(0, 1 << bits, (n, v.k, v.n)).astype(np.uint64)
    C = rng.integers(0, 1 << 32, (n, v.m, v.n), dtype=np.uint64)
    C[: n // 2] = 0
    sv = bs.scale_vec(v)
    if v.qualifiers["stype"] == "ue8m0":
        sa, sb = rng.integers(40, 140, (n, v.m, sv)), rng.integers(40, 140, (n, sv, v.n))
    else:
        sa, sb = rng.integers(0, 0x7F, (n, v.m, sv)), rng.integers(0, 0x7F, (n, sv, v.n))
    if v.atype == "e4m3":
        # Where a zero C's exponent decides (worked by hand): C = 0, D[0][0] = 2^-142 + p with the
        # scales 2^-71 each, p = -2^-153 (case 0) or -2^-159 (case 1). The model (-133) cuts at 2^-158:
        # it keeps the first and D = 2^-142 - 2^-149 (toward zero), drops the second (D = 2^-142);
        # -126 cuts at 2^-151 and drops both; no term (None) cuts at 2^-167 and keeps both.
        for case, (a1, b1) in enumerate([(-2.0 ** -6, 2.0 ** -5), (-2.0 ** -9, 2.0 ** -8)]):
            A[case], B[case], C[case] = 0, 0, 0
            A[case, 0, :2] = ml_codes("e4m3", [1.0, a1])
            B[case, :2, 0] = ml_codes("e4m3", [1.0, b1])
            sa[case], sb[case] = 127 - 71, 127 - 71
    return A, B, C, sa.astype(np.uint64), sb.astype(np.uint64)


def test_every_alternative_is_a_live_parameter(spec):
    """Each entry of ALTERNATIVES (the choices public evidence leaves open, campaigns/survey/blockscale.md
    section 7) changes D for some input of a variant it applies to, so one Blackwell run can tell
    it from the model; and the notes name every one of them."""
    notes = (Path(__file__).resolve().parents[1] / "campaigns" / "survey" / "blockscale.md").read_text()
    changed: dict[str, int] = {}
    rng = np.random.default_rng(13)
    for vid in ALT_VARIANTS:
        v = spec.variant(vid)
        base = bs.variant_params(v)
        A, B, C, sa, sb = _random_case(spec, v, rng, 64)
        stype = v.qualifiers["stype"]
        want = bs.mma_kind(spec, A, B, C, v.atype, v.btype, "f32", "f32", base, sa, sb, stype)
        for name, p in bs.alternatives_for(v, base).items():
            if name.startswith("ue4m3_top_bit"):
                top = sa | np.uint64(0x80)
                with pytest.raises(bs.ScaleError, match="is not a .ue4m3 code"):
                    bs.mma_kind(spec, A, B, C, v.atype, v.btype, "f32", "f32", base, top, sb, stype)
                got = bs.mma_kind(spec, A, B, C, v.atype, v.btype, "f32", "f32", p, top, sb, stype)
                assert np.array_equal(got, want), name  # MMA-Sim's reading: the top bit is ignored
                changed[name] = changed.get(name, 0) + int(top.size)
            else:
                with np.errstate(all="raise"):  # no alternative may compute through an overflow
                    got = bs.mma_kind(spec, A, B, C, v.atype, v.btype, "f32", "f32", p, sa, sb, stype)
                changed[name] = changed.get(name, 0) + int((got != want).sum())
    assert set(changed) == set(bs.ALTERNATIVES)
    assert all(changed.values()), changed
    for name in bs.ALTERNATIVES:
        assert f"`{name}`" in notes, name


def test_a_group_must_lie_in_one_scale_block(spec):
    v = spec.variant(ALT_VARIANTS[2])  # 4X: blocks of 16 k
    base = bs.variant_params(v)
    assert "group=32 (fp4 groups of 32 k)" not in bs.alternatives_for(v, base)
    A, B, C, sa, sb = _random_case(spec, v, np.random.default_rng(1), 1)
    with pytest.raises(ValueError, match="a group must lie in one block"):
        bs.mma_kind(spec, A, B, C, "e2m1", "e2m1", "f32", "f32", bs.with_alternative(base, "group=32 (fp4 groups of 32 k)"),
                    sa, sb, "ue4m3")
