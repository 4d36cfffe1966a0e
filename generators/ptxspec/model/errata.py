"""Errata (spec/errata/): where the manual is wrong, or ptxas goes beyond it, with the evidence."""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.core.errors import Pos


@dataclass
class Erratum:
    id: str
    family: str
    title: str
    manual: str
    manual_says: str
    truth: str
    evidence: dict
    pos: Pos
