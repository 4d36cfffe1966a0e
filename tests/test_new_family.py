"""A family that brings no new kind of data needs spec files only.

tests/new_family/ holds `toy` (not PTX: a warp-level product with mma's m16n8k16 fragments under
its own opcode, axis and layouts). Overlaid on a copy of spec/ (with the evidence beside it), it
loads, builds every artifact, answers queries, executes, and shows in a spec diff, with no code
knowing its name.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import ptxspec
import pytest

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "new_family"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    top = tmp_path_factory.mktemp("toy")
    shutil.copytree(ROOT / "spec", top / "spec")
    shutil.copytree(TOY, top / "spec", dirs_exist_ok=True, ignore=shutil.ignore_patterns("README.md"))
    shutil.copytree(ROOT / "evidence", top / "evidence", ignore=shutil.ignore_patterns("records", "*.py"))
    return top


@pytest.fixture(scope="module")
def toy(tree):
    return ptxspec.load(tree / "spec")


@pytest.fixture(scope="module")
def built(tree):
    out = tree / "out"
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "--spec", str(tree / "spec"), "build", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_family_loads_with_its_axis(toy):
    vs = [v for v in toy.variants if v.family == "toy"]
    assert len(vs) == 4  # 2 orders x 2 result types
    v = toy.variant("toy.mma.sync.m16n8k16.ab.f32.f16.f16.f32")
    assert v.semantics == "mma" and v.qualifiers == {"order": "ab"} and v.regs == {"d": 4, "a": 4, "b": 2, "c": 4}
    assert v.hardware == "not run: no hardware record"  # no campaign ran it
    assert toy.variant("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").hardware == "H100"


def test_it_executes_like_the_product_it_is(toy, spec):
    """Same maps and the general f16 rule of spec/numerics.yaml: the toy's D equals mma's, bit for bit."""
    v = toy.variant("toy.mma.sync.m16n8k16.ba.f32.f16.f16.f32")
    w = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 8)).astype(np.float16)
    c = rng.integers(-9, 9, (16, 8)).astype(np.float32)
    regs = {n: v.pack(n, x.view(np.uint16 if x.dtype == np.float16 else np.uint32)) for n, x in
            (("a", a), ("b", b), ("c", c))}
    d = v.unpack("d", v.execute(**regs)).astype(np.uint32).view(np.float32)
    assert np.array_equal(d, a.astype(np.float32) @ b.astype(np.float32) + c)
    assert np.array_equal(v.execute(**regs), w.execute(**regs))


def test_every_artifact_has_it(built):
    db = sqlite3.connect(built / "ptxspec.sqlite")
    rows = db.execute("SELECT id, hardware, \"order\" FROM variants WHERE family = 'toy' ORDER BY id").fetchall()
    assert [r[2] for r in rows] == ["ab", "ab", "ba", "ba"]
    assert {r[1] for r in rows} == {"not run: no hardware record"}
    desc = db.execute("SELECT description FROM descriptions WHERE object = 'variants' AND column_name = 'order'").fetchone()
    assert desc and "order qualifier" in desc[0]
    status = db.execute("SELECT status, model FROM numerics_status WHERE variant_id LIKE 'toy.%'").fetchall()
    assert status and set(status) == {("not run", "fdpa")}
    n = db.execute("SELECT count(*) FROM fragment_elements WHERE variant_id LIKE 'toy.%' AND operand = 'd'").fetchone()
    assert n[0] == 4 * 128
    assert "toy_mma_sync_m16n8k16_ab_f32_f16_f16_f32" in (built / "c" / "ptxspec_toy.h").read_text()
    assert [v["family"] for v in json.loads((built / "json" / "toy.json").read_text())["variants"]] == ["toy"] * 4
    assert any((built / "docs").rglob("*toy*"))


def test_query_finds_it(tree, built):
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "--spec", str(tree / "spec"), "query", "--db",
                           str(built / "ptxspec.sqlite"), "--family", "toy", "order=ba", "--format", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert sorted(r["dtype"] for r in json.loads(proc.stdout)) == ["f16", "f32"]


@pytest.mark.full  # the quick tier diffs in test_diff (one edit of each kind)
def test_diff_reports_the_new_variants(tree):
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "diff", str(ROOT / "spec"), str(tree / "spec"),
                           "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    added = [c for c in json.loads(proc.stdout)["changes"] if c["rule"] == "variant.added"]
    assert len(added) == 4 and all(c["subject"].startswith("toy.mma") for c in added)
