"""ptxas 13.5 against every variant of every family of the spec.

For each variant and each target of its set that ptxas knows: the statement assembles at the
variant's first PTX version there, and is rejected one version earlier and on every ptxas-known
target outside its set (at PTX 9.5 and at that target's own first version). Parametrized over
the spec's families, so a new family is checked without a change here; wgmma also has a deeper
suite of its own (tests/test_ptxas_wgmma.py: near misses, immediates).
"""
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
from ptxspec.model import ptx_text as asm
from ptxspec.model.isa import Version
from ptxspec.oracle import ptxas

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")
LATEST = Version(9, 5)


@pytest.fixture(scope="module")
def variants(spec):
    """Every variant of every family (each family must have some)."""
    empty = sorted(f for f in spec.families if not any(v.family == f for v in spec.variants))
    assert not empty, f"families without variants: {empty}"
    return list(spec.variants)


def _run_batches(batches):
    """batches: {(version, target): [(key, line)]} -> {key: accepted}"""
    def one(item):
        (version, target), entries = item
        ok, res = ptxas.judge([line for _, line in entries], str(version), target)
        return [(key, accepted, res) for (key, _), accepted in zip(entries, ok)]
    out = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for results in pool.map(one, sorted(batches.items(), key=lambda kv: (str(kv[0][0]), kv[0][1]))):
            for key, accepted, res in results:
                out[key] = (accepted, res)
    return out


@pytest.fixture(scope="module")
def verdicts(spec, variants):
    batches = defaultdict(list)
    known = [t for t in spec.targets.values() if t.ptxas]
    for v in variants:
        line = asm.statement(v)
        for t in known:
            first = v.requirement.first_ptx(t)
            if first is not None:
                batches[(first, t.name)].append((("first", v.id, t.name), line))
                prev = spec.previous_version(first)
                if prev is not None and prev in spec.ptxas_versions:
                    batches[(prev, t.name)].append((("earlier", v.id, t.name), line))
                until = v.requirement.until(t)
                if until is not None:  # removed from the ISA: rejected from that version on
                    batches[(until, t.name)].append((("removed", v.id, t.name), line))
            else:
                batches[(LATEST, t.name)].append((("off", v.id, t.name, LATEST), line))
                batches[(t.ptx, t.name)].append((("off", v.id, t.name, t.ptx), line))
    return _run_batches(batches)


# Where ptxas accepts what the manual calls undefined; each is an erratum in spec/errata/.
SELECTORS_ACCEPTED_BEYOND_MANUAL = {
    ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 2), ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 3),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 2),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 3),
}


def test_selectors(spec, variants):
    """Every listed selector assembles; others are rejected, except the accepted-but-undefined
    ones the errata record."""
    sparse = [v for v in variants if v.sparsity is not None]
    batches = defaultdict(list)  # each variant on the first ptxas-known target of its set, at PTX 9.5
    for v in sparse:
        target = next(t for t in v.targets if spec.targets[t].ptxas)
        name = next(o.name for o in v.operands if o.kind == "selector")
        batches[(LATEST, target)] += [((v, sel), asm.statement(v, {name: sel})) for sel in range(4)]
    verdicts = _run_batches(batches)
    cases = [key for key in verdicts]
    ok = [verdicts[key][0] for key in cases]
    wrong = [(v.ptx, sel, accepted) for (v, sel), accepted in zip(cases, ok)
             if accepted != (sel in v.selectors) and (v.ptx, sel) not in SELECTORS_ACCEPTED_BEYOND_MANUAL]
    assert sparse and not wrong, wrong[:20]
    noted = {(v.ptx, sel) for (v, sel), accepted in zip(cases, ok) if accepted and sel not in v.selectors}
    assert noted == SELECTORS_ACCEPTED_BEYOND_MANUAL
    assert "mma-sp-selector-not-enforced" in {e.id for e in spec.errata}


def _failures(verdicts, kind, want):
    bad = [(key, res.errors) for key, (accepted, res) in verdicts.items() if key[0] == kind and accepted != want]
    return bad


def test_assembles_at_first_version_on_every_target(verdicts):
    bad = _failures(verdicts, "first", True)
    checked = sum(1 for k in verdicts if k[0] == "first")
    assert checked and not bad, f"{len(bad)} of {checked} rejected, e.g. {bad[:10]}"


def test_rejected_one_version_earlier(verdicts):
    bad = _failures(verdicts, "earlier", False)
    checked = sum(1 for k in verdicts if k[0] == "earlier")
    assert checked and not bad, f"{len(bad)} of {checked} accepted a version early: {[b[0] for b in bad[:20]]}"


def test_rejected_off_target(verdicts):
    bad = _failures(verdicts, "off", False)
    checked = sum(1 for k in verdicts if k[0] == "off")
    assert not bad, f"{len(bad)} of {checked} accepted outside their targets: {[b[0] for b in bad[:20]]}"


def test_scale_selectors(spec, variants):
    """Block scaling: every legal {byte-id, thread-id} of each scale selector assembles, and every
    other value in 0..4 is rejected (on the variant's first target, at PTX 9.5)."""
    batches = defaultdict(list)
    for v in variants:
        selectors = [o for o in v.operands if o.kind == "scale_selector"]
        target = next(t for t in v.targets if spec.targets[t].ptxas)
        for o in selectors:
            for part, legal in o.parts:
                for value in range(5):
                    key = (v.ptx, o.name, part, value, value in legal)
                    batches[(LATEST, target)].append((key, asm.statement(v, {f"{o.name}.{part}": value})))
    verdicts = _run_batches(batches)
    assert len(verdicts) >= 100, "no block-scaled variants under test"
    wrong = [key for key, (accepted, _) in verdicts.items() if accepted != key[-1]]
    assert not wrong, f"{len(wrong)} of {len(verdicts)} selector values judged otherwise than the spec says: {wrong[:10]}"


def test_rejected_from_the_version_that_removed_it(verdicts):
    """Variants removed from the ISA (`until`, e.g. .satfinite on .f16 wmma.mma at PTX 6.5) are
    rejected from that version on, on every target that accepted them before."""
    bad = _failures(verdicts, "removed", False)
    checked = sum(1 for k in verdicts if k[0] == "removed")
    assert checked >= 48 and not bad, f"{len(bad)} of {checked} still accepted: {[b[0] for b in bad[:20]]}"


def test_fence_proxy_async_spaces(spec):
    """fence.proxy.async: ptxas accepts exactly the state spaces the spec lists (and none)."""
    fences = [v for v in spec.variants if v.instruction == "fence.proxy.async"]
    listed = {v.qualifiers.get("space", "") for v in fences}
    candidates = ["", "shared", "shared::cta", "shared::cluster", "global", "local", "param", "const", "generic"]
    lines = [f"fence.proxy.async{'.' + s if s else ''};" for s in candidates]
    ok, res = ptxas.judge(lines, "8.0", "sm_90")
    assert {s for s, accepted in zip(candidates, ok) if accepted} == listed, res.errors
