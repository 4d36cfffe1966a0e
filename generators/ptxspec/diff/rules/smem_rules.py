"""Shared-memory descriptions: the matrix descriptor, swizzle modes, canonical layouts."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain, strip_descriptions
from ptxspec.diff.positions import Stripped, first_diff
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions


@rule("smem.added", "info", "a shared-memory description is new")
def added(d):
    return definitions(d, "smem").added()


@rule("smem.removed", "warning", "a shared-memory description is gone")
def removed(d):
    return definitions(d, "smem").removed()


def changed_parts(name, bo, ho) -> tuple[list[str], list[str]]:
    """(fields whose meaning changed, fields whose descriptions alone changed)."""
    pb, ph = plain(bo), plain(ho)
    fields = changed_fields(strip_descriptions(pb), strip_descriptions(ph), skip=("family",))
    texts = [f for f in changed_fields(pb, ph, skip=("family",)) if f == "description" or f not in fields]
    return fields, texts


@rule("smem.changed", "breaking", "the matrix descriptor, a swizzle mode or a canonical layout changed")
def changed(d):
    for name, bo, ho, bent, hent in definitions(d, "smem").common():
        fields, _ = changed_parts(name, bo, ho)
        if fields:
            where = first_diff(Stripped(hent[0]), Stripped(bent[0])) if hent and bent else None
            yield Finding(f"smem {name}", f"shared memory of {name}: {', '.join(fields)} changed",
                          where or (hent[1] if hent else None), details={"fields": fields})
