"""The `ptxspec` command: validate, build, query (see README.md and shared PRODUCT.md)."""
from __future__ import annotations

import argparse
import csv
import gc
import json
import os
import sys
from pathlib import Path

from . import __version__
from .paths import DataNotFound, datasette_metadata, default_build_dir, default_database, default_spec_dir

TABLE_COLUMNS = ("ptx", "form", "min_ptx", "targets", "regs")
FRAGMENT_COLUMNS = ("variant_id", "operand", "thread", "reg", "slot", "row", "col")
LOADER_COLUMNS = ("variant_id", "operand", "storage", "direction", "status", "form", "instructions", "row", "col",
                  "reason", "evidence")


class UsageError(Exception):
    pass


def _load(args):
    from . import load
    return load(args.spec)


def cmd_validate(args) -> int:
    spec = _load(args)
    print(f"{args.spec or default_spec_dir()}: ok: {len(spec.variants)} variants, {len(spec.instructions)} "
          f"instructions, {len(spec.errata)} errata", file=sys.stderr if args.quiet else sys.stdout)
    return 0


def cmd_build(args) -> int:
    out = Path(args.out) if args.out else default_output(args.spec)
    if out is None:  # an installed package: its data is read-only, and not the whole of generated/
        raise UsageError("this ptxspec is installed from a wheel, not run from a source checkout, so there is no "
                         "generated/ to write; pass --out DIR to build every artifact into DIR")
    from . import build as build_mod
    spec = _load(args)
    files = build_mod.artifacts(spec)
    if args.check:
        stale = build_mod.stale(out, files)
        if stale:
            for rel in stale:
                print(f"{out / rel.split(' ')[0]}: stale{'' if ' ' not in rel else ' ' + rel.split(' ', 1)[1]}; "
                      "run `ptxspec build`", file=sys.stderr)
            return 1
        print(f"{out}: up to date ({len(files)} files)")
        return 0
    try:
        changed = build_mod.write(out, files)
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"{out}: {len(files)} files, {len(changed)} changed")
    return 0


def default_output(spec: str | None) -> Path | None:
    """Where build writes without --out: for `--spec DIR`, generated/ beside DIR (never the
    checkout's, which belongs to its own spec); otherwise the checkout's generated/ (None when
    installed from a wheel)."""
    return Path(spec).resolve().parent / "generated" if spec else default_build_dir()


def _database(args):
    """The committed database, or (with --spec/--db) one built from another spec tree or file."""
    from .query import Database
    if args.db:
        return Database.open(args.db)
    if args.spec:
        from .emit.sqlite import connect
        return Database(connect(_load(args)))
    return Database.open(default_database())


def cmd_query(args) -> int:
    from .query import QueryError
    try:
        db = _database(args)
        if args.errata:
            rows = db.errata(args.family)
            if args.format == "table":
                sys.stdout.write(_errata_text(rows))
                return 0
            return _emit(rows, args.format, ("id", "family", "title"))
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
                return _emit(rows, args.format, LOADER_COLUMNS)
            if args.operands:
                rows = [dict(o, variant_id=i) for i in ids for o in db.operands(i)]
                return _emit(rows, args.format, ("variant_id", "position", "name", "kind", "regs", "reg_type",
                                                 "element_type", "legal_values"))
            if args.scale:
                return _emit_scale(db, ids, args)
            if args.fragment:
                json_out = args.format == "json"
                rows = [r for i in ids for r in db.fragment_rows(i, args.fragment, args.row, args.col, args.thread,
                                                                  as_json=json_out)]
                return _emit_tuples(FRAGMENT_COLUMNS, rows, args.format)
            rows = [r for i in ids for r in db.variants([f"id={i}"])]
            return _emit(rows, args.format, TABLE_COLUMNS)
        if args.row is not None or args.col is not None or args.thread is not None:
            raise UsageError("--row/--col/--thread go with --fragment OPERAND or --scale OPERAND")
        if args.k is not None or args.byte is not None:
            raise UsageError("--k/--byte go with --scale OPERAND")
        if args.format == "json":  # composed by SQLite: thousands of variants in milliseconds
            _write_json(db.variants_json(args.filters, args.family, args.target, args.ptx))
            return 0
        return _emit_variants(db, args)
    except QueryError as exc:
        raise UsageError(str(exc)) from None


def _emit_scale(db, ids, args) -> int:
    """Who holds the block-scale factor of A[row][k] / B[k][col], or what a thread's scale byte covers."""
    from .query import SCALE_FIELDS, scale_rows
    json_out = args.format == "json"
    rows = [r for i in ids for r in scale_rows(db, i, args.scale, args.row, args.col, args.k, args.thread, args.byte,
                                               as_json=json_out)]
    if args.format == "table":
        rows = [tuple("" if x is None else x for x in r) for r in rows]
    return _emit_tuples(SCALE_FIELDS, rows, args.format)


def _emit_tuples(columns, rows, fmt: str) -> int:
    """Rows already shaped for their format (JSON objects for json, tuples otherwise)."""
    if fmt == "json":
        _write_json(rows)
    elif fmt == "csv":
        if rows:
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(columns)
            w.writerows(rows)
    else:
        _write_table(columns, rows)
    return 0


def _cell(value) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def _emit_variants(db, args) -> int:
    """The variants table or CSV from plain tuples of the columns shown (the answer can be every
    variant: no dict per row, only targets and regs decoded)."""
    from .query import JSON_COLUMNS
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
            row[i] = _cell(db.json_cell(row[i], columns[i], row[0])) if row[i] is not None else ""
        cells.append(row)
    if args.format == "csv":
        if cells:
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(columns)
            w.writerows(cells)  # None as "", integers (satfinite and sparse too) as digits
        return 0
    _write_table(columns, [["" if x is None else x for x in row] for row in cells])
    return 0


def _write_table(columns, table) -> None:
    """Columns left-aligned to their widest cell; cells are strings or integers (no None)."""
    widths = [max([len(c)] + [len(str(x)) for x in set(col)]) for c, col in zip(columns, zip(*table))] \
        if table else [len(c) for c in columns]
    line = "  ".join(f"%-{w}s" for w in widths)
    out = [(line % tuple(columns)).rstrip()]
    out += [(line % tuple(t)).rstrip() for t in table]
    out.append(f"({_count(len(table), 'row')})")
    sys.stdout.write("\n".join(out) + "\n")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _errata_text(rows: list[dict]) -> str:
    """Each erratum with what the manual says, what is true, and every piece of its evidence."""
    import textwrap
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
    out.append(f"({_count(len(rows), 'erratum')})".replace("erratums", "errata"))
    return "\n".join(out) + "\n"


def _write_json(objects: list[str]) -> None:
    """A JSON array of JSON texts, one element per line."""
    sys.stdout.write("[\n" + ",\n".join(objects) + "\n]\n" if objects else "[]\n")


def _emit(rows: list[dict], fmt: str, columns) -> int:
    if fmt == "json":
        dumps = json.JSONEncoder().encode  # the C encoder (no indent)
        _write_json([dumps(r) for r in rows])
    elif fmt == "csv":
        if rows:
            keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict)) or k in ("targets", "regs")]
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(keys)
            for r in rows:
                w.writerow([_cell(r[k]) for k in keys])
    else:
        _write_table(columns, [[_cell(r.get(c)) for c in columns] for r in rows])
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptxspec", description="The machine-checked spec of PTX matrix instructions.")
    p.add_argument("--version", action="version", version=f"ptxspec {__version__}")
    p.add_argument("--spec", metavar="DIR", help="spec directory (default: the checkout's spec/, or the one "
                   "installed with the package)")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check the spec; one line per problem")
    v.add_argument("-q", "--quiet", action="store_true", help="print the summary to stderr")
    b = sub.add_parser("build", help="write every artifact under generated/ (or --out DIR)")
    b.add_argument("--out", metavar="DIR", help="output directory (default: generated/ beside the --spec "
                   "directory, or the checkout's generated/; an installed package needs --out)")
    b.add_argument("--check", action="store_true", help="write nothing; exit 1 naming stale files")
    q = sub.add_parser("query", help="variants, operands, fragments, errata",
                       description="Variants filtered by any column of the variants table (FIELD=VALUE, also "
                       "!= < <= > >=, VALUE lists a,b, and FIELD~PATTERN with * wildcards); with --target and "
                       "--ptx only those valid there. --fragment answers which thread and register hold an "
                       "element, or what a thread holds.")
    q.add_argument("--family")
    q.add_argument("--target", metavar="SM", help="only variants valid on this target")
    q.add_argument("--ptx", metavar="X.Y", help="only variants valid at this PTX version")
    q.add_argument("--format", choices=("table", "json", "csv"), default="table")
    q.add_argument("--errata", action="store_true", help="list errata instead of variants")
    q.add_argument("--variant", metavar="ID|OPCODE", help="one variant, by id or opcode")
    q.add_argument("--form", choices=("reg", "desc"), help="operand form, with an opcode that has several")
    q.add_argument("--operands", action="store_true", help="list the operands of the variant(s)")
    q.add_argument("--fragment", metavar="OPERAND", help="elements of a register operand (a, b, c, d)")
    q.add_argument("--loader", metavar="OPERAND", help="how ldmatrix loads (stmatrix stores) a fragment (a, b, c, d) "
                   "from (to) a tile in shared memory")
    q.add_argument("--storage", choices=("row", "col"), help="with --loader: the tile row- or column-major")
    q.add_argument("--direction", choices=("load", "store"), help="with --loader: load or store")
    q.add_argument("--row", type=int, help="with --fragment: matrix row; with --scale: row of A")
    q.add_argument("--col", type=int, help="with --fragment: matrix column; with --scale: column of B")
    q.add_argument("--thread", type=int, help="with --fragment or --scale: thread")
    q.add_argument("--scale", metavar="OPERAND", help="block-scale factors of a scale operand (scale_a, scale_b): "
                   "with --row/--col and --k who holds a factor, with --thread and --byte what a byte covers")
    q.add_argument("--k", type=int, help="with --scale: the k whose block-scale factor is asked for")
    q.add_argument("--byte", type=int, help="with --scale: byte of the scale register (0 = bits 0-7)")
    q.add_argument("--db", metavar="FILE", help="query this database file instead of generated/ptxspec.sqlite")
    q.add_argument("filters", nargs="*", metavar="FIELD=VALUE", help="filters on columns of the variants table")
    w = sub.add_parser("serve", help="browse the database in Datasette (pip install 'ptxspec[web]')")
    w.add_argument("--port", type=int, default=8001)
    w.add_argument("--db", metavar="FILE", help="database file (default: generated/ptxspec.sqlite)")
    d = sub.add_parser("diff", help="semantic report of what changed between two spec trees")
    d.add_argument("base", metavar="BASE", nargs="?", help="spec directory or git revision")
    d.add_argument("head", metavar="HEAD", nargs="?", help="spec directory or git revision (default: --spec or spec/)")
    d.add_argument("--format", choices=("text", "markdown", "json", "github"), default="text")
    d.add_argument("--fail-on", choices=("breaking", "warning"), help="exit 1 when changes of this severity or worse remain")
    d.add_argument("--ignore", metavar="FILE", help="file of fingerprints of approved changes")
    d.add_argument("--severity-overrides", metavar="FILE",
                   help="file of `RULE SEVERITY` lines (RULE may be a glob like isa.*) replacing rules' severities")
    d.add_argument("--list-rules", action="store_true", help="list every rule: id, severity, description")
    # `ptxspec audit`: one self-contained block (the command lives in ptxspec.audit)
    au = sub.add_parser("audit", help="check another tool's PTX bindings (CCCL, CuTe, LLVM) against the spec")
    au.add_argument("peer", choices=("cccl", "cutlass", "llvm"), help="whose bindings")
    au.add_argument("path", metavar="PATH", nargs="?", help="a checkout (default: the installed nvidia-cuda-cccl or "
                    "nvidia-cutlass wheel; llvm needs one)")
    au.add_argument("--format", choices=("text", "json", "markdown", "github"), default="text")
    au.add_argument("--ptxas", action="store_true", help="adjudicate spelling and guard findings with ptxas")
    au.add_argument("--family", action="append", metavar="F", help="only this family (repeatable)")
    r = sub.add_parser("render", help="render a Jinja2 template over the model (see ptxspec.render)")
    r.add_argument("template", metavar="TEMPLATE", help="template file (examples/NAME: the checkout's or the "
                   "installed package's example)")
    r.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    return p


def cmd_serve(args) -> int:
    """Datasette on 127.0.0.1 only, with the generated metadata (descriptions, canned queries, facets).

    It runs in this process (uvicorn, as `datasette serve` runs it): SIGINT and SIGTERM stop the
    server and the command, and no child process is left behind."""
    try:
        import uvicorn
        from datasette.app import Datasette
    except ImportError:
        raise UsageError("Datasette is not installed; pip install 'ptxspec[web]'") from None
    import asyncio
    db = Path(args.db) if args.db else default_database()
    meta = datasette_metadata()
    if not db.is_file() or not meta.is_file():
        raise UsageError(f"{db if not db.is_file() else meta} not found; run `ptxspec build`")
    from .query import Database, QueryError
    try:  # a damaged or foreign file is one clear line here, not an error page per request
        Database.open(db).conn.close()
    except QueryError as exc:
        raise UsageError(str(exc)) from None
    settings = {"default_page_size": 50, "sql_time_limit_ms": 2000, "max_returned_rows": 20000}
    ds = Datasette([], immutables=[str(db)], metadata=json.loads(meta.read_text(encoding="utf-8")),
                   settings=settings)  # the database is named after the file's stem
    asyncio.run(ds.invoke_startup())
    print(f"ptxspec: serving {db} on http://127.0.0.1:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(ds.app(), host="127.0.0.1", port=args.port, log_level="warning", lifespan="on", workers=1)
    return 0


def cmd_diff(args) -> int:
    from .diff import cmd_diff as run
    return run(args)


def cmd_audit(args) -> int:
    from .audit import cmd_audit as run  # the audit's readers load only for this command
    return run(args)


def _template(name: str) -> str:
    """A template file; `examples/NAME` falls back to the example installed with the package."""
    path = Path(name)
    if not path.is_file() and path.parts[:1] == ("examples",):
        from .paths import data_root
        packaged = data_root() / path
        if packaged.is_file():
            return str(packaged)
    return name


def cmd_render(args) -> int:
    from .render import RenderError, render
    try:
        text = render(_load(args), _template(args.template))
    except RenderError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.out:
        from .build import write_file
        write_file(Path(args.out), text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0


COMMANDS = {"validate": cmd_validate, "build": cmd_build, "query": cmd_query, "serve": cmd_serve, "diff": cmd_diff,
            "render": cmd_render, "audit": cmd_audit}


def _spec_error():
    from .errors import SpecError  # imports dataclasses: kept off the query path
    return SpecError


#: commands that build a model in one go and end: the cyclic garbage collector only slows them down
#: (a model is millions of long-lived objects, rescanned at every collection: a second of a 4.4 s
#: build), and their peak memory is the same without it. `serve` runs on, and keeps it.
WITHOUT_GC = frozenset(COMMANDS) - {"serve"}


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    collecting = gc.isenabled()
    if args.command in WITHOUT_GC:
        gc.disable()
    try:
        return _run_command(args)
    finally:
        if collecting:
            gc.enable()


def run() -> None:
    """The `ptxspec` console script and `python -m ptxspec`: main(), then an immediate exit. Every
    file is written and closed and the worker pool joined by then; freeing the model object by object
    at interpreter exit took another half second of a build."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away, as main() treats it
            pass
    os._exit(code)


def _run_command(args) -> int:
    try:
        return COMMANDS[args.command](args)
    except _spec_error() as exc:  # evaluated only when something was raised
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except (UsageError, DataNotFound) as exc:
        print(f"ptxspec {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment, not ptxspec: an unwritable output, a vanished file, ...
        where = exc.filename or args.spec or default_spec_dir()
        print(f"{where}:1:1: error: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in ptxspec itself: one line, the trace only on request
        if os.environ.get("PTXSPEC_DEBUG"):
            raise
        try:
            where = args.spec or default_spec_dir()
        except DataNotFound:
            where = "ptxspec"
        print(f"{where}:1:1: error: internal error in ptxspec {args.command} (a bug, please report): "
              f"{type(exc).__name__}: {exc}; set PTXSPEC_DEBUG=1 for the traceback", file=sys.stderr)
        return 3


if __name__ == "__main__":
    run()
