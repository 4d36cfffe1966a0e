"""fp8/fp6/fp4 products with and without block scaling: the `.kind::*` forms of mma and mma.sp.

The arithmetic works on matrices of element codes and scale codes, never on an instruction's
registers, so that any instruction with these kinds (tcgen05.mma too) can use it:

    D = mma_kind(spec, a, b, c, "e2m1", "e2m1", "f32", "f32", kind_params("mxf4nvf4", True, "f32"),
                 sfa=sfa, sfb=sfb, stype="ue4m3")

with A (..., M, K), B (..., K, N), C (..., M, N) raw element codes (not containers), scale_A
(..., M, SK) and scale_B (..., SK, N) raw scale codes, K a multiple of SK (block = K / SK
consecutive k). `ptxspec.semantics.execute.execute_kind` is the register-level form for mma / mma.sp: the scale
registers and selectors are read through the variant's scale-factor maps (spec/layouts).

What the model assumes, and from where (campaigns/survey/blockscale.md has the sources; the rules each
variant gets are spec/numerics.yaml's, models `fdpa_scaled` and `fdpa_groups`, basis `published`).
None of it was run on an sm_100a or sm_120a GPU here; every rule is MMA-Sim's model (its sm_120
model for mma; tcgen05.mma's kinds take the same rules, as MMA-Sim's sm_100a model does) or the H100
pattern, and every choice that evidence does not decide is a named field of `KindParams`
(`ALTERNATIVES`):

* "products" (.kind::f8f6f4, .kind::mxf8f6f4, and the fp8 forms ptxas accepts with another kind):
  one truncated fused dot-product-add over the whole K (MMA-Sim, RTX Blackwell): products exact,
  every scale applied exactly to its products before alignment (the product's exponent is raised by
  the two scales' exponents, MMA-Sim), aligned with C to the largest exponent, cut toward zero to
  F = 25 fraction bits, summed, rounded once (f32: toward zero; f16: to nearest even).
* "groups" (.kind::mxf4, .kind::mxf4nvf4): the products of `group` = 16 consecutive k (sparse:
  16 consecutive kept products, the kept ones of 32 consecutive k) are summed exactly; each group sum times its two scales' significands
  is one term whose exponent is the sum of the scales' exponents (not renormalised); C and those
  terms are aligned to the largest exponent, cut toward zero to F = 35 fraction bits, summed and
  rounded toward zero to f32 (MMA-Sim, RTX Blackwell, mxf4 / mxf4nvf4 2X / 4X measured there).
* Specials: a NaN scale of the row of A or column of B gives the canonical NaN; NaN and Inf inputs
  (e5m2, e4m3 NaN, C) as on the H100 (ptxspec.semantics.numerics._specials); overflow gives +-Inf.
* Zeros, one rule on every path (`zeros`, ptxspec.semantics.numerics.ZERO_RULES; campaigns/survey/blockscale.md
  section 4 says why): a product with a zero element or a zero scale takes no part in the
  alignment; a group of the fp4 path takes part when one of its products does (at its scales'
  exponents, also when its exact sum cancels to zero); a zero C counts as exponent `zero_exp` =
  -133. That is the H100's measured rule ("operands"), extended to scales and groups. MMA-Sim's
  published code treats zeros three other ways, each a named alternative that reproduces it:
  main (c785138) gives a zero element, scale or C the exponent -126 and adds it like any other
  ("fields", -126), its dev branch gives every zero term -126 ("terms", -126), its code before
  1727461 gave zeros -999 ("fields", -999).
* Sparse forms: the same step over the kept products only (the H100 rule of every other sparse
  form); not measured anywhere for these kinds.
* Element containers: under .kind::f8f6f4 / .kind::mxf8f6f4 the padding bits of a container are
  ignored. ue4m3 scale bytes with the top bit set are refused (`ue4m3_top_bit="error"`; MMA-Sim
  ignores the bit: "ignore").
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ptxspec.core.lazy import np

from ptxspec.semantics import numerics as nm
from ptxspec.semantics import fdpa
from ptxspec.semantics import fields

__all__ = ["KindParams", "KIND_DOMAINS", "ALTERNATIVES", "ALTERNATIVE_PATHS", "alternatives_for", "SM100_STATUS", "SOURCES", "kind_params", "variant_params", "element_codes",
           "scale_fields", "scale_vec", "block_size", "scale_map", "selector_values", "scale_rows", "scale_holders",
           "scale_coverage", "scales_from_registers", "mma_kind", "ScaleError"]

#: The provenance tcgen05.mma's block-scaled and f8f6f4 kinds show in numerics_status (they take the
#: mma rules, restated by kind_params): MMA-Sim's sm_100a model is its sm_120 one, measured on
#: sm_100a for part of each kind (campaigns/survey/blockscale.md section 4), zeros as everywhere here.
SM100_STATUS = "MMA-Sim's sm_100a model; measured there in part; zeros: the H100 rule"
SOURCES = ("PTX ISA 9.7.14.3 block scaling and the mma/mma.sp sections; MMA-Sim (Xie et al., arXiv 2511.10909, "
           "github.com/microsoft/MMA-Sim: RTX Blackwell measured); CUTLASS CuTe SM120 atoms; "
           "campaigns/survey/blockscale.md")


#: The exponent a zero counts as when zeros are no term (zero_exp None): below every real exponent
#: (the smallest, an e5m2 subnormal product times two 2^-127 scales, is about -290), yet small
#: enough that 2^-(NO_TERM - F) stays a finite double when every term is zero.
NO_TERM = -400


class ScaleError(ValueError):
    """An undefined scale operand: a selector outside its legal values, or a scale byte that is no code."""


@dataclass(frozen=True)
class KindParams:
    path: str  # "products" | "groups"
    F: int  # fraction bits kept below the largest exponent of the step
    round: str  # final rounding: rz | rn
    group: int = 16  # "groups": products summed exactly per term
    zero_exp: int | None = -133  # exponent a zero C counts as (zeros "fields": a zero element or scale
    # too; "terms": every zero term); None: no term
    ue4m3_top_bit: str = "error"  # error | ignore
    split: int = 2  # "fp8emu": the k interleave of the two f16 steps (ptxspec.semantics.numerics.fp8_emulated)
    zeros: str = "operands"  # how zeros enter the alignment: operands | fields | terms (module docstring)

    def __post_init__(self):
        """Every field within its domain (KIND_DOMAINS): a parameter outside it computes nonsense."""
        for name, dom in KIND_DOMAINS.items():
            x = getattr(self, name)
            why = None if name == "zero_exp" and x is None else dom.problem(x)
            if why:
                raise ValueError(f"KindParams: {name} = {x!r} {why} ({dom.what})")

    def as_data(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


#: The domain of each field of KindParams: the numerics parameters' own (ptxspec.semantics.numerics.DOMAINS;
#: zero_exp may also be None, no term), and the choices this module makes.
KIND_DOMAINS: dict[str, nm.Domain] = {
    "path": nm.Domain("how the scales enter: on each product, on each group of fp4 products, or sm_100's fp8 "
                      "emulation", values=("products", "groups", "fp8emu")),
    "F": nm.DOMAINS["F"],
    "round": nm.DOMAINS["round"],
    "group": nm.DOMAINS["group"],
    "zero_exp": nm.DOMAINS["zero_exp"],
    "ue4m3_top_bit": nm.Domain("a ue4m3 scale byte with its top bit set: refused, or the bit ignored (MMA-Sim)",
                               values=("error", "ignore")),
    "split": nm.DOMAINS["split"],
    "zeros": nm.Domain("how zeros enter the alignment (the module docstring)", values=fdpa.ZERO_RULES),
}


#: The choices public evidence does not settle, by name: each is one replace() of KindParams away,
#: so that one run on a Blackwell GPU can decide between them.
ALTERNATIVES: dict[str, dict] = {
    "zeros=mmasim-main (MMA-Sim main c785138: a zero element, scale or C counts as exponent -126 in its "
    "term's sum)": {"zeros": "fields", "zero_exp": -126},
    "zeros=mmasim-dev (MMA-Sim's dev branch: every zero term, C included, counts as exponent -126)":
        {"zeros": "terms", "zero_exp": -126},
    "zeros=mmasim-v1 (MMA-Sim before 1727461: a zero counts as exponent -999, below every term)":
        {"zeros": "fields", "zero_exp": -999},
    "ue4m3_top_bit=ignore (MMA-Sim reads ue4m3 as e4m3fn and takes |x|)": {"ue4m3_top_bit": "ignore"},
    "F=24 (the Ampere/Ada width)": {"F": 24},
    "group=32 (fp4 groups of 32 k)": {"group": 32},
    "path=products for fp4 (scales on products, F=25, as mxf8f6f4)": {"path": "products", "F": 25},
    "round=rn (an f32 D rounded to nearest even, not toward zero)": {"round": "rn"},
}
#: The paths each alternative is a question for (the others ignore the field or mean something else).
ALTERNATIVE_PATHS: dict[str, tuple[str, ...]] = {
    "F=24 (the Ampere/Ada width)": ("products",),
    "group=32 (fp4 groups of 32 k)": ("groups",),
    "path=products for fp4 (scales on products, F=25, as mxf8f6f4)": ("groups",),
}


def alternatives_for(v, p: "KindParams") -> dict[str, "KindParams"]:
    """The entries of ALTERNATIVES that are an open question for variant `v` under parameters `p`
    (its model): those that change something the variant's path uses, and that it can compute
    (a group within one scale block; the ue4m3 top bit only where the scales are ue4m3)."""
    out = {}
    for name, change in ALTERNATIVES.items():
        q = replace(p, **change)
        if q == p or p.path not in ALTERNATIVE_PATHS.get(name, ("products", "groups")):
            continue
        if "ue4m3_top_bit" in change and v.qualifiers.get("stype") != "ue4m3":
            continue
        if q.path == "groups" and block_size(v) % (q.group * (2 if v.sparse else 1)):
            continue
        out[name] = q
    return out


def kind_params(kind: str, scaled: bool, dtype: str) -> KindParams:
    """The best-supported arithmetic of a kind (without the `kind::` prefix) on sm_120a, for callers
    with no variant (tcgen05's kinds): spec/numerics.yaml's rules for the .kind mma forms, restated
    (tests/test_blockscale_spec.py checks that the two agree on every variant)."""
    if scaled and kind in ("mxf4", "mxf4nvf4"):
        return KindParams("groups", 35, "rz")
    if kind not in ("f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4"):
        raise KeyError(f"no arithmetic for .kind::{kind}")
    return KindParams("products", 25, "rn" if dtype == "f16" else "rz")


#: Targets on which ptxas 13.5 emulates the fp8 `.kind` forms with f16 HMMA steps instead of one
#: QMMA (campaigns/survey/blockscale-sass-13.5.37.json): the sm_90 fp8 emulation, H100-proven there.
EMULATED_ON = ("sm_100", "sm_103", "sm_107", "sm_110")


def from_numerics(p) -> KindParams:
    """The KindParams of a spec/numerics.yaml rule's parameters (models fdpa_scaled, fdpa_groups)."""
    path = {"fdpa_scaled": "products", "fdpa_groups": "groups", "fp8emu": "fp8emu"}[p.model]
    return KindParams(path, p.F, p.round, p.group or 16, p.zero_exp, split=p.split or 2)


def variant_params(v, target: str | None = None) -> KindParams:
    """The arithmetic of a `.kind` variant on `target` (None: the sm_120a family, where every
    `.kind` form is one native instruction)."""
    kind = v.qualifiers.get("kind", "")
    if not kind:
        raise KeyError(f"{v.id} has no .kind")
    if target and target.startswith(EMULATED_ON):
        if v.qualifiers.get("block_scale") or v.atype not in ("e4m3", "e5m2") or v.btype not in ("e4m3", "e5m2"):
            raise KeyError(f"{v.id} is not valid on {target}")
        return KindParams("fp8emu", 25, "rn" if v.dtype == "f16" else "rz", split=4 if v.sparse else 2)
    return from_numerics(nm.params(v))


# ---------------------------------------------------------------------------------------------
# Formats


def element_codes(spec, tname: str, raw, container: bool) -> np.ndarray:
    """Element codes from raw register slots: a container's element bits (its padding ignored),
    or the codes themselves."""
    t = spec.types[tname]
    c = np.asarray(raw).astype(np.uint64)
    if container and t.container_bits:
        c = (c >> np.uint64(t.container_shift)) & np.uint64((1 << t.bits) - 1)
    return c


def scale_fields(spec, stype: str, codes, top_bit: str = "error"):
    """(significand numerator, significand fraction bits, exponent, nan) of scale codes:
    value = num / 2^frac * 2^exp. ue8m0: 2^(code - 127), 0xFF NaN; ue4m3: unsigned e4m3 (0x7F NaN)."""
    c = np.asarray(codes).astype(np.int64)
    if ((c < 0) | (c > 255)).any():
        raise ScaleError(f"scale codes are bytes; got {int(c[(c < 0) | (c > 255)].flat[0])}")
    t = spec.types[stype]
    f = t.format
    e, m, bias = f["exponent"], f["mantissa"], f["bias"]
    if t.bits < 8:  # ue4m3: 7 bits in a byte
        high = c >> t.bits
        if top_bit == "error" and high.any():
            bad = int(c[high != 0].flat[0])
            raise ScaleError(f"scale byte {bad:#04x} is not a .{stype} code (bit 7 must be 0)")
        c = c & ((1 << t.bits) - 1)
    ex = (c >> m) & ((1 << e) - 1)
    man = c & ((1 << m) - 1)
    nan = (ex == (1 << e) - 1) & (man == (1 << m) - 1)
    if m == 0:  # an exponent-only format has no subnormals: code 0 is 2^-bias
        return np.ones_like(c), 0, c - bias, nan
    num = np.where(ex == 0, man, man | (1 << m))
    exp = np.where(ex == 0, 1 - bias, ex - bias)
    return num, m, exp, nan


# ---------------------------------------------------------------------------------------------
# Scale-factor maps of mma / mma.sp (spec/layouts/mma.yaml `scale_maps`; campaigns/survey/blockscale.md)


def scale_vec(v) -> int:
    """Scale factors per row of A (and per column of B): 1, 2 or 4 (the scale operand's `vectors`)."""
    return v.operand("scale_a").vectors


def block_size(v) -> int:
    """Consecutive k (of the dense K) that share one scale factor."""
    return v.k // scale_vec(v)


def scale_map(v, operand: str, byte_id: int, thread_id: int) -> np.ndarray:
    """(threads, 4, 2) int array: for each lane and byte of its scale register, (row of A or column
    of B, K-block) that byte scales with selector {byte_id, thread_id}; (-1, -1) where the byte is
    not read. The map is the spec's (spec/layouts `scale_maps`, `Variant.scale_map`); an undefined
    selector is a ScaleError."""
    parts = dict(selector_of(v, operand).parts)
    if byte_id not in parts["byte_id"] or thread_id not in parts["thread_id"]:
        raise ScaleError(f"{v.id}: selector {{{byte_id}, {thread_id}}} of {operand} is undefined "
                         f"(byte-id in {list(parts['byte_id'])}, thread-id in {list(parts['thread_id'])})")
    return v.scale_map(operand, byte_id, thread_id)


def selector_of(v, operand: str):
    """The scale_selector operand that picks the factors of scale operand `operand`."""
    matrix = v.operand(operand).matrix
    return next(o for o in v.operands if o.kind == "scale_selector" and o.matrix == matrix)


def selector_values(v, operand: str) -> list[tuple[int, int]]:
    """Every legal (byte_id, thread_id) of the selector of `operand` (scale_a / scale_b)."""
    parts = dict(selector_of(v, operand).parts)
    return [(b, t) for b in parts["byte_id"] for t in parts["thread_id"]]


def scale_rows(v) -> list[tuple]:
    """The scale-factor maps of a block-scaled variant as rows: (operand, byte_id, thread_id,
    thread, byte, row, col, k_block, k_first, k_last), one per scale byte an instruction reads;
    `row` is A's row (scale_a) or None, `col` B's column (scale_b) or None, and the byte scales
    the k of [k_first, k_last] (of the dense K)."""
    rows = []
    size = block_size(v)
    for operand in ("scale_a", "scale_b"):
        for b, t in selector_values(v, operand):
            m = scale_map(v, operand, b, t)
            for lane, byte in zip(*np.nonzero(m[..., 0] >= 0)):
                index, blk = (int(x) for x in m[lane, byte])
                rows.append((operand, b, t, int(lane), int(byte), index if operand == "scale_a" else None,
                             index if operand == "scale_b" else None, blk, blk * size, blk * size + size - 1))
    return rows


def scale_holders(v, operand: str, index: int, k: int) -> list[tuple[int, int, int, int]]:
    """Who holds the scale of A[index][k] (scale_a) or B[k][index] (scale_b): (byte_id, thread_id,
    thread, byte) for every legal selector."""
    extent = v.m if operand == "scale_a" else v.n
    if not 0 <= index < extent or not 0 <= k < v.k:
        raise ValueError(f"{v.id}: {'row' if operand == 'scale_a' else 'column'} {index} and k {k} must lie "
                         f"in 0..{extent - 1} and 0..{v.k - 1}")
    blk = k // block_size(v)
    out = []
    for b, t in selector_values(v, operand):
        m = scale_map(v, operand, b, t)
        for lane, byte in zip(*np.nonzero((m[..., 0] == index) & (m[..., 1] == blk))):
            out.append((b, t, int(lane), int(byte)))
    return out


def scale_coverage(v, operand: str, thread: int, byte: int) -> list[tuple[int, int, int, int, int, int]]:
    """What byte `byte` of thread `thread`'s scale register covers: (byte_id, thread_id, row or
    column, k_block, k_first, k_last) for every legal selector under which it is read."""
    if not 0 <= thread < v.threads or not 0 <= byte < 4:
        raise ValueError(f"{v.id}: thread {thread} and byte {byte} must lie in 0..{v.threads - 1} and 0..3")
    size = block_size(v)
    out = []
    for b, t in selector_values(v, operand):
        index, blk = (int(x) for x in scale_map(v, operand, b, t)[thread, byte])
        if index >= 0:
            out.append((b, t, index, blk, blk * size, blk * size + size - 1))
    return out


def scales_from_registers(v, operand: str, regs, sel) -> np.ndarray:
    """Scale codes (..., M, SK) of A or (..., SK, N) of B from the scale registers (..., threads[, 1])."""
    r = np.asarray(regs)
    if r.shape[-1:] == (1,) and r.ndim >= 2 and r.shape[-2] == v.threads:
        r = r[..., 0]
    if r.shape[-1:] != (v.threads,):
        raise ValueError(f"{v.id}: {operand} must be shaped ({v.threads}, 1) or (batch, {v.threads}, 1); got {r.shape}")
    byte_id, thread_id = (int(x) for x in sel)
    m = scale_map(v, operand, byte_id, thread_id)
    t, byte = np.nonzero(m[..., 0] >= 0)
    idx, blk = m[t, byte, 0], m[t, byte, 1]
    codes = (r.astype(np.uint64)[..., t] >> (8 * byte).astype(np.uint64)) & np.uint64(0xFF)
    sv = v.operand(operand).vectors
    if v.operand(operand).matrix == "a":
        out = np.zeros(r.shape[:-1] + (v.m, sv), np.uint64)
        out[..., idx, blk] = codes
    else:
        out = np.zeros(r.shape[:-1] + (sv, v.n), np.uint64)
        out[..., blk, idx] = codes
    return out


# ---------------------------------------------------------------------------------------------
# Arithmetic


def _repeat_blocks(x, k: int, axis: int):
    """Per-block values (SK along `axis`) repeated to every k of the block."""
    return np.repeat(x, k // x.shape[axis], axis=axis)


def _scaled_fields(f: fields.Fields, num, frac: int, exp) -> fields.Fields:
    """Fields of element x scale, exact: significand times the scale's, exponent plus its exponent."""
    return fields.Fields(f.neg, f.mag * num, f.exp + exp, f.special, f.mbits + frac)


def _nan_rows_cols(nan_a, nan_b):
    """(..., M, N) mask: a NaN among the scales of row m of A or of column n of B."""
    return nan_a.any(axis=-1)[..., :, None] | nan_b.any(axis=-2)[..., None, :]


def _zero_exp(p: KindParams) -> int:
    return p.zero_exp if p.zero_exp is not None else NO_TERM


def _zero_fields(f: fields.Fields, exp: int) -> fields.Fields:
    """Fields whose zero elements carry the exponent `exp` (zeros "fields": MMA-Sim main's -126)."""
    return fields.Fields(f.neg, f.mag, np.where((f.mag == 0) & (f.special == 0), exp, f.exp), f.special, f.mbits)


def _products(spec, fa, fb, fc, dtype, p: KindParams, kept):
    return fdpa.fdpa_step(spec, fa, fb, fc, dtype, p.F, p.round, 0, _zero_exp(p), kept, zeros=p.zeros)


def _groups(spec, a_vals, b_vals, fc, sa, sb, dtype, p: KindParams, kept):
    """The fp4 path: exact group sums, one term per group with the scales' exponents. A group is
    `p.group` consecutive products that take part: consecutive k, or for a sparse A (half of every
    row kept, chunk by chunk) the kept products of 2 * group consecutive k."""
    (na, fra, ea), (nb, frb, eb) = sa, sb
    K = a_vals.shape[-1]
    SK = ea.shape[-1]
    span = p.group
    if kept is not None:
        if not (np.broadcast_to(kept, a_vals.shape).sum(axis=-1) * 2 == K).all():
            raise ValueError("the groups path needs half of every row of a sparse A kept")
        span = 2 * p.group
    if K % span or (K // SK) % span:
        raise ValueError(f"groups of {span} k do not tile K = {K} in blocks of {K // SK} (a group must lie in one block)")
    G = K // span
    lead = a_vals.shape[:-2]
    M, N = a_vals.shape[-2], b_vals.shape[-1]
    ag = np.moveaxis(a_vals.reshape(lead + (M, G, span)), -2, -3)  # (..., G, M, span)
    bg = b_vals.reshape(b_vals.shape[:-2] + (G, span, N))  # (..., G, span, N)
    sums = np.moveaxis(ag @ bg, -3, -1)  # (..., M, N, G), exact: multiples of 1/4 below 2^11
    tb = (np.arange(G) * span) // (K // SK)  # block of each group
    sig = (na[..., :, None, tb] * np.swapaxes(nb, -1, -2)[..., None, :, tb]).astype(np.float64) / 2.0 ** (fra + frb)
    zero = _zero_exp(p)
    et = _group_exponents(p, ea, eb, na, nb, tb, sums * sig, ag, bg)
    cv = fields.exact_values(fc)
    ec = np.where(cv == 0, zero, fc.exp)
    emax = np.maximum(np.maximum(et.max(axis=-1), ec), fdpa.EMAX_FLOOR)
    base = emax - p.F
    terms = np.trunc(np.ldexp(sums * sig, (et - base[..., None]).astype(np.int32)))
    cterm = np.trunc(np.ldexp(cv, (-base).astype(np.int32)))
    S = terms.sum(axis=-1) + cterm  # exact: a few integers below 2^48
    out = fields.round_to_format(spec, dtype, S.astype(np.int64), base, p.round)
    out = fields.plus_zero(spec, dtype, out)
    c_inf, c_nan = fc.special == 1, fc.special == 2
    out = np.where(c_inf, fields.inf_code(spec, dtype, fc.neg), out)
    return np.where(c_nan, np.uint64(fields.canonical_nan(spec, dtype)), out)


def _group_exponents(p: KindParams, ea, eb, na, nb, tb, value, ag, bg):
    """(..., M, N, G) exponent of each group's term in the alignment: its scales' exponents, with
    zeros as `p.zeros` says (a group's `value` is its exact sum times its scales' significands)."""
    zero = _zero_exp(p)
    if p.zeros == "fields":  # a zero scale counts as zero_exp; the group's elements never enter it
        ea, eb = np.where(na == 0, zero, ea), np.where(nb == 0, zero, eb)
    et = ea[..., :, None, tb] + np.swapaxes(eb, -1, -2)[..., None, :, tb]
    if p.zeros == "terms":  # a group whose value is zero counts as zero_exp
        return np.where(value == 0, zero, et)
    if p.zeros == "operands":  # a group none of whose products has two nonzero factors takes no part
        live = np.moveaxis((ag != 0).astype(np.float64) @ (bg != 0).astype(np.float64), -3, -1) > 0
        live &= (na[..., :, None, tb] != 0) & (np.swapaxes(nb, -1, -2)[..., None, :, tb] != 0)
        return np.where(live, et, -(1 << 14))
    if p.zeros != "fields":
        raise ValueError(f"zeros must be one of {', '.join(fdpa.ZERO_RULES)}; got {p.zeros!r}")
    return et


def mma_kind(spec, a, b, c, atype: str, btype: str, ctype: str, dtype: str, p: KindParams,
             sfa=None, sfb=None, stype: str | None = None, kept=None) -> np.ndarray:
    """D codes (..., M, N) of A (..., M, K), B (..., K, N), C (..., M, N) element codes, with scale
    codes sfa (..., M, SK) and sfb (..., SK, N) of type `stype` (None: unscaled). `kept` (..., M, K)
    marks the A elements a sparse instruction multiplies (the others take no part)."""
    a, b, c = (np.asarray(x) for x in (a, b, c))
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    fa = fields.decode_fields(spec, atype, a)
    fb = fields.decode_fields(spec, btype, b)
    fc = fields.decode_fields(spec, ctype, np.broadcast_to(c, batch + c.shape[-2:]))
    K = a.shape[-1]
    nan = None
    if sfa is not None:
        if stype is None:
            raise ValueError("scale codes need their type (stype)")
        sfa, sfb = np.asarray(sfa), np.asarray(sfb)
        if K % sfa.shape[-1] or sfa.shape[-1] != sfb.shape[-2]:
            raise ValueError(f"K = {K} with {sfa.shape[-1]} scales per row of A and {sfb.shape[-2]} per column of B")
        na, fra, ea, nan_a = scale_fields(spec, stype, sfa, p.ue4m3_top_bit)
        nb, frb, eb, nan_b = scale_fields(spec, stype, sfb, p.ue4m3_top_bit)
        nan = _nan_rows_cols(nan_a, nan_b)
    if p.path == "groups":
        if sfa is None:
            raise ValueError("the groups path needs scales")
        out = _groups(spec, fields.exact_values(fa), fields.exact_values(fb), fc, (na, fra, ea), (nb, frb, eb), dtype, p, kept)
    elif p.path == "fp8emu":
        q = nm.NumericsParams("fp8emu", 16, p.F, p.round, zero_exp=p.zero_exp if p.zero_exp is not None else NO_TERM,
                              split=p.split)
        out = fdpa.fp8_emulated(spec, a, b, np.broadcast_to(c, batch + c.shape[-2:]), atype, btype, ctype, dtype, q,
                              kept, p.split)
    elif p.path == "products":
        if p.zeros == "fields":  # a zero element or scale counts as zero_exp in its product's exponent sum
            fa, fb = _zero_fields(fa, _zero_exp(p)), _zero_fields(fb, _zero_exp(p))
            if sfa is not None:
                ea, eb = np.where(na == 0, _zero_exp(p), ea), np.where(nb == 0, _zero_exp(p), eb)
        if sfa is not None:
            fa = _scaled_fields(fa, _repeat_blocks(na, K, -1), fra, _repeat_blocks(ea, K, -1))
            fb = _scaled_fields(fb, _repeat_blocks(nb, K, -2), frb, _repeat_blocks(eb, K, -2))
        out = _products(spec, fa, fb, fc, dtype, p, kept)
    else:
        raise ValueError(f"unknown path {p.path!r}")
    if nan is not None:
        out = np.where(nan, np.uint64(fields.canonical_nan(spec, dtype)), out)
    return out


# ---------------------------------------------------------------------------------------------
# Registers of mma / mma.sp


def _container(v, mat: str) -> bool:
    _, ebits, _ = v.fragment_layouts[mat]
    t = v.spec.types[getattr(v, f"{mat}type")]
    return ebits > t.bits


def with_alternative(p: KindParams, name: str) -> KindParams:
    return replace(p, **ALTERNATIVES[name])
