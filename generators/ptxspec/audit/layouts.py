"""CuTe's MMA traits layouts, evaluated as shape:stride functions and compared with the spec's maps.

A CuTe thread-value layout maps (thread, value) to a position in the operand's matrix, stored
column-major: A as (M, K), B as (N, K), C/D as (M, N). `Layout<Shape<...>, Stride<...>>` is the
function `sum(coordinate_i * stride_i)` over the colexicographic coordinates of each mode. Every
element of every thread is compared with the spec's fragment map of the variant the traits' atom
emits (`Variant.fragment`). A layout that does not evaluate (shape and stride of different ranks,
a position outside the matrix, two elements on one position, a count unlike the spec's) is a
finding, not an error of the audit.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from ptxspec.audit.findings import Binding, Finding
from ptxspec.audit.match import Matcher
from ptxspec.audit.peer_asm import Lines

_ALIAS = re.compile(r"(?:template\s*<([^<>]*)>\s*)?using\s+(\w+)\s*=\s*([^;]+);")
_TRAITS = re.compile(r"struct\s+MMA_Traits\s*<\s*([\w:]+)\s*(?:<[^{;]*?>)?\s*>\s*(?::\s*MMA_Traits\s*<\s*([\w:]+))?")
_MEMBER = re.compile(r"using\s+(ALayout|BLayout|CLayout|ThrID|Shape_MNK)\s*=\s*([^;]+);")
_TOKEN = re.compile(r"\s*([\w:]+|<|>|,|[-+*/()])")
OPERANDS = (("ALayout", "a", "A"), ("BLayout", "b", "B"), ("CLayout", "d", "C"))


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

    def add_file(self, text: str) -> None:
        for m in _ALIAS.finditer(text):
            self.heads.setdefault(m.group(2), m.group(3).split("<")[0].split("::")[-1].strip())
            params = tuple(p.split()[-1] for p in (m.group(1) or "").split(",") if p.strip())
            if m.group(1) and not all(p.strip().startswith("int") for p in m.group(1).split(",")):
                continue
            self.aliases.setdefault(m.group(2), (params, " ".join(m.group(3).split())))

    def eval(self, text: str, env: dict | None = None, depth: int = 0):
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


def evaluate(layout, rows: int, cols: int, threads: int, values: int) -> np.ndarray:
    """(threads, values, 2): (row, col) of each element; raises NotEvaluable."""
    shape, stride = layout
    if isinstance(shape, int) or len(shape) != 2:
        raise NotEvaluable("it is no (thread, value) layout of two modes")
    if isinstance(stride, int) or len(stride) != 2:
        raise NotEvaluable("its stride has no two modes")
    t_off, v_off = offsets(shape[0], stride[0]), offsets(shape[1], stride[1])
    if len(t_off) != threads or len(v_off) != values:
        raise NotEvaluable(f"it has {len(t_off)} threads x {len(v_off)} values where the spec has "
                           f"{threads} x {values}")
    idx = t_off[:, None] + v_off[None, :]
    if idx.min() < 0 or idx.max() >= rows * cols:
        raise NotEvaluable(f"it reaches position {int(idx.max())} of a {rows} x {cols} matrix")
    if np.bincount(idx.ravel(), minlength=rows * cols).max() > 1:
        raise NotEvaluable("it puts two elements on one position")
    return np.stack([idx % rows, idx // rows], axis=-1)


def _body(text: str, start: int) -> str:
    """A traits struct's body: from its brace to the first `};` (traits hold no nested braces)."""
    i = text.find("{", start)
    j = text.find("};", i)
    return text[i:j + 2 if j >= 0 else len(text)]


def read_traits(root: Path):
    """Per traits name: (file, line, base, {member: type text}); and the types of every file."""
    types = Types()
    traits = {}
    files = sorted((root / "cute" / "atom").glob("mma_traits*.hpp")) + sorted((root / "cute" / "arch").glob("mma*.hpp"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        types.add_file(text)
        if path.parent.name != "atom":
            continue
        rel = path.relative_to(root).as_posix()
        line_of = Lines(text)
        for m in _TRAITS.finditer(text):
            members = {k: " ".join(v.split()) for k, v in _MEMBER.findall(_body(text, m.end()))}
            traits.setdefault(m.group(1).split("::")[-1], (rel, line_of(m.start()), m.group(2), members))
    return types, traits


def _atom(types: Types, name: str, structs: dict) -> str:
    """The arch struct an MMA op name (or its alias) stands for."""
    seen = 0
    while name not in structs and name in types.heads and seen < 5:
        name = types.heads[name]
        seen += 1
    return name


def check(spec, root: Path, bindings: list[Binding], scope) -> tuple[list[Finding], int, list[str]]:
    types, traits = read_traits(root)
    matcher = Matcher(spec)
    by_struct: dict[str, list[Binding]] = defaultdict(list)
    for b in bindings:
        by_struct[b.name].append(b)
    findings, checked, unknown = [], 0, defaultdict(int)
    memo: dict[tuple, Finding | None] = {}  # one evaluation per layout and map (CuTe repeats them by the hundred)
    for name, (rel, line, base, members) in sorted(traits.items()):
        merged, b2 = dict(members), base
        while b2 and b2.split("::")[-1] in traits:
            for k, v in traits[b2.split("::")[-1]][3].items():
                merged.setdefault(k, v)
            b2 = traits[b2.split("::")[-1]][2]
        atom = by_struct.get(_atom(types, name, by_struct), [])
        vids = [v for b in atom for v in matcher.match(b).variants]
        if not vids:
            continue
        v = spec.variant(vids[0])
        for member, operand, letter in OPERANDS:
            if member not in merged or not any(o.kind == "fragment" and operand in (o.matrix, o.name)
                                               for o in v.operands):
                continue  # the operand is no register fragment of the variant (wgmma's A from a descriptor)
            if v.sparse and operand == "a":
                unknown["sparse A (compressed K) is not compared"] += 1
                continue
            try:
                thr = types.eval(merged.get("ThrID", f"Layout<_{v.threads}>"))
                if thr != (v.threads, 1):
                    raise Unknown(f"a thread mapping other than the identity ({merged.get('ThrID')})")
                lay = types.eval(merged[member])
            except Unknown as exc:
                unknown[str(exc)] += 1
                continue
            rows, cols = _dims(v, letter)
            checked += 1
            key = (merged[member], letter, rows, cols, v.fragment_layouts[operand][0].name,
                   v.fragment_layouts[operand][1], v.threads)
            if key not in memo:
                memo[key] = _compare(v, "", "", 0, member, merged[member], lay, v.fragment(operand), rows, cols,
                                     letter)
            f = _located(memo[key], name, rel, line, member, v)
            if f:
                findings.append(f)
    notes = [f"{n} traits layouts not evaluated: {why}" for why, n in sorted(unknown.items())]
    notes.append("copy traits (ldmatrix/stmatrix, tensor-memory loads) and SFALayout/SFBLayout are read for their "
                 "asm and targets only: their layouts are not compared")
    return findings, checked, notes


def _located(f: Finding | None, name: str, rel: str, line: int, member: str, v) -> Finding | None:
    """A memoized comparison's finding, placed at this traits struct."""
    if f is None:
        return None
    return Finding(f.kind, f.severity, rel, line, f"{name}::{member} {f.message}", f"{name}::{member}", (v.id,),
                   f.evidence, f.status, f.judge, f.verdict)


def _dims(v, letter: str) -> tuple[int, int]:
    m, n, k = v.m or 0, v.n or 0, v.k or 0
    return {"A": (m, k), "B": (n, k), "C": (m, n)}[letter]


def _compare(v, name, rel, line, member, text, lay, ref, rows, cols, letter) -> Finding | None:
    threads, values = ref.shape[0], ref.shape[1]
    try:
        got = evaluate(lay, rows, cols, threads, values)
    except NotEvaluable as exc:
        return Finding("layout", "error", rel, line, f"`{text}` does not evaluate: {exc}",
                       f"{name}::{member}", (v.id,), {"layout": text}, "confirmed", "layout algebra",
                       "the layout fails on its own terms")
    if letter == "B":  # CuTe (n, k) against the spec's (row k, col n)
        got = got[..., ::-1]
    diff = np.argwhere((got != ref).any(axis=-1))
    if not len(diff):
        return None
    first = [f"thread {t} value {e}: CuTe ({got[t, e, 0]}, {got[t, e, 1]}), spec ({ref[t, e, 0]}, {ref[t, e, 1]})"
             for t, e in diff[:3]]
    proven = not v.hardware.startswith("not")
    return Finding("layout", "error", rel, line,
                   f"`{text}` puts {len(diff)} of {threads * values} elements elsewhere than the spec's map "
                   f"of {v.id} operand {letter}: " + "; ".join(first), f"{name}::{member}", (v.id,),
                   {"layout": text, "differing": int(len(diff)), "first": first, "hardware": v.hardware},
                   "confirmed" if proven else "unadjudicated", "spec maps" if proven else "",
                   f"the spec's map is proven: {v.hardware}" if proven else f"the spec's map is {v.hardware}")
