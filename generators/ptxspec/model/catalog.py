"""Finding a variant by its PTX spelling: the one implementation behind `Spec.variant` and
`ptxspec query --variant` (and so behind their errors and did-you-mean).

ptxas takes an opcode's qualifiers in any order, except that some kinds keep their order among
themselves (ORDERED, established with ptxas 13.5 over every group of the spec: see
campaigns/survey/qualifier-orders-ptxas-13.5.json and tests/test_lookup.py). A spelling therefore
names the variant whose *order key* it shares: the root (`mma`, `wgmma`, `wmma`), the tokens of
each ordered kind in their order, and the other tokens as a multiset. Answers always give the
spec's (canonical) spelling.

A did-you-mean is offered only for a spelling with a token no variant of its root has (a typo),
and only among variants that keep every other token: it never repeats the input, and never
trades a real qualifier (`.satfinite`, a type, a shape) for another instruction.
"""
from __future__ import annotations

import difflib
import itertools
from collections import Counter, defaultdict

#: Token kinds whose place is meaning to ptxas (the rest may come in any order): the instruction's
#: own name parts right after the root (`wgmma.mma_async`, `wmma.load.a`; but `.sp` goes anywhere),
#: element types in their order (D, A, B, C: `.f32.bf16.bf16.f32`
#: is not `.bf16.f32.f32.bf16`), matrix layouts in their order (A's, then B's), and the bit operation
#: before `.popc`.
LAYOUT_TOKENS = frozenset({"row", "col"})
OPERATION_TOKENS = frozenset({"and", "xor", "popc"})  # `.and.popc`: the bit operation before .popc


class LookupFailed(KeyError):
    """No variant, or not one, for a spelling. A KeyError (as `Spec.variant` always raised) whose
    message reads as the CLI prints it."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def normalize(ref: str) -> str:
    return " ".join(ref.split()).rstrip(";").strip()


class Catalog:
    """The variants' ids, spellings and forms, indexed for lookup."""

    def __init__(self, entries, type_names, instruction_names, options=()):
        self.by_id: dict[str, tuple[str, str]] = {}  # id -> (ptx, form)
        self.by_ptx: dict[str, list[tuple[str, str]]] = defaultdict(list)  # ptx -> [(id, form)]
        for vid, ptx, form in entries:
            self.by_id[vid] = (ptx, form)
            self.by_ptx[ptx].append((vid, form))
        self.options: dict[str, set[str]] = defaultdict(set)  # id -> the option qualifiers it may add
        for vid, value in options:
            self.options[vid].add(value)
        self.option_tokens = frozenset().union(*self.options.values())
        self.types = frozenset(type_names)
        self.name_tokens = frozenset(t for name in instruction_names for t in name.split(".")[1:])
        self._keys: dict | None = None
        self._tokens: frozenset[str] | None = None

    def kind(self, token: str) -> str:
        if token in self.types:
            return "type"
        if token in LAYOUT_TOKENS:
            return "layout"
        if token in OPERATION_TOKENS:
            return "operation"
        if token in self.name_tokens and token != "sp":  # .sp (and .sp::ordered_metadata) moves freely
            return "name"
        base = token.split("::")[0]
        if base != token and base in self.name_tokens and base != "sp":  # wait::ld of tcgen05.wait
            return "name"
        return ""

    def key(self, ptx: str) -> tuple:
        """What a spelling means to ptxas: the root and the instruction's name parts first and in
        order (`wmma.load.a`, `mma.sp::ordered_metadata`), the types in order, the layouts in order,
        and the other qualifiers in any order. A name part elsewhere matches nothing."""
        root, *rest = ptx.split(".")
        lead = 0
        while lead < len(rest) and self.kind(rest[lead]) == "name":
            lead += 1
        name, rest = tuple(rest[:lead]), rest[lead:]
        misplaced = tuple(t for t in rest if self.kind(t) == "name")
        ordered = tuple(tuple(t for t in rest if self.kind(t) == k) for k in ("type", "layout", "operation"))
        return root, name, misplaced, ordered, tuple(sorted(t for t in rest if not self.kind(t)))

    @property
    def tokens(self) -> frozenset[str]:
        if self._tokens is None:
            self._tokens = frozenset(t for p in self.by_ptx for t in p.split("."))
        return self._tokens

    @property
    def keys(self) -> dict[tuple, list[str]]:
        if self._keys is None:
            self._keys = defaultdict(list)
            for ptx in self.by_ptx:
                self._keys[self.key(ptx)].append(ptx)
        return self._keys

    def canonical(self, ref: str) -> str | None:
        """The spec's spelling of an opcode written with its qualifiers in another order ptxas accepts."""
        ref = normalize(ref)
        if ref in self.by_ptx:
            return ref
        found = self.keys.get(self.key(ref), [])
        return found[0] if len(found) == 1 else None

    def resolve(self, ref: str, form: str | None = None) -> str:
        """The variant id of an id, or of an opcode in any qualifier order ptxas accepts (plus the
        form, where the opcode has several), options included (the variant of an opcode with
        option qualifiers is the one without them). LookupFailed says what is wrong, in one line."""
        ref = normalize(ref)
        root, *rest = ref.split(".")
        chosen = [i for i, t in enumerate(rest) if t in self.option_tokens]
        if chosen and ref not in self.by_id:
            # a token can be an option of one variant and part of another's opcode (.b2, .b8x16):
            # the fewest option tokens whose removal leaves a variant that takes them all
            first = None
            for n in range(len(chosen) + 1):
                for drop in itertools.combinations(chosen, n):
                    base = ".".join([root, *(t for i, t in enumerate(rest) if i not in drop)])
                    try:
                        vid = self._resolve(base, form)
                    except LookupFailed as exc:
                        first = first or (exc, None)
                        continue
                    picked = [rest[i] for i in drop]
                    refused = [t for t in picked if t not in self.options[vid]]
                    if not refused and len(set(picked)) == len(picked):
                        return vid
                    if first is None or first[1] is None:
                        why = f"takes no option {', '.join('.' + t for t in refused)}" if refused else "repeats an option"
                        first = (LookupFailed(f"{vid} {why} (its options: "
                                              f"{', '.join('.' + t for t in sorted(self.options[vid])) or 'none'})"), vid)
            assert first is not None
            raise first[0]
        return self._resolve(ref, form)

    def _resolve(self, ref: str, form: str | None) -> str:
        if ref in self.by_id and (form is None or self.by_id[ref][1] == form):
            return ref
        if ref in self.by_id and self.by_id[ref][0] != ref:  # an id with its form: it names one already
            raise LookupFailed(f"{ref} is the {self.by_id[ref][1]!r} form of {self.by_id[ref][0]}, not {form!r}")
        ptx = self.canonical(ref)
        if ptx is None:
            raise LookupFailed(f"no variant {ref!r}{self._suggestion(ref)}")
        rows = self.by_ptx[ptx]
        spelled = "" if ptx == ref else f" (written {ptx} in the spec)"
        if form is not None:
            rows = [r for r in rows if r[1] == form]
            if not rows:
                forms = sorted(f for _, f in self.by_ptx[ptx])
                have = f"only the form {forms[0]!r}" if len(forms) == 1 else f"forms {', '.join(forms)}"
                if forms == [""]:
                    have = "one form only (no operand forms)"
                raise LookupFailed(f"{ptx}{spelled} has no form {form!r}; it has {have}")
        if len(rows) == 1:
            return rows[0][0]
        raise LookupFailed(f"{ptx}{spelled} has forms {', '.join(sorted(f for _, f in rows))}: name one "
                           "(--form, or form=)")

    def _suggestion(self, ref: str) -> str:
        """' (did you mean ...?)' for a typo: the closest variant that keeps every known token of ref."""
        root, *rest = ref.split(".")
        known = Counter(t for p in self.by_ptx if p.split(".", 1)[0] == root for t in p.split(".")[1:])
        if not known:  # the root itself is unknown
            roots = sorted({p.split(".", 1)[0] for p in self.by_ptx})
            return _close(root, roots, lambda r: f" (did you mean {r!r}?)") or f"; instructions start with " \
                f"{', '.join(roots)}"
        unknown = [t for t in rest if t not in known]
        if not unknown:  # every qualifier exists: the combination does not (no suggestion: it would
            return "; every qualifier is known, but no variant combines them"  # be another instruction)
        elsewhere = [t for t in unknown if t in self.tokens]
        if elsewhere:  # a real qualifier of other instructions: replacing it would change the instruction
            return f"; {', '.join('.' + t for t in elsewhere)} is no qualifier of {root}"
        keep = Counter(t for t in rest if t in known)
        cands = [p for p in self.by_ptx if p.split(".", 1)[0] == root and len(p.split(".")) == len(rest) + 1
                 and not keep - Counter(p.split(".")[1:])]
        return _close(ref, cands, lambda p: f" (did you mean {p!r}?)") or \
            f"; unknown qualifier{'s' if len(unknown) > 1 else ''} {', '.join('.' + t for t in unknown)}"


def _close(word: str, choices, fmt) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return fmt(close[0]) if close else ""
