"""The rule registry: every rule's id, severity and meaning, and the user's severity overrides.

A rule is one function, decorated with `@rule(id, severity, description)`, that takes the
comparison (`engine.Diff`) and yields `Finding`s. A finding carries no severity: the rule (and an
overrides file, `severity`) alone decides it, so a rule id always means one severity in a run.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ptxspec.core.errors import Pos
from ptxspec.diff.changes import SEVERITIES


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

    def as_data(self, severity: str | None = None) -> dict:
        return {"id": self.id, "severity": severity or self.severity, "description": self.description}


def rule(id: str, severity: str, description: str):
    """Make the decorated function the check of rule `id` (the module's Rule objects are collected by
    `ptxspec.diff.rules`, which lists the rule modules)."""
    if severity not in SEVERITIES:
        raise ValueError(f"rule {id}: severity {severity!r} is not one of {', '.join(SEVERITIES)}")

    def make(fn) -> Rule:
        return Rule(id, severity, description, fn)
    return make
