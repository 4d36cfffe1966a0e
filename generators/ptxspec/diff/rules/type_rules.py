"""Element types: their widths, classes and registers, and their number formats."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain, short
from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions

_NUMERIC_FIELDS = ("format",)


@rule("type.added", "info", "an element type is new")
def added(d):
    return definitions(d, "type").added()


@rule("type.removed", "warning", "an element type is gone")
def removed(d):
    return definitions(d, "type").removed()


@rule("type.changed", "breaking", "an element type's width, class, signedness or register type changed")
def changed(d):
    for name, bo, ho, bent, hent in definitions(d, "type").common():
        pb, ph = plain(bo), plain(ho)
        fields = changed_fields(pb, ph, skip=("description", "name", *_NUMERIC_FIELDS))
        if fields:
            text = ", ".join(f"{f} {pb.get(f)} -> {ph.get(f)}" for f in fields)
            yield Finding(f"type {name}", f"type {name}: {text}", pos_in(hent, bent, fields),
                          details={"fields": fields})


@rule("numerics.changed", "breaking", "an element type's number format changed")
def numerics_changed(d):
    for name, bo, ho, bent, hent in definitions(d, "type").common():
        pb, ph = plain(bo), plain(ho)
        fields = [f for f in _NUMERIC_FIELDS if pb.get(f) != ph.get(f)]
        if fields:
            yield Finding(f"type {name}", f"type {name}: format {short(pb.get('format'))} -> {short(ph.get('format'))}",
                          pos_in(hent, bent, fields), before=short(pb.get("format"), 200),
                          after=short(ph.get("format"), 200), details={"fields": fields})
