"""The docs' view model: plain data computed from the model, one object per page and section.

The templates under `ptxspec/templates/docs/` hold every sentence; this module only computes what
they state: counts, lists, tables of data, which figure draws what. Nothing here names a family or
an instruction.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cached_property

from ptxspec.core.lazy import np

from ptxspec.emit.docs import collect
from ptxspec.emit.docs import figures as F
from ptxspec.emit.docs.collect import metadata_operands
from ptxspec.emit.docs.group_view import GroupView, form_sources, selector_operands
from ptxspec.emit.docs.tables import Table, page_name, ptx_target_table, qualifiers, requirement_table
from ptxspec.emit.svg import slot_suffix
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant
from ptxspec.semantics import numerics_status

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
        self.figs = collect.collect(spec, name, self.variants)
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
