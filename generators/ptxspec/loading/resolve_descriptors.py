"""spec/descriptors/*.yaml -> BitDescriptor: a run-time descriptor operand's layouts and shapes.

Checked here: the family and its selector axis exist, every selector value a layout names is a
value of that axis and has one layout; the fields of a layout tile its bits exactly; number
fields' `encode` formulas are bit routings (so they invert) whose legal inputs fit; codes fit
their fields, and each code of a table names one value; the shapes name known selector values
and CTA groups, and every M and N of them is one the layouts' m and n fields can encode.
"""
from __future__ import annotations

from ptxspec.core.errors import PosDict, PosList
from ptxspec.core.expr import ExprError
from ptxspec.loading.context import Context
from ptxspec.loading.tree import Document
from ptxspec.model.descriptors import (
    BitDescriptor,
    DescriptorError,
    DescriptorCombination,
    DescriptorField,
    DescriptorLayout,
    DescriptorShape,
    encode_number,
)
from ptxspec.model.family import Family
from ptxspec.model.kinds import KINDS
from ptxspec.model.operand_kind import int_set
from ptxspec.model.smem import invert_encode


def _per_selector(raw, known: set[str], where, ctx: Context, what: str) -> dict:
    """A value given for every selector, or per selector value (`default`: the others) -> {sel or '': value}."""
    if isinstance(raw, dict) and raw and all(k in known or k == "default" for k in raw):
        return {("" if k == "default" else k): v for k, v in raw.items()}
    # a map of selectors: its values are tables (codes) or sets (legal: a list, or a dict that is no
    # {range}); a misspelt selector must not read as one value for every selector (fuzz seed 23,
    # tree 37981: 'ctagroup::1' did, and validate died on the map as a set)
    per_selector = isinstance(raw, dict) and raw and "range" not in raw and (
        what != "codes" or all(isinstance(v, dict) for v in raw.values()))
    if per_selector or isinstance(raw, dict) and any(k.startswith("kind::") or k == "default" for k in raw):
        bad = sorted(k for k in raw if k not in known and k != "default")
        ctx.p.add(where, f"{what}: {', '.join(bad)} is not a selector value of this layout ({', '.join(sorted(known))})")
        return {}
    return {"": raw}


def _field(ctx: Context, f, known: set[str], bits: int, pos) -> DescriptorField | None:
    name, lsb, width = f["name"], f["lsb"], f["width"]
    if lsb + width > bits:
        ctx.p.add(f.at("width"), f"field {name} runs past bit {bits - 1}")
        return None
    if "reserved" in f:
        if f["reserved"] >> width:
            ctx.p.add(f.at("reserved"), f"field {name}: {f['reserved']} does not fit in {width} bits")
        return DescriptorField(name, lsb, width, f["description"], reserved=f["reserved"])
    if "codes" in f:
        codes = _per_selector(f["codes"], known, f.at("codes"), ctx, "codes")
        for sel, table in codes.items():
            if not isinstance(table, dict):
                ctx.p.add(f.at("codes"), f"field {name}: codes for {sel or 'every kind'} must be a map name -> code")
                return None
            first: dict = {}
            for value, code in table.items():
                where = table.at(value) if isinstance(table, PosDict) else f.at("codes")
                if code >> width:
                    ctx.p.add(f.at("codes"), f"field {name}: code {code} of {value!r} does not fit in {width} bits")
                elif code in first:  # a code names one value: decoding must give back the value encoded
                    ctx.p.add(where, f"field {name}: {value!r} has code {code}, as {first[code]!r} has"
                              f"{' for ' + sel if sel else ''}: a code names one value", cause=("code", name, code))
                first.setdefault(code, value)
        # every kind the layout names encodes some value here (fuzz seed 35, tree 1952: kind::f8f6f4's
        # atype and btype codes deleted validated, and no f8f6f4 descriptor could be encoded)
        empty = sorted(sel for sel in known if not (codes.get(sel) or codes.get(""))) if codes else []
        if empty:
            ctx.p.add(f.at("codes"), f"field {name}: no codes for {', '.join(empty)}, which the layout names (a kind "
                      "whose encoding the manual does not give is `unstated`, with an erratum)")
        return DescriptorField(name, lsb, width, f["description"], codes=codes)
    enc = ctx.formula(f, "encode", frozenset({"x"}), pos)
    if enc is None:
        return None
    try:
        invert_encode(name, enc, width)
    except (ValueError, ExprError) as exc:
        ctx.p.add(f.at("encode"), str(exc))
        return None
    legal = {sel: tuple(int_set(v)) for sel, v in _per_selector(f.get("legal"), known, f.at("name"), ctx,
                                                                 "legal").items() if v is not None}
    for sel, values in legal.items():
        if not values:  # fuzz seed 36, tree 1421: a backward range, and no mask could be encoded
            ctx.p.add(f.at("legal"), f"field {name}: no legal value{' for ' + sel if sel else ''} (an empty set)")
        for x in values:
            try:
                code = int(enc(x=x))
            except ExprError as exc:  # the value itself can be out of any formula's range
                ctx.p.add(f.at("legal"), f"field {name}: legal input {x}: {exc}")
                break
            if code >> width or code < 0:
                ctx.p.add(f.at("legal"), f"field {name}: legal input {x} encodes to {code:#x}, wider than {width} bits")
    return DescriptorField(name, lsb, width, f["description"], encode=enc, legal=legal)


def resolve_descriptors(ctx: Context, docs: list[Document], families: dict[str, Family]) -> dict:
    out = {}
    for doc in docs:
        d = doc.data
        if not ctx.known(d, "family", families, "family"):
            continue
        fam = families[d["family"]]
        if d["operand_kind"] not in KINDS:
            ctx.p.add(d.at("operand_kind"), f"unknown operand kind {d['operand_kind']!r}")
        axis = fam.axes.get(d["selector"])
        if axis is None:
            ctx.p.add(d.at("selector"), f"selector {d['selector']!r} is no qualifier axis of family {fam.name}")
            continue
        values = {v for v in axis.values if v}
        seen: dict[str, str] = {}
        layouts = []
        for i, lay in enumerate(d["layouts"]):
            where = d["layouts"][i]
            for sel in lay["kinds"]:
                if sel not in values:
                    ctx.p.add(where.at("kinds"), f"{sel!r} is not a value of axis {axis.name}")
                elif sel in seen:
                    ctx.p.add(where.at("kinds"), f"{sel!r} has two layouts ({seen[sel]} and {lay['name']})")
                seen[sel] = lay["name"]
            ctx.once(lay["fields"], lambda f: f["name"], f"layout {lay['name']}: field")
            fields, used = [], 0
            for j, f in enumerate(lay["fields"]):
                mask = ((1 << f["width"]) - 1) << f["lsb"]
                if used & mask:
                    ctx.p.add(lay["fields"].at(j), f"field {f['name']} overlaps another field")
                used |= mask
                got = _field(ctx, lay["fields"][j], set(lay["kinds"]), d["bits"], d.pos)
                if got is not None:
                    fields.append(got)
            if used != (1 << d["bits"]) - 1:
                free = [b for b in range(d["bits"]) if not (used >> b) & 1]
                ctx.p.add(where.at("fields"), f"layout {lay['name']}: bits {free} belong to no field "
                                              "(write reserved fields out)")
            combos = _combinations(ctx, where, tuple(lay["kinds"]), fields)
            layouts.append(DescriptorLayout(lay["name"], lay.get("manual", ""), tuple(lay["kinds"]),
                                            tuple(sorted(fields, key=lambda f: f.lsb)), combos))
        shapes = []
        cta = fam.axes.get("cta_group")
        # fuzz seed 23, tree 156077: a second entry was ignored by descriptors.shapes and broke the
        # database's key (IntegrityError, exit 3)
        ctx.once(d.get("shapes", []), lambda sh: [f"{k}, {sh['cta_group']}{', .ws' if sh['ws'] else ''}"
                                                  for k in sh["kinds"]], "the shapes of", "kinds")
        for i, sh in enumerate(d.get("shapes", [])):
            for sel in sh["kinds"]:
                if sel not in seen:
                    ctx.p.add(d["shapes"][i].at("kinds"), f"{sel!r} has no layout")
            if cta is None or sh["cta_group"] not in cta.values:
                ctx.p.add(d["shapes"][i].at("cta_group"), f"{sh['cta_group']!r} is not a value of axis cta_group")
            ms, ns = (tuple(int_set(sh[key])) if key in sh else None for key in ("m_sparse", "n_sparse"))
            _encodable(ctx, d["shapes"][i], [lay for lay in layouts if set(sh["kinds"]) & set(lay.selectors)])
            shapes.append(DescriptorShape(tuple(sh["kinds"]), sh["cta_group"], sh["ws"], tuple(int_set(sh["m"])),
                                          tuple(int_set(sh["n"])), ms, ns))
        k = dict(d.get("k", {}))
        for sel in k:
            if sel not in seen:
                ctx.p.add(d.at("k"), f"k: {sel!r} has no layout")
        key = (d["family"], d["name"])
        if key in out:
            ctx.p.add(d.at("name"), f"descriptor {d['name']} of {d['family']} is defined twice")
        unstated = {}
        for sel, why in d.get("unstated", {}).items():
            if sel not in values:
                ctx.p.add(d["unstated"].at(sel), f"unstated: {sel!r} is not a value of axis {axis.name}")
            elif sel in seen:
                ctx.p.add(d["unstated"].at(sel), f"unstated: {sel!r} has a layout ({seen[sel]})")
            unstated[sel] = " ".join(why.split())
        out[key] = BitDescriptor(d["family"], d["name"], d["operand_kind"], d["manual"], d["bits"],
                                 d["description"], d["selector"], layouts, shapes, k, d.pos, unstated=unstated)
    return out


def _encodable(ctx: Context, sh, layouts: list[DescriptorLayout]) -> None:
    """Every M and N of a shape, dense and sparse, is a value the layouts' number fields of that
    name (m, n) encode and decode back (M in units of 16 in 5 bits, say): anything else is a shape
    no descriptor can ask for."""
    for key in ("m", "n", "m_sparse", "n_sparse"):
        fields = [(lay.name, f) for lay in layouts for f in lay.fields if f.name == key[0] and f.what == "number"]
        bad = next(((x, lay, exc) for x in (int_set(sh[key]) if key in sh else ()) for lay, f in fields
                    if (exc := _unencodable(f, x)) is not None), None)
        if bad is not None:  # the first value of the set is enough: the others read the same way
            x, lay, exc = bad
            ctx.p.add(_member_pos(sh, key, x), f"{key}: {key[0].upper()} = {x} is no shape of layout {lay}: {exc}")


def _unencodable(f: DescriptorField, x: int) -> Exception | None:
    try:
        encode_number(f, x)
    except (DescriptorError, ExprError) as exc:
        return exc
    return None


def _member_pos(node, key: str, x: int):
    """The line of value x in a set written as a list, else the set's."""
    raw = node[key]
    if isinstance(raw, PosList) and x in raw:
        return raw.at(raw.index(x))
    return node.at(key)


def _combinations(ctx: Context, lay, kinds: tuple[str, ...], fields: list[DescriptorField]) -> tuple:
    """A layout's value combinations: kinds of the layout, fields that are code fields of it, and
    value names that are codes of the field for at least one of the rule's kinds; no field both
    in `when` and in `then`."""
    code_fields = {f.name: f for f in fields if f.what == "codes"}
    out = []
    for i, c in enumerate(lay.get("combinations", [])):
        where = lay["combinations"][i]
        sel = tuple(c.get("kinds", kinds))
        bad = [k for k in sel if k not in kinds]
        if bad:
            ctx.p.add(where.at("kinds"), f"combination: {', '.join(bad)} does not use "
                      f"this layout ({', '.join(kinds)})")
            continue
        parts, ok = {}, True
        for key in ("when", "then"):
            for name, values in c[key].items():
                f = code_fields.get(name)
                if f is None:
                    ctx.p.add(c[key].at(name),
                              f"combination {key}: {name!r} is no code field of this layout "
                              f"({', '.join(sorted(code_fields))})")
                    ok = False
                    continue
                named = {v for k in sel for v in f.codes_for(k)}
                unknown = [v for v in values if v not in named]
                if unknown:
                    ctx.p.add(c[key].at(name),
                              f"combination {key}: {name} {', '.join(map(repr, unknown))} is a value of none of "
                              f"{', '.join(sel)} (they have {', '.join(sorted(named))})")
                    ok = False
            parts[key] = tuple((name, tuple(values)) for name, values in c[key].items())
        if ok and set(dict(parts["when"])) & set(dict(parts["then"])):
            ctx.p.add(where, "combination: a field is both in `when` and in `then`")
            ok = False
        if ok:
            out.append(DescriptorCombination(sel, parts["when"], parts["then"], c["manual"], c.get("description", "")))
    return tuple(out)
