"""The wgmma family's checks of ptxas (tests/ptxas_facts.py says what a check is), beyond every
family's versions check: immediate values and counts, scale-d literals, qualifier orders, .aligned
and .sync, the warpgroup synchronisation instructions, and a near-miss candidate space built
without the spec (tests/ptxas_candidates.py).
"""
from __future__ import annotations

import itertools
from collections import defaultdict

import ptxas_candidates as cand
from ptxas_facts import Case, Check, Found, assemble_many, digest
from ptxspec.model.ptx_text import operand_text, statement

LATEST = "9.5"
HOME = "sm_90a"  # every wgmma variant's target


def checks() -> list[Check]:
    at = f"at PTX {LATEST} on {HOME}"
    return [
        Check("wgmma-immediates", f"Every legal combination of each wgmma.mma_async variant's immediates and selectors "
              f"assembles, each illegal value (and a register in their place) does not, {at}.",
              "test_ptxas_wgmma.py::test_immediate_values", "cases", _immediates),
        Check("wgmma-scale-d", f"scale-d takes the literals 0 and 1 as well as a predicate, and no other literal, {at}.",
              "test_ptxas_wgmma.py::test_scale_d_literal", "cases", _scale_d),
        Check("wgmma-immediate-counts", f"Each wgmma.mma_async variant with 0 to 5 trailing immediates: exactly its "
              f"signature's number assembles, {at}.", "test_ptxas_wgmma.py::test_immediate_counts", "cases", _counts),
        Check("wgmma-qualifier-order", f".satfinite anywhere among the qualifiers, and every order of the non-type "
              f"qualifiers, assemble (erratum wgmma-satfinite-position), {at}.",
              "test_ptxas_wgmma.py::test_qualifier_order", "cases", _qualifier_order),
        Check("wgmma-aligned", f"Without .aligned every wgmma statement assembles, without .sync none does "
              f"(erratum wgmma-aligned-not-enforced), {at}.", "test_ptxas_wgmma.py::test_aligned_not_enforced",
              "cases", _aligned),
        Check("wgmma-sync", "wgmma.fence, commit_group and wait_group on sm_90a, sm_90, sm_89, sm_100a, sm_120a at "
              "PTX 7.8, 8.0 and 9.5, and wait_group's count operand.",
              "test_ptxas_wgmma.py::test_sync_instructions, test_wait_group_values", "cases", _sync),
        Check("wgmma-candidates", f"A near-miss candidate space of wgmma.mma_async built without the spec "
              f"(tests/ptxas_candidates.py, stages 1-4) {at}: the (opcode, form) pairs ptxas accepts, with their "
              "immediate counts, are exactly the spec's.", "test_ptxas_wgmma.py::test_candidate_space_*", "search",
              search=candidate_space, expect=_expect_candidates,
              params={"generator": "tests/ptxas_candidates.py", "version": LATEST, "target": HOME}),
    ]


def _mma(spec):
    return [v for v in spec.variants if v.family == "wgmma" and v.instruction.startswith("wgmma.mma_async")]


def render(v, overrides: dict[str, str] | None = None, count: int | None = None, opcode: str | None = None) -> str:
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


def _case(v, label, line, want, reason="") -> Case:
    return Case(v.id, label, LATEST, HOME, line, want, reason)


def _immediates(spec, facts) -> list[Case]:
    out = []
    for v in _mma(spec):
        choices = [(o.name, o.values) for o in v.operands if o.kind in ("immediate", "selector")]
        for combo in itertools.product(*(vals for _, vals in choices)):
            over = {name: str(x) for (name, _), x in zip(choices, combo)}
            out.append(_case(v, "legal " + " ".join(f"{k}={x}" for k, x in over.items()), render(v, over), True))
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
            out += [_case(v, f"illegal {o.name}={x}", render(v, {o.name: str(x)}), False) for x in sorted(bad)]
            if o.kind in ("immediate", "selector"):
                out.append(_case(v, f"illegal {o.name}=register", render(v, {o.name: "%r299"}), False))
    return out


def _scale_d(spec, facts) -> list[Case]:
    """scale-d is a predicate in the spec; ptxas also takes the literals 0 and 1 (and no other value),
    which the spec does not model: the check's own expectation."""
    return [_case(v, f"scale-d={x}", render(v, {"scale_d": x}), x in ("0", "1"))
            for v in _mma(spec) if v.n == 8 for x in ("0", "1", "2", "-1")]


def _counts(spec, facts) -> list[Case]:
    return [_case(v, f"{n} immediates", render(v, count=n), n == sum(o.kind == "immediate" for o in v.operands))
            for v in _mma(spec) for n in cand.IMM_COUNTS]


def _qualifier_spellings(v):
    """v.ptx with .satfinite moved to every position among the qualifiers."""
    head, *quals = v.ptx.split(".")
    quals.remove("satfinite")
    return [".".join([head] + quals[:i] + ["satfinite"] + quals[i:]) for i in range(1, len(quals) + 1)]


def _qualifier_order(spec, facts) -> list[Case]:
    mma = _mma(spec)
    sat = [v for v in mma if v.satfinite]
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
    base = next(x for x in sat if x.ptx == "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8"
                and x.form == "desc")
    for spelling in ("m64n8k32.s32.s8.s8.satfinite", "m64n8k32.satfinite.s32.s8.s8", "satfinite.m64n8k32.s32.s8.s8"):
        cases.append((base, "wgmma.mma_async.sync.aligned." + spelling))
    return [_case(v, op, render(v, opcode=op), True) for v, op in cases]


def _aligned(spec, facts) -> list[Case]:
    out = []
    for v in (v for v in spec.variants if v.family == "wgmma"):
        assert ".sync.aligned" in v.ptx, v.id
        out += [_case(v, "without .aligned", render(v, opcode=v.ptx.replace(".sync.aligned", ".sync")), True),
                _case(v, "without .sync", render(v, opcode=v.ptx.replace(".sync.aligned", ".aligned")), False,
                      ".sync modifier required"),
                _case(v, "without either", render(v, opcode=v.ptx.replace(".sync.aligned", "")), False,
                      ".sync modifier required")]
    s4 = "{%s0, %s1, %s2, %s3}, %rd0, %rd1, %p0;"  # the erratum's own examples
    erratum = "erratum wgmma-aligned-not-enforced"
    known = "wgmma-aligned-not-enforced" in {e.id for e in spec.errata}
    return out + [Case(erratum, "example without .aligned", LATEST, HOME,
                       f"wgmma.mma_async.sync.m64n8k32.s32.s8.s8 {s4}", known),
                  Case(erratum, "example without .sync", LATEST, HOME,
                       f"wgmma.mma_async.aligned.m64n8k32.s32.s8.s8 {s4}", False, ".sync modifier required")]


SYNC_INSTRUCTIONS = ("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group")
SYNC_PLACES = (("8.0", "sm_90a"), (LATEST, "sm_90a"), ("7.8", "sm_90a"), ("7.8", "sm_90"), ("8.0", "sm_90"),
               (LATEST, "sm_90"), (LATEST, "sm_100a"), (LATEST, "sm_120a"), (LATEST, "sm_89"))


def _sync(spec, facts) -> list[Case]:
    vs = [v for v in spec.variants if v.instruction in SYNC_INSTRUCTIONS]
    assert {v.instruction for v in vs} == set(SYNC_INSTRUCTIONS)
    out = [Case(v.id, "", ver, t, statement(v), v.valid(t, ver)) for ver, t in SYNC_PLACES for v in vs]
    w = spec.variant("wgmma.wait_group.sync.aligned")
    (n,) = w.operands
    assert n.kind == "immediate" and n.values is None
    legal = [n.min_value, n.min_value + 1, 7, 8, 100000]
    out += [Case(w.id, f"n={x}", "8.0", HOME, render(w, {"n": str(x)}), True) for x in legal]
    out += [Case(w.id, f"n={x}", "8.0", HOME, render(w, {"n": x}), False)
            for x in (str(n.min_value - 1), "%r0", "%rd0")]
    return out


# ---------------------------------------------------------------------------------------------
# The near-miss candidate space


def candidate_space() -> Found:
    """Stages 1-4 of tests/ptxas_candidates.py at LATEST on HOME."""
    accepted: dict[tuple[str, str], set[int]] = defaultdict(set)
    tried: set = set()
    stages: dict[str, int] = {}
    statements: list[str] = []

    def stage(name, cands, counts=cand.IMM_COUNTS):
        tried.update(c.key for c in cands)
        stmts = cand.lines(cands, counts)
        stages[name] = len(stmts)
        statements.extend(s for _, _, s in stmts)
        ok = assemble_many([s for _, _, s in stmts], LATEST, HOME, prelude=(cand.DECLARATIONS,))
        out = []
        for (c, n, _), good in zip(stmts, ok):
            if good:
                accepted[c.key].add(n)
                out.append(c)
        return out

    hits = stage("type screen", cand.screen())
    hits = stage("shape sweep", cand.sweep({c.combo for c in hits}))
    ks = defaultdict(set)
    for c in hits:
        ks[c.combo].add(c.k)
    stage("other M", cand.other_m({c.combo for c in hits}, ks))
    stage("every N for every type", cand.full_sweep(), cand.SWEEP_IMM_COUNTS)
    params = {"generator": "tests/ptxas_candidates.py", "version": LATEST, "target": HOME, "stages": stages,
              "types": list(cand.TYPES), "dtypes": list(cand.DTYPES), "ns": list(cand.NS), "ks": list(cand.KS),
              "other_ms": list(cand.OTHER_MS), "immediate_counts": list(cand.IMM_COUNTS)}
    return Found(params, len(tried), len(statements), digest("\n".join(statements), 16),
                 {f"{op}:{form}": "immediates " + ",".join(map(str, sorted(n))) for (op, form), n in accepted.items()})


def _expect_candidates(spec, doc) -> list[str]:
    db = {v.id: sum(o.kind == "immediate" for o in v.operands) for v in _mma(spec)}
    found = doc["found"]
    missing, extra = sorted(set(db) - set(found)), sorted(set(found) - set(db))
    out = [f"{k}: in the spec, but ptxas {doc['ptxas']} accepted no arrangement of it at PTX {LATEST} on {HOME}"
           for k in missing]
    out += [f"{k}: ptxas {doc['ptxas']} accepted it ({found[k]}) at PTX {LATEST} on {HOME}, the spec lacks it"
            for k in extra]
    out += [f"{k}: ptxas {doc['ptxas']} accepted {found[k]} at PTX {LATEST} on {HOME}, the signature has {n}"
            for k, n in db.items() if k in found and found[k] != f"immediates {n}"]
    return out

