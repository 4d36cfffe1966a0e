"""Instructions: their usage rules (their variants are compared by the variant rules)."""
from __future__ import annotations

from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule


def entries(d, name: str) -> tuple:
    """(base entry, head entry) of instruction `name`: (YAML document, its position)."""
    bd, hd = d.b.index.inst.get(name), d.h.index.inst.get(name)
    return (bd, bd.pos) if bd is not None else None, (hd, hd.pos) if hd is not None else None


@rule("instruction.rules.changed", "warning", "an instruction's usage rules changed")
def rules_changed(d):
    for name in sorted(set(d.b.spec.instructions) & set(d.h.spec.instructions)):
        bo, ho = d.b.spec.instructions[name], d.h.spec.instructions[name]
        if list(bo.rules) != list(ho.rules):
            bent, hent = entries(d, name)
            yield Finding(f"instruction {name} rules", f"instruction {name}: usage rules changed",
                          pos_in(hent, bent, ["rules"]), before=len(bo.rules), after=len(ho.rules))
