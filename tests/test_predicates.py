"""The compiled tests of ptxspec.model.predicates (what `matches` and the numerics rules use) give
what `holds`, the plain reading of a test, gives: on every kind of test (a value, a list, `not`,
bounds and both) and every kind of value a field takes (text, numbers, booleans, None)."""
from __future__ import annotations

import itertools

from ptxspec.model import predicates as P
from ptxspec.model.predicates import holds, matches

TESTS = ["f16", 64, True, False, ["f16", "bf16"], [64, 128], [True], {"not": "f16"}, {"not": ["a", "b"]},
         {"ge": 64}, {"gt": 64, "le": 256}, {"lt": 8}, {"not": [64], "ge": 8}, {}, ["true"], "64", "True"]
VALUES = ["f16", "bf16", "", "a", 64, 8, 256, 257, 0, -1, True, False, "true", "64", "False", 64.0]


def test_a_compiled_test_passes_what_holds_passes():
    for test, value in itertools.product(TESTS, VALUES):
        assert P._Test(test).passes(value) == holds(test, value), (test, value)


def test_matches_reads_every_field_and_refuses_a_missing_or_none_one():
    when = {"atype": ["e4m3", "e5m2"], "n": {"ge": 64}, "satfinite": True}
    assert matches(when, {"atype": "e4m3", "n": 128, "satfinite": True})
    assert not matches(when, {"atype": "e4m3", "n": 32, "satfinite": True})
    assert not matches(when, {"atype": "e4m3", "n": 128})
    assert not matches(when, {"atype": "e4m3", "n": None, "satfinite": True})
    for fields in itertools.product(VALUES, repeat=2):
        w = {"a": TESTS[len(fields[0]) % len(TESTS) if isinstance(fields[0], str) else 4], "b": {"ge": 8}}
        want = all(k in dict(zip("ab", fields)) and holds(t, dict(zip("ab", fields))[k]) for k, t in w.items())
        assert matches(w, dict(zip("ab", fields))) == want, (w, fields)


def test_each_mapping_is_judged_by_its_own_tests():
    for n in range(300):  # mappings made and dropped, one after another
        when = {"n": n}
        assert matches(when, {"n": n}) and not matches(when, {"n": n + 1})
