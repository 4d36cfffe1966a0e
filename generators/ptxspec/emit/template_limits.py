"""The limits a user's template runs under (`ptxspec render`): time, loop iterations, the size of
any value it builds, and its output. Hang guards, not speed limits: each error names the limit and
how to raise it.

Jinja compiles a template to Python; the sandbox sees calls, filters and some operators, but not
loops, `~` concatenation or block assignments. A code generator of our own (`GuardedCodeGenerator`)
routes those through the guards too: every loop's iterable goes through a filter that counts the
iterations, every `~` and `{% set %}...{% endset %}` through one that checks the size. Each guard
is also where the clock is read. What a single call could allocate before returning (a width of
two billion to `center`, `lipsum(100000000)`, a printf width) is estimated from its arguments and
refused before the call; what doubling builds (a list added to itself in a namespace loop) is
refused at the first value past the size limit.
"""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from functools import wraps

from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError

__all__ = ["Limits", "Budget", "GuardedCodeGenerator", "LimitExceeded", "LOOP_FILTER", "SIZE_FILTER"]

LOOP_FILTER = "_ptxspec_counted"
SIZE_FILTER = "_ptxspec_sized"


@dataclass(frozen=True)
class Limits:
    """What one rendering may take. `ptxspec render --max-seconds/--max-iterations/--max-size/--max-output`
    (or `render(..., limits=Limits(...))`) set them."""
    seconds: float = 300.0  # wall time of the whole rendering
    iterations: int = 20_000_000  # loop iterations, all loops together
    size: int = 1 << 24  # items (or characters) of any one string, list or mapping a template builds
    output: int = 1 << 28  # characters of output


#: how each limit is raised, for the error messages
RAISE = {"seconds": "--max-seconds", "iterations": "--max-iterations", "size": "--max-size",
         "output": "--max-output"}


class LimitExceeded(SecurityError):
    """A template went past one of its Limits."""


class Budget:
    """The limits of one rendering, and what it has used of them."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.iterations = 0

    def exceeded(self, which: str, what: str) -> LimitExceeded:
        value = getattr(self.limits, which)
        return LimitExceeded(f"{what}: beyond the sandbox's limit of {value:,} {_UNITS[which]} "
                             f"(raise it with ptxspec render {RAISE[which]} N, or render(..., limits=Limits("
                             f"{which}=N)))")

    def tick(self) -> None:
        """One step of work: past the deadline, the rendering stops."""
        if time.monotonic() >= self.deadline:
            raise self.exceeded("seconds", "the template ran too long")

    def count(self, iterable):
        """The iterable, each item counted as a loop iteration."""
        limit = self.limits.iterations
        for item in iterable:
            self.iterations += 1
            if self.iterations > limit:
                raise self.exceeded("iterations", "the template's loops ran too many iterations")
            self.tick()
            yield item

    def sized(self, value):
        """The value, when it is no larger than the size limit."""
        n = _size(value)
        if n > self.limits.size:
            raise self.exceeded("size", f"a value of {n:,} items or characters")
        self.tick()
        return value

    def ahead(self, estimate: float, what: str) -> None:
        """Refuse a call whose result would be past the size limit (`estimate` items or characters)."""
        if estimate > self.limits.size:
            shown = f"{estimate:,.0f}" if math.isfinite(estimate) else "unbounded"
            raise self.exceeded("size", f"{what} would build a value of {shown} items or characters")

    def guard_call(self, obj, args, kwargs) -> None:
        """Before a call: the clock, and what the call would build (a str or bytes method that
        pads, repeats or formats: the estimators below)."""
        self.tick()
        target = getattr(obj, "__self__", None)
        method = getattr(obj, "__name__", "")
        wrapped = getattr(obj, "__wrapped__", None)  # the sandbox's str.format wrapper
        if wrapped is not None and isinstance(getattr(wrapped, "__self__", None), str):
            target, method = wrapped.__self__, wrapped.__name__
        if isinstance(target, (str, bytes)) and method in _METHODS:
            self.ahead(_METHODS[method](target, args, kwargs), f"{method}()")

    def lipsum(self, generate):
        """The `lipsum` global, refused when its paragraphs would be past the size limit."""
        @wraps(generate)
        def bounded(n=5, html=True, min=20, max=100):  # noqa: A002 - lipsum's own parameter names
            # n paragraphs of at most `max` words of at most 12 letters and a space
            self.ahead(max_(1, _int(n)) * max_(1, _int(max)) * 13.0, "lipsum()")
            return generate(n, html, min, max)
        return bounded


_UNITS = {"seconds": "seconds", "iterations": "iterations", "size": "items or characters",
          "output": "characters of output"}


def _size(value) -> int:
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def _int(x, default: int = 0) -> float:
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float) and math.isfinite(x):
        return x
    return default


def _arg(args, kwargs, i: int, name: str, default=None):
    return args[i] if len(args) > i else kwargs.get(name, default)


_PRINTF = re.compile(rb"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_BRACE_SPEC = re.compile(r"\{[^{}]*?:([^{}]*)\}")


def printf_size(fmt, args) -> float:
    """An upper estimate of len(fmt % args): the text, every width and precision (a `*` takes its
    value from the arguments), and the arguments themselves."""
    raw = fmt.encode("utf-8", "replace") if isinstance(fmt, str) else bytes(fmt)
    values = list(args) if isinstance(args, tuple) else [args]
    total = float(len(raw)) + sum(len(str(a)) if isinstance(a, (str, bytes)) else 24 for a in values)
    for m in _PRINTF.finditer(raw):
        for part in m.groups():
            if part == b"*":
                total += abs(_int(values.pop(0) if values else 0))
            elif part:
                total += int(part) if len(part) < 20 else math.inf
    return total


def format_size(fmt: str, args, kwargs) -> float:
    """An upper estimate of len(fmt.format(*args, **kwargs)): digits in the format specs are widths,
    and a nested field ({:{w}}) may take any integer argument as one."""
    total = float(len(fmt))
    for x in list(args) + list(kwargs.values()):
        total += len(x) if isinstance(x, (str, bytes)) else 24
    for spec in _BRACE_SPEC.findall(fmt) + re.findall(r"\{[^{}]*:[^{}]*\{", fmt):
        total += sum(int(d) if len(d) < 20 else math.inf for d in re.findall(r"\d+", spec))
        if "{" in spec:
            total += sum(abs(_int(x)) for x in list(args) + list(kwargs.values()))
    return total


def _join_size(items, sep) -> float:
    try:
        parts = list(items) if isinstance(items, (list, tuple)) else []
    except TypeError:
        parts = []
    return sum(len(p) if isinstance(p, (str, bytes)) else 24 for p in parts) + len(sep) * len(parts)


def _replace_size(s, old, new, count=-1) -> float:
    if not isinstance(old, (str, bytes)) or not isinstance(new, (str, bytes)) or type(old) is not type(s):
        return len(s)
    hits = len(s) + 1 if not old else s.count(old)
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    return len(s) + hits * len(new)


#: str (and bytes) methods whose result can be far larger than their text: an estimate of its size
_METHODS = {
    "center": lambda s, a, k: _int(_arg(a, k, 0, "width")),
    "ljust": lambda s, a, k: _int(_arg(a, k, 0, "width")),
    "rjust": lambda s, a, k: _int(_arg(a, k, 0, "width")),
    "zfill": lambda s, a, k: _int(_arg(a, k, 0, "width")),
    "expandtabs": lambda s, a, k: len(s) + s.count("\t" if isinstance(s, str) else b"\t")
    * max(0, _int(_arg(a, k, 0, "tabsize", 8))),
    "replace": lambda s, a, k: _replace_size(s, _arg(a, k, 0, "old", ""), _arg(a, k, 1, "new", ""),
                                             _arg(a, k, 2, "count", -1)),
    "join": lambda s, a, k: _join_size(_arg(a, k, 0, "iterable", ()), s),
    "format": lambda s, a, k: format_size(s, a, k) if isinstance(s, str) else len(s),
    "format_map": lambda s, a, k: format_size(s, (), a[0] if a and isinstance(a[0], dict) else {})
    if isinstance(s, str) else len(s),
    "translate": lambda s, a, k: len(s) * max([1] + [len(v) for v in (a[0].values() if a and isinstance(a[0], dict)
                                                                        else ()) if isinstance(v, (str, bytes))]),
}

max_ = max  # lipsum's parameter `max` hides the builtin there


def _lines(s) -> int:
    return s.count("\n") + 1 if isinstance(s, str) else 1


#: the builtin filters that build values by their arguments: an estimate of the result's size
FILTER_SIZES = {
    "center": lambda v, a, k: _int(_arg(a, k, 0, "width", 80)) + _size(v),
    "indent": lambda v, a, k: _size(v) + _lines(v) * (len(w) if isinstance(w := _arg(a, k, 0, "width", 4), str)
                                                       else _int(w)),
    "wordwrap": lambda v, a, k: _size(v) * (1 + len(str(_arg(a, k, 3, "wrapstring", "\n") or "\n"))),
    "format": lambda v, a, k: format_size(v, a, k) if not a and k else printf_size(v, tuple(a) if a else k),
    "replace": lambda v, a, k: _replace_size(str(v), _arg(a, k, 0, "old", ""), _arg(a, k, 1, "new", ""),
                                             _arg(a, k, 2, "count", -1)) if isinstance(v, str) else _size(v),
    "join": lambda v, a, k: _join_size(list(v) if isinstance(v, (list, tuple)) else [], str(_arg(a, k, 0, "d", ""))),
    "batch": lambda v, a, k: _size(v) + _int(_arg(a, k, 0, "linecount")),
    "slice": lambda v, a, k: _size(v) + _int(_arg(a, k, 0, "slices")),
    "tojson": lambda v, a, k: _json_size(v, _arg(a, k, 0, "indent")),
    "truncate": lambda v, a, k: _size(v) + _size(_arg(a, k, 2, "end", "")),
}


def _json_size(value, indent) -> float:
    try:
        flat = len(json.dumps(value, default=str))
    except (TypeError, ValueError, RecursionError):
        return 0
    return flat * (1 + max(0, _int(indent) if not isinstance(indent, str) else len(indent)))


def guarded_filter(budget: Budget, name: str, func):
    """A filter that reads the clock, refuses what would be past the size limit, and checks its result."""
    estimate = FILTER_SIZES.get(name)
    skip = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0  # context/environment comes first

    @wraps(func)
    def run(*args, **kwargs):
        budget.tick()
        if estimate is not None and len(args) > skip:
            budget.ahead(estimate(args[skip], args[skip + 1:], kwargs), f"the filter {name}")
        return budget.sized(func(*args, **kwargs))
    return run


class GuardedCodeGenerator(CodeGenerator):
    """Jinja's code generator, with every loop's iterable counted and every concatenation and block
    assignment sized by the environment's budget (filters LOOP_FILTER and SIZE_FILTER)."""

    def visit_Template(self, node, frame=None):
        for loop in node.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, LOOP_FILTER, [], [], None, None, lineno=loop.lineno)
        for block in node.find_all(nodes.AssignBlock):
            block.filter = nodes.Filter(block.filter, SIZE_FILTER, [], [], None, None, lineno=block.lineno)
        for concat in list(node.find_all(nodes.Concat)):
            concat.nodes = [nodes.Filter(n, SIZE_FILTER, [], [], None, None, lineno=concat.lineno)
                            for n in concat.nodes]
        super().visit_Template(node, frame)
