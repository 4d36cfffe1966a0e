"""Floating-point products: the truncated fused dot-product-add (fdpa) and the emulations ptxas
writes where a target has no tensor-core form (fp8 via f16 steps, an f32 FMA chain); see
`ptxspec.semantics.numerics` for the models and where each was measured."""
from __future__ import annotations

from ptxspec.core.lazy import np

from ptxspec.semantics.fields import (
    Fields,
    canonical_nan,
    decode_fields,
    exact_values,
    f16_to_f32,
    f32_to_f16,
    inf_code,
    plus_zero,
    round_to_format,
    saturate_infinity,
    specials,
    to_f16,
)
from ptxspec.semantics.numerics import NumericsParams


#: How a zero enters the alignment of a fused step (`fdpa_step`'s `zeros`):
#: "operands": a product with a zero factor is no term; a zero C counts as `zero_exp` (the H100);
#: "fields": every product counts at the sum of its factors' exponents, zero factors included (the
#: caller sets a zero factor's exponent: MMA-Sim main gives a zero element -126), a zero C as `zero_exp`;
#: "terms": every zero product and a zero C count as `zero_exp` (MMA-Sim's dev branch, -126).
ZERO_RULES = ("operands", "fields", "terms")
#: The lowest alignment exponent a step uses. Every nonzero term lies above it (the smallest: two e5m2
#: subnormals under two 2^-127 scales, about -282), so below it every term is zero and the sum is 0
#: whatever the alignment; it keeps 2^-(exponent - F) a finite double when zeros count far down.
EMAX_FLOOR = -512


def fdpa_step(spec, fa: Fields, fb: Fields, fc: Fields, out_type: str, F: int, mode: str, keep: int,
              zero_exp: int, kept=None, zeros: str = "operands") -> np.ndarray:
    """One fused step: A (..., M, k), B (..., k, N), C (..., M, N) as Fields -> codes (..., M, N).
    `kept` (..., M, k) marks the A elements a sparse instruction multiplies (None: all); the others
    take no part at all (an Inf or NaN of B meets no product there). `zeros` (ZERO_RULES) says how
    a zero product and a zero C enter the alignment.

    Every term is exact in float64 (products of at most 2 x 11 significant bits) and so is every
    scaling by a power of two; the truncated terms are integers below 2^(F+2), whose sum of at
    most a few dozen is exact too: float64 arithmetic computes the model exactly, and fast."""
    if zeros not in ZERO_RULES:
        raise ValueError(f"zeros must be one of {', '.join(ZERO_RULES)}; got {zeros!r}")
    va = exact_values(fa)
    vb = np.swapaxes(exact_values(fb), -1, -2)  # (..., N, k)
    vc = exact_values(fc)
    far = np.int32(-(1 << 14))  # a zero factor: the product is a zero term (below every exponent)
    ea, eb = fa.exp.astype(np.int32), np.swapaxes(fb.exp, -1, -2).astype(np.int32)
    if zeros == "operands":
        ea, eb = np.where(va == 0, far, ea), np.where(vb == 0, far, eb)
    ep = ea[..., :, None, :] + eb[..., None, :, :]  # (..., M, N, k)
    if zeros == "terms":
        ep = np.where((va[..., :, None, :] == 0) | (vb[..., None, :, :] == 0), np.int32(zero_exp), ep)
    emax = ep.max(axis=-1)
    ec = np.where(vc == 0, np.int32(zero_exp), fc.exp.astype(np.int32))
    emax = np.maximum(np.maximum(emax, ec), EMAX_FLOOR).astype(np.int64)
    base = emax - F  # quantum exponent of the aligned terms
    scale = np.ldexp(1.0, -base)
    P = va[..., :, None, :] * vb[..., None, :, :]
    P *= scale[..., None]
    np.trunc(P, out=P)
    S = P.sum(axis=-1) + np.trunc(vc * scale)
    out = round_to_format(spec, out_type, S.astype(np.int64), base, mode, keep)
    out = plus_zero(spec, out_type, out)
    sp = specials(fa, fb, fc, kept)
    if sp is not None:
        nan, inf, negi = sp
        out = np.where(inf, inf_code(spec, out_type, negi), out)
        out = np.where(nan, np.uint64(canonical_nan(spec, out_type)), out)
    return out


def fdpa_step_int(spec, fa: Fields, fb: Fields, fc: Fields, out_type: str, F: int, mode: str, keep: int,
                  zero_exp: int) -> np.ndarray:
    """fdpa_step in int64 arithmetic (the reference the float64 version is tested against)."""
    pab = fa.mbits + fb.mbits
    sa = np.where(fa.neg, -fa.mag, fa.mag)
    sb = np.where(fb.neg, -fb.mag, fb.mag)
    fin_a = fa.special == 0
    fin_b = fb.special == 0
    sa = np.where(fin_a, sa, 0)
    sb = np.where(fin_b, sb, 0)
    ea = np.where(sa == 0, zero_exp, fa.exp)  # a zero factor makes the product a zero term
    eb = np.where(sb == 0, zero_exp, fb.exp)
    P = sa[..., :, None, :] * np.swapaxes(sb, -1, -2)[..., None, :, :]  # (..., M, N, k)
    EP = ea[..., :, None, :] + np.swapaxes(eb, -1, -2)[..., None, :, :]
    EP = np.where(P == 0, zero_exp, EP)
    sc = np.where(fc.special == 0, np.where(fc.neg, -fc.mag, fc.mag), 0)
    EC = np.where(sc == 0, zero_exp, fc.exp)
    emax = np.maximum(EP.max(axis=-1), EC)
    base = emax - F  # quantum exponent of the aligned terms
    sh = EP - pab - base[..., None]
    Pt = np.where(sh >= 0, P << np.clip(sh, 0, 62), _trunc_shift(P, -sh))
    shc = EC - fc.mbits - base
    Ct = np.where(shc >= 0, sc << np.clip(shc, 0, 62), _trunc_shift(sc, -shc))
    S = Pt.sum(axis=-1) + Ct
    out = round_to_format(spec, out_type, S, base, mode, keep)
    sp = specials(fa, fb, fc)
    if sp is not None:
        nan, inf, negi = sp
        out = np.where(inf, inf_code(spec, out_type, negi), out)
        out = np.where(nan, np.uint64(canonical_nan(spec, out_type)), out)
    return out


def _trunc_shift(x, r):
    """x / 2^r toward zero (r >= 0)."""
    r = np.clip(r, 0, 63)
    mag = np.abs(x) >> r
    return np.where(x < 0, -mag, mag)


def fdpa(spec, a_codes, b_codes, c_codes, atype: str, btype: str, ctype: str, dtype: str, p: NumericsParams,
         scale_a: int = 1, scale_b: int = 1, scale_d: int = 1, kept=None) -> np.ndarray:
    """A (..., M, K), B (..., K, N), C (..., M, N) raw codes -> D codes (..., M, N), in steps of
    p.group consecutive k. Sparse forms: A dense with zeros where not kept, `kept` the mask of
    the elements multiplied (the others take no part)."""
    fa = decode_fields(spec, atype, a_codes)
    fb = decode_fields(spec, btype, b_codes)
    if scale_a == -1:
        fa = fa.negate()
    if scale_b == -1:
        fb = fb.negate()
    c = np.asarray(c_codes)
    if not scale_d:
        c = np.zeros(c.shape, np.uint64)
    step_type = p.via or dtype
    if ctype == "f16" and step_type == "f32":  # C enters converted to f32 (HADD2.F32): an f16
        c, ctype = f16_to_f32(c), "f32"          # subnormal aligns on its f32 exponent
    fc = decode_fields(spec, ctype, c)
    K = fa.mag.shape[-1]
    g = p.group or K
    for k0 in range(0, K, g):
        sl = (Ellipsis, slice(k0, k0 + g))
        fa_k = fa.take(sl)
        fb_k = fb.take((Ellipsis, slice(k0, k0 + g), slice(None)))
        d = fdpa_step(spec, fa_k, fb_k, fc, step_type, p.F, p.round, p.keep, p.zero_exp,
                      None if kept is None else kept[sl])
        fc = decode_fields(spec, step_type, d)
    if p.finite:  # the last step saturates (HMMA .SATFINITE): +-Inf becomes +-the largest finite value
        d = saturate_infinity(spec, step_type, d)
    if step_type != dtype:
        d = f32_to_f16(d)
    return d


def fp8_emulated(spec, a_codes, b_codes, c_codes, atype, btype, ctype, dtype, p: NumericsParams,
                 kept=None, split: int = 2) -> np.ndarray:
    """fp8 mma.sync on sm_90 as ptxas 13 emulates it: the fp8 values become f16 (e4m3 subnormals
    become f16 normals: their exponent in the alignment is the f16 one), f16 steps over
    (k // split) even, then odd (the first from +0, the second accumulating it), then C added
    with a rounding add."""
    fa = decode_fields(spec, "f16", to_f16(spec, atype, a_codes))
    fb = decode_fields(spec, "f16", to_f16(spec, btype, b_codes))
    K = fa.mag.shape[-1]
    k = np.arange(K)
    lo, hi = k[(k // split) % 2 == 0], k[(k // split) % 2 == 1]
    step_type = dtype
    zero = np.zeros(np.asarray(c_codes).shape, np.uint64)
    kl = None if kept is None else kept[..., lo]
    kh = None if kept is None else kept[..., hi]
    d = fdpa_step(spec, fa.take((Ellipsis, lo)), fb.take((Ellipsis, lo, slice(None))),
                  decode_fields(spec, step_type, zero), step_type, p.F, p.round, p.keep, p.zero_exp, kl)
    d = fdpa_step(spec, fa.take((Ellipsis, hi)), fb.take((Ellipsis, hi, slice(None))),
                  decode_fields(spec, step_type, d), step_type, p.F, p.round, p.keep, p.zero_exp, kh)
    return add_rn(spec, dtype, d, ctype, c_codes)


def fma_chain(spec, a_codes, b_codes, c_codes, atype, btype, ctype, dtype, p: NumericsParams,
              order=None) -> np.ndarray:
    """mma.m8n8k4 with f16 inputs on sm_90, as ptxas 13 emulates it (no HMMA: HADD2.F32, FFMA,
    FADD, F2FP): every value converted to f32 exactly; K in consecutive groups of `p.group` k, each
    summed in f32 by a chain of fused multiply-adds in k order, rounded to nearest each (a group of
    the whole K starts from +0, FFMA with a zero addend; a shorter group from its first product,
    FMUL); then C + group 0 + group 1 ... with f32 adds, to nearest; an f16 D is that f32 result
    rounded to nearest (F2FP). NaN results are canonical. `order` permutes k (hypothesis tests).

    Products of two f16 values are exact in f32 (22 significant bits, exponents -48 to 32), so a
    fused multiply-add of them is one correctly rounded f32 add: numpy's float32 arithmetic (IEEE,
    to nearest even, subnormals kept) computes the chain exactly."""
    def f32(t, codes):
        x = np.asarray(codes)
        if t == "f16":
            return x.astype(np.uint16).view(np.float16).astype(np.float32)
        if t == "f32":
            return x.astype(np.uint32).view(np.float32)
        raise ValueError(f"fmachain: no f32 conversion of {t}")
    a = f32(atype, a_codes)
    b = np.swapaxes(f32(btype, b_codes), -1, -2)
    c = f32(ctype, c_codes)
    K = a.shape[-1]
    ks = list(order) if order is not None else list(range(K))
    g = p.group or K
    with np.errstate(all="ignore"):
        P = a[..., :, None, :] * b[..., None, :, :]  # (..., M, N, K), exact
        acc = c
        for k0 in range(0, K, g):
            grp = ks[k0:k0 + g]
            s = (np.float32(0) + P[..., grp[0]]) if g == K else P[..., grp[0]]
            for k in grp[1:]:
                s = s + P[..., k]
            acc = acc + s
    if dtype == "f32":
        out = acc.view(np.uint32).astype(np.uint64)
        return np.where(np.isnan(acc), np.uint64(canonical_nan(spec, "f32")), out)
    if dtype == "f16":
        return f32_to_f16(acc.view(np.uint32))
    raise ValueError(f"fmachain: no {dtype} output")


def add_rn(spec, dtype, x_codes, ctype, c_codes) -> np.ndarray:
    """x + c rounded to nearest even in dtype (IEEE add; NaN canonical)."""
    fx = decode_fields(spec, dtype, x_codes)
    fc = decode_fields(spec, ctype, c_codes)
    sx = np.where(fx.neg, -fx.mag, fx.mag)
    sc = np.where(fc.neg, -fc.mag, fc.mag)
    ex, ec = fx.exp - fx.mbits, fc.exp - fc.mbits
    lo = np.minimum(ex, ec)
    # exact when the exponent gap is small; a far smaller addend only matters as a sticky bit
    gap = np.abs(ex - ec)
    big = gap > 32
    shx = np.clip(ex - lo, 0, 32)
    shc = np.clip(ec - lo, 0, 32)
    S = (sx << shx) + (sc << shc)
    base = lo
    # far apart: keep the larger exactly, the smaller as a sticky unit below its last bit
    x_larger = ex >= ec
    Sbig = np.where(x_larger, (sx << 3) + np.sign(sc), (sc << 3) + np.sign(sx))
    bbig = np.where(x_larger, ex, ec) - 3
    S = np.where(big, Sbig, S)
    base = np.where(big, bbig, base)
    both_zero = (sx == 0) & (sc == 0)
    out = round_to_format(spec, dtype, S, base, "rn")
    # IEEE: x + c with an exact zero sum is +0 (round to nearest), -0 only for (-0) + (-0)
    out = np.where(both_zero & fx.neg & fc.neg, np.uint64(1 << (spec.types[dtype].bits - 1)), out)
    nan = (fx.special == 2) | (fc.special == 2) | ((fx.special == 1) & (fc.special == 1) & (fx.neg != fc.neg))
    inf = ((fx.special == 1) | (fc.special == 1)) & ~nan
    negi = np.where(fx.special == 1, fx.neg, fc.neg)
    out = np.where(inf, inf_code(spec, dtype, negi), out)
    return np.where(nan, np.uint64(canonical_nan(spec, dtype)), out)
