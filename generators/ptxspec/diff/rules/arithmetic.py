"""The arithmetic of a variant: which model and parameters spec/numerics.yaml gives it."""
from __future__ import annotations

from ...numerics import computes_product, rule_matches
from ..registry import Finding, rule


def _arithmetic(v):
    """(model, parameters, the rule that gave them) of a variant, or None without a rule."""
    if not computes_product(v) or v.hardware_note:
        return None
    for r in v.spec.numerics:
        if rule_matches(r.when, v):
            return r.model, tuple(sorted(r.params.items())), r
    return None


@rule("arithmetic.changed", "breaking", "what the executor computes for a variant changed (its numerics rule)")
def changed(d):
    for bv, hv in d.pairs.common:
        ab, ah = _arithmetic(bv), _arithmetic(hv)
        if (ab and ab[:2]) == (ah and ah[:2]):
            continue
        show = lambda a: "no model" if a is None else f"{a[0]} {dict(a[1])}"  # noqa: E731
        shown, side = (ah, "head") if ah is not None else (ab, "base")
        assert shown is not None  # the two differ: one side has a model
        where = shown[2].pos
        yield Finding(f"{hv.id} arithmetic", f"{hv.id}: arithmetic {show(ab)} -> {show(ah)}", where, side=side,
                      summary=f"arithmetic {show(ab)} -> {show(ah)}", variant=hv, before=show(ab), after=show(ah))
