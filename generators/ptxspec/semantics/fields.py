"""Exact decoding of float codes into (sign, integer significand, exponent, special), and exact
rounding of S * 2^e back to a float format: the primitives every arithmetic model shares."""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.core.lazy import np

from ptxspec.core.formats import decode


@dataclass
class Fields:
    """value = (-1)^neg * mag * 2^(exp - mbits); special 0 finite, 1 Inf, 2 NaN."""
    neg: np.ndarray
    mag: np.ndarray  # int64, hidden bit included for normal numbers
    exp: np.ndarray  # int64, unbiased exponent (subnormals: 1 - bias)
    special: np.ndarray
    mbits: int

    def negate(self) -> "Fields":
        return Fields(~self.neg, self.mag, self.exp, self.special, self.mbits)

    def take(self, idx) -> "Fields":
        return Fields(self.neg[idx], self.mag[idx], self.exp[idx], self.special[idx], self.mbits)


def _fmt(spec, tname):
    t = spec.types[tname]
    if t.cls != "float":
        raise ValueError(f"{tname} is not a float type")
    f = t.format
    return t, f["exponent"], f["mantissa"], f["bias"], f["specials"]


def decode_fields(spec, tname: str, codes) -> Fields:
    """Raw codes of a float type -> Fields. Formats narrower than their slot (tf32) use the
    slot's top bits; the low bits are ignored."""
    t, e, m, bias, specials = _fmt(spec, tname)
    c = np.asarray(codes).astype(np.uint64)
    width = 1 + e + m
    c = (c >> np.uint64(t.bits - width)).astype(np.int64) if t.bits > width else c.astype(np.int64)
    if t.bits > 63:  # f64: keep as unsigned arithmetic
        c = np.asarray(codes).astype(np.uint64)
        neg = (c >> np.uint64(63)).astype(bool)
        ex = ((c >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
        man = (c & np.uint64((1 << 52) - 1)).astype(np.int64)
    else:
        neg = ((c >> (e + m)) & 1).astype(bool)
        ex = (c >> m) & ((1 << e) - 1)
        man = c & ((1 << m) - 1)
    top = (1 << e) - 1
    special = np.zeros(c.shape, np.int8)
    if specials == "ieee":
        special = np.where(ex == top, np.where(man == 0, 1, 2), 0).astype(np.int8)
    elif specials == "nan_only":
        special = np.where((ex == top) & (man == (1 << m) - 1), 2, 0).astype(np.int8)
    mag = np.where(ex == 0, man, man | (1 << m)).astype(np.int64)
    exp = np.where(ex == 0, 1 - bias, ex - bias).astype(np.int64)
    return Fields(neg, mag, exp, special, m)


def canonical_nan(spec, tname: str) -> int:
    """The NaN the tensor cores write: every bit but the sign set."""
    t = spec.types[tname]
    return (1 << (t.bits - 1)) - 1


def inf_code(spec, tname, neg):
    t, e, m, bias, _ = _fmt(spec, tname)
    return np.where(neg, 1 << (t.bits - 1), 0).astype(np.uint64) | np.uint64(((1 << e) - 1) << m)


def _bit_length(a: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 values (vectorised, exact)."""
    a = np.asarray(a, dtype=np.int64)
    _, ex = np.frexp(a.astype(np.float64))
    ex = ex.astype(np.int64)
    # float rounding may overstate the length by one near powers of two
    over = (ex > 0) & ((np.int64(1) << np.clip(ex - 1, 0, 62)) > a)
    return ex - over


def round_to_format(spec, tname: str, S, e0, mode: str = "rz", keep: int = 0) -> np.ndarray:
    """Codes of the value S * 2^e0 (S int64, e0 int64 broadcastable) rounded to float type
    `tname` with `mode` (rz, rn, rm, rp), keeping `keep` fraction bits (0: the format's).
    S == 0 gives +0. Values beyond the format's range give +-Inf in every mode."""
    t, e, m, bias, _ = _fmt(spec, tname)
    fk = keep or m
    S = np.asarray(S, dtype=np.int64)
    e0 = np.broadcast_to(np.asarray(e0, dtype=np.int64), S.shape)
    neg = S < 0
    A = np.abs(S)
    L = _bit_length(A)
    E = e0 + L - 1
    emin, emax = 1 - bias, (1 << e) - 2 - bias
    Eq = np.maximum(E, emin)
    q = Eq - fk
    shift = q - e0
    left = np.clip(-shift, 0, 62)
    right = np.clip(shift, 0, 63)
    R = np.where(shift <= 0, A << left, A >> right)
    if mode != "rz":
        rem = np.where(shift > 0, A - (R << right), 0)
        half = np.where(shift > 0, np.int64(1) << np.clip(right - 1, 0, 62), 0)
        if mode == "rn":
            up = (rem > half) | ((rem == half) & (rem > 0) & ((R & 1) == 1))
        elif mode == "rp":
            up = (rem > 0) & ~neg
        elif mode == "rm":
            up = (rem > 0) & neg
        else:
            raise ValueError(f"rounding mode {mode!r}")
        R = R + up
    code = ((Eq - emin) << m) + (R << (m - fk))
    over = (E > emax) | (code >= (((1 << e) - 1) << m))
    code = np.where(over, ((1 << e) - 1) << m, code)
    code = np.where(A == 0, 0, code).astype(np.uint64)
    sign = np.where(neg & (A != 0), np.uint64(1 << (t.bits - 1)), np.uint64(0))
    return code | sign


def specials(fa: Fields, fb: Fields, fc: Fields, kept=None):
    """(nan, inf, inf_neg) per output element (..., M, N) of one step (A (..., M, k), B (..., k, N));
    A elements outside `kept` take no part."""
    a_nan, b_nan = fa.special == 2, fb.special == 2
    a_inf, b_inf = fa.special == 1, fb.special == 1
    a_zero, b_zero = (fa.mag == 0) & (fa.special == 0), (fb.mag == 0) & (fb.special == 0)
    if kept is not None:
        a_nan, a_inf, a_zero = a_nan & kept, a_inf & kept, a_zero & kept
    c_nan, c_inf = fc.special == 2, fc.special == 1
    if not (a_nan.any() or b_nan.any() or a_inf.any() or b_inf.any() or c_nan.any() or c_inf.any()):
        return None
    f = lambda x: x.astype(np.float64)  # noqa: E731 - counts via matmul
    present = np.ones_like(a_nan) if kept is None else kept
    nan = (f(a_nan) @ f(np.ones_like(b_nan)) + f(present) @ f(b_nan)
           + f(a_inf) @ f(b_zero) + f(a_zero) @ f(b_inf)) > 0
    ainf_p, ainf_n = a_inf & ~fa.neg, a_inf & fa.neg
    binf_p, binf_n = b_inf & ~fb.neg, b_inf & fb.neg
    afin = ~a_inf & ~a_zero & ~a_nan & present
    afin_p, afin_n = afin & ~fa.neg, afin & fa.neg
    bfin_p, bfin_n = ~b_inf & ~b_zero & ~b_nan & ~fb.neg, ~b_inf & ~b_zero & ~b_nan & fb.neg
    b_p, b_n = binf_p | bfin_p, binf_n | bfin_n
    # an infinite product: one factor infinite, the other nonzero finite or infinite
    pos = (f(ainf_p) @ f(b_p) + f(ainf_n) @ f(b_n) + f(afin_p) @ f(binf_p) + f(afin_n) @ f(binf_n)) > 0
    negi = (f(ainf_p) @ f(b_n) + f(ainf_n) @ f(b_p) + f(afin_p) @ f(binf_n) + f(afin_n) @ f(binf_p)) > 0
    pos = pos | (c_inf & ~fc.neg)
    negi = negi | (c_inf & fc.neg)
    nan = nan | c_nan | (pos & negi)
    return nan, (pos | negi) & ~nan, negi


def plus_zero(spec, tname, codes):
    """A zero result is +0, also when a nonzero sum rounds to zero (H100: f16 results)."""
    sign = np.uint64(1 << (spec.types[tname].bits - 1))
    return np.where(codes == sign, np.uint64(0), codes)


def exact_values(f: Fields) -> np.ndarray:
    """Exact float64 values of the finite elements (0 for Inf and NaN, which specials handles)."""
    mag = np.where(f.special == 0, f.mag, 0).astype(np.float64)
    v = np.ldexp(mag, (f.exp - f.mbits).astype(np.int32))
    return np.where(f.neg, -v, v)


def saturate_infinity(spec, tname: str, codes) -> np.ndarray:
    """Codes of `tname` with each infinity replaced by the largest finite value of its sign (a NaN
    stays what it was)."""
    t, e, m, _, _ = _fmt(spec, tname)
    codes = np.asarray(codes).astype(np.uint64)
    sign = np.uint64(1 << (t.bits - 1))
    inf = np.uint64(((1 << e) - 1) << m)
    biggest = np.uint64((((1 << e) - 2) << m) | ((1 << m) - 1))
    return np.where((codes & ~sign) == inf, (codes & sign) | biggest, codes)


def f16_to_f32(codes) -> np.ndarray:
    """f32 codes of f16 codes (exact; a NaN stays a NaN)."""
    h = np.asarray(codes).astype(np.uint16).view(np.float16)
    return h.astype(np.float32).view(np.uint32).astype(np.uint64)


def f32_to_f16(codes) -> np.ndarray:
    """f16 codes of f32 codes rounded to nearest even, as an IEEE conversion (F2FP.F16.F32): the
    sign of a zero and of a result that rounds to zero is kept, beyond the range is +-Inf, a NaN
    is the canonical 0x7FFF."""
    f = np.asarray(codes).astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        h = f.astype(np.float16).view(np.uint16).astype(np.uint64)
    return np.where(np.isnan(f), np.uint64(0x7FFF), h)


def to_f16(spec, tname, codes) -> np.ndarray:
    """f16 codes of the values of an 8-bit float type (exact: every e4m3/e5m2 value is an f16)."""
    vals = decode(spec, tname, codes)
    with np.errstate(invalid="ignore"):
        out = vals.astype(np.float16).view(np.uint16).astype(np.uint64)
    return np.where(np.isnan(vals), np.uint64(0x7FFF), out)
