"""`ptxspec query`: answers from the database (generated/ptxspec.sqlite, or --db FILE), without
loading the spec; `--spec DIR` queries the database that spec would build, in memory."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import lazy_loader

import ptxspec
from ptxspec.cli.output import (
    FRAGMENT_COLUMNS,
    LOADER_COLUMNS,
    TABLE_COLUMNS,
    cell,
    emit,
    emit_tuples,
    errata_text,
    write_json_utf8,
    write_table,
)
from ptxspec.cli.usage import UsageError
from ptxspec.core.paths import default_database
from ptxspec.query.database import JSON_COLUMNS, SCALE_FIELDS, Database, QueryError, check_form, scale_rows

if TYPE_CHECKING:
    import csv
else:
    csv = lazy_loader.load("csv")  # the csv format only


def _database(args):
    """The committed database, or (with --spec/--db) one built from another spec tree or file."""
    if args.db:
        return Database.open(args.db)
    if args.spec:
        return ptxspec.database_of(args.spec)
    return Database.open(default_database())


def cmd_query(args) -> int:
    try:
        db = _database(args)
        check_form(db, args.form)
        if args.errata:
            rows = db.errata(args.family)
            if args.format == "table":
                sys.stdout.write(errata_text(rows))
                return 0
            return emit(rows, args.format, ("id", "family", "title"))
        if args.variant or args.fragment or args.operands or args.loader or args.scale:
            if args.variant:
                ids = [db.resolve_variant(args.variant, args.form)]
            else:
                extra = [f"form={args.form}"] if args.form else []
                ids = [r["id"] for r in db.variants(args.filters + extra, args.family, args.target, args.ptx)]
                if not ids:
                    raise UsageError("no variant matches the filters")
                if len(ids) > 64:
                    raise UsageError(f"{len(ids)} variants match; narrow the filters or name one with --variant")
            if args.loader:
                rows = [r for i in ids for r in db.loaders(i, args.loader, args.storage, args.direction)]
                return emit(rows, args.format, LOADER_COLUMNS)
            if args.operands:
                rows = [dict(o, variant_id=i) for i in ids for o in db.operands(i)]
                return emit(rows, args.format, ("variant_id", "position", "name", "kind", "regs", "reg_type",
                                                 "element_type", "legal_values"))
            if args.scale:
                return emit_scale(db, ids, args)
            if args.fragment:
                json_out = args.format == "json"
                rows = [r for i in ids for r in db.fragment_rows(i, args.fragment, args.row, args.col, args.thread,
                                                                  as_json=json_out)]
                return emit_tuples(FRAGMENT_COLUMNS, rows, args.format)
            rows = [r for i in ids for r in db.variants([f"id={i}"])]
            return emit(rows, args.format, TABLE_COLUMNS)
        if args.row is not None or args.col is not None or args.thread is not None:
            raise UsageError("--row/--col/--thread go with --fragment OPERAND or --scale OPERAND")
        if args.k is not None or args.byte is not None:
            raise UsageError("--k/--byte go with --scale OPERAND")
        if args.format == "json":  # composed by SQLite: thousands of variants in milliseconds
            write_json_utf8(db.variants_json_utf8(args.filters, args.family, args.target, args.ptx))
            return 0
        return emit_variants(db, args)
    except QueryError as exc:
        raise UsageError(str(exc)) from None


def emit_scale(db, ids, args) -> int:
    """Who holds the block-scale factor of A[row][k] / B[k][col], or what a thread's scale byte covers."""
    json_out = args.format == "json"
    rows = [r for i in ids for r in scale_rows(db, i, args.scale, args.row, args.col, args.k, args.thread, args.byte,
                                               as_json=json_out)]
    if args.format == "table":
        rows = [tuple("" if x is None else x for x in r) for r in rows]
    return emit_tuples(SCALE_FIELDS, rows, args.format)


def emit_variants(db, args) -> int:
    """The variants table or CSV from plain tuples of the columns shown (the answer can be every
    variant: no dict per row, only targets and regs decoded)."""
    shown = ("targets", "regs")
    if args.format == "table":
        columns = TABLE_COLUMNS
    else:
        columns = tuple(c for c in db.columns("variants") if c not in JSON_COLUMNS or c in shown)
    rows = db.variant_columns(columns, args.filters, args.family, args.target, args.ptx)
    where = [i for i, c in enumerate(columns) if c in shown]
    cells = []
    for row in rows:
        row = list(row)
        for i in where:
            row[i] = cell(db.json_cell(row[i], columns[i], row[0])) if row[i] is not None else ""
        cells.append(row)
    if args.format == "csv":
        if cells:
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(columns)
            w.writerows(cells)  # None as "", integers (satfinite and sparse too) as digits
        return 0
    write_table(columns, [["" if x is None else x for x in row] for row in cells])
    return 0
