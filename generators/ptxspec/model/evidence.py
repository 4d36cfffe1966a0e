"""Evidence: the hardware campaigns (evidence/, read by ptxspec.loading.evidence_files) and the ptxas
recordings (evidence/ptxas/, read by ptxspec.loading.ptxas_evidence), joined with the variants. What
the model says a variant's hardware proved (`Variant.hardware`, the numerics status) comes only from
here: a variant no evidence file names is "not run"; which ptxas release proved a variant's statements
is what the recordings that name it say."""
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


@dataclass(frozen=True)
class PtxasRecording:
    """One recording of ptxas verdicts (evidence/ptxas/<check>.json): which release judged how many
    statements of one check of the tests, and how many of them were about each variant."""
    check: str
    method: str  # versions | cases | search
    about: str
    ptxas: str  # the release, e.g. 13.5.37
    date: str
    command: str  # what records it again
    statements: int
    accepted: int
    variants: dict[str, tuple[int, int]] = field(repr=False)  # variant id -> (statements, accepted)
    path: str = ""


class EvidenceIndex:
    """Every campaign, and per variant id the campaigns that ran it; every ptxas recording (`ptxas`,
    set by the loader) and per variant id the recordings that name it."""

    def __init__(self, campaigns: list[Evidence], ptxas: list[PtxasRecording] | None = None):
        self.campaigns = sorted(campaigns, key=lambda e: (e.date, e.campaign))
        self._by_variant: dict[str, list[Evidence]] = {}
        for e in self.campaigns:
            for vid in e.results:
                self._by_variant.setdefault(vid, []).append(e)
        self.ptxas: list[PtxasRecording] = sorted(ptxas or [], key=lambda r: r.check)

    def ptxas_of(self, variant_id: str) -> list[PtxasRecording]:
        """The ptxas recordings that judged statements of the variant."""
        return [r for r in self.ptxas if variant_id in r.variants]

    def of(self, variant_id: str, proves: str | None = None) -> list[Evidence]:
        return [e for e in self._by_variant.get(variant_id, ()) if proves is None or e.proves == proves]

    def __len__(self) -> int:
        return len(self.campaigns)
