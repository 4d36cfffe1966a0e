"""The review workflow a copy of the spec adopts (issue 29): the composite action's script run on two
revisions of a scratch repository, as a pull request runs it, and the pre-commit hooks' commands.

What a change means is ptxspec diff's business (tests/test_diff*.py); here the wiring is checked:
the script's exit status, the annotations GitHub reads from its output (`::error file=F,line=L::`,
the workflow-command syntax), the job summary, and that action.yml and .pre-commit-hooks.yaml name
commands and variables that exist.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".github" / "ptxspec-review.sh"
PTXSPEC = f"{shlex.quote(sys.executable)} -m ptxspec"
ANNOTATION = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+)(?:,(?:col|endLine|endColumn|title)=[^,]*)*::.+$")
# a target of every tcgen05 instruction (the family's targets piece): removing it breaks users
TARGET_LINE = '    - {ptx: "9.0", targets: {family: sm_110f}}\n'
FAMILY = "spec/families/tcgen05/family.yaml"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository that keeps a copy of the spec, with one commit: the base of the pull requests."""
    repo = tmp_path_factory.mktemp("adopter")
    shutil.copytree(ROOT / "spec", repo / "spec")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "spec")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
    return repo


def pull_request(repo: Path, branch: str, edit) -> None:
    """A branch from main with one commit that edits the tcgen05 family file."""
    git(repo, "checkout", "-q", "-B", branch, "main")
    path = repo / FAMILY
    text = path.read_text()
    new = edit(text)
    assert new != text, "the edit must change the file"
    path.write_text(new)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", branch)


def review(repo: Path, tmp_path: Path, **env: str) -> tuple[int, str, str]:
    summary = tmp_path / "summary.md"
    summary.write_text("")
    full_env = {**os.environ, "PTXSPEC": PTXSPEC, "PTXSPEC_BASE": "main", "GITHUB_STEP_SUMMARY": str(summary),
                "PTXSPEC_CACHE_DIR": "off", **env}
    # a hang guard, not a speed limit: the script validates once and diffs twice
    r = subprocess.run(["bash", str(SCRIPT)], cwd=repo, env=full_env, capture_output=True, text=True, timeout=900)
    return r.returncode, r.stdout, summary.read_text()


def test_a_breaking_change_fails_with_annotations_and_a_summary(repo, tmp_path):
    pull_request(repo, "drop-target", lambda t: t.replace(TARGET_LINE, "", 1))
    rc, out, summary = review(repo, tmp_path)
    assert rc == 1, out
    notes = [ANNOTATION.match(line) for line in out.splitlines() if line.startswith("::")]
    assert notes and all(notes), out
    assert {m.group(2) for m in notes if m} == {FAMILY}, out
    assert any(m.group(1) == "error" for m in notes if m), out
    # the markdown report in the job summary names what changed
    assert "sm_110" in summary and "|" in summary, summary
    # the same change passes where the adopter accepts breaking changes
    rc, _, _ = review(repo, tmp_path, PTXSPEC_FAIL_ON="")
    assert rc == 0


def test_a_comment_only_change_passes_silently(repo, tmp_path):
    pull_request(repo, "comment", lambda t: t.replace("pieces:\n", "pieces:\n  # a reviewer's remark\n", 1))
    rc, out, _ = review(repo, tmp_path)
    assert rc == 0, out
    assert not [line for line in out.splitlines() if line.startswith("::error")], out


def test_an_invalid_spec_fails_with_the_line_annotated(repo, tmp_path):
    pull_request(repo, "unquoted", lambda t: t.replace('ptx: "8.6"}', "ptx: 8.6}", 1))
    rc, out, _ = review(repo, tmp_path)
    assert rc == 1, out
    line = next(i for i, text in enumerate((repo / FAMILY).read_text().splitlines(), 1) if "ptx: 8.6}" in text)
    assert re.search(rf"^::error file=spec/families/tcgen05/family.yaml,line={line},col=\d+::.*quote it", out, re.M), out


def test_the_action_runs_the_script_with_the_variables_it_reads():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    run = next(s for s in steps if "ptxspec-review.sh" in s.get("run", ""))
    script = SCRIPT.read_text()
    for name in run["env"]:
        assert f"${{{name}" in script, f"{name} is set by action.yml but never read by the script"
    # each input the action declares reaches the script
    used = " ".join(str(v) for v in run["env"].values())
    for name in action["inputs"]:
        assert f"inputs.{name}" in used or any(f"inputs.{name}" in str(s) for s in steps), name


def hooks() -> dict[str, dict]:
    found = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(found) == {"ptxspec-validate", "ptxspec-build-check"}
    for hook in found.values():
        assert hook["entry"] == "ptxspec" and hook["language"] == "python" and not hook["pass_filenames"]
    return found


def run_hook(repo: Path, hook: dict) -> subprocess.CompletedProcess:
    """The hook as pre-commit runs it in the adopter's checkout (its entry is this package's CLI)."""
    env = {**os.environ, "PTXSPEC_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, "-m", "ptxspec", *hook["args"]], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)  # a hang guard, not a speed limit


def test_the_validate_hook_checks_the_adopters_spec(repo):
    hook = hooks()["ptxspec-validate"]
    git(repo, "checkout", "-q", "main")
    assert run_hook(repo, hook).returncode == 0
    (repo / FAMILY).write_text((repo / FAMILY).read_text().replace('ptx: "8.6"}', "ptx: 8.6}", 1))
    r = run_hook(repo, hook)
    git(repo, "checkout", "-q", "--", "spec")
    assert r.returncode == 1, r.stderr
    assert re.search(r"^spec/families/tcgen05/family.yaml:\d+:\d+: error: .*quote it", r.stderr, re.M), r.stderr


@pytest.mark.full
def test_the_build_check_hook_sees_generated_files_go_stale(repo):
    hook = hooks()["ptxspec-build-check"]
    git(repo, "checkout", "-q", "main")
    assert run_hook(repo, hook).returncode == 1  # nothing built yet beside the spec
    build = [sys.executable, "-m", "ptxspec", "--spec", "spec", "build"]
    subprocess.run(build, cwd=repo, check=True, capture_output=True, timeout=900)
    assert run_hook(repo, hook).returncode == 0
    pull_request(repo, "stale", lambda t: t.replace(TARGET_LINE, "", 1))
    r = run_hook(repo, hook)
    assert r.returncode == 1 and "generated" in r.stdout + r.stderr
