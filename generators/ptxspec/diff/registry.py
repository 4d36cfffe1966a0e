"""The rule registry: every rule's id, severity and meaning, and the user's severity overrides.

A rule is one function, decorated with `@rule(id, severity, description)`, that takes the
comparison (`engine.Diff`) and yields `Finding`s. A finding carries no severity: the registry
(and an overrides file) alone decides it, so a rule id always means one severity in a run.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Pos
from .changes import SEVERITIES
from .sides import CompareError


@dataclass
class Finding:
    """One change a rule found; the engine adds the rule id, the severity and the file position."""

    subject: str  # what changed, stable (the fingerprint hashes it with the rule id)
    message: str
    pos: Pos | None = None  # the cause in the YAML; None: the spec directory
    side: str = "head"  # "head", or "base" for what HEAD no longer has
    summary: str = ""  # the part of the message shared by a group of variants (default: message)
    variant: Any = None  # the variant it concerns, if any (for grouping by instruction and N)
    before: Any = None
    after: Any = None
    details: dict | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # the default; an overrides file may change it for a run
    description: str
    check: Callable[[Any], Iterable[Finding]]
    area: str  # the rules module that defines it

    def as_data(self, severity: str | None = None) -> dict:
        return {"id": self.id, "severity": severity or self.severity, "description": self.description}


RULES: dict[str, Rule] = {}


def rule(id: str, severity: str, description: str):
    """Register the decorated function as the check of rule `id`."""
    if severity not in SEVERITIES:
        raise ValueError(f"rule {id}: severity {severity!r} is not one of {', '.join(SEVERITIES)}")

    def register(fn):
        if id in RULES:
            raise ValueError(f"rule {id} registered twice ({RULES[id].check.__qualname__}, {fn.__qualname__})")
        RULES[id] = Rule(id, severity, description, fn, fn.__module__.rsplit(".", 1)[-1])
        return fn
    return register


def rules() -> list[Rule]:
    """Every registered rule, by id."""
    return [RULES[k] for k in sorted(RULES)]


def severities(overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Rule id -> the severity a run uses: the registry's, unless overridden."""
    out = {r.id: r.severity for r in RULES.values()}
    out.update(overrides or {})
    return out


def read_severity_overrides(path: str) -> dict[str, str]:
    """`RULE SEVERITY` per line (`#` starts a comment); RULE may be a glob such as `isa.*`.

    Later lines win over earlier ones. Unknown rules, globs that match nothing and unknown
    severities are errors (`path:line:col: error: ...`), so a typo never silently keeps a default."""
    from ..source import did_you_mean
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompareError(f"cannot read severity overrides {path}: "
                           f"{exc.strerror if isinstance(exc, OSError) else exc}") from None
    out: dict[str, str] = {}
    bad = []
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        words = body.split()
        if not words:
            continue
        col = len(body) - len(body.lstrip()) + 1
        if len(words) != 2:
            bad.append(f"{path}:{lineno}:{col}: error: expected `RULE SEVERITY`, got {body.strip()!r}")
            continue
        pattern, sev = words
        if sev not in SEVERITIES:
            bad.append(f"{path}:{lineno}:{body.index(sev, col - 1 + len(pattern)) + 1}: error: severity {sev!r} "
                       f"is not one of {', '.join(SEVERITIES)}{did_you_mean(sev, SEVERITIES)}")
            continue
        hits = [r for r in RULES if fnmatch.fnmatchcase(r, pattern)]
        if not hits:
            bad.append(f"{path}:{lineno}:{col}: error: no rule {pattern!r}{did_you_mean(pattern, RULES)} "
                       "(ptxspec diff --list-rules lists them)")
            continue
        out.update(dict.fromkeys(hits, sev))
    if bad:
        raise CompareError(f"severity overrides {path} are malformed:", bad)
    return out
