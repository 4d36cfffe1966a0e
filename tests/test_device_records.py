"""The wgmma and mma maps proven on hardware stay proven: recorded H100 outputs against the current spec.

evidence/records/wgmma-*.json holds, for every spec-independent case of the device campaign
(campaigns/README.md), the seeds and alphabets of its raw inputs and a digest of the D
registers the H100 returned. Here, without a GPU, each case's inputs are redrawn, interpreted
through the *current* spec (A and C/D fragment maps, descriptor fields, canonical layouts and
swizzles, sparsity metadata map, element formats), the exact D is computed and its digest compared
with the hardware's. A spec edit that breaks a proven map fails here.

Records that the spec did not reproduce when they were recorded name the correction they need
(the file's `corrections`: the formula the hardware confirmed). Until the spec takes a correction,
its records are expected failures; once it does, all of them must match.

evidence/records/mma-*.json does the same for the warp-level mma (every variant sm_90a runs):
register inputs (seeds and alphabets, or the raw words of directed cases) and the digest of the D
registers, replayed through the current A, B, C and D fragment maps, element formats and
operations (campaigns/notes/2026-11-22-mma.md); mma-sp-*.json for mma.sp, through the
sparsity metadata maps as well (campaigns/notes/2026-11-22-mma-sp.md), with the same
pending-correction mechanism as the wgmma records.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "campaigns"))
import wgmma_harness as H  # noqa: E402

RECORD_FILES = sorted((ROOT / "evidence" / "records").glob("wgmma-*.json"))


def _load():
    out = []
    for path in RECORD_FILES:
        doc = json.loads(path.read_text())
        out.append((path, doc))
    return out


DOCS = _load()


def _group(rec) -> str:
    vid, form = rec["variant"].rsplit(":", 1)
    shape = vid.split(".aligned.")[1].split(".")
    kind = "sparse" if ".sp." in vid else "dense"
    return f"{kind}-{'.'.join(shape[1:])}-{form}"


@pytest.fixture(scope="module")
def outcomes(spec):
    """(path, record) -> 'match' | 'mismatch' | 'unmodelled: why'."""
    res = {}
    for path, doc in DOCS:
        for rec in doc["cases"]:
            case = H.Case.from_record(rec, doc["alphabets"])
            try:
                exp, _, v = H.expected_output(spec, case)
            except H.smem_mod.BaseOffsetUnsupported as exc:
                res[(path.name, rec["run"], rec["index"])] = f"unmodelled: {exc}"
                continue
            got = H.digest(H.canonical(spec, v, exp))
            res[(path.name, rec["run"], rec["index"])] = "match" if got == rec["digest"] else "mismatch"
    return res


def test_records_exist_and_are_small():
    assert RECORD_FILES, "no device records"
    for path in RECORD_FILES:
        assert path.stat().st_size < 2 * 1024 * 1024, path


def test_records_cover_every_class():
    """Every shape class and type of the issue has hardware records of both A forms."""
    seen = defaultdict(set)
    for _, doc in DOCS:
        for rec in doc["cases"]:
            vid, form = rec["variant"].rsplit(":", 1)
            seen[(".sp." in vid, vid.split(".")[-2] if "b1" not in vid else "b1")].add(form)
    want = [(False, t) for t in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1")] + \
           [(True, t) for t in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8")]
    for key in want:
        assert seen.get(key) == {"reg", "desc"}, (key, seen.get(key))


_PROVEN = defaultdict(list)
_PENDING = defaultdict(list)
for _path, _doc in DOCS:
    for _rec in _doc["cases"]:
        key = (_path.name, _rec["run"], _rec["index"])
        if _rec.get("spec_match", True):
            _PROVEN[_group(_rec)].append(key)
        else:
            _PENDING[tuple(_rec["corrections"])].append(key)


@pytest.mark.parametrize("group", sorted(_PROVEN))
def test_proven_records_still_match(outcomes, group):
    bad = [(k, outcomes[k]) for k in _PROVEN[group] if outcomes[k] != "match"]
    assert not bad, (f"{len(bad)} of {len(_PROVEN[group])} hardware records of {group} no longer match the spec; "
                     f"first: {bad[:3]}")


def _corrections(docs):
    out = {}
    for _, doc in docs:
        out.update(doc.get("corrections", {}))
    return out


def _check_pending(states, ids, corrections, what):
    """Records that need a correction: all match once the spec has it; until then, an expected failure."""
    matched = sum(s == "match" for s in states)
    if matched == len(states):
        return
    why = "; ".join(f"{i}: {corrections.get(i, {}).get('where', '?')} should read "
                    f"{corrections.get(i, {}).get('hardware')}" for i in ids)
    if matched == 0:
        pytest.xfail(f"{len(states)} {what} await the correction(s) {why}")
    pytest.fail(f"only {matched} of {len(states)} {what} needing {ids} match: a partial correction? {why}")


@pytest.mark.parametrize("ids", sorted(_PENDING), ids=lambda t: "+".join(t))
def test_pending_corrections(outcomes, ids):
    _check_pending([outcomes[k] for k in _PENDING[ids]], ids, _corrections(DOCS), "wgmma hardware records")


# ---------------------------------------------------------------------------------------------
# Warp-level mma (evidence/records/mma-*.json; method: campaigns/notes/2026-11-22-mma.md)

import mma_harness as MH  # noqa: E402

MMA_FILES = sorted((ROOT / "evidence" / "records").glob("mma-*.json"))
MMA_DOCS = [(path, json.loads(path.read_text())) for path in MMA_FILES]

_MMA_CASES = defaultdict(list)  # variant id -> [(file, run, index)] of records the spec reproduced when recorded
_MMA_PENDING = defaultdict(list)  # correction ids -> [(file, run, index)] of records that await them
for _path, _doc in MMA_DOCS:
    for _rec in _doc["cases"]:
        _key = (_path.name, _rec["run"], _rec["index"])
        if _rec.get("spec_match", True):
            _MMA_CASES[_rec["variant"]].append(_key)
        else:
            _MMA_PENDING[tuple(_rec.get("corrections", ()))].append(_key)


def _mma_key(vid: str) -> str:
    return vid.replace(".sync.aligned.", ".").replace(".row.col", "").replace("mma.m", "m")


@pytest.fixture(scope="module")
def mma_outcomes(spec):
    """(file, run, index) -> 'match' | 'mismatch' | 'error: why' for every mma record."""
    res = {}
    for path, doc in MMA_DOCS:
        for rec in doc["cases"]:
            key = (path.name, rec["run"], rec["index"])
            try:
                case = MH.Case.from_record(rec, doc["alphabets"])
                exp, _, v = MH.expected_output(spec, case)
            except (KeyError, ValueError) as exc:  # variant gone from the spec, or inputs it cannot read
                res[key] = f"error: {exc}"
                continue
            res[key] = "match" if MH.digest(MH.canonical(spec, v, exp)) == rec["digest"] else "mismatch"
    return res


def test_mma_records_exist_and_are_small():
    assert MMA_FILES, "no mma device records"
    for path in MMA_FILES:
        assert path.stat().st_size < 2 * 1024 * 1024, path


def test_mma_records_were_proven_or_name_their_correction():
    """Every mma record matched the spec when it was recorded, or names the correction(s) it needs, each
    documented in its file's `corrections` (the formula the hardware confirmed and the evidence)."""
    bad = []
    for p, d in MMA_DOCS:
        for r in d["cases"]:
            if r.get("spec_match", True):
                continue
            ids = r.get("corrections") or []
            if not ids or any(i not in d.get("corrections", {}) or "hardware" not in d["corrections"][i] for i in ids):
                bad.append((p.name, r["index"], r["variant"], ids))
    assert not bad, bad[:5]


@pytest.mark.parametrize("ids", sorted(_MMA_PENDING), ids=lambda t: "+".join(t))
def test_mma_pending_corrections(mma_outcomes, ids):
    _check_pending([mma_outcomes[k] for k in _MMA_PENDING[ids]], ids, _corrections(MMA_DOCS), "mma hardware records")


@pytest.mark.parametrize("vid", sorted(_MMA_CASES), ids=_mma_key)
def test_mma_records_still_match(mma_outcomes, vid):
    """The H100's D registers of every recorded case of this variant that the spec reproduced when it was
    recorded are what the current spec predicts (records awaiting a correction: test_mma_pending_corrections)."""
    keys = _MMA_CASES[vid]
    bad = [(k, mma_outcomes[k]) for k in keys if mma_outcomes[k] != "match"]
    assert not bad, f"{len(bad)} of {len(keys)} hardware records of {vid} no longer match the spec; first: {bad[:3]}"


def test_mma_records_cover_every_sm90_variant(spec):
    """Every warp-level mma whose maps the spec says the H100 shows (`hardware == "H100"`: sm_90a runs
    it) has hardware records, random and directed; the others say why not."""
    kinds = defaultdict(set)  # (records awaiting a correction must match now: test_mma_pending_corrections)
    for _, doc in MMA_DOCS:
        for rec in doc["cases"]:
            kinds[rec["variant"]].add(rec["kind"])
    want = [v for v in spec.variants if v.family == "mma" and v.hardware == "H100"]
    assert len(want) >= 200
    missing = [v.id for v in want if not {"random", "b-onehot", "c-pass"} <= kinds.get(v.id, set())]
    assert not missing, (f"{len(missing)} mma variant(s) for sm_90a have no hardware records (run "
                         f"campaigns/gen_mma.py, run_mma.sh, check_mma.py --record): {missing[:5]}")
    others = [v for v in spec.variants if v.family == "mma" and v.hardware != "H100"]
    assert all(v.hardware.startswith("not run: no sm_90a") or v.hardware_note for v in others)
