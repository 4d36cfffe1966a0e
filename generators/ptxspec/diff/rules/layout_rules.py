"""Fragment and sparsity layout definitions (their variants' maps are compared by fragments.py
and sparsity.py; these rules say what happened to the definition itself)."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain, short
from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.fragment_rules import moved_layouts
from ptxspec.diff.rules.named_definitions import definitions, first_of


@rule("layout.added", "info", "a fragment or sparsity layout is new")
def added(d):
    return definitions(d, "layout").added()


@rule("layout.removed", "info", "a fragment or sparsity layout is gone (its variants are reported)")
def removed(d):
    return definitions(d, "layout").removed()


def _formula_changes(d) -> list[tuple]:
    """(name, head entry, fields, base data, head data, position) of layouts whose formulas changed; fields
    None when the layout became another kind (fragment <-> sparsity)."""
    def compute():
        out = []
        for name, bo, ho, bent, hent in definitions(d, "layout").common():
            if type(bo) is not type(ho):
                out.append((name, hent, None, {}, {}, None))
                continue
            pb, ph = plain(bo), plain(ho)
            fields = changed_fields(pb, ph, skip=("description", "name", "valid_nibbles"))
            if fields:
                out.append((name, hent, fields, pb, ph, pos_in(hent, bent, fields)))
        return out
    return d.memo("layout.formulas", compute)


def _finding(name, fields, pb, ph, pos, note) -> Finding:
    text = ", ".join(f"{f}: {short(pb.get(f), 60)} -> {short(ph.get(f), 60)}" for f in fields)
    return Finding(f"layout {name}", f"layout {name}: {text} ({note})", pos, summary=f"layout {name}: {text}",
                   details={"fields": fields},
                   before=first_of(fields, pb), after=first_of(fields, ph))


@rule("layout.changed", "warning",
      "a layout's formulas changed and move elements of some variant, or it became another kind of layout")
def changed(d):
    moved = moved_layouts(d)
    for name, hent, fields, pb, ph, pos in _formula_changes(d):
        if fields is None:
            yield Finding(f"layout {name}", f"layout {name} changed kind", hent[1] if hent else None)
        elif name in moved:
            yield _finding(name, fields, pb, ph, pos,
                           "moves elements of variants: see fragment.moved / sparsity.moved")


@rule("layout.rewritten", "info", "a layout's formulas changed, and every map evaluated from them is the same")
def rewritten(d):
    moved = moved_layouts(d)
    for name, _, fields, pb, ph, pos in _formula_changes(d):
        if fields is not None and name not in moved:
            yield _finding(name, fields, pb, ph, pos, "every evaluated map is unchanged")
