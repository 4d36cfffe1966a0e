"""The wgmma family of the database, proved against ptxas 13.5.

* every variant assembles at its first PTX version on each of its targets, not one version
  earlier, and on no target outside its set (at PTX 9.5 and at the target's own first version);
* every legal immediate value assembles, illegal ones do not, and exactly the signature's
  number of trailing immediates is accepted;
* a near-miss candidate space built without the database (tests/ptxas_candidates.py): the
  (opcode, form) pairs ptxas accepts are exactly the database's;
* the facts recorded in spec/errata/wgmma.yaml;
* wgmma.fence / commit_group / wait_group.

ptxas runs parse-only (`-arch compute_XX`), each module holding thousands of statements; each
batch is assembled once per test module (module-scoped fixtures).
"""
from __future__ import annotations

import itertools
import os
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import ptxspec
import pytest
from ptxspec.model.isa import Version
from ptxspec.model.ptx_text import kernel, operand_text, statement
from ptxspec.oracle import ptxas

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # works whatever pytest's import mode
import ptxas_candidates as cand  # noqa: E402

if not ptxas.available():
    pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not found", allow_module_level=True)

LATEST = "9.5"
HOME = "sm_90a"  # every wgmma variant's target; the candidate space runs here at LATEST
WORKERS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
CHUNK = 60_000  # statements per ptxas call for the candidate space
SHOW = 20


def _short(items, n=SHOW) -> str:
    items = list(items)
    more = f"\n  ... and {len(items) - n} more" if len(items) > n else ""
    return "".join(f"\n  {x}" for x in items[:n]) + more


# ---------------------------------------------------------------------------------------------
# Running ptxas


@dataclass
class Batch:
    version: str
    target: str
    lines: list[str]
    ok: list[bool]
    results: list[tuple[int, ptxas.Result, int]]  # (first index, result, first module line)

    def messages(self, i: int) -> list[str]:
        for start, res, first in reversed(self.results):
            if i >= start:
                return res.errors.get(first + i - start, []) or res.fatal or \
                    ([] if res.returncode == 0 else [f"module rejected: {_module_errors(res)}"])
        return []

    @property
    def returncode(self) -> int:
        return max(r.returncode for _, r, _ in self.results)

    def module_errors(self) -> str:
        return "; ".join(_module_errors(r) for _, r, _ in self.results)


def _module_errors(res: ptxas.Result) -> str:
    _, first = kernel([], LATEST, HOME)
    head = [m for line, ms in res.errors.items() if line < first for m in ms]
    return "; ".join(head + res.fatal) or f"exit {res.returncode}"


def _judge(lines, version, target, prefix=()):
    prefix = tuple(prefix)
    ok, res = ptxas.judge(lines, version, target, prelude=prefix)
    _, first = kernel([], version, target)
    bad = [ln for ln in res.errors if first <= ln < first + len(prefix)]
    assert not bad, f"ptxas rejected the declarations: {[res.errors[ln] for ln in bad]}"
    return ok, res, first + len(prefix)


def run(lines: list[str], version: str, target: str, chunk: int | None = None, prefix=()) -> Batch:
    """Assemble `lines` (one module, or modules of `chunk` statements run in parallel)."""
    chunk = chunk or max(1, len(lines))
    starts = list(range(0, len(lines), chunk)) or [0]
    with ThreadPoolExecutor(min(WORKERS, len(starts))) as ex:
        outs = list(ex.map(lambda s: _judge(lines[s:s + chunk], version, target, prefix), starts))
    ok = [x for o, _, _ in outs for x in o]
    return Batch(version, target, lines, ok, [(s, r, f) for s, (_, r, f) in zip(starts, outs)])


def run_many(jobs: dict) -> dict:
    """{key: (lines, version, target)} -> {key: Batch}, the ptxas calls in parallel."""
    with ThreadPoolExecutor(WORKERS) as ex:
        futs = {k: ex.submit(run, lines, v, t) for k, (lines, v, t) in jobs.items()}
        return {k: f.result() for k, f in futs.items()}


def render(v, overrides: dict[str, str] | None = None, count: int | None = None,
           opcode: str | None = None) -> str:
    """A variant's statement with some operands replaced by raw text, or with its trailing
    immediates replaced by `count` legal values."""
    overrides = overrides or {}
    counters: dict[str, int] = {}
    parts = []
    for o in v.operands:
        text = operand_text(o, counters, {})
        if count is not None and o.kind == "immediate":
            continue
        parts.append(overrides.get(o.name, text))
    if count is not None:
        parts += [str(x) for x in cand.IMM_VALUES[:count]]
    op = opcode or v.ptx
    return f"{op} {', '.join(parts)};" if parts else f"{op};"


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def spec():
    return ptxspec.load()


@pytest.fixture(scope="module")
def wgmma(spec):
    vs = [v for v in spec.variants if v.family == "wgmma"]
    assert vs, "no wgmma variants in the database"
    return vs


@pytest.fixture(scope="module")
def mma(wgmma):
    return [v for v in wgmma if v.instruction.startswith("wgmma.mma_async")]


def _known(spec, t: str) -> bool:
    return spec.targets[t].ptxas


@pytest.fixture(scope="module")
def version_batches(spec, wgmma):
    """Every wgmma statement assembled at each (version, target) that requirement 1 needs:
    each variant's first version on each target, the version before, and every other target at
    the latest version and at the target's own first version."""
    pairs = set()
    latest = Version.parse(LATEST)
    known = [t for t in spec.targets if _known(spec, t)]
    for v in wgmma:
        for t in v.targets:
            if not _known(spec, t):
                continue
            first = v.requirement.first_ptx(spec.targets[t])
            pairs.add((first, t))
            prev = spec.previous_version(first)
            if prev is not None and prev in spec.ptxas_versions:
                pairs.add((prev, t))
        for t in known:
            if t not in v.requirement.targets:
                pairs.add((latest, t))
                pairs.add((spec.targets[t].ptx, t))
    lines = [statement(v) for v in wgmma]
    return run_many({(str(ver), t): (lines, str(ver), t) for ver, t in sorted(pairs)})


@pytest.fixture(scope="module")
def immediates_batch(spec, mma):
    """Legal and illegal immediate values of every wgmma.mma_async variant, at LATEST on HOME."""
    cases = []  # (variant, description, expected, line)
    for v in mma:
        choices = [(o.name, o.values) for o in v.operands if o.kind in ("immediate", "selector")]
        for combo in itertools.product(*(vals for _, vals in choices)):
            over = {name: str(x) for (name, _), x in zip(choices, combo)}
            cases.append((v, f"legal {over}", True, render(v, over)))
        for o in v.operands:
            if o.kind == "immediate":
                bad = {-2, 0, 2} if o.name.startswith("imm_scale") else {-1, 2}
                bad -= set(o.values)
            elif o.kind == "selector":
                bad = {-1, 0, 1, 2, 3, 4} - set(o.values)
            elif o.kind == "predicate":
                bad = {2, -1}
            else:
                continue
            for x in sorted(bad):
                cases.append((v, f"illegal {o.name}={x}", False, render(v, {o.name: str(x)})))
            if o.kind in ("immediate", "selector"):
                cases.append((v, f"illegal {o.name}=register", False, render(v, {o.name: "%r299"})))
    batch = run([c[3] for c in cases], LATEST, HOME, chunk=20_000)
    return cases, batch


@pytest.fixture(scope="module")
def count_batch(mma):
    """Each wgmma.mma_async variant with 0..5 trailing immediates."""
    cases = [(v, n) for v in mma for n in cand.IMM_COUNTS]
    batch = run([render(v, count=n) for v, n in cases], LATEST, HOME, chunk=20_000)
    return cases, batch


@dataclass
class Space:
    stages: dict[str, int]  # stage -> number of statements
    candidates: int
    lines: int
    accepted: dict[tuple[str, str], set[int]]  # (opcode, form) -> accepted immediate counts
    tried: set[tuple[str, str]]


@pytest.fixture(scope="module")
def candidate_space():
    """Stages 1-4 of tests/ptxas_candidates.py at LATEST on HOME."""
    accepted: dict[tuple[str, str], set[int]] = defaultdict(set)
    tried: set = set()
    stages = {}
    ncand = 0

    def stage(name, cands, counts=cand.IMM_COUNTS):
        nonlocal ncand
        ncand += len(cands)
        tried.update(c.key for c in cands)
        stmts = cand.lines(cands, counts)
        stages[name] = len(stmts)
        batch = run([s for _, _, s in stmts], LATEST, HOME, chunk=CHUNK, prefix=[cand.DECLARATIONS])
        assert not any(r.fatal_file for _, r, _ in batch.results), \
            f"ptxas rejected a candidate module as a whole: {batch.module_errors()}"
        out = []
        for (c, n, _), ok in zip(stmts, batch.ok):
            if ok:
                accepted[c.key].add(n)
                out.append(c)
        return out

    hits = stage("type screen", cand.screen())
    combos = {c.combo for c in hits}
    hits = stage("shape sweep", cand.sweep(combos))
    ks = defaultdict(set)
    for c in hits:
        ks[c.combo].add(c.k)
    combos = {c.combo for c in hits}
    stage("other M", cand.other_m(combos, ks))
    stage("every N for every type", cand.full_sweep(), cand.SWEEP_IMM_COUNTS)
    return Space(stages, ncand, sum(stages.values()), dict(accepted), tried)


# ---------------------------------------------------------------------------------------------
# 1. Versions and targets


def _failure(v, batch, i, want) -> str:
    return (f"{v.id} at PTX {batch.version} on {batch.target}: ptxas "
            f"{'rejects' if want else 'accepts'} it, the database says {'valid' if want else 'invalid'}"
            + (f" ({'; '.join(batch.messages(i))})" if want else ""))


def test_wgmma_variant_count(wgmma, mma):
    assert len(mma) == len({(v.ptx, v.form) for v in mma}), "duplicate (opcode, form) in the database"
    assert {v.instruction for v in wgmma} == {"wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.fence",
                                              "wgmma.commit_group", "wgmma.wait_group"}


def test_first_version_accepts(spec, wgmma, version_batches):
    bad, checked = [], 0
    for i, v in enumerate(wgmma):
        for t in v.targets:
            if not _known(spec, t):
                continue
            b = version_batches[(str(v.requirement.first_ptx(spec.targets[t])), t)]
            checked += 1
            if not b.ok[i]:
                bad.append(_failure(v, b, i, True))
    assert checked >= len(wgmma)
    assert not bad, f"{len(bad)} of {checked} (variant, target) pairs fail at their first version:{_short(bad)}"


def test_previous_version_rejects(spec, wgmma, version_batches):
    bad, checked, whole = [], 0, set()
    for i, v in enumerate(wgmma):
        for t in v.targets:
            if not _known(spec, t):
                continue
            prev = spec.previous_version(v.requirement.first_ptx(spec.targets[t]))
            if prev is None or prev not in spec.ptxas_versions:
                continue
            b = version_batches[(str(prev), t)]
            checked += 1
            if prev < spec.targets[t].ptx:
                # PTX `prev` does not know the target: ptxas must reject the module itself.
                whole.add((str(prev), t))
                assert b.returncode != 0, f"ptxas accepted a module for {t} at PTX {prev}"
                assert ".target" in b.module_errors() or any(r.fatal_file for _, r, _ in b.results), \
                    f"PTX {prev} on {t}: expected ptxas to reject the .target, got {b.module_errors()}"
            if b.ok[i]:
                bad.append(_failure(v, b, i, False))
    assert checked >= len(wgmma)
    assert not bad, f"{len(bad)} of {checked} (variant, target) pairs assemble one version early:{_short(bad)}"


def test_off_target_rejects(spec, wgmma, version_batches):
    bad, checked = [], 0
    known = [t for t in spec.targets if _known(spec, t)]
    for i, v in enumerate(wgmma):
        for t in known:
            if t in v.requirement.targets:
                continue
            for ver in (LATEST, str(spec.targets[t].ptx)):
                b = version_batches[(ver, t)]
                checked += 1
                if b.ok[i]:
                    bad.append(_failure(v, b, i, False))
    assert checked >= len(wgmma)
    assert not bad, f"{len(bad)} of {checked} (variant, off-target) pairs assemble:{_short(bad)}"


def test_every_batch_matches_validity(spec, wgmma, version_batches):
    """Beyond the three tests above: in every batch, each statement is accepted iff the
    database says the variant is valid at that version on that target."""
    bad, lines, accepted = [], 0, 0
    for (ver, t), b in version_batches.items():
        for i, v in enumerate(wgmma):
            want = v.valid(t, ver)
            lines += 1
            accepted += b.ok[i]
            if b.ok[i] != want:
                bad.append(_failure(v, b, i, want))
    assert not bad, (f"{len(bad)} of {lines} statements in {len(version_batches)} batches "
                     f"({accepted} accepted) disagree with the database:{_short(bad)}")


# ---------------------------------------------------------------------------------------------
# 1b. Immediate values


def test_immediate_values(immediates_batch):
    cases, batch = immediates_batch
    bad = []
    for i, (v, what, want, line) in enumerate(cases):
        if batch.ok[i] != want:
            msg = "; ".join(batch.messages(i)) if want else "accepted"
            bad.append(f"{v.id} {what}: {msg}")
    legal = sum(1 for c in cases if c[2])
    assert not bad, (f"{len(bad)} of {len(cases)} immediate cases ({legal} legal, "
                     f"{len(cases) - legal} illegal, {sum(batch.ok)} accepted) disagree:{_short(bad)}")


def test_scale_d_literal(mma):
    """scale-d is a predicate in the database; ptxas also takes the literals 0 and 1 (and no
    other value) in its place, which the database does not model."""
    vs = [v for v in mma if v.n == 8]
    cases = [(v, x) for v in vs for x in ("0", "1", "2", "-1")]
    b = run([render(v, {"scale_d": x}) for v, x in cases], LATEST, HOME)
    bad = [f"{v.id} scale-d={x}: {'accepted' if ok else '; '.join(b.messages(i))}"
           for i, ((v, x), ok) in enumerate(zip(cases, b.ok)) if ok != (x in ("0", "1"))]
    assert not bad, f"{len(bad)} of {len(cases)} disagree:{_short(bad)}"


def test_immediate_counts(mma, count_batch):
    """Exactly len(signature immediates) trailing immediates are accepted."""
    cases, batch = count_batch
    bad = []
    for i, (v, n) in enumerate(cases):
        want = n == sum(o.kind == "immediate" for o in v.operands)
        if batch.ok[i] != want:
            bad.append(f"{v.id} with {n} immediates: ptxas {'rejects' if want else 'accepts'} it"
                       + (f" ({'; '.join(batch.messages(i))})" if want else " (wrong immediates count)"))
    assert not bad, (f"{len(bad)} of {len(cases)} statements ({sum(batch.ok)} accepted) disagree "
                     f"on the immediates count:{_short(bad)}")


# ---------------------------------------------------------------------------------------------
# 2. The near-miss candidate space


def test_candidate_space_covers_database(mma, candidate_space):
    outside = sorted({(v.ptx, v.form) for v in mma} - candidate_space.tried)
    assert not outside, f"{len(outside)} database variants are not in the candidate space:{_short(outside)}"


def test_candidate_space_matches_database(mma, candidate_space):
    db = {(v.ptx, v.form) for v in mma}
    got = set(candidate_space.accepted)
    missing, extra = sorted(db - got), sorted(got - db)
    s = candidate_space
    summary = (f"{s.candidates} candidates ({len(s.tried)} distinct (opcode, form)), {s.lines} statements "
               f"({', '.join(f'{k}: {n}' for k, n in s.stages.items())}); ptxas accepted {len(got)}, "
               f"database has {len(db)}")
    assert not missing and not extra, (
        f"{summary}\nmissing (in the database, ptxas accepts no arrangement): {len(missing)}{_short(missing)}"
        f"\nextra (ptxas accepts, not in the database): {len(extra)}"
        f"{_short(f'{k} with {sorted(s.accepted[k])} immediates' for k in extra)}")


def test_candidate_immediate_counts(mma, candidate_space):
    bad = []
    for v in mma:
        want = {sum(o.kind == "immediate" for o in v.operands)}
        got = candidate_space.accepted.get((v.ptx, v.form), set())
        if got and got != want:
            bad.append(f"{v.id}: ptxas accepts {sorted(got)} immediates, the signature has {want.pop()}")
    assert not bad, f"{len(bad)} of {len(mma)} variants (wrong immediates count):{_short(bad)}"


# ---------------------------------------------------------------------------------------------
# 3. Errata


def test_errata_evidence(spec):
    ops = {" ".join(v.ptx.split()) for v in spec.variants}
    errata = [e for e in spec.errata if e.family == "wgmma"]
    assert errata, "spec/errata/wgmma.yaml has no errata"
    bad = []
    for e in errata:
        for op in e.evidence.get("present", []):
            if " ".join(op.split()) not in ops:
                bad.append(f"{e.id}: present {op} is not in the database")
        for op in e.evidence.get("absent", []):
            if " ".join(op.split()) in ops:
                bad.append(f"{e.id}: absent {op} is in the database")
    assert not bad, _short(bad)


def _qualifier_spellings(v):
    """v.ptx with .satfinite moved to every position among the qualifiers."""
    head, *quals = v.ptx.split(".")
    quals.remove("satfinite")
    return [".".join([head] + quals[:i] + ["satfinite"] + quals[i:]) for i in range(1, len(quals) + 1)]


def test_qualifier_order(mma):
    """wgmma-satfinite-position: .satfinite assembles anywhere among the qualifiers; and every
    order of the non-type qualifiers (types kept in d, a, b order) assembles."""
    sat = [v for v in mma if v.satfinite]
    assert sat, "no .satfinite variants"
    cases = [(v, op) for v in sat for op in _qualifier_spellings(v)]
    one_each = {}
    for x in sat:  # all orders for one variant per (instruction, form)
        if x.n == 8:
            one_each.setdefault((x.instruction, x.form), x)
    for v in one_each.values():
        head, inst, *quals = v.ptx.split(".")
        types = [v.dtype, v.atype, v.btype]
        others = [q for q in quals if q not in types]
        n = len(quals)
        for pos in itertools.combinations(range(n), 3):
            for perm in itertools.permutations(others):
                it_t, it_o = iter(types), iter(perm)
                seq = [next(it_t) if i in pos else next(it_o) for i in range(n)]
                cases.append((v, ".".join([head, inst] + seq)))
    for spelling in ("m64n8k32.s32.s8.s8.satfinite", "m64n8k32.satfinite.s32.s8.s8",
                     "satfinite.m64n8k32.s32.s8.s8"):
        v = next(x for x in sat if x.ptx == "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8"
                 and x.form == "desc")
        cases.append((v, "wgmma.mma_async.sync.aligned." + spelling))
    b = run([render(v, opcode=op) for v, op in cases], LATEST, HOME)
    bad = [f"{op} ({v.form}): {'; '.join(b.messages(i))}" for i, ((v, op), ok) in enumerate(zip(cases, b.ok))
           if not ok]
    assert not bad, f"{len(bad)} of {len(cases)} spellings rejected:{_short(bad)}"


def test_aligned_not_enforced(wgmma):
    """wgmma-aligned-not-enforced: without .aligned every wgmma statement still assembles;
    without .sync none does (".sync modifier required")."""
    cases = []
    for v in wgmma:
        assert ".sync.aligned" in v.ptx, v.id
        cases.append((v, v.ptx.replace(".sync.aligned", ".sync"), True))
        cases.append((v, v.ptx.replace(".sync.aligned", ".aligned"), False))
        cases.append((v, v.ptx.replace(".sync.aligned", ""), False))
    b = run([render(v, opcode=op) for v, op, _ in cases], LATEST, HOME)
    bad = []
    for i, (v, op, want) in enumerate(cases):
        msgs = b.messages(i)
        if b.ok[i] != want:
            bad.append(f"{op} ({v.form}): {'accepted' if b.ok[i] else '; '.join(msgs)}")
        elif not want and not any(".sync modifier required" in m for m in msgs):
            bad.append(f"{op} ({v.form}): rejected, but not for the missing .sync: {'; '.join(msgs)}")
    assert not bad, f"{len(bad)} of {len(cases)} statements:{_short(bad)}"
    # The erratum's own examples.
    s4 = "{%s0, %s1, %s2, %s3}, %rd0, %rd1, %p0;"
    ok, res = ptxas.judge([f"wgmma.mma_async.sync.m64n8k32.s32.s8.s8 {s4}",
                           f"wgmma.mma_async.aligned.m64n8k32.s32.s8.s8 {s4}"], LATEST, HOME)
    assert ok == [True, False], res.errors


# ---------------------------------------------------------------------------------------------
# 4. fence / commit_group / wait_group


SYNC_INSTRUCTIONS = ("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group")


@pytest.mark.parametrize("version,target,want", [
    ("8.0", "sm_90a", True), (LATEST, "sm_90a", True),
    ("7.8", "sm_90a", False),  # PTX 7.8 does not know sm_90a: the module is rejected
    ("7.8", "sm_90", False), ("8.0", "sm_90", False), (LATEST, "sm_90", False),
    (LATEST, "sm_100a", False), (LATEST, "sm_120a", False), (LATEST, "sm_89", False),
])
def test_sync_instructions(spec, wgmma, version, target, want):
    vs = [v for v in wgmma if v.instruction in SYNC_INSTRUCTIONS]
    assert {v.instruction for v in vs} == set(SYNC_INSTRUCTIONS)
    for v in vs:
        assert v.valid(target, version) == want, f"the database says {v.id} valid={not want} at {version} on {target}"
    ok, res = ptxas.judge([statement(v) for v in vs], version, target)
    assert ok == [want] * len(vs), f"{[v.ptx for v in vs]} at PTX {version} on {target}: {ok} {res.errors} {res.fatal}"
    if not want:
        assert res.returncode != 0


def test_wait_group_values(spec):
    v = spec.variant("wgmma.wait_group.sync.aligned")
    (n,) = v.operands
    assert n.kind == "immediate" and n.min_value == 0 and n.values is None
    good = [n.min_value, n.min_value + 1, 7, 8, 100000]
    bad = [str(n.min_value - 1), "%r0", "%rd0"]
    lines = [render(v, {"n": str(x)}) for x in good] + [render(v, {"n": x}) for x in bad]
    ok, res = ptxas.judge(lines, "8.0", "sm_90a")
    assert ok == [True] * len(good) + [False] * len(bad), f"{list(zip(lines, ok))}: {res.errors}"
