"""Errata: where the manual is wrong, or ptxas goes beyond it."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain
from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions, first_of


@rule("errata.added", "info", "an erratum is new")
def added(d):
    return definitions(d, "erratum").added()


@rule("errata.removed", "warning", "an erratum is gone")
def removed(d):
    return definitions(d, "erratum").removed()


@rule("errata.changed", "warning", "an erratum's claim or evidence changed")
def changed(d):
    for name, bo, ho, bent, hent in definitions(d, "erratum").common():
        pb, ph = plain(bo), plain(ho)
        fields = changed_fields(pb, ph, skip=("id",))
        if fields:
            yield Finding(f"erratum {name}", f"erratum {name}: {', '.join(fields)} changed", pos_in(hent, bent, fields),
                          details={"fields": fields}, before=first_of(fields, pb), after=first_of(fields, ph))
