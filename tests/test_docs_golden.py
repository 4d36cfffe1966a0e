"""Golden files of the docs: a small fixed subset of the spec rendered, compared byte for byte with
tests/golden/docs/. They make every change to the docs' templates, view model or figures show up in
review as a diff of real pages; regenerate them after an intended change with

    PTXSPEC_UPDATE_GOLDEN=1 python3 -m pytest -q tests/test_docs_golden.py

The subset picks groups that between them take every branch of the templates: a repeating wgmma
accumulator in both operand forms, an instruction with no operands and one with no variants, shared
memory, a quad-pair batch, a form the manual does not define, scale-selector operands, sparsity with
metadata selectors, replicated and observed wmma maps, fragments with no map, and a removed form.
The test family of tests/new_family (`toy`, not PTX) is rendered alone into tests/golden/docs-toy/: a
family that brings no new kind of data gets its pages with no change in the docs code.
"""
from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import ptxspec
import pytest
from ptxspec.emit import docs

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "docs"
GOLDEN_TOY = ROOT / "tests" / "golden" / "docs-toy"
UPDATE = "PTXSPEC_UPDATE_GOLDEN=1 python3 -m pytest -q tests/test_docs_golden.py"
GROUPS = {  # (instruction, group) -> the variants kept
    ("wgmma.mma_async", "tf32"): lambda v: v.n <= 16,
    ("wgmma.fence", "fence"): lambda v: True,
    ("mma", "tf32_m8n8k4"): lambda v: True,
    ("mma", "mxf4nvf4_k64_2x"): lambda v: True,
    ("mma.sp", "tf32_k8"): lambda v: True,
    ("wmma.load.a", "f16_m16n16k16"): lambda v: True,
    ("wmma.mma", "f64_m16n16"): lambda v: v.k == 8 and "row.row" in v.ptx,
    ("wmma.mma", "f16_m16n16k16_satfinite"): lambda v: "row.col" in v.ptx,
}
EMPTY_INSTRUCTION = "wgmma.commit_group"  # its page says "No variants yet."


def subset(spec):
    """A copy of the model that keeps only the variants of GROUPS (figures and pages follow)."""
    sub = copy.copy(spec)
    sub.variants = [v for v in spec.variants
                    if (v.instruction, v.group) in GROUPS and GROUPS[(v.instruction, v.group)](v)]
    kept = {v.instruction for v in sub.variants} | {EMPTY_INSTRUCTION}
    sub.instructions = {n: i for n, i in spec.instructions.items() if n in kept}
    sub._by_id = {v.id: v for v in sub.variants}
    sub._by_key = {(v.ptx, v.form): v for v in sub.variants}
    return sub


@pytest.fixture(scope="module")
def rendered(spec) -> dict[str, bytes]:
    return {p.removeprefix("docs/"): b for p, b in docs.build(subset(spec)).items()}


def test_subset_takes_every_group(spec, rendered):
    sub = subset(spec)
    assert {(v.instruction, v.group) for v in sub.variants} == set(GROUPS)
    assert len(sub.variants) < 80


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, bytes]:
    """The docs of the test family alone, loaded from spec/ with tests/new_family overlaid."""
    top = tmp_path_factory.mktemp("toy")
    shutil.copytree(ROOT / "spec", top / "spec")
    shutil.copytree(ROOT / "tests" / "new_family", top / "spec", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("README.md"))
    shutil.copytree(ROOT / "evidence", top / "evidence", ignore=shutil.ignore_patterns("records", "*.py"))
    spec = ptxspec.load(top / "spec")
    sub = copy.copy(spec)
    sub.variants = [v for v in spec.variants if v.family == "toy"]
    sub.instructions = {n: i for n, i in spec.instructions.items() if i.family == "toy"}
    sub.errata = [e for e in spec.errata if e.family == "toy"]
    sub._by_id = {v.id: v for v in sub.variants}
    assert len(sub.variants) == 4
    return {p.removeprefix("docs/"): b for p, b in docs.build(sub).items()}


def _compare(golden: Path, rendered: dict[str, bytes]):
    if os.environ.get("PTXSPEC_UPDATE_GOLDEN"):
        for p in sorted(golden.rglob("*")) if golden.exists() else []:
            if p.is_file() and p.relative_to(golden).as_posix() not in rendered:
                p.unlink()
        for rel, data in rendered.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
    on_disk = {p.relative_to(golden).as_posix(): p.read_bytes() for p in golden.rglob("*") if p.is_file()}
    differ = sorted(p for p in set(on_disk) | set(rendered) if on_disk.get(p) != rendered.get(p))
    assert not differ, (f"{len(differ)} golden files under {golden.relative_to(ROOT)} differ ({', '.join(differ[:6])}); "
                        f"review, then update them with:\n    {UPDATE}")


def test_docs_match_the_golden_files(rendered):
    _compare(GOLDEN, rendered)


def test_a_new_family_renders_with_no_docs_change(toy):
    assert "toy/index.md" in toy and "toy/toy.mma.md" in toy
    _compare(GOLDEN_TOY, toy)
