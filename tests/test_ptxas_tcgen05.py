"""tcgen05 against ptxas 13.5, beyond the checks every family gets (tests/test_ptxas_families.py:
each variant at its first PTX version on each target, one version earlier, off-target).

* Options (the collector-buffer qualifiers an opcode may add): every value of every variant
  assembles at its first PTX version on each target, is rejected one version earlier and on the
  variant's other targets.
* Optional operands (the disable-output-lane mask) left out: still accepted.
* Operand signatures: the mask has exactly the length the CTA group gives (4 or 8 registers);
  scale-input-d takes 0-15 only; tcgen05.alloc takes 32, 64, 128, 256 or 512 columns.
* Near misses, from first principles: the candidate generator of the ptxas survey
  (campaigns/survey/survey_tcgen05.py, which never reads the spec: every kind, cta_group, shape,
  .num, type, qualifier and misspelling it could think of) gives a bounded, seeded sample of
  candidate opcodes, each judged by ptxas on four targets at PTX 9.5: ptxas accepts exactly
  those the spec has (with each form's operands), and rejects the others (with the operands the
  survey would write first). The full survey (a few minutes, by hand) records all 2,650
  accepted opcodes; `test_spec_matches_the_survey` compares the spec with that record.
"""
from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from ptxspec.model import ptx_text as asm
from ptxspec.model.isa import Version
from ptxspec.oracle import ptxas

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")
HERE = Path(__file__).resolve().parent
LATEST = Version(9, 5)
SURVEY = HERE.parent / "campaigns" / "survey" / "tcgen05-ptxas-13.5.json"


def _tcgen05(spec):
    return [v for v in spec.variants if v.family == "tcgen05"]


def _judge(batches):
    """{(version, target): [(key, line)]} -> {key: (accepted, errors)}"""
    out = {}
    for (version, target), entries in sorted(batches.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        ok, res = ptxas.judge([line for _, line in entries], str(version), target)
        for (key, _), accepted in zip(entries, ok):
            out[key] = (accepted, None)
    return out


def _line(v, opcode, **kw):
    return opcode + asm.statement(v, **kw)[len(v.ptx):]


# ----------------------------------------------------------------------------------------------
# Options


def test_options_first_version_earlier_and_off_target(spec):
    batches = defaultdict(list)
    known = [t for t in spec.targets.values() if t.ptxas]
    n = 0
    for v in _tcgen05(spec):
        for axis, values in v.options.items():
            for value, req in values:
                if not value:
                    continue
                both = req.intersect(v.requirement)
                line = _line(v, v.opcode(**{axis: value}))
                for t in known:
                    if t.name not in v.requirement.targets:
                        continue  # the base opcode is rejected there already (test_ptxas_families)
                    first = both.first_ptx(t)
                    if first is None:
                        batches[(LATEST, t.name)].append((("off", v.id, value, t.name), line))
                        continue
                    batches[(first, t.name)].append((("first", v.id, value, t.name), line))
                    prev = spec.previous_version(first)
                    if prev is not None and prev in spec.ptxas_versions and prev >= t.ptx:
                        batches[(prev, t.name)].append((("earlier", v.id, value, t.name), line))
                n += 1
    assert n > 1500, "too few option values under test"
    verdicts = _judge(batches)
    want = {"first": True, "earlier": False, "off": False}
    bad = [k for k, (ok, _) in verdicts.items() if ok != want[k[0]]]
    counts = {w: sum(1 for k in verdicts if k[0] == w) for w in want}
    assert counts["off"] > 100 and counts["earlier"] > 100, counts
    assert not bad, f"{len(bad)} of {len(verdicts)} option checks failed: {bad[:10]}"


# ----------------------------------------------------------------------------------------------
# Operand signatures


def _first_place(spec, v):
    for t in v.targets:
        if spec.targets[t].ptxas:
            return v.requirement.first_ptx(spec.targets[t]), t
    return None


def test_optional_operands_may_be_left_out(spec):
    batches = defaultdict(list)
    for v in _tcgen05(spec):
        if any(o.optional for o in v.operands):
            batches[_first_place(spec, v)].append((v.id, asm.statement(v, optional=False)))
    assert sum(map(len, batches.values())) > 100
    bad = [k for k, (ok, _) in _judge(batches).items() if not ok]
    assert not bad, bad[:10]


def _with_vector(statement: str, length: int) -> str:
    """The statement with its one {...} operand replaced by `length` registers unused elsewhere."""
    assert statement.count("{") == 1, statement
    head, rest = statement.split("{")
    _, tail = rest.split("}")
    return head + "{" + ", ".join(f"%r{200 + j}" for j in range(length)) + "}" + tail


def test_lane_mask_length_is_the_cta_groups(spec):
    """disable-output-lane: 4 registers with .cta_group::1, 8 with ::2 (one bit per lane of the
    CTA's or the pair's 128 lanes); every other length is rejected."""
    batches = defaultdict(list)
    for v in _tcgen05(spec):
        masks = [o for o in v.operands if o.kind == "lane_mask"]
        if not masks:
            continue
        want = {"cta_group::1": 4, "cta_group::2": 8}[v.qualifiers["cta_group"]]
        assert masks[0].regs == want, v.id
        for length in (2, 4, 8, 16):
            batches[_first_place(spec, v)].append(((v.id, length, length == want),
                                                   _with_vector(asm.statement(v), length)))
    verdicts = _judge(batches)
    bad = [k for k, (ok, _) in verdicts.items() if ok != k[2]]
    assert len(verdicts) >= 400 and not bad, bad[:10]


def test_scale_input_d_immediates(spec):
    """scale-input-d: 0-15 with kind::f16 and kind::tf32 (the manual's range); with the integer
    kinds, where only ptxas takes it, any constant. The spec states the manual's range for every
    kind (the legal values a default and a call are checked against), so that with an integer kind
    ptxas takes more than the spec calls legal, never less."""
    batches = defaultdict(list)
    kinds = defaultdict(set)
    for v in _tcgen05(spec):
        sid = [o for o in v.operands if o.name == "scale_input_d"]
        if not sid:
            continue
        integer = v.qualifiers["kind"] in ("kind::i8", "kind::ti16")
        assert sid[0].values == tuple(range(16)), v.id
        kinds[integer].add(v.qualifiers["kind"])
        for value in (-1, 0, 1, 7, 15, 16, 31, 255):
            batches[_first_place(spec, v)].append(((v.id, value, integer or 0 <= value <= 15),
                                                   asm.statement(v, {"scale_input_d": value})))
    verdicts = _judge(batches)
    bad = [k for k, (ok, _) in verdicts.items() if ok != k[2]]
    assert kinds == {False: {"kind::f16", "kind::tf32"}, True: {"kind::i8", "kind::ti16"}}
    assert len(verdicts) > 100 and not bad, bad[:10]


def test_alloc_column_counts(spec):
    """nCols as a constant: powers of two from 32 to 512; with .exclusive any multiple of 32 (what
    ptxas 13.5 checks; a register is not checked)."""
    batches = defaultdict(list)
    n = 0
    for v in _tcgen05(spec):
        if v.instruction != "tcgen05.alloc":
            continue
        legal = next(o.values for o in v.operands if o.name == "ncols")
        exclusive = bool(v.qualifiers.get("exclusive"))
        assert legal == (None if exclusive else (32, 64, 128, 256, 512))
        for value in (0, 1, 16, 32, 33, 48, 64, 96, 128, 256, 384, 512, 1024, 4096):
            ok = value % 32 == 0 and value != 0 if exclusive else value in legal
            batches[_first_place(spec, v)].append(((v.id, value, ok), asm.statement(v, {"ncols": value})))
        n += 1
    verdicts = _judge(batches)
    bad = [k for k, (accepted, _) in verdicts.items() if accepted != k[2]]
    assert n == 8 and not bad, bad[:10]


# ----------------------------------------------------------------------------------------------
# The survey's record and a bounded rerun of its candidates


NAME_PARTS = {"mma", "ws", "sp", "ld", "st", "red", "spcompress", "alloc", "dealloc", "relinquish_alloc_permit",
              "commit", "cp", "shift", "wait", "fence"}


def _key(opcode: str) -> tuple:
    """An opcode up to qualifier order: the instruction's name parts in order (tcgen05.mma.ws.sp
    is not tcgen05.mma.sp.ws, nor tcgen05.wait::ld tcgen05.ld.wait), the other qualifiers as a
    sorted list (their order is free, except within a type pair, which the survey writes in
    ptxas's order)."""
    tokens = opcode.split(".")[1:]
    n = 0
    while n < len(tokens) and tokens[n].split("::")[0] in NAME_PARTS:
        n += 1
    return tuple(tokens[:n]), tuple(sorted(tokens[n:]))


#: The instructions whose `.b2` the survey looked for (erratum tcgen05-ld-b2). The other values of
#: the `b2` option, tokens ptxas accepts and ignores on every tcgen05 instruction (erratum
#: tcgen05-ignored-type-tokens), are not in the survey's record: tests/test_tcgen05_ignored.py has them.
SURVEYED_B2 = ("tcgen05.ld", "tcgen05.st", "tcgen05.ld.red")


def _spec_opcodes(spec, surveyed: bool = False):
    """{_key(opcode): [(variant, options, requirement)]} of every tcgen05 opcode (`surveyed`: only
    those the survey looks for)."""
    out = defaultdict(list)
    for v in _tcgen05(spec):
        for ptx, opts, req in v.opcodes():
            token = opts.get("b2", "")
            if surveyed and token and not (token == "b2" and v.instruction in SURVEYED_B2):
                continue
            out[_key(ptx)].append((v, opts, req))
    return out


def test_spec_matches_the_survey(spec):
    """Every opcode the survey found is a spec opcode with the same first PTX version on every
    target, and the other way round (ptxas-only opcodes included: the errata say why)."""
    data = json.loads(SURVEY.read_text())
    tmaps = data["target_maps"]
    ours = _spec_opcodes(spec, surveyed=True)
    theirs = {_key(o["opcode"]): o for o in data["opcodes"]}
    missing = sorted(str(k) for k in theirs if k not in ours)
    extra = sorted(str(k) for k in ours if k not in theirs)
    assert not missing, f"{len(missing)} survey opcodes not in the spec: {missing[:5]}"
    assert not extra, f"{len(extra)} spec opcodes the survey did not find: {extra[:5]}"
    wrong = []
    for key, o in theirs.items():
        for f, tm in o["forms"]:
            want = tmaps[tm] if isinstance(tm, str) else tm
            for v, _, req in ours[key]:
                got = {t: str(req.first_ptx(spec.targets[t])) for t in req.targets if spec.targets[t].ptxas}
                if got != want:
                    wrong.append((o["opcode"], v.form, got, want))
    # each spec variant of an opcode must agree with some survey form of it
    agreed = {(w[0], w[1]) for w in wrong}
    fine = set()
    for key, o in theirs.items():
        for v, _, req in ours[key]:
            got = {t: str(req.first_ptx(spec.targets[t])) for t in req.targets if spec.targets[t].ptxas}
            if any(got == (tmaps[tm] if isinstance(tm, str) else tm) for _, tm in o["forms"]):
                fine.add((o["opcode"], v.form))
    bad = sorted(agreed - fine)
    assert not bad, f"{len(bad)} spec variants disagree with the survey's targets: {bad[:5]}"


@pytest.fixture(scope="module")
def survey_module():
    sys.path.insert(0, str(HERE.parent / "campaigns" / "survey"))
    import survey_tcgen05 as S
    S.W.JOBS = 2
    return S


def _sample(S, spec_keys, per_family=700, seed=5):
    """The survey's screening candidates of every family (first principles), plus each non-base
    qualifier varied around the candidates the spec knows: all that the spec has in a seeded
    sample of `per_family`, and as many of the rest."""
    rng = random.Random(seed)
    out = []
    for f in S.FAMILIES.values():
        cands = set(f.screen())
        known = [c for c in cands if _key(c.opcode) in spec_keys]
        for c in known:
            for s, vals in f.slots:
                if s not in f.base:
                    cands.update(c.with_(**{s: v}) for v in vals)
        cands = sorted(cands, key=lambda c: c.q)
        yes = [c for c in cands if _key(c.opcode) in spec_keys]
        no = [c for c in cands if c not in set(yes)]
        out += rng.sample(yes, min(len(yes), per_family)) + rng.sample(no, min(len(no), per_family))
    return out


def test_near_misses_first_principles(spec, survey_module):
    S = survey_module
    ours = _spec_opcodes(spec)
    S.screen_tokens()  # qualifier values that are syntax errors: rejected without assembling
    cands = _sample(S, ours)
    targets = ("sm_100a", "sm_103a", "sm_107a", "sm_110a")
    lines, keys = defaultdict(list), defaultdict(list)
    fatal = 0
    for c in cands:
        key = _key(c.opcode)
        entries = ours.get(key, [])
        if S.fatal_of(c):
            assert not entries, f"{c.opcode}: the spec has it, but ptxas cannot parse it"
            fatal += 1
            continue
        for t in targets:
            if entries:
                for v, opts, req in entries:
                    want = req.valid(spec.targets[t], LATEST)
                    lines[t].append(_line(v, c.opcode))
                    keys[t].append((c.opcode, v.form, want))
            else:
                for ops in c.fmly.natural(c):
                    lines[t].append(S.stmt(c, ops))
                    keys[t].append((c.opcode, "(survey operands)", False))
    res = S.W.judge_multi([(lines[t], str(LATEST), t) for t in targets])
    bad, checked = [], 0
    for t, (errs, _) in zip(targets, res):
        for (op, form, want), e in zip(keys[t], errs):
            checked += 1
            if (not e) != want:
                bad.append((t, op, form, want, e[:1]))
    assert checked > 5000 and fatal > 0
    assert not bad, f"{len(bad)} of {checked} judged otherwise than the spec says: {bad[:8]}"
