"""CuTe's layout algebra, as far as its traits need it: `Layout<Shape<...>, Stride<...>>` and the
aliases that name them (`using X = ...;`, `template <int N> using X = ...;`), evaluated as
functions from colexicographic coordinates to offsets (`sum(coordinate_i * stride_i)`).

`points` gives a (thread, value) layout's offsets; `evaluate` reads them as positions of a
column-major (rows x cols) matrix and checks what a thread-value layout of a register fragment
must be (in range, one element per position, the spec's counts): a layout that fails is a
finding (`NotEvaluable`), a type this reader does not evaluate is `Unknown` (not checked).
"""
from __future__ import annotations

import re
from typing import Any

from ptxspec.core.lazy import np

_USING = re.compile(r"using\s+(\w+)\s*=\s*([^;]+);")
_TEMPLATE = re.compile(r"template\s*<([^<>]*)>\s*$")  # right before a `using`: its parameters
_CONSTANT = re.compile(r"using\s+(\w+)\s*=\s*(?:cute::)?constant<\s*u?int\d*_t\s*,\s*\(?\s*(\d+)\s*"
                       r"(?:<<\s*(\d+))?\s*\)?\s*>\s*;")
_TOKEN = re.compile(r"\s*([\w:]+|<|>|,|[-+*/()])")


class NotEvaluable(Exception):
    """The layout fails on its own terms (a finding)."""


class Unknown(Exception):
    """A type this reader does not evaluate (not a finding: reported as not checked)."""


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Unknown(f"cannot read `{text}`")
        out.append(m.group(1))
        pos = m.end()
    return out


class Types:
    """Aliases (`using X = ...;`, `template <int N> using X = ...;`) and their evaluation."""

    def __init__(self):
        self.aliases: dict[str, tuple[tuple[str, ...], str]] = {}
        self.heads: dict[str, str] = {}  # alias -> the name its type starts with (templates of any kind)
        self.cache: dict[tuple, object] = {}  # evaluations, or why they failed, since the last file added

    def add_file(self, text: str) -> None:
        self.cache.clear()
        for m in _CONSTANT.finditer(text) if "constant<" in text else ():  # `using DP_b = cute::constant<int32_t, (1 << 21)>;`
            self.aliases.setdefault(m.group(1), ((), str(int(m.group(2)) << int(m.group(3) or 0))))
        for m in _USING.finditer(text):  # `using` first: a literal the regex engine finds fast
            t = _TEMPLATE.search(text, max(0, m.start() - 300), m.start())
            template = t.group(1) if t else None
            self.heads.setdefault(m.group(1), m.group(2).split("<")[0].split("::")[-1].strip())
            params = tuple(p.split()[-1] for p in (template or "").split(",") if p.strip())
            if template and not all(p.strip().startswith("int") for p in template.split(",")):
                continue
            self.aliases.setdefault(m.group(1), (params, " ".join(m.group(2).split())))

    def eval(self, text: str, env: dict | None = None, depth: int = 0) -> Any:
        key = (text, tuple(sorted((env or {}).items())))
        if key not in self.cache:
            try:
                self.cache[key] = self._eval(text, env, depth)
            except (Unknown, NotEvaluable) as exc:
                self.cache[key] = exc
        val = self.cache[key]
        if isinstance(val, Exception):
            raise val
        return val

    def _eval(self, text: str, env: dict | None, depth: int):
        toks = _tokens(text)
        val, i = self._node(toks, 0, env or {}, depth)
        if i != len(toks):
            raise Unknown(f"cannot read `{text}`")
        return val

    def _node(self, toks, i, env, depth):
        if depth > 30:
            raise Unknown("aliases nest too deep")
        name = toks[i]
        args: list = []
        j = i + 1
        if j < len(toks) and toks[j] == "<":
            j += 1
            start = j
            level = 0
            raw_args, cur = [], []
            while j < len(toks):
                t = toks[j]
                if t == "<":
                    level += 1
                elif t == ">":
                    if level == 0:
                        break
                    level -= 1
                if t == "," and level == 0:
                    raw_args.append(cur)
                    cur = []
                else:
                    cur.append(t)
                j += 1
            if cur or j > start:
                raw_args.append(cur)
            j += 1
            args = raw_args
        return self._apply(name.split("::")[-1], args, env, depth), j

    def _arg(self, toks, env, depth):
        if ("<" not in toks and any(t in ("+", "-", "*", "/", "(", ")") for t in toks)) or \
                (len(toks) == 1 and (toks[0] in env or toks[0].isdigit())):
            expr = " ".join(str(env.get(t, t)) for t in toks).replace("/", "//")
            if not re.fullmatch(r"[\d\s+\-*/()]+", expr):
                raise Unknown(f"cannot evaluate `{' '.join(toks)}`")
            return int(eval(expr, {"__builtins__": {}}))  # digits and + - * // ( ) only, checked above
        val, k = self._node(toks, 0, env, depth + 1)
        if k != len(toks):
            raise Unknown(f"cannot read `{' '.join(toks)}`")
        return val

    def _apply(self, name, args, env, depth):
        if re.fullmatch(r"_\d+", name):
            return int(name[1:])
        if name.isdigit():
            return int(name)
        if name in env:
            return env[name]
        vals = [self._arg(a, env, depth) for a in args]
        if name == "Int":
            return vals[0]
        if name in ("Shape", "Stride", "tuple"):
            return tuple(vals)
        if name == "Layout":
            shape = vals[0]
            return (shape, vals[1] if len(vals) > 1 else compact(shape))
        if name in self.aliases:
            params, body = self.aliases[name]
            if len(params) != len(vals):
                raise Unknown(f"{name} takes {len(params)} arguments")
            return self.eval(body, dict(zip(params, vals)), depth + 1)
        raise Unknown(f"unknown type {name}")


def compact(shape, start: int = 1):
    """CuTe's default (column-major) strides of a shape."""
    if isinstance(shape, int):
        return start
    out, s = [], start
    for sub in shape:
        out.append(compact(sub, s))
        s *= size(sub)
    return tuple(out)


def size(shape) -> int:
    return shape if isinstance(shape, int) else int(np.prod([size(s) for s in shape]))


def _flat(shape, stride) -> list[tuple[int, int]]:
    if isinstance(shape, int) != isinstance(stride, int):
        raise NotEvaluable("its shape and stride have different ranks")
    if isinstance(shape, int):
        return [(shape, stride)]
    if len(shape) != len(stride):
        raise NotEvaluable(f"its shape has {len(shape)} modes where its stride has {len(stride)}")
    return [x for s, d in zip(shape, stride) for x in _flat(s, d)]


def offsets(mode_shape, mode_stride) -> np.ndarray:
    """The offset of each index of one mode (colexicographic coordinates)."""
    out = np.zeros(1, dtype=np.int64)
    for s, d in _flat(mode_shape, mode_stride):  # the first sub-mode varies fastest
        out = (np.arange(s, dtype=np.int64)[:, None] * d + out[None, :]).reshape(-1)
    return out


def points(layout) -> np.ndarray:
    """(threads, values): the offset of each (thread, value) of a two-mode layout."""
    shape, stride = layout
    if isinstance(shape, int) or len(shape) != 2:
        raise NotEvaluable("it is no (thread, value) layout of two modes")
    if isinstance(stride, int) or len(stride) != 2:
        raise NotEvaluable("its stride has no two modes")
    return offsets(shape[0], stride[0])[:, None] + offsets(shape[1], stride[1])[None, :]


def evaluate(layout, rows: int, cols: int, threads: int, values: int) -> np.ndarray:
    """(threads, values, 2): (row, col) of each element; raises NotEvaluable."""
    idx = points(layout)
    if idx.shape != (threads, values):
        raise NotEvaluable(f"it has {idx.shape[0]} threads x {idx.shape[1]} values where the spec has "
                           f"{threads} x {values}")
    if idx.min() < 0 or idx.max() >= rows * cols:
        raise NotEvaluable(f"it reaches position {int(idx.max())} of a {rows} x {cols} matrix")
    if np.bincount(idx.ravel(), minlength=rows * cols).max() > 1:
        raise NotEvaluable("it puts two elements on one position")
    return np.stack([idx % rows, idx // rows], axis=-1)
