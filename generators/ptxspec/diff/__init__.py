"""`ptxspec diff`: what changed for users between two spec trees.

Not a YAML text diff: both trees are loaded and resolved into the model, and the report compares
what users see - the variants, their requirements (first PTX version per target), operand
signatures, per-thread fragment maps (which elements moved), sparsity metadata maps, element
types and their numerics, layouts, shared-memory descriptors, errata and descriptions.

The package, in the order a comparison runs:
- `sides`: opening BASE and HEAD (a spec directory or a git revision) and loading them;
- `pairing`: which HEAD variant is which BASE variant (by id, then renames by identity);
- `rules/<area>_rules.py`: one `@rule(id, severity, description)` function per rule (`registry`), the
  modules listed in `rules/__init__.py`;
- `positions`: the YAML position that caused a change (in HEAD, or in BASE for removals);
- `engine`: runs every rule; the rules (and an overrides file, `severity`) alone give severities;
- `ignore`, `report_*`: approved fingerprints, and the text, markdown, json and github formats.

Every change has a stable rule id (`ptxspec diff --list-rules`), a severity (`breaking`,
`warning`, `info`), the file:line of its cause and a fingerprint (sha256 of the rule id and the
subject) that an ignore file can list to approve it.
"""
from __future__ import annotations

from ptxspec.diff.changes import SEVERITIES, Change, Group, Report, fingerprint, group_changes
from ptxspec.diff.engine import Diff, compare, diff_trees
from ptxspec.diff.ignore import apply_ignore, read_ignore
from ptxspec.diff.pairing import pair_variants
from ptxspec.diff.registry import Finding, Rule, rule
from ptxspec.diff.report_rules import render_rules
from ptxspec.diff.reports import (
    FORMAT_VERSION,
    MARKDOWN_BUDGET,
    RENDERERS,
    render_github,
    render_json,
    render_markdown,
    render_text,
)
from ptxspec.diff.rules import RULES
from ptxspec.diff.severity import read_severity_overrides
from ptxspec.diff.sides import CompareError, Side, load_side, open_side

__all__ = [
    "FORMAT_VERSION", "MARKDOWN_BUDGET", "RENDERERS", "RULES", "SEVERITIES",
    "Change", "CompareError", "Diff", "Finding", "Group", "Report", "Rule", "Side", "apply_ignore",
    "compare", "diff_trees", "fingerprint", "group_changes", "load_side", "open_side", "pair_variants",
    "read_ignore", "read_severity_overrides", "render_github", "render_json", "render_markdown", "render_rules",
    "render_text", "rule",
]
