"""Severities: each rule's own, and the user's overrides of them for a run (`--severity-overrides`)."""
from __future__ import annotations

import fnmatch
from pathlib import Path

from ptxspec.core.errors import did_you_mean
from ptxspec.diff.changes import SEVERITIES
from ptxspec.diff.rules import RULES
from ptxspec.diff.sides import CompareError


def severities(overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Rule id -> the severity a run uses: the registry's, unless overridden."""
    out = {r.id: r.severity for r in RULES.values()}
    out.update(overrides or {})
    return out


def read_severity_overrides(path: str) -> dict[str, str]:
    """`RULE SEVERITY` per line (`#` starts a comment); RULE may be a glob such as `isa.*`.

    Later lines win over earlier ones. Unknown rules, globs that match nothing and unknown
    severities are errors (`path:line:col: error: ...`), so a typo never silently keeps a default."""
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
