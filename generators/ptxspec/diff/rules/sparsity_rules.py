"""Sparsity metadata: which chunk elements each nibble names, which threads supply it, which
nibble values are legal."""
from __future__ import annotations

from dataclasses import dataclass

from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import same_definition
from ptxspec.model.variant import Variant


@dataclass
class SparsityDelta:
    bv: Variant
    hv: Variant
    name: str  # HEAD's sparsity
    moved: int  # nibbles that describe other chunks or come from other threads; -1: another shape
    total: int


def _moved(bs, hs, bv, hv) -> tuple[int, int]:
    moved, total = 0, 0
    try:
        for sel in sorted(set(bs.selectors) & set(hs.selectors)):
            bc, br, bk = bs.metadata_map(bv.threads, bv.m, bv.n, bv.k, sel)
            hc, hr, hk = hs.metadata_map(hv.threads, hv.m, hv.n, hv.k, sel)
            if bc.shape != hc.shape or br.shape != hr.shape:
                return -1, 0
            both = bc & hc
            total += int((bc | hc).sum()) * br.shape[1]
            moved += int((bc ^ hc).sum()) * br.shape[1]
            moved += int(((br != hr) | (bk != hk))[both].sum())
    except Exception:  # noqa: BLE001 - a map the model cannot evaluate was reported when loading
        return 0, 0
    return moved, total


def deltas(d) -> list[SparsityDelta]:
    def compute():
        out, cache = [], {}
        for bv, hv in d.pairs.common:
            bs, hs = bv.sparsity, hv.sparsity
            if bs is None or hs is None:
                continue
            if (bs.name == hs.name and bv.threads == hv.threads and (bv.m, bv.n, bv.k) == (hv.m, hv.n, hv.k)
                    and same_definition(d, bs.name)):
                continue
            key = (id(bs), id(hs), bv.threads, hv.threads, bv.m, bv.n, bv.k, hv.m, hv.n, hv.k)
            if key not in cache:
                cache[key] = _moved(bs, hs, bv, hv)
            moved, total = cache[key]
            if moved:
                out.append(SparsityDelta(bv, hv, hs.name, moved, total))
        return out
    return d.memo("sparsity.deltas", compute)


@rule("sparsity.moved", "breaking", "sparsity metadata nibbles describe other chunks, or other threads supply them")
def moved(d):
    for x in deltas(d):
        hv, name = x.hv, x.name
        text = "metadata map changed shape" if x.moved < 0 else f"{x.moved} of {x.total} metadata nibbles moved"
        yield Finding(f"{hv.id} sparsity", f"{hv.id}: sparsity {name}: {text}", *d.cause("sparsity", hv, x.bv),
                      summary=f"sparsity {name}: metadata nibbles moved", variant=hv,
                      details={"moved": max(x.moved, 0), "elements": x.total})


# -- legal nibble values, per sparsity definition ----------------------------------------------


def _hexes(xs) -> list[str]:
    return [f"0x{x:X}" for x in xs]


def _definitions(d):
    """(name, base nibbles, head nibbles, position) of sparsity definitions whose legal nibbles differ."""
    out = []
    for name in sorted(set(d.b.spec.sparsities) & set(d.h.spec.sparsities)):
        bn, hn = d.b.spec.sparsities[name].valid_nibbles, d.h.spec.sparsities[name].valid_nibbles
        if list(bn) != list(hn):
            where = pos_in(d.h.index.layouts.get(name), d.b.index.layouts.get(name), ["valid_nibbles"])
            out.append((name, list(bn), list(hn), where))
    return out


@rule("sparsity.nibbles.narrowed", "breaking", "a metadata nibble value is no longer valid")
def nibbles_narrowed(d):
    for name, bn, hn, where in _definitions(d):
        lost = sorted(set(bn) - set(hn))
        if lost:
            yield Finding(f"layout {name} nibbles", f"sparsity {name}: nibbles {', '.join(_hexes(lost))} no longer valid",
                          where, before=_hexes(bn), after=_hexes(hn))


@rule("sparsity.nibbles.widened", "info", "a metadata nibble value is newly valid")
def nibbles_widened(d):
    for name, bn, hn, where in _definitions(d):
        gained = sorted(set(hn) - set(bn))
        if gained and not set(bn) - set(hn):
            yield Finding(f"layout {name} nibbles", f"sparsity {name}: nibbles {', '.join(_hexes(gained))} newly valid",
                          where, before=_hexes(bn), after=_hexes(hn))


# -- legal nibble values, per variant ----------------------------------------------------------


def _variant_nibbles(d):
    """Variant pairs whose legal metadata nibbles differ for a reason of the variant's own (a
    refinement that orders the metadata, another sparsity); a definition's own list changing is
    reported once, by sparsity.nibbles.*."""
    def compute():
        out = []
        for bv, hv in d.pairs.common:
            bn, hn = bv.metadata_nibbles, hv.metadata_nibbles
            if bn == hn:
                continue
            if (bv.sparsity is not None and hv.sparsity is not None and bv.sparsity.name == hv.sparsity.name
                    and bv.metadata_order == hv.metadata_order):
                continue
            out.append((bv, hv, sorted(set(bn) - set(hn)), sorted(set(hn) - set(bn))))
        return out
    return d.memo("sparsity.variant nibbles", compute)


def _variant_finding(d, bv, hv, changed: list[int], verb: str) -> Finding:
    text = f"metadata nibbles {', '.join(_hexes(changed))} {verb}"
    kind = "requirement" if bv.metadata_order != hv.metadata_order else "sparsity"
    return Finding(f"{hv.id} metadata nibbles", f"{hv.id}: {text} ({len(bv.metadata_nibbles)} -> "
                   f"{len(hv.metadata_nibbles)} legal values)", *d.cause(kind, hv, bv), summary=text, variant=hv,
                   before=_hexes(bv.metadata_nibbles), after=_hexes(hv.metadata_nibbles))


@rule("sparsity.metadata.narrowed", "breaking",
      "a variant accepts fewer metadata nibble values (a refinement orders them, or another sparsity applies)")
def metadata_narrowed(d):
    for bv, hv, lost, _ in _variant_nibbles(d):
        if lost:
            yield _variant_finding(d, bv, hv, lost, "no longer valid")


@rule("sparsity.metadata.widened", "info", "a variant accepts more metadata nibble values")
def metadata_widened(d):
    for bv, hv, lost, gained in _variant_nibbles(d):
        if gained and not lost:
            yield _variant_finding(d, bv, hv, gained, "newly valid")
