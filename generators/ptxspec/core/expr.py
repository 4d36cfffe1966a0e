"""Integer formulas in the spec: parsed, checked to be pure arithmetic, compiled once.

Fragment maps, register counts and shared-memory layouts are written as small formulas over
named integers (`t` thread, `i` element, `M`, `N`, `K`, ...). A formula may use integer
constants, the allowed names, `+ - * // % **` (constant exponent), `/` (exact division),
bit operations `& | ^ ~ << >>`, comparisons and `x if cond else y`. Anything else — calls,
attributes, subscripts, strings, lambdas — is rejected before evaluation, so a spec file
can never run code. Compiled formulas evaluate on Python ints or on numpy integer arrays.

Before a formula runs, interval arithmetic over its syntax tree bounds every sub-expression from
the ranges of the inputs; a formula that could leave +-2**62 on them is an error (ExprError)
instead of wrapping around silently in numpy's 64-bit integers or overflowing a conversion.
"""
from __future__ import annotations

import ast
import marshal
from functools import lru_cache

from ptxspec.core.lazy import np

MAX_LENGTH = 400
MAX_CONST = 1 << 40
MAX_POW = 64
MAX_SHIFT = 64
#: Every value a formula computes, intermediate ones included, stays within +-LIMIT.
LIMIT = 1 << 62

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>", ast.Div: "/"}
_UNOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class ExprError(ValueError):
    pass


def _exact_div(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if np.any(np.asarray(a) % b != 0):
            raise ExprError("'/' must divide exactly (use // for floor division)")
        return np.asarray(a) // b
    if a % b:
        raise ExprError(f"'/' must divide exactly: {a}/{b} (use // for floor division)")
    return a // b


def _lshift(a, b):
    if np.any(np.asarray(b) < 0) or np.any(np.asarray(b) > MAX_SHIFT):
        raise ExprError(f"shift count must be 0 to {MAX_SHIFT}")
    return a << b


def _rshift(a, b):
    if np.any(np.asarray(b) < 0):
        raise ExprError("negative shift count")
    return a >> b


def _where(cond, a, b):
    if isinstance(cond, np.ndarray):
        return np.where(cond, a, b)
    return a if cond else b


def _as_int(cond):
    return cond.astype(np.int64) if isinstance(cond, np.ndarray) else int(cond)


class _Checker(ast.NodeVisitor):
    def __init__(self, names: frozenset[str]):
        self.names = names
        self.used: set[str] = set()

    def generic_visit(self, node):
        raise ExprError(f"{type(node).__name__} is not allowed; formulas are integer arithmetic only")

    def visit_Expression(self, node):
        self.visit(node.body)

    def visit_BinOp(self, node):
        if type(node.op) not in _BINOPS:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node.op, ast.Pow):
            if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)
                    and 0 <= node.right.value <= MAX_POW):
                raise ExprError(f"'**' needs a constant exponent from 0 to {MAX_POW}")
            if not isinstance(node.left, (ast.Constant, ast.Name)):
                raise ExprError("'**' takes a constant or a name as its base (no power towers)")
        self.visit(node.left)
        self.visit(node.right)

    def visit_UnaryOp(self, node):
        if type(node.op) not in _UNOPS:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed")
        self.visit(node.operand)

    def visit_Compare(self, node):
        for op in node.ops:
            if type(op) not in _CMPOPS:
                raise ExprError(f"comparison {type(op).__name__} is not allowed")
        self.visit(node.left)
        for c in node.comparators:
            self.visit(c)

    def visit_IfExp(self, node):
        self.visit(node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def visit_Name(self, node):
        if node.id not in self.names:
            allowed = ", ".join(sorted(self.names)) or "none"
            raise ExprError(f"unknown name {node.id!r} (allowed here: {allowed})")
        self.used.add(node.id)

    def visit_Constant(self, node):
        if type(node.value) is not int:
            raise ExprError(f"constant {node.value!r} is not an integer")
        if abs(node.value) > MAX_CONST:
            raise ExprError(f"constant {node.value} is too large")


class _Rewriter(ast.NodeTransformer):
    """`a / b` -> `_div(a, b)`, `x if c else y` -> `_where(c, x, y)`, comparisons -> ints."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        helper = {ast.Div: "_div", ast.LShift: "_lshift", ast.RShift: "_rshift"}.get(type(node.op))
        if helper:
            return ast.Call(ast.Name(helper, ast.Load()), [node.left, node.right], [])
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.Call(ast.Name("_where", ast.Load()), [node.test, node.body, node.orelse], [])

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) > 1:  # chained comparisons: a < b < c -> (a < b) & (b < c)
            parts = []
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(ast.Compare(left, [op], [right]))
                left = right
            expr = parts[0]
            for p in parts[1:]:
                expr = ast.BinOp(expr, ast.BitAnd(), p)
            return ast.Call(ast.Name("_int", ast.Load()), [expr], [])
        return ast.Call(ast.Name("_int", ast.Load()), [node], [])


class Formula:
    """A checked, compiled formula. Call with keyword integers or numpy arrays."""

    __slots__ = ("source", "names", "_code", "_tree", "_checked")

    def __init__(self, source: str, allowed: frozenset[str]):
        if not isinstance(source, (str, int)) or isinstance(source, bool):
            raise ExprError("a formula must be a string or an integer")
        source = str(source)
        if len(source) > MAX_LENGTH:
            raise ExprError(f"formula longer than {MAX_LENGTH} characters")
        try:
            tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError as exc:
            raise ExprError(f"formula syntax: {exc.msg}") from None
        checker = _Checker(allowed)
        checker.visit(tree)
        self._tree = tree.body
        self._checked: set = set()
        tree = ast.fix_missing_locations(_Rewriter().visit(ast.parse(source.strip(), mode="eval")))
        self.source = source
        self.names = frozenset(checker.used)
        self._code = compile(tree, "<formula>", "eval")

    def __getstate__(self):
        """A formula as its source, names and compiled code (marshal: the same Python reads it back,
        which a model cache's key ensures); the syntax tree is parsed again when a range check needs it."""
        return self.source, self.names, marshal.dumps(self._code)

    def __setstate__(self, state) -> None:
        self.source, self.names, code = state
        self._code = marshal.loads(code)
        self._tree = None
        self._checked = set()

    def check_range(self, **env) -> None:
        """ExprError if some sub-expression could leave +-LIMIT for inputs in the ranges of env's values."""
        ranges = tuple((k, _input_range(env[k])) for k in sorted(self.names))
        if ranges in self._checked:
            return
        if self._tree is None:  # read back from a model cache
            self._tree = ast.parse(self.source.strip(), mode="eval").body
        _Bounds(dict(ranges), self.source).visit(self._tree)
        if len(self._checked) < 256:
            self._checked.add(ranges)

    def __call__(self, **env):
        scalar = all(type(env[k]) is int for k in self.names)
        if not scalar:  # numpy wraps around silently: bound every step before it runs
            self.check_range(**env)
        scope = {"__builtins__": {}, "_div": _exact_div, "_where": _where, "_int": _as_int,
                 "_lshift": _lshift, "_rshift": _rshift}
        scope.update({k: env[k] for k in self.names})
        try:
            if scalar:  # Python ints all the way (the helpers keep them so): nothing for numpy to raise
                value = eval(self._code, scope)  # noqa: S307 - the AST is whitelisted above
            else:
                with np.errstate(all="raise"):
                    value = eval(self._code, scope)  # noqa: S307 - the AST is whitelisted above
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {self.source!r}") from None
        except (FloatingPointError, ArithmeticError, ValueError, MemoryError) as exc:
            if "divide by zero" in str(exc):
                raise ExprError(f"division by zero in {self.source!r}") from None
            raise ExprError(f"arithmetic error in {self.source!r}: {exc}") from None
        if scalar and not -LIMIT <= value <= LIMIT:  # exact Python ints: only the result needs a bound
            raise ExprError(f"{self.source!r} is {_magnitude(value)} here: formula values must stay within +-2**62")
        return value

    def __repr__(self) -> str:
        return f"Formula({self.source!r})"


def _input_range(value) -> tuple[int, int]:
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return (0, 0)
        if value.dtype.kind not in "iub":
            raise ExprError(f"formula inputs are integers, not {value.dtype}")
        return (int(value.min()), int(value.max()))
    if isinstance(value, (bool, int, np.integer)):
        return (int(value), int(value))
    raise ExprError(f"formula inputs are integers, not {type(value).__name__}")


def _span(values) -> tuple[int, int]:
    return (min(values), max(values))


class _Bounds(ast.NodeVisitor):
    """Interval arithmetic over a checked formula: (low, high) of every sub-expression, raising
    ExprError as soon as one leaves +-LIMIT. Conservative: the true range lies inside."""

    def __init__(self, ranges: dict[str, tuple[int, int]], source: str):
        self.ranges = ranges
        self.source = source

    def visit(self, node) -> tuple[int, int]:
        lo, hi = super().visit(node)
        if lo < -LIMIT or hi > LIMIT:
            worst = lo if -lo > hi else hi
            part = ast.unparse(node)
            where = f"{self.source!r}" if part.replace(" ", "") == self.source.replace(" ", "") else \
                f"{part!r} in {self.source!r}"
            raise ExprError(f"{where} can reach {_magnitude(worst)}: formula values must stay within +-2**62")
        return lo, hi

    def visit_Constant(self, node):
        return (node.value, node.value)

    def visit_Name(self, node):
        return self.ranges[node.id]

    def visit_UnaryOp(self, node):
        lo, hi = self.visit(node.operand)
        if isinstance(node.op, ast.USub):
            return (-hi, -lo)
        if isinstance(node.op, ast.Invert):
            return (-hi - 1, -lo - 1)
        return (lo, hi)

    def visit_Compare(self, node):
        self.visit(node.left)
        for c in node.comparators:
            self.visit(c)
        return (0, 1)

    def visit_IfExp(self, node):
        self.visit(node.test)
        (a, b), (c, d) = self.visit(node.body), self.visit(node.orelse)
        return (min(a, c), max(b, d))

    def visit_BinOp(self, node):
        (a, b), (c, d) = self.visit(node.left), self.visit(node.right)
        op = type(node.op)
        if op is ast.Add:
            return (a + c, b + d)
        if op is ast.Sub:
            return (a - d, b - c)
        if op is ast.Mult:
            return _span([a * c, a * d, b * c, b * d])
        if op in (ast.FloorDiv, ast.Div):
            if c <= 0 <= d:  # may divide by zero (an error when it does) or by +-1
                m = max(abs(a), abs(b))
                return (-m, m)
            return _span([x // y for x in (a, b) for y in (c, d)])
        if op is ast.Mod:
            m = max(abs(c), abs(d))
            return (0, max(m - 1, 0)) if c > 0 else (-m, m)
        if op is ast.Pow:
            e = c  # a constant exponent (the checker allows no other): c == d
            cands = [a ** e, b ** e] + ([0] if a < 0 < b else [])
            return _span(cands)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor):
            if a >= 0 and c >= 0:
                top = (1 << max(b, d).bit_length()) - 1
                return (0, min(b, d) if op is ast.BitAnd else top)
            m = 1 << max(abs(a), abs(b), abs(c), abs(d)).bit_length()
            return (-m, m)
        if op is ast.LShift:
            c, d = max(c, 0), min(max(d, 0), MAX_SHIFT)
            return _span([x << y for x in (a, b) for y in (c, d)])
        if op is ast.RShift:
            c, d = max(c, 0), max(d, 0)
            return _span([x >> y for x in (a, b) for y in (c, d)])
        raise ExprError(f"operator {op.__name__} is not allowed")


def _magnitude(x: int) -> str:
    return str(x) if abs(x) < 10 ** 24 else f"{'-' if x < 0 else ''}about 2**{abs(x).bit_length() - 1}"


@lru_cache(maxsize=4096)
def compile_formula(source: str, allowed: frozenset[str]) -> Formula:
    return Formula(source, allowed)
