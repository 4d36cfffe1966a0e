"""One line per change, with its cause and fingerprint: for terminals and logs."""
from __future__ import annotations

from ptxspec.diff.changes import Report


def counts_line(report: Report) -> str:
    n = report.counts()
    line = f"{n['breaking']} breaking, {n['warning']} warning, {n['info']} info"
    if n["ignored"]:
        line += f", {n['ignored']} ignored"
    return line


def render_text(report: Report, fail_on: str | None = None) -> str:
    out = [f"ptxspec diff: BASE {report.base.describe()} -> HEAD {report.head.describe()}"]
    for c in report.changes:
        sev = f"ignored {c.severity}" if c.ignored else c.severity
        where = f"{c.file}:{c.line}:{c.col}"
        side = " (BASE)" if c.side == "base" else ""
        out.append(f"{where}{side}: {sev}: {c.rule}: {c.message} [{c.fingerprint[:16]}]")
    nb, nh = len(report.base.spec.variants), len(report.head.spec.variants)
    out.append(f"{len(report.changes)} change{'s' * (len(report.changes) != 1)}: {counts_line(report)} "
               f"({nb} -> {nh} variants)")
    failing = report.failing(fail_on)
    if fail_on:
        out.append(f"--fail-on {fail_on}: {len(failing)} failing change{'s' * (len(failing) != 1)}")
    return "\n".join(out) + "\n"
