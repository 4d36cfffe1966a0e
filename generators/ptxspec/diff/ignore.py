"""Ignore files: fingerprints of approved changes."""
from __future__ import annotations

import re
from pathlib import Path

from ptxspec.diff.changes import Report
from ptxspec.diff.plain import short
from ptxspec.diff.sides import CompareError

_FP_RE = re.compile(r"^[0-9a-f]{12,64}$")


def read_ignore(path: str) -> list[tuple[str, int]]:
    """(fingerprint prefix, line) per entry. `#` starts a comment; text after the fingerprint is free."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompareError(f"cannot read ignore file {path}: "
                           f"{exc.strerror if isinstance(exc, OSError) else exc}") from None
    entries, bad = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        token = body.split()[0].lower()
        token = token.removeprefix("sha256:")
        if not _FP_RE.match(token):
            bad.append(f"{path}:{lineno}:1: error: expected a change fingerprint (12 to 64 hex digits), "
                       f"got {short(body.split()[0], 40)!r}")
            continue
        entries.append((token, lineno))
    if bad:
        raise CompareError(f"ignore file {path} is malformed:", bad)
    return entries


def apply_ignore(report: Report, entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Mark matching changes ignored; returns the entries that matched nothing."""
    used = set()
    for c in report.changes:
        fp = c.fingerprint
        for prefix, lineno in entries:
            if fp.startswith(prefix):
                c.ignored = True
                used.add(lineno)
    return [(p, n) for p, n in entries if n not in used]
