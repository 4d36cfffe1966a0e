"""ptxas as the judge of spelling and guard findings: both claims assembled, the verdict recorded.

A guard finding says the peer allows (forbids) a target or PTX version where the spec says the
variant is invalid (valid). Its statement, as the peer spells it, is assembled at the witness point
of each disputed target and at a point the spec calls valid (the control: the statement as
written must assemble somewhere, or the verdict would be about our operands, not the guard).
A spelling finding's statement is assembled, with registers of the widths the peer's constraints
declare, on the targets the peer claims it for. Statements are batched per (target, version):
one ptxas run judges every statement of a module (`ptxspec.ptxas.judge`).
"""
from __future__ import annotations

import re
from collections import defaultdict

from ptxspec.model import ptx_text as asm
from ptxspec.oracle import ptxas
from ptxspec.model.isa import Version
from ptxspec.audit.findings import Binding, Finding, Report

_PREFIX = {"b32": "r", "f32": "f", "b64": "rd", "b16": "h", "f64": "fd", "": "r"}
_WIDTH_TYPE = {16: "b16", 32: "b32", 64: "b64", 0: "b32"}


def operands_of(statement: str) -> list[str]:
    """A statement's operands, split at the commas outside braces."""
    body = statement.rstrip(";").split(None, 1)[1] if " " in statement.strip() else ""
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def peer_statement(b: Binding, legal: list[str] | None = None) -> str:
    """The binding's statement with fresh registers of the types its constraints declare; an
    immediate takes the value of the same position in `legal` (a spec variant's operands of the
    same opcode) when that is a constant, else 1."""
    counts: dict[str, int] = defaultdict(int)
    legal = legal if legal is not None and len(legal) == len(b.operands) else []

    def reg(kind: str, bits: int) -> str:
        p = _PREFIX.get(kind or _WIDTH_TYPE.get(bits, "b32"), "r")
        counts[p] += 1
        return f"%{p}{counts[p]}"

    parts = []
    for i, o in enumerate(b.operands):
        if o.what == "addr":
            parts.append(f"[{reg('b64', 64)}]")
        elif o.what == "vec":
            parts.append("{" + ", ".join(reg(o.reg, o.bits) for _ in range(o.count)) + "}")
        elif o.what == "pred":
            counts["p"] += 1
            parts.append(f"%p{counts['p']}")
        elif o.what == "imm":
            parts.append(legal[i] if legal and re.fullmatch(r"-?\w+", legal[i]) and not legal[i].startswith("%")
                         else "1")
        else:
            parts.append(reg(o.reg, o.bits))
    return f"{b.opcode} {', '.join(parts)};" if parts else f"{b.opcode};"


def variant_statement(spec, b: Binding) -> str:
    """The matched variant's statement (the spec's operands and legal immediates), spelled as the peer spells it."""
    text = asm.statement(spec.variant(b.variants[0]))
    return b.opcode + text[len(spec.variant(b.variants[0]).ptx):]


class Court:
    """Statements to judge, gathered per (target, version) and judged in one ptxas run each."""

    def __init__(self, spec):
        self.spec = spec
        self.known = {n for n, t in spec.targets.items() if t.ptxas}
        self.versions = set(spec.ptxas_versions)
        self.asked: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.verdicts: dict[tuple[str, str, str], bool] = {}

    def can(self, target: str, version: Version) -> bool:
        return target in self.known and version in self.versions and version >= self.spec.targets[target].ptx

    def ask(self, statement: str, target: str, version: Version) -> None:
        key = (target, str(version))
        if statement not in self.asked[key]:
            self.asked[key].append(statement)

    def judge(self) -> None:
        for (target, version), lines in sorted(self.asked.items()):
            ok, _ = ptxas.judge(lines, version, target)
            for line, verdict in zip(lines, ok):
                self.verdicts[(line, target, version)] = verdict

    def accepts(self, statement: str, target: str, version: Version) -> bool:
        return self.verdicts[(statement, target, str(version))]


def _control(spec, f: Finding, target: str):
    """A point where the spec says the binding's variant is valid: on `target` if it has one."""
    v = spec.variant(f.variants[0])
    t = spec.targets[target]
    first = v.requirement.first_ptx(t)
    if first is not None:
        return target, max(first, t.ptx)
    for name in v.targets:
        if spec.targets[name].ptxas:
            return name, max(v.requirement.first_ptx(spec.targets[name]) or v.requirement.min_ptx,
                             spec.targets[name].ptx)
    return None


def adjudicate(spec, report: Report) -> None:
    """Assemble every spelling and guard finding's claims with ptxas; set status, judge, verdict."""
    court = Court(spec)
    by_site = {(b.file, b.line, b.opcode): b for b in report.bindings}
    plans = []
    for f in report.findings:
        b = by_site.get((f.file, f.line, f.subject))
        if f.kind not in ("spelling", "guard") or b is None:
            continue
        if f.kind == "spelling":
            stmt = peer_statement(b, operands_of(asm.statement(spec.variant(f.variants[0]))) if f.variants else None)
            targets = sorted(b.guard.targets) if b.guard.targets is not None else sorted(court.known)
            latest = max(court.versions)
            points = [(t, latest) for t in spec.sort_targets(targets) if court.can(t, latest)]
            for t, ver in points:
                court.ask(stmt, t, ver)
            plans.append((f, stmt, points, [], b.guard))
        else:
            stmt = variant_statement(spec, b)
            points, controls = [], []
            for target, ver in f.evidence["witness"].items():
                ver = Version.parse(ver)
                if court.can(target, ver):
                    points.append((target, ver))
                    court.ask(stmt, target, ver)
                    c = _control(spec, f, target)
                    if c and court.can(*c):
                        controls.append(c)
                        court.ask(stmt, *c)
            plans.append((f, stmt, points, controls, b.guard))
    court.judge()
    report.ptxas = ptxas.version()
    for f, stmt, points, controls, guard in plans:
        _decide(court, f, stmt, points, controls, guard)


def _decide(court: Court, f: Finding, stmt: str, points, controls, guard) -> None:
    f.evidence["statement"] = stmt
    if not points:
        f.verdict = "no disputed point is one ptxas knows (target or PTX version)"
        return
    said = {f"{t} PTX {v}": court.accepts(stmt, t, v) for t, v in points}
    f.evidence["ptxas"] = {k: ("accepts" if ok else "rejects") for k, ok in said.items()}
    f.judge = f"ptxas {ptxas.version()}"
    if f.kind == "spelling":
        accepted = [k for k, ok in said.items() if ok]
        if not accepted and guard.upper_only:
            f.status, f.judge = "unadjudicated", ""
            f.verdict = (f"ptxas rejects it at {', '.join(said)}, but its guard ({guard.source}) holds a "
                         "predicate the audit cannot evaluate: it may name a target this ptxas does not know")
            return
        f.status = "refuted" if accepted else "confirmed"
        f.verdict = (f"ptxas accepts it at {', '.join(accepted)}: the spec lacks it" if accepted else
                     f"ptxas rejects it at {', '.join(said)}")
        return
    bad_controls = [f"{t} PTX {v}" for t, v in controls if not court.accepts(stmt, t, v)]
    if bad_controls:
        f.status, f.judge = "unadjudicated", ""
        f.verdict = f"ptxas rejects the statement at the spec's own valid point too ({', '.join(bad_controls)})"
        return
    allows = f.evidence["direction"] == "allows"
    peer_right = [k for k, ok in said.items() if ok == allows]
    spec_right = [k for k, ok in said.items() if ok != allows]
    verb = "rejects" if allows else "accepts"
    if peer_right:
        f.status = "refuted"
        f.verdict = (f"ptxas {'accepts' if allows else 'rejects'} it at {', '.join(peer_right)}: the spec is wrong "
                     "there" + (f" (and {verb} it at {', '.join(spec_right)}, as the spec says)" if spec_right else ""))
    else:
        f.status = "confirmed"
        f.verdict = f"ptxas {verb} it at {', '.join(spec_right)}" + (
            f" and accepts it at the spec's point{'s' * (len(controls) != 1)} "
            f"{', '.join(sorted({f'{t} PTX {v}' for t, v in controls}))}" if controls else "")
