"""Typed values in and out of Variant.pack/unpack (ptxspec.values), against ml_dtypes and exact arithmetic.

The dtypes each element type must map to are transcribed here from the formats' definitions (the
PTX manual's element types; ml_dtypes' documented formats), not read from the code under test.
"""
import ml_dtypes
import numpy as np
import pytest
from ptxspec.core import formats
from ptxspec.core.values import from_codes, to_codes, to_tf32
from ptxspec.model import smem as S
from ptxspec.semantics.execute import execute_kind

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

DTYPE = {"f64": np.float64, "f32": np.float32, "tf32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
         "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e3m2": ml_dtypes.float6_e3m2fn,
         "e2m3": ml_dtypes.float6_e2m3fn, "e2m1": ml_dtypes.float4_e2m1fn, "ue8m0": ml_dtypes.float8_e8m0fnu,
         "ue4m3": ml_dtypes.float8_e4m3fn, "s32": np.int32, "s8": np.int8, "u8": np.uint8, "s4": ml_dtypes.int4,
         "u4": ml_dtypes.uint4, "b1": np.bool_,
         # untyped bits of the matrix movements: unsigned integers of (at least) their width
         "b16": np.uint16, "b8": np.uint8, "b8x16": np.uint8, "b6x16_p32": np.uint8,
         "b4x16_p64": ml_dtypes.uint4, "b2": ml_dtypes.uint4,
         "b32": np.uint32, "u32": np.uint32}


def test_every_element_type_has_its_dtype(spec):
    assert set(DTYPE) == set(spec.types)


def _operands_by_type(spec):
    """One (variant, operand) per element type and slot width (container or not)."""
    seen = {}
    for v in spec.variants:
        for mat in v.fragment_layouts:
            t = v.element_type(mat)
            key = (t, v.fragment_map(mat).bits)
            seen.setdefault(key, (v, mat))
    return seen


def _random_codes(rng, t, shape, slot_bits, shift):
    width = t.bits if t.cls != "float" else int(t.signed) + t.format["exponent"] + t.format["mantissa"]
    codes = rng.integers(0, 1 << width, shape, dtype=np.uint64) << np.uint64(t.bits - width)
    return codes << np.uint64(shift)


def test_typed_round_trip_for_every_element_type(spec):
    """codes -> registers -> typed values -> registers gives the same registers, and the values are
    the ones ml_dtypes (or numpy) gives for those codes."""
    rng = np.random.default_rng(0)
    by_type = _operands_by_type(spec)
    # scale types, ldmatrix's destination format and tcgen05.ld.spcompress's index type name no fragment
    assert {t for t, _ in by_type} >= set(spec.types) - {"ue8m0", "ue4m3", "b8x16", "b2"}
    for (tname, slot), (v, mat) in sorted(by_type.items()):
        t = spec.types[tname]
        fm = v.fragment_map(mat)
        shift = t.container_shift if slot > t.bits else 0
        codes = _random_codes(rng, t, (fm.rows, fm.cols), slot, shift)
        regs = v.pack(mat, codes)
        vals = v.unpack(mat, regs, values=True)
        assert vals.dtype == np.dtype(DTYPE[tname]), (v.id, mat, vals.dtype)
        assert np.array_equal(v.pack(mat, vals), regs), (v.id, mat)
        raw = (codes >> np.uint64(shift)).astype(np.uint64)
        if t.cls == "float" and tname != "tf32":
            want = raw.astype(np.uint8 if t.bits <= 8 else np.uint16 if t.bits <= 16 else np.uint32 if t.bits <= 32
                              else np.uint64).view(DTYPE[tname])
            assert np.array_equal(vals.astype(np.float64), want.astype(np.float64), equal_nan=True), v.id
        elif tname == "tf32":  # float32 with the low 13 bits zero
            assert not (vals.view(np.uint32) & np.uint32(0x1FFF)).any()
            assert np.array_equal(vals.view(np.uint32), raw.astype(np.uint32))
        elif t.cls == "int":
            signed = np.where(raw >= 1 << (t.bits - 1), raw.astype(np.int64) - (1 << t.bits), raw.astype(np.int64)) \
                if t.signed else raw.astype(np.int64)
            assert np.array_equal(vals.astype(np.int64), signed), v.id


@pytest.mark.parametrize("tname", ["ue8m0", "ue4m3"])
def test_scale_types_round_trip(spec, tname):
    t = spec.types[tname]
    codes = np.arange(1 << t.bits, dtype=np.uint64)
    vals = from_codes(t, codes, 8)
    assert vals.dtype == np.dtype(DTYPE[tname])
    assert np.array_equal(to_codes(t, vals, 8, "x"), codes)
    with pytest.raises(ValueError, match="no sign") if tname == "ue4m3" else pytest.raises(TypeError):
        to_codes(t, -vals[1:3] if tname == "ue4m3" else vals.astype(np.float32), 8, "x")


# -- every element type of every input, through execute: small integers give exact products ------

def _ints(rng, lo, hi, shape):
    return rng.integers(lo, hi + 1, shape)


CASES = [  # (opcode, form, element range of A and B, dtype of A/B values, dtype of C values)
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "", (-4, 4), np.float16, np.float32),
    ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "", (-2, 2), np.float16, np.float16),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "", (-4, 4), ml_dtypes.bfloat16, np.float32),
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "", (-8, 8), np.float32, np.float32),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", "", (-4, 4), None, np.float32),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "", (-100, 100), np.float64, np.float64),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", "", None, None, np.int32),
    ("mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32", "", None, None, np.int32),
    ("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", "", (0, 1), np.bool_, np.int32),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", "", (-4, 4), np.float16, np.float32),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32", "", (-4, 4), ml_dtypes.bfloat16, np.float32),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32", "", None, None, np.int32),
]


def _typed(tname, ints, dtype):
    """Values in the given dtype, or in the element type's own (int8, ml_dtypes.int4, float8_e4m3fn, ...)."""
    return ints.astype(dtype if dtype is not None else DTYPE[tname])


def _range(spec, tname, given):
    if given is not None:
        return given
    t = spec.types[tname]
    return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.signed else (0, (1 << t.bits) - 1)


@pytest.mark.parametrize("opcode, form, rng_ab, dt_ab, dt_c", CASES, ids=[c[0] for c in CASES])
def test_execute_on_typed_values_is_the_exact_product(spec, opcode, form, rng_ab, dt_ab, dt_c):
    v = spec.variant(opcode, form=form or None)
    rng = np.random.default_rng(1)
    M, N, K = v.m, v.n, v.k
    A = _ints(rng, *_range(spec, v.atype, rng_ab), (M, K))
    B = _ints(rng, *_range(spec, v.btype, rng_ab), (K, N))
    C = _ints(rng, -8, 8, (M, N)) if v.ctype not in ("f16",) else _ints(rng, -2, 2, (M, N))
    if v.atype == "tf32":
        assert np.array_equal(to_tf32(A.astype(np.float32)), A.astype(np.float32))  # small ints are exact
    d = v.execute(a=v.pack("a", _typed(v.atype, A, dt_ab)), b=v.pack("b", _typed(v.btype, B, dt_ab)),
                  c=v.pack("c", C.astype(dt_c)))
    D = v.unpack("d", d, values=True)
    assert D.dtype == np.dtype(DTYPE[v.dtype])
    assert np.array_equal(D.astype(np.float64), (A @ B + C).astype(np.float64)), v.id


def test_wgmma_typed_registers_and_shared_memory_b(spec):
    """wgmma, A from registers as e4m3 values, B in shared memory as e5m2 codes: the exact product."""
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2", form="reg")
    rng = np.random.default_rng(2)
    A, B, C = _ints(rng, -4, 4, (64, 32)), _ints(rng, -4, 4, (32, 16)), _ints(rng, -8, 8, (64, 16))
    img = bytearray(16384)
    b_codes = B.astype(ml_dtypes.float8_e5m2).view(np.uint8).astype(np.uint64)
    S.write_matrix(img, v, "b", "K", "128B", 0x400, 16, 1024, b_codes)
    d = v.execute(d=v.pack("d", C.astype(np.float32)), a=v.pack("a", A.astype(ml_dtypes.float8_e4m3fn)),
                  b_desc=S.descriptor_for(v, 0x400, 16, 1024, "128B"), smem=bytes(img))
    assert np.array_equal(v.unpack("d", d, values=True), (A @ B + C).astype(np.float32))


@pytest.mark.parametrize("atype, btype", [("e2m1", "e3m2"), ("e2m3", "e2m1"), ("e3m2", "e4m3")])
def test_fp6_fp4_typed_values_in_containers(spec, atype, btype):
    """.kind::f8f6f4: fp6/fp4 values packed into their 8-bit containers; the product is exact."""
    v = spec.variant(f"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.{atype}.{btype}.f32")
    rng = np.random.default_rng(3)
    A, B, C = _ints(rng, -2, 2, (16, 32)), _ints(rng, -2, 2, (32, 8)), _ints(rng, -4, 4, (16, 8))
    regs = dict(a=v.pack("a", A.astype(DTYPE[atype])), b=v.pack("b", B.astype(DTYPE[btype])),
                c=v.pack("c", C.astype(np.float32)))
    d = execute_kind(v, **regs)
    assert np.array_equal(v.unpack("d", d, values=True), (A @ B + C).astype(np.float32))
    # the container holds the code where the spec says: e2m1 in bits 2-5, fp6 in bits 0-5
    one = v.unpack("a", v.pack("a", np.ones((16, 32), DTYPE[atype])))[0, 0]
    code = int(np.array(1.0, DTYPE[atype]).view(np.uint8))
    assert one == code << spec.types[atype].container_shift


# -- wrong dtypes are errors, never reinterpretations --------------------------------------------

def test_the_issue_cases_are_errors(spec):
    w = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    with pytest.raises(TypeError, match=r"holds bf16: pass ml_dtypes\.bfloat16 values.*not float16"):
        w.pack("a", np.ones((16, 16), np.float16))  # was taken as bits: D[0,0] = 0.0009765625
    s = spec.variant("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
    with pytest.raises(TypeError, match="holds s32: pass np.int32 values"):
        s.pack("c", np.full((16, 8), 5.0, np.float32))  # was 1084227584
    with pytest.raises(ValueError, match=r"holds s8 \(-128 to 127\); got 300"):
        s.pack("a", np.full((16, 32), 300))  # was 0x2C
    t = spec.variant("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", form="reg")
    with pytest.raises(ValueError, match="low 13 bits zero; round with ptxspec.values.to_tf32"):
        t.pack("a", np.full((64, 8), 1.1, np.float32))  # was truncated silently


@pytest.mark.parametrize("tname, bad", [("f16", np.float32), ("f32", np.float64), ("bf16", np.float16),
                                        ("e4m3", ml_dtypes.float8_e5m2), ("e5m2", ml_dtypes.float8_e4m3fn),
                                        ("s8", np.float32), ("f16", np.int16), ("b1", np.float32),
                                        ("f32", np.bool_), ("e2m1", ml_dtypes.float6_e2m3fn)])
def test_a_dtype_of_another_type_is_a_type_error(spec, tname, bad):
    with pytest.raises(TypeError, match=f"holds {tname}"):
        to_codes(spec.types[tname], np.zeros(4, bad), 8 if spec.types[tname].bits <= 8 else 32, "operand x")


def test_codes_wider_than_the_slot_and_out_of_range_values(spec):
    with pytest.raises(ValueError, match="does not fit the 8-bit slot"):
        to_codes(spec.types["e4m3"], np.array([0x100], np.uint16), 8, "x")
    with pytest.raises(ValueError, match=r"u4 \(0 to 15\); got -1"):
        to_codes(spec.types["u4"], np.array([-1, 3]), 4, "x")
    with pytest.raises(ValueError, match=r"s4 \(-8 to 7\); got 8"):
        to_codes(spec.types["s4"], np.array([8]), 4, "x")
    assert to_codes(spec.types["s8"], np.array([-1, 127], np.int8), 8, "x").tolist() == [0xFF, 0x7F]
    assert to_codes(spec.types["s4"], np.array([-8], ml_dtypes.int4), 4, "x").tolist() == [8]


def test_to_tf32_rounds_to_nearest_even():
    ulp = 2.0 ** -10  # tf32 keeps 10 mantissa bits
    x = np.array([1 + ulp / 2, 1 + 3 * ulp / 2, 1 + ulp / 4, -(1 + 3 * ulp / 4), np.inf, -np.inf], np.float32)
    want = np.array([1.0, 1 + 2 * ulp, 1.0, -(1 + ulp), np.inf, -np.inf], np.float32)
    assert np.array_equal(to_tf32(x), want)
    nan = np.array([0x7F800001], np.uint32).view(np.float32)  # payload only in the dropped bits
    assert np.isnan(to_tf32(nan)).all()


@pytest.mark.parametrize("tname", ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3", "s8", "u8", "s4",
                                   "u4", "b1"])
def test_ml_dtypes_decoding_agrees_with_the_format_formula_on_every_code(spec, tname):
    codes = formats.all_codes(spec, tname)
    assert len(codes) == 1 << spec.types[tname].bits
    got, want = formats.decode(spec, tname, codes), formats.decode_formula(spec, tname, codes)
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))
    typed = from_codes(spec.types[tname], codes, spec.types[tname].bits)
    assert np.array_equal(typed.astype(np.float64), want.astype(np.float64), equal_nan=True)
