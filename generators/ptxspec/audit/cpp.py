"""The few preprocessor rules CuTe's target macros need: which code a compiler for one target keeps.

CuTe enables an atom with `#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)`, a macro that
`cute/arch/config.hpp` defines from CUTLASS's `cutlass/arch/config.h`, which reads what nvcc
predefines for the target (`__CUDA_ARCH__`, `__CUDA_ARCH_FEAT_SM90_ALL`, the family macros). This
evaluates `#define`/`#undef` and `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with integer
expressions (`defined`, `&& || !`, comparisons, arithmetic, object- and function-like macros); it
does not follow `#include` (the configuration headers are read first, in order).
"""
from __future__ import annotations

import re

from ptxspec.audit.findings import AuditError

_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*?)$", re.M)
_TOKEN = re.compile(r"\s*(?:(\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|>=|<=|<<|>>|[-+*/%<>!()?:,~&|^]))")
_IDENT_CALL = re.compile(r"\b([A-Za-z_]\w*)\b(?:\s*\(([^()]*)\))?")
NVCC_VERSION = (13, 5)  # the toolkit of the ptxas the spec was proven with


def predefined(target) -> dict[str, str]:
    """What nvcc predefines when compiling device code for `target` (a spec Target)."""
    arch = target.arch * 10
    out = {"__CUDA_ARCH__": str(arch), "__CUDACC__": "1", "__NVCC__": "1",
           "__CUDACC_VER_MAJOR__": str(NVCC_VERSION[0]), "__CUDACC_VER_MINOR__": str(NVCC_VERSION[1])}
    if target.suffix == "a":
        out[f"__CUDA_ARCH_FEAT_SM{target.arch}_ALL"] = "1"
        out["__CUDA_ARCH_SPECIFIC__"] = str(arch)
    if target.suffix in ("a", "f"):
        out["__CUDA_ARCH_FAMILY_SPECIFIC__"] = str(arch)
    return out


class Macros:
    """Defined macros: name -> (parameters or None, body)."""

    def __init__(self, values: dict[str, str]):
        self.defs: dict[str, tuple[tuple[str, ...] | None, str]] = {k: (None, v) for k, v in values.items()}
        self.version = 0  # bumped by every #define and #undef: evaluations are cached per version
        self.cache: dict[tuple, int] = {}

    def copy(self) -> "Macros":
        m = Macros({})
        m.defs = dict(self.defs)
        return m

    def undef(self, name: str) -> None:
        self.defs.pop(name, None)
        self.version += 1

    def define(self, rest: str) -> None:
        m = re.match(r"\s*(\w+)(\(([^)]*)\))?\s*(.*)", rest)
        if m:
            params = tuple(p.strip() for p in m.group(3).split(",")) if m.group(2) else None
            self.defs[m.group(1)] = (params, m.group(4).split("//")[0].strip())
            self.version += 1

    def expand(self, text: str, depth: int = 0) -> str:
        if depth > 20:
            return text
        text = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)",
                      lambda m: "1" if (m.group(1) or m.group(2)) in self.defs else "0", text)

        def call(m):
            name = m.group(1)
            if name not in self.defs:
                return m.group(0)
            params, body = self.defs[name]
            if params is None:
                return (f"({body})" if body else "1") + (f"({m.group(2)})" if m.group(2) is not None else "")
            args = [a.strip() for a in (m.group(2) or "").split(",")]
            for p, a in zip(params, args):
                body = re.sub(rf"\b{re.escape(p)}\b", a, body)
            return f"({body})"
        new = _IDENT_CALL.sub(call, text)
        return self.expand(new, depth + 1) if new != text else new

    def eval(self, expr: str) -> int:
        key = (expr, len(self.defs), self.version)
        if key not in self.cache:
            self.cache[key] = _Parser(self.expand(expr.split("//")[0])).value()
        return self.cache[key]


class _Parser:
    """C integer expressions; unknown identifiers are 0, as in #if."""

    PREC = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
            ("+", "-"), ("*", "/", "%")]

    def __init__(self, text: str):
        self.toks, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise AuditError(f"cannot evaluate `{text}`")
            self.toks.append(m.group(1) or m.group(2) or m.group(3))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        self.i += 1
        return self.toks[self.i - 1]

    def value(self) -> int:
        v = self.ternary()
        if self.peek() is not None:
            raise AuditError(f"cannot evaluate `{' '.join(self.toks)}`")
        return v

    def ternary(self) -> int:
        c = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.ternary()
            self.take()
            b = self.ternary()
            return a if c else b
        return c

    def binary(self, level: int) -> int:
        if level == len(self.PREC):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self.PREC[level]:
            op = self.take()
            w = self.binary(level + 1)
            v = _apply(op, v, w)
        return v

    def unary(self) -> int:
        t = self.take() if self.peek() is not None else None
        if t == "!":
            return int(not self.unary())
        if t == "-":
            return -self.unary()
        if t == "+":
            return self.unary()
        if t == "~":
            return ~self.unary()
        if t == "(":
            v = self.ternary()
            self.take()
            return v
        if t is None:
            raise AuditError("cannot evaluate an empty #if")
        if t.isdigit():
            return int(t)
        return 1 if t == "true" else 0


def _apply(op: str, a: int, b: int) -> int:
    if op == "||":
        return int(bool(a) or bool(b))
    if op == "&&":
        return int(bool(a) and bool(b))
    table = {"|": a | b, "^": a ^ b, "&": a & b, "==": int(a == b), "!=": int(a != b), "<": int(a < b),
             ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b), "+": a + b, "-": a - b, "*": a * b}
    if op in table:
        return table[op]
    if op in ("/", "%"):
        return 0 if b == 0 else (a // b if op == "/" else a % b)
    return a << b if op == "<<" else a >> b


def scan(text: str) -> list[tuple[int, str, str]]:
    """The directives of `text`: (offset, word, rest), continued lines joined (every offset kept).
    Scanned once per file; `run` then preprocesses it for each set of macros."""
    text = text.replace("\\\n", "  ")
    return [(m.start(), m.group(1), m.group(2)) for m in _DIRECTIVE.finditer(text)
            if m.group(1) in _WORDS]


_WORDS = frozenset(("if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef"))


def run(text: str, macros: Macros, offsets=(), where: str = "", directives=None) -> list[bool]:
    """Preprocess `text` with `macros` (updated in place by its #define/#undef); for each offset,
    whether the code there is kept. `directives`: the text's `scan`, when it is run more than once."""
    directives = scan(text) if directives is None else directives
    stack: list[tuple[bool, bool]] = []  # (this branch active, some branch of the group was taken)
    active = True
    kept, queue, qi = [False] * len(offsets), sorted(range(len(offsets)), key=lambda i: offsets[i]), 0
    for start, word, rest in directives:
        while qi < len(queue) and offsets[queue[qi]] < start:
            kept[queue[qi]] = active
            qi += 1
        try:
            if word in ("if", "ifdef", "ifndef"):
                parent = active
                cond = (macros.eval(rest) if word == "if" else
                        (rest.split()[0] in macros.defs) == (word == "ifdef")) if parent else False
                stack.append((parent, bool(cond)))
                active = parent and bool(cond)
            elif word == "elif" and stack:
                parent, taken = stack[-1]
                cond = bool(parent and not taken and macros.eval(rest))
                stack[-1] = (parent, taken or cond)
                active = cond
            elif word == "else" and stack:
                parent, taken = stack[-1]
                active = parent and not taken
                stack[-1] = (parent, True)
            elif word == "endif" and stack:
                parent, _ = stack.pop()
                active = parent
            elif word == "define" and active:
                macros.define(rest)
            elif word == "undef" and active:
                macros.undef(rest.split()[0])
        except AuditError as exc:
            raise AuditError(f"{where}:{text.count(chr(10), 0, start) + 1}: {exc}") from None
    while qi < len(queue):
        kept[queue[qi]] = active
        qi += 1
    return kept

