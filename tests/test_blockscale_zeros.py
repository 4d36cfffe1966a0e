"""Zeros in the Blackwell `.kind` arithmetic (ptxspec.blockscale) against a reference written here.

The reference is an exact (Fraction) transcription, from their descriptions in
campaigns/survey/blockscale.md section 4 (not from ptxspec's code), of the four zero rules in play:

* "h100" (the model): a product with a zero element or a zero scale is no term; an fp4 group is a
  term when one of its products has two nonzero factors (at its scales' exponents, also when its sum
  cancels to zero); a zero C counts as exponent -133.
* "main" (MMA-Sim main, c785138, mmasim/simulator/arithmetic.py): every value splits into a
  significand and an exponent, the exponent of a subnormal being its format's smallest normal one
  and that of a zero -126; a product's exponent is the sum of its elements' and its scales'; a
  group's the sum of its scales'; C's its own.
* "dev" (MMA-Sim's dev branch, truncated_fused_sum): as main, but every term whose value is zero
  (C included) gets the exponent -126.
* "v1" (MMA-Sim before 1727461): as main with -999 for a zero.

Then every term is cut toward zero to F fraction bits below the largest exponent, the terms are
summed exactly, and the sum is rounded once (f32 toward zero, f16 to nearest even). Hand-made cases
for every kind (the two of issue 31 with their published values), zero-heavy random ones, and the
register-level executor of a variant of each kind, under the model and under each named alternative.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from ptxspec.semantics import blockscale as bs
from ptxspec.semantics.execute import execute_kind

ML = {"e2m1": ml_dtypes.float4_e2m1fn, "e3m2": ml_dtypes.float6_e3m2fn, "e2m3": ml_dtypes.float6_e2m3fn,
      "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
#: The smallest normal exponent of each format (1 - bias): a subnormal counts there.
EMIN = {"e2m1": 0, "e3m2": -2, "e2m3": 0, "e4m3": -6, "e5m2": -14, "ue4m3": -6, "f32": -126, "f16": -14}
#: The alternative that claims each MMA-Sim rule.
ALT = {"main": "zeros=mmasim-main", "dev": "zeros=mmasim-dev", "v1": "zeros=mmasim-v1"}
RULES = ("h100", "main", "dev", "v1")


# ---------------------------------------------------------------------------------------------
# The reference


def value(tname: str, code: int) -> Fraction:
    if tname == "f32":
        return Fraction(float(np.uint32(code).view(np.float32)))
    if tname == "f16":
        return Fraction(float(np.uint16(code).view(np.float16)))
    if tname == "ue8m0":
        return Fraction(2) ** (code - 127)
    if tname == "ue4m3":
        return Fraction(float(np.uint8(code & 0x7F).view(ML["e4m3"])))
    return Fraction(float(np.uint8(code).view(ML[tname])))


def ilog2(x: Fraction) -> int:
    """floor(log2(x)) of x > 0, exactly."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > x else e


def split(x: Fraction, tname: str, zero: int) -> tuple[Fraction, int]:
    """(significand, exponent) as MMA-Sim splits a value: 1 <= |s| < 2, or a subnormal's s < 1 at
    the format's smallest exponent (ue8m0 has none); a zero has exponent `zero`."""
    if x == 0:
        return Fraction(0), zero
    e = ilog2(abs(x))
    if tname in EMIN:
        e = max(e, EMIN[tname])
    return x / Fraction(2) ** e, e


def zero_exp(rule: str) -> int:
    return {"h100": -133, "main": -126, "dev": -126, "v1": -999}[rule]


def fused(terms: list[tuple[Fraction, int | None]], F: int) -> Fraction:
    """Exact sum of the terms (value, exponent or None: no term) aligned to the largest exponent with F
    fraction bits, each cut toward zero."""
    live = [(v, e) for v, e in terms if e is not None]
    emax = max(e for _, e in live)
    quantum = Fraction(2) ** (emax - F)
    return sum((math.trunc(v / quantum) * quantum for v, _ in live), Fraction(0))


def to_code(x: Fraction, dtype: str) -> int:
    """f32 toward zero or f16 to nearest even; a zero result is +0."""
    if x == 0:
        return 0
    bits, emin, emax = (23, -126, 127) if dtype == "f32" else (10, -14, 15)
    e = max(ilog2(abs(x)), emin)
    if e > emax:  # beyond the range: +-Inf in every rounding (the H100's behaviour, and MMA-Sim's)
        return (0x7F800000 if dtype == "f32" else 0x7C00) | ((0x80000000 if dtype == "f32" else 0x8000) if x < 0 else 0)
    q = Fraction(2) ** (e - bits)
    m = abs(x) / q
    n = math.floor(m) if dtype == "f32" else round(m)  # round(): half to even
    y = math.copysign(float(n * q), float(x))
    return int(np.float32(y).view(np.uint32)) if dtype == "f32" else int(np.float16(y).view(np.uint16))


def ref_products(rule, a, b, c, atype, btype, dtype, F, sa=None, sb=None, stype=None):
    """One output of .kind::f8f6f4 / .kind::mxf8f6f4: a, b element codes along K, c a code, sa, sb
    one scale code each (1X) or None."""
    z = zero_exp(rule)
    terms = []
    for x, y in zip(a, b):
        va, vb = value(atype, x), value(btype, y)
        scales = [(value(stype, s), stype) for s in (sa, sb) if s is not None and stype is not None]
        parts = [split(va, atype, z), split(vb, btype, z)] + [split(v, t, z) for v, t in scales]
        prod = va * vb * math.prod((v for v, _ in scales), start=Fraction(1))
        e = sum(ex for _, ex in parts)
        if prod == 0 and rule == "h100":
            e = None
        elif prod == 0 and rule == "dev":
            e = -126
        terms.append((prod, e))
    vc = value(dtype, c)
    terms.append((vc, split(vc, dtype, z)[1]))
    return to_code(fused(terms, F), dtype)


def ref_groups(rule, a, b, c, sa, sb, stype, group=16, F=35):
    """One output of .kind::mxf4 / .kind::mxf4nvf4: a, b e2m1 codes along K, sa, sb one scale code
    per block of K / len(sa)."""
    z = zero_exp(rule)
    K, block = len(a), len(a) // len(sa)
    terms = []
    for g in range(0, K, group):
        pairs = [(value("e2m1", x), value("e2m1", y)) for x, y in zip(a[g:g + group], b[g:g + group])]
        s = sum((x * y for x, y in pairs), Fraction(0))
        v0, v1 = value(stype, sa[g // block]), value(stype, sb[g // block])
        e0, e1 = split(v0, stype, z)[1], split(v1, stype, z)[1]
        val = s * v0 * v1
        e = e0 + e1
        if rule == "h100" and not any(x != 0 and y != 0 for x, y in pairs) or rule == "h100" and v0 * v1 == 0:
            e = None
        elif rule == "dev" and val == 0:
            e = -126
        terms.append((val, e))
    vc = value("f32", c)
    terms.append((vc, split(vc, "f32", z)[1]))
    return to_code(fused(terms, F), "f32")


# ---------------------------------------------------------------------------------------------
# ptxspec


def params(kind: str, scaled: bool, dtype: str, rule: str) -> bs.KindParams:
    p = bs.kind_params(kind, scaled, dtype)
    if rule == "h100":
        return p
    (name,) = [n for n in bs.ALTERNATIVES if n.startswith(ALT[rule] + " ")]
    return bs.with_alternative(p, name)


def ours_products(spec, rule, a, b, c, atype, btype, dtype, sa=None, sb=None, stype=None, kind="f8f6f4"):
    A = np.asarray(a, np.uint64)[None, None, :]
    B = np.asarray(b, np.uint64)[None, :, None]
    C = np.asarray([[[c]]], np.uint64)
    scales = {} if sa is None else dict(sfa=np.asarray([[[sa]]], np.uint64), sfb=np.asarray([[[sb]]], np.uint64), stype=stype)
    p = params(kind, sa is not None, dtype, rule)
    return int(bs.mma_kind(spec, A, B, C, atype, btype, dtype, dtype, p, **scales)[0, 0, 0])


def ours_groups(spec, rule, a, b, c, sa, sb, stype, kind):
    A = np.asarray(a, np.uint64)[None, None, :]
    B = np.asarray(b, np.uint64)[None, :, None]
    C = np.asarray([[[c]]], np.uint64)
    p = params(kind, True, "f32", rule)
    return int(bs.mma_kind(spec, A, B, C, "e2m1", "e2m1", "f32", "f32", p, np.asarray(sa, np.uint64)[None, None, :],
                           np.asarray(sb, np.uint64)[None, :, None], stype)[0, 0, 0])


E4M3 = {0: 0x00, 1: 0x38, 448: 0x7E, 1.125: 0x39, -1: 0xB8, 2 ** -9: 0x01, 4: 0x48}
F1 = {1: 0x2, 2: 0x4, -1: 0xA, 6: 0x7, 0: 0x0, 0.5: 0x1}  # e2m1 codes
F1_NEG0 = 0x8  # e2m1 -0


def test_the_reference_reads_the_formats():
    assert value("e4m3", 0x7E) == 448 and value("e4m3", 0x01) == Fraction(1, 512) and value("e2m1", 0x7) == 6
    assert split(Fraction(1, 512), "e4m3", 0) == (Fraction(1, 8), -6)  # a subnormal at the format's emin
    assert value("ue8m0", 254) == 2 ** 127 and value("ue4m3", 0x7E) == 448
    assert to_code(Fraction(1), "f32") == 0x3F800000 and to_code(Fraction(-3, 2), "f16") == 0xBE00


# ---------------------------------------------------------------------------------------------
# The two cases of issue 31, with the values the issue gives for MMA-Sim main


def test_issue_cases_give_mmasim_mains_values_under_its_alternative(spec):
    # .kind::mxf8f6f4 e4m3, A = 0, B = 448, both scales 2^127, C = 1.0: MMA-Sim main +0
    a, b = [E4M3[0]] * 32, [E4M3[448]] * 32
    want = {"h100": 0x3F800000, "main": 0x00000000, "dev": 0x3F800000, "v1": 0x3F800000}
    for rule in RULES:
        ref = ref_products(rule, a, b, 0x3F800000, "e4m3", "e4m3", "f32", 25, 254, 254, "ue8m0")
        got = ours_products(spec, rule, a, b, 0x3F800000, "e4m3", "e4m3", "f32", 254, 254, "ue8m0", kind="mxf8f6f4")
        assert ref == got == want[rule], (rule, hex(ref), hex(got))
    # .kind::f8f6f4 e4m3, A = 0, B = 448, C = 0x00800001: MMA-Sim main 0x00800000
    want = {"h100": 0x00800001, "main": 0x00800000, "dev": 0x00800001, "v1": 0x00800001}
    for rule in RULES:
        ref = ref_products(rule, a, b, 0x00800001, "e4m3", "e4m3", "f32", 25)
        got = ours_products(spec, rule, a, b, 0x00800001, "e4m3", "e4m3", "f32")
        assert ref == got == want[rule], (rule, hex(ref), hex(got))


def _regs_of_bytes(v, name, byte):
    return np.full((v.threads, v.operand(name).regs), byte * 0x01010101, np.uint32)


@pytest.mark.parametrize("vid, scaled, c, want", [
    ("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0", True, 0x3F800000,
     {"h100": 0x3F800000, "main": 0}),
    ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32", False, 0x00800001,
     {"h100": 0x00800001, "main": 0x00800000}),
])
def test_issue_cases_through_the_registers(spec, vid, scaled, c, want):
    """The same two cases as a warp's registers (every A byte 0, every B byte 448, every C element
    c, every scale byte 2^127): every D element, under the model and under MMA-Sim main's rule."""
    v = spec.variant(vid)
    regs: dict[str, Any] = dict(a=_regs_of_bytes(v, "a", 0), b=_regs_of_bytes(v, "b", E4M3[448]),
                c=np.full((v.threads, v.operand("c").regs), c, np.uint32))
    if scaled:
        regs.update(scale_a=_regs_of_bytes(v, "scale_a", 254), scale_b=_regs_of_bytes(v, "scale_b", 254))
    kind = v.qualifiers["kind"].removeprefix("kind::")
    for rule, w in want.items():
        d = execute_kind(v, **regs, p=params(kind, scaled, "f32", rule))
        assert (v.unpack("d", d) == w).all(), rule
    assert np.array_equal(v.execute(**regs, **({"sel_a": (0, 0), "sel_b": (0, 0)} if scaled else {})),
                          execute_kind(v, **regs))  # the executor's default is the model


# ---------------------------------------------------------------------------------------------
# Hand-made zero cases of every kind, every rule


def _k32(pairs, fill=(0, 0)):
    a = [x for x, _ in pairs] + [fill[0]] * (32 - len(pairs))
    b = [y for _, y in pairs] + [fill[1]] * (32 - len(pairs))
    return a, b


PRODUCT_CASES = [  # (a, b, c, atype/btype, dtype, sa, sb)
    # every product has a zero factor, C a small normal: only where a zero product lies matters
    (*_k32([], (E4M3[0], E4M3[4])), 0x00800003, "e4m3", "f32", None, None),
    (*_k32([], (E4M3[1], E4M3[0])), 0x00800001, "e4m3", "f32", None, None),
    # zero products beside one real product: no rule lets them matter
    (*_k32([(E4M3[1.125], E4M3[1.125])], (E4M3[0], E4M3[448])), 0x3F800000, "e4m3", "f32", None, None),
    # an f16 D: a zero product (<= 2^-111) never reaches an f16 C: every rule agrees
    (*_k32([], (E4M3[0], E4M3[448])), 0x0001, "e4m3", "f16", None, None),
    # mxf8f6f4: all-zero A under huge scales beside C = 1 + 2^-23 (the issue's case, C's low bit)
    (*_k32([], (E4M3[0], E4M3[448])), 0x3F800001, "e4m3", "f32", 254, 254),
    # mxf8f6f4: a zero C beside 2^-142 and -2^-153 or -2^-159 (scales 2^-71 each): where the zero C
    # counts (-133: cut at 2^-158; -126: at 2^-151; no term: at 2^-167) decides the low term
    (*_k32([(E4M3[1], E4M3[1]), (0x88, 0x10)]), 0, "e4m3", "f32", 127 - 71, 127 - 71),
    (*_k32([(E4M3[1], E4M3[1]), (0x81, 0x02)]), 0, "e4m3", "f32", 127 - 71, 127 - 71),
    # mxf8f6f4: all-zero A, B = 448, scales 2^100 each, C = 2^-100 (1 + 2^-23)
    (*_k32([], (E4M3[0], E4M3[448])), 0x0D800001, "e4m3", "f32", 227, 227),
]


@pytest.mark.parametrize("case", range(len(PRODUCT_CASES)))
def test_products_path_zero_cases(spec, case):
    a, b, c, t, dtype, sa, sb = PRODUCT_CASES[case]
    scaled = sa is not None
    got = {}
    for rule in RULES:
        ref = ref_products(rule, a, b, c, t, t, dtype, 25, sa, sb, "ue8m0" if scaled else None)
        ours = ours_products(spec, rule, a, b, c, t, t, dtype, sa, sb, "ue8m0" if scaled else None,
                             kind="mxf8f6f4" if scaled else "f8f6f4")
        assert ours == ref, (rule, hex(ours), hex(ref))
        got[rule] = ours
    if case == 3:
        assert len(set(got.values())) == 1  # f16 D: no zero rule can show


def test_products_cases_separate_the_rules(spec):
    """Over the hand-made cases, every two rules give different D somewhere."""
    seen = {r: [] for r in RULES}
    for a, b, c, t, dtype, sa, sb in PRODUCT_CASES:
        for rule in RULES:
            seen[rule].append(ref_products(rule, a, b, c, t, t, dtype, 25, sa, sb, "ue8m0" if sa else None))
    for i, r in enumerate(RULES):
        for s in RULES[i + 1:]:
            assert seen[r] != seen[s], (r, s)


def _k64(groups):
    """A and B of K = 64 from four groups of 16 (a, b) e2m1 codes, each padded with zeros."""
    a, b = [], []
    for ga, gb in groups:
        a += list(ga) + [0] * (16 - len(ga))
        b += list(gb) + [0] * (16 - len(gb))
    return a, b


ZERO_G = ([], [])
ONE_G = ([F1[1]], [F1[1]])
CANCEL_G = ([F1[1], F1[1]], [F1[1], F1[-1]])  # 1 - 1: a group whose products cancel
ZEROS_G = ([F1[0], F1_NEG0] * 8, [F1[6]] * 16)  # every A element +-0, B large
GROUP_CASES = [  # (kind, stype, groups, scales of A per block, of B per block, c)
    # 2X ue8m0 (two groups per block): a whole block of zeros under 2^127 scales, the other block 1s
    ("mxf4", "ue8m0", [ZEROS_G, ZEROS_G, ONE_G, ONE_G], [254, 127], [254, 127], 0x00000001),
    # 2X: a block whose two groups cancel, under huge scales, beside a small term
    ("mxf4", "ue8m0", [CANCEL_G, CANCEL_G, ONE_G, ZERO_G], [250, 127], [250, 127], 0x3F800001),
    # 2X: nothing but zeros, and a tiny C: a zero C does not matter, the zero groups do
    ("mxf4nvf4", "ue8m0", [ZEROS_G, ZERO_G, ZERO_G, ZERO_G], [200, 100], [200, 100], 0x00000003),
    # 4X ue8m0 (a scale pair per group): the largest-scaled group cancels
    ("mxf4nvf4", "ue8m0", [CANCEL_G, ONE_G, ONE_G, ONE_G], [230, 127, 127, 127], [230, 127, 127, 127], 0x00000005),
    # 4X ue4m3: a zero scale on a group of real products (main: exponent -126 + its partner's)
    ("mxf4nvf4", "ue4m3", [ONE_G, ONE_G, ZERO_G, ZERO_G], [0x00, 0x01, 0x38, 0x38], [0x7E, 0x01, 0x38, 0x38], 0),
    # 4X ue4m3: the largest-scaled group all zeros, the others tiny
    ("mxf4nvf4", "ue4m3", [ZEROS_G, ONE_G, ONE_G, ONE_G], [0x7E, 0x01, 0x02, 0x03], [0x7E, 0x01, 0x01, 0x01], 0),
    # 4X ue8m0: a zero C beside 2^-140 and -2^-170 (F = 35): -126 (main, dev) and -133 cut the second at
    # 2^-161 or 2^-168, v1 (no C term) keeps it; the zero groups' scales are tiny
    ("mxf4nvf4", "ue8m0", [ONE_G, ([F1[-1]], [F1[0.5]]), ZERO_G, ZERO_G], [57, 43, 1, 1], [57, 42, 1, 1], 0),
    # 4X ue4m3: zero C beside tiny groups (2^-18 and below)
    ("mxf4nvf4", "ue4m3", [([F1[0.5]], [F1[0.5]]), ONE_G, ZERO_G, ZERO_G], [0x01, 0x01, 0x01, 0x01],
     [0x01, 0x03, 0x01, 0x01], 0),
]


@pytest.mark.parametrize("case", range(len(GROUP_CASES)))
def test_groups_path_zero_cases(spec, case):
    kind, stype, groups, sa, sb, c = GROUP_CASES[case]
    a, b = _k64(groups)
    for rule in RULES:
        ref = ref_groups(rule, a, b, c, sa, sb, stype)
        ours = ours_groups(spec, rule, a, b, c, sa, sb, stype, kind)
        assert ours == ref, (rule, hex(ours), hex(ref))


def test_groups_cases_separate_the_rules():
    seen = {r: [] for r in RULES}
    for kind, stype, groups, sa, sb, c in GROUP_CASES:
        a, b = _k64(groups)
        for rule in RULES:
            seen[rule].append(ref_groups(rule, a, b, c, sa, sb, stype))
    for i, r in enumerate(RULES):
        for s in RULES[i + 1:]:
            assert seen[r] != seen[s], (r, s)


# ---------------------------------------------------------------------------------------------
# Zero-heavy random inputs


def _zero_heavy(rng, n, bits, zero_share=0.6):
    codes = rng.integers(0, 1 << bits, n)
    return np.where(rng.random(n) < zero_share, 0, codes).astype(int).tolist()


@pytest.mark.parametrize("t", ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"])
def test_products_random_zero_heavy(spec, t):
    """.kind::mxf8f6f4 with zero-heavy elements, small scales and C zero or tiny: each rule, 40 outputs."""
    rng = np.random.default_rng(31)
    bits = {"e4m3": 8, "e5m2": 8, "e3m2": 6, "e2m3": 6, "e2m1": 4}[t]
    nan = {"e4m3": (0x7F, 0xFF), "e5m2": tuple(range(0x7C, 0x80)) + tuple(range(0xFC, 0x100))}.get(t, ())
    for _ in range(40):
        a = [x for x in _zero_heavy(rng, 32, bits, 0.9)]
        b = [x for x in _zero_heavy(rng, 32, bits, 0.3)]
        a, b = [0 if x in nan else x for x in a], [0 if x in nan else x for x in b]
        c = int(rng.choice([0, 0x80000000, 1, 0x00800001, int(rng.integers(0, 0x00800000))]))
        sa, sb = (int(x) for x in rng.integers(40, 140, 2))
        for rule in RULES:
            ref = ref_products(rule, a, b, c, t, t, "f32", 25, sa, sb, "ue8m0")
            ours = ours_products(spec, rule, a, b, c, t, t, "f32", sa, sb, "ue8m0", kind="mxf8f6f4")
            assert ours == ref, (rule, a, b, hex(c), sa, sb)


@pytest.mark.parametrize("kind, stype, vectors", [("mxf4", "ue8m0", 2), ("mxf4nvf4", "ue8m0", 4),
                                                  ("mxf4nvf4", "ue4m3", 4)])
def test_groups_random_zero_heavy(spec, kind, stype, vectors):
    rng = np.random.default_rng(32)
    for _ in range(40):
        a, b = _zero_heavy(rng, 64, 4, 0.8), _zero_heavy(rng, 64, 4, 0.3)
        c = int(rng.choice([0, 0x80000000, 1, 0x3F800001, int(rng.integers(0, 0x00800000))]))
        if stype == "ue8m0":
            sa, sb = (rng.integers(60, 185, vectors).tolist() for _ in range(2))
        else:
            sa, sb = (np.where(rng.random(vectors) < 0.2, 0, rng.integers(0, 0x7F, vectors)).tolist() for _ in range(2))
        for rule in RULES:
            ref = ref_groups(rule, a, b, c, sa, sb, stype)
            ours = ours_groups(spec, rule, a, b, c, sa, sb, stype, kind)
            assert ours == ref, (rule, kind, stype, a, b, hex(c), sa, sb)


def test_every_path_treats_zeros_one_way(spec):
    """The model drops a zero product on the products path and a group of zero products on the groups
    path alike, and a product with a zero scale too: the same D as with the zero terms left out."""
    a, b = _k32([(E4M3[1], E4M3[1])], (E4M3[0], E4M3[448]))
    with_zeros = ours_products(spec, "h100", a, b, 0, "e4m3", "e4m3", "f32", 100, 100, "ue8m0", kind="mxf8f6f4")
    alone = ours_products(spec, "h100", a[:1] + [0] * 31, [b[0]] + [0] * 31, 0, "e4m3", "e4m3", "f32", 100, 100,
                          "ue8m0", kind="mxf8f6f4")
    assert with_zeros == alone
    ga, gb = _k64([ZEROS_G, ONE_G, ZERO_G, ZERO_G])
    gz = ours_groups(spec, "h100", ga, gb, 0, [0x7E, 0x01, 0x01, 0x01], [0x7E, 0x01, 0x01, 0x01], "ue4m3", "mxf4nvf4")
    g1 = ours_groups(spec, "h100", ga, gb, 0, [0x00, 0x01, 0x01, 0x01], [0x7E, 0x01, 0x01, 0x01], "ue4m3", "mxf4nvf4")
    assert gz == g1 == to_code(Fraction(1, 2 ** 18), "f32")  # the one real group, 2^-9 * 2^-9, exact
