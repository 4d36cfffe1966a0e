"""The rule list (`ptxspec diff --list-rules`): id, severity and meaning of every rule."""
from __future__ import annotations

import json

from ptxspec.diff.rules import RULES


def render_rules(fmt: str = "text", severities: dict[str, str] | None = None) -> str:
    """Every rule by id; `severities` (the run's, with overrides) replaces the rules' own."""
    rows = [r.as_data((severities or {}).get(r.id)) for r in RULES.values()]
    if fmt == "json":
        return json.dumps(rows, indent=1) + "\n"
    if fmt == "markdown":
        lines = ["| rule | severity | what changed |", "|---|---|---|"]
        lines += [f"| `{r['id']}` | {r['severity']} | {r['description'].replace('|', chr(92) + '|')} |" for r in rows]
        return "\n".join(lines) + "\n"
    width = max(len(r["id"]) for r in rows)
    return "".join(f"{r['id']:<{width}}  {r['severity']:<8}  {r['description']}\n" for r in rows)
