"""The plan of a group of an instruction file: what every variant of the group shares (its
requirement, template, axes, signature, shapes, types, fragments), and the instruction's
refinements, as the resolver makes them and the expander reads them."""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.core.errors import Pos, PosDict
from ptxspec.core.expr import Formula
from ptxspec.loading.context import Origin
from ptxspec.model import predicates
from ptxspec.model.family import Instruction
from ptxspec.model.sparsity import Sparsity
from ptxspec.model.isa import Requirement, Version

REGS_NAMES = frozenset({"M", "N", "K", "abits", "bbits", "cbits", "dbits"})


@dataclass
class Refinement:
    """A rule of an instruction file (`refinements:`): for the variants `when` matches, a narrower
    requirement, an order of the metadata, no variant at all (`exclude`, with the reason), other
    option values (`options`: these instead of the group's; `without`: the group's but these), or
    the erratum that says ptxas accepts them beyond the manual."""
    when: dict
    ptx: Version | None
    targets: frozenset[str] | None
    origin: Origin
    metadata_order: str = ""
    exclude: bool = False
    options: dict = field(default_factory=dict)  # option axis -> the values the variants accept
    ptxas_only: str = ""
    without: dict = field(default_factory=dict)  # option axis -> values the variants do not accept
    used: bool = False

    def matches(self, fields: dict) -> bool:
        return predicates.matches(self.when, fields)


@dataclass
class FragmentSpec:
    matrix: str
    layout: str | None  # layout name template; None: register count only
    regs: Formula | None  # None: as many as the layout's elements fill
    node: PosDict  # the group's fragments entry (a bare layout name reads as {layout: name})
    containers: bool


@dataclass
class GroupPlan:
    """Everything about a group that is the same for each of its variants."""
    inst: Instruction
    threads: int
    node: PosDict  # the group's YAML mapping
    pos: Pos
    requirement: Requirement
    template: str
    axes: list[list[tuple[str, str]]]
    signature: list
    shapes: list[tuple]
    combos: list[tuple[str, str, str, str]]
    sparsity: Sparsity | None
    fragments: dict[str, FragmentSpec]
    sources: dict[str, tuple[Origin, ...]] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)  # option axis -> values
    fragments_taken: set[str] = field(default_factory=set)  # the matrices some variant's operands take

