"""Resolving instruction files: each group of an instruction is planned once (its requirement,
opcode template, qualifier axes, signature, shapes, types, sparsity and fragment specs, checked)
and then expanded into its variants, one per point of the cross product."""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field

from ..errors import Pos
from ..expr import ExprError, Formula
from ..fragments import FragmentLayout, Sparsity
from ..isa import Requirement, Version
from ..kinds import KINDS, OperandContext
from ..model import OPCODE_FIELDS, Family, Instruction, Operand, Spec, Variant
from ..semantics import SEMANTICS
from ..source import Document, did_you_mean
from .base import Context, Origin, int_set
from .tables import Layouts

REGS_NAMES = frozenset({"M", "N", "K", "abits", "bbits", "cbits", "dbits"})
_PLACEHOLDER = re.compile(r"\{(\.?)(\w+)\}")


def placeholder_names(template: str) -> set[str]:
    return {m.group(2) for m in _PLACEHOLDER.finditer(template)}


def fill_template(template: str, values: dict) -> str:
    """`{name}` -> value; `{.name}` -> "." + value, or nothing when the value is empty."""
    def sub(m):
        value = values.get(m.group(2), "")
        value = "" if value is None or value is False else str(value)
        return f".{value}" if m.group(1) and value else ("" if m.group(1) else value)
    return _PLACEHOLDER.sub(sub, template)


@dataclass
class Refinement:
    when: dict
    ptx: Version | None
    targets: frozenset[str] | None
    origin: Origin
    metadata_order: str = ""
    used: bool = False

    def matches(self, fields: dict) -> bool:
        return all(str(fields.get(key)) == str(val) for key, val in self.when.items())


@dataclass
class FragmentSpec:
    matrix: str
    layout: str | None  # layout name template; None: register count only
    regs: Formula
    node: object  # the group's fragments entry
    containers: bool


@dataclass
class GroupPlan:
    """Everything about a group that is the same for each of its variants."""
    inst: Instruction
    threads: int
    node: object  # the group's YAML mapping
    pos: Pos
    requirement: Requirement
    template: str
    axes: list[list[tuple[str, str]]]
    signature: list
    shapes: list[tuple]
    combos: list[tuple[str, str, str, str]]
    sparsity: Sparsity | None
    fragments: dict[str, FragmentSpec]
    sources: dict[str, tuple[Origin, ...]] = field(default_factory=dict)


class InstructionResolver:
    """Expands the instruction files into variants, adding them to `spec`."""

    def __init__(self, ctx: Context, spec: Spec, layouts: Layouts, family_docs: dict, target_origins: dict,
                 root: str):
        self.ctx, self.p, self.spec, self.layouts, self.root = ctx, ctx.p, spec, layouts, root
        self.family_docs = family_docs  # family name -> its document (for the origins of n_sets)
        self.target_origins = target_origins  # target name -> its isa.yaml entry
        self._targets_src: dict[frozenset, tuple[Origin, ...]] = {}
        self.failed: set[str] = set()  # instructions with a problem: errata about them are not checked
        self._checked: dict[tuple, bool] = {}  # maps already checked, and whether they passed

    def resolve(self, doc: Document) -> None:
        d, s = doc.data, self.spec
        if not self.ctx.known(d, "family", s.families, "family"):
            return
        if d["name"] in s.instructions:
            self.p.add(d.at("name"), f"instruction {d['name']} defined twice (also {s.instructions[d['name']].path})")
            return
        fam = s.families[d["family"]]
        base = self.ctx.requirement(d["requires"], s.ptx_versions, s.targets, stop_on_error=False)
        if d["semantics"] not in SEMANTICS:
            self.p.add(d.at("semantics"), f"unknown semantics {d['semantics']!r}{did_you_mean(d['semantics'], SEMANTICS)}"
                       f" (known: {', '.join(SEMANTICS)})")
            return
        self.check_template(fam, d, "opcode")
        for g in d["groups"]:  # a group may write its own opcode template
            if "opcode" in g:
                self.check_template(fam, g, "opcode")
        inst = Instruction(name=d["name"], family=d["family"], description=d["description"], manual=d.get("manual", ""),
                           opcode=d["opcode"], rules=list(d.get("rules", [])), requirement=base, pos=d.pos,
                           path=doc.path, semantics=d["semantics"])
        s.instructions[inst.name] = inst
        refinements = [self.refinement(fam, r, Origin(d["refinements"], i))
                       for i, r in enumerate(d.get("refinements", []))]
        before = len(self.p.items)
        for gi, g in enumerate(d["groups"]):
            plan = self.plan(inst, d, g, d["groups"].at(gi), base)
            if plan is not None:
                self.expand(plan, refinements)
        if len(self.p.items) != before:
            self.failed.add(inst.name)
        else:  # a failed group may be why a refinement matches nothing
            for r in refinements:
                if not r.used:
                    self.p.add(r.origin.pos, f"refinement matches no variant: {dict(r.when)}")

    def refinement(self, fam: Family, r, origin: Origin) -> Refinement:
        s, req = self.spec, r.get("requires", {})
        fields = OPCODE_FIELDS + ("form",) + tuple(fam.axes)
        for key in r["when"]:
            if key not in fields:
                self.p.add(r["when"].at(key), f"{key!r} is neither an opcode field nor an axis of family {fam.name}"
                           f"{did_you_mean(key, fields)}")
        v = self.ctx.version(req, "ptx", s.ptx_versions) if "ptx" in req else None
        ts = self.ctx.target_set(req, "targets", s.targets) if "targets" in req else None
        return Refinement(r["when"], v, ts, origin, r.get("metadata_order", ""))

    def check_template(self, fam: Family, data, key) -> None:
        placeholders = placeholder_names(data[key])
        leftover = _PLACEHOLDER.sub("", data[key])
        if "{" in leftover or "}" in leftover:
            self.p.add(data.at(key), "malformed placeholder in opcode template (use {name} or {.name})")
        known = OPCODE_FIELDS + tuple(fam.axes)
        for ph in sorted(placeholders - set(known)):
            self.p.add(data.at(key), f"unknown opcode placeholder {{{ph}}}{did_you_mean(ph, known)}"
                       + ("" if ph in self.spec.axes else f" (the axes of family {fam.name}: "
                          f"{', '.join(fam.axes) or 'none'})"))

    # -- planning a group ------------------------------------------------------------------
    def plan(self, inst: Instruction, d, g, gpos: Pos, base: Requirement) -> GroupPlan | None:
        s = self.spec
        fam = s.families[inst.family]
        req_origin = Origin(d, "requires")
        if "requires" in g:  # a group may state its own requirement instead of the instruction's
            base = self.ctx.requirement(g["requires"], s.ptx_versions, s.targets, stop_on_error=True)
            if base is None:
                return None
            req_origin = Origin(g, "requires")
        template_origin = Origin(g, "opcode") if "opcode" in g else Origin(d, "opcode")
        template = template_origin.value
        quals = g.get("qualifiers", {})
        if not self.check_axes(fam, quals, template) or not self.check_forms(fam, g):
            return None
        signature = self.signature(fam, d, g)
        if signature is None:
            return None
        shapes = self.shapes(fam, g)
        if shapes is None:
            return None
        combos = self.type_combos(g)
        if combos is None:
            return None
        sparsity = None
        if "sparsity" in g:
            sparsity = s.sparsities.get(g["sparsity"])
            if sparsity is None:
                self.p.add(g.at("sparsity"), f"unknown sparsity {g['sparsity']!r}{did_you_mean(g['sparsity'], s.sparsities)}")
                return None
        if "fragments" in g and ("shape" not in g or "types" not in g):
            self.p.add(gpos, f"group {g['name']!r} has fragments but no "
                       f"{'shape' if 'shape' not in g else 'types'}: fragment maps need both")
            return None
        if sparsity is not None and "shape" not in g:
            self.p.add(gpos, f"group {g['name']!r} has a sparsity but no shape")
            return None
        fragments = {}
        for mat, fs in g.get("fragments", {}).items():
            if mat not in fam.matrices:
                self.p.add(g["fragments"].at(mat), f"family {fam.name} has no matrix {mat!r}"
                           f"{did_you_mean(mat, fam.matrices)} (its matrices: {', '.join(fam.matrices) or 'none'})")
                return None
            regs = self.ctx.formula(fs, "regs", REGS_NAMES, gpos)
            if regs is None:
                return None
            fragments[mat] = FragmentSpec(mat, fs.get("layout"), regs, fs, bool(fs.get("containers")))
        if not self.check_signature(g, signature, fragments, sparsity) or \
                not self.check_semantics(inst, g, signature, sparsity):
            return None
        sources = self.group_sources(fam, d, g, template_origin, req_origin, sparsity)
        return GroupPlan(inst=inst, threads=fam.threads, node=g, pos=gpos, requirement=base, template=template,
                         axes=[[(q, v) for v in vals] for q, vals in quals.items()], signature=signature,
                         shapes=shapes, combos=combos, sparsity=sparsity, fragments=fragments, sources=sources)

    def signature(self, fam: Family, d, g):
        sig_name = g["signature"]
        if sig_name not in d["signatures"]:
            self.p.add(g.at("signature"), f"unknown signature {sig_name!r}{did_you_mean(sig_name, d['signatures'])}")
            return None
        signature = d["signatures"][sig_name]
        names = [o["name"] for o in signature]
        ok = True
        for i, o in enumerate(signature):
            if o["name"] in names[:i]:
                self.p.add(signature.at(i), f"operand {o['name']!r} listed twice")
            if "matrix" in o and o["matrix"] not in fam.matrices:
                self.p.add(o.at("matrix"), f"family {fam.name} has no matrix {o['matrix']!r}"
                           f"{did_you_mean(o['matrix'], fam.matrices)} (its matrices: {', '.join(fam.matrices) or 'none'})")
                ok = False
            for j, form in enumerate(o.get("forms", [])):
                if form not in fam.forms:
                    self.p.add(o["forms"].at(j), f"family {fam.name} has no operand form {form!r}"
                               f"{did_you_mean(form, fam.forms)} (its forms: {', '.join(fam.forms) or 'none'})")
                    ok = False
        return signature if ok else None

    def check_axes(self, fam: Family, quals, template: str) -> bool:
        for q, values in quals.items():
            axis = fam.axes.get(q)
            if axis is None:
                self.p.add(quals.at(q), f"family {fam.name} has no qualifier axis {q!r}{did_you_mean(q, fam.axes)}"
                           f" (its axes: {', '.join(fam.axes) or 'none'})")
                return False
            for j, value in enumerate(values):
                if value not in axis.values:
                    self.p.add(values.at(j), f"{value!r} is not a value of axis {q!r} (its values: "
                               f"{', '.join(repr(x) for x in axis.values)}){did_you_mean(value, axis.values)}")
                    return False
            if q not in placeholder_names(template):
                self.p.add(quals.at(q), f"qualifier {q!r} does not appear in the opcode template {template!r}")
                return False
        return True

    def check_forms(self, fam: Family, g) -> bool:
        for j, form in enumerate(g.get("forms", [])):
            if form not in fam.forms:
                self.p.add(g["forms"].at(j), f"family {fam.name} has no operand form {form!r}"
                           f"{did_you_mean(form, fam.forms)} (its forms: {', '.join(fam.forms) or 'none'})")
                return False
        return True

    def check_semantics(self, inst: Instruction, g, signature, sparsity) -> bool:
        """Every form's operands have what the instruction's semantics needs."""
        for form in g.get("forms", [""]):
            ops = [o for o in signature if not o.get("forms") or form in o["forms"]]
            missing = SEMANTICS[inst.semantics].needs(ops, sparsity is not None)
            if missing:
                where = f" in form {form!r}" if form else ""
                self.p.add(g.at("signature"), f"signature {g['signature']!r}{where} lacks what {inst.semantics} "
                           f"needs: {'; '.join(missing)}")
                return False
        return True

    def shapes(self, fam, g):
        shape = g.get("shape")
        if shape is None:
            return [(None, None, None)]
        n_spec = shape["n"]
        if isinstance(n_spec, str):
            if n_spec not in fam.n_sets:
                self.p.add(shape.at("n"), f"unknown n_set {n_spec!r}{did_you_mean(n_spec, fam.n_sets)}")
                return None
            ns = fam.n_sets[n_spec]
        else:
            ns = list(n_spec)
        return [(m, n, k) for m in shape["m"] for n in ns for k in shape["k"]]

    def type_combos(self, g):
        types = g.get("types")
        if types is None:
            return [("", "", "", "")]
        ok = True
        for key in ("atype", "btype", "ctype", "dtype"):
            for j, t in enumerate(types.get(key, [])):
                if t not in self.spec.types:
                    self.p.add(types[key].at(j), f"unknown type {t!r}{did_you_mean(t, self.spec.types)}")
                    ok = False
        if not ok:
            return None
        combos = [(a, b, c, dd) for a in types.get("atype", [""]) for b in types.get("btype", [""])
                  for dd in types.get("dtype", [""]) for c in types.get("ctype", [None])]
        # C has the type of D unless given, for the multiply-accumulates (they name atype)
        return [(a, b, c if c is not None else (dd if a else ""), dd) for a, b, c, dd in combos]

    def check_signature(self, g, signature, fragments, sparsity) -> bool:
        forms = set(g.get("forms", [""]))
        for o in signature:
            if o["kind"] == "fragment" and o.get("matrix") not in fragments:
                if set(o.get("forms", forms)) & forms:
                    self.p.add(g.at("signature"), f"operand {o['name']!r} is a fragment of matrix "
                               f"{o.get('matrix')!r} but group {g['name']!r} gives no fragment layout for it")
                    return False
            if KINDS[o["kind"]].needs_sparsity and sparsity is None:
                self.p.add(g.at("signature"), f"operand {o['name']!r} needs the group to name a sparsity")
                return False
        return True

    def group_sources(self, fam, d, g, template_origin, req_origin, sparsity) -> dict[str, tuple[Origin, ...]]:
        shape = g.get("shape")
        shape_src: tuple[Origin, ...] = (Origin(g, "shape"),) if shape is not None else ()
        if shape is not None and isinstance(shape["n"], str) and shape["n"] in fam.n_sets:
            shape_src += (Origin(self.family_docs[fam.name]["n_sets"], shape["n"]),)
        sources = {
            "opcode": (template_origin,),
            "shape": shape_src,
            "types": (Origin(g, "types"),) if "types" in g else (),
            "qualifiers": tuple(Origin(g, k) for k in ("qualifiers", "satfinite", "op", "forms") if k in g),
            "requirement": (req_origin,),
            "operands": (Origin(d["signatures"], g["signature"]),),
        }
        if sparsity is not None:
            sources["sparsity"] = (Origin(g, "sparsity"), self.layouts.origins[sparsity.name])
        return sources

    # -- expanding a group into variants -----------------------------------------------------
    def expand(self, plan: GroupPlan, refinements: list[Refinement]) -> None:
        g = plan.node
        for (m, n, k), types, sat, op, form, qv in itertools.product(
                plan.shapes, plan.combos, g.get("satfinite", [False]), g.get("op", [""]), g.get("forms", [""]),
                itertools.product(*plan.axes)):
            var = self.variant(plan, refinements, (m, n, k), types, sat, op, form, dict(qv))
            if var is None:
                return
            self.add(var)

    def variant(self, plan: GroupPlan, refinements, shape, types, sat, op, form, qdict) -> Variant | None:
        s, g = self.spec, plan.node
        (m, n, k), (a, b, c, dd) = shape, types
        fields = dict(m=m, n=n, k=k, atype=a, btype=b, ctype=c, dtype=dd, satfinite=sat, op=op, form=form, **qdict)
        values = {"m": m, "n": n, "k": k, "atype": a, "btype": b, "ctype": c, "dtype": dd,
                  "satfinite": ".satfinite" if sat else "", "op": f".{op}" if op else "", **qdict}
        ptx = fill_template(plan.template, values)
        req, order, matched = plan.requirement, "", []
        for r in refinements:
            if r.matches(fields):
                r.used = True
                req = req.refined(r.ptx, r.targets)
                order = r.metadata_order or order
                matched.append(r.origin)
        layouts = self.fragment_layouts(plan, values, form, shape, types)
        if layouts is None:
            return None
        fl, regs_only = layouts
        if plan.sparsity is not None and not self.check_sparsity(plan.sparsity, plan.threads, m, n, k):
            return None
        ctx = OperandContext(s.types, {"a": a, "b": b, "c": c, "d": dd}, fl, regs_only, plan.sparsity)
        operands = tuple(self.operand(o, ctx) for o in plan.signature if not o.get("forms") or form in o["forms"])
        sources = dict(plan.sources)
        sources["requirement"] = plan.sources["requirement"] + tuple(matched) + self.targets_source(req.targets)
        for mat, (lay, _, _) in fl.items():
            sources[f"fragment.{mat}"] = (Origin(g["fragments"], mat), self.layouts.origins[lay.name])
        return Variant(
            id=f"{ptx}:{form}" if form else ptx, family=plan.inst.family, instruction=plan.inst.name, ptx=ptx,
            form=form, m=m, n=n, k=k, atype=a, btype=b, ctype=c, dtype=dd, satfinite=sat, op=op,
            sparse=plan.sparsity is not None, requirement=req, operands=operands, group=g["name"], pos=plan.pos,
            threads=plan.threads, spec=s, qualifiers=qdict, fragment_layouts=fl, sparsity=plan.sparsity,
            metadata_order=order if plan.sparsity is not None else "", batch=g.get("batch", 1),
            ptxas_only=g.get("ptxas_only", ""), hardware_note=" ".join(g.get("hardware_note", "").split()),
            sources=sources)

    def targets_source(self, targets: frozenset[str]) -> tuple[Origin, ...]:
        hit = self._targets_src.get(targets)
        if hit is None:
            hit = self._targets_src[targets] = tuple(self.target_origins[t] for t in self.spec.sort_targets(targets))
        return hit

    def fragment_layouts(self, plan: GroupPlan, values, form, shape, types):
        """({matrix: (layout, element bits, shape)}, {matrix: register count} for matrices without
        a map), or None after reporting a problem."""
        s = self.spec
        (m, n, k), (a, b, c, dd) = shape, types
        bits = {f"{x}bits": s.types[t].bits for x, t in zip("abcd", types) if t}
        shape_env = dict(M=m or 0, N=n or 0, K=k or 0)
        fl, regs_only = {}, {}
        for mat, fs in plan.fragments.items():
            if fs.layout is None:  # the register count is known, the map is not (see the group)
                try:
                    regs_only[mat] = int(fs.regs(**shape_env, **{x: bits.get(x, 0) for x in
                                                                  ("abits", "bbits", "cbits", "dbits")}))
                except ExprError as exc:
                    self.p.add(fs.node.at("regs"), f"regs for m{m}n{n}k{k}: {exc}")
                    return None
                continue
            lay_name = fill_template(fs.layout, {**values, "form": form})
            lay = s.layouts.get(lay_name)
            if lay is None:
                if lay_name not in self.layouts.broken:  # already reported where it is defined
                    self.p.add(fs.node.at("layout"), f"unknown layout {lay_name!r}{did_you_mean(lay_name, s.layouts)}")
                return None
            etype = {"a": a, "b": b, "c": c, "d": dd}[mat]
            ebits = s.types[etype].bits
            if fs.containers:  # each element in its type's container (e2m1 in 8 bits, say)
                ebits = s.types[etype].container_bits or ebits
            batch = plan.node.get("batch", 1)
            key = (lay.name, ebits, (m, n, k), mat, plan.sparsity is not None, batch)
            if key not in self._checked:
                self._checked[key] = self.check_fragment(plan, fs, lay, ebits, shape, {**bits, f"{mat}bits": ebits})
            if not self._checked[key]:
                return None
            fl[mat] = (lay, ebits, (m or 0, n or 0, k or 0))
        return fl, regs_only

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
        try:
            regs = int(fs.regs(M=m or 0, N=n or 0, K=k or 0,
                               **{b: bits.get(b, 0) for b in ("abits", "bbits", "cbits", "dbits")}))
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

    def operand(self, o, ctx: OperandContext) -> Operand:
        r = KINDS[o["kind"]].resolve(o, ctx)
        parts = tuple((name, tuple(int_set(vals))) for name, vals in o.get("parts", {}).items())
        return Operand(name=o["name"], kind=o["kind"], io=o.get("io", "in"), matrix=o.get("matrix"), values=r.values,
                       min_value=r.min_value, regs=r.regs, reg_type=r.reg_type, layout=r.layout,
                       element_type=r.element_type, parts=parts, optional=bool(o.get("optional", False)),
                       observed_on=r.observed_on, default=o.get("default"))

    def add(self, var: Variant) -> None:
        s = self.spec
        if var.id in s._by_id:
            other = s._by_id[var.id]
            where = f"line {other.pos.line}" if other.pos.path == var.pos.path else \
                f"{os.path.relpath(other.pos.path, self.root or '.')}:{other.pos.line}"
            self.p.add(var.pos, f"variant {var.id} defined twice (also group {other.group!r} at {where})")
            return
        s._by_id[var.id] = var
        s._by_key[(var.ptx, var.form)] = var
        s.variants.append(var)
