"""Run-time descriptor operands as data (spec/descriptors/*.yaml): tcgen05.mma's instruction
descriptor. Everything is evaluated from the spec's fields (bit positions, `encode` formulas,
per-kind codes, legal inputs) and shapes; no field constant lives here.

    from ptxspec import descriptors as D
    d = D.encode(spec, "kind::f16", m=128, n=256, dtype="f32", atype="f16", btype="f16")
    D.decode(spec, "kind::f16", d)      # {'m': 128, 'n': 256, 'dtype': 'f32', ..., 'problems': []}
    D.shapes(spec, "kind::f16", "cta_group::1")   # (M values, N values, K)

Field inputs: a number field takes the number it describes (m=128, n=256, a_scale_id=2); a code
field takes the name of a value (atype="bf16", sparse="sparse"); reserved fields are always
their value. A field left out takes its only legal value, or 0 where 0 is legal (a code field:
the value whose code is 0); M and N have no default.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.core.errors import Pos
from ptxspec.core.expr import Formula
from ptxspec.core.words import integer
from ptxspec.model.smem import invert_encode
from ptxspec.model.tmem import MetadataLayout, ScaleFactorLayout, SparsityRule, TmemLayout

__all__ = ["descriptor", "encode", "decode", "shapes", "DescriptorError"]


@dataclass(frozen=True)
class DescriptorField:
    """One bit field of a descriptor layout: a number (`encode` over x, `legal` inputs per selector
    value), a named value (`codes` per selector value), or a reserved constant."""
    name: str
    lsb: int
    width: int
    description: str
    encode: Formula | None = None  # over x, for a number field
    legal: dict = field(default_factory=dict)  # selector value ('' = any other) -> allowed inputs
    codes: dict = field(default_factory=dict)  # selector value ('' = any) -> {value name: code}
    reserved: int | None = None

    @property
    def what(self) -> str:
        return "reserved" if self.reserved is not None else "codes" if self.codes else "number"

    def legal_for(self, selector: str) -> tuple[int, ...] | None:
        return self.legal.get(selector, self.legal.get(""))

    def codes_for(self, selector: str) -> dict[str, int]:
        return self.codes.get(selector, self.codes.get("", {}))


@dataclass(frozen=True)
class DescriptorCombination:
    """A rule across code fields of a layout (PTX ISA Table 39): for the selector values it names,
    when every field of `when` holds one of its values, each field of `then` must hold one of its."""
    selectors: tuple[str, ...]
    when: tuple[tuple[str, tuple[str, ...]], ...]  # (field, value names), in the spec's order
    then: tuple[tuple[str, tuple[str, ...]], ...]
    manual: str
    description: str = ""

    def problem(self, selector: str, values: dict) -> str | None:
        """Why named field values break this rule for `selector`, or None when they keep it."""
        if selector not in self.selectors or any(values.get(f) not in allowed for f, allowed in self.when):
            return None
        bad = [f"{f} {values.get(f)!r}" for f, allowed in self.then if values.get(f) not in allowed]
        if not bad:
            return None
        when = " and ".join(f"{f} {'/'.join(v)}" for f, v in self.when)
        then = " and ".join(f"{f} {'/'.join(v)}" for f, v in self.then)
        return f"{', '.join(bad)} with {when} ({selector} takes {then} then, {self.manual})"


@dataclass(frozen=True)
class DescriptorLayout:
    name: str
    manual: str
    selectors: tuple[str, ...]  # the selector values (kinds) that use it
    fields: tuple[DescriptorField, ...]
    combinations: tuple[DescriptorCombination, ...] = ()

    def problems(self, selector: str, values: dict) -> list[str]:
        """What named code-field values break of the layout's combinations, for `selector`."""
        return [p for c in self.combinations if (p := c.problem(selector, values)) is not None]


@dataclass(frozen=True)
class DescriptorShape:
    """Table 39: the M and N a descriptor may give for some selector values, CTA group and .ws."""
    selectors: tuple[str, ...]
    cta_group: str
    ws: bool
    m: tuple[int, ...]
    n: tuple[int, ...]
    m_sparse: tuple[int, ...] | None = None
    n_sparse: tuple[int, ...] | None = None


@dataclass
class BitDescriptor:
    """A run-time descriptor operand as data (spec/descriptors/): tcgen05.mma's idesc."""
    family: str
    name: str
    operand_kind: str
    manual: str
    bits: int
    description: str
    selector: str  # the qualifier axis that picks the layout
    layouts: list[DescriptorLayout]
    shapes: list[DescriptorShape]
    k: dict[str, int]
    pos: Pos | None = None
    tmem_layouts: list[TmemLayout] = field(default_factory=list)
    scale_factor_layouts: list[ScaleFactorLayout] = field(default_factory=list)
    sparsity: list[SparsityRule] = field(default_factory=list)
    metadata_layouts: list[MetadataLayout] = field(default_factory=list)
    unstated: dict[str, str] = field(default_factory=dict)  # selector value without a layout -> why

    def layout(self, selector: str) -> DescriptorLayout:
        for lay in self.layouts:
            if selector in lay.selectors:
                return lay
        known = sorted(s for lay in self.layouts for s in lay.selectors)
        raise KeyError(f"{self.family} {self.name}: no layout for {self.selector} {selector!r} "
                       f"(the manual's tables give {', '.join(known)})")


class DescriptorError(ValueError):
    """A value the descriptor's layout cannot hold, or one the spec does not allow."""


def descriptor(spec, family: str = "tcgen05", name: str = "idesc") -> BitDescriptor:
    return spec.descriptor(family, name)


def _inverse(f):
    return invert_encode(f.name, f.encode, f.width)


def _number(f, x: int) -> int:
    code = int(f.encode(x=x))
    if x < 0 or code < 0 or code >> f.width or _decode_number(f, code) != x:
        raise DescriptorError(f"field {f.name}: {x} cannot be encoded in {f.width} bits ({f.description})")
    return code


def _decode_number(f, code: int) -> int:
    return sum(1 << vb for fb, vb in _inverse(f) if (code >> fb) & 1)


def _default(f, selector: str):
    if f.what == "codes":
        codes = f.codes_for(selector)
        if len(codes) == 1:
            return next(iter(codes))
        zero = [name for name, code in codes.items() if code == 0]
        return zero[0] if zero else None
    legal = f.legal_for(selector)
    if legal is None:
        return None
    return legal[0] if len(legal) == 1 else 0 if 0 in legal else None


def shapes(spec, selector: str, cta_group: str, ws: bool = False, sparse: bool = False,
           family: str = "tcgen05", name: str = "idesc"):
    """(legal M values, legal N values, K) for a kind, CTA group, .ws and sparsity; None when the
    spec lists no such combination."""
    d = descriptor(spec, family, name)
    for sh in d.shapes:
        if selector in sh.selectors and sh.cta_group == cta_group and sh.ws == ws:
            m = sh.m_sparse if sparse and sh.m_sparse else sh.m
            n = sh.n_sparse if sparse and sh.n_sparse else sh.n
            k = d.k.get(selector)
            return m, n, (k * 2 if sparse and k else k)
    return None


def encode(spec, selector: str, *, family: str = "tcgen05", name: str = "idesc", cta_group: str | None = None,
           ws: bool = False, **values) -> int:
    """The descriptor for a kind (`selector`) from field inputs, refused where the values break one
    of the layout's combinations (Table 39). With `cta_group`, M and N are also checked against the
    shapes the spec allows for it (and for .ws)."""
    d = descriptor(spec, family, name)
    lay = d.layout(selector)
    known = {f.name for f in lay.fields if f.what != "reserved"}
    unknown = sorted(set(values) - known)
    if unknown:
        raise DescriptorError(f"{selector}: no field {', '.join(unknown)} (fields: {', '.join(sorted(known))})")
    word = 0
    named: dict = {}
    for f in lay.fields:
        if f.reserved is not None:  # a reserved field: always its value
            word |= f.reserved << f.lsb
            continue
        value = values.get(f.name, _default(f, selector))
        if value is None:
            raise DescriptorError(f"{selector}: field {f.name} needs a value ({f.description})")
        if f.what == "codes":
            codes = f.codes_for(selector)
            if value not in codes:
                raise DescriptorError(f"{selector}: {f.name} {value!r} is not one of {sorted(codes)}")
            code = codes[value]
        else:
            legal = f.legal_for(selector)
            if legal is not None and int(value) not in legal:
                raise DescriptorError(f"{selector}: {f.name} = {value} is not one of {list(legal)}")
            code = _number(f, int(value))
        word |= code << f.lsb
        named[f.name] = value
    broken = lay.problems(selector, named)
    if broken:
        raise DescriptorError(f"{selector}: {'; '.join(broken)}")
    if cta_group is not None:
        sparse = values.get("sparse") == "sparse"
        allowed = shapes(spec, selector, cta_group, ws, sparse, family, name)
        if allowed is None:
            raise DescriptorError(f"{selector} has no shapes with {cta_group}{' and .ws' if ws else ''}")
        m, n, _ = allowed
        if values.get("m") not in m or values.get("n") not in n:
            raise DescriptorError(f"{selector}, {cta_group}{', .ws' if ws else ''}{', sparse' if sparse else ''}: "
                                  f"M = {values.get('m')}, N = {values.get('n')} is not a legal shape "
                                  f"(M in {list(m)}, N in {n[0]}..{n[-1]})")
    return word


def decode(spec, selector: str, word: int, family: str = "tcgen05", name: str = "idesc") -> dict:
    """Field values of a descriptor for a kind (numbers decoded, codes named; an unknown code is
    left as its number), and `problems`: what the spec's layout does not allow in it (reserved
    bits, codes and values, and combinations of values)."""
    d = descriptor(spec, family, name)
    lay = d.layout(selector)
    try:  # a word of the descriptor's width: a wider value is no descriptor, never masked silently
        word = integer(f"{family} {name}", word, 0, (1 << d.bits) - 1)
    except (TypeError, ValueError) as exc:
        raise DescriptorError(f"{exc} (a {d.bits}-bit descriptor)") from None
    out: dict = {}
    problems = []
    for f in lay.fields:
        code = (word >> f.lsb) & ((1 << f.width) - 1)
        if f.what == "reserved":
            if code != f.reserved:
                problems.append(f"{f.name} (bits {f.lsb}..{f.lsb + f.width - 1}) is {code}, not {f.reserved}")
            continue
        if f.what == "codes":
            names = {c: n for n, c in f.codes_for(selector).items()}
            out[f.name] = names.get(code, code)
            if code not in names:
                problems.append(f"{f.name}: code {code} means nothing for {selector}")
            continue
        x = _decode_number(f, code)
        out[f.name] = x
        legal = f.legal_for(selector)
        if legal is not None and x not in legal:
            problems.append(f"{f.name} = {x} is not one of {list(legal)} for {selector}")
    out["problems"] = problems + lay.problems(selector, out)
    return out
