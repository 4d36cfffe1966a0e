"""`ptxspec explain OPCODE [--form F]`: where each fact of one variant is written (file:line), as
text or JSON (ptxspec.query.explain)."""
from __future__ import annotations

import json
import sys

from ptxspec.api import load
from ptxspec.cli.usage import UsageError
from ptxspec.model.catalog import LookupFailed
from ptxspec.query.explain import explain, explain_text


def cmd_explain(args) -> int:
    spec = load(args.spec)
    try:
        variant = spec.variant(args.opcode, args.form)
    except LookupFailed as exc:
        raise UsageError(exc.args[0]) from None
    facts = explain(variant)
    if args.format == "json":
        json.dump({"id": variant.id, "ptx": variant.ptx, "form": variant.form, "facts": facts}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(explain_text(variant, facts))
    return 0
