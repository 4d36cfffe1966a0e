"""Generic entry points: per instruction, a class template keyed by the fields of its opcode.

`ptxspec::<instruction><M, N, K, D, A, B, ...>` (the instruction name as an identifier) is
specialised for every combination of opcode fields the spec has; `call<immediates...>(args...)`
calls the variant of that combination whose operands the arguments fit (the operand form), and
`<form>` (or `fragments`) names its frag:: traits. Any other combination instantiates the primary
template, whose static_assert lists the valid ones. The key fields are the opcode's: the shape,
the element types, then each qualifier axis, `satfinite` and `op` where the instruction has them
(fields with a neutral value - none, false - or a single value take it as their default), and
the operand form where the arguments cannot tell the forms apart (A from a tensor-memory address
or from a descriptor, both plain integers). The
immediates of every form come in one order, the union of the instruction's immediates in operand
order; a form without one of them requires its default.
"""
from __future__ import annotations

import hashlib
import re
import weakref
from collections import defaultdict

from ptxspec.emit.cbind.cexpr import ident, name
from ptxspec.emit.cbind.functions import binding
from ptxspec.model.kinds import kind_of
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant

SHAPE = ("m", "n", "k")
TYPES = ("dtype", "atype", "btype", "ctype")


def value_ident(axis: str, value: str) -> str:
    """A qualifier value as an enum member: the axis prefix dropped (`kind::f8f6f4` -> f8f6f4),
    `none` for the empty value, a leading `_` before a digit (`_2X`)."""
    if value == "":
        return "none"
    v = value[len(axis) + 2:] if value.startswith(axis + "::") else value
    v = ident(v)
    return f"_{v}" if v[:1].isdigit() else v


def _axis_value(v: Variant, field: str):
    if field in SHAPE or field in TYPES or field in ("satfinite", "op", "form"):
        return getattr(v, field)
    return v.qualifiers.get(field, "")


def _call_shapes(v: Variant) -> set[tuple[str, ...]]:
    """The argument lists v's function accepts, as overload resolution tells them apart: every
    plain value alike (a 32-bit TMEM address converts to a 64-bit descriptor parameter), arrays
    and references by their type; with and without its optional and defaulted operands."""
    out = set()
    for optional in (True, False) if any(o.optional for o in v.operands) else (True,):
        params = binding(v.spec, v, optional)["params"]
        shape = tuple(re.sub(r"\(&\w+\)", "", p.split(" = ")[0]) if "&" in p else "value" for p in params)
        out.add(shape)
        for i in range(len(params) - 1, -1, -1):  # trailing defaults may be left out
            if " = " not in params[i]:
                break
            out.add(shape[:i])
    return out


def _forms_ambiguous(variants: list[Variant], fields: list[dict]) -> bool:
    """Whether two operand forms under one key accept the same arguments (A from a tensor-memory
    address or from a descriptor, both plain integers; with or without an immediate): then
    the form is a field of the key too."""
    if len({v.form for v in variants}) < 2:
        return False
    seen: dict[tuple, str] = {}
    for v in variants:
        key = tuple(_axis_value(v, f["field"]) for f in fields)
        for shape in _call_shapes(v):
            if seen.setdefault((key, shape), v.form) != v.form:
                return True
    return False


def axes(spec: Spec) -> dict[str, list[str]]:
    """Every qualifier axis (and `op`) a key uses, with its values: the enums of ptxspec::qual."""
    out: dict[str, set[str]] = defaultdict(set)
    for v in spec.variants:
        for q, val in v.qualifiers.items():
            out[q].add(val)
        if v.op:
            out["op"].update({v.op, ""})
        if v.form:  # the operand forms, a key field where arguments cannot tell them apart
            out["form"].update({v.form, ""})
    for q, vals in out.items():
        if len(vals) > 1 or "" not in vals:
            vals.add("")
    return {q: sorted(vals, key=lambda x: (x != "", x)) for q, vals in sorted(out.items())}


def key_fields(variants: list[Variant]) -> list[dict]:
    """The key's fields: name, C++ parameter (name, type), values, default (None: none)."""
    fields = []
    for f in SHAPE:  # shapes without K (an m8n8 matrix load) leave K out of the key
        if any(getattr(v, f) is not None for v in variants):
            fields.append({"field": f, "param": f.upper(), "ctype": "int", "default": None})
    optional = []
    for f in TYPES:
        same = [g for g in TYPES[:TYPES.index(f)] if all(getattr(v, f) == getattr(v, g) for v in variants)]
        if any(getattr(v, f) for v in variants) and not same:  # ctype == dtype in every variant: one field
            # a type some variants lack (a copy's optional decompression formats) is optional: type::none
            where = optional if any(not getattr(v, f) for v in variants) else fields
            where.append({"field": f, "param": f[0].upper(), "ctype": "type",
                          "default": "" if where is optional else None})
    used = {q for v in variants for q in v.qualifiers}  # in the family's axis order: the template's
    order = [q for q in variants[0].spec.families[variants[0].family].axes if q in used]
    for f in order + ["satfinite", "op"]:
        vals = {_axis_value(v, f) for v in variants}
        if f == "satfinite":
            if len(vals) < 2:
                continue
            optional.append({"field": f, "param": "Satfinite", "ctype": "bool", "default": False})
            continue
        if vals == {""}:
            continue
        ctype = f"qual::{f}"
        if "" in vals:
            optional.append({"field": f, "param": _pname(f), "ctype": ctype, "default": ""})
        elif len(vals) == 1:
            optional.append({"field": f, "param": _pname(f), "ctype": ctype, "default": next(iter(vals))})
        else:
            fields.append({"field": f, "param": _pname(f), "ctype": ctype, "default": None})
    if _forms_ambiguous(variants, fields + optional):
        fields.append({"field": "form", "param": "Form", "ctype": "qual::form", "default": None})
    return fields + optional


def _same_types(variants: list[Variant]) -> list[str]:
    """Type fields left out of the key because they equal an earlier one in every variant."""
    out = []
    for t in TYPES:
        if not any(getattr(v, t) for v in variants):
            continue
        same = [g for g in TYPES[:TYPES.index(t)] if all(getattr(v, t) == getattr(v, g) for v in variants)]
        if same:
            out.append(f"{t[0].upper()} is always {same[0][0].upper()}")
    return out


def _pname(field: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in field.split("_"))


def c_value(field: dict, value) -> str:
    if field["ctype"] == "int":
        return str(value)
    if field["ctype"] == "type":
        return f"type::{value or 'none'}"
    if field["ctype"] == "bool":
        return "true" if value else "false"
    return f"{field['ctype']}::{value_ident(field['field'], value)}"


def _immediates(variants: list[Variant]) -> list[dict]:
    """The union of the instruction's template parameters, in operand order: C name, default."""
    out: list[dict] = []
    for v in variants:
        pos = 0
        for o in v.operands:
            k = kind_of(o)
            if not k.constant:
                continue
            names = [k.part_name(o, p) for p, _ in o.parts] if o.parts else [k.c_name(o)]
            for n in names:
                have = [x["name"] for x in out]
                if n in have:
                    pos = have.index(n) + 1
                else:
                    out.insert(pos, {"name": n, "default": o.default if not o.parts else None})
                    pos += 1
    return out


def _own_immediates(v: Variant) -> list[str]:
    names = []
    for o in v.operands:
        k = kind_of(o)
        if k.constant:
            names += [k.part_name(o, p) for p, _ in o.parts] if o.parts else [k.c_name(o)]
    return names


def _ranges(values: list) -> str:
    """8, 16, ..., 256 -> '8..256/8'; otherwise the values joined by '|'."""
    if len(values) > 3 and all(isinstance(x, int) for x in values):
        step = values[1] - values[0]
        if step > 0 and all(b - a == step for a, b in zip(values, values[1:])):
            return f"{values[0]}..{values[-1]}/{step}"
    return "|".join(str(x) for x in values)


def valid_listing(fields: list[dict], keys: list[tuple]) -> str:
    """The valid keys, compactly: grouped on every field but the one with most values."""
    if not keys or not fields:
        return ""
    widest = max(range(len(fields)), key=lambda i: (len({k[i] for k in keys}), -i))
    groups: dict[tuple, list] = defaultdict(list)
    for k in keys:
        groups[k[:widest] + k[widest + 1:]].append(k[widest])
    parts = []
    for rest, vals in groups.items():
        vals = sorted(set(vals), key=lambda x: (isinstance(x, str), x))
        shown = [_show(fields[i], x) for i, x in enumerate(rest[:widest])] + [_ranges(vals) if not isinstance(
            vals[0], str) else "|".join(_show(fields[widest], x) for x in vals)] + \
            [_show(fields[i + widest + 1], x) for i, x in enumerate(rest[widest:])]
        parts.append(" ".join(shown))
    return "; ".join(parts)


def _show(field: dict, value) -> str:
    if field["ctype"] == "bool":
        return "satfinite" if value else "-"
    if field["ctype"] == "type":
        return value or "none"
    if field["ctype"] == "int":
        return str(value)
    return value_ident(field["field"], value)


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def entry_points(spec: Spec, variants: list[Variant]) -> dict:
    """The generic entry points of a family header's instructions, and the call macros they use."""
    by_instruction: dict[str, list[Variant]] = defaultdict(list)
    for v in variants:
        by_instruction[v.instruction].append(v)
    points, macros = [], {}
    for ins, vs in by_instruction.items():
        fields = key_fields(vs)
        imms = _immediates(vs)
        keyed: dict[tuple, list[Variant]] = defaultdict(list)
        for v in vs:
            keyed[tuple(_axis_value(v, f["field"]) for f in fields)].append(v)
        specs = []
        for key, kvs in keyed.items():
            args = [c_value(f, x) for f, x in zip(fields, key)]
            while fields and args and len(args) > 0 and fields[len(args) - 1]["default"] is not None and \
                    args[-1] == c_value(fields[len(args) - 1], fields[len(args) - 1]["default"]):
                args.pop()  # trailing fields at their defaults
            calls = []
            for v in kvs:
                macro = _call_macro(v, imms)
                macros.setdefault(macro["name"], macro)
                calls.append({"macro": macro["name"], "fn": name(v), "alias": v.form or "fragments",
                              "hidden": name(v) == ident(ins)})
            specs.append({"args": args, "calls": calls})
        first = fields[0] if fields else None
        points.append({
            "instruction": ins, "ident": ident(ins), "fields": fields, "specs": specs, "immediates": imms,
            "params": [f"{f['ctype']} {f['param']}" + ("" if f["default"] is None else f" = {c_value(f, f['default'])}")
                       for f in fields],
            "first": first and {"ctype": first["ctype"], "param": first["param"]},
            "names": ", ".join(f["param"] for f in fields),
            "same": _same_types(vs),
            "valid": valid_listing(fields, list(keyed)).replace('"', "'")})
    hidden = [c for p in points for s in p["specs"] for c in s["calls"] if c["hidden"]]
    return {"points": points, "macros": [macros[k] for k in sorted(macros)], "hidden": hidden}


def _call_macro(v: Variant, imms: list[dict]) -> dict:
    """A `call` member for v's operand form: the instruction's immediates (with defaults) in, the
    form's own immediates out; an immediate the form lacks must keep its default."""
    own = _own_immediates(v)
    absent = {i["name"]: 0 if i["default"] is None else i["default"] for i in imms if i["name"] not in own}
    tparams = [f"int {i['name']}" + (f" = {absent[i['name']]}" if i["name"] in absent else
                                     "" if i["default"] is None else f" = {i['default']}") for i in imms]
    checks = [f'static_assert({n} == {d}, "{n}: this variant has no such operand; leave it at {d}");'
              for n, d in absent.items()]
    targs = f"<{', '.join(own)}>" if own else ""
    text = repr((tparams, checks, targs))
    return {"name": f"PTXSPEC_CALL_{_hash(text)}", "tparams": tparams, "checks": checks, "targs": targs}




_INSTRUCTIONS: "weakref.WeakKeyDictionary[Spec, dict]" = weakref.WeakKeyDictionary()


def generic_call(spec: Spec, v: Variant, chosen: dict | None = None) -> str:
    """The C++ expression that calls v through its instruction's generic entry point, up to the
    operand list: `ptxspec::ops::<instruction><key>::call<immediates>` (chosen[name] or the first
    legal value for v's own immediates, the default for the others)."""
    chosen = chosen or {}
    memo = _INSTRUCTIONS.setdefault(spec, {})
    if v.instruction not in memo:
        variants = [x for x in spec.variants if x.instruction == v.instruction]
        memo[v.instruction] = (key_fields(variants), _immediates(variants))
    fields, imms = memo[v.instruction]
    values = {}
    for o in v.operands:
        k = kind_of(o)
        if not k.constant:
            continue
        if o.parts:
            for part, vals in o.parts:
                values[k.part_name(o, part)] = chosen.get(f"{o.name}.{part}", vals[0])
        else:
            values[k.c_name(o)] = chosen.get(o.name, o.values[0] if o.values else (o.min_value or 0))
    args = [str(values.get(i["name"], 0 if i["default"] is None else i["default"])) for i in imms]
    key = ", ".join(re.sub(r"^(type|qual)::", r"ptxspec::\1::", c_value(f, _axis_value(v, f["field"])))
                    for f in fields)
    head = f"ptxspec::ops::{ident(v.instruction)}" + (f"<{key}>" if fields else "")
    return f"{head}::call" + (f"<{', '.join(args)}>" if args else "")
