"""Fragment maps: which thread, register and slot hold each matrix element."""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.core.lazy import np

from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import same_definition
from ptxspec.diff.rules.sparsity_rules import deltas as sparsity_deltas
from ptxspec.model.variant import Operand, Variant


@dataclass
class FragmentDelta:
    bv: Variant
    hv: Variant
    bo: Operand  # the operands
    ho: Operand
    kind: str  # "moved", "reshaped" or "renamed" (another layout, the same map)
    data: dict


def _has_map(v, o) -> bool:
    """Whether the fragment operand has a register map (wmma.mma's fragments live in memory)."""
    return (o.matrix or o.name) in v.fragment_layouts


def _same_fragment(d, bv, hv, bo, ho) -> bool:
    bl, bbits, bshape = bv.fragment_layouts[bo.matrix or bo.name][:3]
    hl, hbits, hshape = hv.fragment_layouts[ho.matrix or ho.name][:3]
    return (bl.name == hl.name and bbits == hbits and tuple(bshape) == tuple(hshape)
            and bv.threads == hv.threads and same_definition(d, bl.name))


def _map_diff(bm, hm) -> dict | None:
    if bm.row.shape != hm.row.shape or (bm.rows, bm.cols) != (hm.rows, hm.cols):
        return {"kind": "reshaped",
                "before": f"{bm.rows}x{bm.cols}, {bm.elements} elements per thread x {bm.threads} threads",
                "after": f"{hm.rows}x{hm.cols}, {hm.elements} elements per thread x {hm.threads} threads"}
    if bm.bits != hm.bits and (bm.per_reg != hm.per_reg):
        return {"kind": "reshaped", "before": f"{bm.bits}-bit elements", "after": f"{hm.bits}-bit elements"}
    moved = (bm.row != hm.row) | (bm.col != hm.col)
    count = int(moved.sum())
    if not count:
        return None
    ts, es = np.nonzero(moved)
    examples = []
    for t, e in list(zip(ts.tolist(), es.tolist()))[:3]:
        per = hm.per_reg
        examples.append({"thread": t, "element": e, "reg": e // per, "slot": e % per,
                         "before": [int(bm.row[t, e]), int(bm.col[t, e])],
                         "after": [int(hm.row[t, e]), int(hm.col[t, e])]})
    return {"kind": "moved", "moved": count, "elements": int(moved.size), "examples": examples}


def deltas(d) -> list[FragmentDelta]:
    """Every fragment operand of a variant pair whose map, or whose layout's name, differs."""
    def compute():
        out, cache = [], {}
        for bv, hv in d.pairs.common:
            bops = {o.name: o for o in bv.operands if o.kind == "fragment"}
            for ho in hv.operands:
                bo = bops.get(ho.name) if ho.kind == "fragment" else None
                if bo is None or not (_has_map(bv, bo) and _has_map(hv, ho)) or _same_fragment(d, bv, hv, bo, ho):
                    continue
                bm, hm = bv.fragment_map(bo.matrix or bo.name), hv.fragment_map(ho.matrix or ho.name)
                key = (id(bm), id(hm))
                if key not in cache:
                    cache[key] = _map_diff(bm, hm)
                diff = cache[key]
                if diff is None and bo.layout != ho.layout:
                    out.append(FragmentDelta(bv, hv, bo, ho, "renamed", {}))
                elif diff is not None:
                    out.append(FragmentDelta(bv, hv, bo, ho, diff["kind"], diff))
        return out
    return d.memo("fragment.deltas", compute)


def moved_layouts(d) -> set[str]:
    """HEAD layouts whose formulas move elements of some variant (fragments or sparsity metadata)."""
    return d.memo("moved layouts", lambda: {x.ho.layout for x in deltas(d) if x.kind != "renamed" and x.ho.layout}
                  | {x.name for x in sparsity_deltas(d)})


@rule("fragment.moved", "breaking", "elements of a fragment sit in other threads, registers or slots")
def moved(d):
    for x in deltas(d):
        if x.kind == "moved":
            hv, name, data = x.hv, x.ho.name, x.data
            ex = data["examples"][0]
            eg = (f"thread {ex['thread']} element {ex['element']} (reg {ex['reg']} slot {ex['slot']}): "
                  f"({ex['before'][0]}, {ex['before'][1]}) -> ({ex['after'][0]}, {ex['after'][1]})")
            yield Finding(f"{hv.id} fragment {name}",
                          f"{hv.id}: fragment {name}: {data['moved']} of {data['elements']} elements moved, e.g. {eg}",
                          *d.cause("fragment", hv, x.bv, item=x.ho),
                          summary=f"fragment {name} (layout {x.ho.layout}): elements moved", variant=hv,
                          details={"operand": name, "moved": data["moved"], "elements": data["elements"],
                                   "examples": data["examples"]})


@rule("fragment.reshaped", "breaking", "a fragment covers another matrix shape or holds another element count")
def reshaped(d):
    for x in deltas(d):
        if x.kind == "reshaped":
            hv, name = x.hv, x.ho.name
            text = f"fragment {name}: {x.data['before']} -> {x.data['after']}"
            yield Finding(f"{hv.id} fragment {name}", f"{hv.id}: {text}", *d.cause("fragment", hv, x.bv, item=x.ho),
                          summary=text, variant=hv, before=x.data["before"], after=x.data["after"],
                          details={"operand": name})


@rule("fragment.layout.renamed", "info", "a fragment uses another layout that evaluates to the same map")
def layout_renamed(d):
    for x in deltas(d):
        if x.kind == "renamed":
            hv, name = x.hv, x.ho.name
            text = f"fragment {name} uses layout {x.ho.layout} (was {x.bo.layout}); same map"
            yield Finding(f"{hv.id} fragment {name}", f"{hv.id}: {text}", *d.cause("fragment", hv, x.bv, item=x.ho),
                          summary=text, variant=hv, before=x.bo.layout, after=x.ho.layout, details={"operand": name})
