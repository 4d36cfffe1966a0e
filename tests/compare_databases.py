"""Two ptxspec databases compared table by table: what a change of the spec's *writing* must leave alone.

    python tests/compare_databases.py OLD.sqlite NEW.sqlite [--ignore TABLE.COLUMN ...]
    python tests/compare_databases.py REV NEW.sqlite            # OLD from git: REV:generated/ptxspec.sqlite

Every table and view of both files, as sets of rows (a view's rows are what users read; the internal
tables store rows shared between variants under numbered keys, which a rewriting may renumber, so
only tables without a numbered key are compared directly). The provenance (digests of the trees the
database came from) is left out: it names the text, not the facts. Exit 0 when every compared table
holds the same rows, 1 otherwise, listing per table the rows only one side has (a few of each).
"""
from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

#: what describes the text rather than the facts: the digests of the source trees
PROVENANCE = {"provenance"}


def _open(ref: str, scratch: Path) -> sqlite3.Connection:
    path = Path(ref)
    if not path.is_file():  # a git revision
        data = subprocess.run(["git", "show", f"{ref}:generated/ptxspec.sqlite"], capture_output=True, check=True).stdout
        path = scratch / f"{ref.replace('/', '_')}.sqlite"
        path.write_bytes(data)
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _relations(conn) -> dict[str, str]:
    """name -> 'table' or 'view', without SQLite's own."""
    return {n: t for n, t in conn.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                                          "AND name NOT LIKE 'sqlite_%'")}


#: the tables that store rows shared between variants under numbers the writer assigns (schema/
#: database.schema.json's x-internal): their rows reach users through the views, compared instead
INTERNAL = {"variant_rows", "requirements", "requirement_clause_rows", "requirement_targets", "variant_option_rows",
            "signatures", "signature_operands", "operand_defs", "layout_tiling", "tile_elements", "integers",
            "numerics_results", "evidence_results", "evidence_sets"}


def compare(old: sqlite3.Connection, new: sqlite3.Connection, ignore: set[str] = frozenset()) -> dict[str, tuple]:
    """table -> (rows only in OLD, rows only in NEW) for every table or view that differs."""
    out = {}
    ro, rn = _relations(old), _relations(new)
    for name in sorted(set(ro) | set(rn)):
        if name in PROVENANCE or name in INTERNAL:
            continue
        if name not in ro or name not in rn:
            out[name] = ((f"{name}: only in NEW",) if name not in ro else (f"{name}: only in OLD",), ())
            continue
        cols_o = [r[1] for r in old.execute(f"PRAGMA table_info({name})")]
        cols_n = [r[1] for r in new.execute(f"PRAGMA table_info({name})")]
        cols = [c for c in cols_o if c in cols_n and f"{name}.{c}" not in ignore]
        if set(cols_o) != set(cols_n):
            out[name] = ((f"columns {sorted(set(cols_o) - set(cols_n))} only in OLD",),
                         (f"columns {sorted(set(cols_n) - set(cols_o))} only in NEW",))
            continue
        q = f"SELECT {', '.join(cols)} FROM {name}"
        a, b = set(old.execute(q)), set(new.execute(q))
        if a != b:
            out[name] = (tuple(sorted(a - b, key=repr)), tuple(sorted(b - a, key=repr)))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--ignore", nargs="*", default=[], metavar="TABLE.COLUMN")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        diffs = compare(_open(args.old, Path(scratch)), _open(args.new, Path(scratch)), set(args.ignore))
    for name, (only_old, only_new) in diffs.items():
        print(f"{name}: {len(only_old)} rows only in OLD, {len(only_new)} only in NEW")
        for r in only_old[:3]:
            print(f"  - {r}")
        for r in only_new[:3]:
            print(f"  + {r}")
    if not diffs:
        print("every table and view holds the same rows")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
