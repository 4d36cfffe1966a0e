"""What an audit reads and what it reports: a peer's bindings, their guards, the findings.

A *binding* is one PTX statement a peer can emit (an inline-asm string, an LLVM instruction record), with
the file and line it is written at and the *guard* the peer puts around it: the targets and the
first PTX ISA version it claims the statement for. A *finding* is one thing the peer and the spec
disagree on, of four kinds:

- `spelling`: the peer writes an opcode (or an operand list) that no spec variant has;
- `guard`: the peer allows a target or PTX version where the spec says the variant is invalid
  (severity error), or forbids one where it is valid (severity warning);
- `layout`: a fragment or copy layout, or a descriptor bit field, that differs from the spec's (or
  does not evaluate at all);
- coverage is not a finding: it is counted per family and instruction in the report.

Each finding has a status: `confirmed` (ptxas, or the spec's maps and fields, side with the spec),
`refuted` (ptxas sides with the peer: the spec is wrong there) or `unadjudicated` (kinds spelling
and guard without --ptxas, or a point ptxas 13.5 does not know).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.model.isa import Version

KINDS = ("spelling", "guard", "layout")
SEVERITIES = ("error", "warning")
STATUSES = ("confirmed", "refuted", "unadjudicated")


class AuditError(Exception):
    """A peer that cannot be audited: a file that does not parse, a missing checkout. One line,
    naming the file (and line where there is one)."""


@dataclass(frozen=True)
class Guard:
    """Where a peer claims a statement: the targets (None: no claim) and the first PTX ISA
    version (None: no claim). `source` says where the claim comes from."""
    targets: frozenset[str] | None
    min_ptx: Version | None
    source: str  # e.g. "#if __cccl_ptx_isa >= 860 + documented SM_100a, SM_110a"
    only_ptx: Version | None = None  # a peer that states no PTX version is compared at the one its toolkit emits
    compare_from: Version | None = None  # earlier versions are not compared (the peer spells it otherwise there)
    upper_only: bool = False  # the guard holds a predicate the audit cannot evaluate: only what it forbids counts

    def allows(self, target: str, ptx: Version) -> bool:
        return (self.targets is None or target in self.targets) and (self.min_ptx is None or ptx >= self.min_ptx)


@dataclass(frozen=True)
class Operand:
    """One operand of a statement as written: `addr` ([...]), `vec` ({...} of `count` registers of
    `bits` each), `reg` (one register of `bits`), `pred`, `imm`."""
    what: str
    bits: int = 0
    count: int = 1
    reg: str = ""  # the PTX register type the peer's constraint declares (b32, f32, b64, b16, f64)

    def key(self) -> tuple:
        """What must agree between a peer's operand and a spec variant's: registers by width."""
        if self.what == "vec":
            return ("vec", self.count, "imm" if self.reg == "imm" else self.bits)
        if self.what == "reg":
            return ("reg", self.bits)
        return (self.what,)


@dataclass
class Binding:
    """One statement of a peer: the opcode as written, its operands, where, and its guard."""
    peer: str
    file: str  # relative to the peer's root
    line: int
    opcode: str
    operands: tuple[Operand, ...]
    guard: Guard
    name: str = ""  # the peer's name for it (function, struct, record)
    variants: tuple[str, ...] = ()  # spec variant ids it matched (filled by the matcher)
    text: str = ""  # the statement as written (its immediates: tcgen05.ld's split offset)


@dataclass
class Finding:
    kind: str  # spelling | guard | layout
    severity: str  # error | warning
    file: str
    line: int
    message: str
    subject: str  # what the peer calls it (opcode, struct, field)
    variants: tuple[str, ...] = ()
    evidence: dict = field(default_factory=dict)
    status: str = "unadjudicated"
    judge: str = ""  # ptxas 13.5.37 | spec maps | spec fields
    verdict: str = ""  # what the judge said, one line

    def as_data(self) -> dict:
        return {"kind": self.kind, "severity": self.severity, "status": self.status, "file": self.file,
                "line": self.line, "subject": self.subject, "message": self.message,
                "variants": list(self.variants), "evidence": self.evidence, "judge": self.judge,
                "verdict": self.verdict}


@dataclass
class Coverage:
    """Spec variants a peer wraps, per family and instruction: (wrapped, total)."""
    families: dict[str, tuple[int, int]]
    instructions: dict[str, dict[str, tuple[int, int]]]  # family -> instruction -> (wrapped, total)
    missing: dict[str, list[str]]  # instruction -> spec variant ids the peer lacks (of families it touches)


@dataclass
class Report:
    peer: str
    root: str  # the peer's files, as given or found
    version: str  # the peer's version where known (wheel version), else ""
    bindings: list[Binding]
    findings: list[Finding]
    coverage: Coverage
    layouts_checked: int = 0  # layouts and descriptor fields compared with the spec
    unchecked: list[str] = field(default_factory=list)  # what the audit could not check, one line each
    ptxas: str = ""  # the ptxas version that adjudicated, "" without --ptxas
    families: tuple[str, ...] = ()  # --family filter, () for all

    @property
    def matched(self) -> list[Binding]:
        return [b for b in self.bindings if b.variants]

    def counts(self) -> dict:
        by_kind = {k: sum(1 for f in self.findings if f.kind == k) for k in KINDS}
        by_status = {s: sum(1 for f in self.findings if f.status == s) for s in STATUSES}
        return {"spellings": len(self.bindings), "matched": len(self.matched),
                "distinct_variants": len({v for b in self.bindings for v in b.variants}),
                "layouts_checked": self.layouts_checked, "findings": len(self.findings),
                "by_kind": by_kind, "by_status": by_status,
                "errors": sum(1 for f in self.findings if f.severity == "error"),
                "warnings": sum(1 for f in self.findings if f.severity == "warning")}

    @property
    def failed(self) -> bool:
        """Exit 1: a finding that ptxas or the spec's maps confirm, or one nobody adjudicated (the
        spec's word stands, itself established with ptxas); refuted findings fault the spec, not the peer."""
        return any(f.status != "refuted" for f in self.findings)
