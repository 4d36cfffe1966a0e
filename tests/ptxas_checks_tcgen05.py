"""The tcgen05 family's checks of ptxas (tests/ptxas_facts.py says what a check is), beyond every
family's versions check: the option qualifiers at their versions and targets, optional operands,
the lane mask's length, scale-input-d and nCols values, the tokens ptxas accepts and ignores, and
near misses from the first-principles survey's candidate generator (campaigns/survey/
survey_tcgen05.py, which never reads the spec), sampled around what the spec has.
"""
from __future__ import annotations

import importlib
import random
import sys
from collections import defaultdict
from pathlib import Path

from ptxas_facts import Case, Check
from ptxspec.model import ptx_text as asm
from ptxspec.model.isa import Version

LATEST = Version(9, 5)
SURVEY_DIR = Path(__file__).resolve().parents[1] / "campaigns" / "survey"
SAMPLE_TARGETS = ("sm_100a", "sm_103a", "sm_107a", "sm_110a")
TOKENS = ("b2", "b8x16", "b4x16_p64", "b6x16_p32")


def checks() -> list[Check]:
    return [
        Check("tcgen05-options", "Every option value (collector hints, .b2, ...) of every tcgen05 variant: assembles "
              "at its first PTX version on each of the variant's targets, not one version earlier, not on the "
              "targets the option lacks.", "test_ptxas_tcgen05.py::test_options_first_version_earlier_and_off_target",
              "cases", _options, sanity=_options_sanity),
        Check("tcgen05-optional-operands", "Every tcgen05 variant with optional operands (the disable-output-lane "
              "mask) assembles without them, at its first version on its first target.",
              "test_ptxas_tcgen05.py::test_optional_operands_may_be_left_out", "cases", _optional,
              sanity=lambda cases, ok: [] if len(cases) > 100 else [f"only {len(cases)} cases"]),
        Check("tcgen05-lane-mask", "disable-output-lane with 2, 4, 8 and 16 registers: only the CTA group's length "
              "(4 with .cta_group::1, 8 with ::2) assembles.", "test_ptxas_tcgen05.py::test_lane_mask_length_is_the_cta_groups",
              "cases", _lane_mask, sanity=lambda cases, ok: [] if len(cases) >= 400 else [f"only {len(cases)} cases"]),
        Check("tcgen05-scale-input-d", "scale-input-d from -1 to 255: 0-15 with kind::f16 and kind::tf32, any constant "
              "with the integer kinds.", "test_ptxas_tcgen05.py::test_scale_input_d_immediates", "cases",
              _scale_input_d, sanity=lambda cases, ok: [] if len(cases) > 100 else [f"only {len(cases)} cases"]),
        Check("tcgen05-alloc", "tcgen05.alloc's nCols as a constant from 0 to 4096: the powers of two 32-512, any "
              "multiple of 32 with .exclusive.", "test_ptxas_tcgen05.py::test_alloc_column_counts", "cases", _alloc),
        Check("tcgen05-tokens", "The four tokens ptxas accepts and ignores (.b2, .b8x16, .b4x16_p64, .b6x16_p32; erratum "
              "tcgen05-ignored-type-tokens) appended to every tcgen05 variant on sm_100a, sm_103a, sm_107a, sm_110a at "
              "PTX 9.5: accepted exactly where the spec lists them as the variant's option.",
              "test_tcgen05_ignored.py::test_ptxas_accepts_exactly_the_listed_tokens", "cases", _tokens,
              sanity=_tokens_sanity),
        Check("tcgen05-near-misses", "A seeded sample of the survey's first-principles candidates (every kind, "
              "cta_group, shape, .num, type, qualifier and misspelling), 700 the spec has and 700 it lacks per "
              "instruction family, on sm_100a, sm_103a, sm_107a, sm_110a at PTX 9.5: ptxas accepts exactly the "
              "spec's; the qualifier values ptxas cannot parse are recorded as facts.",
              "test_ptxas_tcgen05.py::test_near_misses_first_principles", "cases", _near_misses,
              facts=unparsable_tokens, params={"per_family": 700, "seed": 5, "targets": list(SAMPLE_TARGETS)},
              sanity=lambda cases, ok: [] if len(cases) > 5000 else [f"only {len(cases)} near misses"]),
    ]


def _tcgen05(spec):
    return [v for v in spec.variants if v.family == "tcgen05"]


def _line(v, opcode, **kw):
    return opcode + asm.statement(v, **kw)[len(v.ptx):]


def _options(spec, facts) -> list[Case]:
    out = []
    known = [t for t in spec.targets.values() if t.ptxas]
    for v in _tcgen05(spec):
        for axis, values in v.options.items():
            for value, req in values:
                if not value:
                    continue
                both = req.intersect(v.requirement)
                line = _line(v, v.opcode(**{axis: value}))
                for t in known:
                    if t.name not in v.requirement.targets:
                        continue  # the base opcode is rejected there already (versions-tcgen05)
                    first = both.first_ptx(t)
                    if first is None:
                        out.append(Case(v.id, f".{value} off target", str(LATEST), t.name, line, False))
                        continue
                    out.append(Case(v.id, f".{value} first version", str(first), t.name, line, True))
                    prev = spec.previous_version(first)
                    if prev is not None and prev in spec.ptxas_versions and prev >= t.ptx:
                        out.append(Case(v.id, f".{value} one version earlier", str(prev), t.name, line, False))
    return out


def _options_sanity(cases, ok) -> list[str]:
    off = sum("off target" in c.label for c in cases)
    earlier = sum("earlier" in c.label for c in cases)
    values = len({(c.subject, c.label.split()[0]) for c in cases})
    return [] if off > 100 and earlier > 100 and values > 1500 else [f"too few option checks: {values} values, "
                                                                      f"{earlier} earlier, {off} off target"]


def _first_place(spec, v):
    for t in v.targets:
        if spec.targets[t].ptxas:
            return str(v.requirement.first_ptx(spec.targets[t])), t
    raise AssertionError(f"{v.id}: no target ptxas knows")


def _optional(spec, facts) -> list[Case]:
    return [Case(v.id, "without optional operands", *_first_place(spec, v), asm.statement(v, optional=False), True)
            for v in _tcgen05(spec) if any(o.optional for o in v.operands)]


def _with_vector(statement: str, length: int) -> str:
    """The statement with its one {...} operand replaced by `length` registers unused elsewhere."""
    assert statement.count("{") == 1, statement
    head, rest = statement.split("{")
    _, tail = rest.split("}")
    return head + "{" + ", ".join(f"%r{200 + j}" for j in range(length)) + "}" + tail


def _lane_mask(spec, facts) -> list[Case]:
    out = []
    for v in _tcgen05(spec):
        masks = [o for o in v.operands if o.kind == "lane_mask"]
        if masks:
            out += [Case(v.id, f"mask of {n}", *_first_place(spec, v), _with_vector(asm.statement(v), n),
                         n == masks[0].regs) for n in (2, 4, 8, 16)]
    return out


def _scale_input_d(spec, facts) -> list[Case]:
    out = []
    for v in _tcgen05(spec):
        sid = [o for o in v.operands if o.name == "scale_input_d"]
        if sid:
            # the manual's 0-15 (the spec's values); with an integer kind ptxas 13.5 takes any constant
            legal = sid[0].values
            anything = legal is None or v.qualifiers["kind"] in ("kind::i8", "kind::ti16")
            out += [Case(v.id, f"scale_input_d={x}", *_first_place(spec, v), asm.statement(v, {"scale_input_d": x}),
                         anything or x in legal) for x in (-1, 0, 1, 7, 15, 16, 31, 255)]
    return out


def _alloc(spec, facts) -> list[Case]:
    """nCols as a constant. The spec lists the legal values, or none with .exclusive, where ptxas 13.5
    checks only that the count is a non-zero multiple of 32 (the check's own expectation there)."""
    out = []
    for v in (v for v in _tcgen05(spec) if v.instruction == "tcgen05.alloc"):
        legal = next(o.values for o in v.operands if o.name == "ncols")
        for x in (0, 1, 16, 32, 33, 48, 64, 96, 128, 256, 384, 512, 1024, 4096):
            want = x in legal if legal is not None else (x % 32 == 0 and x != 0)
            out.append(Case(v.id, f"ncols={x}", *_first_place(spec, v), asm.statement(v, {"ncols": x}), want))
    return out


def _tokens(spec, facts) -> list[Case]:
    out = []
    for v in _tcgen05(spec):
        listed = {value for value, _ in v.options.get("b2", ()) if value}
        for t in SAMPLE_TARGETS:
            if v.requirement.valid(spec.targets[t], LATEST):
                out += [Case(v.id, f"with .{tok}", str(LATEST), t, v.ptx + "." + tok + asm.statement(v)[len(v.ptx):],
                             tok in listed) for tok in TOKENS]
    return out


def _tokens_sanity(cases, ok) -> list[str]:
    # the spec's own .b2 of tcgen05.ld/.st/.ld.red (erratum tcgen05-ld-b2) counted in: 1,096 spellings
    got = (sum(ok), len(ok) - sum(ok))
    return [] if got == (6896 + 1096, 504) else [f"(accepted, rejected) = {got}, expected {(6896 + 1096, 504)}"]


# ---------------------------------------------------------------------------------------------
# Near misses from the survey's generator


def survey():
    if str(SURVEY_DIR) not in sys.path:
        sys.path.insert(0, str(SURVEY_DIR))
    mod = importlib.import_module("survey_tcgen05")
    mod.W.JOBS = 2
    return mod


def unparsable_tokens() -> dict:
    """The qualifier values ptxas cannot parse (a syntax error stops a whole module): each tried alone
    in its family's first screening candidate (the survey's screen_tokens)."""
    S = survey()
    S.FATAL.clear()
    S.screen_tokens()
    return {"unparsable": sorted(" ".join(map(str, key)) for key in S.FATAL)}


NAME_PARTS = {"mma", "ws", "sp", "ld", "st", "red", "spcompress", "alloc", "dealloc", "relinquish_alloc_permit",
              "commit", "cp", "shift", "wait", "fence"}


def opcode_key(opcode: str) -> tuple:
    """An opcode up to qualifier order: the instruction's name parts in order, the other qualifiers
    as a sorted list (their order is free, except within a type pair, which the survey writes in
    ptxas's order)."""
    tokens = opcode.split(".")[1:]
    n = 0
    while n < len(tokens) and tokens[n].split("::")[0] in NAME_PARTS:
        n += 1
    return tuple(tokens[:n]), tuple(sorted(tokens[n:]))


def spec_opcodes(spec, surveyed: tuple[str, ...] | None = None):
    """{opcode_key: [(variant, options, requirement)]} of every tcgen05 opcode (`surveyed`: only those
    the survey looks for: a `b2` option token only as .b2 of the instructions listed)."""
    out = defaultdict(list)
    for v in _tcgen05(spec):
        for ptx, opts, req in v.opcodes():
            token = opts.get("b2", "")
            if surveyed is not None and token and not (token == "b2" and v.instruction in surveyed):
                continue
            out[opcode_key(ptx)].append((v, opts, req))
    return out


def _sample(S, spec_keys, per_family=700, seed=5):
    """The survey's screening candidates of every family, plus each non-base qualifier varied around
    the candidates the spec knows: all that the spec has in a seeded sample of `per_family`, and as
    many of the rest."""
    rng = random.Random(seed)
    out = []
    for f in S.FAMILIES.values():
        cands = set(f.screen())
        known = [c for c in cands if opcode_key(c.opcode) in spec_keys]
        for c in known:
            for s, vals in f.slots:
                if s not in f.base:
                    cands.update(c.with_(**{s: v}) for v in vals)
        cands = sorted(cands, key=lambda c: c.q)
        yes = [c for c in cands if opcode_key(c.opcode) in spec_keys]
        chosen = set(yes)
        no = [c for c in cands if c not in chosen]
        out += rng.sample(yes, min(len(yes), per_family)) + rng.sample(no, min(len(no), per_family))
    return out


def _near_misses(spec, facts) -> list[Case]:
    S = survey()
    assert facts.get("unparsable"), "no unparsable qualifier values recorded"
    S.FATAL.clear()
    S.FATAL.update({tuple(key.split(" ")): ["unparsable"] for key in facts["unparsable"]})
    ours = spec_opcodes(spec)
    per_target = defaultdict(list)
    for c in _sample(S, ours):
        entries = ours.get(opcode_key(c.opcode), [])
        if S.fatal_of(c):  # rejected without assembling; the spec must not have it
            per_target[SAMPLE_TARGETS[0]] += [Case(f"near misses on {SAMPLE_TARGETS[0]}", f"{c.opcode} ({v.form}), "
                                                   "unparsable", str(LATEST), SAMPLE_TARGETS[0], _line(v, c.opcode), True)
                                              for v, _, _ in entries]
            continue
        for t in SAMPLE_TARGETS:
            subject = f"near misses on {t}"
            if entries:
                per_target[t] += [Case(subject, f"{c.opcode} ({v.form})", str(LATEST), t, _line(v, c.opcode),
                                       req.valid(spec.targets[t], LATEST)) for v, _, req in entries]
            else:
                per_target[t] += [Case(subject, f"{c.opcode} (survey operands)", str(LATEST), t, S.stmt(c, ops), False)
                                  for ops in c.fmly.natural(c)]
    return [c for t in SAMPLE_TARGETS for c in per_target[t]]
