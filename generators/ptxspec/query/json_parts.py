"""A variant's JSON text (`ptxspec query --format json`), stored in parts that variants share.

Composing each variant's JSON object column by column (json_object over the 59 columns of
`variants`) was most of the time of `ptxspec query --target sm_90a --format json`. The members come
in runs, most of them shared: the types, the qualifier axes, the requirement, the register counts,
the selectors to numerics, until_ptx; only the id to k are the variant's own. `ptxspec build`
stores each distinct shared run once, as the members SQLite's json_object writes for them (table
json_fragments, and the json columns of requirements and signatures); the view variants_json joins
them, with the variant's own members composed on the spot, into the same text byte for byte.
"""
from __future__ import annotations

import sqlite3

from ptxspec.query.database import BOOLEAN_COLUMNS, JSON_COLUMNS

#: The runs of members of a variant's JSON object, each from its first column (AXES: the first
#: qualifier-axis column) to the next run's first: (first column, part). "row" runs are the
#: variant's own values, composed when queried; every other part is stored once per distinct text.
AXES = "<axes>"
JSON_PARTS = (("id", "row"), ("atype", "types"), (AXES, "axes"), ("min_ptx", "requirement"),
              ("regs", "signature"), ("selectors", "tail"), ("until_ptx", "until"))
#: part -> where the view variants_json reads its stored text (aliases of its x-from)
STORED = {"types": "jt.json", "axes": "ja.json", "requirement": "r.json", "signature": "s.json", "tail": "jl.json",
          "until": "r.json_until"}
#: the parts in json_fragments, each referenced by the variant_rows column json_<part>
VARIANT_PARTS = ("types", "axes", "tail")


def json_value(column: str, expr: str) -> str:
    """SQL of a variants column's value inside json_object, as json.dumps of the decoded row writes
    it: JSON text as JSON, booleans as true/false, the rest as is."""
    if column in JSON_COLUMNS:
        return f"json({expr})"
    if column in BOOLEAN_COLUMNS:
        return f"json(CASE WHEN {expr} THEN 'true' ELSE 'false' END)"
    return expr


def json_parts(columns: list[str], axes: list[str]) -> list[tuple[str, list[str]]]:
    """(part, its columns) of each run of JSON_PARTS, in the order of `columns` (those of the view
    variants); AssertionError when they do not cover every column in order (a column added to the
    view needs a place in JSON_PARTS)."""
    starts = [(axes[0] if first == AXES else first, part) for first, part in JSON_PARTS if first != AXES or axes]
    missing = [c for c, _ in starts if c not in columns]
    assert not missing, f"JSON_PARTS names columns that variants lacks: {missing}"
    at = [columns.index(c) for c, _ in starts]
    assert at[0] == 0 and at == sorted(at), f"JSON_PARTS out of the order of variants' columns: {starts}"
    runs = [(part, columns[i:j]) for (_, part), i, j in zip(starts, at, at[1:] + [len(columns)])]
    assert [c for part, cols in runs if part == "axes" for c in cols] == axes, \
        f"the axes run of JSON_PARTS is not the qualifier axes {axes}: {runs}"
    return runs


def json_source(defs: dict[str, dict], base: str) -> str:
    """SQL of the view's json column: the JSON text of the variant, from the runs of `base` (the
    view variants): the stored runs as stored, the variant's own composed by json_object."""
    props = defs[base]["properties"]
    axes = [c for c, p in props.items() if p.get("x-axis")]
    alias = defs[base]["x-columns-from"]
    texts = []
    for part, cols in json_parts(list(props), axes):
        if part != "row":
            texts.append(STORED[part])
            continue
        assert not set(cols) & set(JSON_COLUMNS), f"a run composed when queried ends in a JSON value: {cols}"
        sources = [props[c].get("x-source", f'{alias}."{c}"') for c in cols]
        pairs = ", ".join(f"'{c}', {json_value(c, src)}" for c, src in zip(cols, sources))
        texts.append(f"rtrim(ltrim(json_object({pairs}), '{{'), '}}')")  # its members: no value ends in }
    return f"printf('{{{','.join(['%s'] * len(texts))}}}', {', '.join(texts)})"


class Members:
    """The members ('"key":value,...', without braces) that SQLite's json_object writes for some
    columns' values: the stored runs of variants_json, made by the function that composes the rest."""

    def __init__(self):
        self.conn = sqlite3.connect(":memory:")
        self.sql: dict[tuple[str, ...], str] = {}
        self.texts: dict[tuple, str] = {}  # (columns, values) -> members: variants share most

    def __call__(self, columns: tuple[str, ...], values: tuple) -> str:
        text = self.texts.get((columns, values))
        if text is None:
            sql = self.sql.get(columns)
            if sql is None:
                pairs = ", ".join(f"'{c}', {json_value(c, '?')}" for c in columns)
                sql = self.sql[columns] = f"SELECT json_object({pairs})"
            text = self.texts[(columns, values)] = self.conn.execute(sql, values).fetchone()[0][1:-1]
        return text
