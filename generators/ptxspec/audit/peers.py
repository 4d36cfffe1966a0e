"""`ptxspec audit PEER [PATH]`: which peers there are, and the audit of one.

Exit codes: 0 nothing wrong, 1 a finding that is confirmed (by ptxas or the spec's maps and
fields) or that nobody adjudicated (without --ptxas), 2 bad usage or a peer that cannot be read
(a one-line error naming the file).
"""
from __future__ import annotations

from ptxspec.audit import cccl, cute, llvm
from ptxspec.audit.adjudicate import adjudicate
from ptxspec.audit.findings import AuditError, Report
from ptxspec.audit.compare import Scope, run
from ptxspec.audit.match import Matcher

PEERS = ("cccl", "cutlass", "llvm")
EXIT_OK, EXIT_FAIL, EXIT_CANNOT = 0, 1, 2


def audit(spec, peer: str, path: str | None = None, ptxas: bool = False, families=()) -> Report:
    """Audit one peer's bindings against `spec`; raises AuditError for a peer that cannot be read."""
    families = tuple(families or ())
    unknown = [f for f in families if f not in spec.families]
    if unknown:
        raise AuditError(f"unknown family {', '.join(unknown)} (the spec has {', '.join(sorted(spec.families))})")
    roots, matcher = Scope(spec), Matcher(spec)  # one matcher: its variants' operand forms computed once
    extra, checked = [], 0
    if peer == "cccl":
        root, version, bindings, unchecked = cccl.read(spec, path, roots)
    elif peer == "cutlass":
        root, version, bindings, extra, checked, unchecked = cute.read(spec, path, roots, matcher)
    elif peer == "llvm":
        if not path:
            raise AuditError("ptxspec audit llvm needs PATH: an llvm-project checkout (or a directory holding "
                             "IntrinsicsNVVM.td and NVPTXIntrinsics.td)")
        root, version, bindings, unchecked = llvm.read(spec, path, roots)
    else:
        raise AuditError(f"unknown peer {peer!r} (one of {', '.join(PEERS)})")
    report = run(spec, peer, root, version, bindings, extra, checked, unchecked, families, matcher)
    if ptxas:
        adjudicate(spec, report)
    return report
