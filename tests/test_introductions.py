"""Each instruction's stated introduction (`introduced:` in its file, from the manual's PTX ISA
Notes and Target ISA Notes) against ptxas 13.5, the independent truth (issue 30, item 7).

For each instruction, with V its introduced PTX version and T its introduced targets, on t0 the
oldest target of T that ptxas knows at V:
  accepted  its variants valid there assemble at V on t0;
  version   they are rejected at the PTX version before V on a target of T that ptxas knows then
            (an empty kernel there assembles: the rejection is the instruction's);
  target    they are rejected on the newest ptxas target of an older architecture than T's.
ptxas 13.5 knows neither sm_70/sm_72 nor PTX before 6.3, and a target it knows only from V has
no version before V to try: those checks cannot be made, and UNCHECKABLE says which and why, so
that a check that becomes possible (or one that silently stops) fails here.
"""
from __future__ import annotations

import pytest

import ptxspec
from ptxspec.model import ptx_text as asm
from ptxspec.oracle import ptxas

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")

SPEC = ptxspec.load()
SAMPLE = 6  # variants per check (every variant is checked by test_ptxas_families at its own first version)

_SM70 = "sm_70/sm_72 and PTX 6.0-6.2 are beyond ptxas 13.5"
_NEW = "its targets are known to ptxas only from that version"
UNCHECKABLE = {
    **{(w, c): _SM70 for w in ("wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma")
       for c in ("accepted", "version", "target")},
    ("mma", "target"): _SM70, ("ldmatrix", "target"): _SM70, ("movmatrix", "target"): _SM70,
    **{(w, "version"): _NEW for w in ("wgmma.mma_async", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
                                      "stmatrix", "tcgen05.ld.red", "tcgen05.ld.spcompress",
                                      "tcgen05.ld.red.spcompress")},
    **{(w, "version"): _NEW for w in SPEC.instructions if w.startswith("tcgen05.") and w not in
       ("tcgen05.ld.red", "tcgen05.ld.spcompress", "tcgen05.ld.red.spcompress")},
}


def _known(version, target) -> bool:
    return version in SPEC.ptxas_versions and SPEC.targets[target].ptxas and SPEC.targets[target].ptx <= version


def _lines(name, target, version):
    vs = [v for v in SPEC.variants if v.instruction == name and v.valid(target, version)]
    return [asm.statement(v) for v in vs[:: max(1, len(vs) // SAMPLE)][:SAMPLE]]


def _plan(name):
    """{check: (version, target, the variants' lines, expected verdict)} of the checks ptxas can make."""
    intro = SPEC.instructions[name].introduced
    assert intro is not None, f"{name} states no introduction"
    (c,) = intro.clauses
    order = sorted(c.targets, key=lambda t: (SPEC.targets[t].arch, t))
    t0 = next((t for t in order if _known(c.ptx, t)), None)
    plan = {}
    if t0 is None:
        return plan
    lines = _lines(name, t0, c.ptx)
    assert lines, f"{name}: no variant is valid at its introduction ({c.ptx} on {t0})"
    plan["accepted"] = (c.ptx, t0, lines, True)
    prev = SPEC.previous_version(c.ptx)
    t_ver = next((t for t in order if prev is not None and _known(prev, t)), None)
    if t_ver is not None:
        plan["version"] = (prev, t_ver, _lines(name, t_ver, c.ptx), False)
    first = SPEC.targets[order[0]].arch
    older = [t for t in SPEC.targets.values() if t.ptxas and t.arch < first]
    if older:
        t_old = max(older, key=lambda t: (t.arch, t.suffix == "a", t.suffix))
        at = max(c.ptx, t_old.ptx)
        plan["target"] = (at, t_old.name, lines, False)
    return plan


@pytest.mark.parametrize("name", sorted(SPEC.instructions))
def test_the_introduction_is_what_ptxas_accepts(name):
    plan = _plan(name)
    for check in ("accepted", "version", "target"):
        if check not in plan:
            assert (name, check) in UNCHECKABLE, f"{name}: the {check} check cannot be made; say why in UNCHECKABLE"
            continue
        assert (name, check) not in UNCHECKABLE, f"{name}: the {check} check can be made now; remove it from UNCHECKABLE"
        version, target, lines, want = plan[check]
        empty, _ = ptxas.judge(["  ret;"], str(version), target)
        assert empty == [True], f"{name}: an empty kernel at PTX {version} on {target} does not assemble"
        got, res = ptxas.judge(lines, str(version), target)
        bad = [line for line, ok in zip(lines, got) if ok != want]
        assert not bad, (f"{name} ({check}): at PTX {version} on {target} ptxas "
                         f"{'rejects' if want else 'accepts'} {bad[0]} ({res.errors or res.fatal})")


def test_every_instruction_states_its_introduction():
    assert all(i.introduced is not None for i in SPEC.instructions.values())
