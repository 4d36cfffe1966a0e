"""ptxspec.semantics.numerics against independent references (no GPU).

The float model is re-implemented here element by element in exact rational arithmetic
(fractions.Fraction), straight from its statement in NUMERICS.md and ptxspec.semantics.numerics' docstring:
per step, exact products, alignment to the largest exponent (a zero term at exponent -133), each
term cut toward zero to F fraction bits below it, an exact sum, one rounding. The vectorised
executor must agree with it bit for bit; integers agree with Python's integers; f64 fused
multiply-adds with correctly rounded rational arithmetic. Hardware agreement itself is
tests/test_execute_records.py.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from ptxspec.core.formats import all_codes, decode
from ptxspec.semantics import exact as exact_mod
from ptxspec.semantics import fdpa, fields
from ptxspec.semantics import numerics as nm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "campaigns" / "numerics"))
import numgen as G  # noqa: E402  (input kinds: random bits, narrow, wide, zeros/subnormals, specials)

FLOATS = ("f16", "bf16", "tf32", "e4m3", "e5m2")


@pytest.mark.parametrize("t", FLOATS + ("f32",))
def test_fields_decode_exactly(spec, t):
    codes = all_codes(spec, t) if t != "f32" else G.float_codes(spec, "f32", (1 << 14,), "bits", 7)
    f = fields.decode_fields(spec, t, codes)
    ref = decode(spec, t, codes)
    fin = f.special == 0
    val = np.ldexp(f.mag.astype(np.float64), (f.exp - f.mbits).astype(np.int32)) * np.where(f.neg, -1, 1)
    assert np.array_equal(val[fin], ref[fin])
    assert np.array_equal(np.isnan(ref), f.special == 2)
    assert np.array_equal(np.isinf(ref), f.special == 1)


def _exact(spec, t, code) -> Fraction:
    v = decode(spec, t, np.array([code]))[0]
    return Fraction(float(v))


def _round_ref(x: Fraction, mbits: int, emin: int, emax: int, mode: str, keep: int = 0):
    """(sign, exponent field, mantissa field) of x rounded to a binary format, or 'inf'."""
    if x == 0:
        return 0
    neg = x < 0
    a = -x if neg else x
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    eq = max(e, emin)
    q = Fraction(2) ** (eq - (keep or mbits))
    n = a / q
    r = math.floor(n)
    if mode == "rn" and (n - r > Fraction(1, 2) or (n - r == Fraction(1, 2) and r % 2 == 1)):
        r += 1
    val = r * q
    if val >= Fraction(2) ** (emax + 1):
        return "inf", neg
    return val, neg


def _ref_step(spec, a_codes, b_codes, c_code, at, bt, ct, dt, F, mode, keep):
    """One fused step of one output element, in rational arithmetic."""
    terms = []
    specials = []
    for ac, bc in zip(a_codes, b_codes):
        av, bv = decode(spec, at, np.array([ac]))[0], decode(spec, bt, np.array([bc]))[0]
        specials.append((av, bv))
        if not (np.isfinite(av) and np.isfinite(bv)):
            continue
        fa, fb = fields.decode_fields(spec, at, np.array([ac])), fields.decode_fields(spec, bt, np.array([bc]))
        p = Fraction(float(av)) * Fraction(float(bv))
        terms.append((p, -133 if p == 0 else int(fa.exp[0] + fb.exp[0])))
    cv = decode(spec, ct, np.array([c_code]))[0]
    with np.errstate(invalid="ignore"):  # 0 x Inf is NaN, as the reference means it to be
        prods = [a * b for a, b in specials]
        total = float(np.sum(np.array(prods, dtype=np.float64))) + float(cv)
    if any(np.isnan(x) for x in prods) or np.isnan(cv) or np.isnan(total):
        return "nan"
    if np.isinf(total):
        return ("inf", total < 0)
    fc = fields.decode_fields(spec, ct, np.array([c_code]))
    c = Fraction(float(cv))
    terms.append((c, -133 if c == 0 else int(fc.exp[0])))
    emax = max(e for _, e in terms)
    q = Fraction(2) ** (emax - F)
    s = sum(Fraction(math.trunc(t / q)) * q for t, _ in terms)
    fmt = spec.types[dt].format
    return _round_ref(s, fmt["mantissa"], 1 - fmt["bias"], (1 << fmt["exponent"]) - 2 - fmt["bias"], mode, keep)


def _value_of(spec, t, code):
    v = decode(spec, t, np.array([code]))[0]
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return ("inf", bool(v < 0))
    return Fraction(float(v)), bool(code >> (spec.types[t].bits - 1))


CASES = [("f16", "f16", "f32", 25, "rz", 0), ("bf16", "bf16", "f32", 25, "rz", 0), ("f16", "f16", "f16", 25, "rn", 0),
         ("tf32", "tf32", "f32", 25, "rz", 0), ("e4m3", "e5m2", "f32", 13, "rz", 13),
         ("e5m2", "e5m2", "f16", 13, "rn", 0)]


@pytest.mark.parametrize("at,bt,dt,F,mode,keep", CASES)
@pytest.mark.parametrize("kind", ["bits", "narrow", "wide", "zerosub", "special", "align"])
def test_fdpa_matches_rational_reference(spec, at, bt, dt, F, mode, keep, kind):
    M, K, N = 3, 8, 4
    A = G.codes(spec, at, (M, K), kind if kind != "align" else "narrow", 11)
    B = G.codes(spec, bt, (K, N), kind if kind != "align" else "narrow", 12)
    C = G.codes(spec, dt, (M, N), kind, 13)
    p = nm.NumericsParams("fdpa", K, F, mode, keep)
    D = fdpa.fdpa(spec, A, B, C, at, bt, dt, dt, p)
    for i in range(M):
        for j in range(N):
            ref = _ref_step(spec, A[i], B[:, j], C[i, j], at, bt, dt, dt, F, mode, keep)
            got = _value_of(spec, dt, int(D[i, j]))
            if ref == "nan":
                assert int(D[i, j]) == fields.canonical_nan(spec, dt)
            elif ref[0] == "inf":
                assert got == ref
            elif ref == 0 or ref[0] == 0:
                assert int(D[i, j]) == 0  # zero results are +0, also when a nonzero sum rounds to zero
            else:
                assert abs(got[0]) == ref[0] and got[1] == ref[1], (i, j, got, ref)


@pytest.mark.parametrize("at,bt,dt,F,mode,keep", CASES)
def test_float64_and_integer_implementations_agree(spec, at, bt, dt, F, mode, keep):
    for kind in G.KINDS:
        A = G.codes(spec, at, (2, 8, 16), kind if kind != "cancel" else "wide", 21)
        B = G.codes(spec, bt, (2, 16, 8), kind if kind != "cancel" else "wide", 22)
        C = G.codes(spec, dt, (2, 8, 8), kind, 23)
        fa, fb, fc = fields.decode_fields(spec, at, A), fields.decode_fields(spec, bt, B), fields.decode_fields(spec, dt, C)
        x = fdpa.fdpa_step(spec, fa, fb, fc, dt, F, mode, keep, -133)
        y = fields.plus_zero(spec, dt, fdpa.fdpa_step_int(spec, fa, fb, fc, dt, F, mode, keep, -133))
        assert np.array_equal(x, y), kind


def test_exact_sums_are_exact(spec):
    """Small exact values: every model gives A.B + C exactly (and +0 for zero)."""
    rng = np.random.default_rng(5)
    vals = np.array([0, 0.5, -0.5, 1, -1, 1.5, -2, 3], np.float16)
    A = rng.choice(vals, (4, 16)).view(np.uint16)
    B = rng.choice(vals, (16, 8)).view(np.uint16)
    C = rng.integers(-8, 8, (4, 8)).astype(np.float32).view(np.uint32)
    D = fdpa.fdpa(spec, A, B, C, "f16", "f16", "f32", "f32", nm.NumericsParams("fdpa", 16, 25, "rz"))
    want = A.view(np.float16).astype(np.float64) @ B.view(np.float16).astype(np.float64) + C.view(np.float32)
    assert np.array_equal(D.astype(np.uint32).view(np.float32), want.astype(np.float32))


def test_integer_wraps_and_satfinite_clamps_once(spec):
    A = np.array([[127, 127]], np.uint64)
    B = np.array([[127], [127]], np.uint64)
    C = np.array([[(1 << 31) - 100]], np.uint64)
    exact = 2 * 127 * 127 + (1 << 31) - 100
    wrap = exact_mod.integer_mma(spec, A, B, C, "s8", "s8", "s32", False)
    sat = exact_mod.integer_mma(spec, A, B, C, "s8", "s8", "s32", True)
    assert int(wrap[0, 0]) == exact % (1 << 32)
    assert int(sat[0, 0]) == (1 << 31) - 1
    # a clamp after partial sums would differ: C large negative, then positive products
    C2 = np.array([[((-(1 << 31) + 10) & 0xFFFFFFFF)]], np.uint64)
    B2 = np.array([[0xFF], [0x81]], np.uint64)  # -1, -127
    A2 = np.array([[0x80, 0x80]], np.uint64)  # -128, -128: products +128, +16256
    got = exact_mod.integer_mma(spec, A2, B2, C2, "s8", "s8", "s32", True)
    assert int(got[0, 0]) == (-(1 << 31) + 10 + 128 + 16256) & 0xFFFFFFFF


def test_b1_popc(spec):
    rng = np.random.default_rng(3)
    A = rng.integers(0, 2, (4, 256)).astype(np.uint64)
    B = rng.integers(0, 2, (256, 3)).astype(np.uint64)
    C = np.zeros((4, 3), np.uint64)
    d_and = exact_mod.integer_mma(spec, A, B, C, "b1", "b1", "s32", False, "and.popc")
    d_xor = exact_mod.integer_mma(spec, A, B, C, "b1", "b1", "s32", False, "xor.popc")
    for i in range(4):
        for j in range(3):
            assert int(d_and[i, j]) == int(sum(A[i] & B[:, j]))
            assert int(d_xor[i, j]) == int(sum(A[i] ^ B[:, j]))


def _f64(x: float) -> int:
    return int(np.array([x], np.float64).view(np.uint64)[0])


def test_f64_fma_is_correctly_rounded():
    rng = np.random.default_rng(9)
    raw = rng.integers(0, 2**63, size=(600, 3), dtype=np.uint64)
    raw[:, :2] &= np.uint64(0xBFFFFFFFFFFFFFFF)  # keep products finite, exponents varied
    raw[::7, 2] &= np.uint64(0x800FFFFFFFFFFFFF)  # subnormal addends
    for a, b, c in raw.tolist():
        fa, fb, fc = (float(np.array([x], np.uint64).view(np.float64)[0]) for x in (a, b, c))
        if not all(math.isfinite(x) for x in (fa, fb, fc)):
            continue
        exact = Fraction(fa) * Fraction(fb) + Fraction(fc)
        try:
            want = _f64(float(exact)) if exact != 0 else 0  # float(Fraction) rounds to nearest even
        except OverflowError:
            want = _f64(math.copysign(math.inf, exact))
        assert exact_mod.fma_f64(a, b, c, "rn") == want
        rz = exact_mod.fma_f64(a, b, c, "rz")
        vz = Fraction(float(np.array([rz], np.uint64).view(np.float64)[0])) if (rz >> 52) & 0x7FF != 0x7FF else None
        if vz is not None:
            assert abs(vz) <= abs(exact)


def test_f64_nan_rules():
    nan_a, nan_b, nan_c = 0x7FF0000000000123, 0xFFF0000000000456, 0x7FF4000000000789
    one = _f64(1.0)
    assert exact_mod.fma_f64(nan_a, nan_b, nan_c) == nan_b | exact_mod.F64_QUIET  # B first (H100)
    assert exact_mod.fma_f64(nan_a, one, nan_c) == nan_c | exact_mod.F64_QUIET  # then the accumulator
    assert exact_mod.fma_f64(nan_a, one, one) == nan_a | exact_mod.F64_QUIET
    assert exact_mod.fma_f64(_f64(math.inf), 0, one) == exact_mod.F64_NAN  # invalid: the default NaN


def test_round_to_format_matches_numpy_rn(spec):
    rng = np.random.default_rng(1)
    S = rng.integers(-(1 << 40), 1 << 40, 4000)
    e = rng.integers(-170, 100, 4000)
    got = fields.round_to_format(spec, "f32", S, e, "rn")
    want = np.ldexp(S.astype(np.float64), e.astype(np.int32))  # exact: |S| < 2^53
    with np.errstate(over="ignore"):
        assert np.array_equal(got.astype(np.uint32), want.astype(np.float32).view(np.uint32))


def test_undefined_metadata_is_rejected(spec):
    from ptxspec.semantics.execute import OperandError
    v = spec.variant("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    z = lambda o: np.zeros((32, v.operand(o).regs), np.uint32)  # noqa: E731
    with pytest.raises(ValueError, match="undefined sparsity metadata"):
        v.execute(a=z("a"), b=z("b"), c=z("c"), e=np.full(32, 0xFFFFFFFF, np.uint32), f=0)
    with pytest.raises(OperandError, match="missing"):
        v.execute(a=z("a"), b=z("b"), c=z("c"), f=0)
    with pytest.raises(ValueError, match="shaped"):
        v.execute(a=np.zeros((32, 3), np.uint32), b=z("b"), c=z("c"), e=np.full(32, 0x44444444, np.uint32), f=0)


# ---------------------------------------------------------------------------------------------
# fmachain (mma.m8n8k4 .f16 on sm_90: ptxas's f32 FFMA/FADD emulation), against IEEE rules
# written out in rational arithmetic


F32 = (23, -126, 127)
F16 = (10, -14, 15)


def _ieee_add(x, y):
    """x + y rounded to nearest f32, IEEE signed zeros; x, y are (signed Fraction, negative)."""
    s = x[0] + y[0]
    if s == 0:
        return Fraction(0), bool(x[1] and y[1])  # -0 only for (-0) + (-0)
    r = _round_ref(s, *F32, "rn")  # (magnitude, negative)
    assert r[0] != "inf"
    return (-r[0] if r[1] else r[0]), r[1]


def _fmachain_ref(spec, a, b, c, ct, dt, group):
    prods = []
    for ac, bc in zip(a, b):
        (va, na), (vb, nb) = _value_of(spec, "f16", int(ac)), _value_of(spec, "f16", int(bc))
        prods.append((va * vb, na != nb))
    acc = _value_of(spec, ct, int(c))
    for k0 in range(0, len(prods), group):
        grp = prods[k0:k0 + group]
        s = (Fraction(0), False) if group == len(prods) else grp.pop(0)  # FFMA with +0, or FMUL
        for p in grp:
            s = _ieee_add(s, p)
        acc = _ieee_add(acc, s)
    if dt == "f16" and acc[0]:
        return _round_ref(acc[0], *F16, "rn")  # (magnitude, negative) or ("inf", negative)
    return acc


@pytest.mark.parametrize("ct,dt,group", [("f32", "f32", 4), ("f16", "f32", 4), ("f16", "f16", 2)])
@pytest.mark.parametrize("kind", ["narrow", "wide", "zerosub", "signedzero", "align", "onebig"])
def test_fma_chain_matches_ieee_reference(spec, ct, dt, group, kind):
    M, K, N = 4, 4, 8
    A = G.codes(spec, "f16", (M, K), kind if kind not in ("align", "onebig") else "narrow", 31)
    B = G.codes(spec, "f16", (K, N), kind if kind not in ("align", "onebig") else "narrow", 32)
    C = G.codes(spec, ct, (M, N), kind if kind != "onebig" else "narrow", 33)
    D = fdpa.fma_chain(spec, A, B, C, "f16", "f16", ct, dt, nm.NumericsParams("fmachain", group, 0, "rn"))
    for i in range(M):
        for j in range(N):
            ref = _fmachain_ref(spec, A[i], B[:, j], C[i, j], ct, dt, group)
            got = _value_of(spec, dt, int(D[i, j]))
            if ref[0] == "inf":
                assert got == ref
            else:
                assert abs(got[0]) == abs(ref[0]) and got[1] == ref[1], (i, j, got, ref)


def test_fma_chain_zeros_and_specials(spec):
    p32, p16 = nm.NumericsParams("fmachain", 4, 0, "rn"), nm.NumericsParams("fmachain", 2, 0, "rn")
    neg0 = np.full((1, 4), 0x8000, np.uint64)
    pos0 = np.zeros((4, 1), np.uint64)
    # every product -0 and C = -0: the f32 chain starts from +0 (FFMA with RZ): +0; the f16 form
    # starts from the first product (FMUL): -0 (the H100's 0x8000, evidence/records)
    assert fdpa.fma_chain(spec, neg0, pos0, np.array([[1 << 31]]), "f16", "f16", "f32", "f32", p32)[0, 0] == 0
    assert fdpa.fma_chain(spec, neg0, pos0, np.array([[0x8000]]), "f16", "f16", "f16", "f16", p16)[0, 0] == 0x8000
    inf = np.array([[0x7C00, 0x3C00, 0, 0]], np.uint64)
    ninf = np.array([[0x3C00], [0xFC00], [0], [0]], np.uint64)  # +Inf x 1 + 1 x -Inf: invalid
    assert fdpa.fma_chain(spec, inf, ninf, np.array([[0]]), "f16", "f16", "f32", "f32", p32)[0, 0] == 0x7FFFFFFF
    assert fdpa.fma_chain(spec, inf, ninf, np.array([[0]]), "f16", "f16", "f16", "f16", p16)[0, 0] == 0x7FFF
    big = np.array([[0x7BFF, 0x7BFF, 0, 0]], np.uint64)  # 65504^2 twice: f32 finite, beyond f16: +Inf
    one = np.array([[0x7BFF], [0x7BFF], [0], [0]], np.uint64)
    assert fdpa.fma_chain(spec, big, one, np.array([[0]]), "f16", "f16", "f16", "f16", p16)[0, 0] == 0x7C00


def test_mixed_accumulators(spec):
    """wmma .f16.f32 (D f16, C f32): the f32 step, then an IEEE conversion to f16 (F2FP keeps the
    sign of a negative result that rounds to zero); .f32.f16 (D f32, C f16): C enters as f32, so
    an f16 subnormal C aligns on its f32 exponent."""
    z = np.zeros((1, 16), np.uint64)
    a = z.copy()
    a[0, 0] = 0x8400  # -2^-14
    b = np.zeros((16, 1), np.uint64)
    b[0, 0] = 0x0400  # 2^-14: the product -2^-28 rounds to -0 in f16
    v = spec.variant("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32")
    p = nm.params(v)
    assert (p.model, p.via, p.round) == ("fdpa", "f32", "rz")
    assert fdpa.fdpa(spec, a, b, np.zeros((1, 1)), "f16", "f16", "f32", "f16", p)[0, 0] == 0x8000
    a[0, 0], b[0, 0] = 0x0001, 0x0004  # 2^-24 x 2^-22 = 2^-46: 2 ulps of C = 2^-24 (f16 0x0001)
    v = spec.variant("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16")
    p = nm.params(v)
    d = fdpa.fdpa(spec, a, b, np.array([[0x0001]]), "f16", "f16", "f16", "f32", p)[0, 0]
    assert d == 0x33800002  # aligned on C's f16 exponent (-14) the product would be cut: 0x33800000
