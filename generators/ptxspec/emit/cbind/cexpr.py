"""Names and spec formulas as C: the binding name of a variant, identifiers, integer formulas."""
from __future__ import annotations

import ast
import re
from functools import lru_cache

from ptxspec.model.operand_kind import BindingError
from ptxspec.model.variant import Variant


def name(v: Variant) -> str:
    """The function name: the opcode with every non-identifier character run turned into `_`,
    and the form appended as `__reg` / `__desc`."""
    return _name(v.ptx, v.form)


@lru_cache(maxsize=None)
def _name(ptx: str, form: str) -> str:
    base = ident(ptx)
    return f"{base}__{form}" if form else base


@lru_cache(maxsize=None)
def ident(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_")


_C_BINOP = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Div: "/", ast.Mod: "%",
            ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_C_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_C_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}


def formula_c(source: str) -> str:
    """A spec formula (already checked by ptxspec.core.expr) as a C expression. `//` and `%` become C's
    `/` and `%`, equal to Python's on the non-negative values the maps take (the tests check every
    thread and element); comparisons give 0 or 1."""
    def c(node) -> str:
        if isinstance(node, ast.Expression):
            return c(node.body)
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, int):
                raise BindingError(f"formula {source!r}: constant {node.value!r} is not an integer")
            return hex(node.value) if node.value > 255 else str(node.value)
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)):
                    raise BindingError(f"formula {source!r}: an exponent must be an integer constant")
                n = node.right.value
                return "(" + " * ".join([c(node.left)] * n) + ")" if n else "1"
            return f"({c(node.left)} {_C_BINOP[type(node.op)]} {c(node.right)})"
        if isinstance(node, ast.UnaryOp):
            return f"({_C_UNARY[type(node.op)]}{c(node.operand)})"
        if isinstance(node, ast.Compare):
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(f"({c(left)} {_C_CMP[type(op)]} {c(right)})")
                left = right
            return "(int)(" + " && ".join(parts) + ")"
        if isinstance(node, ast.IfExp):
            return f"({c(node.test)} ? {c(node.body)} : {c(node.orelse)})"
        raise BindingError(f"formula {source!r}: {type(node).__name__} has no C translation")
    text = c(ast.parse(str(source).strip(), mode="eval"))
    return text[1:-1] if text.startswith("(") and _balanced(text[1:-1]) else text


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def cfunc(ret: str, fname: str, params: list[tuple[str, str]], used, body: str, static: bool = False) -> dict:
    """A one-line constexpr function for the templates (`cfunc` macro); unused parameters are
    written as comments so that -Wunused-parameter stays quiet."""
    return {"ret": ret, "name": fname, "static": static, "body": body,
            "params": [{"type": t, "name": p, "used": p in used} for t, p in params]}
