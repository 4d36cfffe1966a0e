"""Exact arithmetic of the tensor-core instructions: what D holds, bit for bit, given A, B and C.

Inputs are raw element codes (unsigned integers) of the variant's types; outputs are raw codes of
the destination type. Everything is vectorised with numpy over a leading batch dimension.

Models (parameters per variant: `params(variant)`, from the rules of spec/numerics.yaml; every
rule below was confirmed bit for bit on an H100, tests/device/campaigns/2026-11-22-numerics.md):

* integer: D = C + sum(a*b), exact, then wrapped modulo 2^32, or clamped once on the exact
  value with `.satfinite`.
* b1: D = C + popc(a AND b) (or XOR) per row/column pair, wrapped.
* fdpa (truncated fused dot-product-add): per step of `group` consecutive k, the products are
  exact; every term, the accumulator included, is aligned to the largest exponent among them
  (products: the sum of the factors' exponents; a zero term counts as `zero_exp`), cut toward
  zero to `F` fraction bits below it and summed exactly; the sum is rounded once (`round`:
  toward zero or to nearest even) to the output format keeping `keep` fraction bits. A zero
  result is +0 (also a nonzero sum that rounds to zero); a NaN result has the canonical bits;
  an exact sum beyond the range is +-Inf. Sparse forms: one step over the kept products of the
  whole dense K; the A elements the metadata drops take no part (not even as 0 x Inf).
  With `via` (wmma .f16.f32: D f16, C f32), the steps round to `via` (f32, the f32 rule's F
  and rounding: HMMA.F32) and that result is converted to D's type to nearest (F2FP: the sign of
  a result that rounds to zero is kept). An f16 C of an f32 step enters converted to f32
  (wmma .f32.f16: HADD2.F32), so an f16 subnormal aligns on its f32 exponent.
  wmma m16n16k8 .tf32: two steps of k4 (HMMA.1684).
* fp8emu: `mma.sync` with fp8 inputs on sm_90, as ptxas 13 emulates it: the fp8 values become
  f16 (e4m3 subnormals are f16 normals there), two f16 steps over (k // split) even, then odd
  (the first from +0, the second accumulating it), then C added with an IEEE round-to-nearest add.
* fmachain: `mma.m8n8k4` with f16 inputs on sm_90, as ptxas 13 emulates it without tensor
  cores: everything in f32, round to nearest each operation; D f32: a chain of fused
  multiply-adds in k order from +0, then C + chain; D f16: (C + (a0 b0 + a1 b1)) + (a2 b2 + a3 b3)
  (each pair an FMUL and an FFMA), then rounded to f16. IEEE signed zeros and canonical NaNs.
* f64fma: a chain of correctly rounded fused multiply-adds in k order from C, with the variant's
  rounding mode; a NaN operand propagates quieted (B's first, then the accumulator, then A's);
  an invalid operation gives F64_NAN.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["Fields", "decode_fields", "params", "fdpa", "fma_chain", "integer_mma", "f64_chain", "round_to_format",
           "canonical_nan", "MODELS", "NumericsParams", "rule_matches"]

# ---------------------------------------------------------------------------------------------
# The parameters of a model, and the rules (spec/numerics.yaml) that give each variant its own


@dataclass(frozen=True)
class NumericsParams:
    model: str  # integer | b1 | fdpa | fp8emu | fmachain | f64fma | fdpa_scaled | fdpa_groups (ptxspec.blockscale)
    group: int = 0  # k terms per fused step (0: the whole K of the instruction); fmachain: per chain
    F: int = 0  # fraction bits kept below the largest exponent of a step
    round: str = "rz"  # final rounding of a step: rz | rn
    keep: int = 0  # fraction bits the result keeps (0: all of the output format)
    zero_exp: int = -133  # exponent a zero term counts as in the alignment
    split: int = 0  # fp8emu: the k interleave of the two f16 steps (2: k mod 4 < 2 first; sparse: 4)
    via: str = ""  # fdpa: the type each step rounds to before D's type (to nearest, IEEE: sign kept)
    finite: int = 0  # fdpa: 1: the last step saturates (an infinite result becomes the largest finite value of its sign)

    def as_data(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


#: The models this module implements (spec/numerics.yaml names one per rule).
#: `none`: ptxas accepts the form but emits no product for it on any target (the executor refuses it).
MODELS = ("integer", "b1", "fdpa", "fp8emu", "fmachain", "f64fma", "fdpa_scaled", "fdpa_groups", "none")
#: numerics_status of a variant no campaign ran, by the basis of its rule (spec/numerics.yaml `basis`)
UNMEASURED = {"measured": "not run", "published": "modelled (manual + published measurements); not run on hardware",
              "sass": "modelled (ptxas SASS + steps measured on an H100); not run on hardware"}
#: numerics_status of a variant whose products (chosen at run time by a descriptor, `SELECTED`) take
#: their arithmetic from rules of the same types that rest on campaigns run on other instructions
BORROWED = "modelled (the same types' rules, measured on other instructions); not run on hardware"
#: semantics -> function(variant) -> [(label, rule or None, NumericsParams-like, basis)] for the
#: instructions whose shape and element types an operand selects at run time (no `m` in the variant):
#: every product the variant can compute, with its arithmetic. Registered by the executors' modules.
#: `basis` is a rule's basis (a key of UNMEASURED), or the provenance itself (a few words) where no
#: rule of the spec covers the product and the executor restates one (its status: PUBLISHED_AS).
SELECTED: dict = {}
#: semantics -> function(variant) -> why SELECTED names no product for it ('' when nothing says):
#: numerics_status shows it beside `no model`. Registered with SELECTED.
WHY_NONE: dict = {}
#: numerics_status of a variant whose rule (or restated product) names its provenance
PUBLISHED_AS = "modelled ({}); not run on hardware"
#: numerics_status of a variant whose rule's model is `none`
NO_ARITHMETIC = "no arithmetic: ptxas emits no product for it on any target"
#: The variant fields a rule's `when` may test besides the family's axes.
RULE_FIELDS = ("family", "instruction", "m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op", "sparse")


def rule_matches(when: dict, variant) -> bool:
    """Each key of `when` equals the variant's field (a list: contains it); absent axes are ''."""
    for key, want in when.items():
        have = getattr(variant, key) if key in RULE_FIELDS else variant.qualifiers.get(key, "")
        if isinstance(want, list):
            if have not in want:
                return False
        elif have != want:
            return False
    return True


def computes_product(variant) -> bool:
    """The variant computes D = A*B + C (its instruction's semantics is mma)."""
    return variant.m is not None and variant.semantics == "mma"


def rules_digest(spec) -> str:
    """A digest of the spec's numerics rules (generated tables record it)."""
    import hashlib
    text = repr([(r.when, r.model, sorted(r.params.items())) for r in spec.numerics])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_TABLES: dict = {}


def _generated(variant):
    """The generated table's entry for the variant, when the table matches the spec and RULES."""
    key = (id(variant.spec), variant.family)
    hit = _TABLES.get(key)
    if hit is None or hit[0] is not variant.spec:
        table = None
        try:
            import importlib
            mod = importlib.import_module(f"ptxspec_generated.executors_{variant.family}")
            if mod.SPEC_DIGEST == variant.spec.digest:
                table = mod.PARAMS
        except (ImportError, AttributeError):
            pass
        hit = _TABLES[key] = (variant.spec, table)
    table = hit[1]
    if table is None:
        return None
    row = table.get(variant.id)
    return None if row is None else NumericsParams(*row)


def params(variant) -> NumericsParams:
    """The arithmetic of a variant, from the spec's numerics rules (or the generated table derived
    from the same spec); KeyError when no rule covers it."""
    p = _generated(variant)
    if p is not None:
        return p
    return _params(variant)


def rule_of(variant):
    """The spec/numerics.yaml rule that gives the variant its arithmetic, or None."""
    if not computes_product(variant):
        return None
    return next((r for r in variant.spec.numerics if rule_matches(r.when, variant)), None)


def _params(variant) -> NumericsParams:
    if not computes_product(variant):
        raise KeyError(f"{variant.id} computes no product")
    rule = rule_of(variant)
    if rule is not None:
        p = NumericsParams(rule.model, **rule.params)
        if p.model == "fdpa" and p.group == 0:  # one step over the instruction's whole K
            p = replace(p, group=variant.k)
        return p
    raise KeyError(f"{variant.id}: no arithmetic rule (spec/numerics.yaml) for {variant.atype} inputs and "
                   f"{variant.dtype} output" + (f" with .{variant.qualifiers['kind']}" if variant.qualifiers.get("kind")
                                                else ""))


# ---------------------------------------------------------------------------------------------
# Exact decoding into (sign, integer significand, exponent, special)


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


def _inf_code(spec, tname, neg):
    t, e, m, bias, _ = _fmt(spec, tname)
    return np.where(neg, 1 << (t.bits - 1), 0).astype(np.uint64) | np.uint64(((1 << e) - 1) << m)


# ---------------------------------------------------------------------------------------------
# Rounding an exact value S * 2^e0 (int64 S) to a float format


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


# ---------------------------------------------------------------------------------------------
# Truncated fused dot-product-add


def _specials(fa: Fields, fb: Fields, fc: Fields, kept=None):
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
    va = _values(fa)
    vb = np.swapaxes(_values(fb), -1, -2)  # (..., N, k)
    vc = _values(fc)
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
    out = _plus_zero(spec, out_type, out)
    sp = _specials(fa, fb, fc, kept)
    if sp is not None:
        nan, inf, negi = sp
        out = np.where(inf, _inf_code(spec, out_type, negi), out)
        out = np.where(nan, np.uint64(canonical_nan(spec, out_type)), out)
    return out


def _plus_zero(spec, tname, codes):
    """A zero result is +0, also when a nonzero sum rounds to zero (H100: f16 results)."""
    sign = np.uint64(1 << (spec.types[tname].bits - 1))
    return np.where(codes == sign, np.uint64(0), codes)


def _values(f: Fields) -> np.ndarray:
    """Exact float64 values of the finite elements (0 for Inf and NaN, which _specials handles)."""
    mag = np.where(f.special == 0, f.mag, 0).astype(np.float64)
    v = np.ldexp(mag, (f.exp - f.mbits).astype(np.int32))
    return np.where(f.neg, -v, v)


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
    sp = _specials(fa, fb, fc)
    if sp is not None:
        nan, inf, negi = sp
        out = np.where(inf, _inf_code(spec, out_type, negi), out)
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


def to_f16(spec, tname, codes) -> np.ndarray:
    """f16 codes of the values of an 8-bit float type (exact: every e4m3/e5m2 value is an f16)."""
    from .formats import decode
    vals = decode(spec, tname, codes)
    with np.errstate(invalid="ignore"):
        out = vals.astype(np.float16).view(np.uint16).astype(np.uint64)
    return np.where(np.isnan(vals), np.uint64(0x7FFF), out)


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
    out = np.where(inf, _inf_code(spec, dtype, negi), out)
    return np.where(nan, np.uint64(canonical_nan(spec, dtype)), out)


# ---------------------------------------------------------------------------------------------
# Integers and bits


def _int_values(spec, t, codes) -> np.ndarray:
    """float64 values of integer or bit codes (8-bit codes through a view of their bytes)."""
    T = spec.types[t]
    c = np.asarray(codes)
    if T.bits == 8:
        return c.astype(np.uint8).view(np.int8 if T.signed else np.uint8).astype(np.float64)
    from .formats import decode
    return decode(spec, t, c).astype(np.float64)


def integer_mma(spec, a_codes, b_codes, c_codes, atype, btype, ctype, satfinite: bool, op: str = "",
                scale_d: int = 1) -> np.ndarray:
    """Exact C + A.B (or popc of AND/XOR for b1), wrapped to s32 or clamped once with .satfinite;
    s32 codes (uint32)."""
    a = _int_values(spec, atype, a_codes)
    b = _int_values(spec, btype, b_codes)
    if op.startswith("xor"):
        ones_b = np.ones(b.shape[-2:], np.float64)
        ones_a = np.ones(a.shape[-2:], np.float64)
        prod = a @ ones_b + ones_a @ b - 2 * (a @ b)
    else:
        prod = a @ b  # exact: every partial sum is an integer far below 2^53
    d = prod.astype(np.int64)
    if scale_d:
        c = np.asarray(c_codes)
        if spec.types[ctype].bits == 32 and spec.types[ctype].signed:
            c = c.astype(np.uint32, copy=False).view(np.int32)  # s32 codes: a view, no decoding pass
        else:
            c = _int_values(spec, ctype, c).astype(np.int64)
        d += c
    if satfinite:
        np.clip(d, -(1 << 31), (1 << 31) - 1, out=d)
    return d.astype(np.uint32)  # two's-complement wrap modulo 2^32


# ---------------------------------------------------------------------------------------------
# f64: a chain of fused multiply-adds


def _f64_parts(code: int):
    neg = code >> 63
    ex = (code >> 52) & 0x7FF
    man = code & ((1 << 52) - 1)
    if ex == 0x7FF:
        return None
    if ex == 0:
        m, e = man, -1074
    else:
        m, e = man | (1 << 52), ex - 1075
    return (-m if neg else m), e


def _round_f64(S: int, e: int, mode: str) -> int:
    """Code of S * 2^e rounded to f64 (S a Python int); S == 0 -> +0."""
    if S == 0:
        return 0
    neg = S < 0
    A = -S if neg else S
    L = A.bit_length()
    E = e + L - 1
    Eq = max(E, -1022)
    q = Eq - 52
    sh = q - e
    if sh <= 0:
        R = A << -sh
    else:
        R = A >> sh
        rem = A - (R << sh)
        if rem:
            half = 1 << (sh - 1)
            if mode == "rn":
                up = rem > half or (rem == half and R & 1)
            elif mode == "rz":
                up = False
            elif mode == "rp":
                up = not neg
            elif mode == "rm":
                up = neg
            else:
                raise ValueError(mode)
            R += up
    code = ((Eq + 1022) << 52) + R
    if code >= 0x7FF << 52 or E > 1023:
        if mode == "rz" or (mode == "rp" and neg) or (mode == "rm" and not neg):
            code = (0x7FF << 52) - 1  # directed rounding away from the overflow keeps the largest finite
        else:
            code = 0x7FF << 52
    return code | (int(neg) << 63)


F64_NAN = 0xFFF8000000000000  # the NaN an invalid operation (Inf - Inf, 0 x Inf) makes
F64_QUIET = 1 << 51


def fma_f64(a: int, b: int, c: int, mode: str = "rn") -> int:
    """Correctly rounded fused a*b + c of f64 codes (Python ints)."""
    pa, pb, pc = _f64_parts(a), _f64_parts(b), _f64_parts(c)
    if pa is None or pb is None or pc is None:
        for x in (b, c, a):  # a NaN operand propagates, quieted: B's first, then the accumulator's, then A's
            if (x >> 52) & 0x7FF == 0x7FF and x & ((1 << 52) - 1):
                return x | F64_QUIET
        fa, fb, fc = (float(np.array([x], np.uint64).view(np.float64)[0]) for x in (a, b, c))
        if pa is not None and pb is not None:  # finite product, infinite c
            r = fc
        else:
            r = fa * fb + fc  # an infinite factor: inf * 0 and inf - inf are NaN, as in IEEE
        if r != r:
            return F64_NAN
        return int(np.array([r], np.float64).view(np.uint64)[0])
    (ma, ea), (mb, eb), (mc, ec) = pa, pb, pc
    P, ep = ma * mb, ea + eb
    if P == 0 and mc == 0:  # signed zeros: IEEE rules
        pneg = (a >> 63) ^ (b >> 63)
        cneg = c >> 63
        if pneg and cneg:
            return 1 << 63
        return (1 << 63) if (mode == "rm" and (pneg or cneg)) else 0
    lo = min(ep, ec)
    S = (P << (ep - lo)) + (mc << (ec - lo))
    if S == 0:
        return (1 << 63) if mode == "rm" else 0
    return _round_f64(S, lo, mode)


def f64_chain(a_codes, b_codes, c_codes, mode: str = "rn") -> np.ndarray:
    """D[m, n] = fma(a[m, K-1], b[K-1, n], ... fma(a[m, 0], b[0, n], c[m, n])) in k order."""
    a = np.asarray(a_codes, dtype=np.uint64)
    b = np.asarray(b_codes, dtype=np.uint64)
    c = np.asarray(c_codes, dtype=np.uint64)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    d = np.broadcast_to(c, batch + c.shape[-2:]).copy()
    M, K = a.shape[-2:]
    N = b.shape[-1]
    al, bl, dl = a.reshape(-1, M, K).tolist(), b.reshape(-1, K, N).tolist(), d.reshape(-1, M, N).tolist()
    for x in range(len(dl)):
        ax, bx, dx = al[x], bl[x], dl[x]
        for i in range(M):
            row = dx[i]
            for j in range(N):
                acc = row[j]
                for k in range(K):
                    acc = fma_f64(ax[i][k], bx[k][j], acc, mode)
                row[j] = acc
    return np.asarray(dl, dtype=np.uint64).reshape(d.shape)


# ---------------------------------------------------------------------------------------------
# Measured status (the numerics campaigns under evidence/)


def measured(spec) -> dict[str, dict]:
    """variant id -> {cases, outputs, mismatches, date, campaign} summed over the numerics evidence."""
    out: dict[str, dict] = {}
    for e in spec.evidence.campaigns:
        if e.proves != "numerics":
            continue
        for vid, r in e.results.items():
            m = out.setdefault(vid, {"cases": 0, "outputs": 0, "mismatches": 0, "date": e.date, "campaigns": []})
            m["cases"] += r.cases
            m["outputs"] += r.outputs
            m["mismatches"] += r.mismatches
            m["date"] = max(m["date"], e.date)
            m["campaigns"].append(e.campaign)
    for m in out.values():
        m["campaign"] = ", ".join(m.pop("campaigns"))
    return out


def status_rows(spec) -> list[tuple]:
    """(variant_id, model, parameters, status, cases, outputs, mismatches, agreement, date, campaign,
    rule) for every variant that computes a product: `bit-exact` (every compared output equal),
    `mismatches`, `not run` (a model resting on our campaigns, no hardware record of this variant
    yet), `modelled (manual + published measurements); not run on hardware` (a model resting on
    the manual and published measurements) or `no model`; `rule` is the position (from 1) of the
    spec/numerics.yaml rule that gives the arithmetic, or None."""
    import json
    from . import execute  # noqa: F401  (its executors' modules register SELECTED)
    meas = measured(spec)
    rows = []
    for v in spec.variants:
        if v.semantics in SELECTED:  # measured or not: its products are not the variant's own
            rows.append(_selected_row(spec, v, meas.get(v.id)))
            continue
        if not computes_product(v):
            continue
        rule = rule_of(v)
        try:
            p = params(v)
            model, pj = p.model, json.dumps({k: x for k, x in p.as_data().items() if k != "model"}, sort_keys=True)
        except KeyError:
            model, pj = None, None
        src = spec.numerics.index(rule) + 1 if rule is not None and model else None
        m = meas.get(v.id)
        if m is None or model == "none":
            status = (NO_ARITHMETIC if model == "none" else _unmeasured(rule) if model and rule is not None
                      else "not run" if model else "no model")
            rows.append((v.id, model, pj, status, None, None, None, None, None, None, src))
            continue
        rows.append((v.id, model, pj, *_measured_cells(m), src))
    return rows


def _unmeasured(rule) -> str:
    """numerics_status of a variant of `rule` that no campaign ran."""
    return PUBLISHED_AS.format(rule.status) if rule.status else UNMEASURED[rule.basis]


def _basis_status(basis: str) -> str:
    """numerics_status of a product of SELECTED's with this basis (or provenance), not run."""
    return UNMEASURED[basis] if basis in UNMEASURED else PUBLISHED_AS.format(basis)


def _measured_cells(m: dict) -> tuple:
    """(status, cases, outputs, mismatches, agreement, date, campaign) of a measurement record."""
    agree = (m["outputs"] - m["mismatches"]) / m["outputs"] if m["outputs"] else 0.0
    return ("bit-exact" if m["mismatches"] == 0 and m["outputs"] else "mismatches", m["cases"], m["outputs"],
            m["mismatches"], f"{agree:.9f}", m["date"], m["campaign"])


def _selected_row(spec, v, m: dict | None) -> tuple:
    """status_rows' row of a variant whose products a descriptor selects: the models and parameters of
    each product (keyed by its types), the status of the weakest basis among their rules (or, when
    a campaign measured the variant, its result), the rule when one rule covers them all."""
    import json
    found = SELECTED[v.semantics](v)
    if not found:
        why = WHY_NONE[v.semantics](v) if v.semantics in WHY_NONE else ""
        none = f"no model: {why}" if why else "no model"
        return (v.id, None, None, *(_measured_cells(m) if m else (none, None, None, None, None, None, None)), None)
    models = sorted({p.model for _, _, p, _ in found})
    pj = json.dumps({label: p.as_data() for label, _, p, _ in found}, sort_keys=True)
    bases = {basis for *_, basis in found}
    status = _basis_status(next(iter(bases))) if len(bases) == 1 and bases != {"measured"} else BORROWED
    rules = {spec.numerics.index(r) + 1 if r is not None else None for _, r, _, _ in found}
    src = rules.pop() if len(rules) == 1 else None
    cells = _measured_cells(m) if m else (status, None, None, None, None, None, None)
    return (v.id, ", ".join(models), pj, *cells, src)
