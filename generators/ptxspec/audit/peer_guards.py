"""A peer's guard against the spec's requirement, target by target and PTX version by version.

The points compared are every (target, PTX ISA version) of the spec's ISA at which the target
exists (`.target` accepts it from its own first version): where the peer allows a point the spec
says is invalid, the finding is an error (a user of the binding gets a ptxas error, or worse, code
for the wrong target); where the peer forbids a point the spec says is valid, a warning (the
binding is missing where it could be). Each finding keeps, per target, the versions in dispute and
one witness point that `adjudicate` assembles with ptxas: the latest disputed version (where
ptxas rejects an allowed point there, the spec's first version is later still, or the target has
none; where it accepts a forbidden one, the binding is missing there).
"""
from __future__ import annotations

from ptxspec.model.isa import Requirement, Version
from ptxspec.audit.findings import Binding, Finding, Guard


def requirement_of(v, opcode: str) -> Requirement:
    """A variant's requirement for the opcode as written: intersected with the requirement of each
    option qualifier the opcode carries (a collector hint may need a later PTX version)."""
    tokens = set(opcode.split("."))
    req = v.requirement
    for values in v.options.values():
        chosen = next((r for value, r in values if value and value in tokens), None)
        if chosen is None:
            chosen = next((r for value, r in values if not value), None)
        if chosen is not None:
            req = req.intersect(chosen)
    return req


def _versions(spec, target) -> list[Version]:
    return [v for v in spec.ptx_versions if v >= target.ptx]


def disputes(spec, guard: Guard, reqs: list[Requirement], cache: dict) -> tuple[dict, dict]:
    """(allowed, forbidden): target -> versions the peer allows and the spec does not (and the
    reverse), for every target of the spec's ISA (computed once per guard and requirements)."""
    key = (guard.targets, guard.min_ptx, guard.only_ptx, guard.compare_from, guard.upper_only, tuple(reqs))
    if key not in cache:
        cache[key] = _disputes(spec, guard, reqs)
    return cache[key]


def _disputes(spec, guard: Guard, reqs: list[Requirement]) -> tuple[dict, dict]:
    allowed, forbidden = {}, {}
    if guard.targets is None and guard.min_ptx is None:
        return allowed, forbidden
    for name in spec.sort_targets(spec.targets):
        t = spec.targets[name]
        if guard.targets is None and not any(r.first_ptx(t) for r in reqs):
            continue  # a guard that states no targets is compared on the spec's targets only (its PTX version)
        extra, missing = [], []
        for ver in _versions(spec, t):
            if (guard.only_ptx is not None and ver != guard.only_ptx) or (
                    guard.compare_from is not None and ver < guard.compare_from):
                continue
            peer = guard.allows(name, ver)
            ours = any(r.valid(t, ver) for r in reqs)
            if peer and not ours and not guard.upper_only:
                extra.append(ver)
            elif ours and not peer:
                missing.append(ver)
        if extra:
            allowed[name] = extra
        if missing:
            forbidden[name] = missing
    return allowed, forbidden


def _spans(versions: list[Version]) -> str:
    return f"PTX {versions[0]}" if len(versions) == 1 else f"PTX {versions[0]}-{versions[-1]}"


def _spec_says(spec, reqs, name: str) -> str:
    t = spec.targets[name]
    firsts = [f for r in reqs if (f := r.first_ptx(t)) is not None]
    if not firsts:
        return "invalid on this target"
    ends = [r.until(t) for r in reqs]
    until = "" if any(e is None for e in ends) else f", until PTX {max(e for e in ends if e)}"
    return f"valid from PTX {min(firsts)}{until}"


def guard_findings(spec, b: Binding, reqs: list[Requirement], cache: dict) -> list[Finding]:
    """At most two findings for a binding: what its guard allows that the spec does not (error),
    and what it forbids that the spec allows (warning)."""
    allowed, forbidden = disputes(spec, b.guard, reqs, cache)
    out = []
    for severity, disputed, verb in (("error", allowed, "allows"), ("warning", forbidden, "forbids")):
        if not disputed:
            continue
        parts = [f"{name} at {_spans(vs)} (the spec: {_spec_says(spec, reqs, name)})" for name, vs in disputed.items()]
        witness = {name: str(vs[-1]) for name, vs in disputed.items()}
        msg = (f"`{b.opcode}` guard ({b.guard.source}) {verb} {len(disputed)} target"
               f"{'s' * (len(disputed) != 1)} the spec {'does not' if verb == 'allows' else 'does'}: "
               + "; ".join(parts))
        out.append(Finding("guard", severity, b.file, b.line, msg, b.opcode, b.variants,
                           {"direction": verb, "guard": b.guard.source,
                            "targets": {n: [str(v) for v in vs] for n, vs in disputed.items()},
                            "witness": witness}))
    return out

