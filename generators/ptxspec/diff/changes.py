"""What a comparison produces: changes, the report holding them, and groups of alike changes."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxspec.diff.sides import Side

SEVERITIES = ("breaking", "warning", "info")
RANK = {s: i for i, s in enumerate(SEVERITIES)}


def fingerprint(rule: str, subject: str) -> str:
    """What an ignore file lists to approve a change: stable across runs, trees and line moves."""
    return hashlib.sha256(f"{rule}\n{subject}".encode()).hexdigest()


@dataclass
class Change:
    rule: str
    severity: str
    subject: str
    message: str
    side: str  # "head" or "base": where `file`/`line` point
    file: str
    line: int
    col: int
    summary: str  # the part of the message shared by every member of a group
    instruction: str = ""
    pattern: str = ""  # the variant's opcode with N written as N ("") for non-variant changes
    n: int | None = None
    form: str = ""
    before: Any = None
    after: Any = None
    details: dict = field(default_factory=dict)
    ignored: bool = False

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.rule, self.subject)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def as_data(self) -> dict:
        d = {"rule": self.rule, "severity": self.severity, "subject": self.subject,
             "fingerprint": self.fingerprint, "message": self.message, "summary": self.summary,
             "side": self.side, "file": self.file, "line": self.line, "col": self.col,
             "ignored": self.ignored, "before": self.before, "after": self.after}
        if self.instruction:
            d["instruction"] = self.instruction
        if self.pattern:
            d["group"] = self.pattern
        if self.n is not None:
            d["n"] = self.n
        if self.form:
            d["form"] = self.form
        if self.details:
            d["details"] = self.details
        return d


def sort_key(c: Change) -> tuple:
    return (RANK[c.severity], c.rule, c.instruction, c.pattern, c.file, c.line,
            c.n if c.n is not None else -1, c.form, c.subject)


@dataclass
class Report:
    base: Side
    head: Side
    changes: list[Change]

    def active(self) -> list[Change]:
        return [c for c in self.changes if not c.ignored]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for c in self.active():
            out[c.severity] += 1
        out["ignored"] = sum(c.ignored for c in self.changes)
        out["total"] = len(self.changes)
        return out

    def failing(self, fail_on: str | None) -> list[Change]:
        if not fail_on:
            return []
        return [c for c in self.active() if RANK[c.severity] <= RANK[fail_on]]


def shape_pattern(v) -> str:
    """The variant's opcode with its N written as N: 'wgmma...m64nNk16.f32.bf16.bf16'."""
    if v.m is not None and v.n is not None and v.k is not None:
        token = f"m{v.m}n{v.n}k{v.k}"
        if token in v.ptx:
            return v.ptx.replace(token, f"m{v.m}nNk{v.k}", 1)
    return v.ptx


# ---------------------------------------------------------------------------------------------
# Groups: the changes of one rule, cause and variant pattern (every N, every form) together


@dataclass
class Group:
    key: tuple
    changes: list[Change]

    @property
    def first(self) -> Change:
        return self.changes[0]

    def text(self) -> str:
        """What the group says: its members and what happened to them."""
        c = self.first
        if not c.instruction:
            return c.message
        return f"{self.describe()}: {c.summary}"

    def describe(self) -> str:
        """'32 N values of m64nNk16 .f32.bf16.bf16 (forms reg, desc)' or the single subject."""
        c = self.first
        if not c.instruction:
            return c.subject
        forms = sorted({x.form for x in self.changes if x.form}, key=lambda f: (f != "reg", f))
        ns = sorted({x.n for x in self.changes if x.n is not None})
        shape, rest = split_pattern(c.pattern, c.instruction)
        form_text = f" (form{'s' * (len(forms) > 1)} {', '.join(forms)})" if forms else ""
        if len(self.changes) == 1:
            return f"{c.subject.split(' ', 1)[0]}" if c.rule != "variant.renamed" else c.subject.split(" -> ")[-1]
        if "nN" in shape and ns:
            if len(ns) == 1:
                label = f"{shape.replace('nN', f'n{ns[0]}')} {rest}".strip()
                return f"`{c.instruction}` {label}{form_text}"
            nlist = ", ".join(map(str, ns)) if len(ns) <= 6 else f"{ns[0]}..{ns[-1]}"
            return f"`{c.instruction}` {len(ns)} N values of {shape} {rest}".rstrip() + f" (N = {nlist})" + form_text
        return f"`{c.instruction}` {shape} {rest}".rstrip() + form_text


def split_pattern(pattern: str, instruction: str) -> tuple[str, str]:
    """'wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16' -> ('m64nNk16', '.f32.bf16.bf16').

    Qualifiers between the instruction name and the shape, other than .sync and .aligned, stay in
    front of the shape ('.kind::f8f6f4 m16n8k32'), so that groups never print alike."""
    m = re.search(r"m\d+n(?:N|\d+)k\d+", pattern)
    if not m:
        return pattern, ""
    prefix = pattern[:m.start()].rstrip(".")
    quals = []
    if prefix.startswith(instruction):
        quals = [q for q in prefix[len(instruction):].split(".") if q and q not in ("sync", "aligned")]
    lead = "".join(f".{q}" for q in quals)
    return (f"{lead} {m.group(0)}" if lead else m.group(0)), pattern[m.end():]


def group_changes(changes: list[Change]) -> list[Group]:
    groups: dict[tuple, Group] = {}
    for c in changes:
        if c.instruction:
            key = (c.ignored, RANK[c.severity], c.rule, c.instruction, c.pattern, c.summary, c.file, c.line, c.side)
        else:
            key = (c.ignored, RANK[c.severity], c.rule, "", c.subject, c.summary, c.file, c.line, c.side)
        groups.setdefault(key, Group(key, [])).changes.append(c)
    return sorted(groups.values(), key=lambda g: (g.key[:4] + (g.first.pattern, g.first.file, g.first.line,
                                                                g.first.subject)))
