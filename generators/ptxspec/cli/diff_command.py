"""`ptxspec diff`: the command line.

Exit codes: 0 nothing fails, 1 changes of the `--fail-on` severity (or worse) found, 2 could not
compare (a broken tree, an unknown revision, a bad ignore or overrides file).
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from ptxspec.core.paths import default_spec_dir
from ptxspec.diff.changes import Report
from ptxspec.diff.engine import compare
from ptxspec.diff.ignore import apply_ignore, read_ignore
from ptxspec.diff.report_github import render_cannot_compare
from ptxspec.diff.report_rules import render_rules
from ptxspec.diff.reports import RENDERERS
from ptxspec.diff.severity import read_severity_overrides, severities
from ptxspec.diff.sides import CompareError, Side, load_side, open_side

EXIT_OK, EXIT_FAIL, EXIT_CANNOT = 0, 1, 2


def _load_both(base: Side, head: Side) -> None:
    errors = []
    for side in (base, head):  # both, so that one run names every problem of either tree
        try:
            load_side(side)
        except CompareError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise CompareError("neither BASE nor HEAD can be loaded:",
                           [line for e in errors for line in (e.headline, *e.lines)],
                           [a for e in errors for a in e.annotations])


def _report(args, default: Path, overrides: dict[str, str]) -> tuple[Report, list]:
    with contextlib.ExitStack() as stack:
        entries = read_ignore(args.ignore) if args.ignore else None
        base = open_side(args.base, "BASE", default, stack)
        head = open_side(args.head, "HEAD", default, stack) if args.head else Side("HEAD", str(default),
                                                                                    "directory", default)
        _load_both(base, head)
        report = compare(base, head, overrides)
        unused = apply_ignore(report, entries) if entries is not None else []
        return report, unused


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        pass


def cmd_diff(args) -> int:
    fmt, fail_on = args.format, args.fail_on
    default = Path(args.spec) if args.spec else default_spec_dir()
    try:
        overrides = read_severity_overrides(args.severity_overrides) if args.severity_overrides else {}
        if args.list_rules:
            _write(render_rules(fmt, severities(overrides)))
            return EXIT_OK
        if not args.base:
            raise CompareError("BASE is missing: ptxspec diff BASE [HEAD] (or --list-rules)")
        report, unused = _report(args, default, overrides)
        text = RENDERERS[fmt](report, fail_on)
    except CompareError as exc:
        print(f"ptxspec diff: cannot compare: {exc.headline}", file=sys.stderr)
        for line in exc.lines:
            print(line, file=sys.stderr)
        if fmt == "github":
            for line in render_cannot_compare(exc):
                print(line)
        return EXIT_CANNOT
    for prefix, lineno in unused:
        print(f"{args.ignore}:{lineno}:1: warning: fingerprint {prefix} matches no change", file=sys.stderr)
    _write(text)
    return EXIT_FAIL if report.failing(fail_on) else EXIT_OK
