"""The wmma fragment maps observed on the H100 stay what the spec says (no GPU needed).

evidence/records/wmma-*.json holds, for every kernel of the wmma device campaign
(campaigns/notes/2026-11-22-wmma.md), the digest of what the H100 returned: the registers
of every wmma.load (every opcode, state space, with and without a stride), the memory after every
wmma.store.d, the D of every wmma.mma on random registers and the A, B, C, D registers of
load-multiply chains. The inputs follow from each entry (campaigns/wmma_replay.py); here they
are interpreted through the *current* spec's maps and the results compared with the hardware's.
The maps are observations of sm_90a (the manual leaves them unspecified), and this is what keeps
the spec's statement of them true.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "campaigns"))
import wmma_replay as R  # noqa: E402

RECORDS = sorted((ROOT / "evidence" / "records").glob("wmma-*.json"))


@pytest.fixture(scope="module")
def records():
    assert RECORDS, "no wmma device records"
    return [json.loads(p.read_text()) for p in RECORDS]


def test_every_record_replays(spec, records):
    results = Counter()
    bad = []
    for doc in records:
        for e in doc["entries"]:
            ok = R.replay(spec, e)
            results[(e["kind"], ok)] += 1
            if not ok:
                bad.append((e["kind"], e["opcode"], e.get("stride", e.get("case"))))
    assert not bad, f"{len(bad)} of {sum(results.values())} records disagree with the spec: {bad[:10]}"
    for kind in ("load", "store", "mma", "chain"):
        assert results[(kind, True)] > 0, kind


def test_records_cover_every_mapped_variant(spec, records):
    """Every wmma variant with fragment maps was run: loads and stores with and without a stride,
    every wmma.mma on random registers and, where wmma.load can feed it, in a chain."""
    seen = {(e["kind"], e["opcode"], e.get("stride")) for doc in records for e in doc["entries"]}
    missing = []
    for v in spec.variants:
        if v.family != "wmma" or "sm_90a" not in v.targets:
            continue
        if v.instruction == "wmma.mma":
            if all(x in v.fragment_layouts for x in "abcd") and ("mma", v.ptx, None) not in seen:
                missing.append(v.ptx)
        else:
            kind = "store" if v.instruction == "wmma.store.d" else "load"
            missing += [f"{v.ptx} stride={s}" for s in (False, True) if (kind, v.ptx, s) not in seen]
    assert not missing, missing[:10]
    chains = {e["opcode"] for doc in records for e in doc["entries"] if e["kind"] == "chain"}
    assert len(chains) >= 138


def test_unmapped_variants_computed_nothing(spec, records):
    """The .f64 m16n16k* wmma.mma (ptxas accepts them; erratum wmma-f64-m16n16-undefined) have no
    fragment map in the spec, and on the H100 their D held one constant whatever the inputs."""
    for doc in records:
        cases = doc["unmapped"]["cases"]
        ops = {c["opcode"] for c in cases}
        assert len(ops) == 40 and all(c["d_distinct_words"] <= 2 for c in cases)
        for op in ops:
            v = spec.variant(op)
            assert v.ptxas_only == "wmma-f64-m16n16-undefined" and not v.fragment_layouts
        assert set(doc["unmapped"]["sass_without_mma"]) == ops


def test_observed_not_normative_reaches_model_database_and_docs(spec):
    """Every wmma map is flagged as observed on sm_90a (the manual leaves them unspecified), no
    other family's is, and the flag reaches the database and the reference pages."""
    from ptxspec.emit import docs, sqlite

    wmma = {lay.name for v in spec.variants if v.family == "wmma" for lay, _, _ in v.fragment_layouts.values()}
    assert len(wmma) == 22
    for name, lay in spec.layouts.items():
        assert (lay.observed_on == "sm_90a") == (name in wmma) and lay.normative == (name not in wmma), name
    for v in spec.variants:  # the variant records (JSON export, query) carry it on each fragment operand
        for o in v.as_record()["operands"]:
            if o["kind"] == "fragment" and o.get("layout"):
                assert o.get("observed_on", "") == ("sm_90a" if v.family == "wmma" else ""), (v.id, o)
    conn = sqlite.connect(spec)
    rows = conn.execute("SELECT name, observed_on, replicas FROM layouts").fetchall()
    assert {n for n, o, _ in rows if o} == wmma and all(o == "sm_90a" for n, o, _ in rows if n in wmma)
    assert {(n, r) for n, _, r in rows if r > 1} == {
        ("wmma.m16n16k16.a.f16", 2), ("wmma.m16n16k16.b.f16", 2), ("wmma.m8n32k16.a.f16", 4), ("wmma.m32n8k16.b.f16", 4)}
    optional = conn.execute("SELECT DISTINCT o.kind FROM operands o JOIN variants v ON v.id = o.variant_id "
                            "WHERE o.optional = 1 AND v.family = 'wmma'").fetchall()
    assert optional == [("stride",)]
    pages = docs.build(spec)
    text = pages["docs/wmma/fragments.md"].decode()
    sections = text.count("\n## ")  # one per figure
    assert sections >= 22 and text.count("not normative.**") == sections
    assert "not normative" not in pages["docs/mma/fragments.md"].decode()
    assert "**not normative**" in pages["docs/wmma/wmma.load.a.md"].decode()


def test_maps_do_not_depend_on_the_assembler(records):
    """ptxas chooses wmma's register maps when it lowers the instructions: the same kernels assembled
    by ptxas 13.5 (the test oracle) gave byte-identical results to those of ptxas 13.0."""
    for doc in records:
        second = doc["second_build"]
        assert "13.5" in second["built_by"] and second["mismatches"] == 0
        assert second["cases"] == second["identical_to_main_run"] == len(doc["entries"])
