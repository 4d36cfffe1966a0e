"""The check of each instruction's stated introduction (`introduced:` in its file, from the manual's PTX
ISA Notes and Target ISA Notes) against ptxas (issue 30, item 7; tests/ptxas_facts.py says what a
check is; tests/test_introductions.py holds the checks that cannot be made to UNCHECKABLE).

For each instruction, with V its introduced PTX version and T its introduced targets, on t0 the
oldest target of T that ptxas knows at V:
  accepted  its variants valid there assemble at V on t0;
  version   they are rejected at the PTX version before V on a target of T that ptxas knows then;
  target    they are rejected on the newest ptxas target of an older architecture than T's.
Each place a check runs also has an empty kernel, which must assemble there: the rejections are the
instruction's, not the module's.
"""
from __future__ import annotations

from ptxas_facts import Case, Check
from ptxspec.model import ptx_text as asm

SAMPLE = 6  # variants per check (every variant is checked at its own first version: versions-<family>)
EMPTY = "(empty kernel)"  # the subject of the empty kernels
CHECKS = ("accepted", "version", "target")

_SM70 = "sm_70/sm_72 and PTX 6.0-6.2 are beyond ptxas 13.5"
_NEW = "its targets are known to ptxas only from that version"


def uncheckable(spec) -> dict[tuple[str, str], str]:
    """(instruction, check) -> why ptxas 13.5 cannot make that check (it knows neither sm_70/sm_72 nor
    PTX before 6.3, and a target it knows only from V has no version before V to try)."""
    tcgen05_ld = ("tcgen05.ld.red", "tcgen05.ld.spcompress", "tcgen05.ld.red.spcompress")
    return {
        **{(w, c): _SM70 for w in ("wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma")
           for c in CHECKS},
        ("mma", "target"): _SM70, ("ldmatrix", "target"): _SM70, ("movmatrix", "target"): _SM70,
        **{(w, "version"): _NEW for w in ("wgmma.mma_async", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
                                          "stmatrix", *tcgen05_ld)},
        **{(w, "version"): _NEW for w in spec.instructions if w.startswith("tcgen05.") and w not in tcgen05_ld},
    }


def checks() -> list[Check]:
    return [Check("introductions", "Each instruction's stated introduction (PTX version V, targets T): a sample of "
                  "its variants assembles at V on the oldest target of T ptxas knows then, is rejected one version "
                  "earlier and on the newest older architecture's target; an empty kernel assembles at each.",
                  "test_introductions.py::test_the_introduction_is_what_ptxas_accepts", "cases", _cases,
                  params={"sample": SAMPLE})]


def _known(spec, version, target) -> bool:
    return version in spec.ptxas_versions and spec.targets[target].ptxas and spec.targets[target].ptx <= version


def _sample(spec, name, target, version):
    vs = [v for v in spec.variants if v.instruction == name and v.valid(target, version)]
    return vs[:: max(1, len(vs) // SAMPLE)][:SAMPLE]


def plan(spec, name) -> dict[str, tuple]:
    """{check: (version, target, the sampled variants, expected verdict)} of the checks ptxas can make."""
    intro = spec.instructions[name].introduced
    assert intro is not None, f"{name} states no introduction"
    (c,) = intro.clauses
    order = sorted(c.targets, key=lambda t: (spec.targets[t].arch, t))
    t0 = next((t for t in order if _known(spec, c.ptx, t)), None)
    out: dict[str, tuple] = {}
    if t0 is None:
        return out
    sample = _sample(spec, name, t0, c.ptx)
    assert sample, f"{name}: no variant is valid at its introduction ({c.ptx} on {t0})"
    out["accepted"] = (c.ptx, t0, sample, True)
    prev = spec.previous_version(c.ptx)
    t_ver = next((t for t in order if prev is not None and _known(spec, prev, t)), None)
    if t_ver is not None:
        out["version"] = (prev, t_ver, _sample(spec, name, t_ver, c.ptx), False)
    first = spec.targets[order[0]].arch
    older = [t for t in spec.targets.values() if t.ptxas and t.arch < first]
    if older:
        t_old = max(older, key=lambda t: (t.arch, t.suffix == "a", t.suffix))
        out["target"] = (max(c.ptx, t_old.ptx), t_old.name, sample, False)
    return out


def _cases(spec, facts) -> list[Case]:
    out, places = [], set()
    for name in sorted(spec.instructions):
        for check, (version, target, sample, want) in plan(spec, name).items():
            places.add((str(version), target))
            out += [Case(v.id, f"{name} {check}", str(version), target, asm.statement(v), want) for v in sample]
    out += [Case(EMPTY, "ret", version, target, "ret;", True) for version, target in sorted(places)]
    return out
