"""Requirements as users see them: on which targets a variant assembles, from which PTX version."""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.diff.registry import Finding, rule
from ptxspec.model.variant import Variant


@dataclass
class RequirementDelta:
    bv: Variant
    hv: Variant
    before: list[str]  # targets, in target order
    after: list[str]
    lost: list[str]
    gained: list[str]
    moves: dict = field(default_factory=dict)  # (old first PTX, new first PTX) -> targets

    def moved(self, up: bool) -> list[tuple]:
        """(old, new, targets) of the targets whose first version went up (or down)."""
        return sorted(((old, new, ts) for (old, new), ts in self.moves.items() if (new > old) == up),
                      key=lambda p: (p[0], p[1]))


def _profile(d, side, req) -> dict:
    """Target -> first PTX version at which the requirement holds there."""
    def compute():
        prof = {}
        for t in req.targets:
            target = side.spec.targets.get(t)
            if target is not None:
                first = req.first_ptx(target)
                if first is not None:
                    prof[t] = first
        return prof
    return d.memo(("profile", id(side), req), compute)


def deltas(d) -> list[RequirementDelta]:
    def order(names):
        return sorted(names, key=lambda t: (d.h.spec.targets.get(t) or d.b.spec.targets.get(t)).sort_key)

    def compute():
        out = []
        for bv, hv in d.pairs.common:
            if d.same_targets and bv.requirement == hv.requirement:
                continue
            pb, ph = _profile(d, d.b, bv.requirement), _profile(d, d.h, hv.requirement)
            if pb == ph:
                continue
            delta = RequirementDelta(bv, hv, order(pb), order(ph), order(set(pb) - set(ph)), order(set(ph) - set(pb)))
            for t in order(set(pb) & set(ph)):
                if pb[t] != ph[t]:
                    delta.moves.setdefault((pb[t], ph[t]), []).append(t)
            out.append(delta)
        return out
    return d.memo("requirement.deltas", compute)


def _cause(d, delta):
    return d.memo(("requirement.cause", id(delta)),
                  lambda: d.cause("requirement", delta.hv, delta.bv))


@rule("requirement.targets.narrowed", "breaking", "a target no longer accepts the variant")
def targets_narrowed(d):
    for x in deltas(d):
        if x.lost:
            text = f"no longer valid on {', '.join(x.lost)}"
            yield Finding(x.hv.id, f"{x.hv.id}: {text}", *_cause(d, x), summary=text, variant=x.hv,
                          before=x.before, after=x.after, details={"targets": x.lost})


@rule("requirement.targets.widened", "info", "a target newly accepts the variant")
def targets_widened(d):
    for x in deltas(d):
        if x.gained:
            text = f"newly valid on {', '.join(x.gained)}"
            yield Finding(x.hv.id, f"{x.hv.id}: {text}", *_cause(d, x), summary=text, variant=x.hv,
                          before=x.before, after=x.after, details={"targets": x.gained})


def _moved(d, up: bool):
    for x in deltas(d):
        parts = x.moved(up)
        if not parts:
            continue
        text = "; ".join(f"{old} -> {new} on {', '.join(ts)}" for old, new, ts in parts)
        yield Finding(x.hv.id, f"{x.hv.id}: first PTX version {text}", *_cause(d, x),
                      summary=f"first PTX version {text}", variant=x.hv,
                      before=str(min(old for old, _, _ in parts)), after=str(min(new for _, new, _ in parts)),
                      details={"targets": [t for _, _, ts in parts for t in ts]})


@rule("requirement.ptx.raised", "breaking", "a target needs a later PTX ISA version")
def ptx_raised(d):
    return _moved(d, up=True)


@rule("requirement.ptx.lowered", "warning", "a target accepts an earlier PTX ISA version (a claim ptxas should confirm)")
def ptx_lowered(d):
    return _moved(d, up=False)
