"""GitHub workflow commands: annotations on the spec lines that caused the changes."""
from __future__ import annotations

from ptxspec.diff.changes import RANK, SEVERITIES, Group, Report, group_changes
from ptxspec.diff.report_text import counts_line

_LEVEL = {"breaking": "error", "warning": "warning", "info": "notice"}


def gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_prop(text: str) -> str:
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, fail_on: str | None = None) -> str:
    """Workflow commands: one annotation per rule and cause location (GitHub shows a few per step)."""
    buckets: dict[tuple, list[Group]] = {}
    for g in group_changes(report.changes):
        c = g.first
        buckets.setdefault((c.ignored, RANK[c.severity], c.rule, c.file, c.line), []).append(g)
    lines = []
    for (ignored, rank, rule, file, line), gs in sorted(buckets.items(), key=lambda kv: kv[0]):
        sev = SEVERITIES[rank]
        level = "notice" if ignored else _LEVEL[sev]
        n = sum(len(g.changes) for g in gs)
        col = gs[0].first.col
        side = " (BASE)" if gs[0].first.side == "base" else ""
        title = f"{rule}: {n} {sev} change{'s' * (n != 1)}{' (ignored)' if ignored else ''}{side}"
        parts = [g.text().replace("`", "") for g in gs]
        msg = ""
        for i, p in enumerate(parts):
            if len(msg) + len(p) > 3000:
                msg += f"\n... and {len(parts) - i} more"
                break
            msg += ("\n" if msg else "") + p
        lines.append(f"::{level} file={gh_prop(file)},line={line},col={col},title={gh_prop(title)}::{gh_data(msg)}")
    failing = report.failing(fail_on)
    summary = f"ptxspec diff {report.base.describe()} -> {report.head.describe()}: {counts_line(report)}"
    if fail_on:
        summary += f"; --fail-on {fail_on}: {len(failing)} failing"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def render_cannot_compare(exc) -> list[str]:
    """Annotations for a tree that could not be loaded (each problem at its file and line)."""
    out = []
    for file, line, col, msg, label in exc.annotations:
        title = gh_prop(f"ptxspec diff: {label} is not a valid spec")
        out.append(f"::error file={gh_prop(file)},line={line},col={col},title={title}::{gh_data(msg)}")
    if not exc.annotations:
        out.append(f"::error title=ptxspec diff%3A cannot compare::{gh_data(exc.headline)}")
    return out
