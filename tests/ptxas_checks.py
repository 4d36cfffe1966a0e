"""The checks the test suite asks of ptxas (tests/ptxas_facts.py says what a check is), every family's:
each variant at its PTX versions on every target ptxas knows, the sparse and block-scale selectors,
fence.proxy.async's state spaces, ldmatrix's near misses, the lookup's qualifier orders. The family
suites' own checks are in tests/ptxas_checks_wgmma.py, _wmma.py and _tcgen05.py, the instructions'
introductions in _intro.py; `checks(spec)` lists them all, in the order they are recorded.
"""
from __future__ import annotations

import random
from collections import defaultdict

import ptxas_checks_intro
import ptxas_checks_tcgen05
import ptxas_checks_wgmma
import ptxas_checks_wmma
from ptxas_facts import Case, Check
from ptxspec.model import ptx_text as asm
from ptxspec.model.catalog import LookupFailed
from ptxspec.model.isa import Version

LATEST = Version(9, 5)


def checks(spec) -> list[Check]:
    """Every check: one `versions-<family>` per family of the spec (a new family is checked with no
    change here), then the others."""
    out = [versions(f) for f in sorted(spec.families)]
    out += [Check("sparse-selectors", "Every sparse variant's metadata selector 0-3 at PTX 9.5 on its first target: "
                  "the listed ones assemble, the others do not (bar the errata's).",
                  "test_ptxas_families.py::test_selectors", "cases", _selectors,
                  sanity=lambda cases, ok: [] if len(cases) > 100 else [f"only {len(cases)} selector cases"]),
            Check("scale-selectors", "Block scaling: every byte-id and thread-id 0-4 of each scale selector at PTX 9.5 "
                  "on the variant's first target: the legal ones assemble, the others do not.",
                  "test_ptxas_families.py::test_scale_selectors", "cases", _scale_selectors,
                  sanity=lambda cases, ok: [] if len(cases) >= 100 else ["no block-scaled variants under test"]),
            Check("fence-spaces", "fence.proxy.async with every state space (and none) at PTX 8.0 on sm_90: exactly "
                  "the spec's assemble.", "test_ptxas_families.py::test_fence_proxy_async_spaces", "cases", _fences),
            Check("ldmatrix-near-misses", "ldmatrix/stmatrix/movmatrix statements one step from a variant (a .num, "
                  ".trans, element type or state space off, one register more) at PTX 9.5 on sm_90a, sm_100a and "
                  "sm_120a: every one is rejected.", "test_ldmatrix.py::test_near_misses_are_rejected", "cases",
                  _ldmatrix_near_misses),
            Check("ldmatrix-x8", "ldmatrix .x8 with one register, which ptxas lets through (erratum "
                  "ldmatrix-x8-x16-pass-ptxas).", "test_ldmatrix.py::test_x8_is_a_ptxas_defect_not_a_form", "cases",
                  _ldmatrix_x8),
            Check("spellings", "One variant per group, 24 orders of its qualifiers, where the variant is valid: ptxas "
                  "accepts a spelling exactly when the lookup finds a variant valid there.",
                  "test_lookup.py::test_every_spelling_ptxas_accepts_is_found_and_no_other", "cases", _spellings,
                  params={"seed": 11, "per_variant": 24}, sanity=_spellings_sanity)]
    return (out + ptxas_checks_wgmma.checks() + ptxas_checks_wmma.checks() + ptxas_checks_tcgen05.checks()
            + ptxas_checks_intro.checks())


# ---------------------------------------------------------------------------------------------
# Every variant at its PTX versions on every target


def versions(family: str) -> Check:
    return Check(f"versions-{family}", f"Every {family} variant's statement on every target ptxas knows, at each "
                 "version some variant of the family needs there (its first PTX version, the one before, the one "
                 "that removed it; off its targets, PTX 9.5 and the target's first version): it assembles exactly "
                 "where the spec says it is valid.",
                 "test_ptxas_families.py (first version, one earlier, removed, off target); test_ptxas_wgmma.py "
                 "(version batches)", "versions", lambda spec, facts: _version_cases(spec, family))


def probes(spec, variants) -> dict[str, set[Version]]:
    """Target -> the PTX versions the family's variants need probed there."""
    out: dict[str, set[Version]] = defaultdict(set)
    for v in variants:
        for t in (t for t in spec.targets.values() if t.ptxas):
            first = v.requirement.first_ptx(t)
            if first is None:
                out[t.name] |= {LATEST, t.ptx}
                continue
            out[t.name].add(first)
            prev = spec.previous_version(first)
            if prev is not None and prev in spec.ptxas_versions:
                out[t.name].add(prev)
            until = v.requirement.until(t)
            if until is not None:
                out[t.name].add(until)
    return out


def _version_cases(spec, family: str) -> list[Case]:
    vs = [v for v in spec.variants if v.family == family]
    where = probes(spec, vs)
    out = []
    for v in vs:
        line = asm.statement(v)
        for t in sorted(where, key=spec.target_order):
            target = spec.targets[t]
            for ver in sorted(where[t]):
                out.append(Case(v.id, "", str(ver), t, line, v.requirement.valid(target, ver),
                                reason="does not support .target" if ver < target.ptx else ""))
    return out


# ---------------------------------------------------------------------------------------------
# Selectors, fences


#: where ptxas accepts what the manual calls undefined (erratum mma-sp-selector-not-enforced)
SELECTORS_ACCEPTED_BEYOND_MANUAL = {
    ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 2), ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 3),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 2),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 3),
}


def first_target(spec, v) -> str:
    return next(t for t in v.targets if spec.targets[t].ptxas)


def _selectors(spec, facts) -> list[Case]:
    out = []
    for v in spec.variants:
        if v.sparsity is None:
            continue
        name = next(o.name for o in v.operands if o.kind == "selector")
        out += [Case(v.id, f"{name}={sel}", str(LATEST), first_target(spec, v), asm.statement(v, {name: sel}),
                     sel in v.selectors or (v.ptx, sel) in SELECTORS_ACCEPTED_BEYOND_MANUAL) for sel in range(4)]
    return out


def _scale_selectors(spec, facts) -> list[Case]:
    out = []
    for v in spec.variants:
        for o in (o for o in v.operands if o.kind == "scale_selector"):
            for part, legal in o.parts:
                out += [Case(v.id, f"{o.name}.{part}={value}", str(LATEST), first_target(spec, v),
                             asm.statement(v, {f"{o.name}.{part}": value}), value in legal) for value in range(5)]
    return out


FENCE_SPACES = ("", "shared", "shared::cta", "shared::cluster", "global", "local", "param", "const", "generic")


def _fences(spec, facts) -> list[Case]:
    listed = {v.qualifiers.get("space", "") for v in spec.variants if v.instruction == "fence.proxy.async"}
    return [Case("fence.proxy.async", f"space {s or '(none)'}", "8.0", "sm_90",
                 f"fence.proxy.async{'.' + s if s else ''};", s in listed) for s in FENCE_SPACES]


# ---------------------------------------------------------------------------------------------
# ldmatrix


TYPE_STEPS = (("b16", "b8"), ("b16", "b32"), ("b8", "b16"), ("b8", "b4"), ("b6x16_p32", "b6x16_p64"),
              ("b4x16_p64", "b4x16_p32"))


def ldmatrix_near_misses(family) -> list[str]:
    """Statements one step from real variants: a matrix count the shape does not have, .trans
    left out where required or added where forbidden, an element type one step off, a state space
    ldmatrix cannot use, one register too many."""
    out = set()
    for v in family:
        line, op = asm.statement(v), v.ptx
        if v.instruction == "movmatrix":
            out |= {line.replace(".trans", ""), line.replace(".b16", ".b8"), f"{op} {{%r0}}, {{%r1}};"}
            continue
        num = v.qualifiers["num"]
        out.add(line.replace(f".{num}.", ".x4." if v.m == 16 and v.n == 16 else ".x3.", 1))
        if v.qualifiers.get("trans") and v.m == 16:
            out.add(line.replace(".trans", "", 1))  # required for .m16n16 and stmatrix .m16n8
        if v.m == 8 and v.n == 16:
            out.add(line.replace(f".{num}.", f".{num}.trans.", 1))  # not allowed for .m8n16
        for t, off in TYPE_STEPS:
            if op.endswith("." + t):
                out.add(line.replace(f".{t} ", f".{off} ", 1))
        space = v.qualifiers.get("space")
        for bad in ("global", "shared::cluster", "local"):
            out.add(line.replace(f".{space}.", f".{bad}.", 1) if space else
                    line.replace(f".{op.split('.')[-1]} ", f".{bad}.{op.split('.')[-1]} ", 1))
        regs = ", ".join(f"%r{i}" for i in range(v.regs["r"] + 1))
        out.add(f"{op} {{{regs}}}, [%rd0];" if v.instruction == "ldmatrix" else f"{op} [%rd0], {{{regs}}};")
    return sorted(out)


def _ldmatrix_near_misses(spec, facts) -> list[Case]:
    lines = ldmatrix_near_misses([v for v in spec.variants if v.family == "ldmatrix"])
    assert len(lines) > 150, len(lines)
    return [Case(f"ldmatrix near misses on {t}", "", str(LATEST), t, line, False)
            for t in ("sm_90a", "sm_100a", "sm_120a") for line in lines]


def _ldmatrix_x8(spec, facts) -> list[Case]:
    erratum = "ldmatrix-x8-x16-pass-ptxas"
    return [Case(f"erratum {erratum}", ".x8 with one register", str(LATEST), "sm_90a",
                 "ldmatrix.sync.aligned.m8n8.x8.shared.b16 {%r0}, [%rd0];", erratum in {e.id for e in spec.errata})]


# ---------------------------------------------------------------------------------------------
# The lookup's qualifier orders


def _where_valid(spec, v):
    for t in v.targets:
        if not spec.targets[t].ptxas:
            continue
        for ver in spec.ptx_versions:
            if ver in spec.ptxas_versions and v.requirement.valid(spec.targets[t], ver):
                return t, ver
    return None


def _orders(v, rng, count):
    """The spec's spelling with its qualifiers (every token after the root) reordered."""
    root, *quals = v.ptx.split(".")
    out = set()
    for _ in range(count * 4):
        p = quals[:]
        if rng.random() < 0.5:  # a small move (one token elsewhere), or a shuffle
            x = p.pop(rng.randrange(len(p)))
            p.insert(rng.randrange(len(p) + 1), x)
        else:
            rng.shuffle(p)
        out.add(".".join([root] + p))
        if len(out) >= count:
            break
    return sorted(out)


def found_valid(spec, spelling: str, form: str | None, target: str, version: Version) -> bool:
    """Whether the lookup finds a variant for `spelling` that is valid at `version` on `target`."""
    try:
        found = spec.variant(spelling, form)
    except LookupFailed:
        return False
    return found.requirement.valid(spec.targets[target], version)


def _spellings(spec, facts) -> list[Case]:
    rng = random.Random(11)
    seen, out = set(), []
    for v in spec.variants:
        if (v.instruction, v.group) in seen:
            continue
        seen.add((v.instruction, v.group))
        place = _where_valid(spec, v)
        if place is None:
            continue
        target, version = place
        operands = asm.statement(v)[len(v.ptx):]
        out += [Case(v.id, sp, str(version), target, sp + operands,
                     found_valid(spec, sp, v.form or None, target, version)) for sp in _orders(v, rng, 24)]
    return out


def _spellings_sanity(cases, ok) -> list[str]:
    yes = sum(ok)
    return [] if yes > 300 and len(ok) - yes > 300 else [f"too few spellings on one side: {yes} accepted, "
                                                         f"{len(ok) - yes} rejected"]
