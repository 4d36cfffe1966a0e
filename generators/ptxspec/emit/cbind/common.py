"""The view of ptxspec_common.h: guards, fragment layouts, sparsity maps, block-scale factor maps,
shared-memory formulas."""
from __future__ import annotations

from ...model import Spec
from .cexpr import cfunc, formula_c, ident


def _words(text: str) -> str:
    return " ".join(text.split())


def layouts(spec: Spec) -> list[dict]:
    out = []
    for ln in sorted({lay.name for v in spec.variants for lay, _, _ in v.fragment_layouts.values()}):
        lay = spec.layouts[ln]
        ti = [("int", "t"), ("int", "i")]
        out.append({
            "name": ln, "ident": ident(ln), "description": _words(lay.description),
            "sizes": [(part, formula_c(getattr(lay, part).source)) for part in ("rows", "cols", "elements")],
            "row": cfunc("int", "row", ti, lay.row.names, formula_c(lay.row.source), static=True),
            "col": cfunc("int", "col", ti, lay.col.names, formula_c(lay.col.source), static=True)})
    return out


def sparsities(spec: Spec) -> list[dict]:
    out = []
    for sn in sorted({v.sparsity.name for v in spec.variants if v.sparsity is not None}):
        sp = spec.sparsities[sn]
        index_bits = max(1, (sp.chunk - 1).bit_length())
        tn = [("int", "t"), ("int", "n")]
        out.append({
            "name": sn, "ident": ident(sn), "description": _words(sp.description), "index_bits": index_bits,
            "kept": sp.kept, "fields": 32 // (index_bits * sp.kept),
            "functions": [
                cfunc("bool", "contributes", [("int", "t"), ("int", "sel")], sp.contributes.names,
                      f"({formula_c(sp.contributes.source)}) != 0", static=True),
                cfunc("int", "row", tn, sp.row.names, formula_c(sp.row.source), static=True),
                cfunc("int", "chunk", tn, sp.chunk_index.names, formula_c(sp.chunk_index.source), static=True)]})
    return out


def scale_maps(spec: Spec) -> list[dict]:
    out = []
    for sn in sorted({o.scale_map for v in spec.variants for o in v.operands if o.scale_map}):
        sm = spec.scale_maps[sn]
        tt = [("int", "t"), ("int", "tid")]
        out.append({
            "name": sn, "ident": ident(sn), "description": _words(sm.description), "matrix": sm.matrix,
            "functions": [
                cfunc("bool", "supplies", tt, sm.supplies.names, f"({formula_c(sm.supplies.source)}) != 0", static=True),
                cfunc("int", "index", tt, sm.index.names, formula_c(sm.index.source), static=True),
                cfunc("int", "byte", [("int", "bid"), ("int", "j")], sm.byte.names, formula_c(sm.byte.source),
                      static=True)]})
    return out


def shared_memory(spec: Spec) -> list[dict]:
    out = []
    for fam in sorted(spec.smem):
        sm = spec.smem[fam]
        fields = []
        for f in sm.fields:
            fn = f"encode_{ident(f['name'])}"
            fields.append({
                "name": f["name"], "ident": ident(f["name"]), "lsb": f["lsb"], "msb": f["lsb"] + f["width"] - 1,
                "description": _words(f["description"]), "mask": hex((1 << f["width"]) - 1),
                "encode": cfunc("uint64_t", fn, [("uint64_t", "x")], f["encode"].names, formula_c(f["encode"].source))})
        canonical = []
        for c in sm.canonical_layouts:
            how = "swizzled" if c["swizzled"] else "interleaved"
            ps = [("long long", x) for x in ("mn", "k", "bits", "W", "LBO", "SBO")]
            canonical.append({
                "major": c["major"], "swizzled": c["swizzled"], "cute": c["cute"],
                "fn": cfunc("long long", f"bit_offset_{c['major']}_major_{how}", ps, c["bit_offset"].names,
                            formula_c(c["bit_offset"].source))})
        abo = [("long long", "a"), ("long long", "b"), ("long long", "o")]
        out.append({
            "family": fam, "ident": ident(fam), "description": _words(sm.description), "fields": fields,
            "swizzle_modes": [{"ident": ident(m.name), "code": m.code, "description": m.description}
                              for m in sm.swizzle_modes],
            "swizzle": cfunc("long long", "swizzle_address", abo, sm.swizzle.names, formula_c(sm.swizzle.source)),
            "canonical": canonical})
    return out
