"""Quick tier: every ptxas verdict the tests rely on, replayed from its recording (evidence/ptxas/)
against the spec, without running ptxas (tests/ptxas_facts.py says how; tests/test_ptxas_live.py
runs ptxas again in the full tier).

Each check of tests/ptxas_checks*.py fails when the spec claims something no recording supports,
when a recorded verdict contradicts the spec, or when a recording names what the spec does not
have; the message names the variant, the target, the version and the recording, and the command
that records it again. The last tests show that it does fail so: on a hand-edited recording, on a
spec changed against a recording, and on a missing recording.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import ptxas_checks
import ptxas_facts as F
import ptxspec
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKS = {c.name: c for c in ptxas_checks.checks(ptxspec.load())}


@pytest.mark.parametrize("name", list(CHECKS))
def test_replay(spec, name):
    problems = F.replay(spec, CHECKS[name])
    assert not problems, "\n".join(problems)


def test_every_recording_belongs_to_a_check():
    files = {p.stem for p in F.RECORDINGS.glob("*.json")}
    assert files - set(CHECKS) == set(), "recordings of no check: remove them"
    assert set(CHECKS) - files == set(), f"checks without a recording: run `{F.command()}`"


def test_the_model_says_which_ptxas_proved_each_variant(spec):
    """Every variant is named by its family's versions recording; the database's variant_ptxas says
    the same as the model."""
    from ptxspec.query import populate
    recordings = {r.check: r for r in spec.evidence.ptxas}
    assert set(recordings) == set(CHECKS)
    for v in spec.variants:
        names = {r.check for r in spec.evidence.ptxas_of(v.id)}
        assert f"versions-{v.family}" in names, v.id
    conn = populate.connect(spec)
    rows = conn.execute("SELECT variant_id, recording, ptxas, statements, accepted FROM variant_ptxas").fetchall()
    want = {(vid, r.check, r.ptxas, n, a) for r in spec.evidence.ptxas for vid, (n, a) in r.variants.items()}
    assert set(rows) == want and len(rows) == len(want)


# ---------------------------------------------------------------------------------------------
# The replay fails where it should


def _recordings(tmp_path: Path) -> Path:
    out = tmp_path / "ptxas"
    shutil.copytree(F.RECORDINGS, out)
    return out


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(F.dumps(doc))


def test_a_hand_edited_recording_fails(spec, tmp_path):
    d = _recordings(tmp_path)
    # fence-spaces: ptxas rejected fence.proxy.async.local; the edit says it accepted every space
    _edit(d / "fence-spaces.json", lambda doc: doc["subjects"]["fence.proxy.async"].__setitem__(2, "0-8"))
    problems = "\n".join(F.replay(spec, CHECKS["fence-spaces"], d))
    assert "fence.proxy.async [space local] at PTX 8.0 on sm_90: ptxas 13.5.37 accepted it, the spec says invalid" \
        in problems, problems
    assert "ptxas/fence-spaces.json" in problems and "hand-edited" in problems, problems
    # versions-wgmma: a variant's pattern changed to "from PTX 8.2 on"
    vid = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16:reg"

    def later(doc):
        doc["variants"][vid][1] = next(k for k, p in doc["patterns"].items() if p == "sm_90a:8.2+")
    _edit(d / "versions-wgmma.json", later)
    problems = "\n".join(F.replay(spec, CHECKS["versions-wgmma"], d))
    assert f"{vid} at PTX 8.0 on sm_90a: ptxas 13.5.37 rejected it, the spec says valid" in problems, problems
    assert "ptxas/versions-wgmma.json (ptxas 13.5.37" in problems, problems


def test_a_spec_change_that_contradicts_a_recording_fails(tmp_path):
    """fence.proxy.async said to need PTX 8.3 instead of 8.0: ptxas accepted it at 8.0 (recorded),
    and the spec now claims it at 8.3 on sm_90, where nothing was recorded."""
    spec_dir = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec_dir)
    path = next(p for p in spec_dir.rglob("*.yaml") if "\nname: fence.proxy.async\n" in p.read_text())
    text = path.read_text()
    # its requirement (`requires`), not its introduction (which a requirement may not precede)
    changed = re.sub(r"(requires:\s*- \{ptx:\s*)\"?8\.0\"?", r'\g<1>"8.3"', text, count=1)
    assert changed != text, f"no PTX 8.0 requirement in {path}"
    path.write_text(changed)
    edited = ptxspec.load(spec_dir)
    problems = "\n".join(F.replay(edited, CHECKS["versions-fence"]))
    assert re.search(r"fence\.proxy\.async\S* at PTX 8\.0 on sm_90a?: ptxas 13\.5\.37 accepted it, the spec says "
                     r"invalid", problems), problems
    assert re.search(r"fence\.proxy\.async\S* at PTX 8\.3 on sm_90a?: the spec says it is valid", problems), problems
    assert "evidence/ptxas/versions-fence.json" in problems and F.command("versions-fence") in problems, problems


def test_a_missing_recording_fails(spec, tmp_path):
    d = _recordings(tmp_path)
    (d / "wgmma-sync.json").unlink()
    problems = F.replay(spec, CHECKS["wgmma-sync"], d)
    assert problems == [f"wgmma-sync: no recording ({d / 'wgmma-sync.json'} is missing): record it with "
                        f"`{F.command('wgmma-sync')}`"]
    # a variant the recording lacks: every claim of it is unsupported, and named
    vid = "fence.proxy.async.global"
    _edit(d / "versions-fence.json", lambda doc: doc["variants"].pop(vid))
    problems = "\n".join(F.replay(spec, CHECKS["versions-fence"], d))
    assert f"{vid} at PTX 8.0 on sm_90: the spec says it is valid" in problems, problems
    assert "have no recording in" in problems and "versions-fence.json" in problems, problems


def test_a_recording_that_breaks_its_schema_is_a_located_error(tmp_path):
    from ptxspec.core.errors import Problems
    from ptxspec.loading.ptxas_evidence import read_ptxas_evidence
    (tmp_path / "ptxas").mkdir()
    shutil.copy(F.RECORDINGS / "fence-spaces.json", tmp_path / "ptxas")
    (tmp_path / "ptxas" / "wgmma-sync.json").write_text('{"kind": "ptxas-evidence",\n  "check": }')
    doc = json.loads((F.RECORDINGS / "ldmatrix-x8.json").read_text())
    doc["ptxas"] = "thirteen"
    (tmp_path / "ptxas" / "ldmatrix-x8.json").write_text(json.dumps(doc))
    problems = Problems()
    got = read_ptxas_evidence(tmp_path, ["fence.proxy.async"], {"fence.proxy.async": "fence.proxy.async"}, problems)
    assert [r.check for r in got] == ["fence-spaces"] and got[0].variants == {"fence.proxy.async": (9, 4)}
    text = "\n".join(str(p) for p in problems.finished())
    assert "ptxas/ldmatrix-x8.json:1:1: error: ptxas: 'thirteen' does not match" in text, text
    assert "ptxas/wgmma-sync.json:2:12: error: not JSON" in text, text


@pytest.mark.parametrize("table,entry", [
    ("variants", ["0123abcd", "p1", "x"]), ("variants", ["0123abcd", "q1"]), ("variants", "0123abcd"),
    ("subjects", [1, "0123abcd", "0-3", 4]), ("subjects", [0, "0123abcd", ""]), ("subjects", [2.5, "0123abcd", "0"]),
    ("patterns", "sm_90:8.0 +"), ("probes", ["7.a"]), ("found", 5)])
def test_the_tables_are_held_to_the_schema_as_jsonschema_holds_them(table, entry):
    """read_recording checks the large tables entry by entry at once (ptxas_evidence._errors): it
    refuses what jsonschema refuses, at the same place, and accepts what it accepts."""
    import jsonschema
    from ptxspec.loading import ptxas_evidence as P
    name = {"variants": "versions-fence", "probes": "versions-fence", "patterns": "versions-fence",
            "subjects": "fence-spaces", "found": "warp-search"}[table]
    doc = json.loads((F.RECORDINGS / f"{name}.json").read_text())
    judge = jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "ptxas-evidence.schema.json").read_text()))
    assert not P._errors(doc) and not list(judge.iter_errors(doc))
    doc[table][next(iter(doc[table]))] = entry
    want = sorted(judge.iter_errors(doc), key=lambda e: list(e.absolute_path))
    got = P._errors(doc)
    assert want and [list(e.absolute_path) for e in got][:1] == [list(e.absolute_path) for e in want][:1]
