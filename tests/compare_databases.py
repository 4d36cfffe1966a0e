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


def _path(ref: str, scratch: Path) -> Path:
    path = Path(ref)
    if not path.is_file():  # a git revision
        data = subprocess.run(["git", "show", f"{ref}:generated/ptxspec.sqlite"], capture_output=True, check=True).stdout
        path = scratch / f"{ref.replace('/', '_')}.sqlite"
        path.write_bytes(data)
    return path


#: the tables that store rows shared between variants under numbers the writer assigns (schema/
#: database.schema.json's x-internal): their rows reach users through the views, compared instead
INTERNAL = {"variant_rows", "requirements", "requirement_clause_rows", "requirement_targets", "variant_option_rows",
            "signatures", "signature_operands", "operand_defs", "layout_tiling", "tile_elements", "integers",
            "numerics_results", "evidence_results", "evidence_sets", "json_fragments"}


def _relations(conn, schema: str) -> dict[str, str]:
    """name -> 'table' or 'view' of one attached database, without SQLite's own."""
    return {n: t for n, t in conn.execute(f"SELECT name, type FROM {schema}.sqlite_master WHERE type IN "
                                          "('table', 'view') AND name NOT LIKE 'sqlite_%'")}


def compare(old: Path, new: Path, ignore: set[str] = frozenset(), examples: int = 3,
            skip: set[str] = frozenset()) -> dict[str, tuple]:
    """table -> ((count, a few rows) only in OLD, (count, a few rows) only in NEW) for every table or
    view that differs, but those in `skip`. SQLite computes the differences (EXCEPT), so memory
    stays small."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"ATTACH DATABASE '{old.as_posix()}' AS o")
    conn.execute(f"ATTACH DATABASE '{new.as_posix()}' AS n")
    out = {}
    ro, rn = _relations(conn, "o"), _relations(conn, "n")
    for name in sorted(set(ro) | set(rn)):
        if name in PROVENANCE or name in INTERNAL or name in skip:
            continue
        if name not in ro or name not in rn:
            out[name] = ((1, (f"{name}: only in NEW",) if name not in ro else (f"{name}: only in OLD",)), (0, ()))
            continue
        cols_o = [r[1] for r in conn.execute(f"PRAGMA o.table_info({name})")]
        cols_n = [r[1] for r in conn.execute(f"PRAGMA n.table_info({name})")]
        if set(cols_o) != set(cols_n):
            out[name] = ((1, (f"columns {sorted(set(cols_o) - set(cols_n))} only in OLD",)),
                         (1, (f"columns {sorted(set(cols_n) - set(cols_o))} only in NEW",)))
            continue
        cols = ", ".join(f'"{c}"' for c in cols_o if f"{name}.{c}" not in ignore)
        sides = []
        for a, b in (("o", "n"), ("n", "o")):
            q = f"SELECT {cols} FROM {a}.{name} EXCEPT SELECT {cols} FROM {b}.{name}"
            count = conn.execute(f"SELECT count(*) FROM ({q})").fetchone()[0]
            sides.append((count, tuple(conn.execute(f"{q} LIMIT {examples}")) if count else ()))
        if sides[0][0] or sides[1][0]:
            out[name] = tuple(sides)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--ignore", nargs="*", default=[], metavar="TABLE.COLUMN")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        diffs = compare(_path(args.old, Path(scratch)), _path(args.new, Path(scratch)), set(args.ignore))
    for name, ((n_old, only_old), (n_new, only_new)) in diffs.items():
        print(f"{name}: {n_old} rows only in OLD, {n_new} only in NEW")
        for r in only_old:
            print(f"  - {r}")
        for r in only_new:
            print(f"  + {r}")
    if not diffs:
        print("every table and view holds the same rows")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
