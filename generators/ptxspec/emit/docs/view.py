"""The docs' view model: plain data computed from the model, one object per page and section.

The templates under `ptxspec/templates/docs/` hold every sentence; this module only computes what
they state: counts, lists, tables of data, which figure draws what. Nothing here names a family or
an instruction.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ptxspec.emit.docs import figures as F
from ptxspec.emit.docs.figures import metadata_operands
from ptxspec.emit.docs.markdown import DASH, code
from ptxspec.emit.svg import slot_suffix
from ptxspec.model.kinds import kind_of
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant
from ptxspec.semantics import numerics_status


@dataclass
class Table:
    headers: list
    rows: list[list]


def requirement_key(req):
    """A hash-independent order for requirements (str() of a frozenset follows string hashes)."""
    return [(str(c.ptx), sorted(c.targets)) for c in req.clauses]


def qualifiers(v: Variant) -> list[str]:
    """Qualifiers beyond shape and types, as the opcode spells them."""
    out = [f".{q}" for q in v.qualifiers.values() if q]
    return out + [q for q in (".satfinite" if v.satfinite else "", f".{v.op}" if v.op else "") if q]


def page_name(instruction: str) -> str:
    return F.file_name(instruction) + ".md"


# ---------------------------------------------------------------------------------------------
# Tables of variants and requirements


def hardware_short(v: Variant) -> str:
    """The variant's maps evidence in a word or two: the GPU, or 'not run' / 'not observable' (the group says why)."""
    return v.hardware.split(":")[0]


def variant_table(spec: Spec, variants: list[Variant], status: dict[str, tuple]) -> Table:
    show_c = any(v.ctype != v.dtype for v in variants)
    show_numerics = any(v.id in status for v in variants)
    headers = ["opcode", "form", "shape", "D", "A", "B"] + (["C"] if show_c else []) + \
              ["qualifiers", "registers", "PTX", "targets", "hardware"] + (["numerics"] if show_numerics else [])
    rows = []
    target_text: dict = {}  # requirement -> its targets, with a first version where it is later
    for v in variants:
        if v.requirement not in target_text:
            tgts = []
            for t in v.targets:
                first = v.requirement.first_ptx(spec.targets[t])
                tgts.append(t if str(first) == v.min_ptx else f"{t} (≥{first})")
            until = v.requirement.until_ptx
            target_text[v.requirement] = ", ".join(tgts) + (f"; removed in PTX {until}" if until else "")
        shape = f"m{v.m}n{v.n}" + (f"k{v.k}" if v.k else "") if v.m else DASH
        row = [code(v.ptx), v.form or DASH, shape, v.dtype or DASH, v.atype or DASH, v.btype or DASH]
        if show_c:
            row.append(v.ctype or DASH)
        row += [" ".join(qualifiers(v)) or DASH, " ".join(f"{k}:{n}" for k, n in v.regs.items()) or DASH, v.min_ptx,
                target_text[v.requirement], hardware_short(v)]
        if show_numerics:
            row.append(status[v.id][3] if v.id in status else DASH)
        rows.append(row)
    return Table(headers, rows)


def _part(gv, members) -> list[str]:
    """What sets some variants of a group apart: their type pairs, else the qualifiers (or forms)
    they all have and the rest of the group lacks, else those they all lack."""
    combos = sorted({".".join(t for t in (v.atype, v.btype) if t) for v in gv})
    if any(combos):
        return combos
    def marks(v):
        return set(qualifiers(v)) | ({f"{v.form} form"} if v.form else set())
    every = set.intersection(*map(marks, members))
    have = set.intersection(*map(marks, gv)) - every
    if have:
        return sorted(have)
    lack = set.union(*map(marks, members)) - set.union(*map(marks, gv))
    return ["without " + " ".join(sorted(lack))] if lack else []


def _covered(vs, members, per_inst, several) -> list[str]:
    """Which variants a requirement covers: whole instructions, groups, or type pairs of a group."""
    groups = defaultdict(list)
    for v in vs:
        groups[(v.instruction, v.group)].append(v)
    parts = defaultdict(list)  # instruction -> its groups (with type pairs where only some)
    for (inst, g), gv in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[1][0].pos.line)):
        if len(gv) == len(members[(inst, g)]):
            parts[inst].append(g)
        else:
            parts[inst].append(f"{g} ({', '.join(_part(gv, members[(inst, g)]))})")
    text = []
    for inst, gs in parts.items():
        whole = sum(len(gv) for (i, _), gv in groups.items() if i == inst) == per_inst[inst]
        if several:
            text.append(code(inst) + ("" if whole else f": {', '.join(gs)}"))
        else:
            text.append("all" if whole else ", ".join(gs))
    return text


def requirement_table(spec: Spec, variants: list[Variant]) -> Table:
    """Distinct requirements of these variants: which variants, and the first PTX per target."""
    by_req: dict = defaultdict(list)
    for v in variants:
        by_req[v.requirement].append(v)
    targets = spec.sort_targets({t for v in variants for t in v.requirement.targets})
    members = defaultdict(list)
    for v in variants:
        members[(v.instruction, v.group)].append(v)
    per_inst = Counter(v.instruction for v in variants)
    rows = []
    for req, vs in sorted(by_req.items(), key=lambda kv: (kv[0].min_ptx, requirement_key(kv[0]))):
        cells = []
        for t in targets:
            first, until = req.first_ptx(spec.targets[t]), req.until(spec.targets[t])
            last = spec.previous_version(until) if until else None
            cells.append(DASH if not first else f"{first} to {last}" if last else str(first))
        rows.append(["; ".join(_covered(vs, members, per_inst, len(per_inst) > 1)), len(vs)] + cells)
    return Table(["variants", "count"] + targets, rows)


def ptx_target_table(spec: Spec, variants: list[Variant]) -> Table:
    """Variants valid at each PTX version (rows, equal runs merged) on each target (columns)."""
    targets = spec.sort_targets({t for v in variants for t in v.requirement.targets})
    lo = min(v.requirement.min_ptx for v in variants)
    per_req = Counter(v.requirement for v in variants)
    runs: list[list] = []  # consecutive versions with the same counts share a row
    for ver in (ver for ver in spec.ptx_versions if ver >= lo):
        counts = [sum(n for req, n in per_req.items() if req.valid(spec.targets[t], ver)) for t in targets]
        if runs and runs[-1][2] == counts:
            runs[-1][1] = ver
        else:
            runs.append([ver, ver, counts])
    rows = [[str(a) if a == b else f"{a} … {b}"] + [c or DASH for c in counts] for a, b, counts in runs]
    return Table(["PTX ISA"] + targets, rows)


# ---------------------------------------------------------------------------------------------
# One group of an instruction page


def _regs_text(ops) -> str:
    counts = sorted({o.regs for _, o in ops})
    if len(counts) == 1:
        return str(counts[0])
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
        rows, seen = [], set()
        for v in self._vs:
            for operand, what, fig in self.fam.figs.uses.get(v.id, ()):
                if (operand, what, fig.kind, fig.key) not in seen:
                    seen.add((operand, what, fig.kind, fig.key))
                    rows.append({"operand": operand, "what": what, "fig": fig})
        return sorted(rows, key=_map_order)

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


# ---------------------------------------------------------------------------------------------
# A family and its pages


@dataclass
class InstructionView:
    name: str
    page: str
    model: object  # ptxspec.model.Instruction
    variants: list[Variant]
    targets: list[str]
    groups: list[GroupView]
    requirements: Table | None


class FamilyView:
    def __init__(self, spec: Spec, name: str, status: dict[str, tuple]):
        self.spec = spec
        self.status = status  # variant id -> numerics_status.status_rows row
        self.name = name
        self.model = spec.families[name]
        self.variants = [v for v in spec.variants if v.family == name]
        self.figs = F.collect(spec, name, self.variants)
        self.smem = spec.smem.get(name)
        self.descriptors = [d for (fam, _), d in sorted(spec.descriptors.items()) if fam == name]
        self.errata = [e for e in spec.errata if e.family == name]

    @cached_property
    def instructions(self) -> list[InstructionView]:
        names = sorted({v.instruction for v in self.variants} |
                       {i.name for i in self.spec.instructions.values() if i.family == self.name})
        return [self._instruction(n) for n in names]

    def _instruction(self, name: str) -> InstructionView:
        inst = self.spec.instructions[name]
        vs = [v for v in self.variants if v.instruction == name]
        groups = defaultdict(list)
        for v in vs:
            groups[v.group].append(v)
        order = sorted(groups, key=lambda g: groups[g][0].pos.line)
        gviews = [GroupView(self, g, groups[g], heading=len(order) > 1) for g in order]
        return InstructionView(name, page_name(name), inst, vs, self.spec.sort_targets(inst.requirement.targets),
                               gviews, requirement_table(self.spec, vs) if vs else None)

    @property
    def has_sparsity(self) -> bool:
        return bool(self.figs.meta)

    @cached_property
    def ptx_targets(self) -> Table:
        return ptx_target_table(self.spec, self.variants)

    @cached_property
    def requirements(self) -> Table:
        return requirement_table(self.spec, self.variants)

    # -- fragments page -------------------------------------------------------------------
    @cached_property
    def has_fragments(self) -> bool:
        """Whether any variant holds a matrix in registers (a family of fences has no fragments page)."""
        return bool(self.figs.frag)

    @cached_property
    def dense_figures(self) -> list[F.FragFigure]:
        return [f for f in self.figs.frag if f.role != "sparse-a"]

    @cached_property
    def has_sparse_a(self) -> bool:
        return any(f.role == "sparse-a" for f in self.figs.frag)

    @cached_property
    def not_in_registers(self) -> list[dict]:
        """Matrices no variant holds in registers, and the operands that name them instead."""
        in_regs = {o.matrix for v in self.variants for o in v.operands if o.layout or o.element_type}
        out: dict[str, dict] = {}
        for v in self.variants:
            for o in v.operands:
                if o.matrix and o.matrix not in in_regs:
                    out.setdefault(o.matrix, {})[o.name] = o.kind
        return [{"matrix": m, "operands": sorted(ops.items())} for m, ops in sorted(out.items())]

    # -- sparsity page ----------------------------------------------------------------------
    @cached_property
    def sparsities(self) -> list[dict]:
        out = []
        for name in sorted({f.sparsity.name for f in self.figs.meta}):
            sp = self.spec.sparsities[name]
            metas = [f for f in self.figs.meta if f.sparsity.name == name]
            packs = {self.figs.frag_of[(v.id, "a")].key: self.figs.frag_of[(v.id, "a")] for v in self.variants
                     if v.sparsity is sp and (v.id, "a") in self.figs.frag_of}
            vs = [v for v in self.variants if v.sparsity is sp]
            out.append({"model": sp, "metas": metas, "where": sorted({w for f in metas for w in f.where}),
                        "packs": sorted(packs.values(), key=lambda f: f.key),
                        "metadata": sorted({n for v in vs for n in metadata_operands(v)}),
                        "selector": sorted({n for v in vs for n in selector_operands(v)})})
        return out

    # -- block-scale factor page ------------------------------------------------------------
    @cached_property
    def scales(self) -> list[dict]:
        """Per scale map and scale count: its figures (one per shape and selector), where used."""
        out = []
        figs = [f for f in self.figs.other if isinstance(f, F.ScaleFigure)]
        for key in sorted({(f.smap.name, f.vectors) for f in figs}):
            fs = sorted((f for f in figs if (f.smap.name, f.vectors) == key), key=lambda f: (f.k, f.order))
            ks = sorted({f.k for f in fs})
            out.append({"model": fs[0].smap, "vectors": key[1], "figures": [f for f in fs if f.k == ks[0]],
                        "blocks": [(k, k // key[1]) for k in ks], "where": sorted({w for f in fs for w in f.where}),
                        "operands": sorted({o for f in fs for o in f.operands})})
        return out

    # -- shared memory page -------------------------------------------------------------------
    def swizzle_figure(self, mode) -> F.SwizzleFigure:
        return next(f for f in self.figs.swizzle if f.mode is mode)

    # -- descriptors page -----------------------------------------------------------------------
    def descriptor_figure(self, layout) -> F.BitDescriptorFigure:
        return next(f for f in self.figs.other if isinstance(f, F.BitDescriptorFigure) and f.layout is layout)

    def descriptor_values(self, f) -> str:
        """What a field holds: its codes per kind, its encode and legal inputs, or its fixed value."""
        if f.what == "reserved":
            return f"reserved, {f.reserved}"
        if f.what == "codes":
            return "; ".join((f"{sel}: " if sel else "") + ", ".join(f"{v} = {c}" for v, c in table.items())
                             for sel, table in f.codes.items())
        legal = "; ".join((f"{sel}: " if sel else "other kinds: " if len(f.legal) > 1 else "") + ", ".join(map(str, v))
                          for sel, v in f.legal.items())
        return f"`{f.encode.source}` of x" + (f" (x in {legal})" if legal else "")

    def tmem_figures(self, what: str) -> list:
        return [f for f in self.figs.other if isinstance(f, F.TmemFigure) and f.what == what]

    def tmem_rows(self, d) -> list[list]:
        """One row per data-path layout: the cases it serves and its formulas."""
        rows = []
        for t in d.tmem_layouts:
            cases = "; ".join(f"M {m}, {cta.split('::')[1]} CTA{'s' if cta.endswith('2') else ''}"
                              f"{', .ws' if ws else ''}{'' if len(sp) == 2 else ', sparse' if sp[0] else ', dense'}"
                              for m, cta, sp, ws in t.cases)
            a = ", ".join(f"`{f.source}`" for f in t.a_lanes) if t.a_lanes else "not stated"
            rows.append([t.id, cases, t.organization, str(t.rows), ", ".join(map(str, t.alignments)),
                         f"`{t.lane.source}`", f"`{t.column.source}`", a])
        return rows

    def descriptor_shapes(self, d) -> list[list]:
        rows = []
        for sh in d.shapes:
            def ns(n):
                steps = {b - a for a, b in zip(n, n[1:])}
                return f"{n[0]}..{n[-1]} step {steps.pop()}" if len(n) > 3 and len(steps) == 1 else ", ".join(map(str, n))
            rows.append([", ".join(sh.selectors), sh.cta_group, "yes" if sh.ws else "no", ", ".join(map(str, sh.m)),
                         ns(sh.n), ", ".join(map(str, sh.m_sparse)) if sh.m_sparse else "as dense",
                         ns(sh.n_sparse) if sh.n_sparse else "as dense"])
        return rows

    @cached_property
    def pages(self) -> list[str]:
        """The family's pages besides the instruction pages, in link order."""
        return (["fragments"] if self.has_fragments else []) + (["sparsity"] if self.has_sparsity else []) + \
            (["scale"] if self.scales else []) + (["smem"] if self.smem else []) + \
            (["descriptors"] if self.descriptors else []) + ["errata"]


# ---------------------------------------------------------------------------------------------
# The site


def worked_example(fams: list[FamilyView]) -> dict | None:
    """A lookup through a repeating accumulator map, computed from the model and checked against it."""
    for fam in fams:
        figs = sorted((f for f in fam.figs.frag if f.period and f.role == "d"), key=lambda f: -f.bits)
        if not figs:
            continue
        fig = figs[0]
        period, period_regs = fig.period, fig.period_regs
        assert period and period_regs, "only repeating maps were kept"
        cands = sorted(((v.n, v) for v in fam.variants
                        if fam.figs.frag_of.get((v.id, "d")) is fig and v.n and v.n > 2 * period),
                       key=lambda nv: (nv[1].sparse, abs(nv[0] - 200), nv[1].form != "reg", nv[1].id))
        if not cands:
            continue
        n, v = cands[0]
        fm = v.fragment_map("d")
        row, col = 17 % fm.rows, n - 3
        j, c0 = divmod(col, period)
        drawn = fig.fm
        t, i = (int(x[0]) for x in np.nonzero((drawn.row == row) & (drawn.col == c0)))
        P = drawn.per_reg
        reg0, slot = divmod(i, P)
        reg = reg0 + period_regs * j
        t2, i2 = (int(x[0]) for x in np.nonzero((fm.row == row) & (fm.col == col)))
        assert (t2, i2 // P, i2 % P) == (t, reg, slot), "worked example disagrees with the model"
        return {"fam": fam, "fig": fig, "variant": v, "row": row, "col": col, "j": j, "c0": c0, "thread": t,
                "reg0": reg0, "reg": reg, "suffix": slot_suffix(slot, P)}
    return None


def _first(variants, pred):
    return next((v for v in variants if pred(v)), None)


class Guide:
    """The examples of how-to-read, each taken from the model (None where the model has none)."""

    def __init__(self, spec: Spec, fams: list[FamilyView], example: dict | None):
        vs = spec.variants
        self.example = example
        formed = _first(vs, lambda v: v.form)
        self.forms = None
        if formed:
            inst = [v for v in vs if v.instruction == formed.instruction]
            self.forms = {"instruction": formed.instruction, "sources": form_sources(inst)}
        v = example["variant"] if example else _first(vs, lambda v: v.regs)
        self.registers = " ".join(f"{k}:{n}" for k, n in v.regs.items()) if v else ""
        counts = Counter(q for v in vs for q in qualifiers(v))
        self.qualifiers = sorted(counts, key=lambda q: (-counts[q], q))[:3]
        self.show_c = any(v.ctype and v.ctype != v.dtype for v in vs)
        v = _first(vs, lambda v: v.requirement.until_ptx)
        until = v.requirement.until_ptx if v else None
        self.removed = None
        if v and until:
            self.removed = {"variant": v, "until": until, "first": v.requirement.min_ptx,
                            "last": spec.previous_version(until)}
        v = _first(vs, lambda v: v.batch > 1)
        self.batch = {"variant": v, "threads": v.threads // v.batch} if v else None
        self.observed = sorted({lay.observed_on for v in vs for lay, _, _ in v.fragment_layouts.values()
                                if lay.observed_on})
        self.metadata = next((n for v in vs for n in metadata_operands(v)), None)
        self.periodic = sorted({(f.bits, f.period, f.period_regs) for fam in fams for f in fam.figs.frag
                                if f.period and f.role == "d"}, reverse=True)
        self.smem = any(fam.smem for fam in fams)
        self.descriptor_bits = next((f.bits for fam in fams for f in fam.figs.descriptor), None)


class Site:
    def __init__(self, spec: Spec):
        self.spec = spec
        # a family whose spec states no variant yet (work in progress) gets no pages
        self.status = {row[0]: row for row in numerics_status.status_rows(spec)}
        self.families = [FamilyView(spec, name, self.status) for name in sorted({v.family for v in spec.variants})]
        self.numerics_statuses = sorted(Counter(row[3] for row in self.status.values()).items())
        self.campaigns = [{"campaign": e, "variants": len(e.results),
                           "families": sorted({spec._by_id[i].family for i in e.results if i in spec._by_id})}
                          for e in spec.evidence.campaigns]
        self.example = worked_example(self.families)
        self.guide = Guide(spec, self.families, self.example)
