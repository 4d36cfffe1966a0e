"""PTX statements as peers write them: C string literals, inline-asm blocks, operand lists.

A peer's inline asm is a template (`"mma.sync... {%0, %1}, ..."`) with constraint letters that say
what each `%N` is (`"r"`: a 32-bit register, `"l"`: 64-bit, `"n"`: an immediate). A statement here
is its opcode and its operands reduced to what a spec variant's operand form fixes: addresses,
vectors of N registers of some width, single registers, predicates, immediates. The spec's own
statements (`ptxspec.asm.statement`) are read by the same parser, so the two sides compare as equals.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ptxspec.model import ptx_text as asm
from ptxspec.audit.findings import Operand

#: inline-asm constraint letter -> (PTX register type, bits); "n"/"i": an immediate
CONSTRAINTS = {"r": ("b32", 32), "f": ("f32", 32), "l": ("b64", 64), "h": ("b16", 16), "d": ("f64", 64),
               "c": ("b16", 16)}
REG_BITS = {"f32": 32, "b32": 32, "s32": 32, "u32": 32, "f64": 64, "b64": 64, "s64": 64, "u64": 64, "b16": 16,
            "f16": 16}
_POOL = {p: t for t, p in asm.POOLS.items()}  # register prefix -> its type
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": ""}
_NEWLINE = re.compile("\n")
_PERCENT = re.compile(r"%(\d+)")
_INTEGER = re.compile(r"-?(0[xX][0-9a-fA-F]+|\d+)[uU]?")
_NAMED = re.compile(r"%([a-z]+)\d+")
_NESTED = re.compile(r'[()\[\]{}"]')
_SPLIT = re.compile(r'"(?:[^"\\]|\\.)*"?|[()\[\]{},]')
_ASM = re.compile(r"\basm\s*(?:volatile\b|__volatile__\b)?\s*(?:volatile\b)?\s*\(")


@dataclass(frozen=True)
class Statement:
    opcode: str
    operands: tuple[Operand, ...]
    text: str


def unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def c_strings(text: str) -> str:
    """The concatenation of the C string literals in `text` (adjacent literals join)."""
    return "".join(unescape(m.group(1)) for m in _STRING.finditer(text))


def _split_commas(text: str) -> list[str]:
    """`text` split at commas outside parentheses, brackets, braces and strings."""
    if not _NESTED.search(text):
        return text.split(",")
    out, depth, start = [], 0, 0
    for m in _SPLIT.finditer(text):
        c = m.group(0)
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:m.start()])
            start = m.end()
    out.append(text[start:])
    return out


@dataclass(frozen=True)
class AsmBlock:
    offset: int  # character offset of `asm` in the file
    template: str
    constraints: tuple[str, ...]  # per %N, outputs then inputs, modifiers (=, +, &) removed


_TEMPLATE = re.compile(r'\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
_CONSTRAINT = re.compile(r'"([=+&]*)([a-zA-Z])"\s*\(')
_END = re.compile(r"\)\s*;")


def asm_blocks(text: str) -> list[AsmBlock]:
    """Every inline-asm statement of a C++ file: its template (the leading string literals) and
    the constraint of each %N (outputs then inputs, up to the `);` that ends the statement)."""
    out = []
    for m in _ASM.finditer(text):
        t = _TEMPLATE.match(text, m.end())
        if not t:
            continue
        end = _END.search(text, t.end())
        args = text[t.end():end.start() if end else len(text)]
        constraints = tuple(c.group(2) for c in _CONSTRAINT.finditer(args))
        out.append(AsmBlock(m.start(), c_strings(t.group(1)), constraints))
    return out


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class Lines:
    """Line numbers of offsets in one text, by bisection (many look-ups in a long file)."""

    def __init__(self, text: str):
        self.ends = [m.start() for m in _NEWLINE.finditer(text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_left(self.ends, offset) + 1


def _operand(item: str, constraints, preds) -> Operand:
    item = item.strip()
    if item.startswith("["):
        return Operand("addr")
    if item.startswith("{"):
        parts = [x for x in item.strip("{}").split(",") if x.strip()]
        if not parts:
            return Operand("vec", 0, 0, "")
        first = _operand(parts[0], constraints, preds)
        if first.what == "imm":  # a braced tuple of constants ({byte-id, thread-id}), or a mix
            regs = [_operand(x, constraints, preds) for x in parts]
            if all(r.what == "imm" for r in regs):
                return Operand("vec", 0, len(regs), "imm")
        return Operand("vec", first.bits, len(parts), first.reg)
    return _single(item.lstrip("!"), constraints, preds)


def _single(item: str, constraints, preds) -> Operand:
    m = _PERCENT.fullmatch(item)
    if m:
        n = int(m.group(1))
        letter = constraints[n] if n < len(constraints) else ""
        if letter in CONSTRAINTS:
            reg, bits = CONSTRAINTS[letter]
            return Operand("reg", bits, 1, reg)
        return Operand("imm") if letter in ("n", "i") else Operand("reg", 0)
    if _INTEGER.fullmatch(item):
        return Operand("imm")
    if item in preds:
        return Operand("pred")
    m = _NAMED.fullmatch(item)
    if m:  # a named register (%f3, %rd1): the spec's statements, LLVM's printed operands
        reg = _POOL.get(m.group(1))
        if reg is not None:
            return Operand("pred") if reg == "pred" else Operand("reg", REG_BITS.get(reg, 0), 1, reg)
    return Operand("reg", 0)


def _statements_of(template: str) -> list[str]:
    """Statements split at `;` and line ends; the braces that open and close a block of them go
    (a statement never starts with a vector operand; one that ends with a vector keeps it)."""
    out = []
    for raw in template.replace("\n", ";").split(";"):
        s = " ".join(raw.split())
        while s.startswith("{"):
            s = s[1:].lstrip()
        if s.startswith("}"):
            s = s.lstrip("} ")
        if s:
            out.append(s)
    return out


def parse(template: str, constraints=(), keep=None) -> list[Statement]:
    """The statements of an asm template whose opcode `keep` accepts (all when None); `.reg .pred
    NAME` declarations name predicates."""
    preds = set()
    out = []
    for s in _statements_of(template):
        if s.startswith(".reg"):
            m = re.match(r"\.reg\s+\.pred\s+(.*)", s)
            if m:
                preds.update(x.strip() for x in m.group(1).split(","))
            continue
        if s.startswith("@"):
            s = s.split(None, 1)[1] if " " in s else ""
        m = re.match(r"([^\s\[{%,]+)\s*(.*)", s)
        opcode, rest = (m.group(1), m.group(2)) if m else ("", "")
        if not opcode or (keep is not None and not keep(opcode)):
            continue
        items = [x for x in _split_commas(rest) if x.strip()]
        out.append(Statement(opcode, tuple(_operand(x, constraints, preds) for x in items), s))
    return out


def variant_shapes(v) -> set[tuple]:
    """The operand keys of a spec variant's statement (with and without its optional operands)."""
    shapes = set()
    for optional in (True, False):
        st = parse(asm.statement(v, optional=optional))
        if st:
            shapes.add(tuple(o.key() for o in st[0].operands))
    return shapes


def shape_text(shape) -> str:
    def one(k):
        if k[0] == "vec":
            return f"{{{k[1]} immediates}}" if k[2] == "imm" else f"{{{k[1]} x {k[2] or '?'}-bit}}"
        if k[0] == "reg":
            return f"{k[1] or '?'}-bit"
        return {"addr": "[address]", "pred": "predicate", "imm": "immediate"}[k[0]]
    return ", ".join(one(k) for k in shape) or "no operands"
