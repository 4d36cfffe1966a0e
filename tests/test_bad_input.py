"""Broken spec trees must give the right one-line errors, never a traceback or silence.

The cases are one table, tests/bad_spec_cases.py: each is a defect written as text edits of real
spec files (or files added or deleted) and the problems the loader must report, each at its file
and line (col when given), with a substring of its message. A case may be `xfail` (a known loader
bug: reported as xfailed while the loader is wrong, a failure once it is right, so that the mark
goes) or `isolate` (validated in a resource-limited subprocess: it may exhaust memory).

Each case is applied to a copy of spec/ and validated once (the quick tier validates the first
QUICK_PER_AREA cases of each spec file they edit, the full tier every case), through the command line's own entry
point (`ptxspec.cli.main.main`, in-process; `isolate` cases in a subprocess): the loader check passes
when the run reports every expected problem and no problem at any other (file, line); the
command-line check, when it exits 1 and prints only `path:line:col: error: message` lines and no
traceback. A crash (exit 3, `internal error`) fails both.

`build --out DIR` on a bad tree must leave DIR byte-for-byte as it was (run as a subprocess, as a
user runs it).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

import pytest
from bad_spec_cases import BY_NAME, apply, expected

import ptxspec
from ptxspec.cli.main import main as cli_main

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REAL_SPEC = REPO / "spec"
LINE_RE = re.compile(r"^([^:]+):(\d+):(\d+): error: (.+)$")
#: a hang guard, not a speed limit: a case that takes this long is a bug, whatever the machine
SUBPROCESS_TIMEOUT = 600
ISOLATED_MEMORY = 1 << 30  # address-space limit for isolated cases, bytes: the limit that does the work

CASE_NAMES = sorted(BY_NAME)
#: the cases the quick tier validates: the first QUICK_PER_AREA of each area (the spec file a case edits
#: first, in the table's order), so that every kind of file keeps a case there; the full tier validates
#: every case (each validation resolves an edited tree: about a second of CPU)
QUICK_PER_AREA = 1


def _quick_cases() -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for name, c in BY_NAME.items():
        area = (sorted(c["files"]) or sorted(c["delete"]) or ["."])[0]
        if seen.get(area, 0) < QUICK_PER_AREA:
            out.add(name)
        seen[area] = seen.get(area, 0) + 1
    return out


QUICK_CASES = _quick_cases()


def _tiered(names):
    return [name if name in QUICK_CASES else pytest.param(name, marks=pytest.mark.full) for name in names]


def _meta(name: str) -> dict:
    """The case with its expected problems resolved to lines."""
    c = BY_NAME[name]
    return {**c, "expect": expected(c)}


def _make_tree(name: str, dest: Path) -> Path:
    """Copy the real spec to dest/spec and apply the case; return the root."""
    root = dest / "spec"
    shutil.copytree(REAL_SPEC, root)
    apply(BY_NAME[name], root)
    return root


def _rel(path: str, root: Path) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return Path(rel).as_posix()


# -- validating -------------------------------------------------------------------------------

def _limit_memory():  # pragma: no cover - runs in the child
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (ISOLATED_MEMORY, ISOLATED_MEMORY))


def _child_env() -> dict:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    env.pop("PTXSPEC_DEBUG", None)
    return env


class Run(NamedTuple):
    cwd: Path
    root: Path
    returncode: int
    output: str  # stdout and stderr


def _validate_in_process(root: Path, cwd: Path) -> tuple[int, str]:
    """`ptxspec --spec ROOT validate` through the console script's entry point, in this process
    (one load per case instead of a fresh interpreter's start, import and load)."""
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.chdir(cwd), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        warnings.simplefilter("ignore")  # numpy division by zero in bad formulas, as PYTHONWARNINGS=ignore
        try:
            code = cli_main(["--spec", str(root), "validate"])
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue()


_RUNS: dict[str, Run] = {}


def _validated(name: str, tmp_path_factory) -> Run:
    """Each case's validate run, made once and shared by the loader and command-line checks."""
    if name not in _RUNS:
        cwd = tmp_path_factory.mktemp(f"validate_{name}")
        root = _make_tree(name, cwd)
        if _meta(name).get("isolate"):
            proc = _run_cli(_need_cli(), ["--spec", str(root), "validate"], cwd=cwd, isolate=True)
            code, output = proc.returncode, proc.stdout + proc.stderr
        else:
            code, output = _validate_in_process(root, cwd)
        _RUNS[name] = Run(cwd, root, code, output)
    return _RUNS[name]


def _outcome(run: Run):
    """(problems as (file, line, col, message), crash description or None) of a validate run."""
    problems, _ = _cli_problems(run.output, run.cwd, run.root)
    if run.returncode in (0, 1):
        return problems, None
    tail = " | ".join(run.output.strip().splitlines()[-3:])[:500]
    return problems, f"validate exited {run.returncode}: {tail}"


def _mismatches(expect: list[dict], problems: list[tuple], crash: str | None) -> list[str]:
    if crash:
        return [f"the loader crashed instead of reporting problems: {crash}"]
    if not problems:
        return ["the loader accepted the tree (no SpecError)"]
    out = []
    for e in expect:
        hit = [p for p in problems if p[0] == e["file"] and p[1] == e["line"]
               and ("col" not in e or p[2] == e["col"]) and e["message"] in p[3]]
        if not hit:
            where = f"{e['file']}:{e['line']}" + (f":{e['col']}" if "col" in e else "")
            out.append(f"missing: {where}: ...{e['message']}...")
    wanted = {(e["file"], e["line"]) for e in expect}
    for p in problems:
        if (p[0], p[1]) not in wanted:
            out.append(f"unexpected: {p[0]}:{p[1]}:{p[2]}: {p[3]}")
    return out


def _report(name: str, meta: dict, problems, crash, mismatches: list[str]) -> str:
    got = "\n".join(f"    {f}:{l}:{c}: error: {m}" for f, l, c, m in problems) or "    (none)"
    return (f"case {name}: {meta['description']}\n  " + "\n  ".join(mismatches)
            + f"\n  reported:\n{got}" + (f"\n  crash: {crash}" if crash else ""))


def _settle(meta: dict, message: str | None, strict: bool = True) -> None:
    """Pass, fail or xfail a check according to the case's `xfail`."""
    reason = meta.get("xfail")
    if message is None:
        if reason and strict:
            pytest.fail(f"XPASS: the case now gives the expected problems; remove its xfail ({reason})")
        return
    if reason:
        pytest.xfail(f"{reason}\n{message}")
    pytest.fail(message)


# -- the corpus itself --------------------------------------------------------------------------

def test_corpus_is_large_enough():
    assert len(CASE_NAMES) >= 45, CASE_NAMES


def test_real_spec_is_valid():
    """Every case assumes the rest of the tree is valid: the unmodified spec must load."""
    ptxspec.load(REAL_SPEC)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_is_well_formed(name):
    meta = _meta(name)
    assert isinstance(meta.get("description"), str) and meta["description"].strip()
    assert meta["expect"], f"{name}: needs at least one expected problem"
    for e in meta["expect"]:
        assert isinstance(e["line"], int) and e["line"] >= 1 and isinstance(e["message"], str), f"{name}: {e}"
        if e["file"] != ".":
            assert e["file"] in meta["files"] or (REAL_SPEC / e["file"]).is_file(), f"{name}: no file {e['file']}"
    assert meta["files"] or meta["delete"], f"{name}: changes nothing"


# -- the loader ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", _tiered(CASE_NAMES))
def test_load_reports_expected_problems(name, tmp_path_factory):
    meta = _meta(name)
    problems, crash = _outcome(_validated(name, tmp_path_factory))
    mismatches = _mismatches(meta["expect"], problems, crash)
    _settle(meta, _report(name, meta, problems, crash, mismatches) if mismatches else None)


# -- the command line ---------------------------------------------------------------------------

def _need_cli() -> list[str]:
    return [sys.executable, "-m", "ptxspec"]


def _run_cli(cmd: list[str], args: list[str], cwd: Path, isolate: bool = False) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd + args, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=SUBPROCESS_TIMEOUT, env=_child_env(),
                              preexec_fn=_limit_memory if isolate and os.name == "posix" else None)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(exc.cmd, -1, "", f"timed out after {exc.timeout}s")


def _cli_problems(output: str, cwd: Path, root: Path) -> tuple[list[tuple], list[str]]:
    """Parse CLI output; (problems as (file, line, col, message), lines that break the format)."""
    problems, bad = [], []
    for line in output.splitlines():
        m = LINE_RE.match(line)
        if not m:
            bad.append(line)
            continue
        path = m.group(1)
        full = path if os.path.isabs(path) else os.path.join(cwd, path)
        problems.append((_rel(full, root), int(m.group(2)), int(m.group(3)), m.group(4)))
    return problems, bad


@pytest.mark.parametrize("name", _tiered(CASE_NAMES))
def test_cli_validate(name, tmp_path_factory):
    _need_cli()
    meta = _meta(name)
    run = _validated(name, tmp_path_factory)
    output = run.output
    problems, bad = _cli_problems(output, run.cwd, run.root)
    issues = []
    if run.returncode != 1:
        issues.append(f"exit status {run.returncode}, expected 1")
    if "Traceback" in output:
        issues.append("output contains a traceback")
    if bad:
        issues.append("lines not of the form path:line:col: error: message:\n      "
                      + "\n      ".join(repr(b) for b in bad[:20]))
    if not issues:
        issues += _mismatches(meta["expect"], problems, None)
    message = None
    if issues:
        message = (f"case {name}: ptxspec --spec TREE validate\n  " + "\n  ".join(issues)
                   + "\n  output:\n    " + "\n    ".join(output.splitlines()[-40:]))
    # The CLI check is the loader check plus formatting, so a loader bug may or may not show here.
    _settle(meta, message, strict=False)


def _snapshot(root: Path) -> dict:
    """Every file and directory under root: relative path -> bytes (None for directories)."""
    snap = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        snap[rel] = None if p.is_dir() and not p.is_symlink() else p.read_bytes()
    return snap


def _populate(out: Path) -> None:
    (out / "sub" / "deeper").mkdir(parents=True)
    (out / "README.txt").write_bytes(b"hand-written; must survive a failed build\n")
    (out / "variants.json").write_bytes(b'{"stale": true}\n')
    (out / "sub" / "old.h").write_bytes(b"// old header\n#define X 1\n")
    (out / "sub" / "deeper" / "blob.bin").write_bytes(bytes(range(256)))
    (out / "empty.txt").write_bytes(b"")


BUILD_CASES = ["yaml_tab_indent", "unknown_key_fragmnets", "fragment_two_elements_one_cell",
               "erratum_present_not_in_database", "missing_types_file"]


#: the build cases the quick tier runs (one YAML error, one whole-model check); the full tier runs all
QUICK_BUILDS = {("yaml_tab_indent", True), ("erratum_present_not_in_database", False)}


@pytest.mark.parametrize("name, check", [
    pytest.param(n, c, id=f"{n}-{'build-check' if c else 'build'}",
                 marks=() if (n, c) in QUICK_BUILDS else pytest.mark.full)
    for n in BUILD_CASES for c in (False, True)])
def test_cli_build_leaves_output_untouched(name, check, tmp_path):
    cmd = _need_cli()
    assert name in CASE_NAMES and not _meta(name).get("xfail"), name
    root = _make_tree(name, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    _populate(out)
    before = _snapshot(out)
    args = ["--spec", str(root), "build", "--out", str(out)] + (["--check"] if check else [])
    proc = _run_cli(cmd, args, cwd=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit status {proc.returncode}\n{output}"
    assert "Traceback" not in output, output
    assert _snapshot(out) == before, f"build on a bad tree changed {out}\n{output}"
    problems, bad = _cli_problems(output, tmp_path, root)
    assert not bad, f"lines not of the form path:line:col: error: message: {bad}"
    assert not _mismatches(_meta(name)["expect"], problems, None), output


@pytest.mark.parametrize("name", [BUILD_CASES[0], pytest.param(BUILD_CASES[1], marks=pytest.mark.full)])
def test_cli_build_does_not_create_missing_output(name, tmp_path):
    cmd = _need_cli()
    root = _make_tree(name, tmp_path)
    out = tmp_path / "not" / "there"
    proc = _run_cli(cmd, ["--spec", str(root), "build", "--out", str(out)], cwd=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit status {proc.returncode}\n{output}"
    assert "Traceback" not in output, output
    assert not (tmp_path / "not").exists(), f"build on a bad tree created {out}"
