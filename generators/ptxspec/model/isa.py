"""PTX ISA versions, targets, and requirements ("PTX >= 8.0 on sm_90a") as data."""
from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> "Version":
        major, minor = text.split(".")
        return cls(int(major), int(minor))

    def __lt__(self, other: "Version") -> bool:
        return (self.major, self.minor) < (other.major, other.minor)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@dataclass(frozen=True)
class Target:
    name: str
    arch: int
    suffix: str
    family: int
    ptx: Version
    ptxas: bool  # known to ptxas 13.5

    @property
    def sort_key(self):
        return (self.arch, "_af".index(self.suffix or "_"))


class TargetSetError(ValueError):
    pass


def resolve_target_set(expr, targets: dict[str, Target]) -> frozenset[str]:
    """Evaluate a target-set expression (see schema defs `target_set`) to target names."""
    if isinstance(expr, str):
        if expr not in targets:
            raise TargetSetError(f"unknown target {expr!r}")
        return frozenset([expr])
    (op, arg), = expr.items()
    if op == "at_least":
        base = targets[_known(arg, targets)]
        return frozenset(n for n, t in targets.items() if t.arch >= base.arch)
    if op == "family":
        base = targets[_known(arg, targets)]
        return frozenset(n for n, t in targets.items()
                         if t.family == base.family and t.arch >= base.arch and t.suffix in ("a", "f"))
    if op == "any_of":
        return frozenset().union(*(resolve_target_set(e, targets) for e in arg))
    if op == "all_of":
        sets = [resolve_target_set(e, targets) for e in arg]
        return frozenset.intersection(*sets)
    if op == "not":
        return frozenset(targets) - resolve_target_set(arg, targets)
    raise TargetSetError(f"unknown target-set operator {op!r}")


def _known(name: str, targets) -> str:
    if name not in targets:
        raise TargetSetError(f"unknown target {name!r}")
    return name


@dataclass(frozen=True)
class Clause:
    ptx: Version
    targets: frozenset[str]
    until: Version | None = None  # first PTX version that no longer accepts it (None: still valid)


def simplified(clauses: tuple) -> tuple:
    """The clauses without the targets an earlier-or-equal clause already grants for as long (a
    clause left with no target goes), and one clause per (ptx, until)."""
    def lasts(d, c):
        return d.until is None or (c.until is not None and d.until >= c.until)
    order = sorted(range(len(clauses)), key=lambda i: (clauses[i].ptx, i))
    out = []
    for pos, i in enumerate(order):
        c = clauses[i]
        covered = frozenset().union(*(clauses[j].targets for j in order[:pos] if lasts(clauses[j], c)))
        if c.targets - covered:
            out.append((i, Clause(c.ptx, c.targets - covered, c.until)))
    merged: dict[tuple, frozenset] = {}  # clauses from the same version to the same end become one
    for _, c in sorted(out, key=lambda x: x[0]):
        merged[(c.ptx, c.until)] = merged.get((c.ptx, c.until), frozenset()) | c.targets
    return tuple(Clause(ptx, targets, until) for (ptx, until), targets in merged.items())


@dataclass(frozen=True)
class Requirement:
    """Valid on target T at PTX version V iff some clause has T in its targets, V >= its ptx,
    V < its `until` (where given), and V >= the first version that knows T."""

    clauses: tuple[Clause, ...]

    def valid(self, target: Target, ptx: Version) -> bool:
        return ptx >= target.ptx and any(target.name in c.targets and ptx >= c.ptx
                                         and (c.until is None or ptx < c.until) for c in self.clauses)

    def first_ptx(self, target: Target) -> Version | None:
        found = [max(c.ptx, target.ptx) for c in self.clauses if target.name in c.targets]
        return min(found) if found else None

    def until(self, target: Target) -> Version | None:
        """The first PTX version from which the target no longer accepts it (None: it still does)."""
        ends = [c.until for c in self.clauses if target.name in c.targets]
        known = [e for e in ends if e is not None]
        return max(known) if ends and len(known) == len(ends) else None

    @property
    def until_ptx(self) -> Version | None:
        """The first PTX version that no target accepts it at any more (None: some target still does)."""
        ends = [c.until for c in self.clauses]
        known = [e for e in ends if e is not None]
        return max(known) if ends and len(known) == len(ends) else None

    @property
    def targets(self) -> frozenset[str]:
        return frozenset().union(*(c.targets for c in self.clauses))

    @property
    def min_ptx(self) -> Version:
        return min(c.ptx for c in self.clauses)

    def refined(self, ptx: Version | None, targets: frozenset[str] | None) -> "Requirement":
        """Each clause from `ptx` on and on `targets` only; a clause left with no target goes."""
        clauses = (Clause(max(c.ptx, ptx) if ptx else c.ptx, c.targets & targets if targets is not None else c.targets,
                          c.until) for c in self.clauses)
        return Requirement(simplified(tuple(clauses)))

    def intersect(self, other: "Requirement") -> "Requirement":
        """Valid where both are: one clause per pair of clauses that share a target."""
        out = []
        for a in self.clauses:
            for b in other.clauses:
                targets = a.targets & b.targets
                if targets:
                    ends = [u for u in (a.until, b.until) if u is not None]
                    out.append(Clause(max(a.ptx, b.ptx), targets, min(ends) if ends else None))
        return Requirement(simplified(tuple(out)))

    def as_data(self, order) -> list[dict]:
        return [{"ptx": str(c.ptx), "targets": sorted(c.targets, key=order),
                 **({"until": str(c.until)} if c.until else {})} for c in self.clauses]
