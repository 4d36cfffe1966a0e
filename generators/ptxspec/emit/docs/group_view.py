"""One group of an instruction page: its facts, operands, fragment maps and variants (plain data)."""
from __future__ import annotations

from collections import Counter, defaultdict
from functools import cached_property
from typing import TYPE_CHECKING

from ptxspec.emit.docs.markdown import DASH, code
from ptxspec.model.kinds import kind_of
from ptxspec.model.variant import Variant

if TYPE_CHECKING:  # annotations only: a family view holds its groups
    from ptxspec.emit.docs.view import FamilyView


from ptxspec.emit.docs.tables import Table, qualifiers, variant_table


def _shape_name(v) -> str:
    return f"m{v.m}n{v.n}" + (f"k{v.k}" if v.k else "")


def _several_shapes(vs) -> bool:
    """Whether the variants' shapes are no cross product of their M, N and K (a group of several
    shapes, those of one manual row), so that a shape names them where the lists would not."""
    got = {(v.m, v.n, v.k) for v in vs if v.m}
    return len(got) < len({v.m for v in vs if v.m}) * len({v.n for v in vs if v.m}) * len({v.k for v in vs if v.m})


def _regs_text(ops) -> str:
    counts = sorted({o.regs for _, o in ops})
    if len(counts) == 1:
        return str(counts[0])
    if _several_shapes([v for v, _ in ops]):  # the count per element type, per shape, or per both
        for key in (lambda v, o: o.element_type, lambda v, o: _shape_name(v),
                    lambda v, o: f"{_shape_name(v)} {o.element_type}"):
            per = defaultdict(set)
            for v, o in ops:
                per[key(v, o)].add(o.regs)
            if all(len(c) == 1 for c in per.values()):
                by_count: dict[int, list[str]] = {}
                for what, c in per.items():
                    by_count.setdefault(next(iter(c)), []).append(what)
                return ", ".join(f"{n} ({', '.join(whats)})" for n, whats in by_count.items())
    if len({v.n for v, _ in ops}) == 1:  # one shape: the count per element type
        per_type = {o.element_type: o.regs for _, o in ops}
        if len(per_type) == len(counts) and all(per_type.values()):
            return ", ".join(f"{per_type[t]} ({t})" for t in sorted(per_type))
    by_type = defaultdict(set)
    for v, o in ops:
        if v.n and o.regs:
            by_type[o.element_type].add(v.n / o.regs)
    if by_type and all(len(r) == 1 for r in by_type.values()):
        parts = []
        for t in sorted(by_type):
            ratio = next(iter(by_type[t]))
            parts.append(f"N/{int(ratio)} ({t})" if ratio == int(ratio) else f"{1 / ratio:g}N ({t})")
        return ", ".join(parts)
    return f"{counts[0]}..{counts[-1]}"


def selector_operands(v: Variant) -> list[str]:
    return [o.name for o in v.operands if kind_of(o).needs_sparsity and kind_of(o).constant]


def form_sources(variants: list[Variant]) -> list[dict]:
    """Per operand form, the matrix operands only that form has: {'form', 'operands': [(name, kind, matrix)]}."""
    by_form: dict[str, dict] = defaultdict(dict)
    for v in variants:
        for o in v.operands:
            if o.matrix:
                by_form[v.form][o.name] = (o.name, o.kind, o.matrix)
    common = set.intersection(*(set(ops) for ops in by_form.values())) if by_form else set()
    return [{"form": f, "operands": [op for name, op in by_form[f].items() if name not in common]}
            for f in sorted(by_form)]


def _map_order(row: dict):
    """Operand, what it holds, then the figure: by kind, then as its kind orders them."""
    f = row["fig"]
    return row["operand"], row["what"], f.kind, f.order


class GroupView:
    """The facts, operands, fragment maps and variants of one group of variants."""

    def __init__(self, fam: FamilyView, name: str, vs: list[Variant], heading: bool):
        self.fam, self.name, self.heading = fam, name, heading
        self.variants = sorted(vs, key=lambda v: (v.m or 0, v.n or 0, v.k or 0, v.dtype, v.atype, v.btype,
                                                  v.satfinite, v.op, v.form != "reg", v.form))
        self._vs = vs  # in spec order
        self.v0 = vs[0]

    @cached_property
    def shape(self) -> dict | None:
        if not self.v0.m:
            return None
        return {a: sorted({getattr(v, a) for v in self._vs if getattr(v, a)}) for a in ("m", "n", "k")}

    @cached_property
    def shapes(self) -> list[str]:
        """The shapes of a group of several shapes (no cross product of its M, N and K), in spec order."""
        return list(dict.fromkeys(_shape_name(v) for v in self._vs)) if _several_shapes(self._vs) else []

    @cached_property
    def types(self) -> list[str]:
        """D.A.B type triples of an arithmetic group."""
        return [".".join(t) for t in sorted({(v.dtype, v.atype, v.btype) for v in self._vs
                                             if v.atype and v.btype and v.dtype})]

    @cached_property
    def moved_types(self) -> list[str]:
        """Element types of a group that moves one matrix (no D.A.B triple)."""
        return sorted({t for v in self._vs for t in (v.atype, v.btype, v.ctype, v.dtype) if t})

    @cached_property
    def forms(self) -> list[str]:
        return sorted({v.form for v in self._vs if v.form})

    @cached_property
    def form_sources(self) -> list[dict]:
        return form_sources(self._vs) if len(self.forms) > 1 else []

    @cached_property
    def batch(self) -> dict | None:
        """Independent products one instruction computes, stacked in the maps."""
        v = self.v0
        if v.batch <= 1 or not (v.m and v.n):  # a batch stacks products of a shape
            return None
        return {"count": v.batch, "threads": v.threads // v.batch, "rows": v.m * v.batch, "cols": v.n * v.batch,
                "m": v.m}

    @cached_property
    def qualifiers(self) -> list[str]:
        return sorted({q for v in self._vs for q in qualifiers(v)})

    @cached_property
    def options(self) -> list[dict]:
        """Per option axis: its values, each with where it narrows the variant's requirement."""
        spec = self.fam.spec
        out = {}
        for v in self._vs:
            for axis, values in v.options.items():
                vals = out.setdefault(axis, {})
                for value, req in values:
                    if not value:
                        continue
                    both = req.intersect(v.requirement)
                    narrowed = both != v.requirement.intersect(v.requirement)
                    where = ", ".join(f"PTX {c.ptx} {'/'.join(spec.sort_targets(c.targets))}" for c in both.clauses)
                    vals.setdefault(value, set()).add(where if narrowed else "")
        axes = self.fam.model.axes
        return [{"axis": axis, "description": axes[axis].description if axis in axes else "",
                 "choices": [(value, sorted(w for w in wheres if w)) for value, wheres in vals.items()]}
                for axis, vals in out.items()]

    @cached_property
    def qualifiers_optional(self) -> bool:
        return any(not qualifiers(v) for v in self._vs)

    @cached_property
    def ptxas_only(self) -> dict | None:
        if not self.v0.ptxas_only:
            return None
        title = next(e.title for e in self.fam.spec.errata if e.id == self.v0.ptxas_only)
        return {"id": self.v0.ptxas_only, "title": title}

    @cached_property
    def observed(self) -> list[str]:
        return sorted({lay.observed_on for v in self._vs for lay, _, _ in v.fragment_layouts.values()
                       if lay.observed_on})

    @cached_property
    def unmapped(self) -> list[str]:
        """Register operands holding matrix elements with no map (the register count is all that is known)."""
        return sorted({o.name for v in self._vs for o in v.operands if o.element_type and not o.layout})

    @cached_property
    def evidence(self) -> list[dict]:
        """Per hardware campaign that ran variants of the group: how many, and what it found."""
        out: dict[str, dict] = {}
        for v in self._vs:
            for e in self.fam.spec.evidence.of(v.id):
                r = e.results[v.id]
                c = out.setdefault(e.campaign, {"campaign": e, "variants": 0, "cases": 0, "outputs": 0,
                                                "mismatches": 0})
                c["variants"] += 1
                c["cases"] += r.cases
                c["outputs"] += r.outputs
                c["mismatches"] += r.mismatches
        return sorted(out.values(), key=lambda c: (c["campaign"].date, c["campaign"].campaign))

    @cached_property
    def unmeasured(self) -> list[tuple[str, str, int]]:
        """(status, why, how many) of the variants whose maps no campaign measured ('not run', 'no record')."""
        why = Counter(tuple(v.hardware.split(": ", 1)) for v in self._vs if not self.fam.spec.evidence.of(v.id, "maps"))
        return sorted((w[0], w[1] if len(w) > 1 else "", n) for w, n in why.items())

    @cached_property
    def numerics(self) -> list[tuple[str, str, int]]:
        """(status, arithmetic model, how many) of the variants that compute a product."""
        status = self.fam.status
        n = Counter((status[v.id][3], status[v.id][1] or "") for v in self._vs if v.id in status)
        return sorted((st, model, k) for (st, model), k in n.items())

    @cached_property
    def selectors(self) -> list[int]:
        return sorted({s for v in self._vs for s in v.selectors})

    @cached_property
    def operands(self) -> list[list]:
        """Rows of the operand table: every operand of the group in PTX order (forms differ in some)."""
        names: list[str] = []
        by_name = defaultdict(list)
        for v in self._vs:
            prev = -1
            for o in v.operands:
                if o.name not in names:
                    names.insert(prev + 1, o.name)
                prev = names.index(o.name)
                by_name[o.name].append((v, o))
        rows = []
        for name in names:
            ops = by_name[name]
            o0 = ops[0][1]
            in_forms = sorted({v.form for v, _ in ops})
            vals = (", ".join(map(str, o0.values)) if o0.values is not None
                    else f"≥ {o0.min_value}" if o0.min_value is not None
                    else "; ".join(f"{part}: {', '.join(map(str, v))}" for part, v in o0.parts) or DASH)
            reg_types = sorted({o.reg_type for _, o in ops if o.reg_type})
            rows.append([code(name), o0.kind, o0.io, ", ".join(reg_types) or DASH, _regs_text(ops), vals,
                         ", ".join(in_forms) if self.forms and len(in_forms) < len(self.forms) else "all"])
        return rows

    @cached_property
    def maps(self) -> list[dict]:
        """One row per (operand, what it holds, figure) of the group's variants, for every kind of figure."""
        rows: dict[tuple, dict] = {}
        for v in self._vs:
            for operand, what, fig in self.fam.figs.uses.get(v.id, ()):
                row = rows.setdefault((operand, what, fig.kind, fig.key),
                                      {"operand": operand, "what": what, "fig": fig, "shapes": set()})
                row["shapes"].add((v.m, v.n, v.k))
        # a fragment figure that is for some of the group's shapes only says which (one layout name
        # may serve several shapes of a group, each with its own map)
        every = {(v.m, v.n, v.k) for v in self._vs}
        for row in rows.values():
            part = row["fig"].kind == "fragment" and row["shapes"] != every
            row["shapes"] = ", for " + ", ".join(f"m{m}n{n}k{k}" for m, n, k in sorted(row["shapes"])) if part else ""
        return sorted(rows.values(), key=_map_order)

    @cached_property
    def loaders(self) -> Table | None:
        """How the first variant's fragments load from (store to) a tile in shared memory: the
        movement form with the fewest runs per operand, storage and direction, or why none does."""
        rows = self.v0.loaders()
        if not rows:
            return None
        best, out = set(), []
        for r in rows:
            key = (r.operand, r.storage, r.direction)
            if key in best:
                continue
            best.add(key)
            tile = "row-major" if r.storage == "row" else "column-major"
            if r.status != "ok":
                out.append([r.operand.upper(), tile, r.direction, "none", DASH, DASH, DASH, r.reason])
            else:
                out.append([r.operand.upper(), tile, r.direction, code(r.form), str(r.instructions), code(r.row),
                            code(r.col), r.evidence])
        return Table(["operand", "tile", "", "form", "runs", "row each lane addresses", "column", "evidence"], out)

    @cached_property
    def variant_table(self) -> Table:
        return variant_table(self.fam.spec, self.variants, self.fam.status)
