"""Which variant of HEAD is which variant of BASE.

Variants pair by id (the opcode and operand form). Of the rest, a HEAD variant whose identity -
instruction, form, shape, types, qualifiers, sparseness - is that of exactly one unpaired BASE
variant is that variant renamed: the same instruction spelled differently.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def identity(v) -> tuple:
    """What a variant is, whatever its spelling."""
    return (v.instruction, v.form, v.m, v.n, v.k, v.atype, v.btype, v.ctype, v.dtype, v.satfinite, v.op,
            bool(v.sparse), tuple(sorted(v.qualifiers.items())))


@dataclass
class Pairing:
    common: list[tuple] = field(default_factory=list)  # (base, head): same id, then the renamed
    renamed: list[tuple] = field(default_factory=list)  # (base, head)
    added: list = field(default_factory=list)  # head variants with no base variant
    removed: list = field(default_factory=list)  # base variants with no head variant


def pair_variants(base: list, head: list) -> Pairing:
    bmap = {v.id: v for v in base}
    hmap = {v.id: v for v in head}
    removed = [bmap[i] for i in bmap if i not in hmap]
    added = [hmap[i] for i in hmap if i not in bmap]
    by_identity: dict = {}
    for v in removed:
        by_identity.setdefault(identity(v), []).append(v)
    renamed = []
    for hv in added:
        cands = by_identity.get(identity(hv))
        if cands and len(cands) == 1:
            renamed.append((cands.pop(), hv))
    paired_b = {id(bv) for bv, _ in renamed}
    paired_h = {id(hv) for _, hv in renamed}
    return Pairing(common=[(bmap[i], hmap[i]) for i in bmap if i in hmap] + renamed, renamed=renamed,
                   added=[v for v in added if id(v) not in paired_h],
                   removed=[v for v in removed if id(v) not in paired_b])
