"""Every code block of README.md runs: Python (with the results its comments state), the ptxspec
command lines, SQL, and the CUDA snippet (compiled by nvcc). `.ci/run` runs the Python blocks
again against the installed wheel, outside the checkout (tests/smoke_installed.py)."""
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from readme import blocks, commands, run_python

ROOT = Path(__file__).resolve().parents[1]
# sh lines that are not ptxspec commands: each is run by .ci/run or is this suite itself
SETUP_LINES = ("python3 -m venv ", "python3 -m pip install ", "python3 -m pytest", "python3 tests/bench.py",
               "pip install ")
NOT_RUN_HERE = {"serve": "a server: tests/test_web.py starts it, queries it and stops it"}


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs_and_shows_what_it_says(index):
    checked = run_python(blocks("python")[index], f"README.md python block {index + 1}")
    assert checked >= 2  # every block shows its results


def test_every_sh_line_is_run_somewhere():
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            if not line or line.startswith("#"):
                continue
            assert line.startswith("ptxspec ") or line.startswith(SETUP_LINES), line


def _revision_exists(rev):
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"], cwd=ROOT,
                          capture_output=True).returncode == 0


def _tier(line: str):
    """The README's audits (the peers, ptxas) and diffs against git revisions run in the full tier."""
    slow = line.startswith("ptxspec audit ") or (line.startswith("ptxspec diff ") and "--list-rules" not in line)
    return pytest.param(line, marks=pytest.mark.full) if slow else line


@pytest.mark.parametrize("line", [_tier(line) for line in commands()])
def test_ptxspec_command_runs(line, tmp_path):
    argv = shlex.split(line)
    if argv[1] in NOT_RUN_HERE:
        pytest.skip(NOT_RUN_HERE[argv[1]])
    expect = (0,)
    if argv[1] == "diff":
        revs = [a for a in argv[2:4] if not a.startswith("-")]
        if not all(_revision_exists(r) for r in revs):
            pytest.skip(f"this clone lacks {revs}")
        if "--ignore" in argv:
            (tmp_path / "ignore.txt").write_text("")
            argv[argv.index("--ignore") + 1] = str(tmp_path / "ignore.txt")
        expect = (0, 1)  # 1: changes at or above --fail-on
    if argv[1] == "audit":
        expect = (0, 1)  # 1: the peer has findings (tests/test_audit_peers.py asserts which)
    if "--out" in argv:
        argv[argv.index("--out") + 1] = str(tmp_path / "out")
    proc = subprocess.run([sys.executable, "-m", "ptxspec", *argv[1:]], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in expect, (line, proc.stderr)
    assert proc.stdout.strip() or (tmp_path / "out").is_file(), line


def test_sql_blocks_answer():
    conn = sqlite3.connect(ROOT / "generated" / "ptxspec.sqlite")
    sql = blocks("sql")
    assert sql
    for block in sql:
        assert conn.execute(block).fetchall(), block


@pytest.mark.full
def test_cuda_block_compiles(tmp_path):
    from ptxspec.oracle.ptxas import PtxasNotFound, find_ptxas
    try:
        nvcc = Path(find_ptxas()).parent / "nvcc"
    except PtxasNotFound:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed")
    if not nvcc.is_file():
        pytest.skip("no nvcc beside ptxas")
    (src,) = blocks("cuda")
    (tmp_path / "readme.cu").write_text(src)
    proc = subprocess.run([str(nvcc), "-arch", "compute_90a", "-ptx", "-std=c++17", "-I", str(ROOT / "generated" / "c"),
                           str(tmp_path / "readme.cu"), "-o", str(tmp_path / "readme.ptx")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ptx = (tmp_path / "readme.ptx").read_text()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16" in ptx  # the generic entry point's pick
