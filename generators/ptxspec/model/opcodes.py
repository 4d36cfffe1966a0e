"""Opcode templates: `wgmma.mma_async.sync.aligned.m{m}n{n}k{k}{.satfinite}.{dtype}...` filled with a
variant's fields (and option qualifiers)."""
from __future__ import annotations

import re

#: Fields every opcode template may name besides its family's axes.
OPCODE_FIELDS = ("m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op")

PLACEHOLDER = re.compile(r"\{(\.?)(\w+)\}")


def placeholder_names(template: str) -> set[str]:
    return {m.group(2) for m in PLACEHOLDER.finditer(template)}


def fill_template(template: str, values: dict) -> str:
    """`{name}` -> value; `{.name}` -> "." + value, or nothing when the value is empty."""
    def sub(m):
        value = values.get(m.group(2), "")
        value = "" if value is None or value is False else str(value)
        return f".{value}" if m.group(1) and value else ("" if m.group(1) else value)
    return PLACEHOLDER.sub(sub, template)
