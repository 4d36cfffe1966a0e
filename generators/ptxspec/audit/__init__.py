"""`ptxspec audit`: other tools' PTX bindings checked against the spec.

CCCL's `cuda::ptx` headers, CuTe's MMA and copy atoms and traits (from the `nvidia-cutlass`
wheel or a checkout) and LLVM's NVPTX intrinsics are read as their files stand; every PTX
statement they can emit is matched to a spec variant, its guard (targets, first PTX version)
compared with the variant's requirement, CuTe's thread-value layouts evaluated and compared with
the spec's fragment maps element by element, and its descriptor bit fields with the spec's. With
--ptxas every disputed spelling and guard is assembled with ptxas, and the report says who is right.

The package, in the order an audit runs:
- `cccl`, `cute`, `llvm`: one reader per peer (with `cpp`, the few preprocessor rules CuTe's
  target macros need; `tablegen`, the part of TableGen LLVM's NVPTX files are written in, and
  `tgeval`, its evaluation into records as `llvm-tblgen` builds them);
- `peer_asm`: statements and operands as peers write them; `match`: which variant a statement is;
- `peer_guards`: a peer's guard against a requirement; `layouts`, `descfields`: CuTe's layouts and
  descriptor fields against the spec's maps and fields;
- `compare`: findings and coverage; `adjudicate`: ptxas as the judge; `report`: the formats;
  `peers`: the audit of one peer (`ptxspec.cli.audit_command` is the command); `findings`: what
  an audit finds.
"""
from __future__ import annotations

from ptxspec.audit.peers import EXIT_CANNOT, EXIT_FAIL, EXIT_OK, PEERS, audit
from ptxspec.audit.findings import AuditError, Binding, Coverage, Finding, Guard, Report
from ptxspec.audit.report import FORMAT_VERSION, RENDERERS

__all__ = ["EXIT_CANNOT", "EXIT_FAIL", "EXIT_OK", "FORMAT_VERSION", "PEERS", "RENDERERS", "AuditError", "Binding",
           "Coverage", "Finding", "Guard", "Report", "audit"]
