"""Evidence: the hardware campaigns under evidence/ (schema/evidence.schema.json), read and joined
with the variants. What the model says a variant's hardware proved (`Variant.hardware`, the
numerics status) comes only from here: a variant no evidence file names is "not run"."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jsonschema

from ptxspec.core.errors import Pos, Problems
from ptxspec.core.paths import schema_dir


@dataclass(frozen=True)
class Result:
    cases: int
    outputs: int
    mismatches: int


@dataclass(frozen=True)
class Evidence:
    """One campaign: where it ran, what it proves, and its result per variant id."""
    campaign: str
    date: str
    hardware: str  # the GPU's short name, e.g. H100
    target: str
    device: str
    toolchain: str
    proves: str  # maps | numerics
    method: str
    notes: str
    records: tuple[str, ...]
    results: dict[str, Result] = field(repr=False)
    path: str = ""


class EvidenceIndex:
    """Every campaign, and per variant id the campaigns that ran it."""

    def __init__(self, campaigns: list[Evidence]):
        self.campaigns = sorted(campaigns, key=lambda e: (e.date, e.campaign))
        self._by_variant: dict[str, list[Evidence]] = {}
        for e in self.campaigns:
            for vid in e.results:
                self._by_variant.setdefault(vid, []).append(e)

    def of(self, variant_id: str, proves: str | None = None) -> list[Evidence]:
        return [e for e in self._by_variant.get(variant_id, ()) if proves is None or e.proves == proves]

    def __len__(self) -> int:
        return len(self.campaigns)


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
    for path in sorted(Path(directory).glob("*.json")):
        where = Pos(str(path))
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            problems.add(where, f"cannot read evidence: {exc}")
            continue
        except json.JSONDecodeError as exc:
            problems.add(Pos(str(path), exc.lineno, exc.colno), f"not JSON: {exc.msg}")
            continue
        errors = sorted(_validator().iter_errors(_distinct_results(doc)), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            problems.add(where, f"{'/'.join(map(str, e.absolute_path)) or 'document'}: {e.message}")
            continue
        if doc["campaign"] in seen:
            problems.add(where, f"campaign {doc['campaign']!r} also in {seen[doc['campaign']]}")
            continue
        seen[doc["campaign"]] = path.name
        campaigns.append(Evidence(
            campaign=doc["campaign"], date=doc["date"], hardware=doc["hardware"], target=doc["target"],
            device=doc["device"], toolchain=doc["toolchain"], proves=doc["proves"], method=doc["method"],
            notes=doc.get("notes", ""), records=tuple(doc["records"]),
            results={vid: Result(*r) for vid, r in doc["results"].items()}, path=str(path)))
    return EvidenceIndex(campaigns)


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


def default_evidence_dir(spec_dir: str | os.PathLike) -> Path:
    """The evidence that goes with a spec tree: the `evidence` directory beside it."""
    return Path(spec_dir).resolve().parent / "evidence"
