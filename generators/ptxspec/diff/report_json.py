"""The report as JSON, as schema/diff-report.schema.json describes it."""
from __future__ import annotations

import json

from ptxspec.diff.changes import Report
from ptxspec.diff.sides import Side

FORMAT_VERSION = 1


def _tree(s: Side) -> dict:
    d = {"label": s.label, "ref": s.ref, "kind": s.kind, "spec": s.shown_spec(), "variants": len(s.spec.variants)}
    if s.sha:
        d["commit"] = s.sha
    return d


def render_json(report: Report, fail_on: str | None = None) -> str:
    failing = report.failing(fail_on)
    doc = {"format_version": FORMAT_VERSION, "base": _tree(report.base), "head": _tree(report.head),
           "fail_on": fail_on, "failed": bool(failing), "counts": report.counts(),
           "changes": [c.as_data() for c in report.changes]}
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"
