"""TableGen statements (`tablegen.parse`) given meaning: classes instantiated, multiclasses expanded,
`foreach`/`if`/`let` executed, records built with their fields, as `llvm-tblgen` would.

Fields are evaluated lazily and bound late, as TableGen resolves them: a field's expression sees
the template arguments of the class that wrote it and every field of the finished record, so a
subclass's `let` reaches the parent's expressions. Precedence of a field's value: parent classes,
then the class body, then the `let ... in` around the class; for a `def`, the `let ... in` around
it (a multiclass's own, then those around its `defm`), then the `def`'s body. Anonymous class
instances (`C<args>.field`) are built once per class and arguments, as TableGen uniques them.

Names defined outside the files read (register classes, operand types, predicates from
`NVPTXInstrInfo.td`) evaluate to `Sym(name)`; a field of one is an `EvalError`. Classes outside
the files are recorded by name with their arguments (`Rec.targs`), except the few instruction
classes whose fields the reader needs, whose rule `NATIVE` applies itself (`llvm` describes them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ptxspec.audit.tablegen import TableGenError


class EvalError(Exception):
    """A value the evaluator cannot compute (an undefined record's field, an unknown `!` operator)."""


@dataclass(frozen=True)
class Sym:
    """A record defined outside the files read, known by its name only."""
    name: str


@dataclass(frozen=True)
class Dag:
    op: object
    args: tuple  # ((value, name or None), ...)


class _Unset:
    def __repr__(self) -> str:
        return "?"


UNSET = _Unset()


class Env:
    __slots__ = ("vars", "parent")

    def __init__(self, vars_: dict, parent: "Env | None" = None):
        self.vars, self.parent = vars_, parent


class Lazy:
    """An expression evaluated on first use, in the environment it was written in."""
    __slots__ = ("expr", "env", "rec", "value", "done")

    def __init__(self, expr, env, rec):
        self.expr, self.env, self.rec, self.done = expr, env, rec, False
        self.value: Any = None


class Computed:
    """A field value a native class computes on first use."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


class Rec:
    """A record: its name, its classes (outermost last), the arguments of classes outside the files,
    its fields (name -> Lazy or value), where it was defined."""
    __slots__ = ("name", "classes", "targs", "fields", "cache", "busy", "file", "line")

    def __init__(self, name: str, file: str = "", line: int = 0):
        self.name, self.file, self.line = name, file, line
        self.classes: list[str] = []
        self.targs: dict[str, tuple] = {}
        self.fields: dict[str, object] = {}
        self.cache: dict[str, object] = {}
        self.busy: set[str] = set()

    def __repr__(self) -> str:
        return f"Rec({self.name})"


@dataclass
class _Class:
    name: str
    params: list
    parents: list
    body: list
    lets: tuple
    file: str


@dataclass
class _Ctx:
    lets: tuple = ()  # ((name, expr, env), ...) of the `let ... in` around a statement
    prefix: str | None = None  # the defm name inside a multiclass
    sink: list | None = None  # records of the enclosing defset or defm
    site: int = 0  # the line of the outermost defm
    file: str = ""


def to_str(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (Sym, Rec)):
        return v.name
    raise EvalError(f"cannot use {v!r} as a string")


def _same(a, b) -> bool:
    if isinstance(a, (Sym, Rec)) and isinstance(b, (Sym, Rec)):
        return a is b or a.name == b.name
    return a == b


def _mentions_name(expr) -> bool:
    if isinstance(expr, tuple):
        if expr[:2] == ("id", "NAME"):
            return True
        return any(_mentions_name(x) for x in expr[1:])
    return False


class Evaluator:
    def __init__(self, natives: dict):
        self.natives = natives  # class name -> fn(evaluator, rec, args: list[Lazy])
        self.classes: dict[str, _Class] = {}
        self.multis: dict[str, _Class] = {}
        self.root = Env({})
        self.by_name: dict[str, Rec] = {}
        self.records: list[Rec] = []
        self.anon: dict[tuple, Rec] = {}
        self.failures: list[tuple[str, int, str]] = []  # (file, line, why) of statements not executed
        self.count = 0

    # records -----------------------------------------------------------------------------
    def force(self, lazy: Lazy) -> Any:
        if not lazy.done:
            lazy.value = self.ev(lazy.expr, lazy.env, lazy.rec)
            lazy.done = True
        return lazy.value

    def field(self, rec: Rec, name: str) -> Any:
        if name in rec.cache:
            return rec.cache[name]
        if name not in rec.fields:
            raise EvalError(f"{rec.name} has no field {name}")
        if name in rec.busy:
            raise EvalError(f"{rec.name}.{name} refers to itself")
        rec.busy.add(name)
        try:
            slot = rec.fields[name]
            val = self.force(slot) if isinstance(slot, Lazy) else slot.fn() if isinstance(slot, Computed) else slot
        finally:
            rec.busy.discard(name)
        rec.cache[name] = val
        return val

    def apply_class(self, rec: Rec, name: str, args: list, named: dict) -> None:
        """Make `rec` an instance of class `name` with argument Lazies `args`/`named`."""
        if name in self.natives:
            self.natives[name](self, rec, args, named)
            rec.classes.append(name)
            return
        cls = self.classes.get(name)
        if cls is None:
            rec.classes.append(name)
            rec.targs[name] = tuple(args)
            return
        env = Env({"NAME": rec.name}, self.root)
        for i, (pname, default) in enumerate(cls.params):
            if i < len(args):
                env.vars[pname] = args[i]
            elif pname in named:
                env.vars[pname] = named[pname]
            elif default is not None:
                env.vars[pname] = Lazy(default, env, rec)
            else:
                env.vars[pname] = UNSET
        for pname, ppos, pnamed in cls.parents:
            self.apply_class(rec, pname, [Lazy(a, env, rec) for a in ppos],
                             {k: Lazy(v, env, rec) for k, v in pnamed})
        self.apply_body(rec, cls.body, env)
        for lname, lexpr, lenv in cls.lets:
            rec.fields[lname] = Lazy(lexpr, lenv, rec)
        rec.classes.append(name)

    def apply_body(self, rec: Rec, body: list, env: Env) -> None:
        for item in body:
            if item[0] == "defvar":
                env.vars[item[1]] = Lazy(item[2], env, rec)
            elif item[0] == "let" or item[2] is not None:
                rec.fields[item[1]] = Lazy(item[2], env, rec)
            elif item[1] not in rec.fields:
                rec.fields[item[1]] = UNSET

    def instance(self, cname: str, args: tuple, named: tuple) -> Rec:
        key = (cname, args, named)
        rec = self.anon.get(key)
        if rec is None:
            self.count += 1
            rec = Rec(f"anonymous_{self.count}")
            self.anon[key] = rec
            self.apply_class(rec, cname, list(args), dict(named))
        return rec

    # values ------------------------------------------------------------------------------
    def lookup(self, name: str, env: Env, rec: Rec | None, as_name: bool = False) -> Any:
        e = env
        while e is not None and e is not self.root:
            if name in e.vars:
                v = e.vars[name]
                return self.force(v) if isinstance(v, Lazy) else v
            e = e.parent
        if rec is not None and name in rec.fields:
            return self.field(rec, name)
        if name in self.root.vars:
            v = self.root.vars[name]
            return self.force(v) if isinstance(v, Lazy) else v
        if name in self.by_name:
            return self.by_name[name]
        return name if as_name else Sym(name)

    def ev(self, e, env: Env, rec: Rec | None, as_name: bool = False) -> Any:
        k = e[0]
        if k in ("int", "str", "code"):
            return e[1]
        if k == "id":
            return self.lookup(e[1], env, rec, as_name)
        if k == "paste":
            a, b = self.ev(e[1], env, rec, as_name), self.ev(e[2], env, rec, as_name)
            if isinstance(a, tuple) and isinstance(b, tuple):
                return a + b
            return to_str(a) + to_str(b)
        if k == "list":
            return tuple(self.ev(x, env, rec) for x in e[1])
        if k == "field":
            base = self.ev(e[1], env, rec)
            if isinstance(base, Rec):
                return self.field(base, e[2])
            raise EvalError(f"{to_str(base) if isinstance(base, Sym) else base!r}.{e[2]}: "
                            "not a record of the files read")
        if k == "index":
            base = self.ev(e[1], env, rec)
            idx = self.ev(e[2][0], env, rec)
            try:
                return base[idx]
            except (IndexError, TypeError, KeyError):
                raise EvalError(f"cannot index {base!r} with {idx!r}") from None
        if k == "anon":
            args = tuple(self.ev(x, env, rec) for x in e[2])
            named = tuple((n, self.ev(x, env, rec)) for n, x in e[3])
            return self.instance(e[1], args, named)
        if k == "dag":
            op = self.ev(e[1], env, rec)
            return Dag(op, tuple((UNSET if v is None else self.ev(v, env, rec), n) for v, n in e[2]))
        if k == "bang":
            return self.bang(e, env, rec)
        if k == "unset":
            return UNSET
        raise EvalError(f"cannot evaluate {k}")

    def bang(self, e, env: Env, rec: Rec | None) -> Any:
        op, typ, args = e[1], e[2], e[3]

        def v(i):
            return self.ev(args[i], env, rec)

        if op == "if":
            return v(1) if v(0) else v(2)
        if op == "cond":
            for cond, val in args:
                if self.ev(cond, env, rec):
                    return self.ev(val, env, rec)
            raise EvalError("no !cond condition holds")
        if op in ("foreach", "filter"):
            var, seq = args[0][1], v(1)
            if isinstance(seq, Dag):
                return Dag(seq.op, tuple((self.ev(args[2], Env({var: a}, env), rec), n) for a, n in seq.args))
            if op == "foreach":
                return tuple(self.ev(args[2], Env({var: x}, env), rec) for x in seq)
            return tuple(x for x in seq if self.ev(args[2], Env({var: x}, env), rec))
        if op == "foldl":
            acc, seq, a, b = v(0), v(1), args[2][1], args[3][1]
            for x in seq:
                acc = self.ev(args[4], Env({a: acc, b: x}, env), rec)
            return acc
        if op in ("and", "or"):
            out = None
            for i in range(len(args)):
                x = v(i)
                out = x if out is None else (out & x if op == "and" else out | x)
                if (op == "and" and not out) or (op == "or" and out == 1):
                    return out
            return out
        vals = [v(i) for i in range(len(args))]
        return self.operator(op, typ, vals)

    def operator(self, op: str, typ, a: list) -> Any:
        if op == "eq":
            return int(_same(a[0], a[1]))
        if op == "ne":
            return int(not _same(a[0], a[1]))
        if op in ("lt", "le", "gt", "ge"):
            x, y = a
            return int({"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op])
        if op == "not":
            return int(not a[0])
        if op in ("add", "mul"):
            out = a[0]
            for x in a[1:]:
                out = out + x if op == "add" else out * x
            return out
        simple = {"sub": lambda: a[0] - a[1], "div": lambda: a[0] // a[1], "shl": lambda: a[0] << a[1],
                  "srl": lambda: a[0] >> a[1], "xor": lambda: a[0] ^ a[1],
                  "strconcat": lambda: "".join(to_str(x) for x in a),
                  "listconcat": lambda: tuple(x for lst in a for x in lst),
                  "listsplat": lambda: (a[0],) * a[1], "size": lambda: len(a[0].args if isinstance(a[0], Dag) else a[0]),
                  "empty": lambda: int(len(a[0].args if isinstance(a[0], Dag) else a[0]) == 0),
                  "tolower": lambda: a[0].lower(), "toupper": lambda: a[0].upper(),
                  "interleave": lambda: a[1].join(to_str(x) for x in a[0]), "head": lambda: a[0][0],
                  "tail": lambda: a[0][1:], "repr": lambda: repr(a[0]), "initialized": lambda: int(a[0] is not UNSET),
                  "find": lambda: a[0].find(a[1], a[2] if len(a) > 2 else 0),
                  "substr": lambda: a[0][a[1]:] if len(a) < 3 else a[0][a[1]:a[1] + a[2]],
                  "getop": lambda: a[0].op, "setdagop": lambda: Dag(a[1], a[0].args),
                  "getdagname": lambda: a[0].args[a[1]][1], "getdagarg": lambda: a[0].args[a[1]][0],
                  "setdagarg": lambda: Dag(a[0].op, tuple((a[2], n) if i == a[1] else (x, n)
                                                          for i, (x, n) in enumerate(a[0].args))),
                  "con": lambda: Dag(a[0].op, tuple(x for d in a for x in d.args)),
                  "dag": lambda: Dag(a[0], tuple(zip(a[1], a[2]))),
                  "isa": lambda: int(isinstance(a[0], Rec) and typ in a[0].classes),
                  "exists": lambda: int(isinstance(a[0], str) and a[0] in self.by_name)}
        if op in simple:
            try:
                return simple[op]()
            except (TypeError, IndexError, AttributeError, ValueError) as exc:
                raise EvalError(f"!{op}: {exc}") from None
        if op == "range":
            if len(a) == 1:
                return tuple(range(len(a[0]) if isinstance(a[0], tuple) else a[0]))
            return tuple(range(a[0], a[1]))
        if op == "subst":
            return self.subst(a[0], a[1], a[2])
        if op == "cast":
            if typ == "string":
                return to_str(a[0])
            if isinstance(a[0], str):
                return self.by_name.get(a[0]) or Sym(a[0])
            return a[0]
        raise EvalError(f"!{op} is not evaluated")

    def subst(self, old, new, x):
        if isinstance(x, str) and isinstance(old, str):
            return x.replace(old, to_str(new)) if old else x
        if isinstance(x, Dag):
            return Dag(self.subst(old, new, x.op), tuple((self.subst(old, new, y), n) for y, n in x.args))
        if isinstance(x, tuple):
            return tuple(self.subst(old, new, y) for y in x)
        return new if _same(x, old) else x

    # statements --------------------------------------------------------------------------
    def run(self, statements: list, file: str) -> None:
        self.exec(statements, self.root, _Ctx(file=file))

    def exec(self, statements: list, env: Env, ctx: _Ctx) -> None:
        for st in statements:
            try:
                self.statement(st, env, ctx)
            except (EvalError, TableGenError, RecursionError) as exc:
                self.failures.append((ctx.file, st[-1], str(exc)))

    def statement(self, st, env: Env, ctx: _Ctx) -> None:
        k = st[0]
        if k == "class":
            self.classes[st[1]] = _Class(st[1], st[2], st[3], st[4], ctx.lets, ctx.file)
        elif k == "multiclass":
            self.multis[st[1]] = _Class(st[1], st[2], st[3], st[4], ctx.lets, ctx.file)
        elif k == "defvar":
            env.vars[st[1]] = Lazy(st[2], env, None)
        elif k == "def":
            self.define(st, env, ctx)
        elif k == "defm":
            self.defm(st, env, ctx)
        elif k == "defset":
            sink: list = []
            self.exec(st[2], env, _Ctx(ctx.lets, ctx.prefix, sink, ctx.site, ctx.file))
            self.root.vars[st[1]] = tuple(sink)
            if ctx.sink is not None:
                ctx.sink.extend(sink)
        elif k == "foreach":
            seq = self.ev(st[2], env, None)
            for item in (seq.args if isinstance(seq, Dag) else seq):
                self.exec(st[3], Env({st[1]: item}, env), ctx)
        elif k == "if":
            self.exec(st[2] if self.ev(st[1], env, None) else st[3], Env({}, env), ctx)
        elif k == "let":
            lets = ctx.lets + tuple((name, expr, env) for name, expr in st[1])
            self.exec(st[2], env, _Ctx(lets, ctx.prefix, ctx.sink, ctx.site, ctx.file))

    def name_of(self, expr, env: Env, ctx: _Ctx) -> str:
        if expr is None:
            self.count += 1
            return f"anonymous_{self.count}" if ctx.prefix is None else f"{ctx.prefix}anonymous_{self.count}"
        name = to_str(self.ev(expr, env, None, as_name=True))
        if ctx.prefix is not None and not _mentions_name(expr):
            name = ctx.prefix + name
        return name

    def define(self, st, env: Env, ctx: _Ctx) -> Rec:
        _, name_expr, parents, body, line = st
        rec = Rec(self.name_of(name_expr, env, ctx), ctx.file, ctx.site or line)
        local = Env({}, env)
        for pname, ppos, pnamed in parents:
            self.apply_class(rec, pname, [Lazy(a, local, rec) for a in ppos],
                             {k: Lazy(v, local, rec) for k, v in pnamed})
        for lname, lexpr, lenv in ctx.lets:
            rec.fields[lname] = Lazy(lexpr, lenv, rec)
        self.apply_body(rec, body, local)
        self.records.append(rec)
        self.by_name[rec.name] = rec
        if ctx.sink is not None:
            ctx.sink.append(rec)
        return rec

    def defm(self, st, env: Env, ctx: _Ctx) -> None:
        _, name_expr, parents, line = st
        prefix = self.name_of(name_expr, env, ctx) if name_expr is not None else self.name_of(None, env, ctx)
        made: list = []
        classes = []
        for pname, ppos, pnamed in parents:
            mc = self.multis.get(pname)
            if mc is None:
                classes.append((pname, ppos, pnamed))
                continue
            menv = Env({"NAME": prefix}, self.root)
            for i, (param, default) in enumerate(mc.params):
                given = dict(pnamed)
                if i < len(ppos):
                    menv.vars[param] = Lazy(ppos[i], env, None)
                elif param in given:
                    menv.vars[param] = Lazy(given[param], env, None)
                elif default is not None:
                    menv.vars[param] = Lazy(default, menv, None)
                else:
                    menv.vars[param] = UNSET
            inner = _Ctx(ctx.lets + mc.lets, prefix, made, ctx.site or line, ctx.file)
            self.exec(mc.body, menv, inner)
        for rec in made:
            for pname, ppos, pnamed in classes:
                self.apply_class(rec, pname, [Lazy(a, env, rec) for a in ppos],
                                 {k: Lazy(v, env, rec) for k, v in pnamed})
        if ctx.sink is not None:
            ctx.sink.extend(made)
