"""Markdown syntax for the docs templates: table, code span, heading anchor, one-line spec prose.

These are the filters and globals of the docs' Jinja environment; they know Markdown, not PTX.
"""
from __future__ import annotations

import re
from collections import defaultdict
from itertools import pairwise

DASH = "–"


def cell(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def table(headers: list, rows: list[list]) -> str:
    """A Markdown table (its lines, without a final newline: the template's line ends it)."""
    out = ["| " + " | ".join(map(str, headers)) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def code(s) -> str:
    s = str(s)
    return f"`` {s} ``" if "`" in s else f"`{s}`"


def codes(values, sep: str = ", ") -> str:
    return sep.join(code(v) for v in values)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def ints(values) -> str:
    """Sorted integers, an arithmetic run of four or more as 'a, b, …, z (every step)'."""
    vs = sorted(set(values))
    if len(vs) >= 4:
        step = vs[1] - vs[0]
        if all(b - a == step for a, b in pairwise(vs)):
            return f"{vs[0]}, {vs[1]}, …, {vs[-1]} (every {step})"
    return ", ".join(map(str, vs))


def text(s) -> str:
    """Spec prose on one line, with the characters Markdown would take for emphasis escaped."""
    return " ".join(str(s).split()).replace("*", "\\*")


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 variant', '3 variants'."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def where(pairs, code_spans: bool = False) -> str:
    """(instruction, group) pairs as 'instruction: group, group; instruction: group'."""
    by = defaultdict(list)
    for inst, g in sorted(pairs):
        by[inst].append(g)
    return "; ".join(f"{code(i) if code_spans else i}: {', '.join(gs)}" for i, gs in by.items())


FILTERS = {"code": code, "codes": codes, "slug": slug, "ints": ints, "text": text, "where": where, "cell": cell}
GLOBALS = {"table": table, "plural": plural, "DASH": DASH}
