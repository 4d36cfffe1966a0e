"""Record what ptxas says of every check of the test suite (tests/ptxas_checks*.py) under
evidence/ptxas/<check>.json, with the ptxas release and today's date.

    python tests/record_ptxas.py                  # every check (several minutes on 2 cores)
    python tests/record_ptxas.py --check NAME     # one check (repeatable)
    python tests/record_ptxas.py --list           # the checks, and what each records

Run it after a change to the spec that the quick tier's replay (tests/test_ptxas_replay.py) reports
as unsupported by the recordings, or when the full tier (tests/test_ptxas_live.py) finds that a new
ptxas says otherwise. A check whose statements ptxas rejects for another reason than the one the
check expects is not recorded (the error says which). Review the diff of evidence/ptxas/ before
committing it: a changed verdict is a changed fact about ptxas or the spec.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the checks live beside this file

import ptxas_checks  # noqa: E402
import ptxas_facts  # noqa: E402
import ptxspec  # noqa: E402
from ptxspec.oracle import ptxas  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="append", default=[], help="record only this check (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the checks and exit")
    parser.add_argument("--out", type=Path, default=ptxas_facts.RECORDINGS, help="where the recordings go")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as nothing:  # the spec alone: the recordings being rewritten may be stale
        spec = ptxspec.load(evidence_dir=nothing)
    checks = {c.name: c for c in ptxas_checks.checks(spec)}
    if args.list:
        for c in checks.values():
            print(f"{c.name:28s} {c.method:9s} {c.about}")
        return 0
    unknown = sorted(set(args.check) - set(checks))
    if unknown:
        parser.error(f"no check {', '.join(unknown)}; `--list` names them")
    if not ptxas.available():
        print("ptxas of the nvidia-cuda-nvcc wheel not found: pip install -e '.[test]'", file=sys.stderr)
        return 2
    chosen = [checks[n] for n in args.check] or list(checks.values())
    failed = []
    for check in chosen:
        t = time.perf_counter()
        try:
            doc = ptxas_facts.record(spec, check)
        except AssertionError as exc:  # statements rejected for another reason than expected: not recorded
            print(f"{check.name:28s} NOT RECORDED: {exc}", file=sys.stderr, flush=True)
            failed.append(check.name)
            continue
        path = ptxas_facts.write(doc, args.out)
        print(f"{check.name:28s} {doc['statements']:8d} statements, {doc['accepted']:7d} accepted "
              f"({time.perf_counter() - t:5.1f} s) -> {path}", flush=True)
    if failed:
        print(f"not recorded: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
