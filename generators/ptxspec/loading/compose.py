"""Composition: named pieces, used by reference, and an instruction's defaults for its groups.

The spec says each fact once. What several places share is a *piece*, defined once under
`pieces:` (of an instruction file, or of its family's family.yaml for every instruction of the
family) and used where it applies:

    pieces:
      tmem_d: {name: d, kind: tmem_address, io: inout, matrix: d}
      collectors: {collector_a: ["", "collector::a::fill", ...], collector_b: [...]}
    ...
    - {use: tmem_d}                          # the piece itself
    - {use: lane_mask, regs: 8}              # the piece, with `regs` overridden
    options: {use: collectors}
    signature: [{use: common}, {name: lut, kind: tmem_address, io: in, matrix: lut}]   # a list piece, spliced

A mapping with `use` is the piece (a deep copy), its other keys overriding the piece's own: an
override must name a key the piece has (a misspelt key is an error, not an addition); `use: [A,
B]` merges mappings in order. A list item `{use: NAME}` whose piece is a list is replaced by the
piece's items. Pieces may use other pieces; a cycle is an error.

An instruction's `defaults:` is the mapping every one of its groups starts from: a group's keys
replace the defaults', mappings merging key by key (so a group adds `fragments.a` to the
defaults' `fragments.c`), lists and scalars replaced whole.

Composition runs on the parsed documents, before the schema pass: the schemas, the resolvers and
`ptxspec diff` see the composed documents, in which every node keeps the position it was written
at (a piece's content points into `pieces:`, an override to its own line).
"""
from __future__ import annotations

from ptxspec.core.errors import Pos, PosDict, PosList, Problems, did_you_mean

USE, PIECES, DEFAULTS = "use", "pieces", "defaults"
MAX_DEPTH = 32  # pieces using pieces: far beyond any spec's nesting, far below a runaway


class _Cycle(Exception):
    """Pieces that use each other: the chain, and where the `use` that closes it is written."""

    def __init__(self, chain: str, at: Pos | None):
        super().__init__(chain)
        self.at = at


def _copy(node, pos: Pos | None = None):
    """A deep copy keeping positions (mappings and lists are PosDict / PosList)."""
    if isinstance(node, dict):
        out = PosDict((k, _copy(v)) for k, v in node.items())
        out.pos = getattr(node, "pos", pos)
        out.key_pos = dict(getattr(node, "key_pos", {}))
        return out
    if isinstance(node, list):
        out = PosList(_copy(v) for v in node)
        out.pos = getattr(node, "pos", pos)
        out.item_pos = list(getattr(node, "item_pos", []))
        return out
    return node


def merge(base, over):
    """`over` on top of `base`: mappings merge key by key (recursively), anything else is replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = _copy(base)
        out.pos = over.pos
        for k, v in over.items():
            out[k] = merge(base[k], v) if k in base else _copy(v)
            out.key_pos[k] = over.at(k)
        return out
    return _copy(over)


class Composer:
    """Resolves `use` against the pieces visible in one document (its own, then its family's)."""

    def __init__(self, problems: Problems, scopes: list[dict]):
        self.p = problems
        self.scopes = scopes  # [(pieces PosDict)], nearest first
        self.used: set[tuple[int, str]] = set()  # (id of the scope, piece name)

    def piece(self, name, at: Pos, chain: tuple):
        if not isinstance(name, str):
            self.p.add(at, f"`use` names a piece by its name (a string); got {name!r}")
            return None
        for scope in self.scopes:
            if name in scope:
                self.used.add((id(scope), name))
                if name in chain:
                    raise _Cycle(" -> ".join((*chain[chain.index(name):], name)), at)
                return self.expand(scope[name], (*chain, name))
        known = sorted({n for s in self.scopes for n in s})
        hint = did_you_mean(name, known)
        self.p.add(at, f"unknown piece {name!r}{hint}" + ("" if hint else f" (the pieces here: {', '.join(known)})"
                                                               if known else " (no pieces are defined here)"))
        return None

    def expand(self, node, chain: tuple = ()):
        """The node with every `use` in it resolved (a new node; `node` is left as it was)."""
        if len(chain) > MAX_DEPTH:
            raise _Cycle(" -> ".join(chain[:4]) + " -> ...", None)
        if isinstance(node, dict):
            if USE in node:
                return self._use(node, chain)
            out = PosDict((k, self.expand(v, chain)) for k, v in node.items())
            out.pos, out.key_pos = node.pos, dict(node.key_pos)
            return out
        if isinstance(node, list):
            out, where = PosList(), []
            for i, item in enumerate(node):
                if isinstance(item, dict) and set(item) == {USE}:
                    got = self.piece(item[USE], item.at(USE), chain)
                    if isinstance(got, list):  # a list piece: its items take the reference's place
                        out.extend(got)
                        where.extend(got.item_pos)
                        continue
                    item = got if got is not None else item
                else:
                    item = self.expand(item, chain)
                out.append(item)
                where.append(node.at(i))
            out.pos, out.item_pos = node.pos, where
            return out
        return node

    def _use(self, node, chain: tuple):
        names = node[USE] if isinstance(node[USE], list) else [node[USE]]
        base = None
        for name in names:
            got = self.piece(name, node.at(USE), chain)
            if got is None:
                return node
            if base is not None and not (isinstance(base, dict) and isinstance(got, dict)):
                self.p.add(node.at(USE), "`use` of several pieces merges mappings: "
                           f"{name!r} is {'a list' if isinstance(got, list) else 'no mapping'}")
                return node
            base = got if base is None else merge(base, got)
        overrides = {k: v for k, v in node.items() if k != USE}
        if not overrides:
            return base
        if not isinstance(base, dict):
            self.p.add(node.at(USE), f"piece {names[-1]!r} is {'a list' if isinstance(base, list) else 'a value'}: "
                       "only a mapping piece takes overrides")
            return node
        for k in overrides:
            if k not in base:
                self.p.add(node.at(k), f"override of {k!r}, which piece {', '.join(map(repr, names))} does not have"
                           f"{did_you_mean(k, base)} (its keys: {', '.join(base)})")
                return node
        out = _copy(base)
        out.pos = node.pos
        for k, v in overrides.items():
            out[k] = self.expand(v, chain)
            out.key_pos[k] = node.at(k)
        return out


def compose(data, family_pieces, problems: Problems, used: set | None = None, own_used_here: bool = True):
    """One parsed document composed: its `use` references resolved against its own `pieces` and its
    family's, an instruction's `defaults` applied to each of its groups; `pieces` and `defaults`
    removed. `used` collects (id of a scope, piece name) for the check that every piece is used; a
    family's own pieces serve its instruction files (`own_used_here` false)."""
    if not isinstance(data, dict):
        return data
    own = data.get(PIECES, {})
    scopes = [s for s in (own, family_pieces) if isinstance(s, dict) and s]
    for label, s in ((PIECES, own), (DEFAULTS, data.get(DEFAULTS, {}))):
        if not isinstance(s, dict):
            problems.add(data.at(label), f"`{label}` is a mapping (name: value)")
            return data
    c = Composer(problems, scopes)
    body = PosDict((k, v) for k, v in data.items() if k not in (PIECES, DEFAULTS))
    body.pos, body.key_pos = data.pos, {k: data.at(k) for k in body}
    try:
        out = c.expand(body)
        defaults = c.expand(data[DEFAULTS]) if DEFAULTS in data else None
    except _Cycle as exc:
        problems.add(exc.at or (data.at(PIECES) if PIECES in data else data.pos),
                     f"pieces use each other in a cycle: {exc}")
        return body
    if defaults and isinstance(out.get("groups"), list):
        groups = PosList(merge(defaults, g) if isinstance(g, dict) else g for g in out["groups"])
        groups.pos, groups.item_pos = out["groups"].pos, list(out["groups"].item_pos)
        out["groups"] = groups
    elif DEFAULTS in data and "groups" not in data:
        problems.add(data.at(DEFAULTS), "`defaults` are the start of every group: this file has no groups")
    if used is not None:
        used |= c.used
    if own and own_used_here:  # an instruction's own pieces must all be used here (a family's: in the family)
        for name in own:
            if (id(own), name) not in c.used:
                problems.add(own.at(name), f"piece {name!r} is never used")
    return out
