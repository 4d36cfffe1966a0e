"""ptxas verdicts as evidence: how the test suite's ptxas facts are generated, recorded, replayed and
checked again.

A *check* (tests/ptxas_checks*.py) is one question the tests ask of ptxas, say "every wgmma.mma_async
variant takes exactly its legal immediate values". Its statements come from the spec (`versions`,
`cases`: each statement with what the spec says of it) or from a generator that never reads the spec
(`search`: a near-miss candidate space, compared with the spec afterwards). `tests/record_ptxas.py`
runs ptxas over a check and writes what it said to evidence/ptxas/<check>.json (schema/
ptxas-evidence.schema.json), with the ptxas release and the day:

- `versions`: per variant the digest of its statement and, per target, the probed PTX versions that
  accepted it (every other probe rejected it);
- `cases`: per subject (a variant, mostly) the number and digest of its statements and the indices
  of the accepted ones (the others were rejected);
- `search`: the generator's parameters, the candidate and statement counts, a digest of the
  candidates and the accepted set (every other candidate was rejected).

`replay` (the quick tier) compares a recording with the spec, without ptxas: a statement the spec
makes a claim about that no recording holds, a recorded verdict the spec contradicts, and a recording
of something the spec does not have are failures that name the subject, the target, the version and
the recording. `live` (the full tier) runs ptxas again and compares its verdicts with the recording.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ptxspec.loading.ptxas_evidence import accepted_probes, index_ranges, indices, probe_ranges, read_recording
from ptxspec.model.ptx_text import kernel
from ptxspec.oracle import ptxas

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "evidence" / "ptxas"
WORKERS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
CHUNK = 20_000  # statements per ptxas module
ALONE = 2000  # verdicts that disagree with the spec, judged again alone (ptxas can blame the wrong line)
SHOW = 12  # problems listed in a message


def command(check: str | None = None) -> str:
    """The command that records `check` (every check: None) again."""
    return "python tests/record_ptxas.py" + (f" --check {check}" if check else "")


@dataclass(frozen=True)
class Case:
    """One statement a check asks ptxas about, and what the spec says of it (`want`: accepted)."""
    subject: str  # a variant id, mostly; what the recording files the verdict under
    label: str  # what the statement tries, for messages ("" for the variant's own statement)
    version: str
    target: str
    line: str
    want: bool
    reason: str = ""  # a rejection must give a message containing this (checked when ptxas runs)
    prelude: tuple[str, ...] = ()  # declarations opening the module


@dataclass
class Found:
    """What a search found: its parameters, how much it tried, and the accepted candidates."""
    params: dict
    candidates: int
    statements: int
    digest: str
    found: dict[str, str]


@dataclass
class Check:
    name: str
    about: str
    origin: str  # the test that asked it before the recordings (tests/test_*.py::test_*)
    method: str  # versions | cases | search
    cases: Callable[..., list[Case]] | None = None  # (spec, facts) -> the statements
    facts: Callable[[], dict] | None = None  # further verdicts the statements depend on (ptxas runs them)
    params: dict = field(default_factory=dict)
    sanity: Callable[[list[Case], list[bool]], list[str]] | None = None  # counts the verdicts must reach
    search: Callable[[], Found] | None = None
    expect: Callable[..., list[str]] | None = None  # search: (spec, recording) -> where the spec differs

    def statements(self, spec, facts: dict | None = None) -> list[Case]:
        assert self.cases is not None, self.name
        return self.cases(spec, facts or {})


def digest(text: str, n: int = 8) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _case_text(c: Case) -> str:
    return f"{c.label}\t{c.version}\t{c.target}\t{' '.join(c.prelude)}\t{c.line}"


def grouped(cases: list[Case]) -> dict[str, list[int]]:
    """Subject -> the indices of its cases, in order."""
    out: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):
        out[c.subject].append(i)
    return out


# ---------------------------------------------------------------------------------------------
# Recordings


def path_of(check: str, directory: Path = RECORDINGS) -> Path:
    return directory / f"{check}.json"


def to_recording(check: Check, cases: list[Case], verdicts: list[bool], facts: dict | None = None,
                 version: str | None = None, date: str | None = None) -> dict:
    """The recording of `verdicts` of `cases` (for `versions` and `cases` checks)."""
    doc = _head(check, version, date)
    if facts:
        doc["facts"] = facts
    groups = grouped(cases)
    if check.method == "versions":
        probes: dict[str, set[str]] = defaultdict(set)
        for c in cases:
            probes[c.target].add(c.version)
        order = {t: sorted(p, key=lambda v: tuple(map(int, v.split(".")))) for t, p in sorted(probes.items())}
        variants, patterns = {}, {}
        for subject, idx in groups.items():
            acc: dict[str, set[str]] = defaultdict(set)
            for i in idx:
                if verdicts[i]:
                    acc[cases[i].target].add(cases[i].version)
            accepted = probe_ranges(acc, order)
            key = patterns.setdefault(accepted, f"p{len(patterns)}")
            variants[subject] = [digest(cases[idx[0]].line), key]
        doc["probes"], doc["patterns"], doc["variants"] = order, {k: a for a, k in patterns.items()}, variants
        summary = [f"{s}\t{variants[s][0]}" for s in variants]
    else:
        doc["subjects"] = {s: [len(idx), digest("\n".join(_case_text(cases[i]) for i in idx)),
                               index_ranges([j for j, i in enumerate(idx) if verdicts[i]])]
                           for s, idx in groups.items()}
        summary = [f"{s}\t{n}\t{d}" for s, (n, d, _) in doc["subjects"].items()]
    doc["statements"], doc["accepted"] = len(cases), sum(verdicts)
    doc["digest"] = digest("\n".join(summary), 16)
    return doc


def search_recording(check: Check, found: Found, version: str | None = None, date: str | None = None) -> dict:
    doc = _head(check, version, date)
    doc["params"] = found.params
    doc.update(statements=found.statements, accepted=len(found.found), digest=found.digest,
               candidates=found.candidates, found=dict(sorted(found.found.items())))
    return doc


def _head(check: Check, version: str | None, date: str | None) -> dict:
    return {"$schema": "../../schema/ptxas-evidence.schema.json", "kind": "ptxas-evidence", "check": check.name,
            "method": check.method, "about": check.about, "ptxas": version or ptxas.version(),
            "date": date or datetime.date.today().isoformat(), "command": command(check.name),
            "params": dict(check.params)}


BIG = ("variants", "subjects", "found", "probes", "patterns")


def dumps(doc: dict) -> str:
    """The recording as JSON, one entry per line in its large tables (small diffs when re-recorded)."""
    out = []
    for k, v in doc.items():
        if k in BIG:
            body = ",\n".join(f"    {json.dumps(a)}: {json.dumps(b)}" for a, b in v.items())
            out.append(f"  {json.dumps(k)}: {{\n{body}\n  }}" if v else f"  {json.dumps(k)}: {{}}")
        else:
            out.append(f"  {json.dumps(k)}: {json.dumps(v)}")
    return "{\n" + ",\n".join(out) + "\n}\n"


def write(doc: dict, directory: Path = RECORDINGS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = path_of(doc["check"], directory)
    path.write_text(dumps(doc))
    return path


def load_recording(check: str, directory: Path = RECORDINGS) -> tuple[dict | None, str]:
    """(the recording, or None with why) of `check`, checked against its schema."""
    path = path_of(check, directory)
    if not path.is_file():
        return None, f"{check}: no recording ({_rel(path)} is missing): record it with `{command(check)}`"
    return read_recording(path), ""


def _rel(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------------------------
# What a recording says of a list of cases


def recorded(cases: list[Case], doc: dict, where: str) -> tuple[list[bool | None], list[str]]:
    """The recorded verdict of each case (None: the recording holds none), and the recording's own
    problems: statements it has that the cases do not, totals that do not add up."""
    out: list[bool | None] = [None] * len(cases)
    problems: list[str] = []
    groups = grouped(cases)
    if doc["method"] == "versions":
        probes, patterns, table = doc["probes"], doc["patterns"], doc["variants"]
        for subject, idx in groups.items():
            entry = table.get(subject)
            if entry is None:
                continue
            if entry[0] != digest(cases[idx[0]].line):
                problems.append(f"{subject}: the spec's statement is not the recorded one ({where}): "
                                f"`{cases[idx[0]].line[:120]}`; re-record")
                continue
            acc = accepted_probes(patterns.get(entry[1], ""), probes)
            for i in idx:
                c = cases[i]
                if c.version in probes.get(c.target, ()):
                    out[i] = c.version in acc.get(c.target, set())
        summary = [f"{s}\t{e[0]}" for s, e in table.items()]
        extra = sorted(set(table) - set(groups))
        total = sum(len(p) for p in probes.values()) * len(table)
        accepted = sum(len(s) for e in table.values() for s in accepted_probes(patterns.get(e[1], ""), probes).values())
        problems += [f"{where}: {s} names pattern {e[1]!r}, which it does not define" for s, e in table.items()
                     if e[1] not in patterns]
    else:
        table = doc["subjects"]
        for subject, idx in groups.items():
            entry = table.get(subject)
            if entry is None:
                continue
            mine = digest("\n".join(_case_text(cases[i]) for i in idx))
            if (entry[0], entry[1]) != (len(idx), mine):
                c = cases[idx[0]]
                problems.append(f"{subject}: the spec asks {len(idx)} statements (e.g. {c.label or 'its own'} at "
                                f"PTX {c.version} on {c.target}: `{c.line[:100]}`), not the {entry[0]} recorded "
                                f"({where}): no recording supports them")
                continue
            acc = set(indices(entry[2]))
            for j, i in enumerate(idx):
                out[i] = j in acc
        summary = [f"{s}\t{n}\t{d}" for s, (n, d, _) in table.items()]
        extra = sorted(set(table) - set(groups))
        total = sum(e[0] for e in table.values())
        accepted = sum(len(indices(e[2])) for e in table.values())
    if (total, accepted, digest("\n".join(summary), 16)) != (doc["statements"], doc["accepted"], doc["digest"]):
        problems.append(f"{where}: its totals ({doc['statements']} statements, {doc['accepted']} accepted, digest "
                        f"{doc['digest']}) are not those of its entries ({total}, {accepted}, "
                        f"{digest(chr(10).join(summary), 16)}): hand-edited? re-record")
    problems += [f"{where} records {s}, of which the spec asks nothing (no such variant, or the check no longer "
                 f"covers it)" for s in extra]
    return out, problems


def _verdict(ok: bool) -> str:
    return "accepted" if ok else "rejected"


def _short(lines: list[str]) -> str:
    more = f"\n  ... and {len(lines) - SHOW} more" if len(lines) > SHOW else ""
    return "".join(f"\n  {x}" for x in lines[:SHOW]) + more


def replay(spec, check: Check, directory: Path = RECORDINGS) -> list[str]:
    """Where the recording of `check` and the spec disagree, without running ptxas (quick tier)."""
    doc, why = load_recording(check.name, directory)
    if doc is None:
        return [why]
    where = f"{_rel(path_of(check.name, directory))} (ptxas {doc['ptxas']}, {doc['date']})"
    if check.method == "search":
        assert check.expect is not None, check.name
        return [f"{check.name}: {p} [{where}]" for p in check.expect(spec, doc)]
    cases = check.statements(spec, doc.get("facts", {}))
    got, problems = recorded(cases, doc, where)
    missing = sorted((i for i, g in enumerate(got) if g is None), key=lambda i: not cases[i].want)  # "valid" first
    wrong = [i for i, g in enumerate(got) if g is not None and g != cases[i].want]
    out = [f"{check.name}: {p}" for p in problems]
    if missing:
        out.append(f"{check.name}: {len(missing)} of the spec's claims have no recording in {where}; "
                   f"record them with `{command(check.name)}`:" + _short(
                       [f"{_name(cases[i])} at PTX {cases[i].version} on {cases[i].target}: the spec says it is "
                        f"{'valid' if cases[i].want else 'invalid'}" for i in missing]))
    if wrong:
        out.append(f"{check.name}: {len(wrong)} recorded verdicts contradict the spec ({where}):" + _short(
            [f"{_name(cases[i])} at PTX {cases[i].version} on {cases[i].target}: ptxas {doc['ptxas']} "
             f"{_verdict(not cases[i].want)} it, the spec says {'valid' if cases[i].want else 'invalid'}"
             for i in wrong]))
    if check.method == "versions":
        out += _recorded_elsewhere(spec, cases, doc, where)
    if check.sanity and not missing and not problems:
        out += [f"{check.name}: {p}" for p in check.sanity(cases, [bool(g) for g in got])]
    return out


def _recorded_elsewhere(spec, cases: list[Case], doc: dict, where: str) -> list[str]:
    """A versions recording's verdicts at probes the spec no longer asks about (its variants'
    versions changed), against what the spec says there now."""
    asked = {(c.subject, c.target, c.version) for c in cases}
    lines = {c.subject: c.line for c in cases}
    wrong = []
    for vid, (stmt, pattern) in doc["variants"].items():
        if vid not in lines or stmt != digest(lines[vid]):
            continue  # not the spec's statement: reported as such
        acc = accepted_probes(doc["patterns"].get(pattern, ""), doc["probes"])
        v = spec.variant(vid)
        for target, versions in doc["probes"].items():
            for ver in versions:
                if (vid, target, ver) not in asked and target in spec.targets and \
                        (ver in acc.get(target, set())) != v.valid(target, ver):
                    got = ver in acc.get(target, set())
                    wrong.append(f"{vid} at PTX {ver} on {target}: ptxas {doc['ptxas']} {_verdict(got)} it, the spec "
                                 f"says {'invalid' if got else 'valid'}")
    return [f"{doc['check']}: {len(wrong)} recorded verdicts contradict the spec ({where}):" + _short(wrong)] if wrong else []


def _name(c: Case) -> str:
    return c.subject + (f" [{c.label}]" if c.label else "")


# ---------------------------------------------------------------------------------------------
# Running ptxas


def _messages(res: ptxas.Result, first: int, i: int) -> list[str]:
    module = [m for line, ms in res.errors.items() if line < first for m in ms]
    return res.errors.get(first + i, []) + module + res.fatal


def judge(cases: list[Case]) -> tuple[list[bool], list[str]]:
    """ptxas's verdict on every case (many statements a module; a verdict that differs from the
    spec's is judged again alone), and the rejections that lack their expected message."""
    batches: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):
        batches[(c.version, c.target, c.prelude)].append(i)
    jobs = [(key, idx[s:s + CHUNK]) for key, idx in batches.items() for s in range(0, len(idx), CHUNK)]

    def one(job):
        (version, target, prelude), idx = job
        ok, res = ptxas.judge([cases[i].line for i in idx], version, target, prelude=prelude)
        _, first = kernel(list(prelude), version, target)
        first += len(prelude)
        return [(i, good, _messages(res, first, j) if not good and cases[i].reason else []) for j, (i, good)
                in enumerate(zip(idx, ok))]

    verdicts = [False] * len(cases)
    messages: dict[int, list[str]] = {}
    with ThreadPoolExecutor(WORKERS) as ex:
        for results in ex.map(one, jobs):
            for i, good, msgs in results:
                verdicts[i] = good
                messages[i] = msgs
    again = [i for i, c in enumerate(cases) if verdicts[i] != c.want][:ALONE]
    with ThreadPoolExecutor(WORKERS) as ex:
        for i, (good, res) in zip(again, ex.map(lambda i: ptxas.judge([cases[i].line], cases[i].version,
                                                                      cases[i].target, prelude=cases[i].prelude),
                                                 again)):
            verdicts[i] = good[0]
            _, first = kernel(list(cases[i].prelude), cases[i].version, cases[i].target)
            messages[i] = _messages(res, first + len(cases[i].prelude), 0)
    problems = [f"{_name(c)} at PTX {c.version} on {c.target}: rejected, but not for `{c.reason}`: "
                f"{'; '.join(messages.get(i, []))[:300]}"
                for i, c in enumerate(cases) if c.reason and not verdicts[i] and
                not any(c.reason in m for m in messages.get(i, []))]
    return verdicts, problems


def assemble_many(lines: list[str], version: str, target: str, prelude: tuple[str, ...] = ()) -> list[bool]:
    """ptxas's verdict on each line, CHUNK lines a module, the modules in parallel (for searches,
    whose statements have no expected verdict). A module rejected as a whole is an error."""
    starts = list(range(0, len(lines), CHUNK))

    def one(s):
        return ptxas.judge(lines[s:s + CHUNK], version, target, prelude=prelude)

    out: list[bool] = []
    with ThreadPoolExecutor(WORKERS) as ex:
        for ok, res in ex.map(one, starts):
            if res.fatal_file:
                raise AssertionError(f"ptxas rejected a module as a whole at PTX {version} on {target}: "
                                     f"{res.fatal or res.returncode}")
            out += ok
    return out


def live(spec, check: Check, directory: Path = RECORDINGS) -> list[str]:
    """Run ptxas over every statement of the recording of `check`; where the installed ptxas says
    otherwise than the recording (full tier)."""
    doc, why = load_recording(check.name, directory)
    if doc is None:
        return [why]
    where = f"{_rel(path_of(check.name, directory))} (ptxas {doc['ptxas']}, {doc['date']})"
    again = f"if the installed ptxas {ptxas.version()} is right, re-record: `{command(check.name)}`"
    if check.method == "search":
        assert check.search is not None, check.name
        now = check.search()
        out = []
        if (now.candidates, now.statements, now.digest) != (doc["candidates"], doc["statements"], doc["digest"]):
            out.append(f"{check.name}: the search tried {now.candidates} candidates in {now.statements} statements "
                       f"(digest {now.digest}), the recording {doc['candidates']} in {doc['statements']} "
                       f"({doc['digest']})")
        gone = sorted(set(doc["found"]) - set(now.found))
        new = sorted(set(now.found) - set(doc["found"]))
        changed = sorted(k for k in set(now.found) & set(doc["found"]) if now.found[k] != doc["found"][k])
        out += [f"{check.name}: ptxas {ptxas.version()} rejects {k}, recorded accepted" for k in gone[:SHOW]]
        out += [f"{check.name}: ptxas {ptxas.version()} accepts {k} ({now.found[k]}), recorded rejected"
                for k in new[:SHOW]]
        out += [f"{check.name}: {k}: found {now.found[k]}, recorded {doc['found'][k]}" for k in changed[:SHOW]]
        return [f"{p} [{where}; {again}]" for p in out]
    facts = check.facts() if check.facts else {}
    out = []
    if facts != doc.get("facts", {}):
        out.append(f"{check.name}: ptxas gives other facts than recorded: {_diff(facts, doc.get('facts', {}))}")
    cases = check.statements(spec, facts)
    verdicts, problems = judge(cases)
    before, recorded_problems = recorded(cases, doc, where)
    out += [f"{check.name}: {p}" for p in problems + recorded_problems]
    differ = [f"{_name(c)} at PTX {c.version} on {c.target}: ptxas {ptxas.version()} {_verdict(v)} it, the "
              f"recording says {'nothing' if r is None else _verdict(r)}" for c, v, r in zip(cases, verdicts, before)
              if r is None or r != v]
    if differ:
        out.append(f"{check.name}: {len(differ)} verdicts differ from {where}; {again}:" + _short(differ))
    if check.sanity:
        out += [f"{check.name}: {p}" for p in check.sanity(cases, verdicts)]
    return out


def _diff(a: dict, b: dict) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return "; ".join(f"{k}: {a.get(k)!r} now, {b.get(k)!r} recorded" for k in keys[:5])


def record(spec, check: Check) -> dict:
    """Run ptxas over `check` and return its recording (tests/record_ptxas.py writes it)."""
    if check.method == "search":
        assert check.search is not None, check.name
        return search_recording(check, check.search())
    facts = check.facts() if check.facts else {}
    cases = check.statements(spec, facts)
    verdicts, problems = judge(cases)
    if problems:
        raise AssertionError(f"{check.name}: not recorded:{_short(problems)}")
    return to_recording(check, cases, verdicts, facts)
