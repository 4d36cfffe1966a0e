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
from dataclasses import dataclass, replace

from ptxspec.model import predicates

__all__ = ["MODELS", "NumericsParams", "params", "rule_of", "rule_matches", "computes_product"]


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


#: numerics_status of a variant whose rule's model is `none`
NO_ARITHMETIC = "no arithmetic: ptxas emits no product for it on any target"


#: The variant fields a rule's `when` may test besides the family's axes.
RULE_FIELDS = ("family", "instruction", "m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op", "sparse")


def rule_matches(when: dict, variant) -> bool:
    """The variant passes every test of `when` (ptxspec.model.predicates); an axis it lacks is ''."""
    fields = {key: getattr(variant, key) if key in RULE_FIELDS else variant.qualifiers.get(key, "") for key in when}
    return predicates.matches(when, fields)


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
