"""The `ptxspec` command: the parser, and the dispatch to the module of each command (see README.md
and shared PRODUCT.md).

Each command's module is imported when that command runs (`COMMANDS`, the one list of them):
`ptxspec query` answers from SQLite and must not pay for numpy, YAML or jsonschema, which the
commands that load the spec import.
"""
from __future__ import annotations

import gc
import importlib
import os
import sys
import types
from typing import TYPE_CHECKING

import lazy_loader

from ptxspec.cli.usage import UsageError
from ptxspec.core.paths import DataNotFound, default_spec_dir

if TYPE_CHECKING:  # annotations only: the query command never imports it
    import argparse

    from ptxspec.core.errors import SpecError
else:
    argparse = lazy_loader.load("argparse")  # not for a plain `ptxspec query` (quick_query_args)
from ptxspec.core.version import __version__

#: command -> (module of ptxspec.cli, function)
COMMANDS = {"validate": ("build_command", "cmd_validate"), "build": ("build_command", "cmd_build"),
            "query": ("query_command", "cmd_query"), "serve": ("serve_command", "cmd_serve"),
            "diff": ("diff_command", "cmd_diff"), "render": ("render_command", "cmd_render"),
            "audit": ("audit_command", "cmd_audit"), "explain": ("explain_command", "cmd_explain")}


def _SpecErrors() -> tuple[type[SpecError], ...]:
    """SpecError, where a command has imported it (it lives with the loader: the query command never
    imports it, and cannot raise it)."""
    errors = sys.modules.get("ptxspec.core.errors")
    return (errors.SpecError,) if errors is not None else ()


#: command -> (help, description) of its subparser, in the order `ptxspec --help` lists them
SUBCOMMANDS = {
    "validate": ("check the spec; one line per problem", None),
    "build": ("write every artifact under generated/ (or --out DIR)", None),
    "query": ("variants, operands, fragments, errata",
              "Variants filtered by any column of the variants table (FIELD=VALUE, also != < <= > >=, VALUE lists "
              "a,b, and FIELD~PATTERN with * wildcards); with --target and --ptx only those valid there. --fragment "
              "answers which thread and register hold an element, or what a thread holds."),
    "serve": ("browse the database in Datasette (pip install 'ptxspec[web]')", None),
    "diff": ("semantic report of what changed between two spec trees", None),
    "explain": ("where each fact of a variant is written (file:line)",
                "For one variant: its opcode template, shape, types, each qualifier, option, requirement clause and "
                "rule, each operand and register count, each map, its numerics rule and the errata it cites, each "
                "with the file:line:col that states it."),
    "audit": ("check another tool's PTX bindings (CCCL, CuTe, LLVM) against the spec", None),
    "render": ("render a Jinja2 template over the model (see ptxspec.emit.user_template)", None),
}


def parser(commands=None) -> argparse.ArgumentParser:
    """The whole parser; with `commands`, only those subcommands get their options (the others keep
    their name and help, so `ptxspec --help` and every usage line read the same): a command line
    selects a subcommand only by naming it, so `main` builds the options of the names it was given,
    and `ptxspec query` does not pay for building seven parsers it never reads."""
    p = argparse.ArgumentParser(prog="ptxspec", description="The machine-checked spec of PTX matrix instructions.")
    p.add_argument("--version", action="version", version=f"ptxspec {__version__}")
    p.add_argument("--spec", metavar="DIR", help="spec directory (default: the checkout's spec/, or the one "
                   "installed with the package)")
    sub = p.add_subparsers(dest="command", required=True)
    for name, (help_text, description) in SUBCOMMANDS.items():
        command = sub.add_parser(name, help=help_text, **({"description": description} if description else {}))
        if commands is None or name in commands:
            OPTIONS[name](command)
    return p


def _validate_options(v: argparse.ArgumentParser) -> None:
    v.add_argument("-q", "--quiet", action="store_true", help="print the summary to stderr")


def _build_options(b: argparse.ArgumentParser) -> None:
    b.add_argument("--out", metavar="DIR", help="output directory (default: generated/ beside the --spec "
                   "directory, or the checkout's generated/; an installed package needs --out)")
    b.add_argument("--check", action="store_true", help="write nothing; exit 1 naming stale files")


#: the options of `ptxspec query`: (flag, argparse keywords); the positional filters come after them
QUERY_OPTIONS: tuple[tuple[str, dict], ...] = (
    ("--family", {}),
    ("--target", {"metavar": "SM", "help": "only variants valid on this target"}),
    ("--ptx", {"metavar": "X.Y", "help": "only variants valid at this PTX version"}),
    ("--format", {"choices": ("table", "json", "csv"), "default": "table"}),
    ("--errata", {"action": "store_true", "help": "list errata instead of variants"}),
    ("--variant", {"metavar": "ID|OPCODE", "help": "one variant, by id or opcode"}),
    ("--form", {"metavar": "FORM", "help": "operand form, with an opcode that has several (wgmma: reg, desc; "
                "tcgen05.mma: desc, tmem and their _scaled kinds; ... the spec's forms)"}),
    ("--operands", {"action": "store_true", "help": "list the operands of the variant(s)"}),
    ("--fragment", {"metavar": "OPERAND", "help": "elements of a register operand (a, b, c, d)"}),
    ("--loader", {"metavar": "OPERAND", "help": "how ldmatrix loads (stmatrix stores) a fragment (a, b, c, d) from "
                  "(to) a tile in shared memory"}),
    ("--storage", {"choices": ("row", "col"), "help": "with --loader: the tile row- or column-major"}),
    ("--direction", {"choices": ("load", "store"), "help": "with --loader: load or store"}),
    ("--row", {"type": int, "help": "with --fragment: matrix row; with --scale: row of A"}),
    ("--col", {"type": int, "help": "with --fragment: matrix column; with --scale: column of B"}),
    ("--thread", {"type": int, "help": "with --fragment or --scale: thread"}),
    ("--scale", {"metavar": "OPERAND", "help": "block-scale factors of a scale operand (scale_a, scale_b): with "
                 "--row/--col and --k who holds a factor, with --thread and --byte what a byte covers"}),
    ("--k", {"type": int, "help": "with --scale: the k whose block-scale factor is asked for"}),
    ("--byte", {"type": int, "help": "with --scale: byte of the scale register (0 = bits 0-7)"}),
    ("--db", {"metavar": "FILE", "help": "query this database file instead of generated/ptxspec.sqlite"}),
)


def _query_options(q: argparse.ArgumentParser) -> None:
    for flag, options in QUERY_OPTIONS:
        q.add_argument(flag, **options)
    q.add_argument("filters", nargs="*", metavar="FIELD=VALUE", help="filters on columns of the variants table")


def _serve_options(w: argparse.ArgumentParser) -> None:
    w.add_argument("--port", type=int, default=8001)
    w.add_argument("--db", metavar="FILE", help="database file (default: generated/ptxspec.sqlite)")


def _diff_options(d: argparse.ArgumentParser) -> None:
    d.add_argument("base", metavar="BASE", nargs="?", help="spec directory or git revision")
    d.add_argument("head", metavar="HEAD", nargs="?", help="spec directory or git revision (default: --spec or spec/)")
    d.add_argument("--format", choices=("text", "markdown", "json", "github"), default="text")
    d.add_argument("--fail-on", choices=("breaking", "warning"), help="exit 1 when changes of this severity or worse remain")
    d.add_argument("--ignore", metavar="FILE", help="file of fingerprints of approved changes")
    d.add_argument("--severity-overrides", metavar="FILE",
                   help="file of `RULE SEVERITY` lines (RULE may be a glob like isa.*) replacing rules' severities")
    d.add_argument("--list-rules", action="store_true", help="list every rule: id, severity, description")


def _explain_options(e: argparse.ArgumentParser) -> None:
    e.add_argument("opcode", metavar="OPCODE", help="the variant's opcode (qualifiers in any order ptxas accepts) or id")
    e.add_argument("--form", metavar="FORM", help="operand form, with an opcode that has several")
    e.add_argument("--format", choices=("text", "json"), default="text")


def _audit_options(au: argparse.ArgumentParser) -> None:
    au.add_argument("peer", choices=("cccl", "cutlass", "llvm"), help="whose bindings")
    au.add_argument("path", metavar="PATH", nargs="?", help="a checkout (default: the installed nvidia-cuda-cccl or "
                    "nvidia-cutlass wheel; llvm needs one)")
    au.add_argument("--format", choices=("text", "json", "markdown", "github"), default="text")
    au.add_argument("--ptxas", action="store_true", help="adjudicate spelling and guard findings with ptxas")
    au.add_argument("--family", action="append", metavar="F", help="only this family (repeatable)")


def _render_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("template", metavar="TEMPLATE", help="template file (examples/NAME: the checkout's or the "
                   "installed package's example)")
    r.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    r.add_argument("--max-seconds", type=_positive(float), metavar="S", help="stop a rendering that runs longer "
                   "(default 300)")
    r.add_argument("--max-iterations", type=_positive(int), metavar="N", help="stop after this many loop "
                   "iterations, all loops together (default 20,000,000)")
    r.add_argument("--max-size", type=_positive(int), metavar="N", help="the largest string, list or mapping a "
                   "template may build, in items or characters (default 16,777,216)")
    r.add_argument("--max-output", type=_positive(int), metavar="N", help="the most output, in characters "
                   "(default 268,435,456)")


#: command -> the function that adds its options to its subparser
OPTIONS = {"validate": _validate_options, "build": _build_options, "query": _query_options, "serve": _serve_options,
           "diff": _diff_options, "explain": _explain_options, "audit": _audit_options, "render": _render_options}


def _positive(kind):
    """An argparse type: a number of `kind`, more than 0."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
        return value
    return parse


#: commands that build a model in one go and end: the cyclic garbage collector only slows them down
#: (a model is millions of long-lived objects, rescanned at every collection: a second of a 4.4 s
#: build), and their peak memory is the same without it. `serve` runs on, and keeps it.
WITHOUT_GC = frozenset(COMMANDS) - {"serve"}


def quick_query_args(argv: list[str]) -> types.SimpleNamespace | None:
    """What argparse makes of a plain `ptxspec query` command line, without importing argparse and
    building its parser (a tenth of `ptxspec query --format json`): `query` first, then each option
    by its full name (a value that is no option and passes its type and choices after it), the
    filters in one run. None for any other command line: argparse parses it, with its help and its
    errors (tests/test_cli_edges.py holds the two equal)."""
    if not argv or argv[0] != "query":
        return None
    options = dict(QUERY_OPTIONS)
    values = {"spec": None, "command": "query"}
    for flag, option in QUERY_OPTIONS:
        values[_dest(flag)] = option.get("default", False if option.get("action") == "store_true" else None)
    filters: list[str] = []
    at, ended = 1, False  # ended: a run of filters is over (a second run is an argparse error)
    while at < len(argv):
        word = argv[at]
        if not word.startswith("-"):
            if ended and filters:
                return None
            filters.append(word)
            at += 1
            continue
        option = options.get(word)
        if option is None:
            return None
        ended = bool(filters)
        if option.get("action") == "store_true":
            values[_dest(word)] = True
            at += 1
            continue
        if at + 1 >= len(argv) or argv[at + 1].startswith("-"):
            return None
        value = argv[at + 1]
        if "type" in option:
            try:
                value = option["type"](value)
            except ValueError:
                return None
        if value not in option.get("choices", (value,)):
            return None
        values[_dest(word)] = value
        at += 2
    return types.SimpleNamespace(**values, filters=filters)


def _dest(flag: str) -> str:
    """The attribute argparse stores an option's value in: --fail-on -> fail_on."""
    return flag[2:].replace("-", "_")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = quick_query_args(argv) or parser(COMMANDS.keys() & argv or None).parse_args(argv)
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
        module, function = COMMANDS[args.command]
        return getattr(importlib.import_module(f"{__package__}.{module}"), function)(args)
    except _SpecErrors() as exc:
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
