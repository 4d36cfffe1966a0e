"""Writing answers: tables aligned for terminals, CSV, and JSON arrays (one element per line).

csv, json and textwrap are imported on first use: `ptxspec query --format json` over variants gets
its text from SQLite and needs none of them.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    import csv
    import json
    import textwrap
else:
    csv = lazy_loader.load("csv")  # the csv format
    json = lazy_loader.load("json")  # JSON of rows decoded in Python (errata, operands, ...)
    textwrap = lazy_loader.load("textwrap")  # the errata's text

TABLE_COLUMNS = ("ptx", "form", "min_ptx", "targets", "regs")
FRAGMENT_COLUMNS = ("variant_id", "operand", "thread", "reg", "slot", "row", "col")
LOADER_COLUMNS = ("variant_id", "operand", "storage", "direction", "status", "form", "instructions", "row", "col",
                  "reason", "evidence")


def emit_tuples(columns, rows, fmt: str) -> int:
    """Rows already shaped for their format (JSON objects for json, tuples otherwise)."""
    if fmt == "json":
        write_json(rows)
    elif fmt == "csv":
        if rows:
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(columns)
            w.writerows(rows)
    else:
        write_table(columns, rows)
    return 0


def cell(value) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def write_table(columns, table) -> None:
    """Columns left-aligned to their widest cell; cells are strings or integers (no None)."""
    widths = [max([len(c)] + [len(str(x)) for x in set(col)]) for c, col in zip(columns, zip(*table))] \
        if table else [len(c) for c in columns]
    line = "  ".join(f"%-{w}s" for w in widths)
    out = [(line % tuple(columns)).rstrip()]
    out += [(line % tuple(t)).rstrip() for t in table]
    out.append(f"({count(len(table), 'row')})")
    sys.stdout.write("\n".join(out) + "\n")


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def errata_text(rows: list[dict]) -> str:
    """Each erratum with what the manual says, what is true, and every piece of its evidence."""
    out = []
    for r in rows:
        out.append(f"{r['id']} ({r['family']}, {r['manual']}): {r['title']}")
        items = [("manual says", r["manual_says"]), ("truth", r["truth"])]
        items += [(f"evidence, {k}", ", ".join(v) if isinstance(v, list) else str(v))
                  for k, v in r["evidence"].items()]
        for label, text in items:
            out.append(textwrap.fill(" ".join(str(text).split()), 110, initial_indent=f"  {label}: ",
                                     subsequent_indent="    ", break_long_words=False, break_on_hyphens=False))
        out.append("")
    out.append(f"({count(len(rows), 'erratum')})".replace("erratums", "errata"))
    return "\n".join(out) + "\n"


def write_json(objects: list[str]) -> None:
    """A JSON array of JSON texts, one element per line."""
    sys.stdout.write("[\n" + ",\n".join(objects) + "\n]\n" if objects else "[]\n")


def write_json_utf8(chunks: Iterator[list[bytes]]) -> None:
    """write_json of JSON texts in UTF-8, a chunk of them at a time as they are read, written as
    bytes to stdout's binary buffer where that writes the same bytes (a UTF-8 stream with no newline
    translation; else decoded and written as text). Nothing is written before the first chunk is
    read: an error there leaves stdout empty."""
    buffer = getattr(sys.stdout, "buffer", None)
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if buffer is not None and encoding == "utf8" and os.linesep == "\n":
        sys.stdout.flush()
        write = buffer.write
    else:
        write = lambda data: sys.stdout.write(data.decode())  # noqa: E731
    first = next(chunks, None)
    if not first:
        write(b"[]\n")
        return
    write(b"[\n" + b",\n".join(first))
    for chunk in chunks:
        write(b",\n" + b",\n".join(chunk))
    write(b"\n]\n")


def emit(rows: list[dict], fmt: str, columns) -> int:
    if fmt == "json":
        dumps = json.JSONEncoder().encode  # the C encoder (no indent)
        write_json([dumps(r) for r in rows])
    elif fmt == "csv":
        if rows:
            keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict)) or k in ("targets", "regs")]
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(keys)
            for r in rows:
                w.writerow([cell(r[k]) for k in keys])
    else:
        write_table(columns, [[cell(r.get(c)) for c in columns] for r in rows])
    return 0
