"""Where in the YAML a change comes from.

A variant records, per field group, the YAML nodes that determined it (`Variant.sources`, most
specific first). The cause of a change is the first of those nodes whose content (descriptions
aside) differs from its twin in the other tree, narrowed to the first value inside it that
differs. Definitions (layouts, types, targets, errata, ...) are found by name in the side's
`Index`.
"""
from __future__ import annotations

from typing import Any

from ptxspec.core.errors import Pos, PosDict, PosList

_DESCRIPTIVE = frozenset({"description", "why"})

#: What each kind of variant change looks at, in `Variant.sources` keys, most telling first.
#: "fragment" and "operand" take the matrix of the operand concerned (`fragment.<matrix>`).
SOURCE_KEYS = {
    "membership": ("shape", "types", "qualifiers", "sparsity", "opcode"),
    "renamed": ("opcode", "qualifiers", "shape", "types"),
    "requirement": ("requirement",),
    "operand": ("operands", "fragment.{matrix}", "sparsity", "qualifiers"),
    "fragment": ("fragment.{matrix}", "types"),
    "sparsity": ("sparsity",),
}


def first_diff(a, b) -> Pos | None:
    """Position, inside `a`, of the first value that differs from `b`; None when equal."""
    if a == b:
        return None
    if isinstance(a, PosDict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                return a.at(key)
            if a[key] != b[key]:
                return first_diff(a[key], b[key]) or a.at(key)
        return a.pos  # a key of b is missing from a
    if isinstance(a, PosList) and isinstance(b, list):
        for i, item in enumerate(a):
            if i >= len(b):
                return a.at(i)
            if item != b[i]:
                return first_diff(item, b[i]) or a.at(i)
        return a.pos  # a is shorter
    return None  # scalars: the caller knows the key's position


class Stripped:
    """A positioned YAML node seen without its descriptive keys (for first_diff)."""

    def __new__(cls, node, drop=frozenset({"description"})) -> Any:
        if isinstance(node, PosDict):
            out = PosDict({k: cls(v, drop) for k, v in node.items() if k not in drop})
            out.pos, out.key_pos = node.pos, node.key_pos
            return out
        if isinstance(node, PosList):
            out = PosList(cls(v, drop) for v in node)
            out.pos, out.item_pos = node.pos, node.item_pos
            return out
        return node


def first_description_diff(a, b) -> Pos | None:
    """Position in `a` of the first `description` whose text differs from `b`'s."""
    if isinstance(a, PosDict) and isinstance(b, dict):
        for key in a:
            if key == "description":
                if a[key] != b.get(key):
                    return a.at(key)
            elif key in b:
                p = first_description_diff(a[key], b[key])
                if p:
                    return p
    elif isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            p = first_description_diff(x, y)
            if p:
                return p
    return None


def diff_key(a, b, key) -> Pos | None:
    """Position inside mapping `a` of what differs at `key` from mapping `b`."""
    if not isinstance(a, PosDict) or key not in a:
        return None
    if not isinstance(b, dict) or key not in b:
        return a.at(key)
    if a[key] == b[key]:
        return None
    return first_diff(a[key], b[key]) or a.at(key)


def entry_diff(this: tuple | None, other: tuple | None) -> Pos | None:
    """Entries are (body, pos): the first difference of body, or pos when other lacks it."""
    if this is None:
        return None
    body, pos = this
    if other is None:
        return pos
    return first_diff(body, other[0]) if body != other[0] else None


def pos_in(this: tuple | None, other: tuple | None, keys=()) -> Pos | None:
    """Position in entry `this` of the first difference among `keys` (anywhere when none differs)."""
    if this is None:
        return None
    body, pos = this
    if other is None:
        return pos
    for key in keys:
        p = diff_key(body, other[0], key)
        if p:
            return p
    return first_diff(body, other[0]) or pos


# ---------------------------------------------------------------------------------------------
# Variants: the first source node that differs


def _value(node):
    """A source is a node of the positioned document, or an origin (`.value`, `.pos`) naming one."""
    return node.value if hasattr(node, "container") else node


def _pos(node) -> Pos | None:
    return getattr(node, "pos", None)


def _entry(value, item):
    """(entry, position) of the entry called `item` in a list of named entries (a signature's operands)."""
    if not isinstance(value, list):
        return None
    for i, entry in enumerate(value):
        if isinstance(entry, dict) and entry.get("name") == item:
            return entry, value.at(i) if isinstance(value, PosList) else None
    return None


def node_change(mine, theirs, item=None) -> Pos | None:
    """Where source node `mine` differs from `theirs` (None for `theirs`: the other tree lacks it);
    with `item`, only that named entry of a list node counts."""
    a, pos = _value(mine), _pos(mine)
    b = _value(theirs) if theirs is not None else None
    if item is not None and isinstance(a, list):
        found = _entry(a, item)
        if found is None:
            return None
        a, pos = found
        twin = _entry(b, item) if b is not None else None
        b = twin[0] if twin is not None else None
        if b is None:
            return pos
    elif theirs is None:
        return pos
    sa, sb = Stripped(a, _DESCRIPTIVE), Stripped(b, _DESCRIPTIVE)
    if sa == sb:
        return None
    return first_diff(sa, sb) or pos


def _same(a, b) -> bool:
    return Stripped(_value(a), _DESCRIPTIVE) == Stripped(_value(b), _DESCRIPTIVE)


def source_change(this, other, keys, item=None) -> tuple[Pos, bool] | None:
    """The first node of `this.sources[key]`, key by key, whose content differs from its twin in
    `other.sources[key]`: (its position, False); or, where `other` has a node that `this` lacks
    (a refinement that no longer matches, say), (that node's position in the other tree, True)."""
    for key in keys:
        mine, theirs = this.sources.get(key, ()), other.sources.get(key, ()) if other is not None else ()
        for i, node in enumerate(mine):
            twin = theirs[i] if i < len(theirs) else None
            pos = node_change(node, twin, item if i == 0 else None)
            if pos is None:
                continue
            lacking = _pos(twin) if twin is not None and any(_same(node, x) for x in theirs[i + 1:]) else None
            return (lacking, True) if lacking is not None else (pos, False)  # `other` has a node `this` lacks
        extra = _pos(theirs[len(mine)]) if len(theirs) > len(mine) else None
        if extra is not None:
            return extra, True
    return None
