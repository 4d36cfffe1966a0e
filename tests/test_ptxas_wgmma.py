"""The wgmma family of the spec against ptxas 13.5: what remains here needs no ptxas.

ptxas's verdicts are recordings (evidence/ptxas/, tests/ptxas_checks_wgmma.py), replayed against
the spec in the quick tier (tests/test_ptxas_replay.py) and judged again by ptxas in the full tier
(tests/test_ptxas_live.py):

* versions-wgmma: every variant at its first PTX version on its target, one version earlier, and
  on every target outside its set (at PTX 9.5 and at the target's first version), every statement
  at every version probed there (the module itself rejected where the version predates the target);
* wgmma-immediates, wgmma-immediate-counts, wgmma-scale-d: every legal immediate value assembles,
  illegal ones do not, exactly the signature's number of trailing immediates is accepted, scale-d
  takes the literals 0 and 1;
* wgmma-candidates: a near-miss candidate space built without the spec (tests/ptxas_candidates.py):
  the (opcode, form) pairs ptxas accepts are exactly the spec's, with the spec's immediate counts;
* wgmma-qualifier-order, wgmma-aligned: the errata wgmma-satfinite-position and
  wgmma-aligned-not-enforced (rejections for the missing .sync say so);
* wgmma-sync: wgmma.fence / commit_group / wait_group, and wait_group's count.
"""
from __future__ import annotations


def test_wgmma_variant_count(spec):
    wgmma = [v for v in spec.variants if v.family == "wgmma"]
    mma = [v for v in wgmma if v.instruction.startswith("wgmma.mma_async")]
    assert mma, "no wgmma variants in the database"
    assert len(mma) == len({(v.ptx, v.form) for v in mma}), "duplicate (opcode, form) in the database"
    assert {v.instruction for v in wgmma} == {"wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.fence",
                                              "wgmma.commit_group", "wgmma.wait_group"}


def test_errata_evidence(spec):
    ops = {" ".join(v.ptx.split()) for v in spec.variants}
    errata = [e for e in spec.errata if e.family == "wgmma"]
    assert errata, "spec/errata/wgmma.yaml has no errata"
    bad = []
    for e in errata:
        for op in e.evidence.get("present", []):
            if " ".join(op.split()) not in ops:
                bad.append(f"{e.id}: present {op} is not in the database")
        for op in e.evidence.get("absent", []):
            if " ".join(op.split()) in ops:
                bad.append(f"{e.id}: absent {op} is in the database")
    assert not bad, bad[:20]


def test_wait_group_count_is_an_unbounded_immediate(spec):
    (n,) = spec.variant("wgmma.wait_group.sync.aligned").operands
    assert n.kind == "immediate" and n.min_value == 0 and n.values is None
