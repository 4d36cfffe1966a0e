"""The rules, one module per area. This list of modules is the one place a rule is wired in: every
`Rule` a listed module defines (`@rule(...)`) runs in every comparison."""
from __future__ import annotations

from ptxspec.diff.registry import Rule
from ptxspec.diff.rules import (
    arithmetic_rules,
    definition_rules,
    description_rules,
    descriptor_rules,
    errata_rules,
    family_rules,
    fragment_rules,
    instruction_rules,
    isa_rules,
    layout_rules,
    operand_rules,
    requirement_rules,
    smem_rules,
    sparsity_rules,
    type_rules,
    variant_rules,
)

MODULES = (arithmetic_rules, definition_rules, description_rules, descriptor_rules, errata_rules, family_rules,
           fragment_rules, instruction_rules, isa_rules, layout_rules, operand_rules, requirement_rules, smem_rules,
           sparsity_rules, type_rules, variant_rules)


def _collect() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for module in MODULES:
        for r in vars(module).values():
            if isinstance(r, Rule):
                if r.id in found and found[r.id] is not r:
                    raise ValueError(f"rule {r.id} is defined twice ({module.__name__})")
                found[r.id] = r
    return dict(sorted(found.items()))


#: rule id -> Rule, by id
RULES: dict[str, Rule] = _collect()
