"""Running the rules over two loaded sides.

`Diff` is what every rule receives: both sides, the pairing of their variants, a memo for
analyses that several rules share (a requirement profile, a fragment comparison), and `where`,
which finds the YAML position that caused a variant change.
"""
from __future__ import annotations

import contextlib
import os

from ptxspec.core.errors import Pos
from ptxspec.core.paths import default_spec_dir
from ptxspec.diff.changes import Change, Report, shape_pattern, sort_key
from ptxspec.diff.ignore import apply_ignore, read_ignore
from ptxspec.diff.pairing import Pairing, pair_variants
from ptxspec.diff.plain import plain
from ptxspec.diff.positions import SOURCE_KEYS, entry_diff, first_diff, source_change
from ptxspec.diff.registry import Finding
from ptxspec.diff.rules import RULES
from ptxspec.diff.severity import read_severity_overrides
from ptxspec.diff.severity import severities as severities_of
from ptxspec.diff.sides import Side, load_side, open_side


class Diff:
    def __init__(self, base: Side, head: Side, severities: dict[str, str] | None = None):
        self.b, self.h = base, head
        self.severity = severities or severities_of()
        self.pairs: Pairing = pair_variants(base.spec.variants, head.spec.variants)
        self.same_targets = plain(base.spec.targets) == plain(head.spec.targets)
        self._memo: dict = {}

    def side(self, name: str) -> Side:
        return self.b if name == "base" else self.h

    def _name(self, side: Side) -> str:
        return "base" if side is self.b else "head"

    def memo(self, key, compute):
        """compute() once per comparison, for analyses several rules share."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # -- positions -----------------------------------------------------------------------------
    def cause(self, kind: str, this, other=None, *, side: str = "head", item=None) -> tuple[Pos, str]:
        """(position, side) of the YAML that made variant `this` (of `side`) differ from `other`:
        in `side`'s tree, or in the other tree where that one has what `this` lacks.

        kind: "membership" (added or removed: `other` is None), "renamed", "requirement",
        "operand" (item: operand name), "fragment" (item: the operand), "sparsity", "record"."""
        this_side, other_side = (self.h, self.b) if side == "head" else (self.b, self.h)
        if kind == "membership":
            other = self._sibling(this, other_side)
            if other is None:
                return this.pos, side
        keys = SOURCE_KEYS.get(kind, tuple(this.sources))
        operand = None
        if kind in ("operand", "fragment"):
            operand = item if kind == "fragment" else next((o for o in this.operands if o.name == item), None)
            matrix = (operand.matrix or operand.name) if operand is not None else ""
            keys = tuple(k.format(matrix=matrix) for k in keys)
        found = source_change(this, other, keys, item if kind == "operand" else None)
        if found is not None:
            pos, flipped = found
            return pos, self._name(other_side) if flipped else side
        ti, oi = this_side.index, other_side.index
        pos = None
        if operand is not None:  # register counts and types follow the definitions
            pos = (entry_diff(ti.layouts.get(operand.layout), oi.layouts.get(operand.layout))
                   or entry_diff(ti.types.get(operand.element_type), oi.types.get(operand.element_type)))
        elif other is not None:  # a key of the group that no field group records (a note, a batch count)
            g, og = ti.groups.get((this.instruction, this.group)), oi.groups.get((other.instruction, other.group))
            pos = first_diff(g, og) if g is not None and og is not None else None
        return pos or this.pos, side

    def _sibling(self, v, side: Side):
        """A variant of `side` from the same instruction and group as `v`, if any."""
        table = self.memo(("siblings", id(side)),
                          lambda: {(x.instruction, x.group): x for x in reversed(side.spec.variants)})
        return table.get((v.instruction, v.group))

    # -- running -------------------------------------------------------------------------------
    def change(self, rule_id: str, f: Finding) -> Change:
        side = self.side(f.side)
        pos = f.pos or Pos(str(side.spec_dir))
        c = Change(rule_id, self.severity[rule_id], f.subject, f.message, f.side, side.path(pos.path), pos.line,
                   pos.col, f.summary or f.message, before=f.before, after=f.after, details=f.details or {})
        if f.variant is not None:
            v = f.variant
            c.instruction, c.pattern, c.n, c.form = v.instruction, shape_pattern(v), v.n, v.form
        return c

    def run(self) -> list[Change]:
        changes = [self.change(r.id, f) for r in RULES.values() for f in r.check(self)]
        changes.sort(key=sort_key)
        return changes


def compare(base: Side, head: Side, overrides: dict[str, str] | None = None) -> Report:
    """Compare two loaded sides; `overrides` (rule id -> severity) replace the rules' severities."""
    return Report(base, head, Diff(base, head, severities_of(overrides)).run())


def diff_trees(base: str | os.PathLike, head: str | os.PathLike, ignore: str | None = None,
               severity_overrides: str | None = None) -> Report:
    """Load and compare two spec directories (or git revisions of this checkout); raises CompareError."""
    overrides = read_severity_overrides(severity_overrides) if severity_overrides else {}
    with contextlib.ExitStack() as stack:
        b = load_side(open_side(str(base), "BASE", default_spec_dir(), stack))
        h = load_side(open_side(str(head), "HEAD", default_spec_dir(), stack))
        report = compare(b, h, overrides)
    if ignore:
        apply_ignore(report, read_ignore(ignore))
    return report
