"""generated/json/<family>.json: the variant table for tools that are not Python or SQL."""
from __future__ import annotations

import json

from ..model import Spec


def build(spec: Spec) -> dict[str, bytes]:
    out = {}
    for family in sorted({v.family for v in spec.variants}):
        # One variant per line: compact enough to encode fast, and a review diff shows whole variants.
        lines = [json.dumps(v.as_record(), separators=(",", ":")) for v in spec.variants if v.family == family]
        head = json.dumps({"generated_by": "ptxspec build", "family": family})[:-1]
        out[f"json/{family}.json"] = (head + ', "variants": [\n' + ",\n".join(lines) + "\n]}\n").encode()
    return out
