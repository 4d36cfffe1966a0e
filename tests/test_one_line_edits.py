"""Issue 29's acceptance edits: on a copy of the spec, a one-line change states a fact for every
variant it concerns. Each test writes the tree *before* (the fact left out of its one line), then
the one-line edit that states it (the real spec's line), and checks that the two files differ in
that line only and that the model gains exactly the expected facts, computed here from the
variants themselves, and nothing else."""
from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

import ptxspec

SPEC = Path(__file__).resolve().parents[1] / "spec"


def _trees(tmp_path, rel: str, line: str, before: str):
    """(spec before, spec after): copies of spec/ whose file rel has `before` where the real one has
    `line` (after: the real file); asserts that the edit from before to after is that one line."""
    after = tmp_path / "after"
    shutil.copytree(SPEC, after)
    shutil.copytree(SPEC, tmp_path / "before")
    text = (SPEC / rel).read_text(encoding="utf-8")
    assert text.count(line) == 1, line
    (tmp_path / "before" / rel).write_text(text.replace(line, before), encoding="utf-8")
    diff = [d for d in difflib.unified_diff((tmp_path / "before" / rel).read_text().splitlines(),
                                            text.splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    assert [d[0] for d in diff] in (["-", "+"], ["+"]), diff  # one line changed, or added
    return ptxspec.load(tmp_path / "before"), ptxspec.load(after)


def _records(spec, drop=()):
    return {v.id: {k: x for k, x in v.as_record().items() if k not in drop} for v in spec.variants}


@pytest.mark.full  # each edit resolves two trees; the quick tier makes one edit (a target added)
def test_an_option_added_to_every_tcgen05_mma_group(tmp_path):
    """`collector::a::discard` written once, in the family's `collectors` piece: every tcgen05.mma
    and tcgen05.mma.sp variant (every kind, CTA group, form, with or without .ashift) gains it."""
    line = '    collector_a: ["", "collector::a::fill", "collector::a::use", "collector::a::lastuse", "collector::a::discard"]'
    before, after = _trees(tmp_path, "families/tcgen05/family.yaml", line,
                           line.replace(', "collector::a::discard"', ""))
    b, a = _records(before), _records(after)
    assert set(b) == set(a)
    gained = set()
    for vid, rec in a.items():
        old = {o["value"] for o in b[vid].get("options", {}).get("collector_a", [])}
        new = {o["value"] for o in rec.get("options", {}).get("collector_a", [])}
        assert old <= new
        if new - old:
            assert new - old == {"collector::a::discard"}
            gained.add(vid)
        assert {k: x for k, x in rec.items() if k not in ("options", "ptx")} == \
            {k: x for k, x in b[vid].items() if k not in ("options", "ptx")}
    expected = {v.id for v in after.variants if v.instruction in ("tcgen05.mma", "tcgen05.mma.sp")}
    assert gained == expected and len(expected) > 100


def test_a_target_added_to_a_family(tmp_path):
    """The sm_110 family's line of the tcgen05 `targets` piece: every instruction that uses the
    piece gains sm_110a/sm_110f for each variant its rules allow there, and nothing else changes."""
    line = '    - {ptx: "9.0", targets: {family: sm_110f}}'
    before, after = _trees(tmp_path, "families/tcgen05/family.yaml", line + "\n", "")
    b, a = {v.id: v for v in before.variants}, {v.id: v for v in after.variants}
    assert set(b) == set(a)
    changed = {vid for vid in a if a[vid].targets != b[vid].targets}
    for vid in changed:
        assert set(a[vid].targets) - set(b[vid].targets) <= {"sm_110a", "sm_110f"}
        assert set(b[vid].targets) <= set(a[vid].targets)
    # the instruction files that use the piece, read as text: `requires: {use: targets}`
    using = {line.split(":", 1)[1].strip() for f in (SPEC / "families" / "tcgen05").glob("*.yaml")
             if "requires: {use: targets}" in (t := f.read_text(encoding="utf-8"))
             for line in t.splitlines() if line.startswith("name: ")}
    users = {v.id for v in after.variants if v.instruction in using and "sm_110a" in v.targets}
    assert changed == users and len(users) > 100


@pytest.mark.full  # each edit resolves two trees; the quick tier makes one edit (a target added)
def test_a_type_pair_added_to_an_mma_shape(tmp_path):
    """e5m2 as B beside e4m3, in the family's one `fp8` line: the fp8 shapes of mma and mma.sp gain
    every variant with an e5m2 B, each with the registers its layout gives, and lose nothing."""
    line = "  fp8: {atype: [e4m3, e5m2], btype: [e4m3, e5m2], dtype: [f16, f32]}"
    before, after = _trees(tmp_path, "families/mma/family.yaml", line, line.replace("btype: [e4m3, e5m2]",
                                                                                  "btype: [e4m3]"))
    b, a = {v.id: v for v in before.variants}, {v.id: v for v in after.variants}
    assert set(b) <= set(a)
    new = [a[vid] for vid in set(a) - set(b)]
    assert new and all(v.family == "mma" and v.btype == "e5m2" for v in new)
    for v in new:  # the twin with an e4m3 B (the same bits) takes the same registers
        twin = after.variant(v.ptx.replace(".e5m2.", ".e4m3.", 1) if v.atype == "e4m3" else
                             v.ptx[::-1].replace(".e5m2."[::-1], ".e4m3."[::-1], 1)[::-1], v.form or None)
        assert twin.btype == "e4m3" and twin.regs == v.regs
    assert all(_same(a[vid], b[vid]) for vid in b)


def _same(x, y) -> bool:
    return x.as_record() == y.as_record()


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
