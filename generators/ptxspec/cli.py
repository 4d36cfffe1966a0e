"""The `ptxspec` command: validate, build, query (see README.md and shared PRODUCT.md)."""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from pathlib import Path

from . import build as build_mod
from .errors import SpecError
from .isa import Version
from .source import default_spec_dir, did_you_mean

QUERY_FIELDS = ("id", "family", "instruction", "ptx", "form", "m", "n", "k", "atype", "btype", "ctype", "dtype",
                "satfinite", "op", "sparse", "min_ptx")
TABLE_COLUMNS = ("ptx", "form", "min_ptx", "targets", "regs")


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
    spec = _load(args)
    files = build_mod.artifacts(spec)
    out = Path(args.out) if args.out else default_spec_dir().parent / "generated"
    if args.check:
        stale = build_mod.stale(out, files)
        if stale:
            for rel in stale:
                print(f"{out / rel.split(' ')[0]}: stale{'' if ' ' not in rel else ' ' + rel.split(' ', 1)[1]}; "
                      "run `ptxspec build`", file=sys.stderr)
            return 1
        print(f"{out}: up to date ({len(files)} files)")
        return 0
    changed = build_mod.write(out, files)
    print(f"{out}: {len(files)} files, {len(changed)} changed")
    return 0


def _coerce(field: str, value: str):
    if field in ("m", "n", "k"):
        try:
            return int(value)
        except ValueError:
            raise UsageError(f"{field} must be an integer, not {value!r}") from None
    if field in ("satfinite", "sparse"):
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise UsageError(f"{field} must be true or false, not {value!r}")
    return value


def cmd_query(args) -> int:
    spec = _load(args)
    if args.errata:
        rows = [{"id": e.id, "family": e.family, "title": e.title, "manual": e.manual, "manual_says": e.manual_says,
                 "truth": e.truth, "evidence": e.evidence} for e in spec.errata
                if not args.family or e.family == args.family]
        return _emit(rows, args.format, ("id", "family", "title"))
    filters = {}
    for item in args.filters:
        if "=" not in item:
            raise UsageError(f"filters are FIELD=VALUE, not {item!r}; fields: {', '.join(QUERY_FIELDS)}")
        field, value = item.split("=", 1)
        if field not in QUERY_FIELDS:
            raise UsageError(f"unknown field {field!r}{did_you_mean(field, QUERY_FIELDS)}; "
                             f"fields: {', '.join(QUERY_FIELDS)}")
        filters[field] = _coerce(field, value)
    if args.family and args.family not in spec.families:
        raise UsageError(f"unknown family {args.family!r}{did_you_mean(args.family, spec.families)}; "
                         f"families: {', '.join(sorted(spec.families))}")
    if args.target and args.target not in spec.targets:
        raise UsageError(f"unknown target {args.target!r}{did_you_mean(args.target, spec.targets)}")
    if args.ptx:
        try:
            ver = Version.parse(args.ptx)
        except ValueError:
            raise UsageError(f"--ptx takes a version like 8.0, not {args.ptx!r}") from None
        if ver not in spec.ptx_versions:
            raise UsageError(f"unknown PTX version {args.ptx!r}; known: {', '.join(map(str, spec.ptx_versions))}")
    found = spec.query(family=args.family, target=args.target, ptx=args.ptx, **filters)
    rows = [v.as_record() for v in found]
    return _emit(rows, args.format, TABLE_COLUMNS)


def _cell(value) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def _emit(rows: list[dict], fmt: str, columns) -> int:
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif fmt == "csv":
        if rows:
            keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict)) or k in ("targets", "regs")]
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(keys)
            for r in rows:
                w.writerow([_cell(r[k]) if isinstance(r[k], (list, dict)) else _cell(r[k]) for k in keys])
    else:
        table = [[_cell(r.get(c)) for c in columns] for r in rows]
        widths = [max([len(c)] + [len(t[i]) for t in table]) for i, c in enumerate(columns)]
        buf = io.StringIO()
        buf.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
        for t in table:
            buf.write("  ".join(x.ljust(w) for x, w in zip(t, widths)).rstrip() + "\n")
        buf.write(f"({len(rows)} rows)\n")
        sys.stdout.write(buf.getvalue())
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptxspec", description="The machine-checked spec of PTX matrix instructions.")
    p.add_argument("--spec", metavar="DIR", help="spec directory (default: the repository's spec/)")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check the spec; one line per problem")
    v.add_argument("-q", "--quiet", action="store_true", help="print the summary to stderr")
    b = sub.add_parser("build", help="write every artifact under generated/")
    b.add_argument("--out", metavar="DIR", help="output directory (default: generated/ beside spec/)")
    b.add_argument("--check", action="store_true", help="write nothing; exit 1 naming stale files")
    q = sub.add_parser("query", help="list variants (or errata)")
    q.add_argument("--family")
    q.add_argument("--target", metavar="SM", help="only variants valid on this target")
    q.add_argument("--ptx", metavar="X.Y", help="only variants valid at this PTX version")
    q.add_argument("--format", choices=("table", "json", "csv"), default="table")
    q.add_argument("--errata", action="store_true", help="list errata instead of variants")
    q.add_argument("filters", nargs="*", metavar="FIELD=VALUE", help=f"fields: {', '.join(QUERY_FIELDS)}")
    return p


COMMANDS = {"validate": cmd_validate, "build": cmd_build, "query": cmd_query}


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except SpecError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"ptxspec {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug in ptxspec itself: one line, the trace only on request
        if os.environ.get("PTXSPEC_DEBUG"):
            raise
        print(f"ptxspec {args.command}: internal error: {type(exc).__name__}: {exc} "
              "(set PTXSPEC_DEBUG=1 for the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
