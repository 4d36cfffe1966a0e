"""Reading the evidence files (evidence/*.json, schema/evidence.schema.json) into the model's
EvidenceIndex, and checking them against the variants they name."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import jsonschema

from ptxspec.core.errors import Pos, Problems
from ptxspec.core.paths import EVIDENCE_FILES, schema_dir
from ptxspec.loading.evidence_checks import EVIDENCE_BYTES, check_evidence, locate
from ptxspec.core.files import read_regular
from ptxspec.model.evidence import Evidence, EvidenceIndex, Result


@lru_cache(maxsize=1)
def _validator():
    schema = json.loads((schema_dir() / "evidence.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _distinct_results(doc):
    """The document with each distinct `results` value once, under its first key. The schema checks
    every value of `results` alike and its keys not at all, so the errors are those of the whole
    document, found in a fraction of the time (thousands of results share a few values)."""
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, dict):
        return doc
    first: dict[str, tuple] = {}
    for key, value in results.items():
        first.setdefault(json.dumps(value, sort_keys=True), (key, value))
    return {**doc, "results": dict(first.values())}


def read_evidence(directory: str | os.PathLike | None, problems: Problems) -> EvidenceIndex:
    """Every `*.json` directly under `directory` (none when it is None or missing)."""
    campaigns: list[Evidence] = []
    if directory is None or not Path(directory).is_dir():
        return EvidenceIndex(campaigns)
    seen: dict[str, str] = {}
    shared: dict[tuple, Result] = {}  # equal results, one object (memory, the model cache)
    before = len(problems.items)
    for path in sorted(Path(directory).glob(EVIDENCE_FILES)):
        where = Pos(str(path))
        try:
            text = read_regular(str(path), EVIDENCE_BYTES).decode("utf-8")  # never a FIFO or a device
            doc = json.loads(text)
        except (OSError, UnicodeDecodeError) as exc:
            problems.add(where, f"cannot read evidence: {exc}")
            continue
        except json.JSONDecodeError as exc:
            problems.add(Pos(str(path), exc.lineno, exc.colno), f"not JSON: {exc.msg}")
            continue
        except (ValueError, RecursionError) as exc:  # a number of 5,000 digits; arrays nested 100,000 deep
            problems.add(where, f"not JSON this reader takes: {str(exc)[:200]}")
            continue
        errors = sorted(_validator().iter_errors(_distinct_results(doc)), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            problems.add(locate(path, text, e.absolute_path), f"{'/'.join(map(str, e.absolute_path)) or 'document'}: "
                         f"{e.message}")
            continue
        if not check_evidence(path, text, doc, problems):  # what a schema cannot say (evidence_checks)
            continue
        if doc["campaign"] in seen:
            problems.add(where, f"campaign {doc['campaign']!r} also in {seen[doc['campaign']]}")
            continue
        seen[doc["campaign"]] = path.name
        campaigns.append(Evidence(
            campaign=doc["campaign"], date=doc["date"], hardware=doc["hardware"], target=doc["target"],
            device=doc["device"], toolchain=doc["toolchain"], proves=doc["proves"], method=doc["method"],
            notes=doc.get("notes", ""), records=tuple(doc["records"]),
            results={vid: shared.setdefault(tuple(r), Result(*r)) for vid, r in doc["results"].items()},
            path=str(path)))
    if len(problems.items) == before:  # (a campaign that did not load would leave its records unnamed)
        _unnamed_records(Path(directory), campaigns, problems)
    return EvidenceIndex(campaigns)


def _unnamed_records(directory: Path, campaigns: list[Evidence], problems: Problems) -> None:
    """Every file under records/ is some campaign's record: one no campaign names had its campaign
    file renamed or deleted, and what that campaign proved would go silently (fuzz seed 36, tree
    5396: ldmatrix's campaign renamed `.JSON`, and 30 variants read 'not run: no hardware record'
    beside their record). An installed package carries no records/: nothing to check there."""
    records = directory / "records"
    if not records.is_dir():
        return
    named = {rel for c in campaigns for rel in c.records}
    for path in sorted(records.iterdir()):
        rel = f"records/{path.name}"
        if rel not in named:
            problems.add(Pos(str(path)), f"record {rel} belongs to no campaign: no evidence/*.json names it (its "
                                         "campaign file renamed or deleted?); remove it with its campaign, or name it")


def check_against(index: EvidenceIndex, spec, problems: Problems) -> None:
    """Evidence must name variants of the spec, run on one of their targets."""
    for e in index.campaigns:
        unknown = sorted(vid for vid in e.results if vid not in spec._by_id)
        if unknown:
            problems.add(Pos(e.path), f"campaign {e.campaign}: {len(unknown)} result(s) name no variant of the "
                         f"spec, e.g. {unknown[0]!r}")
        off = sorted(vid for vid in e.results if vid in spec._by_id
                     and e.target not in spec._by_id[vid].requirement.targets)
        if off:
            problems.add(Pos(e.path), f"campaign {e.campaign} ran on {e.target}, which {off[0]} does not support")
