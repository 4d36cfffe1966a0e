"""Operand signatures: which operands a variant takes, their kinds and registers, their legal values
and defaults."""
from __future__ import annotations

import itertools

from typing import Any

from ptxspec.diff.plain import short
from ptxspec.diff.registry import Finding, rule

_OPERAND_FIELDS = ("kind", "io", "matrix", "regs", "reg_type", "element_type")


def _pairs(d):
    """(base, head) variant pairs whose operand lists differ."""
    return d.memo("operands.pairs", lambda: [(bv, hv) for bv, hv in d.pairs.common if bv.operands != hv.operands])


def _by_name(v) -> dict:
    return {o.name: o for o in v.operands}


@rule("operand.removed", "breaking", "the operand signature lost an operand")
def removed(d):
    for bv, hv in _pairs(d):
        hops = _by_name(hv)
        for o in bv.operands:
            if o.name not in hops:
                text = f"operand {o.name} ({o.kind}) removed"
                yield Finding(f"{hv.id} operand {o.name}", f"{hv.id}: {text}",
                              *d.cause("operand", bv, hv, side="base", item=o.name), summary=text,
                              variant=hv, before=o.name, details={"operand": o.name})


@rule("operand.added", "breaking", "the operand signature has a new operand")
def added(d):
    for bv, hv in _pairs(d):
        bops = _by_name(bv)
        for o in hv.operands:
            if o.name not in bops:
                yield Finding(f"{hv.id} operand {o.name}", f"{hv.id}: new operand {o.name} ({o.kind})",
                              *d.cause("operand", hv, bv, item=o.name), summary=f"new operand {o.name} ({o.kind})",
                              variant=hv, after=o.name, details={"operand": o.name})


@rule("operand.changed", "breaking", "an operand's kind, direction, matrix, register count or type changed")
def changed(d):
    for bv, hv in _pairs(d):
        bops, hops = _by_name(bv), _by_name(hv)
        common_b = [n for n in bops if n in hops]
        common_h = [n for n in hops if n in bops]
        for name in common_h:
            bo, ho = bops[name], hops[name]
            fields = [f for f in _OPERAND_FIELDS if getattr(bo, f) != getattr(ho, f)]
            parts = [f"{f} {getattr(bo, f)} -> {getattr(ho, f)}" for f in fields]
            if common_b.index(name) != common_h.index(name):
                fields.append("position")
                parts.append(f"position {common_b.index(name)} -> {common_h.index(name)}")
            if fields:
                text = ", ".join(parts)
                yield Finding(f"{hv.id} operand {name}", f"{hv.id}: operand {name}: {text}",
                              *d.cause("operand", hv, bv, item=name), summary=f"operand {name}: {text}", variant=hv,
                              details={"operand": name, "fields": fields})


def _allowed(o) -> tuple[str, Any]:
    if o.values is not None:
        return ("set", frozenset(o.values))
    if o.parts:  # a braced tuple of immediates (a scale selector's byte-id and thread-id): its combinations
        # (fuzz seed 36, tree 3412: mma's scales_2x byte_id [0, 2] -> [0, 1] was 'no change')
        return ("set", frozenset(itertools.product(*([f"{name}={x}" for x in vals] for name, vals in o.parts))))
    if o.min_value is not None:
        return ("min", o.min_value)
    return ("any", None)


def _show(a) -> Any:
    kind, val = a
    if kind == "set":
        return sorted(val)
    if kind == "min":
        return f">= {val}"
    return "any"


def _lost(a, b) -> list | bool:
    """Whether a allows values b does not: those values when both are sets, else a truth value
    (True: some; between two minimums, without listing them: fuzz seed 35, tree 6015, listed the
    2**63 values below a new minimum until memory ran out)."""
    (ka, va), (kb, vb) = a, b
    if kb == "any":
        return []
    if ka == "set":
        return sorted(x for x in va if (x not in vb if kb == "set" else x < vb))
    if ka == "min" and kb == "min":
        return vb > va
    return True  # unbounded (min or any) into bounded


def _values(d, narrowed: bool):
    for bv, hv in _pairs(d):
        bops = _by_name(bv)
        for ho in hv.operands:
            bo = bops.get(ho.name)
            if bo is None:
                continue
            ab, ah = _allowed(bo), _allowed(ho)
            if ab == ah:
                continue
            lost, gained = _lost(ab, ah), _lost(ah, ab)
            if not (lost if narrowed else (gained and not lost)):
                continue
            show_b, show_h = _show(ab), _show(ah)
            text = f"operand {ho.name}: legal values {short(show_b)} -> {short(show_h)}"
            yield Finding(f"{hv.id} operand {ho.name}", f"{hv.id}: {text}", *d.cause("operand", hv, bv, item=ho.name),
                          summary=text, variant=hv, before=show_b, after=show_h, details={"operand": ho.name})


@rule("operand.values.narrowed", "breaking", "an immediate operand lost legal values")
def values_narrowed(d):
    return _values(d, narrowed=True)


@rule("operand.values.widened", "info", "an immediate operand gained legal values")
def values_widened(d):
    return _values(d, narrowed=False)


def _defaults(d, kept: bool):
    """Operands of both sides whose default differs: changed or dropped (kept False: given where
    there was none)."""
    for bv, hv in _pairs(d):
        bops = _by_name(bv)
        for ho in hv.operands:
            bo = bops.get(ho.name)
            if bo is None or bo.default == ho.default or (bo.default is None) == kept:
                continue
            after = "none (a call must give it)" if ho.default is None else ho.default
            text = f"operand {ho.name}: default {'none' if bo.default is None else bo.default} -> {after}"
            yield Finding(f"{hv.id} operand {ho.name}", f"{hv.id}: {text}", *d.cause("operand", hv, bv, item=ho.name),
                          summary=text, variant=hv, before=bo.default, after=ho.default,
                          details={"operand": ho.name})


@rule("operand.default.changed", "breaking",
      "an operand's default (what a statement, the executor and the bindings assume when it is left out) changed "
      "or went")
def default_changed(d):
    return _defaults(d, kept=True)


@rule("operand.default.added", "info", "an operand that a call had to give has a default")
def default_added(d):
    return _defaults(d, kept=False)
