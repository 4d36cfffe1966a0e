"""Golden files of the C++ bindings' templates: a few variants, one of each operand kind and form,
rendered as their family headers would show them. A template change shows here as a readable
diff; review it, then update the files with

    PTXSPEC_UPDATE_GOLDEN=1 python3 -m pytest -q tests/test_cbind_golden.py

(what the bindings do is tested in test_bindings.py: nvcc, ptxas, guards on every target, maps.)
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from ptxspec.emit import cbind

GOLDEN = Path(__file__).resolve().parent / "golden" / "c"
UPDATE = "PTXSPEC_UPDATE_GOLDEN=1 python3 -m pytest -q tests/test_cbind_golden.py"

# per family: opcodes (and forms) that between them use every operand kind the family has
SAMPLES = {
    "fence": [("fence.proxy.async.shared::cta", None)],
    "wgmma": [("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "desc"),
              ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "reg"),
              ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16", "desc"),
              ("wgmma.fence.sync.aligned", None), ("wgmma.wait_group.sync.aligned", None)],
    "mma": [("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", None),
            ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", None),
            ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0", None)],
    "wmma": [("wmma.load.a.sync.aligned.row.m16n16k16.shared::cta.f16", None),
             ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16", None),
             ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", None)],
}


def _check(path: Path, text: str) -> None:
    if os.environ.get("PTXSPEC_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    if not path.is_file():
        pytest.fail(f"no golden file {path.name}; create it with:\n  {UPDATE}")
    want = path.read_text()
    if want != text:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True), str(path.name), "rendered", n=2))
        pytest.fail(f"{path.name} differs from the rendered text (review, then update with:\n  {UPDATE}\n)\n{diff[:6000]}")


@pytest.mark.parametrize("family", sorted(SAMPLES))
def test_family_header_golden(spec, family):
    variants = [spec.variant(ptx, form=form) for ptx, form in SAMPLES[family]]
    _check(GOLDEN / f"ptxspec_{family}.sample.h", cbind.family_header(spec, family, variants))


def test_family_header_is_its_variants_golden_rendering(spec):
    """The sample text is the real header's text: every sampled function's head (opcode and
    requirement) and its defining line appear in the generated family header verbatim. (Which
    operand lines a function's doc keeps and which its signature macro carries depends on the
    variants that share the macro, so the sample's full doc may differ.)"""
    for family, sample in SAMPLES.items():
        full = (Path(__file__).resolve().parents[1] / "generated" / "c" / f"ptxspec_{family}.h").read_text()
        for ptx, form in sample:
            v = spec.variant(ptx, form=form)
            one = cbind.family_header(spec, family, [v])
            start = one.index("/** `")
            head = "\n".join(one[start:].splitlines()[:2])
            line = next(x for x in one.splitlines() if x.startswith("PTXSPEC_SIG_") and f"({cbind.name(v)}, " in x)
            assert head in full and line.split("(", 1)[1] in full, v.id


def test_common_header_golden(spec):
    """The shared-memory section and the guard block's head of ptxspec_common.h."""
    text = cbind.build(spec)["c/ptxspec_common.h"].decode()
    smem = text[text.index("namespace smem_"):]
    _check(GOLDEN / "ptxspec_common.smem.h", smem)


def test_templates_load_from_the_package():
    """The templates are package data, found through the installed package (importlib), not a path."""
    env = cbind.environment()
    assert type(env.loader).__name__ == "PackageLoader"
    assert {"ptxspec_common.h.j2", "ptxspec_family.h.j2", "ptxspec_variants.h.j2", "ptxspec.h.j2"} <= set(env.list_templates())
