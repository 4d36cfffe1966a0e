"""Resolvers of the spec files that define tables: the ISA (PTX versions, targets), the element
types, the families, the layouts (fragment, sparsity and scale-factor maps) and the shared-memory
descriptions. Each takes its documents (and the tables it depends on, explicitly) and returns
what it resolved; problems go to the shared context."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos, did_you_mean
from ptxspec.core.expr import ExprError, compile_formula
from ptxspec.loading.context import Context, Origin, int_set
from ptxspec.loading.tree import Document
from ptxspec.model.elements import ElementType
from ptxspec.model.family import Axis, Family, MatrixDims
from ptxspec.model.fragments import SCALE_BYTE_NAMES, SCALE_NAMES, FragmentLayout, ScaleMap
from ptxspec.model.isa import Target, Version
from ptxspec.model.opcodes import OPCODE_FIELDS
from ptxspec.model.smem import SharedMemory, SwizzleMode, invert_encode
from ptxspec.model.sparsity import META_NAMES, Sparsity

MATRIX_NAMES = frozenset({"M", "N", "K", "batch", "sparse"})
#: the threads that execute one instruction together: PTX's matrix instructions run per thread, per
#: warp or per warpgroup
EXECUTION_SCOPES = {1: "one thread", 32: "a warp", 128: "a warpgroup"}
#: the widths an element can be stored at (its container's, or its own): what tiles a 32-bit register
#: and a byte-addressed memory (a 6- or 7-bit type lives in a byte container)
STORAGE_BITS = (1, 2, 4, 8, 16, 32, 64)


@dataclass
class Isa:
    ptx_versions: list[Version] = field(default_factory=list)
    ptxas_versions: set[Version] = field(default_factory=set)
    targets: dict[str, Target] = field(default_factory=dict)
    origins: dict[str, Origin] = field(default_factory=dict)  # target name -> its entry in isa.yaml


def resolve_isa(ctx: Context, doc: Document) -> Isa:
    d = doc.data
    isa = Isa()
    seen: dict[Version, Pos] = {}
    for i, entry in enumerate(d["ptx_versions"]):
        v = Version.parse(entry["version"])
        pos = d["ptx_versions"].at(i)
        if v in seen:
            ctx.p.add(pos, f"PTX version {v} listed twice (first at line {seen[v].line})")
            continue
        if isa.ptx_versions and v < isa.ptx_versions[-1]:
            ctx.p.add(pos, f"PTX version {v} is out of order")
        seen[v] = pos
        isa.ptx_versions.append(v)
        if entry.get("ptxas", True):
            isa.ptxas_versions.add(v)
    for i, entry in enumerate(d["targets"]):
        pos = d["targets"].at(i)
        name = entry["name"]
        if name in isa.targets:
            ctx.p.add(pos, f"target {name} listed twice")
            continue
        want = f"sm_{entry['arch']}{entry['suffix']}"
        if name != want:
            ctx.p.add(pos, f"target name {name} does not match arch {entry['arch']} and suffix {entry['suffix']!r}")
        v = Version.parse(entry["ptx"])
        if v not in seen:
            ctx.p.add(entry.at("ptx"), f"unknown PTX version {v}")
        # the family is the compute capability's major version (sm_XY: X), shared by a chip's plain,
        # `a` and `f` targets: derived, so that no spec can state another (fuzz seed 23: sm_107f
        # given family 7, or 2**63-1). Revisions before the derivation state it: checked, so that
        # they still load (`ptxspec diff OLD NEW`)
        if "family" in entry and entry["family"] != entry["arch"] // 10:
            ctx.p.add(entry.at("family"), f"target {name} has family {entry['family']}; sm_{entry['arch']} is of "
                      f"family {entry['arch'] // 10} (the compute capability's major version)")
        isa.targets[name] = Target(name, entry["arch"], entry["suffix"], entry["arch"] // 10, v, entry.get("ptxas", True))
        isa.origins[name] = Origin(d["targets"], i)
    return isa


def resolve_types(ctx: Context, doc: Document) -> dict[str, ElementType]:
    d = doc.data
    types: dict[str, ElementType] = {}
    for i, t in enumerate(d["types"]):
        pos = d["types"].at(i)
        if t["name"] in types:
            ctx.p.add(pos, f"type {t['name']} listed twice")
            continue
        if t["class"] == "float" and "format" not in t:
            ctx.p.add(pos, f"float type {t['name']} needs a format")
        c_bits, c_shift = t.get("container_bits"), t.get("container_shift", 0)
        packed = t.get("packed", {})
        types[t["name"]] = ElementType(
            name=t["name"], cls=t["class"], bits=t["bits"], register=t["register"],
            signed=t.get("signed", t["class"] == "float"), format=t.get("format"),
            description=t.get("description", ""), container_bits=c_bits, container_shift=c_shift,
            packed_elements=packed.get("elements", 0), packed_bits=packed.get("bits", 0))
        if packed and packed["elements"] * t["bits"] > packed["bits"]:
            ctx.p.add(pos, f"type {t['name']}: {packed['elements']} elements of {t['bits']} bits do not fit "
                      f"{packed['bits']} bits")
        stored = c_bits or t["bits"]
        if c_bits is not None and c_bits < t["bits"]:
            ctx.p.add(pos, f"type {t['name']}: a {t['bits']}-bit element does not fit a {c_bits}-bit container")
        elif stored not in STORAGE_BITS:
            ctx.p.add(pos, f"type {t['name']}: elements are stored {stored} bits wide, but registers and memory hold "
                      f"elements of {', '.join(map(str, STORAGE_BITS))} bits: give a container (container_bits)")
        if c_shift and (c_bits is None or c_shift + t["bits"] > c_bits):
            ctx.p.add(pos, f"type {t['name']}: a {t['bits']}-bit element at bit {c_shift} does not fit its "
                      f"{c_bits}-bit container" if c_bits else f"type {t['name']}: container_shift needs container_bits")
    return types


def resolve_families(ctx: Context, docs: list[Document]) -> dict[str, Family]:
    families: dict[str, Family] = {}
    for doc in docs:
        d = doc.data
        if d["name"] in families:
            ctx.p.add(d.at("name"), f"family {d['name']} defined twice")
            continue
        n_sets = {}
        for name, value in d.get("n_sets", {}).items():
            n_sets[name] = int_set(value)
            if not n_sets[name]:
                ctx.p.add(d["n_sets"].at(name), f"n_set {name!r} is empty (a range runs first to last, upward)")
        axes = {name: Axis(name, a["description"], tuple(a["values"]), bool(a.get("option", False)))
                for name, a in d.get("axes", {}).items()}
        for name, a in axes.items():
            if a.option and "" not in a.values:
                ctx.p.add(d["axes"].at(name), f"option axis {name!r} needs '' among its values (the qualifier left "
                          "out: every variant's base opcode)")
        for name in axes:
            if name in OPCODE_FIELDS or name == "form":
                ctx.p.add(d["axes"].at(name), f"axis {name!r} would shadow the opcode field of that name")
        matrices = {}
        for name, body in d.get("matrices", {}).items():
            rows = ctx.formula(body, "rows", MATRIX_NAMES, d.pos)
            cols = ctx.formula(body, "cols", MATRIX_NAMES, d.pos)
            type_field = body.get("type") or {"a": "atype", "b": "btype", "c": "ctype", "d": "dtype"}.get(name)
            if type_field is None:
                ctx.p.add(body.pos, f"matrix {name!r} needs `type` (atype, btype, ctype or dtype): only a, b, c and d "
                          "take their element type from their name")
            elif rows is not None and cols is not None:
                matrices[name] = MatrixDims(name, body["description"], rows, cols, type_field)
        if d["threads"] not in EXECUTION_SCOPES:  # (fuzz seed 37, tree 8821: a fence run by 3 threads)
            *others, last = (f"{what} ({n})" for n, what in EXECUTION_SCOPES.items())
            ctx.p.add(d.at("threads"), f"threads: {d['threads']}: one instruction is executed by {', '.join(others)}, "
                      f"or {last}")
        families[d["name"]] = Family(name=d["name"], title=d["title"], description=d["description"],
                                     manual=d.get("manual", ""), threads=d["threads"], n_sets=n_sets, pos=d.pos,
                                     axes=axes, forms=dict(d.get("forms", {})), matrices=matrices)
    return families


@dataclass
class Layouts:
    fragments: dict[str, FragmentLayout] = field(default_factory=dict)
    sparsities: dict[str, Sparsity] = field(default_factory=dict)
    scale_maps: dict[str, ScaleMap] = field(default_factory=dict)
    #: layouts whose formulas failed: already reported where they are defined, so a group that
    #: names one is not reported again
    broken: set[str] = field(default_factory=set)
    origins: dict[str, Origin] = field(default_factory=dict)  # name -> its definition


def _names_for(cls, key):
    if cls is FragmentLayout:
        return {"rows": frozenset({"M", "N", "K"}), "cols": frozenset({"M", "N", "K"}),
                "elements": frozenset({"M", "N", "K"}), "row": frozenset({"t", "i", "M", "N", "K"}),
                "col": frozenset({"t", "i", "M", "N", "K"})}.get(key)
    if cls is ScaleMap:
        return {"supplies": SCALE_NAMES, "index": SCALE_NAMES, "byte": SCALE_BYTE_NAMES}.get(key)
    return {"contributes": META_NAMES, "row": META_NAMES, "chunk_index": META_NAMES}.get(key)


def resolve_layouts(ctx: Context, docs: list[Document], targets: dict[str, Target]) -> Layouts:
    out = Layouts()
    first_pos: dict[str, Pos] = {}
    for doc in docs:
        d = doc.data
        table: dict[str, Any]  # layouts or sparsities by name
        for section, cls, table in (("fragments", FragmentLayout, out.fragments),
                                    ("sparsity", Sparsity, out.sparsities),
                                    ("scale_maps", ScaleMap, out.scale_maps)):
            entries = d.get(section, {})
            for name, body in entries.items():
                pos = entries.at(name)
                if name in first_pos:
                    ctx.p.add(pos, f"layout {name!r} defined twice (first at {first_pos[name]})")
                    continue
                first_pos[name] = pos
                out.origins[name] = Origin(entries, name)
                if body.get("observed_on") and body["observed_on"] not in targets:
                    ctx.p.add(body.at("observed_on"), f"unknown target {body['observed_on']!r}"
                              f"{did_you_mean(body['observed_on'], targets)}")
                try:
                    table[name] = cls.build(name, body, pos)
                except ExprError as exc:
                    out.broken.add(name)
                    _report_broken_layout(ctx, cls, body, pos, exc)
    return out


def _report_broken_layout(ctx: Context, cls, body, pos: Pos, exc: ExprError) -> None:
    """Point at the first key whose formula fails."""
    for key, value in body.items():
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            try:
                names = _names_for(cls, key)
                if names:
                    compile_formula(str(value), names)
            except ExprError as e2:
                ctx.p.add(body.at(key), f"{key}: {e2}")
                return
    ctx.p.add(pos, str(exc))


def resolve_smem(ctx: Context, docs: list[Document], families: dict[str, Family]) -> dict[str, SharedMemory]:
    out: dict[str, SharedMemory] = {}
    first: dict[str, str] = {}
    for doc in docs:
        d = doc.data
        if d["family"] in first:  # one family, one descriptor: a second file would silently win
            ctx.p.add(d.at("family"), f"the shared-memory descriptor of family {d['family']} is defined twice "
                                      f"(also {first[d['family']]})")
            continue
        first[d["family"]] = doc.path
        ctx.once(d["descriptor"]["fields"], lambda f: f["name"], "descriptor field")
        ctx.once(d["swizzle_modes"], lambda m: m["name"], "swizzle mode")
        ctx.once(d.get("majors", []), lambda m: m["name"], "major")
        ctx.once(d["canonical_layouts"], lambda c: (c["major"], "swizzled" if c["swizzled"] else "not swizzled"),
                 "canonical layout")
        fields, used = [], 0
        for i, f in enumerate(d["descriptor"]["fields"]):
            mask = ((1 << f["width"]) - 1) << f["lsb"]
            if f["lsb"] + f["width"] > 64:
                ctx.p.add(d["descriptor"]["fields"].at(i), f"field {f['name']} runs past bit 63")
            elif used & mask:
                ctx.p.add(d["descriptor"]["fields"].at(i), f"field {f['name']} overlaps another field")
            used |= mask
            if "fixed" in f:  # a constant field: its encode is the constant (x is ignored)
                enc = compile_formula(str(f["fixed"]), frozenset({"x"}))
                if f["fixed"] >> f["width"]:
                    ctx.p.add(d["descriptor"]["fields"].at(i), f"field {f['name']}: {f['fixed']} does not fit")
            else:
                enc = ctx.formula(f, "encode", frozenset({"x"}), d.pos)
            fields.append({**{k: f[k] for k in ("name", "lsb", "width", "description")}, "encode": enc,
                           "fixed": f.get("fixed"), "default": f.get("default"),
                           "takes": f.get("takes", "integer"), "symbol": f.get("symbol")})
        modes = [SwizzleMode(m["name"], m["code"], m["width"], m["b"], m["repeat"], m["description"],
                             m.get("unit", 16), tuple(m.get("majors", ("K", "MN")))) for m in d["swizzle_modes"]]
        codes = [m.code for m in modes]
        if len(set(codes)) != len(codes):
            ctx.p.add(d.at("swizzle_modes"), "two swizzle modes share a code")
        swz = ctx.formula(d, "swizzle", frozenset({"a", "b", "o", "u"}), d.pos)
        ctx.known(d, "family", families, "family")
        symbols = frozenset(f["symbol"] for f in fields if f["symbol"])
        layouts = []
        for c in d["canonical_layouts"]:
            off = ctx.formula(c, "bit_offset", frozenset({"mn", "k", "bits", "W", "R", "LBO", "SBO"}), d.pos)
            advance = None
            if "advance_k" in c:
                adv = c["advance_k"]
                advance = {"bytes": ctx.formula(adv, "bytes", frozenset({"k", "bits", "W", "R"}) | symbols, d.pos),
                           "legal": ctx.formula(adv, "legal", frozenset({"k", "bits", "W", "R", "K"}), d.pos)}
            layouts.append({"major": c["major"], "swizzled": c["swizzled"], "cute": c["cute"], "bit_offset": off,
                            "advance_k": advance})
        _sample_smem(ctx, d, fields, swz, modes, layouts)
        _check_majors(ctx, d)
        if swz is None:  # reported; the spec will not load
            continue
        majors = [{k: m[k] for k in ("name", "trans", "description")} for m in d.get("majors", [])]
        out[d["family"]] = SharedMemory(family=d["family"], description=d["description"], fields=fields,
                                        swizzle_modes=modes, swizzle=swz, canonical_layouts=layouts, majors=majors)
    return out


def _check_majors(ctx: Context, d) -> None:
    """The majors are the two values of a one-bit choice (wgmma's imm-trans-a/b, the idesc's transpose
    bits), and every canonical layout's major is one of them (fuzz seed 37: trans 3 and 416, the K
    major deleted, validated)."""
    majors = d.get("majors")
    if not majors or len({m["name"] for m in majors}) != len(majors):
        return  # none stated, or a name given twice (reported: one problem at a time)
    for i, m in enumerate(majors):
        if m["trans"] not in (0, 1):
            ctx.p.add(majors[i].at("trans"), f"major {m['name']}: trans {m['trans']} is no value of the one-bit "
                      "transpose that selects it (0 or 1)")
    if len({m["trans"] for m in majors}) != len(majors):
        ctx.p.add(d.at("majors"), "two majors share a trans value: one transpose value selects each major")
    names = [m["name"] for m in majors]
    for i, c in enumerate(d["canonical_layouts"]):
        if c["major"] not in names:
            ctx.p.add(d["canonical_layouts"][i].at("major"), f"canonical layout of major {c['major']!r}, which is "
                      f"none of the majors ({', '.join(names)}){did_you_mean(c['major'], names)}")


def _sample_smem(ctx: Context, d, fields, swz, modes, layouts) -> None:
    """Compiling is not enough: evaluate every shared-memory formula on sample inputs."""
    for i, f in enumerate(fields):
        if f["encode"] is not None:
            try:
                f["encode"](x=np.arange(0, 1 << 18, 16, dtype=np.int64))
            except ExprError as exc:
                ctx.p.add(d["descriptor"]["fields"][i].at("encode"), f"encode: {exc}")
                continue
            if f["fixed"] is None:  # the C++ and Python decoders invert it: it must route bits one to one
                try:
                    invert_encode(f["name"], f["encode"], f["width"])
                except (ValueError, ExprError) as exc:
                    ctx.p.add(d["descriptor"]["fields"][i].at("encode"), f"encode: {exc}")
    addresses = np.arange(0, 4096, 16, dtype=np.int64)
    if swz is not None:
        for m in modes:
            try:
                swz(a=addresses, b=m.b, o=0, u=m.unit)
            except ExprError as exc:
                ctx.p.add(d.at("swizzle"), f"swizzle ({m.name}): {exc}")
                break
    grid = dict(mn=np.arange(64)[:, None], k=np.arange(32)[None, :], bits=16, LBO=256, SBO=1024)
    for i, c in enumerate(layouts):
        if c["bit_offset"] is not None:
            try:
                for m in modes:
                    c["bit_offset"](W=m.width, R=m.rows, **grid)
            except ExprError as exc:
                ctx.p.add(d["canonical_layouts"][i].at("bit_offset"), f"bit_offset: {exc}")
            else:
                _check_one_to_one(ctx, d["canonical_layouts"][i], c, modes)
                _check_advance(ctx, d["canonical_layouts"][i], c, modes)


# Descriptor offsets far enough apart that no two groups of rows or K chunks of a 64 x 32 operand
# meet (a canonical layout is one-to-one at them): SBO past an atom of 8 rows of 128 bytes, LBO past
# the 16 SBO steps of 64 rows of 32-bit elements
_APART_LBO, _APART_SBO = 1 << 17, 1 << 12


def _modes_of(c, modes) -> list[SwizzleMode]:
    """The swizzle modes a canonical layout describes: swizzled ones (b > 0) or none, of its major."""
    return [m for m in modes if (m.b > 0) == bool(c["swizzled"]) and c["major"] in m.majors]


def _check_one_to_one(ctx: Context, at, c, modes) -> None:
    """A canonical layout gives each element of an operand its own place (64 rows, 32 columns of
    8-, 16- and 32-bit elements, each mode it describes, all at once): two elements at one address
    would be a layout no operand fits (fuzz seed 37, tree 9155: SBO * 0 folded rows 8.. onto rows 0..)."""
    cases = [(m, bits) for m in _modes_of(c, modes) for bits in (8, 16, 32)]
    if not cases:
        return
    col = lambda xs: np.array(xs, dtype=np.int64)[:, None, None]  # noqa: E731  (one plane per case)
    bits = col([b for _, b in cases])
    mn, k = np.arange(64, dtype=np.int64)[None, :, None], np.arange(32, dtype=np.int64)[None, None, :]
    try:
        off = c["bit_offset"](mn=mn, k=k, bits=bits, W=col([m.width for m, _ in cases]),
                              R=col([m.rows for m, _ in cases]), LBO=_APART_LBO, SBO=_APART_SBO)
    except ExprError:
        return  # reported by _sample_smem
    # element slots: a shared slot is a shared (part of an) element
    flat = (np.broadcast_to(np.asarray(off, dtype=np.int64), (len(cases), 64, 32)) // bits).reshape(len(cases), -1)
    slots = np.sort(flat, axis=1)
    clash = np.argwhere(np.diff(slots, axis=1) == 0)
    if clash.size:
        i = int(clash[0][0])
        m, b = cases[i]
        both = np.flatnonzero(flat[i] == slots[i, int(clash[0][1])])[:2]
        (r0, c0), (r, col_) = (divmod(int(x), 32) for x in both)
        ctx.p.add(at.at("bit_offset"), f"bit_offset puts elements (mn={r0}, k={c0}) and (mn={r}, k={col_}) at one "
                  f"address ({m.name}, {b}-bit elements, LBO={_APART_LBO}, SBO={_APART_SBO})")


# Element widths and K extents (columns one instruction reads: 256 or 512 bits of a row) the
# advance_k rules are tried at, and descriptor offsets LBO != SBO, so that a rule using one
# where the layout uses the other shows.
_ADVANCE_BITS = (16, 8, 32, 4, 1)  # the widths the layouts serve first, for the message
_ADVANCE_LBO, _ADVANCE_SBO = 8192, 1536


def _check_advance(ctx: Context, at, c, modes) -> None:
    """advance_k claims that moving the start address by bytes(k) selects the operand from column k
    on wherever legal(k) holds. Check it against the layout's own bit_offset, for each swizzle mode
    the layout describes, each element width and K: the move is bit_offset(0, k) / 8 in whole
    16-byte units, and columns j < K of sample rows land where bit_offset(mn, k + j) puts them (the
    swizzle acts on absolute addresses, so offsets must add). All cases at once, one array axis
    each: every formula runs a few times per layout."""
    adv = c["advance_k"]
    if adv is None or adv["bytes"] is None or adv["legal"] is None:
        return
    cases = [(m, bits, width // bits) for m in _modes_of(c, modes) for bits in _ADVANCE_BITS for width in (256, 512)]
    if not cases:
        return
    col = lambda xs: np.array(xs, dtype=np.int64)[:, None]  # noqa: E731  (one row per case)
    per_case = dict(bits=col([b for _, b, _ in cases]), W=col([m.width for m, _, _ in cases]),
                    R=col([m.rows for m, _, _ in cases]))
    env = {**per_case, "LBO": _ADVANCE_LBO, "SBO": _ADVANCE_SBO}
    big_k = col([kk for _, _, kk in cases])
    k = np.arange(0, 2049, dtype=np.int64)[None, :]
    shape = (len(cases), k.shape[1])
    full = lambda x: np.broadcast_to(np.asarray(x, dtype=np.int64), shape)  # noqa: E731
    try:
        legal = full(adv["legal"](k=k, K=big_k, **env)) != 0
        moved = full(adv["bytes"](k=k, **env))
        base = full(c["bit_offset"](mn=0, k=k, **env))
    except ExprError as exc:
        ctx.p.add(at.at("advance_k"), f"advance_k: {exc}")
        return
    wrong = np.argwhere(legal & ((moved * 8 != base) | (moved % 16 != 0)))
    if wrong.size:
        i, kk = (int(x) for x in wrong[0])
        m, bits, kcols = cases[i]
        why = "not whole 16-byte units" if moved[i, kk] * 8 == base[i, kk] else f"bit_offset(0, {kk}) is {base[i, kk]} bits"
        ctx.p.add(at.at("advance_k"), f"advance_k at k={kk} ({m.name}, {bits}-bit elements, K={kcols}): moves "
                                      f"{moved[i, kk]} bytes, but {why} (LBO={_ADVANCE_LBO}, SBO={_ADVANCE_SBO})")
        return
    # 16 legal moves per case (k = 0 where a case has fewer), sample columns j < K and rows: offsets add
    picks = np.zeros((len(cases), 16), dtype=np.int64)
    for i in range(len(cases)):
        ks = np.flatnonzero(legal[i])
        chosen = ks[np.linspace(0, ks.size - 1, min(16, ks.size)).astype(np.int64)] if ks.size else ks
        picks[i, :chosen.size] = chosen
    step = picks[:, :, None, None]
    j = (big_k * np.array([0, 1, 4, 8, 12, 15, 16], dtype=np.int64) // 16 - np.array([0, 0, 0, 1, 0, 0, 1]))
    j = j[:, None, :, None]  # columns 0, 1, K/4, K/2 - 1, 3K/4, 15K/16, K - 1 of each case
    mn = np.array([0, 1, 7, 8, 9, 63, 64, 200], dtype=np.int64)[None, None, None, :]
    env4 = {**env, **{name: v[:, :, None, None] for name, v in per_case.items()}}
    off = lambda rows, kk: np.broadcast_to(np.asarray(c["bit_offset"](mn=rows, k=kk, **env4), dtype=np.int64),  # noqa: E731
                                           (len(cases), 16, j.shape[2], mn.shape[3]))
    try:
        split = np.argwhere(off(mn, step + j) != off(mn, j) + off(0, step))
    except ExprError as exc:
        ctx.p.add(at.at("advance_k"), f"advance_k: {exc}")
        return
    if split.size:
        i, s, jj, r = (int(x) for x in split[0])
        m, bits, kcols = cases[i]
        kk, cj, row = int(picks[i, s]), int(j[i, 0, jj, 0]), int(mn[0, 0, 0, r])
        ctx.p.add(at.at("advance_k"), f"advance_k: legal at k={kk} ({m.name}, {bits}-bit elements, K={kcols}), but "
                                      f"bit_offset({row}, {kk + cj}) != bit_offset({row}, {cj}) + bit_offset(0, {kk}): "
                                      f"column {cj} of the moved operand is not column {kk + cj} "
                                      f"(LBO={_ADVANCE_LBO}, SBO={_ADVANCE_SBO})")
