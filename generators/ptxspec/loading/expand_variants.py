"""Expanding a planned group of an instruction into its variants, one per point of the cross
product of its shapes, types, qualifiers and forms: each variant's opcode, refined requirement,
fragment layouts (each distinct map checked once), operands and sources."""
from __future__ import annotations

import itertools
import os

from ptxspec.core.errors import did_you_mean
from ptxspec.core.expr import ExprError
from ptxspec.loading.context import Context, Origin, int_set
from ptxspec.loading.group_plan import GroupPlan, Refinement
from ptxspec.loading.map_checks import MapChecks
from ptxspec.loading.resolve_tables import Layouts
from ptxspec.model import predicates
from ptxspec.model.isa import Requirement
from ptxspec.model.kinds import KINDS
from ptxspec.model.opcodes import fill_template
from ptxspec.model.operand_kind import OperandContext
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Operand, Variant

#: The most registers a thread has on every target (the CUDA C++ Programming Guide's "maximum number
#: of 32-bit registers per thread", 255 from compute capability 7.0 to 12.x): no operand of one
#: instruction can take more. A limit of the programming model, not a fact of the instructions, and
#: kept out of isa.yaml so that a spec revision without it still loads (`ptxspec diff OLD NEW`).
MAX_REGISTERS = 255


class Excluded:
    """What `variant` gives for a combination a rule excludes (no variant, and no problem)."""


EXCLUDED = Excluded()


def _nowhere(p, r: Refinement, what: str) -> None:
    """A refinement that leaves a variant (or an option of one) valid on no target: the spec would
    state an instruction form that exists nowhere, and it would vanish from every artifact."""
    p.add(r.origin.pos, f"this refinement leaves {what} valid on no target: none of its targets is among those "
          "its instruction or group requires", cause=("nowhere", id(r)))


def option_requirements(plan: GroupPlan, options: dict, refinements, fields: dict, values: dict, req,
                        p=None) -> tuple[dict[str, tuple[tuple[str, Requirement], ...]], str]:
    """Each option value with its requirement: the variant's, narrowed by the refinements that
    name the value (and match the variant's other fields); and the opcode template with the
    option placeholders left in. An option a refinement leaves valid nowhere is reported to `p`."""
    if not options:
        return {}, ""
    out = {}
    for axis, vals in options.items():
        entries = []
        for value in vals:
            vreq = req
            for r in refinements:
                if axis in r.when and (r.ptx is not None or r.targets is not None) and \
                        r.matches({**fields, axis: value}):
                    r.used = True
                    vreq = vreq.refined(r.ptx, r.targets)
                    if p is not None and req.clauses and not vreq.clauses:
                        _nowhere(p, r, f"option .{value}")
            if vreq.clauses:
                entries.append((value, vreq))
        out[axis] = tuple(entries)
    marks = {axis: f"\x00{axis}\x00" for axis in options}
    text = fill_template(plan.template, {**values, **marks})
    for axis, mark in marks.items():
        text = text.replace("." + mark, "{." + axis + "}").replace(mark, "{" + axis + "}")
    return out, text


def note_values(values: dict[str, dict[str, set[str]]], plan: GroupPlan) -> None:
    """The values a group's variants give their opcode fields, as a `when` compares them (text), per
    family (`values`: family -> field -> texts): what a `when` may name (check_when_values)."""
    g, seen = plan.node, values.setdefault(plan.inst.family, {})
    pairs = [*((f, v) for shape in plan.shapes for f, v in zip(("m", "n", "k"), shape)),
             *(("satfinite", v) for v in g.get("satfinite", [False])), *(("op", v) for v in g.get("op", [""])),
             *(("form", v) for v in g.get("forms", [""]))]
    for f, v in pairs:
        seen.setdefault(f, set()).add(predicates.text(v))


class VariantExpander:
    """Adds the variants of planned groups to `spec`."""

    def __init__(self, ctx: Context, spec: Spec, layouts: Layouts, family_docs: dict, target_origins: dict,
                 root: str):
        self.p, self.spec, self.layouts, self.root = ctx.p, spec, layouts, root
        self.family_docs = family_docs  # family name -> its document (for the origins of matrices)
        self.target_origins = target_origins  # target name -> its isa.yaml entry
        self._targets_src: dict[frozenset, tuple[Origin, ...]] = {}
        self.maps = MapChecks(ctx, spec, layouts, family_docs)
        self._shared: dict = {}  # equal parts of variants, made one object (memory, the model cache)
        #: groups whose expansion stopped at a problem: reported here, or already, once, for a layout an earlier
        #: group shares (adding nothing to the problems the resolver counts: their refinements then matched
        #: nothing, and that echo was reported too)
        self.stopped = 0
        self.values: dict[str, dict[str, set[str]]] = {}  # family -> opcode field -> the values its groups give

    def shared(self, key, make):
        """One object for every variant whose part is `key`: made by make() the first time."""
        hit = self._shared.get(key)
        if hit is None:
            hit = self._shared[key] = make()
        return hit

    def expand(self, plan: GroupPlan, refinements: list[Refinement]) -> None:
        g = plan.node
        note_values(self.values, plan)
        made = excluded = 0
        for (m, n, k), types, sat, op, form, qv in itertools.product(
                plan.shapes, plan.combos, g.get("satfinite", [False]), g.get("op", [""]), g.get("forms", [""]),
                itertools.product(*plan.axes)):
            var = self.variant(plan, refinements, (m, n, k), types, sat, op, form, dict(qv))
            if isinstance(var, Excluded):
                excluded += 1
                continue
            if var is None:
                self.stopped += 1
                return
            self.add(var)
            made += 1
        if excluded and not made:
            self.p.add(plan.pos, f"the rules (refinements with `exclude`) exclude every variant of group "
                       f"{g['name']!r}: drop the group, or the rule")
        for mat in sorted(set(plan.fragments) - plan.fragments_taken if made else ()):
            self.p.add(plan.fragments[mat].node.pos, f"group {g['name']!r} maps matrix {mat!r}, which no operand of "
                       "its variants takes")

    def variant(self, plan: GroupPlan, refinements, shape, types, sat, op, form, qdict) -> Variant | Excluded | None:
        s, g = self.spec, plan.node
        (m, n, k), (a, b, c, dd) = shape, types
        axes = s.families[plan.inst.family].axes  # an axis the variant's opcode lacks is ''
        fields = {**dict.fromkeys((x for x in axes if not axes[x].option), ""),
                  **dict(m=m, n=n, k=k, atype=a, btype=b, ctype=c, dtype=dd, satfinite=sat, op=op, form=form), **qdict}
        values = {"m": m, "n": n, "k": k, "atype": a, "btype": b, "ctype": c, "dtype": dd,
                  "satfinite": ".satfinite" if sat else "", "op": f".{op}" if op else "", **qdict}
        ptx = fill_template(plan.template, values)
        rules = [r for r in refinements if r.matches(fields)]
        for r in rules:
            r.used = True
        if any(r.exclude for r in rules):
            return EXCLUDED
        req, order, matched = plan.requirement, "", []
        options, ptxas_only, set_by = dict(plan.options), g.get("ptxas_only", ""), {}
        for r in rules:
            if r.ptx is not None or r.targets is not None:
                req = req.refined(r.ptx, r.targets)
                if plan.requirement.clauses and not req.clauses:
                    _nowhere(self.p, r, ptx)
                    return None
            order = r.metadata_order or order
            matched.append(r.origin)
            for what, value in [*((f"options.{a}", v) for a, v in r.options.items()),
                                *((("ptxas_only", r.ptxas_only),) if r.ptxas_only else ())]:
                first = set_by.setdefault(what, (r, value))
                if first[1] != value:
                    self.p.add(r.origin.pos, f"two rules set {what} of {ptx} differently: this one and the one at "
                               f"{first[0].origin.pos}", cause=("contradict", id(r), what))
                    return None
            options.update(r.options)
            ptxas_only = r.ptxas_only or ptxas_only
        for r in rules:  # values the rules take away, from whatever the group or a rule gave
            for axis, gone in r.without.items():
                options[axis] = [x for x in options.get(axis, []) if x not in gone]
        required, option_template = option_requirements(plan, options, refinements, fields, values, req, self.p)
        nodes = [o for o in plan.signature if (not o.get("forms") or form in o["forms"])
                 and ("when" not in o or predicates.matches(o["when"], fields))]
        # a group's fragments map the matrices its operands take: those this variant's operands
        # take (a group of .pack and plain loads gives both; each variant maps its own)
        taken = {o.get("matrix") for o in nodes} & set(plan.fragments)
        plan.fragments_taken.update(taken)
        layouts = self.fragment_layouts(plan, values, form, shape, types, taken)
        if layouts is None:
            return None
        fl, regs_only = layouts
        if plan.sparsity is not None and not self.maps.check_sparsity(plan.sparsity, plan.threads, m, n, k):
            return None
        if not self.maps.check_scale_maps(plan, m, n, k):
            return None
        by_field = {"atype": a, "btype": b, "ctype": c, "dtype": dd}
        mats = s.families[plan.inst.family].matrices
        ctx = OperandContext(s.types, {mat: by_field[dims.type_field] for mat, dims in mats.items()}, fl, regs_only,
                             plan.sparsity)
        names = [o["name"] for o in nodes]
        if len(set(names)) < len(names):
            twin = next(n for i, n in enumerate(names) if n in names[:i])
            self.p.add(g.at("signature"), f"{ptx}{f' ({form})' if form else ''} takes two operands {twin!r}: their "
                       "`when`s overlap", cause=("twins", id(plan), twin))
            return None
        missing = s.meanings[plan.inst.semantics].needs(nodes, plan.sparsity is not None)
        if missing:  # an operand's `when` left out what the semantics needs
            self.p.add(g.at("signature"), f"{ptx}{f' ({form})' if form else ''} lacks what {plan.inst.semantics} "
                       f"needs: {'; '.join(missing)}", cause=("needs", id(plan), tuple(missing)))
            return None
        made = tuple(self.operand(o, ctx) for o in nodes)
        made = tuple(self.shared(o, lambda o=o: o) for o in made)
        operands = self.shared(made, lambda: made)
        for o, node in zip(operands, nodes):  # a register count no thread has would size every artifact
            if not 0 <= o.regs <= MAX_REGISTERS:
                self.p.add(node.at("regs") if "regs" in node else node.pos,
                           f"operand {o.name!r} takes {o.regs} registers (first in {ptx}); a thread has at most "
                           f"{MAX_REGISTERS}", cause=("regs", o.name, o.regs))
                return None
        req = self.shared(req, lambda: req)
        sources = self.shared(("sources", id(plan), tuple(id(r) for r in matched), req.targets,
                               tuple((mat, lay.name) for mat, (lay, _, _) in fl.items()),
                               tuple(o.scale_map for o in operands if o.scale_map), tuple(id(o) for o in nodes)),
                              lambda: self.sources(plan, matched, req, fl, operands, nodes))
        # the qualifiers the group lists (a value of the empty string where the opcode lacks it), in the
        # family's axis order
        rank = {q: i for i, q in enumerate(s.families[plan.inst.family].axes)}
        qdict = {q: qdict[q] for q in sorted(qdict, key=lambda q: rank.get(q, len(rank)))}
        qdict = self.shared(("qualifiers", *qdict.items()), lambda: qdict)
        fl = self.shared(("layouts", *((mat, id(lay), bits, shp) for mat, (lay, bits, shp) in fl.items())), lambda: fl)
        required = self.shared(("options", option_template, *((a, vals) for a, vals in required.items())),
                               lambda: required)
        return Variant(
            id=f"{ptx}:{form}" if form else ptx, family=plan.inst.family, instruction=plan.inst.name, ptx=ptx,
            form=form, m=m, n=n, k=k, atype=a, btype=b, ctype=c, dtype=dd, satfinite=sat, op=op,
            sparse=plan.sparsity is not None, requirement=req, operands=operands, group=g["name"], pos=plan.pos,
            threads=plan.threads, spec=s, qualifiers=qdict, fragment_layouts=fl, sparsity=plan.sparsity,
            metadata_order=order if plan.sparsity is not None else "", batch=g.get("batch", 1),
            ptxas_only=ptxas_only, hardware_note=" ".join(g.get("hardware_note", "").split()),
            options=required, option_template=option_template, sources=sources)

    def sources(self, plan: GroupPlan, matched, req, fl, operands, nodes) -> dict[str, tuple[Origin, ...]]:
        """The YAML nodes that determined a variant's fields (Variant.sources); `rules` the
        refinements that matched it, `qualifier.<axis>`, `option.<axis>` and `operand.<name>` the
        nodes that state each one (`ptxspec explain` lists them)."""
        g = plan.node
        sources = dict(plan.sources)
        sources["requirement"] = plan.sources["requirement"] + tuple(matched) + self.targets_source(req.targets)
        sources["rules"] = tuple(matched)
        for key in ("qualifiers", "options"):
            for axis in g.get(key, {}):
                sources[f"{key[:-1]}.{axis}"] = (Origin(g[key], axis),)
        for node in nodes:
            sources[f"operand.{node['name']}"] = (Origin(node),)
        for mat, (lay, _, _) in fl.items():
            pair = (Origin(g["fragments"], mat), self.layouts.origins[lay.name])
            sources[f"fragment.{mat}"] = self.shared(("origin", id(g["fragments"]), mat, lay.name), lambda: pair)  # noqa: B023
        for o in operands:
            if o.scale_map:
                sources[f"scale.{o.name}"] = (self.layouts.origins[o.scale_map],)
        return sources

    def targets_source(self, targets: frozenset[str]) -> tuple[Origin, ...]:
        hit = self._targets_src.get(targets)
        if hit is None:
            hit = self._targets_src[targets] = tuple(self.target_origins[t] for t in self.spec.sort_targets(targets))
        return hit

    def fragment_layouts(self, plan: GroupPlan, values, form, shape, types, taken):
        """({matrix: (layout, element bits, shape)}, {matrix: register count} for matrices without
        a map), or None after reporting a problem."""
        s = self.spec
        (m, n, k), (a, b, c, dd) = shape, types
        bits = {f"{x}bits": s.types[t].bits for x, t in zip("abcd", types) if t}
        shape_env = dict(M=m or 0, N=n or 0, K=k or 0)
        fl, regs_only = {}, {}
        for mat, fs in plan.fragments.items():
            if mat not in taken:
                continue
            if fs.layout is None:  # the register count is known, the map is not (see the group)
                assert fs.regs is not None  # the resolver gives a fragment a layout, a count or both
                try:
                    regs_only[mat] = int(fs.regs(**shape_env, **{x: bits.get(x, 0) for x in
                                                                  ("abits", "bbits", "cbits", "dbits")}))
                except ExprError as exc:
                    self.p.add(fs.node.at("regs"), f"regs for m{m}n{n}k{k}: {exc}")
                    return None
                if not 0 <= regs_only[mat] <= MAX_REGISTERS:
                    self.p.add(fs.node.at("regs"), f"regs for m{m}n{n}k{k} is {regs_only[mat]}; a thread has at most "
                               f"{MAX_REGISTERS} registers", cause=("regs", mat, regs_only[mat]))
                    return None
                continue
            lay_name = fill_template(fs.layout, {**values, "form": form, **bits})  # {abits}: A's element width
            lay = s.layouts.get(lay_name)
            if lay is None:
                if lay_name not in self.layouts.broken:  # already reported where it is defined
                    self.p.add(fs.node.at("layout"), f"unknown layout {lay_name!r}{did_you_mean(lay_name, s.layouts)}")
                return None
            type_field = s.families[plan.inst.family].matrices[mat].type_field
            etype = {"atype": a, "btype": b, "ctype": c, "dtype": dd}[type_field]
            if not etype:
                self.p.add(fs.node.at("layout"), f"group {plan.node['name']!r} maps a fragment of {mat.upper()} but "
                           f"its types give {mat.upper()} no type ({type_field})")
                return None
            ebits = s.types[etype].bits
            if fs.containers:  # each element in its type's container (e2m1 in 8 bits, say)
                ebits = s.types[etype].container_bits or ebits
            batch = plan.node.get("batch", 1)
            # the group's own regs formula is part of what is checked: two groups sharing a layout
            # each state theirs (fuzz seed 23, tree 8913: a second group's '2**62' went unread)
            key = (lay.name, ebits, (m, n, k), mat, plan.sparsity is not None, batch, fs.node.at("regs"))
            if not self.maps.fragment(key, plan, fs, lay, ebits, shape, {**bits, f"{mat}bits": ebits}):
                return None
            fl[mat] = (lay, ebits, (m or 0, n or 0, k or 0))
        return fl, regs_only

    def operand(self, o, ctx: OperandContext) -> Operand:
        r = KINDS[o["kind"]].resolve(o, ctx)
        parts = tuple((name, tuple(int_set(vals))) for name, vals in o.get("parts", {}).items())
        return Operand(name=o["name"], kind=o["kind"], io=o.get("io", "in"), matrix=o.get("matrix"), values=r.values,
                       min_value=r.min_value, regs=r.regs, reg_type=r.reg_type, layout=r.layout,
                       element_type=r.element_type, parts=parts, optional=bool(o.get("optional", False)),
                       observed_on=r.observed_on, default=o.get("default"), vector=bool(o.get("vector", True)),
                       vectors=int(o.get("vectors", 0)), scale_map=o.get("map"))

    def add(self, var: Variant) -> None:
        s = self.spec
        if var.id in s._by_id:
            other = s._by_id[var.id]
            where = f"line {other.pos.line}" if other.pos.path == var.pos.path else \
                f"{os.path.relpath(other.pos.path, self.root or '.')}:{other.pos.line}"
            self.p.add(var.pos, f"variant {var.id} defined twice (also group {other.group!r} at {where})",
                       cause=("defined twice", other.group, other.pos))
            return
        s._by_id[var.id] = var
        s._by_key[(var.ptx, var.form)] = var
        s.variants.append(var)
