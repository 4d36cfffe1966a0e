"""Evidence files are checked against what they claim (issue 30, item 8): counts that cannot be,
days that are not, files that do not exist, a campaign named unlike its file, a GPU that cannot
run the target, JSON keys written twice. Each validated before; each is now one located line
(`path:line:col: error: ...`) at the JSON line that says it, through the command line.

Each case edits a copy of the checkout's evidence (with its records and campaign notes, as a
checkout has them) beside a copy of spec/.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

import ptxspec
from ptxspec.cli.main import main as cli_main
from ptxspec.loading.evidence_checks import GPU_ARCH, SHOWN, json_positions

ROOT = Path(__file__).resolve().parents[1]
MMA = "mma-2026-11-22.json"
SP = "mma-sp-2026-11-22.json"
NUM = "numerics-2026-11-22.json"
VID = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
LINE = re.compile(r"^(.+):(\d+):(\d+): error: (.+)$")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(ROOT / "spec", root / "spec")
    shutil.copytree(ROOT / "evidence", root / "evidence", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    shutil.copytree(ROOT / "campaigns" / "notes", root / "campaigns" / "notes")
    return root


def _validate(root: Path) -> tuple[int, list[tuple[str, int, str]]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(["--spec", str(root / "spec"), "validate"])
    lines = out.getvalue().strip().splitlines()
    found = []
    for line in lines if code else []:
        m = LINE.match(line)
        assert m, f"not a located one-line error: {line!r}"
        found.append((Path(m.group(1)).name, int(m.group(2)), m.group(4)))
    return code, found


def _line_of(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


def test_the_real_evidence_is_clean(pristine):
    assert _validate(pristine) == (0, [])


CASES = [  # (name, file, old text, new text, marker of the line reported, message)
    ("more_mismatches_than_outputs", MMA, f'"{VID}": [10, 1280, 0]', f'"{VID}": [6, 384, 999]', VID,
     "999 mismatches among 384 outputs"),
    ("mismatches_without_outputs", MMA, f'"{VID}": [10, 1280, 0]', f'"{VID}": [6, 0, 5]', VID,
     "5 mismatches among 0 outputs"),
    ("impossible_date", MMA, '"date": "2026-11-22"', '"date": "2026-13-45"', '"date"', "no day of the calendar"),
    ("record_missing", MMA, '"records/mma-2026-11-22.json"', '"records/mma-2026-11-21.json"', "records/mma-2026-11-21",
     "record 'records/mma-2026-11-21.json' does not exist"),
    ("record_outside", MMA, '"records/mma-2026-11-22.json"', '"records/.."', '"records/.."',
     "is not a relative path inside evidence/"),
    ("record_not_a_record_path", MMA, '"records/mma-2026-11-22.json"', '"../spec/isa.yaml"', "../spec",
     "records/0: '../spec/isa.yaml' does not match"),
    ("notes_missing", MMA, '"notes": "campaigns/notes/2026-11-22-mma.md"', '"notes": "campaigns/notes/nothing.md"',
     '"notes"', "notes 'campaigns/notes/nothing.md' does not exist"),
    ("notes_absolute", MMA, '"notes": "campaigns/notes/2026-11-22-mma.md"', '"notes": "/etc/hostname"', '"notes"',
     "is not a relative path"),
    ("campaign_named_unlike_its_file", MMA, '"campaign": "mma-2026-11-22"', '"campaign": "mma-2026-11-21"',
     '"campaign"', "a campaign's file is named after it"),
    ("hardware_of_another_target", MMA, '"hardware": "H100"', '"hardware": "B200"', '"hardware"',
     "hardware B200 is of architecture sm_100: it cannot have run the campaign's target sm_90a"),
    ("hardware_unknown", MMA, '"hardware": "H100"', '"hardware": "H1000"', '"hardware"', "is no GPU ptxspec knows"),
    ("result_written_twice", MMA, f'"{VID}": [10, 1280, 0],', f'"{VID}": [10, 1280, 0],\n    "{VID}": [10, 1280, 3],',
     (VID, 2), f"key '{VID}' written twice in results"),
    ("count_beyond_64_bits", MMA, f'"{VID}": [10, 1280, 0]', f'"{VID}": [10, 111111111111111111111111111111, 0]',
     VID, "is greater than the maximum of 9223372036854775807"),
    ("top_key_written_twice", MMA, '"date": "2026-11-22",', '"date": "2026-11-22",\n  "date": "2026-11-23",',
     ('"date"', 2), "key 'date' written twice in the document"),
    # The results are the records' summaries and what the records' format proves is what the campaign
    # proves (fuzz seed 31: trees 690, 9655, 10476 changed a count, 10481 deleted a result, 6998 said a
    # numerics campaign proved maps; each validated).
    ("count_unlike_the_records", MMA, f'"{VID}": [10, 1280, 0]', f'"{VID}": [11, 1280, 0]', VID,
     f"result of {VID} is [11, 1280, 0], but the records give [10, 1280, 0]"),
    ("outputs_unlike_the_records", MMA, f'"{VID}": [10, 1280, 0]', f'"{VID}": [10, 1024, 0]', VID,
     f"result of {VID} is [10, 1024, 0], but the records give [10, 1280, 0]"),
    ("result_deleted", MMA, f'    "{VID}": [10, 1280, 0],\n', "", '"results"',
     f"results lack {VID}, which the records ran: [10, 1280, 0]"),
    ("result_of_a_variant_not_run", MMA, f'"{VID}": [10, 1280, 0],',
     f'"{VID}": [10, 1280, 0],\n    "{VID}.x": [1, 0, 0],', f'"{VID}.x"', f"result of {VID}.x [1, 0, 0]: no record of "
     "the campaign ran it"),
    ("numerics_said_to_prove_maps", NUM, '"proves": "numerics"', '"proves": "maps"', '"proves"',
     "the campaign proves 'maps', but its records (records/numerics-2026-11-22.json) are numerics kernel"),
    ("maps_said_to_prove_numerics", MMA, '"proves": "maps"', '"proves": "numerics"', '"proves"',
     "are register-digest case records, which prove 'maps'"),
    ("record_named_twice", SP, '"records/mma-sp-int4-2026-11-22.json"', '"records/mma-sp-2026-11-22.json"',
     ('"records/mma-sp-2026-11-22.json"', 2), "record 'records/mma-sp-2026-11-22.json' named twice"),
]


#: the cases the quick tier validates (a count, a path, a duplicated key: each validation resolves a copy of
#: the checkout); the full tier validates every case
QUICK = {"more_mismatches_than_outputs", "record_missing", "top_key_written_twice"}


@pytest.mark.parametrize("name,rel,old,new,marker,message",
                         [c if c[0] in QUICK else pytest.param(*c, marks=pytest.mark.full) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_an_evidence_file_that_cannot_be_true_is_a_located_error(pristine, tmp_path, name, rel, old, new, marker,
                                                                 message):
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    path = root / "evidence" / rel
    text = path.read_text()
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path.write_text(text)
    code, found = _validate(root)
    marker, nth = marker if isinstance(marker, tuple) else (marker, 1)
    want = [i for i, line in enumerate(text.splitlines(), 1) if marker in line][nth - 1]
    assert code == 1, found
    assert [(f, ln) for f, ln, _ in found] == [(rel, want)], found
    assert message in found[0][2], found


def test_a_record_deleted_after_a_cached_load_is_seen(pristine, tmp_path, monkeypatch):
    """The model cache's key covers the files evidence names: a deleted record is not hidden by it."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    monkeypatch.setenv("PTXSPEC_CACHE_DIR", str(tmp_path / "cache"))
    ptxspec.load(root / "spec")
    (root / "evidence" / "records" / "mma-2026-11-22.json").unlink()
    with pytest.raises(ptxspec.SpecError, match="does not exist"):
        ptxspec.load(root / "spec")


def test_a_campaign_renamed_out_of_reach_leaves_its_record_unnamed(pristine, tmp_path):
    """Fuzz seed 36, tree 5396: ldmatrix's campaign renamed `.JSON` validated, and the 30 variants it
    proved read 'not run: no hardware record' beside their record. Its record now names the problem."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    (root / "evidence" / "ldmatrix-2026-11-23.json").rename(root / "evidence" / "ldmatrix-2026-11-23.JSON")
    code, found = _validate(root)
    assert code == 1 and found == [("ldmatrix-2026-11-23.json", 1, "record records/ldmatrix-2026-11-23.json belongs "
                                    "to no campaign: no evidence/*.json names it (its campaign file renamed or "
                                    "deleted?); remove it with its campaign, or name it")]


def test_a_stray_record_after_a_cached_load_is_seen(pristine, tmp_path, monkeypatch):
    """The model cache's key lists the records there: one added after a load is checked."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    monkeypatch.setenv("PTXSPEC_CACHE_DIR", str(tmp_path / "cache"))
    ptxspec.load(root / "spec")
    shutil.copy(root / "evidence" / "records" / "mma-2026-11-22.json", root / "evidence" / "records" / "stray.json")
    with pytest.raises(ptxspec.SpecError, match="records/stray.json belongs to no campaign"):
        ptxspec.load(root / "spec")


def test_a_record_changed_after_a_cached_load_is_seen(pristine, tmp_path, monkeypatch):
    """The model cache's key digests the records' bytes: a record edited after a load is compared again."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    monkeypatch.setenv("PTXSPEC_CACHE_DIR", str(tmp_path / "cache"))
    ptxspec.load(root / "spec")
    record = root / "evidence" / "records" / "mma-2026-11-22.json"
    doc = json.loads(record.read_text())
    case = next(c for c in doc["cases"] if c["variant"] == VID)
    case["elements"] += 1
    record.write_text(json.dumps(doc))
    with pytest.raises(ptxspec.SpecError, match=re.escape(f"result of {VID} is [10, 1280, 0], but the records give "
                                                          "[10, 1281, 0]")):
        ptxspec.load(root / "spec")


def _with_record(pristine, tmp_path, text: str) -> list[tuple[str, int, str]]:
    """Validate a copy whose mma record is `text`: the one problem, at the evidence file's line naming it."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    (root / "evidence" / "records" / "mma-2026-11-22.json").write_text(text)
    code, found = _validate(root)
    evidence = (root / "evidence" / MMA).read_text()
    assert code == 1 and [(f, ln) for f, ln, _ in found] == [(MMA, _line_of(evidence, '"records/mma-2026-11-22'))], found
    return found


def test_a_record_of_no_format_is_a_located_error(pristine, tmp_path):
    found = _with_record(pristine, tmp_path, '{"campaign": "mma", "kernel": []}')
    assert "record 'records/mma-2026-11-22.json' is of no record format ptxspec reads" in found[0][2]


def test_a_record_lacking_what_its_format_counts_is_a_located_error(pristine, tmp_path):
    doc = json.loads((ROOT / "evidence" / "records" / "mma-2026-11-22.json").read_text())
    del doc["cases"][3]["elements"]
    found = _with_record(pristine, tmp_path, json.dumps(doc))
    assert "is not a whole register-digest case record (no 'elements')" in found[0][2]


def test_a_record_whose_count_is_no_integer_is_a_located_error(pristine, tmp_path):
    doc = json.loads((ROOT / "evidence" / "records" / "mma-2026-11-22.json").read_text())
    doc["cases"][3]["elements"] = 128.0
    found = _with_record(pristine, tmp_path, json.dumps(doc))
    assert "a count is 128.0, not a non-negative integer" in found[0][2]


def test_the_records_of_another_campaign_give_a_bounded_report(pristine, tmp_path):
    """Results of a whole other campaign: a few located lines and a count, not one line per variant."""
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    path = root / "evidence" / MMA
    path.write_text(path.read_text().replace('"records/mma-2026-11-22.json"', '"records/wgmma-2026-11-22.json"'))
    code, found = _validate(root)
    assert code == 1 and len(found) == SHOWN + 1 and {f for f, _, _ in found} == {MMA}, found
    assert sum(bool(re.fullmatch(rf"\d+ more results unlike the records \(the first {SHOWN} are reported\)", m))
               for _, _, m in found) == 1, found


def test_positions_name_every_key_and_item():
    text = '{\n "a": 1,\n "b": [\n  "x",\n  {"c": 2, "c": 3}\n ]\n}'
    pos, dups = json_positions(text)
    assert pos[("a",)] == (2, 2) and pos[("b", 0)] == (4, 3) and pos[("b", 1, "c")] == (5, 4)
    assert dups == [(("b", 1, "c"), 5, 12)]
    assert json.loads(text)["b"][1] == {"c": 3}  # what json keeps: the last, silently


def test_every_gpu_of_the_evidence_is_known():
    for p in (ROOT / "evidence").glob("*.json"):
        assert json.loads(p.read_text())["hardware"] in GPU_ARCH


@pytest.mark.parametrize("special", ["fifo", "device"])
def test_an_evidence_file_that_is_no_regular_file_is_a_located_error(pristine, tmp_path, special):
    """A FIFO made validate wait forever, a link to /dev/zero read until memory ran out (fuzz seed 30,
    trees 3862 and 5658): neither is read now."""
    import os
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    path = root / "evidence" / MMA
    path.unlink()
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    code, found = _validate(root)
    assert code == 1 and [(f, ln) for f, ln, _ in found] == [(MMA, 1)], found
    assert "not a regular file" in found[0][2]
