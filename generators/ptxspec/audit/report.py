"""An audit report as text, JSON (schema/audit-report.schema.json), markdown or GitHub annotations,
as `ptxspec diff` writes its reports."""
from __future__ import annotations

import json

from ptxspec.audit.findings import KINDS, Report

FORMAT_VERSION = 1
_LEVEL = {"error": "error", "warning": "warning"}
_KIND_TITLE = {"spelling": "spellings the spec does not have", "guard": "guards that disagree with the spec",
               "layout": "layouts and descriptor fields that differ from the spec"}


def _headline(r: Report) -> str:
    c = r.counts()
    judged = f"adjudicated by ptxas {r.ptxas}" if r.ptxas else "not adjudicated (run with --ptxas)"
    return (f"ptxspec audit {r.peer}{' ' + r.version if r.version else ''}: {c['spellings']} spellings read, "
            f"{c['matched']} matched ({c['distinct_variants']} distinct variants), {c['layouts_checked']} layouts "
            f"and fields checked; {c['findings']} findings ({c['by_kind']['spelling']} spelling, "
            f"{c['by_kind']['guard']} guard, {c['by_kind']['layout']} layout): {c['by_status']['confirmed']} "
            f"confirmed, {c['by_status']['refuted']} refuted (the spec is wrong), {c['by_status']['unadjudicated']} "
            f"unadjudicated; {judged}")


def _coverage_lines(r: Report) -> list[str]:
    out = []
    for fam, (a, t) in r.coverage.families.items():
        insts = ", ".join(f"{i} {x}/{n}" for i, (x, n) in r.coverage.instructions[fam].items())
        out.append(f"{fam}: {a}/{t} variants wrapped ({insts})")
    return out


def render_text(r: Report) -> str:
    out = [f"ptxspec audit {r.peer}: {r.root}"]
    for f in r.findings:
        judged = f" [{f.status}{': ' + f.verdict if f.verdict else ''}]"
        out.append(f"{f.file}:{f.line}: {f.severity}: {f.kind}: {f.message}{judged}")
    out.append("coverage:")
    out += [f"  {line}" for line in _coverage_lines(r)]
    if r.unchecked:
        out.append("not checked:")
        out += [f"  {u}" for u in r.unchecked]
    out.append(_headline(r))
    return "\n".join(out) + "\n"


def render_json(r: Report) -> str:
    doc = {"format_version": FORMAT_VERSION, "peer": r.peer, "root": r.root, "version": r.version,
           "ptxas": r.ptxas or None, "families": list(r.families), "failed": r.failed, "counts": r.counts(),
           "coverage": {"families": {k: {"wrapped": a, "total": t} for k, (a, t) in r.coverage.families.items()},
                        "instructions": {k: {"wrapped": a, "total": t} for rows in r.coverage.instructions.values()
                                         for k, (a, t) in rows.items()},
                        "missing": r.coverage.missing},
           "findings": [f.as_data() for f in r.findings], "unchecked": r.unchecked}
    return json.dumps(doc, indent=1) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def render_markdown(r: Report, budget: int = 60_000) -> str:
    out = [f"### ptxspec audit: `{r.peer}`{' ' + r.version if r.version else ''}", "", _md(_headline(r)), "",
           "| family | wrapped | of |", "|---|---:|---:|"]
    out += [f"| {fam} | {a} | {t} |" for fam, (a, t) in r.coverage.families.items()]
    size = sum(len(x) + 1 for x in out)
    left = 0
    for kind in KINDS:
        fs = [f for f in r.findings if f.kind == kind]
        if not fs:
            continue
        out += ["", f"#### {len(fs)} {_KIND_TITLE[kind]}", ""]
        for f in fs:
            line = f"- **{f.severity}**, {f.status}: `{f.file}:{f.line}` {_md(f.message)}"
            if f.verdict:
                line += f" \u2014 {_md(f.verdict)}"
            if size + len(line) > budget:
                left += 1
                continue
            size += len(line) + 1
            out.append(line)
    if left:
        out += ["", f"_{left} more findings left out to stay under GitHub's comment size; "
                "`--format text` lists them all._"]
    if r.unchecked:
        out += ["", "<details><summary>Not checked</summary>", ""] + [f"- {_md(u)}" for u in r.unchecked] + \
               ["", "</details>"]
    return "\n".join(out) + "\n"


def _gh(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render_github(r: Report) -> str:
    """One annotation per finding, on the peer's file and line (paths relative to its root)."""
    lines = []
    for f in r.findings:
        level = "notice" if f.status == "refuted" else _LEVEL[f.severity]
        title = f"ptxspec audit {r.peer}: {f.kind} ({f.status})"
        msg = f.message + (f"\n{f.verdict}" if f.verdict else "")
        lines.append(f"::{level} file={_gh(f.file, True)},line={f.line},title={_gh(title, True)}::{_gh(msg)}")
    lines.append(_headline(r))
    return "\n".join(lines) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown, "github": render_github}
