"""Rewrite the `results` of every evidence file from its raw records.

    python3 evidence/summarize.py           # rewrite evidence/*.json
    python3 evidence/summarize.py --check   # exit 1 when a file is out of date (the tests run this)

An evidence file states a campaign (where and how it ran, what it proves); its `results` say,
per variant, how many cases ran and how many outputs were compared. They are derived here from
the records (never written by hand), and the tests replay the records against the model, so a
result stands only while the model still reproduces what the hardware returned. Each record
format has one reader below.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The synchronisations every kernel of a wgmma campaign issues (campaigns/gen_wgmma.py): each
#: case runs them once.
WGMMA_SYNC = ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned")


def _add(results, variant, cases, outputs, mismatches=0):
    r = results.setdefault(variant, [0, 0, 0])
    r[0] += cases
    r[1] += outputs
    r[2] += mismatches


def read_cases(doc, results):
    """Map campaigns (wgmma, mma, mma.sp): one case per kernel launch, `elements` registers read back."""
    for c in doc["cases"]:
        _add(results, c["variant"], 1, c["elements"])
    if any(c["variant"].startswith("wgmma.") for c in doc["cases"]):
        for v in WGMMA_SYNC:
            _add(results, v, len(doc["cases"]), 0)


def read_wmma(doc, results):
    """The wmma campaign: one entry per load, store, mma or chain case, by opcode (no element counts)."""
    for e in doc["entries"]:
        _add(results, e["opcode"], 1, 0)


def read_kernels(doc, results):
    """The numerics campaigns: one entry per kernel, with cases, outputs and mismatches."""
    for k in doc["kernels"]:
        _add(results, k["variant"], k["cases"], k["outputs"], k["mismatches"])


def read_bindings(lines, results):
    """The bindings campaign (JSON lines): one kernel per binding; `undefined` ones compared nothing."""
    for line in lines[1:]:
        k = json.loads(line)
        if not k["undefined"]:
            _add(results, k["variant"], 1, 0)


def read_movements(doc, results):
    """The ldmatrix campaign: per movement form (the variant's opcode, then `@a<address bits>`)
    its cases, each comparing every 16-bit element moved (and, for stmatrix, the whole window); per
    end-to-end sample its cases, counted for the ldmatrix/stmatrix forms and the mma it chains."""
    for name, e in doc["movement"].items():
        opcode = name.split("@")[0]
        regs = 1 if opcode.startswith("movmatrix") else {"x1": 1, "x2": 2, "x4": 4}[opcode.split(".")[4]]
        for c in e["cases"]:
            _add(results, opcode, 1, 64 * regs, 0 if c["manual"] else 1)
    for e in doc["e2e"].values():
        for c in e["cases"]:
            good = all(x for k, x in c.items() if isinstance(x, bool))
            for opcode in e["chain"]:
                _add(results, opcode, 1, 0, 0 if good else 1)
def read_gemm(doc, results):
    """The example GEMM (examples/gemm): one variant; its small-integer cases, whose every sum is
    exact, count as placement checks (each C element compared with cuBLAS's f32-output product)."""
    for c in doc["cases"]:
        if c["data"] == "integers":
            _add(results, doc["variant"], 1, c["m"] * c["n"], c["mismatches"])


def results_of(records: list[str]) -> dict[str, list[int]]:
    results: dict[str, list[int]] = {}
    for rel in records:
        text = (HERE / rel).read_text(encoding="utf-8")
        if rel.startswith("records/bindings-"):
            read_bindings(text.splitlines(), results)
            continue
        doc = json.loads(text)
        if "entries" in doc:
            read_wmma(doc, results)
        elif "movement" in doc:
            read_movements(doc, results)
        elif rel.startswith("records/gemm-"):
            read_gemm(doc, results)
        elif "kernels" in doc:
            read_kernels(doc, results)
        else:
            read_cases(doc, results)
    return dict(sorted(results.items()))


def render(doc: dict) -> str:
    """One result per line: small diffs when a campaign adds variants."""
    head = {k: v for k, v in doc.items() if k != "results"}
    text = json.dumps(head, indent=2)[:-2]
    lines = [f"    {json.dumps(v)}: {json.dumps(r)}" for v, r in doc["results"].items()]
    return text + ',\n  "results": {\n' + ",\n".join(lines) + "\n  }\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = ap.parse_args(argv)
    stale = []
    for path in sorted(HERE.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["results"] = results_of(doc["records"])
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
