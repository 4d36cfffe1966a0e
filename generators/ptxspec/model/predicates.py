"""Predicates over a variant's fields: what a `when` says, wherever the spec selects variants (the
refinements of a requirement, the rules that exclude combinations or set an option list, an operand
that only some variants take, the arithmetic rules of numerics.yaml).

A `when` is a mapping of fields to tests, and a variant matches when every test holds for its field:

    kind: "kind::i8"                       the field is this value
    kind: ["kind::i8", "kind::ti16"]       ... one of these
    form: {not: [desc, desc_scaled]}       ... none of these (a value or a list)
    n: {ge: 64, le: 256}                   ... a number within these bounds (ge, gt, le, lt)

A field the variant does not have matches no test. Values compare as text, so that `satfinite:
true` and `n: 64` written in YAML match the variant's own values.
"""
from __future__ import annotations

from collections.abc import Mapping

BOUNDS = {"ge": lambda a, b: a >= b, "gt": lambda a, b: a > b, "le": lambda a, b: a <= b, "lt": lambda a, b: a < b}
OPS = ("not", *BOUNDS)


def text(value) -> str:
    """A value as tests compare it: YAML's `true` and a variant's True alike, numbers as written."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def named(test) -> list:
    """The values a test names (those it accepts, or refuses under `not`); bounds name none."""
    if isinstance(test, Mapping):
        arg = test.get("not", [])
        return list(arg) if isinstance(arg, list) else [arg]
    return list(test) if isinstance(test, list) else [test]


def _among(test, value) -> bool:
    if isinstance(test, list):
        return any(text(t) == text(value) for t in test)
    return text(test) == text(value)


def holds(test, value) -> bool:
    """Whether one field's value passes its test."""
    if isinstance(test, Mapping):
        for op, arg in test.items():
            if op == "not":
                if _among(arg, value):
                    return False
            elif not (isinstance(value, int) and not isinstance(value, bool) and BOUNDS[op](value, arg)):
                return False
        return True
    return _among(test, value)


class _Test:
    """One field's test, compiled: the texts it accepts (or refuses, under `not`) as a set, its bounds
    as pairs; `passes` gives what `holds` gives, without converting the test's values each time."""
    __slots__ = ("accept", "refuse", "bounds")

    def __init__(self, test) -> None:
        self.accept: frozenset[str] | None = None
        self.refuse: frozenset[str] = frozenset()
        self.bounds: tuple = ()
        if isinstance(test, Mapping):
            for op, arg in test.items():
                if op == "not":
                    self.refuse = frozenset(map(text, named(test)))
                else:
                    self.bounds += ((BOUNDS[op], arg),)
        else:
            self.accept = frozenset(map(text, named(test)))

    def passes(self, value) -> bool:
        shown = value if type(value) is str else text(value)
        if self.accept is not None:
            return shown in self.accept
        if shown in self.refuse:
            return False
        if self.bounds and not (isinstance(value, int) and not isinstance(value, bool)):
            return False
        return all(bound(value, arg) for bound, arg in self.bounds)


#: id(when) -> (when, its compiled tests): a `when` is compiled once (the table holds the mapping, so
#: that its id is not another's while its entry lasts; the identity check says so again)
_COMPILED: dict[int, tuple[Mapping, tuple[tuple[str, _Test], ...]]] = {}
_COMPILED_MAX = 100_000  # mappings kept compiled; past this the table starts again (many models in one process)


def compiled(when: Mapping) -> tuple[tuple[str, _Test], ...]:
    """`when`'s tests, each compiled: (field, test) in order."""
    hit = _COMPILED.get(id(when))
    if hit is None or hit[0] is not when:
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        hit = _COMPILED[id(when)] = (when, tuple((key, _Test(test)) for key, test in when.items()))
    return hit[1]


def matches(when: Mapping, fields: Mapping) -> bool:
    """Every field `when` names is present in `fields` and passes its test."""
    for key, test in compiled(when):
        value = fields.get(key)
        if value is None or not test.passes(value):
            return False
    return True


def mentions(when: Mapping, field: str) -> bool:
    return field in when


def problem(test) -> str | None:
    """Why a test is malformed (an unknown operator, a bound that is not a number), or None."""
    if isinstance(test, Mapping):
        if not test:
            return "an empty test (give a value, a list, or not/ge/gt/le/lt)"
        for op, arg in test.items():
            if op not in OPS:
                return f"unknown test {op!r} (a test is a value, a list, or one of {', '.join(OPS)})"
            if op != "not" and (not isinstance(arg, int) or isinstance(arg, bool)):
                return f"{op} takes a number, not {arg!r}"
            if op == "not" and isinstance(arg, Mapping):
                return "not takes a value or a list"
    elif isinstance(test, list) and not test:
        return "an empty list matches nothing"
    return None
