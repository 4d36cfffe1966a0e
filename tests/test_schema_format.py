"""The schemas in one layout, so that an edit shows as the lines it changes and the files stay
short: a value goes on one line when it fits in 120 columns, and so does every mapping of plain
values (a column, a field: its type and description side by side, however long the description);
anything else opens one entry per line, indented by two. `python tests/test_schema_format.py`
rewrites the files in that layout."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

SCHEMA = Path(__file__).resolve().parents[1] / "schema"
WIDTH = 120


def _plain(value) -> bool:
    return not isinstance(value, (dict, list)) or (
        isinstance(value, list) and all(not isinstance(x, (dict, list)) for x in value))


def layout(value, indent: int = 0, prefix: str = "") -> str:
    one = json.dumps(value, ensure_ascii=False)
    if (not isinstance(value, (dict, list)) or not value or len(" " * indent + prefix + one) < WIDTH
            or (isinstance(value, dict) and all(_plain(x) for x in value.values()))):
        return prefix + one
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [layout(x, indent + 2, json.dumps(k, ensure_ascii=False) + ": ") for k, x in value.items()]
        return prefix + "{\n" + ",\n".join(pad + i for i in items) + "\n" + " " * indent + "}"
    items = [layout(x, indent + 2) for x in value]
    return prefix + "[\n" + ",\n".join(pad + i for i in items) + "\n" + " " * indent + "]"


def formatted(path: Path) -> str:
    return layout(json.loads(path.read_text(encoding="utf-8"))) + "\n"


@pytest.mark.parametrize("path", sorted(SCHEMA.glob("*.json")), ids=lambda p: p.name)
def test_schema_in_layout(path):
    assert path.read_text(encoding="utf-8") == formatted(path), f"run: python tests/{Path(__file__).name}"


def test_schemas_within_budget():
    """Issue 29: the schemas together at most 3,000 lines."""
    assert sum(p.read_text(encoding="utf-8").count("\n") for p in SCHEMA.glob("*.json")) <= 3000


if __name__ == "__main__":
    for p in sorted(SCHEMA.glob("*.json")):
        text = formatted(p)
        if p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
            print(f"rewrote {p}", file=sys.stderr)
