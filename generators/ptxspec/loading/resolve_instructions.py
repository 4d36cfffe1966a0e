"""Resolving instruction files: each group of an instruction is planned once (its requirement,
opcode template, qualifier axes, signature, shapes, types, sparsity and fragment specs, checked)
and then expanded into its variants, one per point of the cross product."""
from __future__ import annotations

from typing import Literal

from ptxspec.core.errors import Pos, PosDict, did_you_mean
from ptxspec.loading.context import Context, Origin
from ptxspec.loading.expand_variants import VariantExpander
from ptxspec.loading.group_plan import REGS_NAMES, FragmentSpec, GroupPlan, Refinement
from ptxspec.loading.resolve_tables import Layouts
from ptxspec.loading.tree import Document
from ptxspec.model import predicates
from ptxspec.model.family import Family, Instruction
from ptxspec.model.isa import Requirement
from ptxspec.model.kinds import KINDS
from ptxspec.model.opcodes import OPCODE_FIELDS, PLACEHOLDER, placeholder_names
from ptxspec.model.sparsity import REGISTER_MAP, Sparsity
from ptxspec.model.spec import Spec
from ptxspec.semantics.meanings import SEMANTICS

__all__ = ["InstructionResolver", "check_when_values"]

INSTRUCTION = "{instruction}"  # in the prose of `rules`: the name of the instruction stating the rule


def _option_use_ok(problems, fam: Family, quals, q: str, axis, options: bool) -> bool:
    """An option axis goes under a group's `options` (with '' among its values), any other under
    `qualifiers`."""
    if axis.option != options:
        problems.add(quals.at(q), f"axis {q!r} is {'not ' if options else ''}an option axis of family "
                     f"{fam.name}: list it under {'qualifiers' if options else 'options'}")
        return False
    if options and "" not in quals[q]:
        problems.add(quals.at(q), f"option {q!r} must accept '' (the qualifier left out: the base opcode)")
        return False
    return True


def _forms_ok(problems, fam: Family, g) -> bool:
    for j, form in enumerate(g.get("forms", [])):
        if form not in fam.forms:
            problems.add(g["forms"].at(j), f"family {fam.name} has no operand form {form!r}"
                         f"{did_you_mean(form, fam.forms)} (its forms: {', '.join(fam.forms) or 'none'})")
            return False
    return True


class InstructionResolver:
    """Expands the instruction files into variants, adding them to `spec`."""

    def __init__(self, ctx: Context, spec: Spec, layouts: Layouts, family_docs: dict, target_origins: dict,
                 root: str):
        self.ctx, self.p, self.spec, self.layouts, self.root = ctx, ctx.p, spec, layouts, root
        self.family_docs = family_docs  # family name -> its document (for the origins of n_sets)
        self.target_origins = target_origins  # target name -> its isa.yaml entry
        self.failed: set[str] = set()  # instructions with a problem: errata about them are not checked
        self.expander = VariantExpander(ctx, spec, layouts, family_docs, target_origins, root)
        self.whens: list[tuple[Family, PosDict]] = []  # every `when` of a rule or operand, for check_when_values

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
        check_template(self.p, self.spec, fam, d, "opcode")
        for g in d["groups"]:  # a group may write its own opcode template
            if "opcode" in g:
                check_template(self.p, self.spec, fam, g, "opcode")
        # a rule may say {instruction} for the instruction's name: one rule, a piece of the family, serves several
        rules = [r.replace(INSTRUCTION, d["name"]) for r in d.get("rules", [])]
        inst = Instruction(name=d["name"], family=d["family"], description=d["description"], manual=d.get("manual", ""),
                           opcode=d["opcode"], rules=rules, requirement=base, pos=d.pos,
                           path=doc.path, semantics=d["semantics"])
        s.instructions[inst.name] = inst
        before, stopped = len(self.p.items), self.expander.stopped
        refinements = [self.refinement(fam, r, Origin(d["refinements"], i))
                       for i, r in enumerate(d.get("refinements", []))]
        for gi, g in enumerate(d["groups"]):
            plan = self.plan(inst, d, g, d["groups"].at(gi), base)
            if plan is not None:
                self.expander.expand(plan, refinements)
        if len(self.p.items) != before or self.expander.stopped != stopped:
            self.failed.add(inst.name)
        else:  # a failed group may be why a refinement matches nothing
            for r in refinements:
                if not r.used:
                    self.p.add(r.origin.pos, f"refinement matches no variant: {dict(r.when)}")

    def refinement(self, fam: Family, r, origin: Origin) -> Refinement:
        s, req = self.spec, r.get("requires", {})
        self.check_when(fam, r["when"])
        for key in ("options", "without"):
            for axis, values in r.get(key, {}).items():
                a = fam.axes.get(axis)
                if a is None or not a.option:
                    self.p.add(r[key].at(axis), f"{axis!r} is no option axis of family {fam.name}"
                               f"{did_you_mean(axis, [x for x in fam.axes if fam.axes[x].option])}")
                    continue
                for j, value in enumerate(values):
                    if value not in a.values:
                        self.p.add(values.at(j), f"{value!r} is not a value of option {axis!r} (its values: "
                                   f"{', '.join(repr(x) for x in a.values)}){did_you_mean(value, a.values)}")
        v = self.ctx.version(req, "ptx", s.ptx_versions) if "ptx" in req else None
        ts = self.ctx.target_set(req, "targets", s.targets) if "targets" in req else None
        return Refinement(r["when"], v, ts, origin, r.get("metadata_order", ""), bool(r.get("exclude", False)),
                          {a: list(vals) for a, vals in r.get("options", {}).items()}, r.get("ptxas_only", ""),
                          without={a: set(vals) for a, vals in r.get("without", {}).items()})

    # -- planning a group ------------------------------------------------------------------
    def plan(self, inst: Instruction, d, g, gpos: Pos, base: Requirement) -> GroupPlan | None:
        s = self.spec
        fam = s.families[inst.family]
        req_origin = Origin(d, "requires")
        if "requires" in g:  # a group may state its own requirement instead of the instruction's
            own = self.ctx.requirement(g["requires"], s.ptx_versions, s.targets, stop_on_error=True)
            if own is None:
                return None
            base = own
            req_origin = Origin(g, "requires")
        template_origin = Origin(g, "opcode") if "opcode" in g else Origin(d, "opcode")
        template = template_origin.value
        quals = g.get("qualifiers", {})
        opts = g.get("options", {})
        if not self.check_axes(fam, quals, template) or not self.check_axes(fam, opts, template, options=True) \
                or not self.check_forms(fam, g):
            return None
        signature = self.signature(fam, d, g)
        if signature is None:
            return None
        shapes = self.shapes(fam, g)
        if shapes is None:
            return None
        # a group's shape may come partly from the defaults (m and n): a K left out is no K of None
        if any(k is None for _, _, k in shapes) and "k" in self.family_docs[fam.name].get("shape_bounds", {}) \
                and "shape" in g:
            self.p.add(gpos, f"group {g['name']!r} has a shape without K, which every shape of family {fam.name} "
                       "has (its shape_bounds bound K)")
            return None
        combos = type_combos(self.p, self.spec, g, inst.semantics == "mma")
        if combos is None:
            return None
        sparsity = _group_sparsity(self.p, g, s.sparsities) if "sparsity" in g else None
        if sparsity is False:
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
            if isinstance(fs, str):  # a bare layout name: {layout: name}
                fs = PosDict(layout=fs)
                fs.pos, fs.key_pos = g["fragments"].at(mat), {"layout": g["fragments"].at(mat)}
            regs = None
            if "regs" in fs or "layout" not in fs:  # with a layout, the layout gives the registers
                regs = self.ctx.formula(fs, "regs", REGS_NAMES, gpos)
                if regs is None:
                    return None
            fragments[mat] = FragmentSpec(mat, fs.get("layout"), regs, fs, bool(fs.get("containers")))
        if not check_signature(self.p, self.layouts, g, signature, fragments, sparsity) or \
                not self.check_semantics(inst, g, signature, sparsity):
            return None
        sources = self.group_sources(fam, d, g, template_origin, req_origin, sparsity)
        return GroupPlan(inst=inst, threads=fam.threads, node=g, pos=gpos, requirement=base, template=template,
                         axes=[[(q, v) for v in vals] for q, vals in quals.items()], signature=signature,
                         shapes=shapes, combos=combos, sparsity=sparsity, fragments=fragments, sources=sources,
                         options={a: list(vals) for a, vals in opts.items()})

    def check_when(self, fam: Family, when) -> None:
        check_when(self.p, fam, when)
        self.whens.append((fam, when))

    def signature(self, fam: Family, d, g):
        sig_name = g["signature"]
        if sig_name not in d["signatures"]:
            self.p.add(g.at("signature"), f"unknown signature {sig_name!r}{did_you_mean(sig_name, d['signatures'])}")
            return None
        signature = d["signatures"][sig_name]
        names = [o["name"] for o in signature]
        ok = True
        for i, o in enumerate(signature):
            twins = [signature[j] for j in range(i) if names[j] == o["name"]]
            if twins and not ("when" in o and all("when" in t for t in twins)):  # a name per variant
                self.p.add(signature.at(i), f"operand {o['name']!r} listed twice (two entries of one name each "
                           "need a `when`, for the variants that take it)")
                ok = False
            if "matrix" in o and o["matrix"] not in fam.matrices:
                self.p.add(o.at("matrix"), f"family {fam.name} has no matrix {o['matrix']!r}"
                           f"{did_you_mean(o['matrix'], fam.matrices)} (its matrices: {', '.join(fam.matrices) or 'none'})")
                ok = False
            if "when" in o:
                self.check_when(fam, o["when"])
            for j, form in enumerate(o.get("forms", [])):
                if form not in fam.forms:
                    self.p.add(o["forms"].at(j), f"family {fam.name} has no operand form {form!r}"
                               f"{did_you_mean(form, fam.forms)} (its forms: {', '.join(fam.forms) or 'none'})")
                    ok = False
        return signature if ok else None

    def check_axes(self, fam: Family, quals, template: str, options: bool = False) -> bool:
        for q, values in quals.items():
            axis = fam.axes.get(q)
            if axis is None:
                self.p.add(quals.at(q), f"family {fam.name} has no qualifier axis {q!r}{did_you_mean(q, fam.axes)}"
                           f" (its axes: {', '.join(fam.axes) or 'none'})")
                return False
            if not _option_use_ok(self.p, fam, quals, q, axis, options):
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
        return _forms_ok(self.p, fam, g)

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
        """The group's (m, n, k): the cross product of its shape's lists, or, for a list of shapes
        (the shapes one row of the manual names), the union of theirs."""
        shape = g.get("shape")
        if shape is None:
            return [(None, None, None)]
        out = []
        for one in shape if isinstance(shape, list) else [shape]:
            n_spec = one["n"]
            if isinstance(n_spec, str):
                if n_spec not in fam.n_sets:
                    self.p.add(one.at("n"), f"unknown n_set {n_spec!r}{did_you_mean(n_spec, fam.n_sets)}")
                    return None
                ns = fam.n_sets[n_spec]
            else:
                ns = list(n_spec)
            out += [(m, n, k) for m in one["m"] for n in ns for k in one.get("k", [None])]
        return out

    def group_sources(self, fam, d, g, template_origin, req_origin, sparsity) -> dict[str, tuple[Origin, ...]]:
        shape = g.get("shape")
        shape_src: tuple[Origin, ...] = (Origin(g, "shape"),) if shape is not None else ()
        for one in shape if isinstance(shape, list) else [shape] if shape is not None else []:
            if isinstance(one["n"], str) and one["n"] in fam.n_sets:
                shape_src += (Origin(self.family_docs[fam.name]["n_sets"], one["n"]),)
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


def check_scale_operand(p, layouts, o, signature) -> bool:
    """A scale operand may name a scale map of its matrix, with its vectors (without one the
    register is known and which factor sits where is not); a selector of the same matrix gives
    the map's byte-id and thread-id."""
    if ("map" in o or "vectors" in o) and (o["kind"] != "scale" or ("map" in o) != ("vectors" in o)):
        p.add(o.pos, f"operand {o['name']!r}: only a scale operand names a scale `map`, and then its "
              f"`vectors` too")
        return False
    if "map" not in o:
        return True
    sm = layouts.scale_maps.get(o["map"])
    if sm is None:
        if o["map"] not in layouts.broken:
            p.add(o.at("map"), f"unknown scale map {o['map']!r}{did_you_mean(o['map'], layouts.scale_maps)}")
        return False
    if sm.matrix != o.get("matrix"):
        p.add(o.at("map"), f"scale map {sm.name} scales matrix {sm.matrix}, operand {o['name']!r} matrix "
              f"{o.get('matrix')!r}")
        return False
    sels = [s for s in signature if s["kind"] == "scale_selector" and s.get("matrix") == o.get("matrix")]
    if len(sels) != 1 or set(sels[0].get("parts", {})) != {"byte_id", "thread_id"}:
        p.add(o.pos, f"operand {o['name']!r}: the signature needs one scale_selector of matrix "
              f"{o.get('matrix')!r} with parts byte_id and thread_id")
        return False
    return True


def _group_sparsity(p, g, sparsities: dict) -> Sparsity | Literal[False]:
    """The sparsity a group names: known, and mapping its metadata to registers (a warp-level group's
    sparse A needs that map; tcgen05's lie in tensor memory); False, reported, otherwise."""
    sparsity = sparsities.get(g["sparsity"])
    if sparsity is None:
        p.add(g.at("sparsity"), f"unknown sparsity {g['sparsity']!r}{did_you_mean(g['sparsity'], sparsities)}")
        return False
    if not sparsity.in_registers:
        p.add(g.at("sparsity"), f"sparsity {g['sparsity']!r} maps no metadata to registers "
              f"({', '.join(REGISTER_MAP)}): a group's sparse A needs that map")
        return False
    return sparsity


def check_when(p, fam: Family, when) -> None:
    """Every field a `when` tests is one a variant has, and every test is well formed."""
    fields = OPCODE_FIELDS + ("form",) + tuple(fam.axes)
    for key, test in when.items():
        if key not in fields:
            p.add(when.at(key), f"{key!r} is neither an opcode field nor an axis of family {fam.name}"
                       f"{did_you_mean(key, fields)}")
        elif (why := predicates.problem(test)) is not None:
            p.add(when.at(key), f"when {key}: {why}")


def check_when_values(p, spec: Spec, whens, given: dict[str, dict[str, set[str]]]) -> None:
    """Every value a `when` names is one the field can have in the family: a declared value of the
    axis ('' where a variant's opcode lacks it), a type of the spec, or a value the family's groups
    give the opcode field (`given`: family -> field -> values). A misspelt value makes its clause
    match nothing, silently (fuzz trees 7943, 10730). For a whole model only: a failed group gives
    no values."""
    type_keys = ("atype", "btype", "ctype", "dtype")
    for fam, when in whens:
        for key, test in when.items():
            axis = fam.axes.get(key)
            known = ({predicates.text(v) for v in axis.values} | {""} if axis is not None else
                     {"", *spec.types} if key in type_keys else given.get(fam.name, {}).get(key))
            if known is None or predicates.problem(test) is not None:
                continue  # a key or test check_when reported
            for value in predicates.named(test):
                if predicates.text(value) not in known:
                    shown = sorted(known, key=lambda x: (len(x), x))
                    what = ("no element type of the spec" if key in type_keys else
                            f"no value {key} has in family {fam.name} (its values: "
                            f"{', '.join(repr(x) for x in shown[:12])}{', ...' if len(shown) > 12 else ''})")
                    p.add(when.at(key), f"when {key}: {value!r} is {what}{did_you_mean(str(value), shown)}")


def check_template(p, spec: Spec, fam: Family, data, key) -> None:
    placeholders = placeholder_names(data[key])
    leftover = PLACEHOLDER.sub("", data[key])
    if "{" in leftover or "}" in leftover:
        p.add(data.at(key), "malformed placeholder in opcode template (use {name} or {.name})")
    known = OPCODE_FIELDS + tuple(fam.axes)
    for ph in sorted(placeholders - set(known)):
        p.add(data.at(key), f"unknown opcode placeholder {{{ph}}}{did_you_mean(ph, known)}"
                   + ("" if ph in spec.axes else f" (the axes of family {fam.name}: "
                      f"{', '.join(fam.axes) or 'none'})"))


def type_combos(p, spec: Spec, g, product: bool = True):
    types = g.get("types")
    if types is None:
        return [("", "", "", "")]
    ok = True
    for key in ("atype", "btype", "ctype", "dtype"):
        for j, t in enumerate(types.get(key, [])):
            if t not in spec.types:
                p.add(types[key].at(j), f"unknown type {t!r}{did_you_mean(t, spec.types)}")
                ok = False
    if not ok:
        return None
    combos = [(a, b, c, dd) for a in types.get("atype", [""]) for b in types.get("btype", [""])
              for dd in types.get("dtype", [""]) for c in types.get("ctype", [None])]
    # C has the type of D unless given, for the multiply-accumulates (they name atype; an
    # instruction that computes no product has no C)
    return [(a, b, c if c is not None else (dd if a and product else ""), dd) for a, b, c, dd in combos]


def check_signature(p, layouts: Layouts, g, signature, fragments, sparsity) -> bool:
    forms = set(g.get("forms", [""]))
    for o in signature:
        if o["kind"] == "fragment" and o.get("matrix") not in fragments:
            if set(o.get("forms", forms)) & forms:
                p.add(g.at("signature"), f"operand {o['name']!r} is a fragment of matrix "
                           f"{o.get('matrix')!r} but group {g['name']!r} gives no fragment layout for it")
                return False
        if KINDS[o["kind"]].needs_sparsity and sparsity is None:
            p.add(g.at("signature"), f"operand {o['name']!r} needs the group to name a sparsity")
            return False
        if not check_scale_operand(p, layouts, o, signature):
            return False
    return True
