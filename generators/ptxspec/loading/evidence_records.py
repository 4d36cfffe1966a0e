"""What a campaign's raw records (evidence/records/) say: the format of each record, the results
it gives (per variant: cases run, outputs compared, outputs that differ) and what a campaign made
of such records can prove.

An evidence file's `results` are the sum of its records' results and nothing else, and its
`proves` is what its records' format proves (a map campaign reads registers back from known
inputs; a numerics campaign compares D elements bit for bit): the loader checks both
(evidence_checks), and evidence/summarize.py writes `results` with these readers. A record's
format is told by its content, one reader per format; a record that is of none, or whose entries
lack what its format counts, is a RecordError (the loader reports it at the record's path).

Only bytes come in (the loader reads each file bounded, as it reads evidence files); nothing here
touches the file system.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Format", "FORMATS", "RecordError", "read_record", "results_of"]

#: The synchronisations every kernel of a wgmma campaign issues (campaigns/gen_wgmma.py): each
#: case runs them once.
WGMMA_SYNC = ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned")
#: registers moved per thread by an ldmatrix/stmatrix form (its .num qualifier)
_REGS = {"x1": 1, "x2": 2, "x4": 4}

Results = dict[str, list[int]]


class RecordError(ValueError):
    """A record of no format ptxspec reads, or one whose entries lack what its format counts."""


def _count(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise RecordError(f"a count is {json.dumps(x)[:40]}, not a non-negative integer")
    return x


def _name(x: Any) -> str:
    if not isinstance(x, str) or not x:
        raise RecordError(f"a variant is {json.dumps(x)[:60]}, not a name")
    return x


def _add(results: Results, variant: Any, cases: Any, outputs: Any, mismatches: Any = 0) -> None:
    r = results.setdefault(_name(variant), [0, 0, 0])
    r[0] += _count(cases)
    r[1] += _count(outputs)
    r[2] += _count(mismatches)


def _read_cases(doc, results: Results) -> None:
    """Map campaigns (wgmma, mma, mma.sp): one case per kernel launch, `elements` registers read back."""
    for c in doc["cases"]:
        _add(results, c["variant"], 1, c["elements"])
    if any(c["variant"].startswith("wgmma.") for c in doc["cases"]):
        for v in WGMMA_SYNC:
            _add(results, v, len(doc["cases"]), 0)


def _read_wmma(doc, results: Results) -> None:
    """The wmma campaign: one entry per load, store, mma or chain case, by opcode (no element counts)."""
    for e in doc["entries"]:
        _add(results, e["opcode"], 1, 0)


def _read_kernels(doc, results: Results) -> None:
    """The numerics campaigns: one entry per kernel, with cases, outputs and mismatches."""
    for k in doc["kernels"]:
        _add(results, k["variant"], k["cases"], k["outputs"], k["mismatches"])


def _read_bindings(lines, results: Results) -> None:
    """The bindings campaign (JSON lines after a header): one kernel per binding; `undefined` ones
    compared nothing."""
    for k in lines[1:]:
        if not isinstance(k["undefined"], bool):
            raise RecordError(f"kernel {k.get('kernel')}: `undefined` is {k['undefined']!r}, not true or false")
        if not k["undefined"]:
            _add(results, k["variant"], 1, 0)


def _read_movements(doc, results: Results) -> None:
    """The ldmatrix campaigns: per movement form (the variant's opcode, then `@a<address bits>`)
    its cases, each comparing every 16-bit element moved (and, for stmatrix, the whole window); per
    end-to-end sample its cases, counted for the ldmatrix/stmatrix forms and the mma it chains."""
    for name, e in doc["movement"].items():
        opcode = name.split("@")[0]
        regs = 1 if opcode.startswith("movmatrix") else _REGS[opcode.split(".")[4]]
        for c in e["cases"]:
            _add(results, opcode, 1, 64 * regs, 0 if c["manual"] else 1)
    for e in doc["e2e"].values():
        for c in e["cases"]:
            good = all(x for x in c.values() if isinstance(x, bool))
            for opcode in e["chain"]:
                _add(results, opcode, 1, 0, 0 if good else 1)


def _read_gemm(doc, results: Results) -> None:
    """The example GEMM (examples/gemm): one variant; its small-integer cases, whose every sum is
    exact, count as placement checks (each C element compared with cuBLAS's f32-output product)."""
    for c in doc["cases"]:
        if c["data"] == "integers":
            _add(results, doc["variant"], 1, _count(c["m"]) * _count(c["n"]), c["mismatches"])


@dataclass(frozen=True)
class Format:
    """A kind of record: what it is, what a campaign of it proves, how it is told and read."""
    name: str
    proves: str  # maps | numerics (schema/evidence.schema.json)
    what: str  # in a sentence: "<what> records"
    matches: Callable[[Any], bool]
    read: Callable[[Any, Results], None]


#: Every record format, in the order they are told apart (the first whose `matches` holds reads it).
FORMATS: tuple[Format, ...] = (
    Format("bindings", "maps", "generated-binding kernel (D digests read back)",
           lambda doc: isinstance(doc, list), _read_bindings),
    Format("wmma", "maps", "wmma load/store/mma digest", lambda doc: "entries" in doc, _read_wmma),
    Format("movement", "maps", "ldmatrix/stmatrix/movmatrix movement digest",
           lambda doc: "movement" in doc and "e2e" in doc, _read_movements),
    Format("numerics", "numerics", "numerics kernel (D elements compared bit for bit)",
           lambda doc: "kernels" in doc, _read_kernels),
    Format("gemm", "maps", "example GEMM placement", lambda doc: isinstance(doc.get("variant"), str) and "cases" in doc,
           _read_gemm),
    Format("cases", "maps", "register-digest case", lambda doc: "cases" in doc, _read_cases),
)


def _parse(raw: bytes) -> Any:
    """A record's JSON: one document, or JSON lines (a header, then one object per line) as a list."""
    text = raw.decode("utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not all(isinstance(x, dict) for x in lines) or lines[0].get("campaign") != "bindings":
        raise RecordError("JSON lines, but not a bindings campaign's (a header, then one kernel per line)")
    return lines


def read_record(raw: bytes) -> tuple[Format, Results]:
    """The format of a record (its bytes) and the results it gives; RecordError when it is of no
    format, or not a whole record of its format."""
    try:
        doc = _parse(raw)
    except RecordError:
        raise
    except UnicodeDecodeError as exc:
        raise RecordError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    except (ValueError, RecursionError) as exc:  # a number of 5,000 digits; arrays nested 100,000 deep
        raise RecordError(f"not JSON this reader takes: {str(exc)[:120]}") from None
    fmt = next((f for f in FORMATS if isinstance(doc, (dict, list)) and f.matches(doc)), None)
    if fmt is None:
        raise RecordError(f"of no record format ptxspec reads ({', '.join(f.name for f in FORMATS)}; "
                          "ptxspec.loading.evidence_records.FORMATS)")
    results: Results = {}
    try:
        fmt.read(doc, results)
    except RecordError as exc:
        raise RecordError(f"not a whole {fmt.what} record: {exc}") from None
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
        what = f"no {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {str(exc)[:120]}"
        raise RecordError(f"not a whole {fmt.what} record ({what})") from None
    return fmt, results


def results_of(records: list[bytes]) -> Results:
    """The results of a campaign's records (each read by its format), summed, by variant id."""
    total: Results = {}
    for raw in records:
        for vid, (cases, outputs, mismatches) in read_record(raw)[1].items():
            _add(total, vid, cases, outputs, mismatches)
    return dict(sorted(total.items()))
