"""Reading the ptxas recordings (evidence/ptxas/*.json, schema/ptxas-evidence.schema.json) into the
model's evidence: per recording, the ptxas release and day, and per variant how many of its
statements ptxas judged and accepted.

A recording is what ptxas said of the statements one check of the test suite asks about (written by
`python tests/record_ptxas.py`); the tests replay it against the spec (quick tier) and run ptxas over
it again (full tier). Here it is read, checked against its schema, and joined to the variants by id
(`versions`, `cases`) or by opcode (`search`). A recording that names something the spec lacks is
not an error of the spec: the replay reports it, naming the recording. The range notations are
decoded here, for the loader and the tests alike.
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path

import jsonschema

from ptxspec.core.errors import Pos, Problems
from ptxspec.core.paths import PTXAS_EVIDENCE_FILES, schema_dir
from ptxspec.model.evidence import PtxasRecording

SCHEMA = "ptxas-evidence.schema.json"


class RecordingError(ValueError):
    """A recording that cannot be read or breaks its schema; the message names the file and where."""

    def __init__(self, path: str | os.PathLike, message: str, line: int | None = None, col: int | None = None):
        self.pos = Pos(str(path), line or 1, col or 1)
        self.message = message
        super().__init__(f"{path}:{self.pos.line}:{self.pos.col}: {message}")


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads((schema_dir() / SCHEMA).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    return jsonschema.Draft202012Validator(_schema())


#: the recording's tables of thousands of entries (one per variant, subject or candidate)
TABLES = ("variants", "subjects", "found", "patterns", "probes")


def _simple(schema: dict):
    """A check of a value against `schema` where the schema uses only type (string, integer, array),
    pattern, minimum, minItems, prefixItems and items: false, else None; what it accepts is what the
    schema accepts (jsonschema is the judge wherever it refuses: it names the place and the rule)."""
    if not isinstance(schema, dict) or set(schema) - {"type", "pattern", "minimum", "minItems", "prefixItems", "items",
                                                      "description"}:
        return None
    kind, pattern = schema.get("type"), schema.get("pattern")
    if kind == "string":
        if set(schema) - {"type", "pattern", "description"}:
            return None
        match = re.compile(pattern).search if pattern is not None else None
        return lambda x: type(x) is str and (match is None or match(x) is not None)
    if kind == "integer":
        if set(schema) - {"type", "minimum", "description"}:
            return None
        low = schema.get("minimum")
        return lambda x: type(x) is int and (low is None or x >= low)
    if kind == "array" and schema.get("items") is False:
        parts = [_simple(p) for p in schema.get("prefixItems", [])]
        if any(p is None for p in parts):
            return None
        least = schema.get("minItems", 0)
        return lambda x: (type(x) is list and least <= len(x) <= len(parts)
                          and all(p(v) for p, v in zip(parts, x)))
    if kind == "array" and isinstance(schema.get("items"), dict) and set(schema) <= {"type", "items", "description"}:
        item = _simple(schema["items"])
        return None if item is None else (lambda x: type(x) is list and all(item(v) for v in x))
    return None


@lru_cache(maxsize=1)
def _table_checks() -> dict:
    """Table -> the check of each of its values (from the schema's additionalProperties), for the
    tables whose entries the schema describes simply enough."""
    props = _schema()["properties"]
    out = {}
    for name in TABLES:
        spec = props.get(name, {})
        if set(spec) <= {"type", "description", "additionalProperties"} and spec.get("type") == "object":
            check = _simple(spec.get("additionalProperties"))
            if check is not None:
                out[name] = check
    return out


def _errors(doc) -> list:
    """The schema's errors in `doc`. The large tables are checked entry by entry against their
    entries' schema at once (a recording has thousands); where any entry fails, or the document is
    not an object, the whole document goes through jsonschema, which names the first error."""
    checks = _table_checks()
    if isinstance(doc, dict) and all(isinstance(doc.get(t, {}), dict) and all(map(checks[t], doc.get(t, {}).values()))
                                     for t in checks):
        doc = {k: ({} if k in checks else v) for k, v in doc.items()}  # the tables' entries are checked
    return sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))


def read_recording(path: str | os.PathLike) -> dict:
    """The recording in `path`, checked against its schema (RecordingError otherwise)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(path, f"cannot read the recording: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RecordingError(path, f"not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    errors = _errors(doc)
    if errors:
        e = errors[0]
        raise RecordingError(path, f"{'/'.join(map(str, e.absolute_path)) or 'document'}: {e.message}")
    if Path(path).stem != doc["check"]:
        raise RecordingError(path, f"records check {doc['check']!r}; the file should be named {doc['check']}.json")
    return doc


def indices(ranges: str) -> list[int]:
    """`0-3,7` -> [0, 1, 2, 3, 7]."""
    out: list[int] = []
    for part in filter(None, ranges.split(",")):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def index_ranges(accepted: list[int]) -> str:
    """[0, 1, 2, 3, 7] -> `0-3,7` (indices in increasing order)."""
    runs: list[list[int]] = []
    for i in accepted:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def accepted_probes(text: str, probes: dict[str, list[str]]) -> dict[str, set[str]]:
    """A versions recording's `target:ranges` string -> {target: the probe versions that accepted}.
    `A-B` is every probe from A to B, `A+` every probe from A on, `A` the probe A alone."""
    out: dict[str, set[str]] = {}
    for item in text.split():
        target, _, ranges = item.partition(":")
        known = probes.get(target, [])
        got = out.setdefault(target, set())
        for part in ranges.split(","):
            if part.endswith("+"):
                got.update(p for p in known if _key(p) >= _key(part[:-1]))
            else:
                lo, _, hi = part.partition("-")
                got.update(p for p in known if _key(lo) <= _key(p) <= _key(hi or lo))
    return out


def probe_ranges(accepted: dict[str, set[str]], probes: dict[str, list[str]]) -> str:
    """The inverse of `accepted_probes`: the shortest ranges over each target's probes."""
    items = []
    for target in probes:
        got = accepted.get(target, set())
        if not got:
            continue
        order = sorted(probes[target], key=_key)
        runs: list[list[str]] = []
        for i, p in enumerate(order):
            if p in got:
                if runs and order.index(runs[-1][-1]) == i - 1:
                    runs[-1].append(p)
                else:
                    runs.append([p])
        parts = [f"{r[0]}+" if r[-1] == order[-1] and len(r) > 1 else r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}"
                 for r in runs]
        items.append(f"{target}:{','.join(parts)}")
    return " ".join(items)


def variant_counts(doc: dict, ids: dict[str, str], by_ptx: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """Variant id -> (statements judged, accepted) of one recording, for the variants of `ids` (every
    id of the spec) it names; `by_ptx`: opcode -> the ids of its variants (for `search`)."""
    out: dict[str, tuple[int, int]] = {}
    if doc["method"] == "versions":
        probes = doc["probes"]
        total = sum(len(p) for p in probes.values())
        accepted = {k: sum(len(s) for s in accepted_probes(text, probes).values()) for k, text in doc["patterns"].items()}
        for vid, (_, pattern) in doc["variants"].items():
            if vid in ids:
                out[ids[vid]] = (total, accepted.get(pattern, 0))
    elif doc["method"] == "cases":
        for subject, (n, _, ranges) in doc["subjects"].items():
            if subject in ids:
                out[ids[subject]] = (n, len(indices(ranges)))
    else:
        for key in doc["found"]:
            for vid in ([ids[key]] if key in ids else by_ptx.get(key, [])):
                n, a = out.get(vid, (0, 0))
                out[vid] = (n + 1, a + 1)
    return out


def read_ptxas_evidence(directory: str | os.PathLike | None, variant_ids: list[str], ptx_of: dict[str, str],
                        problems: Problems) -> list[PtxasRecording]:
    """Every recording of the evidence directory `directory` (evidence/ptxas/*.json; none when it is
    missing), joined to the variants `variant_ids` (`ptx_of`: id -> opcode)."""
    if directory is None or not Path(directory).is_dir():
        return []
    ids = {vid: vid for vid in variant_ids}  # the model's own id strings: a cached model stores each once
    by_ptx: dict[str, list[str]] = {}
    for vid in variant_ids:
        by_ptx.setdefault(ptx_of[vid], []).append(vid)
    shared: dict[tuple[int, int], tuple[int, int]] = {}
    out = []
    for path in sorted(Path(directory).glob(PTXAS_EVIDENCE_FILES)):
        try:
            doc = read_recording(path)
        except RecordingError as exc:
            problems.add(exc.pos, exc.message)
            continue
        counts = {vid: shared.setdefault(c, c) for vid, c in variant_counts(doc, ids, by_ptx).items()}
        out.append(PtxasRecording(check=doc["check"], method=doc["method"], about=doc["about"], ptxas=doc["ptxas"],
                                  date=doc["date"], command=doc["command"], statements=doc["statements"],
                                  accepted=doc["accepted"], variants=counts, path=str(path)))
    return out
