"""ptxas 13.5 against every variant of every family of the spec: what remains here needs no ptxas.

For each variant and each target of its set that ptxas knows, the statement assembles at the
variant's first PTX version there, is rejected one version earlier, from the version that removed
it, and on every ptxas-known target outside its set (at PTX 9.5 and at that target's own first
version): the recordings versions-<family> (one per family of the spec, so a new family is checked
with no change here), sparse-selectors, scale-selectors and fence-spaces (tests/ptxas_checks.py),
replayed in the quick tier (tests/test_ptxas_replay.py) and judged again by ptxas in the full tier
(tests/test_ptxas_live.py).
"""
import ptxas_checks


def test_every_family_has_variants_and_a_versions_check(spec):
    empty = sorted(f for f in spec.families if not any(v.family == f for v in spec.variants))
    assert not empty, f"families without variants: {empty}"
    names = {c.name for c in ptxas_checks.checks(spec)}
    assert {f"versions-{f}" for f in spec.families} <= names


def test_selectors_beyond_the_manual_are_errata(spec):
    """The selectors ptxas accepts beyond the manual (sparse-selectors expects them) are the erratum's."""
    assert "mma-sp-selector-not-enforced" in {e.id for e in spec.errata}
    ptx = {v.ptx for v in spec.variants}
    assert all(op in ptx for op, _ in ptxas_checks.SELECTORS_ACCEPTED_BEYOND_MANUAL)


def test_removed_variants_are_probed_where_removed(spec):
    """Variants removed from the ISA (`until`, e.g. .satfinite on .f16 wmma.mma at PTX 6.5): the
    versions checks probe each at that version, on every target that accepted it before."""
    removed = [(v, t) for v in spec.variants for t in spec.targets.values()
               if t.ptxas and v.requirement.until(t) is not None]
    assert len(removed) >= 48
    for family in {v.family for v, _ in removed}:
        probes = ptxas_checks.probes(spec, [v for v in spec.variants if v.family == family])
        assert all(v.requirement.until(t) in probes[t.name] for v, t in removed if v.family == family)
