"""The arithmetic rules of spec/numerics.yaml as data: which model computes the variants a rule
matches, with which parameters, on what basis (ptxspec.semantics.numerics evaluates them)."""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.core.errors import Pos


@dataclass(frozen=True)
class NumericsRule:
    """One rule of spec/numerics.yaml: the arithmetic of the variants `when` matches."""
    when: dict
    model: str
    params: dict
    source: str
    pos: Pos
    basis: str = "measured"  # measured (our campaigns) | published (the manual and others' measurements)
    status: str = ""  # what numerics_status says of the variants no campaign ran: their provenance, briefly
