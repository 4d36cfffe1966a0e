"""What an evidence file (evidence/*.json) says, checked against itself, the calendar, its GPU and
the files it names; each problem located at its JSON line.

The schema says the shapes; these say the facts a schema cannot: a result has no more mismatches
than outputs, a date is a day of the calendar, the campaign is named as its file, the hardware is
a GPU of the target's architecture, the records and notes it names exist, and no JSON key is
written twice (json.loads keeps the last silently, so a doubled result hid the first). Where the
records are there, its `results` must be what they say (a count changed or a result deleted by
hand is refused) and its `proves` what their format can prove (ptxspec.loading.evidence_records;
each record read as the evidence files are: a regular file of at most EVIDENCE_BYTES).

Records and notes are looked for where a checkout keeps them (records beside the evidence files,
notes from the repository root); an installed package carries the evidence files only, and where
the folder a path starts with is absent there is nothing to look in.
"""
from __future__ import annotations

import bisect
import datetime
import hashlib
import json
import re
from pathlib import Path, PurePosixPath

from ptxspec.core.errors import Pos, Problems
from ptxspec.loading.evidence_records import RecordError, read_record
from ptxspec.core.files import read_regular

__all__ = ["check_evidence", "json_positions", "locate", "referenced", "GPU_ARCH", "EVIDENCE_BYTES"]

#: The largest evidence or record file read (the largest today are 0.2 MB and 1.8 MB): a file past
#: it is a located error.
EVIDENCE_BYTES = 16 << 20
#: Results unlike the records reported one by one; the rest in one line (a wrong records list
#: would otherwise give a line per variant).
SHOWN = 5

#: The architecture (compute capability x 10) of each GPU an evidence file may name as `hardware`
#: (NVIDIA's CUDA GPU list); a campaign's target must be of it (an H100 runs sm_90 and sm_90a code).
GPU_ARCH: dict[str, int] = {
    "V100": 70, "T4": 75, "A100": 80, "A800": 80, "A30": 80, "A10": 86, "A40": 86, "RTX3090": 86, "L4": 89,
    "L40": 89, "L40S": 89, "RTX4090": 89, "H100": 90, "H200": 90, "H800": 90, "H20": 90, "GH200": 90,
    "B200": 100, "GB200": 100, "B300": 103, "GB300": 103, "RTX5090": 120, "RTXPRO6000": 120, "GB10": 121,
}

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def json_positions(text: str) -> tuple[dict[tuple, tuple[int, int]], list[tuple[tuple, int, int]]]:
    """({JSON path: (line, col)} of every key and array item of a JSON text, [(path, line, col)] of
    each key written a second time in its object). The text is known to parse."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    positions: dict[tuple, tuple[int, int]] = {}
    duplicates: list[tuple[tuple, int, int]] = []
    stack: list[dict] = []  # {"path", "obj", "seen", "key", "want_key", "index"}

    def value_path() -> tuple:
        top = stack[-1]
        return top["path"] + ((top["key"],) if top["obj"] else (top["index"],))

    for m in _TOKEN.finditer(text):
        tok = m.group()
        top = stack[-1] if stack else None
        if tok in "{[":
            path = value_path() if top else ()
            if top is not None and not top["obj"]:
                positions.setdefault(path, where(m.start()))
            stack.append({"path": path, "obj": tok == "{", "seen": set(), "key": None, "want_key": True,
                          "index": 0})
        elif tok in "}]":
            if stack:
                stack.pop()
        elif top is None or tok == ":":
            if top is not None:
                top["want_key"] = False
        elif tok == ",":
            top["want_key"], top["index"] = True, top["index"] + 1
        elif top["obj"] and top["want_key"]:
            key = json.loads(tok)
            at = where(m.start())
            if key in top["seen"]:
                duplicates.append((top["path"] + (key,), *at))
            top["seen"].add(key)
            top["key"] = key
            positions.setdefault(top["path"] + (key,), at)
        elif not top["obj"]:
            positions.setdefault(top["path"] + (top["index"],), where(m.start()))
    return positions, duplicates


def locate(path: Path, text: str, json_path) -> Pos:
    """The position of the key or item at `json_path` (a schema error's absolute_path) in the file."""
    line, col = json_positions(text)[0].get(tuple(json_path), (1, 1))
    return Pos(str(path), line, col)


def _inside(base: Path, rel: str) -> Path | None:
    """base/rel when rel is a plain relative path (no '..', not absolute), else None."""
    p = PurePosixPath(rel)
    if p.is_absolute() or not p.parts or ".." in p.parts or "\\" in rel:
        return None
    return base.joinpath(*p.parts)


def _path_problem(base: Path, rel: str, what: str) -> str | None:
    target = _inside(base, rel)
    if target is None:
        return f"{what} {rel!r} is not a relative path inside {base.name}/"
    if (base / PurePosixPath(rel).parts[0]).is_dir() and not target.is_file():
        return f"{what} {rel!r} does not exist"
    return None


def check_evidence(path: Path, text: str, doc: dict, problems: Problems) -> bool:
    """Add a located problem for every fact of the evidence file that cannot be true; True when there
    is none. `doc` is the parsed text, already valid against schema/evidence.schema.json."""
    before = len(problems.items)
    positions, duplicates = json_positions(text)

    def add(key_path: tuple, message: str) -> None:
        line, col = positions.get(key_path, (1, 1))
        problems.add(Pos(str(path), line, col), message)

    for key_path, line, col in duplicates:
        problems.add(Pos(str(path), line, col), f"key {key_path[-1]!r} written twice in "
                     f"{'/'.join(map(str, key_path[:-1])) or 'the document'} (JSON keeps the last silently)")
    if path.stem != doc["campaign"]:
        add(("campaign",), f"campaign {doc['campaign']!r} is in {path.name}: a campaign's file is named after it "
            f"({doc['campaign']}.json)")
    try:
        datetime.date.fromisoformat(doc["date"])
    except ValueError:
        add(("date",), f"date {doc['date']!r} is no day of the calendar")
    arch = int(re.match(r"sm_(\d+)", doc["target"]).group(1))  # type: ignore[union-attr] - the schema's pattern
    gpu = GPU_ARCH.get(doc["hardware"])
    if gpu is None:
        add(("hardware",), f"hardware {doc['hardware']!r} is no GPU ptxspec knows ({', '.join(sorted(GPU_ARCH))}; "
            "ptxspec.loading.evidence_checks.GPU_ARCH)")
    elif gpu != arch:
        add(("hardware",), f"hardware {doc['hardware']} is of architecture sm_{gpu}: it cannot have run the campaign's "
            f"target {doc['target']}")
    for vid, (cases, outputs, mismatches) in doc["results"].items():
        if mismatches > outputs:
            add(("results", vid), f"result of {vid}: {mismatches} mismatches among {outputs} outputs "
                f"([cases, outputs, mismatches])")
    root = path.parent
    for i, rec in enumerate(doc["records"]):
        why = _path_problem(root, rec, "record")
        if why:
            add(("records", i), why)
    if doc.get("notes"):
        why = _path_problem(root.parent, doc["notes"], "notes")
        if why:
            add(("notes",), why)
    if len(problems.items) == before:
        _check_records(root, doc, add)
    return len(problems.items) == before


def _check_records(root: Path, doc: dict, add) -> None:
    """The campaign's `results` and `proves` against what its records say (nothing to compare where
    the records folder is absent, as in an installed package)."""
    records: list[str] = doc["records"]
    if not (root / PurePosixPath(records[0]).parts[0]).is_dir():
        return
    formats, got = [], {}
    for i, rel in enumerate(records):
        if rel in records[:i]:
            add(("records", i), f"record {rel!r} named twice: its counts would be taken twice")
            return
        try:
            fmt, results = read_record(read_regular(str(_inside(root, rel)), EVIDENCE_BYTES))
        except OSError as exc:
            add(("records", i), f"cannot read record {rel!r}: {exc.strerror or exc}")
            return
        except RecordError as exc:
            add(("records", i), f"record {rel!r} is {exc}")
            return
        formats.append((rel, fmt))
        for vid, counts in results.items():
            total = got.setdefault(vid, [0, 0, 0])
            for k in range(3):
                total[k] += counts[k]
    kinds = sorted({fmt.proves for _, fmt in formats})
    if len(kinds) > 1:
        add(("records",), "records of campaigns that prove different things: "
            + ", ".join(f"{rel} ({fmt.name}: {fmt.proves})" for rel, fmt in formats))
        return
    rel, fmt = formats[0]
    if doc["proves"] != fmt.proves:
        add(("proves",), f"the campaign proves {doc['proves']!r}, but its records ({rel}) are {fmt.what} records, "
            f"which prove {fmt.proves!r}")
        return  # its results, summaries of records of another kind, are beside the point
    _compare_results(doc["results"], got, add)


def _compare_results(written: dict, got: dict, add) -> None:
    """Each result equal to the records' sum for its variant, and one for every variant they ran."""
    wrong = []
    for vid in sorted(set(written) | set(got)):
        have, want = written.get(vid), got.get(vid)
        if have == want:
            continue
        if want is None:
            wrong.append((("results", vid), f"result of {vid} {have}: no record of the campaign ran it"))
        elif have is None:
            wrong.append((("results",), f"results lack {vid}, which the records ran: {want}"))
        else:
            wrong.append((("results", vid), f"result of {vid} is {have}, but the records give {want}"))
    for where, message in wrong[:SHOWN]:
        add(where, message + " ([cases, outputs, mismatches]: python3 evidence/summarize.py writes them)")
    if len(wrong) > SHOWN:
        add(("results",), f"{len(wrong) - SHOWN} more results unlike the records (the first {SHOWN} are reported)")


def _digest(target: Path | None) -> str:
    """A record's SHA-256 (what check_evidence compares results with), or why there is none."""
    if target is None or not target.is_file():
        return "absent"
    try:
        return hashlib.sha256(read_regular(str(target), EVIDENCE_BYTES)).hexdigest()
    except OSError as exc:
        return f"unreadable {exc.errno}"


def referenced(directory: Path | None) -> list[str]:
    """Each record and notes path the evidence files under `directory` name, with a record's digest
    and whether a notes file exists (what check_evidence reads besides the files themselves: the
    model cache's key digests it, so that a changed record is compared again)."""
    out: list[str] = []
    if directory is None or not Path(directory).is_dir():
        return out
    for path in sorted(Path(directory).glob("*.json")):
        try:
            doc = json.loads(read_regular(str(path), EVIDENCE_BYTES).decode("utf-8"))
        except (OSError, ValueError, RecursionError):  # the loader reports it
            continue
        if not isinstance(doc, dict):
            continue
        records = doc.get("records")
        for rel in records if isinstance(records, list) else []:
            if isinstance(rel, str):
                out.append(f"{path.name}:{rel}:{_digest(_inside(path.parent, rel))}")
        if isinstance(doc.get("notes"), str):
            target = _inside(path.parent.parent, doc["notes"])
            out.append(f"{path.name}:{doc['notes']}:{target is not None and target.is_file()}")
    records = Path(directory) / "records"  # which records are there (read_evidence refuses one no campaign names)
    if records.is_dir():
        out += [f"records/:{p.name}" for p in sorted(records.iterdir())]
    return out
