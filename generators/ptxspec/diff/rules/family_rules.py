"""Instruction families: threads, the size of each matrix, shape bounds (their instructions' variants are
compared by the variant rules)."""
from __future__ import annotations

from ptxspec.core.errors import PosDict
from ptxspec.core.expr import ExprError
from ptxspec.diff.plain import changed_fields, plain, short
from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions
from ptxspec.loading.matrix_sizes import sizes, variant_shapes
from ptxspec.model.family import MatrixDims


@rule("family.added", "info", "an instruction family is new")
def added(d):
    return definitions(d, "family").added()


@rule("family.removed", "warning", "an instruction family is gone (its variants are reported)")
def removed(d):
    return definitions(d, "family").removed()


@rule("family.changed", "breaking", "a family's thread count changed")
def changed(d):
    for name, bo, ho, bent, hent in definitions(d, "family").common():
        if bo.threads != ho.threads:
            yield Finding(f"family {name}", f"family {name}: threads {bo.threads} -> {ho.threads}",
                          pos_in(hent, bent, ["threads"]), before=bo.threads, after=ho.threads)


# -- the size of each matrix (rows and cols formulas of M, N, K, batch, sparse) -------------------

def _matrix_pos(entry, mat: str, field: str):
    """Where the matrix's formula stands in a family document's entry (the document, its name's position)."""
    if entry is None:
        return None
    doc, pos = entry
    body = doc.get("matrices", {}).get(mat) if isinstance(doc, PosDict) else None
    return body.at(field) if isinstance(body, PosDict) else pos


def _resized(d, family: str, mat: str, before: MatrixDims, after: MatrixDims, fields: list[str]) -> str | None:
    """How the new formulas size the matrix differently for some variant (of either tree) that takes it,
    or None when every such variant keeps its size. A variant whose size cannot be evaluated (no shape,
    and a formula of a dimension) counts as resized: nothing shows it is not."""
    seen: set = set()
    for side in (d.h, d.b):
        for v in side.spec.variants:
            if v.family != family or not any(o.matrix == mat for o in v.operands):
                continue
            shapes = variant_shapes(side.spec, family, (v.m, v.n, v.k), v.qualifiers)
            if (shapes, v.batch, v.sparse) in seen:
                continue
            seen.add((shapes, v.batch, v.sparse))
            for f in fields:
                try:
                    old, new = (sizes(getattr(x, f), shapes, v.batch, v.sparse) for x in (before, after))
                except ExprError:  # (each tree validated: not for a variant of its own)
                    return f"{f} of {v.ptx}: cannot be evaluated for both"
                if old is None or new is None:
                    return f"{f} of {v.ptx}: not evaluated (no shape)"
                i = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), None)
                if i is not None:
                    return f"{v.ptx} ({shapes.label(i)}): {f} {old[i]} -> {new[i]}"
    return None


def matrix_changes(d) -> list[tuple]:
    """(family, matrix, fields, message, position, how some variant is resized or None) of every family
    matrix whose rows or cols formula changed."""
    def compute():
        out = []
        for name, bo, ho, bent, hent in definitions(d, "family").common():
            for mat in sorted(set(bo.matrices) & set(ho.matrices)):
                b, h = bo.matrices[mat], ho.matrices[mat]
                fields = [f for f in ("rows", "cols") if getattr(b, f).source != getattr(h, f).source]
                if fields:
                    text = ", ".join(f"{f} {getattr(b, f).source!r} -> {getattr(h, f).source!r}" for f in fields)
                    out.append((name, mat, fields, f"family {name}: matrix {mat}: {text}",
                                _matrix_pos(hent, mat, fields[0]), _resized(d, name, mat, b, h, fields)))
        return out
    return d.memo("family.matrices", compute)


@rule("family.matrix.resized", "breaking",
      "a family matrix's rows or cols formula changed and sizes the matrix differently for a variant that takes it")
def matrix_resized(d):
    for name, mat, fields, text, pos, resized in matrix_changes(d):
        if resized is not None:
            yield Finding(f"family {name} matrix {mat}", f"{text} ({resized})", pos, summary=text,
                          details={"fields": fields})


@rule("family.matrix.rewritten", "info",
      "a family matrix's rows or cols formula changed, and every variant that takes the matrix keeps its size")
def matrix_rewritten(d):
    for name, mat, fields, text, pos, resized in matrix_changes(d):
        if resized is None:
            yield Finding(f"family {name} matrix {mat}", f"{text} (every variant that takes it keeps its size)", pos,
                          summary=text, details={"fields": fields})


# -- shape bounds (the ISA's limits every shape of the family is checked against) -----------------

@rule("family.shape_bounds.changed", "warning",
      "a family's shape bounds (the ISA's limits its shapes are checked against) changed; no variant changes with them")
def shape_bounds_changed(d):
    for name, _, _, bent, hent in definitions(d, "family").common():
        before, after = (plain(e[0].get("shape_bounds") or {}) if e else {} for e in (bent, hent))
        if before == after:
            continue
        dims = changed_fields(before, after)
        text = ", ".join(_bound_changes(dim, before.get(dim), after.get(dim)) for dim in dims)
        yield Finding(f"family {name} shape_bounds", f"family {name}: shape_bounds {text}",
                      pos_in(hent, bent, ["shape_bounds"]), before=before, after=after, details={"fields": dims})


def _bound_changes(dim: str, before, after) -> str:
    """`n.max 256 -> 512`: what changed in one dimension's bound."""
    def shown(x) -> str:
        return "(none)" if x is None else short(x, 60)
    if isinstance(before, dict) and isinstance(after, dict):
        return ", ".join(f"{dim}.{key} {shown(before.get(key))} -> {shown(after.get(key))}"
                         for key in changed_fields(before, after))
    return f"{dim} {shown(before)} -> {shown(after)}"
