"""Smoke test of the installed product (run by .ci/run): the wheel built from the checkout, installed
non-editable into a fresh virtualenv, used from a directory outside the checkout.

    VENV/bin/python tests/smoke_installed.py CHECKOUT      (from any directory but the checkout)

Checks that the package imported is the installed one, then runs the CLI (query, query --errata,
validate, build --out, build --check against the checkout's generated/, render of the packaged
example) and the README's Python blocks. Prints one line per check and `N passed, N failed`.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT / "tests"))  # readme.py only: it imports nothing from ptxspec
from readme import blocks, commands, run_python  # noqa: E402

BIN = Path(sys.executable).parent
results: list[tuple[str, bool]] = []


def check(name):
    def wrap(fn):
        t = time.perf_counter()
        try:
            fn()
            ok = True
        except Exception:  # report every failure, then carry on
            traceback.print_exc()
            ok = False
        results.append((name, ok))
        print(f"{'ok  ' if ok else 'FAIL'} {name} ({time.perf_counter() - t:.1f} s)", flush=True)
        return fn
    return wrap


def cli(*args, expect=0):
    proc = subprocess.run([str(BIN / "ptxspec"), *args], capture_output=True, text=True)
    assert proc.returncode == expect, f"ptxspec {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}"
    return proc


@check("the installed package, not the checkout, is imported")
def _():
    import ptxspec
    from ptxspec.core import paths
    where = Path(ptxspec.__file__).resolve()
    assert CHECKOUT not in where.parents, where
    assert paths.checkout_root() is None and paths.data_root() == where.parent / "data"
    assert CHECKOUT not in Path.cwd().resolve().parents and Path.cwd().resolve() != CHECKOUT


@check("ptxspec --version")
def _():
    import ptxspec
    assert cli("--version").stdout.strip() == f"ptxspec {ptxspec.__version__}"


@check("ptxspec query (the README's query lines)")
def _():
    lines = [line for line in commands() if line.startswith("ptxspec query")]
    assert len(lines) >= 3
    for line in lines:
        assert cli(*line.split()[1:]).stdout.strip(), line


@check("ptxspec query --errata shows the evidence")
def _():
    out = cli("query", "--errata").stdout
    assert "wgmma-integer-n-list" in out and "evidence" in out


@check("ptxspec validate")
def _():
    assert " ok: " in cli("validate").stdout


@check("ptxspec build: --out DIR, and without it a one-line error")
def _():
    err = cli("build", expect=2).stderr
    assert "--out DIR" in err and len(err.splitlines()) == 1
    with tempfile.TemporaryDirectory() as tmp:
        cli("build", "--out", tmp)
        assert (Path(tmp) / "ptxspec.sqlite").is_file() and (Path(tmp) / "c" / "ptxspec.h").is_file()
    cli("build", "--check", "--out", str(CHECKOUT / "generated"))  # the wheel carries every input


@check("ptxspec render examples/variants.csv.j2")
def _():
    with tempfile.TemporaryDirectory() as tmp:
        cli("render", "examples/variants.csv.j2", "--out", f"{tmp}/variants.csv")
        assert len(Path(tmp, "variants.csv").read_text().splitlines()) > 3000


for i, block in enumerate(blocks("python")):
    check(f"README python block {i + 1}")(lambda block=block, i=i: run_python(block, f"README python block {i + 1}"))

failed = sum(not ok for _, ok in results)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
