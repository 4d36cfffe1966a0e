"""generated/json/<family>.json: the variant table for tools that are not Python or SQL."""
from __future__ import annotations

import json

from ..model import Spec


def build(spec: Spec) -> dict[str, bytes]:
    out = {}
    for family in sorted({v.family for v in spec.variants}):
        records = [v.as_record() for v in spec.variants if v.family == family]
        doc = {"generated_by": "ptxspec build", "family": family, "variants": records}
        out[f"json/{family}.json"] = (json.dumps(doc, indent=1, sort_keys=False) + "\n").encode()
    return out
