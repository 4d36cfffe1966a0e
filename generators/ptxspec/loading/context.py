"""What every resolver shares: the problems list, located formulas, versions, target sets and
requirements, and `Origin`, the YAML node a resolved fact came from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

from ptxspec.core.errors import Pos, Problems, did_you_mean
from ptxspec.core.expr import ExprError, Formula, compile_formula
from ptxspec.model.isa import Clause, Requirement, Target, TargetSetError, Version, resolve_target_set, simplified
from ptxspec.model.operand_kind import int_set

__all__ = ["Origin", "Context", "int_set"]


@dataclass(frozen=True, eq=False)
class Origin:
    """A node of a positioned YAML document: `container[key]`, or the container itself (key None).
    Variants record the origins of their fields (`Variant.sources`), so that a spec diff can say
    which line changed a field by comparing the nodes of two trees, and `explain` where each fact
    is written. A pickled origin (the model cache) keeps where it is, not the YAML node: a diff
    reads its trees afresh."""

    container: Any
    key: Any = None
    at: Pos | None = None  # where it is, when the node itself is not kept

    @property
    def value(self) -> Any:
        if self.container is None:
            raise ValueError(f"the YAML node at {self.at} is not kept in a cached model")
        return self.container if self.key is None else self.container[self.key]

    @property
    def pos(self) -> Pos:
        if self.container is None:
            assert self.at is not None
            return self.at
        if self.key is None:
            return self.container.pos
        return self.container.at(self.key)

    def __reduce__(self):
        return Origin, (None, self.key, self.pos)


class Context:
    """The problems of one model build and the checks every resolver uses."""

    def __init__(self, problems: Problems):
        self.p = problems

    def once(self, items, key, what: str, at: str | None = None) -> None:
        """Report each item of a positioned list whose `key(item)` (or one of its keys, when it gives
        a list) repeats an earlier one, at its line, naming the first: the artifacts key their rows
        by these, and a repeat ended the build in exit 3 or was silently dropped. `at`: the item's
        key whose line is reported (default: the item's)."""
        first: dict = {}
        for i, item in enumerate(items):
            k, pos = key(item), items[i].at(at) if at else items.at(i)
            for one in k if isinstance(k, list) else [k]:
                if one in first:
                    text = one if isinstance(one, str) else ", ".join(map(str, one))
                    self.p.add(pos, f"{what} {text} is given twice (first at line {first[one].line})")
                else:
                    first[one] = pos

    def formula(self, data, key: str, names: frozenset[str], fallback: Pos) -> Formula | None:
        try:
            return compile_formula(str(data[key]), names)
        except ExprError as exc:
            self.p.add(data.at(key) if hasattr(data, "at") else fallback, f"{key}: {exc}")
            return None

    def version(self, data, key: str, known: list[Version]) -> Version | None:
        v = Version.parse(data[key])
        if v not in known:
            self.p.add(data.at(key), f"unknown PTX version {v}" + did_you_mean(str(v), [str(x) for x in known]))
            return None
        return v

    def target_set(self, data, key: str, targets: dict[str, Target]) -> frozenset[str] | None:
        try:
            return resolve_target_set(data[key], targets)
        except TargetSetError as exc:
            name = str(exc).split("'")[1] if "'" in str(exc) else ""
            self.p.add(data.at(key), f"{exc}{did_you_mean(name, targets)}")
            return None

    def clause(self, r, versions: list[Version], targets: dict[str, Target]) -> Clause | None:
        """One requirement alternative; with `until`, only targets that some version before it knows."""
        v, ts = self.version(r, "ptx", versions), self.target_set(r, "targets", targets)
        if v is None or ts is None:
            return None
        until = None
        if "until" in r:
            until = self.version(r, "until", versions)
            if until is None:
                return None
            if until <= v:
                self.p.add(r.at("until"), f"until {until} is not after ptx {v}")
                return None
            ts = frozenset(t for t in ts if targets[t].ptx < until)
        return Clause(v, ts, until)

    @overload
    def requirement(self, node, versions: list[Version], targets: dict[str, Target],
                    stop_on_error: Literal[False]) -> Requirement: ...

    @overload
    def requirement(self, node, versions: list[Version], targets: dict[str, Target],
                    stop_on_error: Literal[True]) -> Requirement | None: ...

    def requirement(self, node, versions: list[Version], targets: dict[str, Target],
                    stop_on_error: bool) -> Requirement | None:
        """The alternatives of a `requires` list. With `stop_on_error`, None at the first bad
        clause; otherwise the good clauses (bad ones are reported)."""
        clauses = []
        for i, r in enumerate(node):
            c = self.clause(r, versions, targets)
            if c is None:
                if stop_on_error:
                    return None
                continue
            if not c.targets:
                self.p.add(node.at(i), "target set is empty")
                if stop_on_error:
                    return None
            clauses.append(c)
        return Requirement(simplified(tuple(clauses)) if all(c.targets for c in clauses) else tuple(clauses))

    def known(self, d, key: str, table: dict, what: str) -> bool:
        if d[key] in table:
            return True
        self.p.add(d.at(key), f"unknown {what} {d[key]!r}{did_you_mean(d[key], table)}")
        return False
