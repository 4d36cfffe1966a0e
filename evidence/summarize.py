"""Rewrite the `results` of every evidence file from its raw records.

    python3 evidence/summarize.py           # rewrite evidence/*.json
    python3 evidence/summarize.py --check   # exit 1 when a file is out of date (the tests run this)

An evidence file states a campaign (where and how it ran, what it proves); its `results` say,
per variant, how many cases ran and how many outputs were compared. They are derived here from
the records (never written by hand), and the tests replay the records against the model, so a
result stands only while the model still reproduces what the hardware returned. Each record
format has one reader, in ptxspec.loading.evidence_records: `ptxspec validate` checks every
evidence file's results against its records with the same readers.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "generators"))  # this checkout's ptxspec, when it is not installed

from ptxspec.loading.evidence_records import results_of  # noqa: E402


def render(doc: dict) -> str:
    """One result per line: small diffs when a campaign adds variants."""
    head = {k: v for k, v in doc.items() if k != "results"}
    text = json.dumps(head, indent=2)[:-2]
    lines = [f"    {json.dumps(v)}: {json.dumps(r)}" for v, r in doc["results"].items()]
    return text + ',\n  "results": {\n' + ",\n".join(lines) + "\n  }\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = ap.parse_args(argv)
    stale = []
    for path in sorted(HERE.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["results"] = results_of([(HERE / rel).read_bytes() for rel in doc["records"]])
        text = render(doc)
        if path.read_text(encoding="utf-8") != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if stale:
        print(("out of date: " if args.check else "rewrote: ") + ", ".join(stale))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
