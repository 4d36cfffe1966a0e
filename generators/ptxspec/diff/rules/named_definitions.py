"""Named definitions of both trees (layouts, types, targets, errata, ...), for the rules that
report them added, removed or changed."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ptxspec.diff.plain import plain, short
from ptxspec.diff.registry import Finding


@dataclass
class Definitions:
    label: Callable[[str], str]  # name -> "layout wgmma.d"
    base: dict  # name -> model object
    head: dict
    bidx: dict  # name -> (YAML body, position)
    hidx: dict

    def added(self) -> Iterator[Finding]:
        for name in sorted(set(self.head) - set(self.base), key=str):
            entry = self.hidx.get(name)
            yield Finding(self.label(name), f"{self.label(name)} added", entry[1] if entry else None,
                          summary=f"{self.label(name)} added", after=str(name))

    def removed(self) -> Iterator[Finding]:
        for name in sorted(set(self.base) - set(self.head), key=str):
            entry = self.bidx.get(name)
            yield Finding(self.label(name), f"{self.label(name)} removed", entry[1] if entry else None, side="base",
                          summary=f"{self.label(name)} removed", before=str(name))

    def common(self) -> Iterator[tuple]:
        """(name, base object, head object, base entry, head entry) of every name in both."""
        for name in sorted(set(self.head) & set(self.base), key=str):
            yield name, self.base[name], self.head[name], self.bidx.get(name), self.hidx.get(name)


def definitions(d, area: str) -> Definitions:
    def compute():
        b, h, bi, hi = d.b.spec, d.h.spec, d.b.index, d.h.index
        if area == "layout":
            return Definitions(lambda n: f"layout {n}", {**b.layouts, **b.sparsities}, {**h.layouts, **h.sparsities},
                               bi.layouts, hi.layouts)
        if area == "type":
            return Definitions(lambda n: f"type {n}", b.types, h.types, bi.types, hi.types)
        if area == "ptx":
            return Definitions(lambda n: f"PTX ISA {n}", {str(v): v for v in b.ptx_versions},
                               {str(v): v for v in h.ptx_versions}, bi.ptx, hi.ptx)
        if area == "target":
            return Definitions(lambda n: f"target {n}", b.targets, h.targets, bi.targets, hi.targets)
        if area == "erratum":
            return Definitions(lambda n: f"erratum {n}", {e.id: e for e in b.errata}, {e.id: e for e in h.errata},
                               bi.errata, hi.errata)
        if area == "family":
            return Definitions(lambda n: f"family {n}", b.families, h.families,
                               {k: (x, x.at("name")) for k, x in bi.families.items()},
                               {k: (x, x.at("name")) for k, x in hi.families.items()})
        if area == "smem":
            return Definitions(lambda n: f"smem {n}", b.smem, h.smem, {k: (x, x.pos) for k, x in bi.smem.items()},
                               {k: (x, x.pos) for k, x in hi.smem.items()})
        if area == "descriptor":
            return Definitions(lambda n: f"descriptor {n[1]} of {n[0]}" if isinstance(n, tuple) else f"descriptor {n}",
                               b.descriptors, h.descriptors, {k: (x, x.pos) for k, x in bi.descriptors.items()},
                               {k: (x, x.pos) for k, x in hi.descriptors.items()})
        raise KeyError(area)
    return d.memo(("definitions", area), compute)


def first_of(fields: list[str], data: dict):
    """The one changed field's value, shortened, for before/after (None when several changed)."""
    return short(data.get(fields[0]), 200) if len(fields) == 1 else None


def same_definition(d, name: str) -> bool:
    """The layout (or sparsity) `name` has the same formulas in both trees."""
    def compute():
        b = d.b.spec.layouts.get(name) or d.b.spec.sparsities.get(name)
        h = d.h.spec.layouts.get(name) or d.h.spec.sparsities.get(name)
        return b is not None and h is not None and plain(b) == plain(h)
    return d.memo(("same definition", name), compute)
