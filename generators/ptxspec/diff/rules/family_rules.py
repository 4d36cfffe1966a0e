"""Instruction families (their instructions' variants are compared by the variant rules)."""
from __future__ import annotations

from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions


@rule("family.added", "info", "an instruction family is new")
def added(d):
    return definitions(d, "family").added()


@rule("family.removed", "warning", "an instruction family is gone (its variants are reported)")
def removed(d):
    return definitions(d, "family").removed()


@rule("family.changed", "breaking", "a family's thread count changed")
def changed(d):
    for name, bo, ho, bent, hent in definitions(d, "family").common():
        if bo.threads != ho.threads:
            yield Finding(f"family {name}", f"family {name}: threads {bo.threads} -> {ho.threads}",
                          pos_in(hent, bent, ["threads"]), before=bo.threads, after=ho.threads)
