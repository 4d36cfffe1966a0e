"""Invariants of a resolved model: what makes a spec that validates also make sense.

The resolvers (`ptxspec.loading.resolve`) check what they need to build the model; this pass checks the
built model as a whole, after resolution, against facts the spec states once:

- shapes: every M, N and K lies within its family's `shape_bounds` (the ISA's limits), and every
  register fragment takes at least one register;
- operands: a default (the value assumed when a statement leaves the operand out) is legal: one
  of an immediate's stated values, and a value the API takes for the operand (a predicate 0 or 1,
  a mask a word of its registers); that a signature has what its instruction's semantics needs,
  the resolver checks, and that each operand has a shape the semantics' executor takes (a lane
  mask: one bit per tensor-memory lane);
- opcodes: each variant's opcode begins with its instruction's name and has no empty qualifier
  (`mma..sync` when a qualifier's value is missing);
- requirements: each alternative's PTX version is one at which some of its targets exists;
- types: a float format's sign, exponent, mantissa and ignored low bits fill exactly its bits, and
  its bias lies in 0 to 2**exponent - 1;
- sparsity: a chunk keeps half its index units, every valid metadata nibble keeps two different
  units of the chunk that make whole elements, and ordered metadata leaves some nibble valid;
- shared memory: the swizzle formula permutes the bytes of each repeating pattern of each mode;
- run-time descriptors and their tensor-memory placements (ptxspec.loading.descriptor_checks);
- matrices: every matrix a variant takes has 1 to MAX_DIM rows and columns at the variant's shapes
  (ptxspec.loading.matrix_sizes), checked last, on a model nothing else is wrong with;
- places: a family's files sit in the folder of that family.

Each problem points at the YAML line that states the offending fact; a fact used by many
variants is reported once.
"""
from __future__ import annotations

import os
from pathlib import PurePosixPath

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos, PosDict, PosList, Problems
from ptxspec.core.expr import ExprError
from ptxspec.loading.descriptor_checks import check_descriptors
from ptxspec.loading.matrix_sizes import check_matrix_sizes
from ptxspec.model.isa import TargetSetError, Version, resolve_target_set
from ptxspec.model.kinds import kind_of
from ptxspec.model.spec import Spec
from ptxspec.semantics.operands import checked

__all__ = ["check_model"]


def check_model(p: Problems, spec: Spec, docs) -> None:
    """Add a located problem for every invariant the model breaks."""
    reported: set = set()

    def report(pos: Pos, message: str, cause=None) -> None:
        """Once per position and message; with a cause, once per position and cause (with a count)."""
        if (pos, message) not in reported:
            reported.add((pos, message))
            p.add(pos, message, cause=cause)

    family_docs = {d.data["name"]: d for d in docs["family"]}
    _places(report, docs)
    _types(report, docs["types"][0].data)
    _requirements(report, spec, docs["instruction"])
    _variants(report, spec, family_docs)
    _sparsities(report, spec, docs["layouts"])
    _swizzles(report, spec, docs["smem"])
    check_descriptors(report, spec, docs)
    if not p.items:  # (a shape out of bounds, a descriptor's shapes in error: reported where they are written)
        check_matrix_sizes(report, spec, {name: d.data for name, d in family_docs.items()})


# -- files ------------------------------------------------------------------------------------

def _places(report, docs) -> None:
    root = getattr(docs, "root", "")
    for kind, key in (("family", "name"), ("instruction", "family")):
        for doc in docs[kind]:
            parts = PurePosixPath(_relative(doc.path, root)).parts
            family = doc.data[key]
            if len(parts) == 3 and parts[1] != family:
                report(doc.data.at(key), f"the {kind} file of family {family!r} sits in families/{parts[1]}/; "
                       f"{family}'s files go in families/{family}/")


def _relative(path: str, root: str) -> str:
    return PurePosixPath(os.path.relpath(path, root or ".")).as_posix()


# -- element types ----------------------------------------------------------------------------

def _types(report, data) -> None:
    for i, t in enumerate(data["types"]):
        f = t.get("format")
        if not f:
            continue
        sign = int(t.get("signed", t["class"] == "float"))
        used = sign + f["exponent"] + f["mantissa"] + f.get("ignored_low_bits", 0)
        if used != t["bits"]:
            parts = f"{sign} sign + {f['exponent']} exponent + {f['mantissa']} mantissa" + (
                f" + {f['ignored_low_bits']} ignored" if f.get("ignored_low_bits") else "")
            report(t.at("format") if isinstance(t, PosDict) else data["types"].at(i),
                   f"type {t['name']}: its format's fields ({parts} bits) fill {used} bits, but the type has "
                   f"{t['bits']}")
        _bias(report, t, f)


def _bias(report, t, f) -> None:
    """A bias in the domain of the exponent field, 0 to 2**exponent - 1 (the schema refuses a negative one):
    outside it no stored exponent minus the bias is 0, 1.0 is no value of the format. Every PTX format
    today uses 2**(exponent - 1) - 1 (IEEE's), which is not required here (fuzz seed 33, tree 9057:
    ue4m3's bias 7 -> 65 validated)."""
    bias, e = f["bias"], f["exponent"]
    if bias < 0 or bias.bit_length() > e:  # (bit_length: a hostile exponent makes no 2**e)
        top = f"{(1 << e) - 1}" if e <= 64 else f"2**{e} - 1"
        report(f.at("bias") if isinstance(f, PosDict) else t.at("format"),
               f"type {t['name']}: bias {bias} is outside 0 to {top}, the domain of its {e}-bit exponent field")


# -- requirements -----------------------------------------------------------------------------

def _requirements(report, spec: Spec, docs) -> None:
    """A PTX version before every target of its alternative exists names nothing: `query --ptx`
    would list the variant at versions no target of it can use."""
    for doc in docs:
        d = doc.data
        nodes = [d["requires"]] + [g["requires"] for g in d["groups"] if "requires" in g]
        for node in nodes:
            for i, clause in enumerate(node):
                _clause(report, spec, clause, node.at(i))


def _clause(report, spec: Spec, clause, pos: Pos) -> None:
    try:
        targets = resolve_target_set(clause["targets"], spec.targets)
        ptx = Version.parse(clause["ptx"])
    except (TargetSetError, ValueError):  # reported by the resolver
        return
    if not targets:
        return
    first = min(spec.targets[t].ptx for t in targets)
    if ptx < first:
        names = spec.sort_targets(targets)
        shown = names[0] if len(names) == 1 else f"{len(names)} targets ({names[0]} ... {names[-1]})"
        report(pos, f"requires PTX {ptx} on {shown}, but {'it' if len(names) == 1 else 'none of them'} exists "
               f"before PTX {first} (isa.yaml); state PTX {first} or later")


# -- variants: shapes, registers, opcodes ----------------------------------------------------

def _variants(report, spec: Spec, family_docs) -> None:
    defaults: dict = {}  # operand (or ("domain", operand)) -> why its default (values) is illegal, None: legal
    for v in spec.variants:
        bounds = family_docs[v.family].data.get("shape_bounds") if v.family in family_docs else None
        if v.m is not None or v.n is not None or v.k is not None:
            if bounds is None:
                fam = family_docs[v.family].data
                report(fam.pos, f"family {v.family} has shapes but states no shape_bounds (the ISA's limits "
                       "on M, N and K)")
            else:
                for dim in "mnk":
                    if dim in bounds:
                        _bound(report, v, dim, bounds[dim])
                    elif getattr(v, dim) is not None:  # only a family whose shapes have no K leaves k out
                        fam = family_docs[v.family].data
                        report(fam.at("shape_bounds"), f"family {v.family} has shapes with {dim.upper()} but its "
                               f"shape_bounds state no bound for {dim.upper()}")
        for o in v.operands:
            if o.kind == "fragment" and o.regs < 1:
                report(v.pos, f"group {v.group!r}: operand {o.name} of {v.id} takes {o.regs} registers; a "
                       "fragment takes at least one", cause=("regs", o.name))
            if o.default is not None:
                _default(report, v, o, defaults)
            if o.values is not None or o.min_value is not None:
                _value_domain(report, v, o, defaults)
        meaning = spec.meanings.get(v.semantics) if spec.meanings else None
        if meaning is not None and meaning.signature_problems is not None:
            for name, why in meaning.signature_problems(v):
                report(_operand_pos(v, name, "regs"), why)
        _opcode(report, v)


def _default(report, v, o, seen: dict) -> None:
    """The operand's default is one of its legal values, and a value the API takes for it (an
    operand's fields decide: each distinct operand is checked once)."""
    if o not in seen:
        seen[o] = None
        if not _legal(o, o.default):
            seen[o] = f"operand {o.name}: default {o.default} is not one of its legal values ({_legal_text(o)})"
        else:
            try:
                checked(v, {o.name: o.default})
            except (TypeError, ValueError) as exc:
                why = str(exc).removeprefix(f"{v.id}: ")
                seen[o] = f"operand {o.name}: default {o.default} is no value the operand takes ({why})"
    if seen[o] is not None:
        report(_operand_pos(v, o.name, "default"), seen[o])


def _value_domain(report, v, o, seen: dict) -> None:
    """Each legal value (its least and greatest first, then the rest) and the minimum are values the
    operand's kind can take (OperandKind.value_problem: an immediate's 32 bits, a TMEM column count);
    each distinct operand is checked once."""
    key = ("domain", o)
    if key not in seen:
        stated = ([min(o.values), max(o.values), *o.values] if o.values else []) + \
            ([] if o.min_value is None else [o.min_value])
        why = next((w for w in map(kind_of(o).value_problem, stated) if w), None)
        seen[key] = None if why is None else f"operand {o.name}: legal value {why}"
    if seen[key] is not None:
        report(_operand_pos(v, o.name, "values"), seen[key])


def _legal(o, value: int) -> bool:
    if o.values is not None and value not in o.values:
        return False
    return o.min_value is None or value >= o.min_value


def _legal_text(o) -> str:
    if o.values is not None:
        return ", ".join(map(str, o.values))
    return f"at least {o.min_value}"


def _operand_pos(v, name: str, key: str) -> Pos:
    """The key of an operand's entry in the variant's signature (or the group)."""
    for origin in v.sources.get(f"operand.{name}", ()):  # the very entry, of several chosen by `when`
        entry = origin.value
        if isinstance(entry, PosDict):
            return entry.at(key) if key in entry else entry.pos
    for origin in v.sources.get("operands", ()):
        sig = origin.value
        if isinstance(sig, PosList):
            for i, entry in enumerate(sig):
                if isinstance(entry, PosDict) and entry.get("name") == name:
                    return entry.at(key) if key in entry else sig.at(i)
    return v.pos


def _bound(report, v, dim: str, bound) -> None:
    value = getattr(v, dim)
    lo, hi, step = bound["min"], bound["max"], bound.get("multiple_of", 1)
    if value is not None and lo <= value <= hi and value % step == 0:
        return
    what = f"{lo} to {hi}" + (f" in multiples of {step}" if step > 1 else "")
    shown = "none" if value is None else value
    pos = _shape_pos(v, dim, value)
    report(pos, f"{dim.upper()} = {shown} is outside the ISA's bounds for {v.family} ({what}, family.yaml "
           "shape_bounds)", cause=("bounds", dim))


def _shape_pos(v, dim: str, value) -> Pos:
    """The list item (or n_set) stating this value of the dimension."""
    origins = v.sources.get("shape", ())
    if not origins:
        return v.pos
    shape = origins[0].value
    if isinstance(shape, PosList) and shape:  # several shapes: the first that states this value
        shape = next((s for s in shape if isinstance(s, PosDict) and isinstance(s.get(dim), list)
                      and value in s[dim]), shape[0])
    node = shape.get(dim) if isinstance(shape, PosDict) else None
    if dim == "n" and isinstance(node, str) and len(origins) > 1:  # a named n_set of the family
        node = origins[1].value
        if isinstance(node, PosDict):  # {range: [...]}
            return node.pos
    if isinstance(node, PosList):
        for i, item in enumerate(node):
            if item == value:
                return node.at(i)
        return node.pos
    return shape.at(dim) if isinstance(shape, PosDict) else v.pos


def _opcode(report, v) -> None:
    name, ptx = v.instruction, v.ptx
    where = v.sources["opcode"][0].pos if v.sources.get("opcode") else v.pos
    if not (ptx == name or ptx.startswith(name + ".") or ptx.startswith(name + "::")):
        report(where, f"the opcode template gives {ptx!r} (group {v.group!r}), which does not begin with "
               f"its instruction's name {name!r}", cause="opcode name")
    parts = ptx.replace("::", ".").split(".")
    if "" in parts or any(c.isspace() for c in ptx):
        report(where, f"the opcode template gives {ptx!r} (group {v.group!r}): an empty qualifier, a "
               "placeholder whose value the group does not give", cause="empty qualifier")


# -- sparsity ---------------------------------------------------------------------------------

def _sparsities(report, spec: Spec, docs) -> None:
    """A nibble holds the indices of the two kept index units of a chunk, first in the low two
    bits. Both must be index units of the chunk, different, and together whole elements (an
    element spans element_units units, aligned)."""
    for doc in docs:
        entries = doc.data.get("sparsity", {})
        for name, body in entries.items():
            sp = spec.sparsities.get(name)
            if sp is None:
                continue
            units = sp.element_units
            if sp.kept * 2 != sp.chunk:
                report(body.at("kept"), f"sparsity {name}: a chunk of {sp.chunk} units keeps half of them, not {sp.kept}")
                continue
            nibbles = body["valid_nibbles"]
            for i, x in enumerate(nibbles):
                first, second = x & 3, x >> 2
                problem = None
                if first >= sp.chunk or second >= sp.chunk:
                    problem = f"names unit {max(first, second)} of a chunk of {sp.chunk}"
                elif first == second:
                    problem = f"keeps unit {first} twice"
                elif units > 1 and {first, second} != {first - first % units + j for j in range(units)}:
                    problem = f"keeps units {first} and {second}, which are not one whole {units}-unit element"
                if problem:
                    report(nibbles.at(i), f"sparsity {name}: valid nibble 0x{x:X} {problem}")
    for v in spec.variants:
        if v.sparsity is not None and v.metadata_order == "increasing" and not v.metadata_nibbles:
            report(v.pos, f"group {v.group!r}: ordered metadata leaves no valid nibble of sparsity "
                   f"{v.sparsity.name} (none keeps its units in increasing order)")


# -- shared memory ----------------------------------------------------------------------------

def _swizzles(report, spec: Spec, docs) -> None:
    """Each mode's swizzle must move bytes only within its repeating pattern, and hit each byte of
    it once: a permutation of every `repeat`-byte block (for every base offset it takes); a mode
    that swizzles no bits (b = 0) moves none."""
    for doc in docs:
        d = doc.data
        sm = spec.smem.get(d["family"])
        if sm is None or sm.swizzle is None:
            continue
        offsets = range(8) if "o" in sm.swizzle.names else (0,)
        for mode in sm.swizzle_modes:
            problem = _swizzle_problem(sm.swizzle, mode, offsets)
            if problem:
                report(d.at("swizzle"), f"swizzle ({mode.name}): {problem}")
                break


def _swizzle_problem(swizzle, mode, offsets) -> str | None:
    if mode.repeat < 16 or mode.repeat % 16:
        return f"a repeating pattern of {mode.repeat} bytes is not a whole number of 16-byte units"
    blocks = 4
    a = np.arange(blocks * mode.repeat, dtype=np.int64)
    for o in offsets:
        try:
            out = np.broadcast_to(np.asarray(swizzle(a=a, b=mode.b, o=o, u=mode.unit), dtype=np.int64), a.shape)
        except ExprError as exc:
            return str(exc)
        for j in range(blocks):
            block = out[j * mode.repeat:(j + 1) * mode.repeat]
            if not np.array_equal(np.sort(block), a[j * mode.repeat:(j + 1) * mode.repeat]):
                return (f"not a permutation of the {mode.repeat}-byte block at byte {j * mode.repeat}"
                        + (f" with base offset {o}" if len(offsets) > 1 else ""))
        if mode.b == 0 and not np.array_equal(out, a):  # b bits XORed: none, no move (fuzz seeds 36-37: "a ^ 16")
            moved = int(np.flatnonzero(out != a)[0])
            return (f"a mode of b = 0 (no bits swizzled) must leave every address as it is, but byte {moved} moves "
                    f"to {int(out[moved])}" + (f" with base offset {o}" if len(offsets) > 1 else ""))
    return None
