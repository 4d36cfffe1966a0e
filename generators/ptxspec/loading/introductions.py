"""Each instruction's introduction: the PTX ISA version and the targets it first appeared on, as
its file states them (`introduced:`, from the manual's "PTX ISA Notes" and "Target ISA Notes"),
and no requirement of the file earlier than that.

A requirement clause, a group's own requirement, a refinement or an option's requirement that
names an older PTX version, or a target of an older architecture than every target the
instruction was introduced on, claims the instruction existed before it did (ldmatrix from PTX
6.3 or on sm_70; tcgen05.mma on sm_90a): each is a located error. ptxas 13.5 is the independent
check of the introductions themselves (tests/test_introductions.py).
"""
from __future__ import annotations

from ptxspec.core.errors import PosDict, PosList
from ptxspec.loading.context import Context
from ptxspec.loading.tree import Document
from ptxspec.model.isa import Requirement, TargetSetError, Version, resolve_target_set

__all__ = ["check_introductions"]


def check_introductions(ctx: Context, spec, docs: list[Document]) -> None:
    """Read each instruction's `introduced` into the model, and refuse any requirement of its file
    that is older than it."""
    for doc in docs:
        d = doc.data
        inst = spec.instructions.get(d.get("name"))
        if inst is None or inst.path != doc.path or "introduced" not in d:
            continue  # an instruction the resolver refused (it said why), or one without (the schema says)
        clause = ctx.clause(d["introduced"], spec.ptx_versions, spec.targets)
        if clause is None or not clause.targets:
            continue
        inst.introduced = Requirement((clause,))
        first_arch = min(spec.targets[t].arch for t in clause.targets)
        for node, where, narrows in _requirements(d):
            for why in _earlier(node, spec, clause.ptx, None if narrows else first_arch):
                ctx.p.add(where, f"{why}: {inst.name} was introduced in PTX {clause.ptx} on "
                          f"{_names(spec, clause.targets)} (its `introduced`, from the manual's ISA notes)")


def _requirements(node):
    """(requirement mapping, position, narrows) of every `requires` of a document: the clauses of
    the instruction's and a group's lists, and a refinement's single mapping, which only narrows
    (its targets are intersected with the variant's: they cannot reach back; its PTX version can
    claim too early a one)."""
    if isinstance(node, PosDict):
        for key, value in node.items():
            if key == "requires":
                if isinstance(value, PosList):
                    yield from ((c, value.at(i), False) for i, c in enumerate(value) if isinstance(c, PosDict))
                elif isinstance(value, PosDict):
                    yield value, node.at(key), True
            elif key != "introduced":
                yield from _requirements(value)
    elif isinstance(node, PosList):
        for item in node:
            yield from _requirements(item)


def _earlier(r: PosDict, spec, ptx: Version, first_arch: int | None) -> list[str]:
    """Why requirement `r` reaches back before the introduction ([] when it does not; its targets
    are not looked at without `first_arch`). A clause that does not parse is the resolver's to report."""
    out = []
    if "ptx" in r:
        try:
            v = Version.parse(r["ptx"])
        except (ValueError, TypeError):
            v = None
        if v is not None and v < ptx:
            out.append(f"a requirement from PTX {v}")
    if "targets" in r and first_arch is not None:
        try:
            ts = resolve_target_set(r["targets"], spec.targets)
        except (TargetSetError, TypeError, ValueError, RecursionError):
            ts = frozenset()
        older = sorted((t for t in ts if spec.targets[t].arch < first_arch), key=lambda t: spec.targets[t].arch)
        if older:
            out.append(f"a requirement on {_names(spec, frozenset(older))}")
    return out


def _names(spec, targets: frozenset[str]) -> str:
    ordered = sorted(targets, key=lambda t: (spec.targets[t].arch, t))
    return ", ".join(ordered[:4]) + (f" and {len(ordered) - 4} more" if len(ordered) > 4 else "")
