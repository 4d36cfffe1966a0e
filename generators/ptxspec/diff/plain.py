"""Model objects as plain data, for comparing definitions field by field."""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from ptxspec.core.errors import Pos


def plain(x) -> Any:
    if hasattr(x, "source") and hasattr(x, "names"):  # a compiled Formula
        return str(x.source)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)
                if f.name not in ("pos", "spec", "sources")}
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(plain(v) for v in x)
    if isinstance(x, Pos) or callable(x):
        return None
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


def changed_fields(a: dict, b: dict, skip=()) -> list[str]:
    return [k for k in sorted(set(a) | set(b)) if k not in skip and a.get(k) != b.get(k)]


def short(value, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def strip_descriptions(x) -> Any:
    if isinstance(x, dict):
        return {k: strip_descriptions(v) for k, v in x.items() if k != "description"}
    if isinstance(x, list):
        return [strip_descriptions(v) for v in x]
    return x
