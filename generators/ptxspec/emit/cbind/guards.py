"""Requirements -> preprocessor guards: one macro per distinct requirement, true in the device
pass exactly when the target and PTX version allow the variant."""
from __future__ import annotations

import weakref
from collections import defaultdict

from ptxspec.model.operand_kind import BindingError
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant


def _arch_condition(spec: Spec, names: set[str]) -> str:
    """A preprocessor condition, true exactly when compiling for one of `names` (device pass)."""
    by_arch: dict[int, set[str]] = defaultdict(set)
    for n in names:
        by_arch[spec.targets[n].arch].add(spec.targets[n].suffix)
    all_suffixes: dict[int, set[str]] = defaultdict(set)
    for t in spec.targets.values():
        all_suffixes[t.arch].add(t.suffix)
    archs = sorted(all_suffixes)
    full = [a for a in archs if by_arch.get(a) == all_suffixes[a]]
    # "sm_XX and every later target": the manual's "sm_XX and higher"; future targets are included
    lowest = next((a for a in archs if all(x in full for x in archs if x >= a)), None)
    terms = []
    if lowest is not None and lowest in by_arch:
        terms.append(f"__CUDA_ARCH__ >= {lowest * 10}")
    for a in sorted(by_arch):
        if lowest is not None and lowest in by_arch and a >= lowest:
            continue
        suffixes = by_arch[a]
        if suffixes == all_suffixes[a]:
            terms.append(f"__CUDA_ARCH__ == {a * 10}")
        elif suffixes == {"a", "f"} or (suffixes == {"f"} and "a" not in all_suffixes[a]):
            # family-specific features: compute_XXf, and compute_XXa (which has every family feature)
            terms.append(f"(__CUDA_ARCH__ == {a * 10} && (defined(__CUDA_ARCH_FAMILY_SPECIFIC__) "
                         f"|| defined(__CUDA_ARCH_FEAT_SM{a}_ALL)))")
        elif suffixes == {"a"}:
            terms.append(f"(__CUDA_ARCH__ == {a * 10} && defined(__CUDA_ARCH_FEAT_SM{a}_ALL))")
        elif suffixes == {"f"}:
            terms.append(f"(__CUDA_ARCH__ == {a * 10} && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) "
                         f"&& !defined(__CUDA_ARCH_FEAT_SM{a}_ALL))")
        elif suffixes == {""}:
            terms.append(f"(__CUDA_ARCH__ == {a * 10} && !defined(__CUDA_ARCH_FAMILY_SPECIFIC__) "
                         f"&& !defined(__CUDA_ARCH_FEAT_SM{a}_ALL))")
        else:
            raise BindingError(f"no preprocessor condition for targets {sorted(names)} at sm_{a}")
    return " || ".join(terms) if terms else "0"


def _set_label(spec: Spec, names: set[str]) -> str:
    archs = sorted({spec.targets[n].arch for n in names})
    everything_from = {n for n, t in spec.targets.items() if t.arch >= archs[0]}
    if set(names) == everything_from:
        return f"SM{archs[0]}_UP"
    return "_".join(n.upper().replace("SM_", "SM") for n in spec.sort_targets(names))


def _until(c):
    return c.until  # the first PTX version that no longer accepts it, or None


_CACHE: "weakref.WeakKeyDictionary[Spec, dict]" = weakref.WeakKeyDictionary()


def _cached(spec: Spec, v: Variant, what: str, make):
    """make(spec, v), computed once per spec and distinct requirement."""
    memo = _CACHE.setdefault(spec, {})
    key = (what, tuple((c.ptx, tuple(sorted(c.targets)), c.until) for c in v.requirement.clauses))
    if key not in memo:
        memo[key] = make(spec, v)
    return memo[key]


def requirement_macro(spec: Spec, v: Variant) -> tuple[str, str]:
    """(macro name, its definition) of the guard for v's requirement."""
    return _cached(spec, v, "macro", _requirement_macro)


def _requirement_macro(spec: Spec, v: Variant) -> tuple[str, str]:
    clauses = sorted(v.requirement.clauses, key=lambda c: (c.ptx, sorted(c.targets), str(_until(c))))

    def label(c):
        end = f"_UNTIL{_until(c).major}{_until(c).minor}" if _until(c) else ""
        return f"PTX{c.ptx.major}{c.ptx.minor}{end}_{_set_label(spec, c.targets)}"

    def cond(c):
        end = f" && PTXSPEC_PTX_VERSION < {_until(c).major * 10 + _until(c).minor}" if _until(c) else ""
        return (f"(PTXSPEC_PTX_VERSION >= {c.ptx.major * 10 + c.ptx.minor}{end} && "
                f"({_arch_condition(spec, set(c.targets))}))")

    return "PTXSPEC_REQ_" + "_OR_".join(label(c) for c in clauses), " || ".join(cond(c) for c in clauses)


def requirement_text(spec: Spec, v: Variant) -> str:
    return _cached(spec, v, "text", _requirement_text)


def _requirement_text(spec: Spec, v: Variant) -> str:
    parts = []
    for c in v.requirement.clauses:
        names = spec.sort_targets(c.targets)
        label = _set_label(spec, set(c.targets))
        where = f"{names[0]} and later" if label.endswith("_UP") else ", ".join(names)
        end = f" and < {_until(c)}" if _until(c) else ""
        parts.append(f"PTX ISA >= {c.ptx}{end} on {where}")
    return "; or ".join(parts)


def guard_table(spec: Spec) -> tuple[dict[str, str], dict[str, str]]:
    """({macro: condition}, {variant id: macro}); a macro never names two requirements."""
    conds: dict[str, str] = {}
    guard_of: dict[str, str] = {}
    for v in spec.variants:
        macro, cond = requirement_macro(spec, v)
        if conds.setdefault(macro, cond) != cond:
            raise BindingError(f"guard {macro} names two different requirements")
        guard_of[v.id] = macro
    return conds, guard_of
