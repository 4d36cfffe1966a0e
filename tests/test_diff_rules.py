"""Every `ptxspec diff` rule, one example each (tests/diff_case_table.py).

Each case is a pair of small spec trees that differ by one edit, written when the test runs; the
table names the rule the edit must fire and the node the edit touched (side, file and path inside
the file's data), whose line, read back with the spec loader, must be where the rule points.
"""
from pathlib import Path

import pytest
from diff_case_table import BY_RULE, README_BEGIN, cause_line, readme_text, write_case

from ptxspec import diff

ROOT = Path(__file__).resolve().parents[1]


def test_every_rule_has_a_case():
    assert set(BY_RULE) == set(diff.RULES), "add a case to tests/diff_case_table.py"


@pytest.mark.parametrize("name", sorted(BY_RULE))
def test_the_case_fires_its_rule_at_the_edit(name, tmp_path):
    case = write_case(name, tmp_path)
    sides = [diff.load_side(diff.Side(label, str(tmp_path / label.lower()), "directory", tmp_path / label.lower()))
             for label in ("BASE", "HEAD")]
    report = diff.compare(*sides)
    fired = [c for c in report.changes if c.rule == case["rule"]]
    assert fired, f"{name}: no {case['rule']} among {sorted({c.rule for c in report.changes})}"
    assert {c.severity for c in fired} == {diff.RULES[name].severity}
    cause = tmp_path / case["side"] / case["file"]
    want = (case["side"], cause.resolve(), cause_line(cause, case["path"]))
    assert {(c.side, Path(c.file).resolve(), c.line) for c in fired} == {want}


def test_the_readme_lists_every_rule():
    readme = (ROOT / "README.md").read_text()
    assert README_BEGIN in readme
    assert readme_text(readme) == readme, "run python3 tests/diff_case_table.py"
