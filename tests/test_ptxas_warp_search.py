"""The warp-level families against a search of ptxas 13.5 that does not read the spec.

campaigns/survey/survey_warp_mma.py builds candidates from first principles (22 shapes, 16 element
types, 6 accumulator types, every layout, `.kind`, `.block_scale`, `.scale_vec`, `.stype`,
`.satfinite`, `.rnd`, bit operations, sparsity variants, state spaces), searches the register
count of every operand, then expands every qualifier dimension around each accepted opcode to a
fixpoint and takes the cross products: several hundred thousand near-miss statements. Here the
search (its steps 1-3) runs afresh and what ptxas accepts must be exactly the spec's opcodes,
with the spec's register counts: nothing missing, nothing extra.
"""
import importlib.util
import os
import sys
from pathlib import Path

import pytest
from ptxspec.oracle import ptxas

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")
SURVEY = Path(__file__).resolve().parents[1] / "campaigns" / "survey" / "survey_warp_mma.py"


@pytest.fixture(scope="module")
def search():
    spec = importlib.util.spec_from_file_location("survey_warp_mma", SURVEY)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up there
    spec.loader.exec_module(mod)
    mod.JOBS = max(2, os.cpu_count() or 2)
    screen = mod.screen_mma() + mod.screen_wmma_mma() + mod.screen_wmma_ls()
    found, why = mod.resolve({c: None for c in screen})
    frontier, rounds = dict(found), 0
    while frontier and rounds < 5:
        new = {c: s for c, s in mod.expand(frontier).items() if c not in found and c not in why}
        f2, w2 = mod.resolve(new)
        found.update(f2)
        why.update(w2)
        frontier, rounds = f2, rounds + 1
    cross = {c: s for c, s in mod.cross(found).items() if c not in found and c not in why}
    f3, _ = mod.resolve(cross)
    found.update(f3)
    return mod, found, mod.STATS["lines_judged"]


def _accepted(search, family):
    mod, found, _ = search
    return {c.opcode: f for c, f in found.items() if mod.family_of(c) in family}


@pytest.mark.parametrize("family", ["mma", "wmma"])
def test_opcodes_equal_what_ptxas_accepts(spec, search, family):
    fams = ("mma", "mma.sp") if family == "mma" else ("wmma",)
    accepted = _accepted(search, fams)
    ours = {v.ptx for v in spec.variants if v.family == family and v.requirement.until_ptx is None}  # 9.5 search
    if family == "wmma" and not ours:
        pytest.skip("no wmma variants in the spec yet")
    missing, extra = sorted(set(accepted) - ours), sorted(ours - set(accepted))
    assert search[2] > 100_000, f"only {search[2]} statements judged: the search did not run as designed"
    assert not missing and not extra, (f"{len(missing)} accepted by ptxas but not in the spec, e.g. {missing[:8]}; "
                                       f"{len(extra)} in the spec but not accepted, e.g. {extra[:8]}")


def test_register_counts_equal_what_ptxas_accepts(spec, search):
    """The operand vector sizes that ptxas accepted in the search are the spec's register counts."""
    accepted = _accepted(search, ("mma", "mma.sp"))
    wrong = []
    for v in spec.variants:
        if v.family != "mma" or v.ptx not in accepted:
            continue
        sizes = {o.name: o.n for o in accepted[v.ptx].ops if o.kind == "vec"}
        ours = {name: regs for name, regs in v.regs.items() if name in sizes}
        if sizes != ours:
            wrong.append((v.ptx, sizes, v.regs))
    assert not wrong, f"{len(wrong)} variants, e.g. {wrong[:5]}"
