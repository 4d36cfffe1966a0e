"""One audit: a peer's bindings matched to the spec, their guards compared, coverage counted.

Readers (`cccl`, `cute`, `llvm`) turn a peer's files into `Binding`s and, where the peer has them,
layout and descriptor findings; this module does the rest the same way for every peer.
"""
from __future__ import annotations

from collections import defaultdict

from ptxspec.audit.findings import Binding, Coverage, Finding, Report
from ptxspec.audit.peer_guards import guard_findings, requirement_of
from ptxspec.audit.match import Matcher
from ptxspec.audit.peer_asm import shape_text


class Scope:
    """Which opcodes are the spec's instructions: those that begin with an instruction's name
    (`fence.proxy.async.global` is; `fence.proxy.alias` is not), a `::` suffix of a name part
    allowed where a spec opcode has it (`tcgen05.wait::ld`, `mma.sp::ordered_metadata`, but not
    `fence.proxy.async::generic`, another instruction)."""

    def __init__(self, spec):
        self.names = sorted({tuple(i.split(".")) for i in spec.instructions}, key=len)
        self.tokens = frozenset(t for v in spec.variants for t in v.ptx.split("."))
        self.family = {}
        self._seen: dict[str, tuple[str, ...] | None] = {}
        for v in spec.variants:
            self.family.setdefault(tuple(v.instruction.split(".")), v.family)

    def instruction(self, opcode: str) -> tuple[str, ...] | None:
        if opcode not in self._seen:
            self._seen[opcode] = self._instruction(opcode)
        return self._seen[opcode]

    def _instruction(self, opcode: str) -> tuple[str, ...] | None:
        tokens = opcode.split(".")
        best = None
        for name in self.names:
            if len(name) <= len(tokens) and all(t == n or (t.split("::")[0] == n and t in self.tokens)
                                                for t, n in zip(tokens, name)):
                best = name
        return best

    def __call__(self, opcode: str) -> bool:
        return self.instruction(opcode) is not None

    def family_of(self, opcode: str) -> str:
        name = self.instruction(opcode)
        return self.family.get(name, "") if name else ""


def run(spec, peer: str, root: str, version: str, bindings: list[Binding], extra: list[Finding],
        layouts_checked: int, unchecked: list[str], families: tuple[str, ...] = (), matcher=None) -> Report:
    matcher = matcher or Matcher(spec)
    scope = Scope(spec)
    if families:
        bindings = [b for b in bindings if scope.family_of(b.opcode) in families]
        extra = [f for f in extra if not f.variants or any(spec.variant(v).family in families for v in f.variants)]
    findings: list[Finding] = []
    cache: dict = {}
    for b in bindings:
        m = matcher.match(b)
        b.variants = m.variants
        if not m.variants:
            findings.append(Finding(
                "spelling", "error", b.file, b.line,
                f"`{b.opcode}` with operands {shape_text(tuple(o.key() for o in b.operands))} is no spec "
                f"variant: {m.problem}", b.opcode, m.candidates,
                {"opcode": b.opcode, "operands": shape_text(tuple(o.key() for o in b.operands)),
                 "reason": m.problem, "guard": b.guard.source}))
            continue
        reqs = [requirement_of(spec.variant(v), b.opcode) for v in m.variants]
        findings += guard_findings(spec, b, reqs, cache)
    findings += extra
    findings.sort(key=lambda f: (f.file, f.line, f.kind, f.message))
    touched = sorted({scope.family_of(b.opcode) for b in bindings} - {""})
    return Report(peer, root, version, bindings, findings, coverage(spec, bindings, families or tuple(touched)),
                  layouts_checked, unchecked, families=families)


def coverage(spec, bindings: list[Binding], families) -> Coverage:
    wrapped = {v for b in bindings for v in b.variants}
    fam: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    inst: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    missing: dict[str, list[str]] = defaultdict(list)
    for v in spec.variants:
        if v.family not in families:
            continue
        hit = v.id in wrapped
        for row in (fam[v.family], inst[v.family][v.instruction]):
            row[0] += hit
            row[1] += 1
        if not hit:
            missing[v.instruction].append(v.id)
    return Coverage({k: (a, t) for k, (a, t) in sorted(fam.items())},
                    {f: {k: (a, t) for k, (a, t) in sorted(rows.items())} for f, rows in sorted(inst.items())},
                    dict(sorted(missing.items())))
