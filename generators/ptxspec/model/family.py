"""Families and their instructions: threads, qualifier axes, operand forms and matrix sizes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxspec.core.errors import Pos
from ptxspec.model.isa import Requirement


@dataclass
class Instruction:
    name: str
    family: str
    description: str
    manual: str
    opcode: str
    rules: list[str]
    requirement: Requirement
    pos: Pos
    path: str
    semantics: str  # what executing it means (ptxspec.semantics.meanings)
    introduced: Requirement | None = None  # first PTX version and targets (its file's `introduced`)


@dataclass(frozen=True)
class Axis:
    """A qualifier axis of a family: the opcode varies along it (.row/.col, .kind::..., .space)."""
    name: str
    description: str
    values: tuple[str, ...]  # bare, as opcode templates write them; '' is the qualifier left out
    option: bool = False  # an option axis: listed per variant with its requirements, not a variant per value


@dataclass(frozen=True)
class MatrixDims:
    """The size of a matrix of a family, as formulas of M, N, K, batch and sparse."""
    name: str
    description: str
    rows: Any  # Formula
    cols: Any
    type_field: str = ""  # the variant field with its element type (atype, btype, ctype, dtype)

    def size(self, m: int, n: int, k: int, batch: int = 1, sparse: bool = False) -> tuple[int, int]:
        env = dict(M=m, N=n, K=k, batch=batch, sparse=int(sparse))
        return int(self.rows(**env)), int(self.cols(**env))


@dataclass
class Family:
    name: str
    title: str
    description: str
    manual: str
    threads: int
    n_sets: dict[str, list[int]]
    pos: Pos
    axes: dict[str, Axis] = field(default_factory=dict)  # in the order variants list them
    forms: dict[str, str] = field(default_factory=dict)  # operand form -> what it means
    matrices: dict[str, MatrixDims] = field(default_factory=dict)
