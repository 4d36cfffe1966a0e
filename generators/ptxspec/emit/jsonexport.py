"""generated/json/<family>.json: the variant table for tools that are not Python or SQL.

One object per family: `requirements`, `operands` and `signatures` state once what variants share,
and each of `variants` is the variant's record (Variant.as_record) with its requirement (`min_ptx`,
`targets`, `until_ptx` where the ISA removed it, `requires`) replaced by `"requirement": I` and its
operand signature (`regs`, `operands`) by `"signature": J`, indexes from 0 into those lists; a
signature lists its operands as indexes into `operands`; an option value (`options`) names its
requirement the same way (`{"value": V, "requirement": I}`):

    {"generated_by": "ptxspec build", "family": F,
     "requirements": [{"min_ptx", "targets", ["until_ptx"], "requires"}, ...],
     "operands": [{"name", "kind", "io", "regs", "reg_type", ...}, ...],
     "signatures": [{"regs", "operands": [K, ...]}, ...],
     "variants": [{"id", ..., "requirement": I, "signature": J, "selectors", ...}, ...]}

One entry per line: a review diff shows whole variants.
"""
from __future__ import annotations

import json

from ptxspec.model.spec import Spec

REQUIREMENT = ("min_ptx", "targets", "until_ptx", "requires")
SIGNATURE = ("regs", "operands")


#: json.dumps(value, separators=(",", ":")), without a new encoder for each of 60,000 values
_line = json.JSONEncoder(separators=(",", ":")).encode


def _requirement(spec: Spec, req) -> dict:
    """A requirement as the shared list states it (the fields Variant.as_record gives a variant's)."""
    return {"min_ptx": str(req.min_ptx), "targets": spec.sort_targets(req.targets),
            **({"until_ptx": str(req.until_ptx)} if req.until_ptx else {}), "requires": req.as_data(spec.target_order)}


def family_json(spec: Spec, family: str) -> str:
    shared: dict[str, dict[str, int]] = {"requirements": {}, "operands": {}, "signatures": {}}

    def index(part: str, value) -> int:
        return shared[part].setdefault(_line(value), len(shared[part]))

    variants = []
    for v in spec.variants:
        if v.family != family:
            continue
        full, record = v.as_record(), {}
        for key, value in full.items():
            if key in REQUIREMENT:
                if key == REQUIREMENT[0]:  # the first field marks where the reference goes
                    record["requirement"] = index("requirements", {k: full[k] for k in REQUIREMENT if k in full})
            elif key in SIGNATURE:
                if key == SIGNATURE[0]:
                    record["signature"] = index("signatures", {
                        "regs": full["regs"], "operands": [index("operands", o) for o in full["operands"]]})
            elif key == "options":
                record[key] = {axis: [{"value": val, "requirement": index("requirements", _requirement(spec, req))}
                                      for val, req in values] for axis, values in v.options.items()}
            else:
                record[key] = value
        variants.append(_line(record))
    head = json.dumps({"generated_by": "ptxspec build", "family": family})[:-1]
    parts = [f'"{name}": [\n' + ",\n".join(lines) + "\n]"
             for name, lines in [*((part, list(texts)) for part, texts in shared.items()), ("variants", variants)]]
    return head + ", " + ", ".join(parts) + "}\n"


def build(spec: Spec) -> dict[str, bytes]:
    return {f"json/{family}.json": family_json(spec, family).encode()
            for family in sorted({v.family for v in spec.variants})}
