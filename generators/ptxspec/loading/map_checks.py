"""The maps of a group checked once each, whatever number of variants use them: a fragment
layout against its matrix's size, its register count and its bijection; a sparsity's metadata;
every scale map for every legal selector. Each failure is one located problem, reported once."""
from __future__ import annotations

from ptxspec.core.expr import ExprError
from ptxspec.loading.context import Context, int_set
from ptxspec.loading.group_plan import FragmentSpec, GroupPlan
from ptxspec.loading.resolve_tables import Layouts
from ptxspec.model.fragments import FragmentLayout
from ptxspec.model.sparsity import Sparsity
from ptxspec.model.spec import Spec


class MapChecks:
    """The checks, with what they found: `checked` maps a map's key to whether it passed."""

    def __init__(self, ctx: Context, spec: Spec, layouts: Layouts, family_docs: dict):
        self.p, self.spec, self.layouts, self.family_docs = ctx.p, spec, layouts, family_docs
        self._checked: dict[tuple, bool] = {}  # maps already checked, and whether they passed

    def fragment(self, key, plan: GroupPlan, fs: FragmentSpec, lay: FragmentLayout, ebits, shape, bits) -> bool:
        """Whether the fragment map of `key` passes (checked the first time it is asked for)."""
        if key not in self._checked:
            self._checked[key] = self.check_fragment(plan, fs, lay, ebits, shape, bits)
        return self._checked[key]

    def check_fragment(self, plan: GroupPlan, fs: FragmentSpec, lay: FragmentLayout, ebits, shape, bits) -> bool:
        m, n, k = shape
        mat, g = fs.matrix, plan.node
        try:
            fmap = lay.evaluate(plan.threads, ebits, m or 0, n or 0, k or 0)
        except ExprError as exc:
            if lay.name not in self.layouts.broken:  # one report per layout, not per shape using it
                self.layouts.broken.add(lay.name)
                self.p.add(lay.pos, f"layout {lay.name} for m{m}n{n}k{k}: {exc}")
            return False
        try:  # no `regs`: the layout says how many (its elements, at their width)
            regs = fmap.regs if fs.regs is None else int(fs.regs(M=m or 0, N=n or 0, K=k or 0, **{
                b: bits.get(b, 0) for b in ("abits", "bbits", "cbits", "dbits")}))
        except ExprError as exc:
            self.p.add(fs.node.at("regs"), f"regs for m{m}n{n}k{k}: {exc}")
            return False
        batch = g.get("batch", 1)
        dims = self.spec.families[plan.inst.family].matrices[mat]
        try:
            want_rows, want_cols = dims.size(m or 0, n or 0, k or 0, batch, plan.sparsity is not None)
        except ExprError as exc:
            self.p.add(self.family_docs[plan.inst.family]["matrices"].at(mat), f"matrix {mat} for m{m}n{n}k{k}: {exc}")
            return False
        if (fmap.rows, fmap.cols) != (want_rows, want_cols):
            self.p.add(fs.node.at("layout"), f"layout {lay.name} covers a {fmap.rows}x{fmap.cols} matrix but "
                       f"{mat.upper()} of m{m}n{n}k{k} is {want_rows}x{want_cols}"
                       + (" (packed sparse A)" if mat == "a" and plan.sparsity else "")
                       + (f" ({batch} stacked products)" if batch > 1 else ""))
            return False
        problem = fmap.bijection_problem()
        if problem:
            self.p.add(lay.pos, f"layout {lay.name} is not a bijection for m{m}n{n}k{k}: {problem}")
            return False
        if regs != fmap.regs:
            self.p.add(fs.node.at("regs"), f"regs says {regs} registers for {mat.upper()} of m{m}n{n}k{k} in group "
                       f"{g['name']!r}, but {fmap.elements} elements of {ebits} bits fill {fmap.regs}")
            return False
        return True

    def check_sparsity(self, sparsity: Sparsity, threads: int, m, n, k) -> bool:
        key = ("sp", sparsity.name, m, n, k)
        if key not in self._checked:
            try:
                problem = sparsity.bijection_problem(threads, m, n, k)
            except ExprError as exc:
                problem = str(exc)
            if problem:
                self.p.add(sparsity.pos, f"sparsity {sparsity.name} for m{m}n{n}k{k}: {problem}")
            self._checked[key] = not problem
        return self._checked[key]

    def check_scale_maps(self, plan: GroupPlan, m, n, k) -> bool:
        """Every scale map, for every legal selector, holds each scale factor in exactly one byte."""
        for o in plan.signature:
            if o["kind"] != "scale" or "map" not in o:
                continue
            sel = next(s for s in plan.signature if s["kind"] == "scale_selector" and s.get("matrix") == o.get("matrix"))
            parts = {name: tuple(int_set(vals)) for name, vals in sel["parts"].items()}
            key = ("scale", o["map"], o["vectors"], m, n, k, tuple(sorted(parts.items())))
            if key not in self._checked:
                sm = self.layouts.scale_maps[o["map"]]
                try:
                    problem = sm.bijection_problem(plan.threads, o["vectors"], parts, m or 0, n or 0, k or 0)
                except ExprError as exc:
                    problem = str(exc)
                if problem:
                    per = "row" if sm.matrix == "a" else "column"
                    self.p.add(sm.pos, f"scale map {sm.name} with {o['vectors']} per {per} for m{m}n{n}k{k}: {problem}")
                self._checked[key] = not problem
            if not self._checked[key]:
                return False
        return True
