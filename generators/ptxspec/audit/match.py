"""Which spec variant a peer's statement is: its opcode through the spec's lookup (qualifiers in any
order ptxas accepts, option qualifiers such as collector hints), its operand form by its operands.

The lookup is `Spec.catalog` (`ptxspec.lookup`), the one implementation behind `Spec.variant`: an
opcode names a variant and an operand form; where an opcode has several forms (wgmma's A from
registers or a descriptor, tcgen05.mma's A from a descriptor or tensor memory, with or without
scale_input_d) the operands written decide, by count and kind.
"""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.model.catalog import LookupFailed
from ptxspec.audit.findings import Binding
from ptxspec.audit.peer_guards import requirement_of
from ptxspec.audit.peer_asm import shape_text, variant_shapes


@dataclass
class Match:
    variants: tuple[str, ...]  # the spec variants it is (one, or none)
    problem: str = ""  # why it is none: the lookup's message, or the operands that no form has
    candidates: tuple[str, ...] = ()  # variants of the opcode whose operands differ


class Matcher:
    def __init__(self, spec):
        self.spec = spec
        self.catalog = spec.catalog
        self._shapes: dict[str, set] = {}
        self._opcodes: dict[str, tuple[list[str], str]] = {}

    def shapes(self, vid: str) -> set:
        if vid not in self._shapes:
            self._shapes[vid] = variant_shapes(self.spec.variant(vid))
        return self._shapes[vid]

    def opcode_variants(self, opcode: str) -> tuple[list[str], str]:
        """The variant ids an opcode names, one per form it has (or none, and the lookup's reason)."""
        if opcode not in self._opcodes:
            self._opcodes[opcode] = self._opcode_variants(opcode)
        return self._opcodes[opcode]

    def _opcode_variants(self, opcode: str) -> tuple[list[str], str]:
        cat = self.catalog
        root, *rest = opcode.split(".")
        chosen = [t for t in rest if t in cat.option_tokens]
        ptx = cat.canonical(opcode)
        if ptx is not None:
            chosen = []
        elif chosen:  # option qualifiers (collector hints, .b2): the variant is the opcode without them
            ptx = cat.canonical(".".join([root, *(t for t in rest if t not in cat.option_tokens)]))
        rows = cat.by_ptx.get(ptx, []) if ptx else []
        found = [vid for vid, _ in rows if set(chosen) <= cat.options[vid] and len(set(chosen)) == len(chosen)]
        if found:
            return found, ""
        try:  # the lookup's own message (and did-you-mean) for what does not resolve
            cat.resolve(opcode)
        except LookupFailed as exc:
            return [], str(exc)
        return [], f"its option qualifiers {', '.join('.' + t for t in chosen)} are not all accepted together"

    def match(self, b: Binding) -> Match:
        vids, reason = self.opcode_variants(b.opcode)
        if not vids:
            return Match((), reason)
        shape = tuple(o.key() for o in b.operands)
        same = [v for v in vids if _fits(shape, self.shapes(v))]
        if len(same) == 1:
            return Match((same[0],))
        if len(same) > 1:  # forms the operands cannot tell apart: every one of them
            return Match(tuple(same))
        forms = "; ".join(f"{v}: {' | '.join(sorted(shape_text(s) for s in self.shapes(v)))}" for v in vids)
        return Match((), f"operands {shape_text(shape)} fit no form of the opcode ({forms})", tuple(vids))

    def requirement(self, vid: str, opcode: str):
        """The requirement of a variant written with the option qualifiers `opcode` carries."""
        return requirement_of(self.spec.variant(vid), opcode)


def _fits(peer: tuple, spec_shapes: set) -> bool:
    """A peer's operands fit a spec form: same kinds in order; a register of unknown width (a
    peer's C++ expression) fits any width."""
    for s in spec_shapes:
        if len(s) == len(peer) and all(_same(p, q) for p, q in zip(peer, s)):
            return True
    return False


def _same(p: tuple, s: tuple) -> bool:
    if p == s:
        return True
    if p[0] == s[0] == "reg":
        return p[1] == 0
    if p[0] == s[0] == "vec":
        return p[1] == s[1] and (p[2] == 0 or p[2] == s[2]) and "imm" not in (p[2], s[2])
    return False
