"""Exact arithmetic of the tensor-core instructions: what D holds, bit for bit, given A, B and C.

Inputs are raw element codes (unsigned integers) of the variant's types; outputs are raw codes of
the destination type. Everything is vectorised with numpy over a leading batch dimension.

Models (parameters per variant: `params(variant)`, from the rules of spec/numerics.yaml; every
rule below was confirmed bit for bit on an H100, campaigns/notes/2026-11-22-numerics.md):

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

This module says which model and parameters a variant takes; `fields` decodes and rounds,
`fdpa` and `exact` compute, `numerics_status` says what of it was measured.
"""
from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, fields, replace

from ptxspec.model import predicates

__all__ = ["MODELS", "NumericsParams", "params", "rule_of", "first_rule", "rule_matches", "computes_product", "Domain", "DOMAINS",
           "MODEL_PARAMS", "MODEL_TYPES", "VIA", "param_problems", "type_problems", "variant_problems"]


@dataclass(frozen=True)
class Domain:
    """The values a parameter may take: an integer from `lo` to `hi`, or one of `values`; `what`
    says what it is and why the bounds are what they are."""
    what: str
    lo: int | None = None
    hi: int | None = None
    values: tuple = ()

    def problem(self, x) -> str | None:
        """Why x is outside the domain, or None."""
        if self.values:
            return None if x in self.values and type(x) is type(self.values[0]) else \
                f"must be one of {', '.join(map(repr, self.values))}"
        if type(x) is not int or not self.lo <= x <= self.hi:  # type: ignore[operator] - lo/hi with no values
            return f"must be an integer from {self.lo} to {self.hi}"
        return None

    def as_schema(self) -> dict:
        """The domain as JSON Schema (schema/numerics.schema.json states it where a schema can)."""
        if self.values:
            return {"enum": list(self.values)}
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}


#: The domain of each parameter of NumericsParams, whatever the model (MODEL_PARAMS narrows some).
#: What a parameter may be for one variant (a group that divides its K, ...) is `variant_problems`'.
DOMAINS: dict[str, Domain] = {
    "group": Domain("k terms per fused step (fmachain: per chain; fdpa_groups: products per group); left out, "
                    "one step over the instruction's whole K", 1, 1024),
    "F": Domain("fraction bits kept below the largest exponent of a step: the truncated terms are summed in "
                "float64 (ptxspec.semantics.fdpa), exact while F + 2 bits and the carries of the step's terms "
                "fit its 53-bit significand", 1, 48),
    "round": Domain("the rounding of a step's result: toward zero or to nearest even", values=("rz", "rn")),
    "keep": Domain("fraction bits the result keeps (0: all of its format's)", 0, 52),
    "zero_exp": Domain("the exponent a zero term counts as in the alignment: no higher than the smallest "
                       "normal exponent of f32 (-126), no lower than the smallest of float64", -1074, -126),
    "split": Domain("fp8emu: the k interleave of its two f16 steps", 1, 64),
    "via": Domain("the type each step rounds to before D's (the conversions VIA lists)", values=("", "f32")),
    "finite": Domain("1: the last step saturates an infinite result to the largest finite value", values=(0, 1)),
}

#: The parameters each model reads (True: a rule must state it); a rule may state no other.
MODEL_PARAMS: dict[str, dict[str, bool]] = {
    "integer": {}, "b1": {}, "none": {}, "f64fma": {},
    "fdpa": {"F": True, "round": False, "group": False, "keep": False, "zero_exp": False, "via": False,
             "finite": False},
    "fp8emu": {"F": True, "round": False, "group": False, "keep": False, "zero_exp": False, "split": True},
    "fmachain": {"round": True, "group": False},
    "fdpa_scaled": {"F": True, "round": False, "zero_exp": False},
    "fdpa_groups": {"F": True, "round": False, "group": True, "zero_exp": False},
}
#: Narrower domains of a parameter under one model.
MODEL_DOMAINS: dict[tuple[str, str], Domain] = {
    ("fmachain", "round"): Domain("fmachain rounds every operation to nearest (IEEE f32 arithmetic)", values=("rn",)),
}

#: The conversions a step of `via` type implements: D types it converts to (to nearest, sign kept).
VIA: dict[str, tuple[str, ...]] = {"f32": ("f16",)}


@dataclass(frozen=True)
class TypeDomain:
    """Element types by format (spec/types.yaml): a class, and bounds on width and mantissa."""
    what: str
    cls: str
    bits: tuple[int, ...] = ()  # the widths allowed (empty: any up to max_bits)
    max_bits: int = 64
    formats: tuple[tuple[int, int], ...] = ()  # (exponent, mantissa) allowed (empty: any)
    max_mantissa: int = 52
    signed: bool | None = None

    def admits(self, t) -> bool:
        fmt = t.format or {}
        return (t.cls == self.cls and t.bits <= self.max_bits and (not self.bits or t.bits in self.bits)
                and (self.signed is None or bool(t.signed) == self.signed)
                and (not self.formats or (fmt.get("exponent"), fmt.get("mantissa")) in self.formats)
                and fmt.get("mantissa", 0) <= self.max_mantissa)


_S32 = TypeDomain("32-bit signed integers", "int", bits=(32,), signed=True)
_F16_F32 = TypeDomain("binary16 or binary32 floats", "float", formats=((5, 10), (8, 23)), bits=(16, 32))
#: The element types each model's arithmetic can take: (A and B, C and D).
MODEL_TYPES: dict[str, tuple[TypeDomain, TypeDomain]] = {
    "integer": (TypeDomain("integers of at most 8 bits", "int", max_bits=8), _S32),
    "b1": (TypeDomain("single bits", "bit", bits=(1,)), _S32),
    "fdpa": (TypeDomain("floats of at most 10 mantissa bits (their products are exact in float64)", "float",
                        max_bits=32, max_mantissa=10), _F16_F32),
    "fp8emu": (TypeDomain("8-bit floats (the f16 steps hold them exactly)", "float", bits=(8,)), _F16_F32),
    "fmachain": (TypeDomain("binary16 floats", "float", formats=((5, 10),), bits=(16,)), _F16_F32),
    "f64fma": (TypeDomain("binary64 floats", "float", bits=(64,)), TypeDomain("binary64 floats", "float", bits=(64,))),
    "fdpa_scaled": (TypeDomain("floats of at most 8 bits", "float", max_bits=8), _F16_F32),
    "fdpa_groups": (TypeDomain("floats of at most 8 bits", "float", max_bits=8), _F16_F32),
}


def param_problems(model: str, params: dict) -> list[tuple[str | None, str]]:
    """What of a rule's parameters its model cannot take: [(parameter or None, why)]."""
    if model not in MODEL_PARAMS:
        return [(None, f"unknown arithmetic model {model!r}")]
    reads = MODEL_PARAMS[model]
    out: list[tuple[str | None, str]] = []
    for key, x in params.items():
        if key not in DOMAINS:
            continue  # the resolver names unknown keys
        if key not in reads:
            out.append((key, f"model {model} takes no {key!r} (it reads {', '.join(reads) or 'no parameter'})"))
            continue
        dom = MODEL_DOMAINS.get((model, key), DOMAINS[key])
        why = dom.problem(x)
        if why:
            out.append((key, f"{key} = {x!r} {why} ({dom.what})"))
    out += [(None, f"model {model} needs {key!r} ({DOMAINS[key].what})")
            for key, needed in reads.items() if needed and key not in params]
    return out


def type_problems(model: str, role: str, t) -> str | None:
    """Why element type `t` cannot be operand `role` (atype, btype, ctype, dtype) of `model`, or None."""
    ins, acc = MODEL_TYPES.get(model, (None, None))
    dom = ins if role in ("atype", "btype") else acc
    if dom is None or dom.admits(t):
        return None
    return f"{model} takes {dom.what} as {'A and B' if dom is ins else 'C and D'}, not {role} {t.name}"


def variant_problems(p: "NumericsParams", v) -> list[str]:
    """What of the arithmetic `p` cannot compute for variant (or product) `v`: its element types,
    and the parameters that depend on its K and types."""
    out = []
    types = v.spec.types if hasattr(v, "spec") else {}
    for role in ("atype", "btype", "ctype", "dtype"):
        t = types.get(getattr(v, role, "") or "")
        why = type_problems(p.model, role, t) if t is not None else None
        if why:
            out.append(why)
    K = getattr(v, "k", None) or 0
    if K:
        span = p.group * (2 if p.model == "fdpa_groups" and v.sparse else 1)
        if p.group and K % span:
            out.append(f"group = {p.group} does not divide K = {K}")
        if p.model == "fp8emu" and p.split and K % (2 * p.split):
            out.append(f"split = {p.split}: K = {K} is no whole number of 2 x {p.split} k (two f16 steps)")
        if p.F and p.F + 2 + (K + 1).bit_length() > 53:
            out.append(f"F = {p.F}: {K} terms of F + 2 bits and their carries do not fit float64's 53 bits")
    step = types.get(p.via or getattr(v, "dtype", ""))
    if p.keep and step is not None and p.keep > (step.format or {}).get("mantissa", 0):
        out.append(f"keep = {p.keep}: {step.name} has {(step.format or {}).get('mantissa', 0)} fraction bits")
    if p.via and getattr(v, "dtype", "") not in VIA.get(p.via, ()):
        out.append(f"via = {p.via!r}: a {p.via} step converts to {', '.join(VIA.get(p.via, ())) or 'nothing'}, "
                   f"not D {getattr(v, 'dtype', '')}")
    return out


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

    def __post_init__(self):
        """Every parameter the model reads within its domain, every other at its default."""
        reads = MODEL_PARAMS.get(self.model, {})
        stated = {k: getattr(self, k) for k in DOMAINS if getattr(self, k) != _DEFAULTS[k] or reads.get(k)}
        bad = [why for _, why in param_problems(self.model, stated)]
        if bad:
            raise ValueError(f"NumericsParams: {'; '.join(bad)}")

    def as_data(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


_DEFAULTS = {f.name: f.default for f in fields(NumericsParams)}

#: The models this module implements (spec/numerics.yaml names one per rule).
#: `none`: ptxas accepts the form but emits no product for it on any target (the executor refuses it).
MODELS = ("integer", "b1", "fdpa", "fp8emu", "fmachain", "f64fma", "fdpa_scaled", "fdpa_groups", "none")


#: numerics_status of a variant whose rule's model is `none`
NO_ARITHMETIC = "no arithmetic: ptxas emits no product for it on any target"


#: The variant fields a rule's `when` may test besides the family's axes.
RULE_FIELDS = ("family", "instruction", "m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op", "sparse")


def rule_matches(when: dict, variant) -> bool:
    """The variant passes every test of `when` (ptxspec.model.predicates); an axis it lacks is ''."""
    qualifiers = variant.qualifiers
    for key, test in predicates.compiled(when):
        value = getattr(variant, key) if key in RULE_FIELDS else qualifiers.get(key, "")
        if value is None or not test.passes(value):
            return False
    return True


def computes_product(variant) -> bool:
    """The variant computes D = A*B + C (its instruction's semantics is mma)."""
    return variant.m is not None and variant.semantics == "mma"


def rules_digest(spec) -> str:
    """A digest of the spec's numerics rules (generated tables record it)."""
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
    return first_rule(variant.spec, variant)


#: id(rules) -> (the spec's list of rules, {what a rule can test of a subject: the first rule it
#: passes}); the identity check says an entry is that list's (a process that loads many models
#: starts the table again)
_FIRST_RULES: dict[int, tuple[object, dict]] = {}


def first_rule(spec, subject):
    """The first of the spec's numerics rules whose `when` the subject passes (a variant, or a
    product a descriptor selects), or None. A rule tests RULE_FIELDS and qualifiers only, so the
    answer is kept per list of rules under their values: a build asks for 4,000 variants' rules, each of
    which would try some forty rules."""
    rules = spec.numerics
    hit = _FIRST_RULES.get(id(rules))
    if hit is None or hit[0] is not rules:
        if len(_FIRST_RULES) >= 64:
            _FIRST_RULES.clear()
        hit = _FIRST_RULES[id(rules)] = (rules, {})
    key = (tuple(getattr(subject, f, None) for f in RULE_FIELDS), tuple(sorted(subject.qualifiers.items())))
    found = hit[1]
    if key not in found:
        found[key] = next((r for r in rules if rule_matches(r.when, subject)), None)
    return found[key]


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
