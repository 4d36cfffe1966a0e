"""The arithmetic of a variant: which model and parameters spec/numerics.yaml gives it, and what
that rests on (the rule's basis)."""
from __future__ import annotations

from ptxspec.diff.registry import Finding, rule
from ptxspec.semantics.numerics import computes_product, rule_matches


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


@rule("arithmetic.basis_changed", "warning",
      "what a variant's arithmetic rests on changed (its numerics rule's basis: measured, published, sass)")
def basis_changed(d):
    for bv, hv in d.pairs.common:
        ab, ah = _arithmetic(bv), _arithmetic(hv)
        if ab is None or ah is None or ab[:2] != ah[:2] or ab[2].basis == ah[2].basis:
            continue  # no model on a side, or another model (arithmetic.changed), or the same basis
        before, after = ab[2].basis, ah[2].basis
        yield Finding(f"{hv.id} arithmetic basis", f"{hv.id}: arithmetic rests on {before} -> {after}", ah[2].pos,
                      side="head", summary=f"basis {before} -> {after}", variant=hv, before=before, after=after)


@rule("arithmetic.status_changed", "warning",
      "what a variant's arithmetic is said to rest on changed (its numerics rule's status: the evidence the database "
      "and the docs name for a variant no campaign ran)")
def status_changed(d):
    for bv, hv in d.pairs.common:
        ab, ah = _arithmetic(bv), _arithmetic(hv)
        if ab is None or ah is None or ab[:2] != ah[:2] or ab[2].status == ah[2].status:
            continue  # no model on a side, another model (arithmetic.changed), or the same status
        show = lambda s: repr(s) if s else "none"  # noqa: E731
        before, after = show(ab[2].status), show(ah[2].status)
        yield Finding(f"{hv.id} arithmetic status", f"{hv.id}: arithmetic status {before} -> {after}", ah[2].pos,
                      side="head", summary=f"status {before} -> {after}", variant=hv, before=before, after=after)
