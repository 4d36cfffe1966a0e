"""A pull-request comment: counts per rule, then one line per group of alike changes, kept
under GitHub's comment size limit."""
from __future__ import annotations

import os

from ptxspec.diff.changes import RANK, SEVERITIES, Change, Group, Report, group_changes
from ptxspec.diff.plain import short

MARKDOWN_BUDGET = 60_000  # bytes; GitHub comments stop at 65,536

_ICON = {"breaking": "\U0001F534", "warning": "\U0001F7E1", "info": "\U0001F535"}
_TITLE = {"breaking": "Breaking", "warning": "Warnings", "info": "Info"}
_FOOTER = ("\n<sub>Every change with its fingerprint: `ptxspec diff BASE HEAD --format text` (or `json`). "
           "Approve a breaking change by adding its fingerprint to the `--ignore` file.</sub>\n")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def _escape_desc(text: str) -> str:
    # keep the code spans of describe() intact, escape the rest
    parts = text.split("`")
    return "`".join(p if i % 2 else _escape(p) for i, p in enumerate(parts))


def _link(report: Report, c: Change) -> str:
    side = report.base if c.side == "base" else report.head
    label = f"{c.file}:{c.line}" + (" (BASE)" if c.side == "base" else "")
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if side.kind == "git" and side.sha and server and repo:
        return f"[`{label}`]({server}/{repo}/blob/{side.sha}/{c.file}#L{c.line})"
    return f"`{label}`"


def _header(report: Report, fail_on: str | None) -> list[str]:
    counts = report.counts()
    nb, nh = len(report.base.spec.variants), len(report.head.spec.variants)
    head = [f"### ptxspec diff: `{report.base.describe()}` \u2192 `{report.head.describe()}`", ""]
    if not report.changes:
        return head + [f"No semantic changes ({nh} variants)."]
    bits = [f"**{counts[s]} {s}**" if counts[s] and s != "info" else f"{counts[s]} {s}" for s in SEVERITIES]
    if counts["ignored"]:
        bits.append(f"{counts['ignored']} ignored (approved)")
    head.append(" \u00b7 ".join(bits) + f" \u2014 {nb} \u2192 {nh} variants")
    failing = report.failing(fail_on)
    if fail_on:
        head.append("")
        head.append(f"`--fail-on {fail_on}`: **{len(failing)} failing change{'s' * (len(failing) != 1)}**"
                    if failing else f"`--fail-on {fail_on}`: nothing fails")
    table: dict[tuple, list] = {}  # rule x counts
    for c in report.changes:
        row = table.setdefault((c.ignored, RANK[c.severity], c.rule), [0, set()])
        row[0] += 1
        row[1].add(c.instruction or "-")
    head += ["", "| severity | rule | changes | instructions |", "|---|---|---:|---|"]
    for (ign, rank, rule), (n, insts) in sorted(table.items()):
        sev = SEVERITIES[rank]
        label = f"{_ICON[sev]} {sev}" + (" (ignored)" if ign else "")
        head.append(f"| {label} | `{rule}` | {n} | {', '.join(sorted(insts))} |")
    return head + [""]


def _sections(report: Report) -> list[tuple[str, list[Group]]]:
    groups = group_changes(report.changes)
    sections = []
    for sev in SEVERITIES:
        gs = [g for g in groups if not g.first.ignored and g.first.severity == sev]
        if gs:
            sections.append((f"#### {_ICON[sev]} {_TITLE[sev]}", gs))
    ign = [g for g in groups if g.first.ignored]
    if ign:
        sections.append(("#### Ignored (approved in the ignore file)", ign))
    return sections


def render_markdown(report: Report, fail_on: str | None = None, budget: int = MARKDOWN_BUDGET) -> str:
    out = "\n".join(_header(report, fail_on)) + "\n"
    if not report.changes:
        return out
    size = len(out.encode()) + len(_FOOTER.encode()) + 200
    omitted = 0
    body: list[str] = []
    for title, gs in _sections(report):
        chunk = [f"\n{title}\n"]
        size += len(title) + 3
        for line in _lines(report, gs):
            cost = len(line.encode()) + 1
            if size + cost > budget:
                omitted += 1
                continue
            chunk.append(line)
            size += cost
        fps = [c for g in gs for c in g.changes if c.severity != "info" and not c.ignored]
        if fps and len(chunk) > 1 and len(fps) <= 200:
            listing = "\n".join(f"{c.fingerprint}  {c.rule} {c.subject}" for c in fps)
            block = (f"\n<details><summary>{len(fps)} fingerprint{'s' * (len(fps) != 1)} "
                     f"(to approve in an ignore file)</summary>\n\n```\n{listing}\n```\n</details>")
            if size + len(block.encode()) <= budget:
                chunk.append(block)
                size += len(block.encode())
        if len(chunk) > 1:
            body.append("\n".join(chunk))
    out += "\n".join(body) + "\n"
    if omitted:
        out += (f"\n_{omitted} more group{'s' * (omitted != 1)} left out to stay under GitHub's 64 KB; "
                "run `ptxspec diff BASE HEAD --format text` for the full list._\n")
    return out + _FOOTER


def _lines(report: Report, groups: list[Group]) -> list[str]:
    """One line per group; a run of more than 5 lone definition changes of one rule and file is one line."""
    lines, i = [], 0
    while i < len(groups):
        g = groups[i]
        c = g.first
        if not c.instruction:
            j = i
            while (j < len(groups) and not groups[j].first.instruction and groups[j].first.rule == c.rule
                   and groups[j].first.file == c.file and groups[j].first.ignored == c.ignored):
                j += 1
            if j - i > 5:
                run = [x.first for x in groups[i:j]]
                names = ", ".join(x.subject for x in run)
                lines.append(f"- `{c.rule}` \u00d7{len(run)} in `{c.file}` (lines {run[0].line}-{run[-1].line}"
                             f"{', BASE' if c.side == 'base' else ''}): {_escape(short(names, 600))}")
                i = j
                continue
        n = len(g.changes)
        count = f" \u00d7{n}" if n > 1 else ""
        line = f"- `{c.rule}`{count} {_escape_desc(g.text())} \u2014 {_link(report, c)}"
        if c.rule == "fragment.moved":
            line += f" ({_escape(c.message.split(': ', 2)[-1])} at n={c.n} {c.form})"
        lines.append(line)
        i += 1
    return lines
