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


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _among(test, value) -> bool:
    if isinstance(test, list):
        return any(_text(t) == _text(value) for t in test)
    return _text(test) == _text(value)


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


def matches(when: Mapping, fields: Mapping) -> bool:
    """Every field `when` names is present in `fields` and passes its test."""
    return all(key in fields and fields[key] is not None and holds(test, fields[key]) for key, test in when.items())


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
