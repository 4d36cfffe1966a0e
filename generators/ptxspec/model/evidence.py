"""Evidence: the hardware campaigns (evidence/, read by ptxspec.loading.evidence_files), joined with
the variants. What the model says a variant's hardware proved (`Variant.hardware`, the numerics
status) comes only from here: a variant no evidence file names is "not run"."""
from __future__ import annotations

from dataclasses import dataclass, field


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
