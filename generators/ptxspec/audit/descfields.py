"""CuTe's descriptor bit fields against the spec's: UMMA's instruction and shared-memory
descriptors (`cute/arch/mma_sm100_desc.hpp`) and GMMA's matrix descriptor (`mma_sm90_desc.hpp`).

CuTe declares each descriptor as a union of C bit fields; their bit positions follow the compilers'
rule for bit fields (a field that does not fit the rest of its storage unit starts the next one; an
unnamed field of width 0 closes the unit). Each field CuTe names is compared with the spec's field
of the same meaning (`NAMES`): the same bits, or, where CuTe's comment says it drops low bits
(`4 LSBs not included`) and the spec encodes the field with a formula, the same bits for every
value the spec calls legal.
"""
from __future__ import annotations

import re
from pathlib import Path

from ptxspec.audit.findings import Finding

_UNION = re.compile(r"union\s+(\w+)\s*\{")
_FIELDS = re.compile(r"\b(uint8_t|uint16_t|uint32_t|uint64_t)\s+([^;]*)")
_BITS = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64}
_DROPPED = re.compile(r"(\d+)\s*LSBs?\s+not\s+included")

#: (CuTe file, union) -> (the spec's descriptor: ("smem", family) or ("desc", family, name, selector),
#: CuTe field -> spec field)
NAMES = {
    ("cute/arch/mma_sm100_desc.hpp", "SmemDescriptor"): (("smem", "tcgen05"), {
        "start_address_": "start_address", "leading_byte_offset_": "leading_byte_offset",
        "stride_byte_offset_": "stride_byte_offset", "version_": "version", "base_offset_": "base_offset",
        "lbo_mode_": "lbo_mode", "layout_type_": "swizzle"}),
    ("cute/arch/mma_sm90_desc.hpp", "GmmaDescriptor"): (("smem", "wgmma"), {
        "start_address_": "start_address", "leading_byte_offset_": "leading_byte_offset",
        "stride_byte_offset_": "stride_byte_offset", "base_offset_": "base_offset", "layout_type_": "swizzle"}),
    ("cute/arch/mma_sm100_desc.hpp", "InstrDescriptor"): (("desc", "tcgen05", "idesc", "kind::f16"), {
        "sparse_id2_": "sparsity_selector", "sparse_flag_": "sparse", "saturate_": "saturate", "c_format_": "dtype",
        "a_format_": "atype", "b_format_": "btype", "a_negate_": "negate_a", "b_negate_": "negate_b",
        "a_major_": "transpose_a", "b_major_": "transpose_b", "n_dim_": "n", "m_dim_": "m", "max_shift_": "max_shift"}),
    ("cute/arch/mma_sm100_desc.hpp", "InstrDescriptorBlockScaled"): (("desc", "tcgen05", "idesc", "kind::mxf4"), {
        "sparse_flag_": "sparse", "b_sf_id_": "b_scale_id", "a_format_": "atype", "a_negate_": "negate_a",
        "b_negate_": "negate_b", "a_major_": "transpose_a", "b_major_": "transpose_b", "n_dim_": "n",
        "scale_format_": "scale_type", "m_dim_": "m", "a_sf_id_": "a_scale_id", "k_size_": "k96"}),
}


def bitfields(body: str) -> dict[str, tuple[int, int, int, int]]:
    """name -> (lsb, width, low bits dropped, line in body) of the first struct of bit fields in a
    union body; comments are read for `N LSBs not included`, on the field's line or just above it."""
    out: dict[str, tuple[int, int, int, int]] = {}
    start = body.find("struct")
    if start < 0:
        return out
    pos, above, unit = 0, "", 0
    first = body[:start].count("\n")
    for n, raw in enumerate(body[start:].split("\n")):
        code, _, comment = raw.partition("//")
        if code.strip().startswith("}"):
            break
        m = _FIELDS.search(code)
        cont = re.match(r"\s*(\w*\s*:\s*\d+.*)", code) if unit and not m else None
        if not m and not cont:
            above += " " + comment
            continue
        if m:
            unit = _BITS[m.group(1)]
        decl = m.group(2) if m else (cont.group(1) if cont else "")  # continued on the next line (`  b_ : 1,`)
        named = 0
        for item in re.finditer(r"(\w*)\s*:\s*(\d+)", decl):
            name, width = item.group(1), int(item.group(2))
            if width == 0 or pos % unit + width > unit:
                pos += -pos % unit
            if name:  # the comments describe the line's first field
                named += 1
                dropped = (_DROPPED.search(comment) or _DROPPED.search(above)) if named == 1 else None
                out[name] = (pos, width, int(dropped.group(1)) if dropped else 0, first + n)
            pos += width
        above = ""
    return out


def _spec_fields(spec, which) -> dict:
    if which[0] == "smem":
        sm = spec.smem.get(which[1])
        # a fixed field (tcgen05's version bits) holds one value: its bits are what must agree
        return {f["name"]: (f["lsb"], f["width"], f.get("encode") or (_identity if f.get("fixed") is not None else None),
                            [f["fixed"]] if f.get("fixed") is not None else None) for f in sm.fields} if sm else {}
    desc = spec.descriptors.get((which[1], which[2]))
    if desc is None:
        return {}
    lay = desc.layout(which[3])
    shapes = [sh for sh in desc.shapes if set(sh.selectors) & set(lay.selectors)]
    sizes = {"m": sorted({x for sh in shapes for x in sh.m}), "n": sorted({x for sh in shapes for x in sh.n})}
    return {f.name: (f.lsb, f.width, f.encode, f.legal_for(which[3]) or sizes.get(f.name)) for f in lay.fields}


def _identity(x: int) -> int:
    return x


def _same_bits(peer, ours) -> bool:
    """The same bits, or the same bits for every legal value where CuTe drops low bits."""
    lsb, width, dropped = peer[:3]
    s_lsb, s_width, encode, legal = ours
    if (lsb, width) == (s_lsb, s_width) and not dropped:
        return True
    if encode is None or not legal:
        return (lsb, width) == (s_lsb, s_width)
    for x in legal:
        code = int(encode(x)) if encode is _identity else int(encode(x=x))
        if (x >> dropped) >= 1 << width or ((x >> dropped) << lsb) != (code << s_lsb):
            return False
    return True


def check(spec, root: Path) -> tuple[list[Finding], int, list[str]]:
    findings, checked, notes = [], 0, []
    for (rel, union), (which, names) in NAMES.items():
        path = root / rel
        if not path.is_file():
            notes.append(f"{rel}: not found: {union} not compared")
            continue
        text = path.read_text(encoding="utf-8")
        m = _UNION.search(text) and next((u for u in _UNION.finditer(text) if u.group(1) == union), None)
        if m is None:
            notes.append(f"{rel}: no union {union}: not compared")
            continue
        body = text[m.end():text.find("\n};", m.end())]
        fields = bitfields(body)
        ours = _spec_fields(spec, which)
        line0 = text.count("\n", 0, m.start()) + 1
        for cute_name, spec_name in names.items():
            if cute_name not in fields or spec_name not in ours:
                notes.append(f"{rel}: {union}.{cute_name} or the spec's {spec_name} is missing: not compared")
                continue
            checked += 1
            lsb, width, dropped, at = fields[cute_name]
            if _same_bits(fields[cute_name], ours[spec_name]):
                continue
            line = line0 + at
            s_lsb, s_width = ours[spec_name][:2]
            proven = which == ("smem", "wgmma")  # the wgmma descriptor ran on an H100; tcgen05's did not
            findings.append(Finding(
                "layout", "error", rel, line,
                f"{union}.{cute_name} is bits [{lsb}, {lsb + width}) where the spec's {' '.join(which[1:])} field "
                f"{spec_name} is bits [{s_lsb}, {s_lsb + s_width})", f"{union}.{cute_name}", (),
                {"peer": [lsb, width, dropped], "spec": [s_lsb, s_width], "descriptor": list(which)},
                "confirmed" if proven else "unadjudicated", "spec fields (H100)" if proven else "",
                "the spec's wgmma matrix descriptor is proven on an H100" if proven else
                "the spec's field is checked against the manual's tables, not run on hardware"))
    return findings, checked, notes
