"""Evidence is data: every hardware claim the model makes stands on a campaign under evidence/.

`Variant.hardware` and the numerics status are computed by joining the variants with the
evidence files; these tests keep that join honest: the files are fresh summaries of their raw
records (which the device-record tests replay against the model), every record file belongs to a
campaign, and for every variant of every family a claimed status has its evidence. The build
reads spec/ and evidence/, never tests/.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ptxspec
import pytest
from ptxspec.semantics import numerics_status

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "evidence"


def test_results_are_fresh_summaries_of_the_records():
    proc = subprocess.run([sys.executable, str(EVIDENCE / "summarize.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


#: Records whose campaign file cannot exist yet, and why (remove the entry with the campaign file).
PENDING: dict[str, str] = {}


def test_every_record_file_belongs_to_a_campaign(spec):
    named = {rec for e in spec.evidence.campaigns for rec in e.records}
    on_disk = {f"records/{p.name}" for p in (EVIDENCE / "records").iterdir()}
    assert not named & set(PENDING), f"remove from PENDING: {sorted(named & set(PENDING))}"
    assert on_disk - set(PENDING) == named, \
        f"records without a campaign: {sorted(on_disk - named - set(PENDING))}; missing: {sorted(named - on_disk)}"


def test_campaign_names_match_their_files(spec):
    for e in spec.evidence.campaigns:
        assert Path(e.path).name == f"{e.campaign}.json"
        assert e.notes and (ROOT / e.notes).is_file(), e.notes


@pytest.fixture(scope="module")
def by_family(spec):
    return {f: [v for v in spec.variants if v.family == f] for f in spec.families}


@pytest.mark.parametrize("family", sorted(ptxspec.load().families))
def test_claimed_hardware_has_evidence(spec, by_family, family):
    """A variant said to be proven on a GPU has a maps campaign on that GPU that ran it and matched;
    one said not run has none."""
    for v in by_family[family]:
        proofs = [e for e in spec.evidence.of(v.id, "maps") if e.results[v.id].mismatches == 0]
        if v.hardware.startswith(("not run", "not observable")):
            assert not proofs or v.hardware_note, v.id
        else:
            assert any(e.hardware == v.hardware for e in proofs), f"{v.id}: hardware {v.hardware!r} without evidence"


@pytest.mark.parametrize("family", sorted(ptxspec.load().families))
def test_claimed_numerics_have_evidence(spec, by_family, family):
    status = {r[0]: r for r in numerics_status.status_rows(spec)}
    for v in by_family[family]:
        row = status.get(v.id)
        if row is None:
            continue
        runs = spec.evidence.of(v.id, "numerics")
        if row[3] in ("bit-exact", "mismatches"):
            assert runs, f"{v.id}: numerics {row[3]!r} without a numerics campaign"
            assert row[5] == sum(e.results[v.id].outputs for e in runs)
        else:
            assert not runs, v.id


def test_a_measured_variant_without_a_rule_is_no_model(spec, monkeypatch):
    """Fuzz seed 36, tree 8175: a numerics rule deleted left the variants it covered, which a campaign
    had measured, 'bit-exact' with no model. The campaign's agreement was its rule's: with no rule there
    is nothing it proves."""
    from ptxspec.semantics import numerics as nm
    status = {r[0]: r for r in numerics_status.status_rows(spec)}
    measured = next(v for v in spec.variants if status.get(v.id, (None,) * 4)[3] == "bit-exact"
                    and nm.rule_of(v) is not None)
    gone = nm.rule_of(measured)
    monkeypatch.setattr(spec, "numerics", [r for r in spec.numerics if r is not gone])
    monkeypatch.setattr(spec, "digest", "another spec")  # the generated tables are the old spec's
    monkeypatch.setattr(nm, "_TABLES", {})
    after = {r[0]: r for r in numerics_status.status_rows(spec)}
    assert after[measured.id][1] is None and after[measured.id][3] == "no model"
    assert not [r for r in after.values() if r[1] is None and r[3] in ("bit-exact", "mismatches")]


def test_without_evidence_nothing_is_proven(tmp_path):
    """The same spec with no evidence beside it claims no hardware and no measured numerics."""
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    bare = ptxspec.load(tmp_path / "spec")
    assert not bare.evidence.campaigns
    assert {v.hardware for v in bare.variants} <= {"not run: no hardware record"} | {
        v.hardware for v in bare.variants if v.hardware_note}
    assert not [r for r in numerics_status.status_rows(bare) if r[3] in ("bit-exact", "mismatches")]


@pytest.mark.full
def test_the_build_reads_spec_and_evidence_only(tmp_path):
    """A tree holding only spec/ and evidence/ builds exactly the committed generated/."""
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(EVIDENCE, tmp_path / "evidence", ignore=shutil.ignore_patterns("records", "*.py"))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "--spec", str(tmp_path / "spec"), "build", "--out",
                           str(out)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    generated = ROOT / "generated"
    differ = [p.relative_to(out).as_posix() for p in sorted(out.rglob("*"))
              if p.is_file() and p.read_bytes() != (generated / p.relative_to(out)).read_bytes()]
    assert not differ, differ[:5]


def test_bad_evidence_is_a_located_error(tmp_path):
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "evidence").mkdir()
    doc = json.loads((EVIDENCE / "mma-2026-11-22.json").read_text())
    doc["results"]["mma.sync.aligned.m99n8k16.row.col.f32.f16.f16.f32"] = [1, 1, 0]
    (tmp_path / "evidence" / "mma-2026-11-22.json").write_text(json.dumps(doc))
    with pytest.raises(ptxspec.SpecError, match="name no variant of the spec"):
        ptxspec.load(tmp_path / "spec")
    (tmp_path / "evidence" / "mma-2026-11-22.json").write_text('{"kind": "evidence"')
    with pytest.raises(ptxspec.SpecError, match="not JSON"):
        ptxspec.load(tmp_path / "spec")


@pytest.mark.parametrize("bad", [[0, 1, 0], "1,1,0", *(pytest.param(b, marks=pytest.mark.full)  # quick tier: two
                                                         for b in ([1, 1], [1, 1, 0, 0], [1, -1, 0]))])
def test_one_bad_result_among_thousands_is_found(tmp_path, bad):
    """Each result value is checked, however many share a value (the loader checks each distinct
    value once): one bad value among the numerics campaign's 2,508 results is a located error
    naming its variant."""
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "evidence").mkdir()
    doc = json.loads((EVIDENCE / "numerics-2026-11-22.json").read_text())
    vid = sorted(doc["results"])[1234]
    doc["results"][vid] = bad
    (tmp_path / "evidence" / "numerics-2026-11-22.json").write_text(json.dumps(doc))
    with pytest.raises(ptxspec.SpecError, match=f"results/{re.escape(vid)}(/[0-9]+)?: ") as info:
        ptxspec.load(tmp_path / "spec")
    assert len(info.value.problems) == 1
