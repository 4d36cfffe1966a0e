"""Executing tcgen05.mma (semantics `tmem_mma`): a tensor-memory image and shared memory in, the
tensor-memory image out. `ptxspec.semantics.meanings` names it the executor of tmem_mma.

    out = v.execute(tmem=img, smem=buf, d=0, a_desc=ad, b_desc=bd, idesc=word, enable_input_d=1)

`tmem` is one CTA's tensor memory, uint32 cells shaped (128 lanes, columns) (with .cta_group::2:
(2, 128, columns), the CTA of even rank first, then its peer); `smem` the shared memory the
descriptors point into, bytes or uint8 (nbytes,) whose byte 0 lies at `smem_origin` (with
.cta_group::2: (2, nbytes), one per CTA). TMEM addresses are lane << 16 | column. What is read and
where, all from the spec:

* M, N, the element types, negation, transposition, sparsity, saturation and the scale-factor ids
  from the instruction descriptor (ptxspec.descriptors; a descriptor the spec's tables do not
  allow is an error); K from the kind (Table 39);
* A and B through the shared-memory descriptor and canonical layouts (ptxspec.smem), A from TMEM
  and D through the data-path layouts, the block-scale factors through their TMEM placements
  (ptxspec.tmem); with .cta_group::2 each CTA supplies its M/2 rows of A and, as CuTe's 2-SM atoms
  read them, its N/2 columns of B;
* the arithmetic: the spec's numerics rules (spec/numerics.yaml) matched against the product the
  descriptor describes, else the block-scaling models of `ptxspec.semantics.blockscale` (kind_params); none
  of it ran on a Blackwell GPU: the status `numerics.status_rows` derives from `products` says so.

Sparse forms (tcgen05.mma.sp) read the metadata at `sp_meta` in the TMEM image, where the spec's
metadata layout for the kind and data path puts it (M = 128 and 256; kind::f16 and the 8-bit and
4-bit kinds), each chunk's 4-bit field decoded by the kind's sparsity rule (a field the manual
does not call meaningful is an error). Where no metadata layout is stated (M = 64, M = 128 over a
CTA pair, kind::tf32), or to bypass TMEM, pass `meta`: an int array (rows, K // chunk, kept) of the
sub-chunks each chunk keeps (2 of 4; tf32 1 of 2; 4-bit kinds 2 pairs of 4; with .cta_group::2 one
such array per CTA). .ws forms run with a zero-column mask (its
descriptor: spec/descriptors/tcgen05_zero_column_mask.yaml) that zeroes no column (non_zero_mask
0); .ashift and .decompress::lut::b are not executed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.core.lazy import np

from ptxspec.semantics import blockscale
from ptxspec.model import descriptors as D
from ptxspec.semantics import numerics as nm
from ptxspec.semantics import exact
from ptxspec.semantics import fdpa
from ptxspec.model import smem as smem_mod
from ptxspec.model import tmem
from ptxspec.semantics.operands import OperandError, address, checked, memory_image, tmem_image, words

__all__ = ["tmem_mma", "Product", "product", "products", "factors_per_row", "SCALE_ID_FIELDS"]


@dataclass
class Product:
    """What one MMA in tensor memory computes, decoded from its variant and instruction descriptor; the
    fields `numerics.rule_matches` reads are those of a variant."""
    kind: str
    m: int
    n: int
    k: int
    atype: str
    btype: str
    dtype: str
    sparse: bool
    ws: bool
    cta: int
    fields: dict
    scaled: bool
    qualifiers: dict = field(default_factory=dict)
    family: str = ""  # rules for one family's variants do not apply
    instruction: str = ""
    satfinite: bool = False
    op: str = ""

    @property
    def ctype(self) -> str:
        return self.dtype


def instruction_descriptor(v):
    """The BitDescriptor the variant's idesc operand carries (the family's descriptor of that operand
    kind); LookupError when the spec states none (a spec may leave a descriptor undescribed)."""
    op = next((o for o in v.operands if o.name == "idesc"), None)
    found = [d for (fam, _), d in sorted(v.spec.descriptors.items())
             if op is not None and fam == v.family and d.operand_kind == op.kind]
    if not found:
        raise LookupError(f"{v.id}: the spec describes no instruction descriptor for it")
    return found[0]


def _form(v) -> tuple[bool, bool, int]:
    """(takes sparse A: an operand of metadata, .ws: takes a zero-column mask, CTAs of its group)."""
    sparse = bool(v.sparse) or any(o.matrix == "meta" for o in v.operands)
    ws = any(o.kind == "column_mask" for o in v.operands)
    return sparse, ws, 2 if v.qualifiers.get("cta_group", "").endswith("2") else 1


def product(v, idesc: int) -> Product:
    """The product a variant computes with instruction descriptor `idesc`."""
    kind = v.qualifiers.get("kind", "")
    desc = instruction_descriptor(v)
    f = D.decode(v.spec, kind, idesc, v.family, desc.name)
    if f["problems"]:
        raise ValueError(f"{v.id}: idesc {int(idesc):#010x}: {'; '.join(f['problems'])}")
    takes_meta, ws, cta = _form(v)
    sparse = f.get("sparse") == "sparse"
    if sparse != takes_meta:
        raise ValueError(f"{v.id}: idesc says {'sparse' if sparse else 'dense'} A")
    shapes = D.shapes(v.spec, kind, v.qualifiers.get("cta_group", ""), ws, sparse, v.family, desc.name)
    if shapes is None or f["m"] not in shapes[0] or f["n"] not in shapes[1]:
        raise ValueError(f"{v.id}: M = {f['m']}, N = {f['n']} is not a legal shape here")
    k = 96 if f.get("k96") else shapes[2]
    if k is None:
        raise ValueError(f"{v.id}: the spec gives no K for {kind}")
    scaled = bool(v.qualifiers.get("block_scale"))
    return Product(kind, f["m"], f["n"], k, f["atype"], f["btype"], f.get("dtype", "f32"), sparse, ws, cta, f,
                   scaled, {"kind": kind, "block_scale": v.qualifiers.get("block_scale", "")},
                   satfinite=bool(f.get("saturate")))


def _rule(spec, p: Product):
    """The first of the spec's numerics rules that matches the product (rules for one family's
    variants do not), or None."""
    return nm.first_rule(spec, p)


def arithmetic(spec, p: Product) -> nm.NumericsParams | blockscale.KindParams:
    """The arithmetic of the product's rule, else the block-scaling model of the kind."""
    return _arithmetic_of(p, _rule(spec, p))


def _arithmetic_of(p: Product, r) -> nm.NumericsParams | blockscale.KindParams:
    """The arithmetic of rule `r` for the product, or without a rule the block-scaling model of its
    kind (ptxspec.semantics.blockscale.kind_params)."""
    if r is not None:
        q = nm.NumericsParams(r.model, **r.params)
        if q.model == "fdpa" and q.group == 0:
            q = nm.NumericsParams(**{**q.as_data(), "group": p.k})
        return q
    return blockscale.kind_params(p.kind.split("::")[1], p.scaled, p.dtype)


def products(v) -> list[tuple]:
    """Every product the variant can compute, one per combination of element types its kind's
    instruction descriptor names (the numerics rules test types, kind and saturation, never a
    tcgen05 shape): [(label 'atype*btype->dtype', rule or None, arithmetic, basis)]. Empty where the
    spec's descriptor tables give the kind no layout (the executor refuses such a variant); a type
    combination with no arithmetic, which the executor refuses too, is left out. Empty too where the
    spec describes no instruction descriptor (fuzz seed 23, tree 31993: the build died). So is a
    combination the descriptor's layout refuses (kind::f16: bf16 A or B into an f16 D)."""
    try:
        desc = instruction_descriptor(v)
    except LookupError:
        return []
    kind = v.qualifiers.get(desc.selector, "")
    if not any(kind in lay.selectors for lay in desc.layouts):
        return []
    layout = desc.layout(kind)
    codes = {f.name: sorted(f.codes_for(kind)) for f in layout.fields if f.name in ("atype", "btype", "dtype")}
    sparse, ws, cta = _form(v)
    shapes = D.shapes(v.spec, kind, v.qualifiers.get("cta_group", ""), ws, sparse, v.family, desc.name)
    k = (shapes[2] if shapes else 0) or 0
    scaled = bool(v.qualifiers.get("block_scale"))
    out = []
    for a in codes.get("atype", []):
        for b in codes.get("btype", []):
            for d in codes.get("dtype", ["f32"]):
                if layout.problems(kind, {"atype": a, "btype": b, "dtype": d}):
                    continue  # a combination the descriptor cannot hold (Table 39)
                p = Product(kind, 0, 0, k, a, b, d, sparse, ws, cta, {}, scaled,
                            {"kind": kind, "block_scale": v.qualifiers.get("block_scale", "")})
                rule = _rule(v.spec, p)
                try:
                    q = _arithmetic_of(p, rule)
                except KeyError:  # no arithmetic for these types (e.g. bf16 into an f16 D): refused
                    continue
                basis = rule.basis if rule is not None else "published"
                if isinstance(q, blockscale.KindParams):  # the .kind mma rules restated: MMA-Sim's sm_100a model
                    q = nm.NumericsParams({"products": "fdpa_scaled", "groups": "fdpa_groups"}[q.path], F=q.F,
                                          round=q.round, group=q.group if q.path == "groups" else 0,
                                          zero_exp=blockscale.NO_TERM if q.zero_exp is None else q.zero_exp)
                    basis = blockscale.SM100_STATUS
                out.append((f"{a}*{b}->{d}", rule, q, basis))
    return out


def why_no_products(v) -> str:
    """Why `products` names none for the variant, as the spec says it ('' where it says nothing)."""
    try:
        desc = instruction_descriptor(v)
    except LookupError:
        return "the spec describes no instruction descriptor for it"
    return desc.unstated.get(v.qualifiers.get(desc.selector, ""), "")




def _container_bits(v, kind: str) -> int:
    """Element width in memory (BitDescriptor.element_bits)."""
    return instruction_descriptor(v).element_bits(v.spec.types, kind)


def _elements(spec, codes, tname: str, width: int):
    t = spec.types[tname]
    if width <= t.bits:
        return codes
    return (codes >> np.uint64(t.container_shift)) & np.uint64((1 << t.bits) - 1)


def _read_smem(v, img, origin, desc, rows, cols, bits, major, matrix):
    d = smem_mod.decode_descriptor(v.spec, int(desc), v.family)
    lay = smem_mod.layout_for(v.spec, v.family, matrix, major, d["swizzle"], d["start_address"],
                              d["leading_byte_offset"], d["stride_byte_offset"], d["base_offset"], rows, cols, bits)
    lo, hi = lay.span()
    if lo < origin or hi > origin + img.shape[-1]:
        raise ValueError(f"{v.id}: {matrix.upper()} spans [{lo:#x}, {hi:#x}), outside the shared memory image")
    idx = lay.byte - origin
    if bits >= 8:
        out = np.zeros(lay.shape, np.uint64)
        for j in range(bits // 8):
            out |= img[idx + j].astype(np.uint64) << np.uint64(8 * j)
        return out
    return (img[idx].astype(np.uint64) >> lay.bit.astype(np.uint64)) & np.uint64((1 << bits) - 1)


def _addr(v, name, ops) -> tuple[int, int]:
    """(lane, column) of a TMEM address operand (a checked 32-bit word: lane << 16 | column)."""
    if name not in ops:
        raise OperandError(f"{v.id}: operand {name!r} (a tensor-memory address) is missing")
    a = ops[name]
    return a >> 16, a & 0xFFFF


def _cells(img, lane, col, what):
    if lane.min() < 0 or lane.max() >= img.shape[-2] or col.min() < 0 or col.max() >= img.shape[-1]:
        raise ValueError(f"{what} reaches lanes {lane.min()}-{lane.max()}, columns {col.min()}-{col.max()}: outside "
                         f"the tensor memory image ({img.shape[-2]} x {img.shape[-1]})")
    return img[lane, col]


def _sparse_expand(p: Product, spec, packed, meta, family: str, name: str):
    """Dense A (rows, K) and its kept mask from packed A (rows, K/2) and the kept sub-chunks of
    each chunk (rows, K // chunk, kept), rising (chunk and sub-chunk from the spec's sparsity rule)."""
    rule = tmem.sparsity_rule(spec, p.kind, family, name)
    chunk, unit, per = rule.chunk_elements, rule.subchunk_elements, rule.kept_subchunks
    rows, half = packed.shape
    K = half * 2
    meta = words("meta (the kept sub-chunks of each chunk)", meta, 32).astype(np.int64)
    if meta.shape != (rows, K // chunk, per):
        raise ValueError(f"meta must be shaped {(rows, K // chunk, per)} (sub-chunks kept per chunk of {chunk})")
    if (meta < 0).any() or (meta >= chunk // unit).any() or (np.diff(meta, axis=-1) <= 0).any():
        raise ValueError(f"meta: positions must rise within each chunk and lie in 0..{chunk // unit - 1}")
    cols = (meta[..., None] * unit + np.arange(unit)) + (np.arange(K // chunk) * chunk)[None, :, None, None]
    cols = cols.reshape(rows, half)
    dense = np.zeros((rows, K), np.uint64)
    kept = np.zeros((rows, K), bool)
    r = np.arange(rows)[:, None]
    dense[r, cols] = packed
    kept[r, cols] = True
    return dense, kept


def _meta_from_tmem(v, p: Product, lay, cimg, ops, rows: int):
    """The kept sub-chunks (rows, K // chunk, kept) that the metadata at sp_meta describes: each
    chunk's 4-bit field where the spec's metadata layout puts it, decoded by the sparsity rule."""
    desc = instruction_descriptor(v)
    rule = tmem.sparsity_rule(v.spec, p.kind, v.family, desc.name)
    ml = tmem.metadata_layout(v.spec, p.kind, lay.id, v.family, desc.name)
    if "sp_meta" not in ops:
        raise OperandError(f"{v.id} is sparse: pass sp_meta= (the metadata's TMEM address), or meta= (the kept "
                           "sub-chunks)")
    sel = int(p.fields.get("sparsity_selector", 0))
    lane, col, bit = tmem.metadata_cells(ml, rows, p.k // rule.chunk_elements, sel)
    lane0, col0 = _addr(v, "sp_meta", ops)
    fields = (_cells(cimg, lane + lane0, col + col0, "the sparsity metadata").astype(np.int64) >> bit) & 0xF
    table = np.full(16, -1, np.int64)
    kept = np.zeros((16, rule.kept_subchunks), np.int64)
    for i, (code, pos) in enumerate(rule.codes):
        table[code], kept[code] = i, pos
    bad = table[fields] < 0
    if bad.any():
        r, c = (int(x[0]) for x in np.nonzero(bad))
        raise ValueError(f"{v.id}: the metadata of row {r}, chunk {c} is {int(fields[r, c]):#06b}, not one of the "
                         f"codes the manual calls meaningful ({', '.join(f'{code:#06b}' for code, _ in rule.codes)})")
    return kept[fields]


def _negate(spec, codes, tname):
    return codes ^ np.uint64(1 << (spec.types[tname].bits - 1))


def _compute(spec, p: Product, a, b, c, kept, sfa, sfb, stype, scale_input_d, kind_params=None):
    q = arithmetic(spec, p)
    if kind_params is not None:  # another arithmetic for the block-scaling models (a named alternative)
        if not isinstance(q, blockscale.KindParams):
            raise ValueError(f"kind_params is for the block-scaling kinds; .{p.kind} takes {q.model}")
        q = kind_params
    if scale_input_d and p.dtype not in ("f32", "f16"):
        raise NotImplementedError(f"scale-input-d with a {p.dtype} D (not in the manual) is not executed")
    if scale_input_d:  # the old D times 2^-scale before accumulating (exact in float64; f32/f16 D)
        dt = {"f32": np.float32, "f16": np.float16}[p.dtype]
        vals = c.astype({"f32": np.uint32, "f16": np.uint16}[p.dtype]).view(dt).astype(np.float64)
        c = (vals * 2.0 ** -scale_input_d).astype(dt).view({"f32": np.uint32, "f16": np.uint16}[p.dtype])
        c = c.astype(np.uint64)
    if isinstance(q, blockscale.KindParams):
        return blockscale.mma_kind(spec, a, b, c, p.atype, p.btype, p.dtype, p.dtype, q, sfa, sfb, stype, kept)
    if q.model == "integer":
        if kept is not None:
            a = np.where(kept, a, 0)
        return exact.integer_mma(spec, a, b, c, p.atype, p.btype, p.dtype, p.satfinite)
    if q.model == "fdpa":
        return fdpa.fdpa(spec, a, b, c, p.atype, p.btype, p.dtype, p.dtype, q, kept=kept)
    raise NotImplementedError(f"arithmetic model {q.model!r} for tcgen05.mma")


#: the idesc field that gives a scale-factor placement's `id`, per scaled matrix
SCALE_ID_FIELDS = {"scale_a": "a_scale_id", "scale_b": "b_scale_id"}


def scale_factors(v, p: Product) -> int:
    """Scale factors per row of A (column of B) of a block-scaled variant under its idesc."""
    return factors_per_row(v, instruction_descriptor(v), p.kind, p.k)


def factors_per_row(v, desc, kind: str, k: int) -> int:
    """Scale factors per row of A (column of B): N of .scale_vec::NX; for .blockB (and '', which is
    .block32) the kind's dense K over B (Table 54: mxf8f6f4 1, mxf4 2, mxf4nvf4 .block16 4)."""
    sv = v.qualifiers.get("scale_vec", "") or "block32"
    if sv.startswith("scale_vec::"):
        return int(sv.split("::")[1].rstrip("X"))
    if k == 96:
        raise NotImplementedError(f"{v.id}: the K = 96 scale-factor placements are not in the spec")
    return desc.k[kind] // int(sv[len("block"):])


def _scales(v, p, lay, cimg, ops, rows_a):
    """(scale_a (rows, SF), scale_b (SF, N), scale type) codes of one CTA, from their TMEM placements."""
    sf = scale_factors(v, p)
    out = []
    for matrix, extent in (("scale_a", rows_a), ("scale_b", p.n)):
        sid = p.fields.get(SCALE_ID_FIELDS[matrix], 0)
        place = tmem.scale_layout(v.spec, matrix, lay.id, v.family, instruction_descriptor(v).name)
        lane, col, byte = tmem.scale_cells(place, extent, sf, sid, p.n)
        base_lane, base_col = _addr(v, matrix, ops)
        copies = [(_cells(cimg, ln + base_lane, col + base_col, matrix) >> (8 * byte).astype(np.uint32)) & 0xFF
                  for ln in lane]
        for q, other in enumerate(copies[1:], 1):  # every copy must hold the same factor
            if (other != copies[0]).any():
                raise ValueError(f"{v.id}: {matrix}: copy {q} of the factors differs from copy 0 "
                                 "(they are duplicated to every lane partition)")
        out.append(copies[0].astype(np.uint64))
    return out[0], out[1].T, p.fields.get("scale_type", "ue8m0")


def tmem_mma(v, *, tmem=None, smem=None, smem_origin: int = 0, meta=None, kind_params=None, **ops):
    """The TMEM image after the instruction (a copy; `tmem` is not changed). `kind_params`
    (ptxspec.semantics.blockscale.KindParams) replaces the arithmetic of a block-scaled or f8f6f4 kind, e.g.
    with one of blockscale.ALTERNATIVES (the device harness compares a run with each)."""
    return _run(v, tmem, smem, smem_origin, meta, ops, kind_params)


def _run(v, tmem_img, smem, smem_origin, meta, ops, kind_params=None):
    spec = v.spec
    names = {o.name for o in v.operands}
    unknown = sorted(set(ops) - names)
    if unknown:
        raise OperandError(f"{v.id} has no operand {', '.join(map(repr, unknown))}; it has {', '.join(sorted(names))}")
    if tmem_img is None or "d" not in ops or "idesc" not in ops:
        raise OperandError(f"{v.id}: pass tmem= (the TMEM image), d= and idesc=")
    if v.qualifiers.get("ashift") or v.qualifiers.get("decompress"):
        raise NotImplementedError(f"{v.id}: .ashift and .decompress are not executed")
    ops = checked(v, ops)  # every operand a word of its register (idesc, addresses, masks), refused otherwise
    smem_origin = address(f"{v.id}: smem_origin", smem_origin)
    p = product(v, ops["idesc"])
    img = tmem_image(v, tmem_img, (2, tmem.LANES, -1) if p.cta == 2 else (tmem.LANES, -1), tmem.COLUMNS)
    if p.ws and "zero_column_mask" in ops:
        _check_column_mask(v, int(ops["zero_column_mask"]))
    lay = tmem.datapath(spec, p.m, v.qualifiers.get("cta_group", ""), p.sparse, p.ws, v.family,
                        instruction_descriptor(v).name)
    d_lane0, d_col0 = _addr(v, "d", ops)
    L = d_lane0 if len(lay.alignments) > 1 else 0
    if d_lane0 != L:
        raise ValueError(f"{v.id}: D's address must be at lane {' or '.join(map(str, lay.alignments))}")
    width = _container_bits(v, p.kind)
    abits, bbits = max(width, spec.types[p.atype].bits), max(width, spec.types[p.btype].bits)
    imgs_s = None
    if smem is not None:
        s = memory_image(smem, f"{v.id}: smem", (2,) if p.cta == 2 else (1,))
        if p.cta == 2 and s.shape[0] != 2:
            raise ValueError(f"{v.id}: with .cta_group::2 smem is shaped (2, nbytes), one image per CTA")
        imgs_s = [s[i] for i in range(s.shape[0])] if p.cta == 2 else [s]
    rows = lay.rows
    ka = p.k // 2 if p.sparse else p.k
    a_parts, b_parts, c_parts = [], [], []
    for cta in range(p.cta):
        cimg = img[cta] if p.cta == 2 else img
        if "a_desc" in ops:
            if imgs_s is None:
                raise OperandError(f"{v.id} reads A and B from shared memory: pass smem=")
            major = "MN" if p.fields.get("transpose_a") else "K"
            a_raw = _read_smem(v, imgs_s[cta], smem_origin, ops["a_desc"], rows, ka, abits, major, "a")
        else:
            a_lane0, a_col0 = _addr(v, "a_tmem", ops)
            lanes, col, bit = tmem.a_cells(lay, ka, abits, L)
            cells = [_cells(cimg, ln + a_lane0 - L, col + a_col0, "A") for ln in lanes]
            for other in cells[1:]:
                if (other != cells[0]).any():
                    raise ValueError(f"{v.id}: the copies of A in tensor memory differ")
            a_raw = (cells[0].astype(np.uint64) >> bit.astype(np.uint64)) & np.uint64((1 << abits) - 1)
        if imgs_s is None:
            raise OperandError(f"{v.id} reads B from shared memory: pass smem=")
        nb = p.n // p.cta
        b_raw = _read_smem(v, imgs_s[cta], smem_origin, ops["b_desc"], p.k, nb, bbits,
                           "MN" if p.fields.get("transpose_b") else "K", "b")
        a_parts.append(a_raw)
        b_parts.append(b_raw)
        lane, col = tmem.d_cells(lay, p.n, L)
        c_parts.append((lane, col + d_col0, cimg))
    b = np.concatenate(b_parts, axis=1)
    a_el = [_elements(spec, x, p.atype, abits) for x in a_parts]
    b = _elements(spec, b, p.btype, bbits)
    if p.fields.get("negate_b"):
        b = _negate(spec, b, p.btype)
    out = img.copy()
    mask = _lane_mask(v, ops, p.cta)
    enable = ops.get("enable_input_d", 1)
    for cta in range(p.cta):
        a = a_el[cta]
        if p.fields.get("negate_a"):
            a = _negate(spec, a, p.atype)
        kept = None
        if p.sparse:
            lay_meta = (np.asarray(meta)[cta] if p.cta == 2 else meta) if meta is not None else \
                _meta_from_tmem(v, p, lay, img[cta] if p.cta == 2 else img, ops, rows)
            a, kept = _sparse_expand(p, spec, a, lay_meta, v.family, instruction_descriptor(v).name)
        lane, col, cimg = c_parts[cta]
        raw = _cells(cimg, lane, col, "D")
        dbits = spec.types[p.dtype].bits
        c = (raw & np.uint32((1 << dbits) - 1)).astype(np.uint64) if enable else np.zeros(raw.shape, np.uint64)
        sfa, sfb, stype = _scales(v, p, lay, cimg, ops, rows) if p.scaled else (None, None, None)
        d = _compute(spec, p, a, b, c, kept, sfa, sfb, stype, int(ops.get("scale_input_d", 0)) if enable else 0,
                     kind_params)
        keep = mask[cta][lane]  # lanes the mask disables keep their old D
        new = np.where(keep, raw, d.astype(np.uint32))
        (out[cta] if p.cta == 2 else out)[lane, col] = new
    return out


def _check_column_mask(v, word: int) -> None:
    """The zero-column mask must zero no column (its descriptor's non_zero_mask 0): how a mask that
    does is built is ambiguous in the manual (see spec/descriptors/tcgen05_zero_column_mask.yaml)."""
    op = next(o for o in v.operands if o.name == "zero_column_mask")
    desc = next(d for (fam, _), d in sorted(v.spec.descriptors.items()) if fam == v.family and d.operand_kind == op.kind)
    f = D.decode(v.spec, v.qualifiers.get(desc.selector, ""), word, v.family, desc.name)
    if f["problems"]:
        raise ValueError(f"{v.id}: zero-column mask {word:#x}: {'; '.join(f['problems'])}")
    if f["non_zero_mask"]:
        raise NotImplementedError(f"{v.id}: a zero-column mask that zeroes columns (non_zero_mask 1) is not executed")


def lane_mask_regs(cta: int) -> int:
    """Registers of a disable-output-lane mask: one bit per tensor-memory lane of each CTA of the group."""
    return tmem.LANES * cta // 32


def signature_problems(v) -> list[tuple[str, str]]:
    """(operand, why) for each operand the signature gives a shape this meaning cannot take: a lane
    mask of other than one bit per lane of D (fuzz seed 37, tree 3950: 1 register for .cta_group::2),
    an instruction descriptor whose shapes give the variant's kind and CTA group none."""
    sparse, ws, cta = _form(v)
    out = [(o.name, f"operand {o.name}: {o.regs} register{'s' if o.regs != 1 else ''}, but a lane mask holds one bit "
                    f"per tensor-memory lane of D: {lane_mask_regs(cta)} registers of 32 bits with {cta} "
                    f"CTA{'s' if cta > 1 else ''}")
           for o in v.operands if o.kind == "lane_mask" and o.regs != lane_mask_regs(cta)]
    try:
        desc = instruction_descriptor(v)
    except LookupError:
        return out
    kind, group = v.qualifiers.get(desc.selector, ""), v.qualifiers.get("cta_group", "")
    if any(kind in lay.selectors for lay in desc.layouts) and \
            D.shapes(v.spec, kind, group, ws, sparse, v.family, desc.name) is None:  # (fuzz seed 37, trees 895, 4164)
        out += [(o.name, f"operand {o.name}: the {v.family} {desc.name}'s shapes have no row for {kind} with {group}"
                         f"{' and .ws' if ws else ''}: no M and N would be legal") for o in v.operands if o.kind == "idesc"]
    return out


def _lane_mask(v, ops, cta: int) -> list[np.ndarray]:
    """Per CTA, the lanes whose D the disable-output-lane mask keeps (bit i of the registers: lane i;
    with .cta_group::2 registers 0-3 for the even CTA, 4-7 for its peer)."""
    regs = ops.get("disable_output_lane")
    if regs is None:
        return [np.zeros(tmem.LANES, bool)] * cta
    r = regs.astype(np.uint64)  # checked 32-bit words (operands.checked)
    if r.shape != (lane_mask_regs(cta),):
        raise ValueError(f"{v.id}: disable_output_lane holds {lane_mask_regs(cta)} registers of 32 bits: shaped "
                         f"({lane_mask_regs(cta)},); "
                         f"got {r.shape}")
    bits = ((r[:, None] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)).astype(bool).reshape(cta, tmem.LANES)
    return list(bits)
