"""`ptxspec audit PEER [PATH]`: another tool's PTX bindings checked against the spec (ptxspec.audit).

Exit codes: 0 nothing wrong, 1 a finding that is confirmed (by ptxas or the spec's maps and
fields) or that nobody adjudicated (without --ptxas), 2 bad usage or a peer that cannot be read
(a one-line error naming the file).
"""
from __future__ import annotations

import sys

from ptxspec.audit.findings import AuditError
from ptxspec.audit.peers import EXIT_CANNOT, EXIT_FAIL, EXIT_OK, audit
from ptxspec.audit.report import RENDERERS
from ptxspec.cli.usage import load_spec
from ptxspec.oracle.ptxas import PtxasNotFound


def cmd_audit(args) -> int:
    try:
        spec = load_spec(args)
        report = audit(spec, args.peer, args.path, args.ptxas, args.family or ())
    except (AuditError, PtxasNotFound) as exc:
        print(f"ptxspec audit: error: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    try:
        sys.stdout.write(RENDERERS[args.format](report))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return EXIT_FAIL if report.failed else EXIT_OK
