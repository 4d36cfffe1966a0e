"""Position hunting for models whose variants do not record their sources yet.

Until `Variant.sources` exists, the cause of a variant change is searched for in the positioned
documents by hand: the group, its keys, the refinements, the signatures, the definitions. This
module goes once every variant carries its sources (see `positions.source_change`).
"""
from __future__ import annotations

from ..errors import Pos
from .positions import diff_key, entry_diff, first_diff

_MEMBERSHIP_KEYS = ("shape", "types", "satfinite", "op", "forms", "qualifiers", "sparsity")


def _matches(when: dict, fields: dict) -> bool:
    return all(str(fields.get(key)) == str(val) for key, val in (when or {}).items())


def _fields(v) -> dict:
    return dict(m=v.m, n=v.n, k=v.k, atype=v.atype, btype=v.btype, ctype=v.ctype, dtype=v.dtype,
                satfinite=v.satfinite, op=v.op, form=v.form, **v.qualifiers)


class LegacyWhere:
    def __init__(self, base, head):
        self.b, self.h = base, head

    def __call__(self, kind: str, this, other, this_side, other_side, item=None, targets=()) -> tuple[Pos, bool]:
        """(position, whether it is in the other tree)."""
        if kind == "requirement":
            return self.requirement(this, other, targets)
        return self._where(kind, this, other, this_side, other_side, item), False

    def _where(self, kind: str, this, other, this_side, other_side, item) -> Pos:
        if kind == "membership":
            return self.membership(this_side, other_side, this)
        if kind == "renamed":
            return self.renamed(this, other)
        if kind == "operand":
            return self.operand(this, other, item, this_side, other_side)
        if kind == "fragment":
            return self.fragment(this, other, item)
        if kind == "sparsity":
            return self.sparsity(this, other)
        g, og = self._group_pair(this, other)
        return (first_diff(g, og) if g is not None and og is not None else None) or this.pos

    def _group_pair(self, hv, bv):
        return (self.h.index.groups.get((hv.instruction, hv.group)), self.b.index.groups.get((bv.instruction, bv.group)))

    def membership(self, this, other, v) -> Pos:
        ti, oi = this.index, other.index
        inst, oinst = ti.inst.get(v.instruction), oi.inst.get(v.instruction)
        if inst is None:
            return v.pos
        if oinst is None:
            return inst.at("name")
        g, og = ti.groups.get((v.instruction, v.group)), oi.groups.get((v.instruction, v.group))
        if g is None or og is None:
            return v.pos
        for key in _MEMBERSHIP_KEYS:
            p = diff_key(g, og, key)
            if p:
                return p
        shape = g.get("shape")
        if isinstance(shape, dict) and isinstance(shape.get("n"), str):
            fam, ofam = ti.families.get(v.family), oi.families.get(v.family)
            if fam is not None and ofam is not None:
                p = diff_key(fam.get("n_sets") or {}, ofam.get("n_sets") or {}, shape["n"])
                if p:
                    return p
        return diff_key(inst, oinst, "opcode") or first_diff(g, og) or v.pos

    def renamed(self, hv, bv) -> Pos:
        hi, bi = self.h.index, self.b.index
        inst, oinst = hi.inst.get(hv.instruction), bi.inst.get(bv.instruction)
        if inst is None or oinst is None:
            return hv.pos
        g, og = hi.groups.get((hv.instruction, hv.group)), bi.groups.get((bv.instruction, bv.group))
        return diff_key(inst, oinst, "opcode") or (first_diff(g, og) if g is not None and og is not None else None) \
            or hv.pos

    def requirement(self, hv, bv, targets) -> tuple[Pos, bool]:
        hi, bi = self.h.index, self.b.index
        inst, oinst = hi.inst.get(hv.instruction), bi.inst.get(bv.instruction)
        if inst is None or oinst is None:
            return hv.pos, False
        dropped = self._dropped_refinement(inst, oinst, hv, bv)
        if dropped is not None:
            return dropped, True
        return self._requirement(hi, bi, inst, oinst, hv, bv, targets), False

    def _requirement(self, hi, bi, inst, oinst, hv, bv, targets) -> Pos:
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None and ("requires" in g or "requires" in og):
            p = diff_key(g, og, "requires") or (g.at("requires") if "requires" in g else None)
            if p and g.get("requires") != og.get("requires"):
                return p
        if g is None or "requires" not in g:
            p = diff_key(inst, oinst, "requires")
            if p:
                return p
        p = self._refinement(inst, oinst, hv, bv)
        if p:
            return p
        for t in targets:
            p = entry_diff(hi.targets.get(t), bi.targets.get(t))
            if p:
                return p
        if g is not None and og is not None:
            p = first_diff(g, og)
            if p:
                return p
        if hi.isa is not None and bi.isa is not None:
            p = diff_key(hi.isa, bi.isa, "targets") or diff_key(hi.isa, bi.isa, "ptx_versions")
            if p:
                return p
        return hv.pos

    @staticmethod
    def _dropped_refinement(inst, oinst, hv, bv) -> Pos | None:
        """The BASE refinement that matched the variant and no longer does, if the only change."""
        hrefs, brefs = inst.get("refinements") or [], oinst.get("refinements") or []
        h_match = [r for r in hrefs if _matches(r.get("when"), _fields(hv))]
        b_match = [(i, r) for i, r in enumerate(brefs) if _matches(r.get("when"), _fields(bv))]
        gone = [i for i, r in b_match if r not in h_match]
        if gone and all(r in [x for _, x in b_match] for r in h_match):
            return brefs.at(gone[0])
        return None

    @staticmethod
    def _refinement(inst, oinst, hv, bv) -> Pos | None:
        hf, bf = _fields(hv), _fields(bv)
        hrefs = inst.get("refinements") or []
        brefs = oinst.get("refinements") or []
        b_match = [r for r in brefs if _matches(r.get("when"), bf)]
        h_match = [r for r in hrefs if _matches(r.get("when"), hf)]
        for i, r in enumerate(hrefs):
            if r in h_match and r not in b_match:
                twin = next((o for o in brefs if o.get("when") == r.get("when")), None)
                return (first_diff(r, twin) if twin is not None else None) or hrefs.at(i)
        if any(r not in h_match for r in b_match):
            return inst.at("refinements") if "refinements" in inst else inst.at("requires")
        return None

    def operand(self, v, ov, name, this, other) -> Pos:
        ti, oi = this.index, other.index
        inst, oinst = ti.inst.get(v.instruction), oi.inst.get(ov.instruction)
        g, og = ti.groups.get((v.instruction, v.group)), oi.groups.get((ov.instruction, ov.group))
        if inst is None or g is None:
            return v.pos
        sig = g.get("signature")
        sigs = inst.get("signatures") or {}
        entries = sigs.get(sig) or []
        idx = next((i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("name") == name), None)
        oentry = None
        if oinst is not None and og is not None:
            oentries = (oinst.get("signatures") or {}).get(og.get("signature")) or []
            oentry = next((e for e in oentries if isinstance(e, dict) and e.get("name") == name), None)
        if idx is not None:
            entry = entries[idx]
            if oentry is None:
                return entries.at(idx)
            if entry != oentry:
                return first_diff(entry, oentry) or entries.at(idx)
        if og is not None and og.get("signature") != sig:
            return g.at("signature")
        if oinst is not None and idx is None:  # the operand left this signature, or the form filter changed
            p = diff_key(sigs, oinst.get("signatures") or {}, sig)
            if p:
                return p
        # Derived properties: register counts and types come from fragments, layouts and types.
        if og is not None:
            for key in ("fragments", "sparsity", "forms"):
                p = diff_key(g, og, key)
                if p:
                    return p
        try:
            o = v.operand(name)
        except KeyError:
            o = None
        if o is not None:
            if o.layout:
                p = entry_diff(ti.layouts.get(o.layout), oi.layouts.get(o.layout))
                if p:
                    return p
            if o.element_type:
                p = entry_diff(ti.types.get(o.element_type), oi.types.get(o.element_type))
                if p:
                    return p
            if o.kind == "selector" and v.sparsity is not None:
                p = entry_diff(ti.layouts.get(v.sparsity.name), oi.layouts.get(v.sparsity.name))
                if p:
                    return p
        return entries.at(idx) if idx is not None else (sigs.at(sig) if sig in sigs else v.pos)

    def fragment(self, hv, bv, ho) -> Pos:
        hi, bi = self.h.index, self.b.index
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None:
            frag, ofrag = g.get("fragments") or {}, og.get("fragments") or {}
            p = diff_key(frag, ofrag, ho.matrix or ho.name)
            if p:
                return p
        if ho.layout:
            p = entry_diff(hi.layouts.get(ho.layout), bi.layouts.get(ho.layout))
            if p:
                return p
        if ho.element_type:
            p = entry_diff(hi.types.get(ho.element_type), bi.types.get(ho.element_type))
            if p:
                return p
        if g is not None and og is not None:
            p = first_diff(g, og)
            if p:
                return p
        if ho.layout and ho.layout in hi.layouts:
            return hi.layouts[ho.layout][1]
        return hv.pos

    def sparsity(self, hv, bv) -> Pos:
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None:
            p = diff_key(g, og, "sparsity")
            if p:
                return p
        name = hv.sparsity.name
        return entry_diff(self.h.index.layouts.get(name), self.b.index.layouts.get(name)) or hv.pos
