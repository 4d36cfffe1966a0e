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
                "description": _words(f["description"]), "mask": hex((1 << f["width"]) - 1), "fixed": f.get("fixed"),
                "encode": cfunc("uint64_t", fn, [("uint64_t", "x")], f["encode"].names, formula_c(f["encode"].source))})
        canonical = []
        for c in sm.canonical_layouts:
            how = "swizzled" if c["swizzled"] else "interleaved"
            ps = [("long long", x) for x in ("mn", "k", "bits", "W", "R", "LBO", "SBO")
                  if x != "R" or x in c["bit_offset"].names]  # R (rows of a swizzle atom) where a family uses it
            canonical.append({
                "major": c["major"], "swizzled": c["swizzled"], "cute": c["cute"],
                "fn": cfunc("long long", f"bit_offset_{c['major']}_major_{how}", ps, c["bit_offset"].names,
                            formula_c(c["bit_offset"].source))})
        abo = [("long long", x) for x in ("a", "b", "o", "u") if x != "u" or x in sm.swizzle.names]
        out.append({
            "family": fam, "ident": ident(fam), "description": _words(sm.description), "fields": fields,
            "swizzle_modes": [{"ident": ident(m.name), "code": m.code, "description": m.description, "unit": m.unit}
                              for m in sm.swizzle_modes],
            "swizzle": cfunc("long long", "swizzle_address", abo, sm.swizzle.names, formula_c(sm.swizzle.source)),
            "canonical": canonical})
    return out


def _decode_c(pairs, var: str = "v") -> str:
    """The inverse of a bit-routing encode, from its (field bit, input bit) pairs: runs of bits
    moved by the same distance become one mask-and-shift each."""
    runs: list[list] = []  # [first field bit, last field bit, shift (input bit - field bit)]
    for fb, vb in sorted(pairs):
        if runs and runs[-1][1] == fb - 1 and runs[-1][2] == vb - fb:
            runs[-1][1] = fb
        else:
            runs.append([fb, fb, vb - fb])
    parts = []
    for lo, hi, shift in runs:
        mask = hex(((1 << (hi - lo + 1)) - 1) << lo)
        part = f"({var} & {mask}u)"
        parts.append(f"({part} << {shift})" if shift > 0 else f"({part} >> {-shift})" if shift < 0 else part)
    return " | ".join(parts) or "0u"


def bit_descriptors(spec: Spec) -> list[dict]:
    """Per run-time descriptor (spec/descriptors): per layout its fields, code constants, the
    encode/decode of number fields, make() and get_<field>()."""
    from ...smem import _invert
    out = []
    for (fam, name), d in sorted(spec.descriptors.items()):
        layouts = []
        for lay in d.layouts:
            fields, consts = [], {}
            for f in lay.fields:
                item = {"name": f.name, "ident": ident(f.name), "lsb": f.lsb, "msb": f.lsb + f.width - 1, "legal": "",
                        "mask": hex((1 << f.width) - 1), "what": f.what, "description": _words(f.description)}
                if f.what == "reserved":
                    item["value"] = f.reserved
                elif f.what == "number":
                    item["encode"] = cfunc("uint32_t", f"encode_{ident(f.name)}", [("uint32_t", "x")], f.encode.names,
                                           formula_c(f.encode.source))
                    item["decode"] = cfunc("uint32_t", f"decode_{ident(f.name)}", [("uint32_t", "v")], {"v"},
                                           _decode_c(_invert(f.name, f.encode, f.width)))
                    if set(f.legal) == {""}:
                        item["legal"] = ", ".join(map(str, f.legal[""]))
                    else:
                        item["legal"] = "; ".join(f"{sel or 'other kinds'}: {', '.join(map(str, v))}"
                                                  for sel, v in f.legal.items())
                else:
                    for sel, table in f.codes.items():
                        for value, code in table.items():
                            key = f"{ident(f.name)}_{ident(value)}"
                            if consts.get(key, code) != code:
                                raise ValueError(f"{name} {lay.name}: {f.name} {value!r} has two codes")
                            consts[key] = code
                fields.append(item)
            layouts.append({"name": lay.name, "ident": ident(lay.name), "manual": lay.manual,
                            "kinds": ", ".join(lay.selectors), "fields": fields,
                            "inputs": [f for f in fields if f["what"] != "reserved"],
                            "consts": sorted(consts.items())})
        out.append({"family": fam, "name": name, "ident": f"{ident(name)}_{ident(fam)}", "bits": d.bits,
                    "ctype": "uint32_t" if d.bits == 32 else "uint64_t", "description": _words(d.description),
                    "manual": d.manual, "layouts": layouts})
    return out
