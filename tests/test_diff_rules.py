"""Every `ptxspec diff` rule, one example each (tests/diff_cases/<rule>/{base,head}).

Each case is a pair of small spec trees that differ by one edit; case.json names the rule the
edit must fire and the node the edit touched (side, file and path inside the file's data), whose
line, read back with the spec loader, must be where the rule points. The cases are written by
tests/diff_cases/generate.py, which also writes the README's rule table.
"""
import importlib.util
import json
from pathlib import Path

import pytest
from ptxspec import diff

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "diff_cases"
NAMES = sorted(p.name for p in CASES.iterdir() if (p / "case.json").is_file())
_spec = importlib.util.spec_from_file_location("diff_cases_generate", CASES / "generate.py")
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)


def test_every_rule_has_a_case():
    assert set(NAMES) == set(diff.RULES), "run python3 tests/diff_cases/generate.py"


@pytest.mark.parametrize("name", NAMES)
def test_the_case_fires_its_rule_at_the_edit(name):
    case = json.loads((CASES / name / "case.json").read_text())
    sides = [diff.load_side(diff.Side(label, str(CASES / name / label.lower()), "directory",
                                      CASES / name / label.lower())) for label in ("BASE", "HEAD")]
    report = diff.compare(*sides)
    fired = [c for c in report.changes if c.rule == case["rule"]]
    assert fired, f"{name}: no {case['rule']} among {sorted({c.rule for c in report.changes})}"
    assert {c.severity for c in fired} == {diff.RULES[name].severity}
    cause = CASES / name / case["side"] / case["file"]
    want = (case["side"], cause.resolve(), generate.cause_line(cause, case["path"]))
    assert {(c.side, Path(c.file).resolve(), c.line) for c in fired} == {want}


def test_the_readme_lists_every_rule():
    readme = (ROOT / "README.md").read_text()
    assert generate.readme_text(readme) == readme, "run python3 tests/diff_cases/generate.py"
