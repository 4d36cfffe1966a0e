"""The view of ptxspec_common.h: guards, fragment layouts, sparsity maps, block-scale factor maps,
shared-memory formulas."""
from __future__ import annotations

from ptxspec.emit.cbind.cexpr import cfunc, formula_c, ident
from ptxspec.model import smem as smem_model
from ptxspec.model.smem import invert_encode
from ptxspec.model.spec import Spec


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
        contributes, row, chunk = sp.register_map  # a variant's sparsity maps registers
        index_bits = max(1, (sp.chunk - 1).bit_length())
        tn = [("int", "t"), ("int", "n")]
        out.append({
            "name": sn, "ident": ident(sn), "description": _words(sp.description), "index_bits": index_bits,
            "kept": sp.kept, "fields": 32 // (index_bits * sp.kept),
            "functions": [
                cfunc("bool", "contributes", [("int", "t"), ("int", "sel")], contributes.names,
                      f"({formula_c(contributes.source)}) != 0", static=True),
                cfunc("int", "row", tn, row.names, formula_c(row.source), static=True),
                cfunc("int", "chunk", tn, chunk.names, formula_c(chunk.source), static=True)]})
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


def _member(mode_name: str) -> str:
    v = ident(mode_name)
    return f"_{v}" if v[:1].isdigit() else v


_TAKES = {  # a field's C++ type, and how its value goes in (x) and comes out (field value v)
    "shared_address": ("SmemAddress", "x.value", "SmemAddress(static_cast<uint32_t>({v}))"),
    "bytes": ("uint32_t", "x", "static_cast<uint32_t>({v})"),
    "integer": ("uint32_t", "x", "static_cast<uint32_t>({v})"),
    "swizzle_mode": ("SwizzleMode", "static_cast<uint64_t>(x)", "static_cast<SwizzleMode>({v})"),
}


def _mode_test(mj_name: str, swizzled: bool) -> str:
    """C condition: Major `Mj` and SwizzleMode `Mode` select this canonical layout."""
    return f"Mj == Major::{mj_name} && (swizzle_b(Mode) {'!=' if swizzled else '=='} 0)"


def shared_memory(spec: Spec) -> list[dict]:
    """Per family with shared-memory operands: the typed descriptor's fields (a setter and getter
    each, but fixed fields, which only hold their value), the swizzle modes and their attributes,
    the canonical layouts and, where the spec gives them, the majors and advance_k rules."""
    out = []
    for fam in sorted(spec.smem):
        sm = spec.smem[fam]
        inverse = smem_model.descriptor_fields(spec, fam)
        fields = []
        for f in sm.fields:
            fid = ident(f["name"])
            ctype, to_int, from_int = _TAKES[f.get("takes", "integer")]
            mask = hex((1 << f["width"]) - 1)
            fields.append({
                "name": f["name"], "ident": fid, "lsb": f["lsb"], "msb": f["lsb"] + f["width"] - 1,
                "description": _words(f["description"]), "short": _words(f["description"]).split(". ")[0].rstrip("."),
                "mask": mask, "ctype": ctype, "to_int": to_int, "symbol": f.get("symbol"),
                "fixed": f.get("fixed"), "default": f.get("default"),
                "from_int": from_int.format(v=f"decode_{fid}((bits >> {f['lsb']}) & {mask}ull)"),
                "decode": _decode_c(inverse[f["name"]].inverse, "f"),
                "encode": cfunc("uint64_t", f"encode_{fid}", [("uint64_t", "x")], f["encode"].names,
                                formula_c(f["encode"].source))})
        # the bits a default-constructed descriptor holds: the fixed fields' values, the defaults
        initial = sum(((f["fixed"] if f["fixed"] is not None else f["default"] or 0) << f["lsb"]) for f in fields)
        rows = any("R" in c["bit_offset"].names for c in sm.canonical_layouts)
        majors = [m["name"] for m in sm.majors]
        canonical, advance = [], []
        symbols = [f for f in fields if f["symbol"]]
        for c in sm.canonical_layouts:
            how = "swizzled" if c["swizzled"] else "interleaved"
            ps = [("long long", x) for x in ("mn", "k", "bits", "W", "R", "LBO", "SBO")
                  if x != "R" or x in c["bit_offset"].names]  # R (rows of a swizzle atom) where a family uses it
            args = {"mn": "mn", "k": "k", "bits": "bits", "W": "swizzle_width(mode)", "R": "swizzle_rows(mode)",
                    "LBO": "LBO", "SBO": "SBO"}
            canonical.append({
                "major": c["major"], "swizzled": c["swizzled"], "cute": c["cute"],
                "fn": cfunc("long long", f"bit_offset_{c['major']}_major_{how}", ps, c["bit_offset"].names,
                            formula_c(c["bit_offset"].source)),
                "call_args": ", ".join(args[x] for _, x in ps)})
            adv = c.get("advance_k")
            if adv and c["major"] in majors:
                tag = f"{c['major']}_major_{how}"
                legal_ps = [x for x in ("k", "bits", "W", "R", "K") if x != "R" or x in adv["legal"].names]
                bytes_ps = [x for x in ("k", "bits", "W", "R") if x != "R" or x in adv["bytes"].names]
                targs = {"k": "Step", "bits": "Bits", "W": "swizzle_width(Mode)", "R": "swizzle_rows(Mode)", "K": "K"}
                advance.append({
                    "major": c["major"], "swizzled": c["swizzled"], "legal_text": adv["legal"].source,
                    "test": _mode_test(c["major"], c["swizzled"]),
                    "legal": cfunc("bool", f"advance_k_legal_{tag}", [("long long", x) for x in legal_ps],
                                   adv["legal"].names, f"({formula_c(adv['legal'].source)}) != 0"),
                    "legal_args": ", ".join(targs[x] for x in legal_ps),
                    "bytes": cfunc("long long", f"advance_k_bytes_{tag}",
                                   [("long long", x) for x in bytes_ps + [f["symbol"] for f in symbols]],
                                   adv["bytes"].names, formula_c(adv["bytes"].source)),
                    "bytes_args": ", ".join([targs[x] for x in bytes_ps] + [f"d.{f['ident']}()" for f in symbols])})
        address = [f["ident"] for f in fields if f["ctype"] == "SmemAddress"]
        if advance and len(address) != 1:
            advance = []  # advance_k moves the one address field; without one there is nothing to move
        abo = [("long long", x) for x in ("a", "b", "o", "u") if x != "u" or x in sm.swizzle.names]
        modes = [{"ident": ident(m.name), "member": _member(m.name), "code": m.code, "description": m.description,
                  "unit": m.unit, "majors": list(m.majors)} for m in sm.swizzle_modes]
        names = ["width", "b", "repeat"] + ["unit"] * ("u" in sm.swizzle.names) + ["rows"] * rows
        attrs = [{"name": a, "table": [(_member(m.name), getattr(m, a)) for m in sm.swizzle_modes]} for a in names]
        # modes that describe only some majors (a 32-byte-unit mode: MN only), where the spec names majors
        limited = [{"member": md["member"], "ident": md["ident"], "majors": md["majors"]}
                   for md in modes if majors and set(majors) - set(md["majors"])]
        out.append({
            "family": fam, "ident": ident(fam), "description": _words(sm.description), "fields": fields,
            "initial": hex(initial) + "ull" if initial else "0", "swizzle_modes": modes, "mode_attributes": attrs, "majors": sm.majors,
            "limited_modes": limited, "unit_arg": "u" in sm.swizzle.names,
            "swizzle": cfunc("long long", "swizzle_formula", abo, sm.swizzle.names, formula_c(sm.swizzle.source)),
            "canonical": canonical, "advance": advance, "address_field": address[0] if address else None})
    return out


def type_names(spec: Spec) -> list[str]:
    return list(spec.types)


def reg_lists(spec: Spec) -> list[int]:
    """The powers of two (2, 4, ...) up to the largest register operand: the PTXSPEC_R<n> macros."""
    most = max((o.regs for v in spec.variants for o in v.operands), default=1)
    out, n = [], 2
    while n <= most:
        out.append(n)
        n *= 2
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


def _combination_words(c) -> str:
    """A layout's value combination as a comment line (make() does not check it)."""
    def part(pairs):
        return " and ".join(f"{f} {' or '.join(v)}" for f, v in pairs)
    return f"{', '.join(c.selectors)}: when {part(c.when)}, then {part(c.then)} ({c.manual})."


def bit_descriptors(spec: Spec) -> list[dict]:
    """Per run-time descriptor (spec/descriptors): per layout its fields, code constants, the
    encode/decode of number fields, make() and get_<field>()."""
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
                elif f.what == "number" and f.encode is not None:  # a number field always has its encode
                    item["encode"] = cfunc("uint32_t", f"encode_{ident(f.name)}", [("uint32_t", "x")], f.encode.names,
                                           formula_c(f.encode.source))
                    item["decode"] = cfunc("uint32_t", f"decode_{ident(f.name)}", [("uint32_t", "v")], {"v"},
                                           _decode_c(invert_encode(f.name, f.encode, f.width)))
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
                            "combinations": [_combination_words(c) for c in lay.combinations],
                            "consts": sorted(consts.items())})
        out.append({"family": fam, "name": name, "ident": f"{ident(name)}_{ident(fam)}", "bits": d.bits,
                    "ctype": "uint32_t" if d.bits == 32 else "uint64_t", "description": _words(d.description),
                    "manual": d.manual, "layouts": layouts})
    return out
