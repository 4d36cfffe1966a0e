"""Variants that come, go or change spelling, and record fields no other rule covers."""
from __future__ import annotations

from ptxspec.diff.changes import shape_pattern
from ptxspec.diff.plain import short
from ptxspec.diff.registry import Finding, rule


@rule("variant.added", "info", "a variant (opcode and operand form) is new")
def added(d):
    for hv in d.pairs.added:
        yield Finding(hv.id, f"{hv.id} added", *d.cause("membership", hv), summary="added", variant=hv,
                      after=hv.ptx)


@rule("variant.removed", "breaking", "a variant is gone")
def removed(d):
    for bv in d.pairs.removed:
        yield Finding(bv.id, f"{bv.id} removed", *d.cause("membership", bv, side="base"),
                      summary="removed", variant=bv, before=bv.ptx)


@rule("variant.renamed", "breaking", "a variant is spelled differently (the old opcode is gone)")
def renamed(d):
    for bv, hv in d.pairs.renamed:
        yield Finding(f"{bv.id} -> {hv.id}", f"{bv.ptx} is now spelled {hv.ptx}", *d.cause("renamed", hv, bv),
                      summary=f"renamed from `{shape_pattern(bv)}` to `{shape_pattern(hv)}`", variant=hv,
                      before=bv.ptx, after=hv.ptx)


#: Record fields the other rules compare (or that identify the variant), so `variant.changed`
#: leaves them alone. metadata_nibbles: sparsity.metadata.* and sparsity.nibbles.* report it.
_COVERED_RECORD_KEYS = frozenset({
    "id", "family", "instruction", "ptx", "form", "m", "n", "k", "atype", "btype", "ctype", "dtype",
    "satfinite", "op", "sparse", "min_ptx", "targets", "requires", "regs", "operands", "selectors",
    "metadata_nibbles", "options"})


@rule("variant.changed", "warning", "another field of the variant's record changed")
def record_changed(d):
    """Fields of the query record that no other rule covers (the model grows)."""
    extra: dict = {}  # instruction pair -> whether its records have fields beyond the covered ones
    for bv, hv in d.pairs.common:
        key = (bv.instruction, hv.instruction)
        covered = _COVERED_RECORD_KEYS | set(bv.qualifiers) | set(hv.qualifiers)
        if key not in extra:  # records are costly: look at one pair per instruction first
            extra[key] = bool((set(bv.as_record()) | set(hv.as_record())) - covered)
        if not extra[key]:
            continue
        rb, rh = bv.as_record(), hv.as_record()
        if bv.hardware_note == hv.hardware_note:
            covered = covered | {"hardware"}  # derived from the targets, which requirement.* report
        keys = [k for k in sorted(set(rb) | set(rh)) if k not in covered and rb.get(k) != rh.get(k)]
        if not keys:
            continue
        text = ", ".join(f"{k} {short(rb.get(k), 40)} -> {short(rh.get(k), 40)}" for k in keys)
        yield Finding(f"{hv.id} record", f"{hv.id}: {text}", *d.cause("record", hv, bv),
                      summary=f"changed: {', '.join(keys)}", variant=hv, details={"fields": keys})


def _options(v) -> dict:
    return {(axis, value): req for axis, values in v.options.items() for value, req in values if value}


@rule("variant.option.removed", "breaking", "an option qualifier (collector hint, .b2, ...) is no longer accepted")
def option_removed(d):
    for bv, hv in d.pairs.common:
        gone = sorted(set(_options(bv)) - set(_options(hv)))
        if gone:
            names = ", ".join(f".{value}" for _, value in gone)
            yield Finding(f"{hv.id} options", f"{hv.id}: option {names} removed", *d.cause("record", hv, bv),
                          summary=f"option {names} removed", variant=hv, details={"options": [v for _, v in gone]})


@rule("variant.option.added", "info", "a variant accepts a new option qualifier")
def option_added(d):
    for bv, hv in d.pairs.common:
        new = sorted(set(_options(hv)) - set(_options(bv)))
        if new:
            names = ", ".join(f".{value}" for _, value in new)
            yield Finding(f"{hv.id} options", f"{hv.id}: option {names} added", *d.cause("record", hv, bv),
                          summary=f"option {names} added", variant=hv, details={"options": [v for _, v in new]})


@rule("variant.option.requirement", "warning", "where an option qualifier is accepted changed")
def option_requirement(d):
    for bv, hv in d.pairs.common:
        ob, oh = _options(bv), _options(hv)
        moved = sorted(k for k in set(ob) & set(oh) if ob[k].intersect(bv.requirement) != oh[k].intersect(hv.requirement))
        if moved:
            names = ", ".join(f".{value}" for _, value in moved)
            yield Finding(f"{hv.id} option requirements", f"{hv.id}: where option {names} is accepted changed",
                          *d.cause("record", hv, bv), summary=f"option {names}: requirement changed", variant=hv)
