"""The part of LLVM's TableGen language the NVPTX files are written in, read into statements.

`parse(text, file)` turns a `.td` file into a list of statements (tuples whose first element names
the kind: class, def, defm, multiclass, defset, defvar, foreach, if, let) and values (tuples:
int, str, code, unset, list, dag, id, anon, bang, field, index, paste). `tgeval` gives them
meaning. What is read: classes with template arguments and parent classes, bodies with fields,
`let` and `defvar`; `def`/`defm` with computed names; `multiclass`, `defset`, `foreach` over
lists and ranges, `if ... then ... else`, top-level `let ... in`; values with `#` paste, field
access, list indexing, dags with `:$name` operands, anonymous class instances and `!` operators.
`include`, `assert` and `dump` are skipped. A construct outside this part is an error naming the
file and line (`TableGenError`).
"""
from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r"""
 (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
|(?P<code>\[\{.*?\}\])
|(?P<str>"(?:[^"\\\n]|\\.)*")
|(?P<num>[-+]?(?:0x[0-9a-fA-F]+|0b[01]+|\d+)(?![A-Za-z_]))
|(?P<var>\$[A-Za-z_]\w*)
|(?P<bang>![a-z]+)
|(?P<id>[A-Za-z_0-9]\w*)
|(?P<dots>\.\.\.)
|(?P<punct>[<>\[\](){},;:=\#.?])
""", re.S | re.X)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}
_TYPES = {"string", "code", "bit", "int", "dag", "bits", "list"}


class TableGenError(Exception):
    """A file the reader cannot read: `file:line: message`."""


def unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def tokenize(text: str, file: str) -> list[tuple[str, object, int]]:
    """(kind, value, line) of each token; kinds: num, str, code, var, bang, id, punct ('...' too)."""
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise TableGenError(f"{file}:{line}: cannot read {text[pos:pos + 20]!r}")
        kind, raw = m.lastgroup, m.group()
        if kind == "num":
            out.append(("num", int(raw, 0), line))
        elif kind == "str":
            out.append(("str", unescape(raw[1:-1]), line))
        elif kind == "code":
            out.append(("code", raw[2:-2], line))
        elif kind == "var":
            out.append(("var", raw[1:], line))
        elif kind == "dots":
            out.append(("punct", "...", line))
        elif kind != "ws":
            out.append((kind, raw, line))
        line += raw.count("\n")
        pos = m.end()
    out.append(("eof", None, line))
    return out


class Parser:
    def __init__(self, text: str, file: str):
        self.file = file
        self.toks = tokenize(text, file)
        self.i = 0

    # tokens -------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> tuple[str, Any, int]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def line(self) -> int:
        return self.peek()[2]

    def error(self, msg: str) -> TableGenError:
        return TableGenError(f"{self.file}:{self.line()}: {msg}")

    def take(self) -> tuple[str, Any, int]:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, value, k: int = 0) -> bool:
        t = self.peek(k)
        return t[0] in ("punct", "id") and t[1] == value

    def expect(self, value):
        t = self.take()
        if t[0] not in ("punct", "id") or t[1] != value:
            raise TableGenError(f"{self.file}:{t[2]}: expected {value!r}, found {t[1]!r}")
        return t

    def ident(self) -> str:
        t = self.take()
        if t[0] != "id":
            raise TableGenError(f"{self.file}:{t[2]}: expected a name, found {t[1]!r}")
        return str(t[1])

    # statements ---------------------------------------------------------------------------
    def statements(self, until: str | None = None) -> list:
        out = []
        while not (self.peek()[0] == "eof" if until is None else self.at(until)):
            if self.peek()[0] == "eof":
                raise self.error(f"missing {until!r}")
            st = self.statement()
            if st is not None:
                out.append(st)
        return out

    def block(self) -> list:
        """`{ statements }` or one statement."""
        if self.at("{"):
            self.take()
            body = self.statements("}")
            self.expect("}")
            return body
        st = self.statement()
        return [st] if st is not None else []

    def statement(self):
        t = self.peek()
        line = t[2]
        word = t[1] if t[0] == "id" else None
        if word == "include":
            self.take()
            self.take()
            return None
        if word in ("assert", "dump"):
            self.skip_to(";")
            return None
        if word == "class":
            self.take()
            name = self.ident()
            params = self.params()
            parents = self.parents()
            return ("class", name, params, parents, self.body(), line)
        if word == "def":
            self.take()
            name = None if self.at(":") or self.at(";") or self.at("{") else self.value()
            parents = self.parents()
            return ("def", name, parents, self.body(), line)
        if word == "defm":
            self.take()
            name = None if self.at(":") else self.value()
            parents = self.parents()
            self.expect(";")
            return ("defm", name, parents, line)
        if word == "multiclass":
            self.take()
            name = self.ident()
            params = self.params()
            bases = self.parents()
            self.expect("{")
            body = self.statements("}")
            self.expect("}")
            return ("multiclass", name, params, bases, body, line)
        if word == "defset":
            self.take()
            self.type_()
            name = self.ident()
            self.expect("=")
            self.expect("{")
            body = self.statements("}")
            self.expect("}")
            return ("defset", name, body, line)
        if word == "defvar":
            self.take()
            name = self.ident()
            self.expect("=")
            val = self.value()
            self.expect(";")
            return ("defvar", name, val, line)
        if word == "foreach":
            self.take()
            var = self.ident()
            self.expect("=")
            seq = self.foreach_seq()
            self.expect("in")
            return ("foreach", var, seq, self.block(), line)
        if word == "if":
            self.take()
            cond = self.value()
            self.expect("then")
            then = self.block()
            other = []
            if self.at("else"):
                self.take()
                other = self.block()
            return ("if", cond, then, other, line)
        if word == "let":
            self.take()
            items = [self.let_item()]
            while self.at(","):
                self.take()
                items.append(self.let_item())
            self.expect("in")
            return ("let", items, self.block(), line)
        raise self.error(f"cannot read a statement starting with {t[1]!r}")

    def skip_to(self, punct: str) -> None:
        depth = 0
        while True:
            t = self.take()
            if t[0] == "eof":
                raise self.error(f"missing {punct!r}")
            if t[0] == "punct" and t[1] in "([{<":
                depth += 1
            elif t[0] == "punct" and t[1] in ")]}>":
                depth -= 1
            elif t[0] == "punct" and t[1] == punct and depth <= 0:
                return

    def let_item(self):
        name = self.ident()
        if self.at("{"):
            raise self.error("bit ranges in `let` are not read")
        self.expect("=")
        return (name, self.value())

    def foreach_seq(self):
        if self.at("{"):
            raise self.error("`foreach x = {ranges}` is not read")
        if self.peek()[0] == "num" and self.at("...", 1):
            lo = self.take()[1]
            self.take()
            hi = self.take()[1]
            return ("list", tuple(("int", v) for v in range(int(lo), int(hi) + 1)), None)
        return self.value()

    def params(self) -> list:
        out = []
        if not self.at("<"):
            return out
        self.take()
        while not self.at(">"):
            self.type_()
            name = self.ident()
            default = None
            if self.at("="):
                self.take()
                default = self.value()
            out.append((name, default))
            if self.at(","):
                self.take()
        self.take()
        return out

    def parents(self) -> list:
        out = []
        if not self.at(":"):
            return out
        self.take()
        while True:
            name = self.ident()
            out.append((name,) + self.args())
            if not self.at(","):
                return out
            self.take()

    def args(self) -> tuple:
        """`<positional, ..., name = value, ...>` as (positional values, named values)."""
        pos, named = [], []
        if not self.at("<"):
            return (tuple(pos), tuple(named))
        self.take()
        while not self.at(">"):
            if self.peek()[0] == "id" and self.at("=", 1):
                name = self.ident()
                self.take()
                named.append((name, self.value()))
            else:
                pos.append(self.value())
            if self.at(","):
                self.take()
        self.take()
        return (tuple(pos), tuple(named))

    def body(self) -> list:
        if self.at(";"):
            self.take()
            return []
        self.expect("{")
        items = []
        while not self.at("}"):
            t = self.peek()
            if t[0] == "id" and t[1] in ("assert", "dump"):
                self.skip_to(";")
                continue
            if t[0] == "id" and t[1] == "let":
                self.take()
                name, val = self.let_item()
                items.append(("let", name, val))
            elif t[0] == "id" and t[1] == "defvar":
                self.take()
                name = self.ident()
                self.expect("=")
                items.append(("defvar", name, self.value()))
            else:
                if self.at("field"):
                    self.take()
                self.type_()
                name = self.ident()
                val = None
                if self.at("="):
                    self.take()
                    val = self.value()
                items.append(("field", name, val))
            self.expect(";")
        self.take()
        if self.at(";"):
            self.take()
        return items

    def type_(self) -> None:
        name = self.ident()
        if name in ("bits", "list") or (self.at("<") and name not in _TYPES):
            self.expect("<")
            if self.peek()[0] == "num":
                self.take()
            else:
                self.type_()
            self.expect(">")

    # values -------------------------------------------------------------------------------
    def value(self):
        val = self.simple()
        while True:
            if self.at("."):
                self.take()
                val = ("field", val, self.ident())
            elif self.at("["):
                self.take()
                idx = [self.value()]
                while self.at(","):
                    self.take()
                    idx.append(self.value())
                self.expect("]")
                val = ("index", val, tuple(idx))
            elif self.at("#"):
                self.take()
                if self.at(">") or self.at(",") or self.at(";") or self.at(")") or self.at("]"):
                    continue
                val = ("paste", val, self.simple_with_suffix())
            else:
                return val

    def simple_with_suffix(self):
        val = self.simple()
        while self.at(".") or self.at("["):
            if self.at("."):
                self.take()
                val = ("field", val, self.ident())
            else:
                self.take()
                idx = [self.value()]
                self.expect("]")
                val = ("index", val, tuple(idx))
        return val

    def simple(self):
        t = self.take()
        kind, v, line = t
        if kind == "num":
            return ("int", v)
        if kind == "str":
            s = str(v)
            while self.peek()[0] == "str":
                s += str(self.take()[1])
            return ("str", s)
        if kind == "code":
            return ("code", v)
        if kind == "punct" and v == "?":
            return ("unset",)
        if kind == "punct" and v == "[":
            items = []
            while not self.at("]"):
                items.append(self.value())
                if self.at(","):
                    self.take()
            self.take()
            if self.at("<"):
                self.take()
                self.type_()
                self.expect(">")
            return ("list", tuple(items), None)
        if kind == "punct" and v == "(":
            return self.dag()
        if kind == "punct" and v == "{":
            raise TableGenError(f"{self.file}:{line}: bit lists {{...}} are not read")
        if kind == "bang":
            return self.bang(str(v)[1:], line)
        if kind == "id":
            if v == "true":
                return ("int", 1)
            if v == "false":
                return ("int", 0)
            if self.at("<"):
                pos, named = self.args()
                return ("anon", v, pos, named)
            return ("id", v)
        raise TableGenError(f"{self.file}:{line}: cannot read a value starting with {v!r}")

    def dag(self):
        op = self.value()
        if self.at(":"):  # a named operator, (op:$this ...)
            self.take()
            self.take()
        args = []
        while not self.at(")"):
            if self.peek()[0] == "var":
                args.append((None, self.take()[1]))
            else:
                val = self.value()
                name = None
                if self.at(":"):
                    self.take()
                    t = self.take()
                    name = t[1]
                args.append((val, name))
            if self.at(","):
                self.take()
        self.take()
        return ("dag", op, tuple(args))

    def bang(self, op: str, line: int):
        typ = None
        if self.at("<"):
            self.take()
            typ = self.ident()
            while not self.at(">"):
                self.take()
            self.take()
        self.expect("(")
        args = []
        if op == "cond":
            while not self.at(")"):
                cond = self.value()
                self.expect(":")
                args.append((cond, self.value()))
                if self.at(","):
                    self.take()
        else:
            while not self.at(")"):
                args.append(self.value())
                if self.at(","):
                    self.take()
        self.take()
        return ("bang", op, typ, tuple(args), line)


def parse(text: str, file: str) -> list:
    """The statements of a `.td` file; raises TableGenError naming the file and line."""
    return Parser(text, file).statements()
