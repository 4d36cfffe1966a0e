"""Run-time descriptors (spec/descriptors): the layouts, fields, codes and shapes of tcgen05's idesc,
and where its shapes and kinds lie in tensor memory (spec/layouts `tmem:`)."""
from __future__ import annotations

from ptxspec.core.errors import PosDict, PosList
from ptxspec.diff.plain import changed_fields, plain, strip_descriptions
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions


@rule("descriptor.added", "info", "a run-time descriptor is new")
def added(d):
    return definitions(d, "descriptor").added()


@rule("descriptor.removed", "breaking", "a run-time descriptor is gone")
def removed(d):
    return definitions(d, "descriptor").removed()


def _layouts(desc) -> dict:
    return {lay.name: plain(lay) for lay in desc.layouts}


@rule("descriptor.layout_changed", "breaking",
      "a descriptor layout changed: a field moved, a code, legal value or value combination changed, a kind moved to "
      "another layout")
def layout_changed(d):
    for name, bo, ho, _, hent in definitions(d, "descriptor").common():
        bl, hl = _layouts(bo), _layouts(ho)
        for lay in sorted(set(bl) | set(hl)):
            if lay not in bl or lay not in hl:
                what = "added" if lay in hl else "removed"
                yield Finding(f"descriptor {name[1]} {lay}", f"descriptor {name[1]} of {name[0]}: layout {lay} {what}",
                              hent[1] if hent else None)
                continue
            b, h = strip_descriptions(bl[lay]), strip_descriptions(hl[lay])
            if b != h:
                bf = {f["name"]: f for f in b["fields"]}
                hf = {f["name"]: f for f in h["fields"]}
                fields = sorted(n for n in set(bf) | set(hf) if bf.get(n) != hf.get(n))
                what = list(fields)
                if b.get("combinations") != h.get("combinations"):
                    what.append("its value combinations")
                if b.get("selectors") != h.get("selectors"):
                    what.append("its kinds")
                yield Finding(f"descriptor {name[1]} {lay}", f"descriptor {name[1]} of {name[0]}, layout {lay}: "
                              f"{', '.join(what) or 'its manual reference'} changed", hent[1] if hent else None,
                              details={"fields": fields})


@rule("descriptor.shapes_changed", "breaking", "the shapes a descriptor may describe (M, N, K per kind) changed")
def shapes_changed(d):
    for name, bo, ho, _, hent in definitions(d, "descriptor").common():
        b, h = plain(bo), plain(ho)
        fields = [f for f in changed_fields(strip_descriptions(b), strip_descriptions(h), skip=("layouts",))
                  if f in ("shapes", "k", "bits", "selector", "operand_kind")]
        if fields:
            yield Finding(f"descriptor {name[1]} shapes", f"descriptor {name[1]} of {name[0]}: {', '.join(fields)} changed",
                          hent[1] if hent else None, details={"fields": fields})


_TMEM_KEYS = {"tmem_layouts": "id", "scale_factor_layouts": "name", "metadata_layouts": "name", "sparsity": None}
#: where each lives in a layouts file's `tmem:`
_SECTIONS = {"tmem_layouts": "datapaths", "scale_factor_layouts": "scale_factors", "metadata_layouts": "metadata",
             "sparsity": "sparsity"}


def _tmem_pos(side, name, key: str, label: str):
    """The line that places `label` (a data path, placement or kind) in the side's `tmem:`, or None."""
    t = side.index.tmem.get(name)
    if not isinstance(t, PosDict):
        return None
    node = t.get(_SECTIONS[key])
    if isinstance(node, PosDict) and label in node:
        return node.at(label)
    if isinstance(node, PosList):
        for i, x in enumerate(node):
            if isinstance(x, dict) and label in (x.get("id"), x.get("name")):
                return node.at(i)
    return t.at(_SECTIONS[key])


def _entries(desc, key: str) -> dict:
    """label -> plain data without descriptions: placements by id or name, sparsity by kind."""
    items = plain(getattr(desc, key))
    if _TMEM_KEYS[key] is None:  # kind -> its sparsity
        return {k: strip_descriptions({f: v for f, v in x.items() if f != "name"}) for k, x in items.items()}
    return {x[_TMEM_KEYS[key]]: strip_descriptions(x) for x in items}


@rule("descriptor.tmem_changed", "breaking",
      "where D, A, the block-scale factors or the sparsity metadata lie in tensor memory, or how a sparse A's "
      "chunks are described, changed")
def tmem_changed(d):
    for name, bo, ho, _, hent in definitions(d, "descriptor").common():
        for key in _TMEM_KEYS:
            b, h = _entries(bo, key), _entries(ho, key)
            changed = sorted(k for k in set(b) | set(h) if b.get(k) != h.get(k))
            if changed:
                side, at = (d.h, "head") if changed[0] in h else (d.b, "base")
                pos = _tmem_pos(side, name, key, changed[0]) or (hent[1] if hent else None)
                yield Finding(f"descriptor {name[1]} {key}", f"descriptor {name[1]} of {name[0]}: {key} "
                              f"{', '.join(changed)} changed", pos, side=at, details={key: changed})
