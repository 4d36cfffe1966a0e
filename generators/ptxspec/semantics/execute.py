"""Executing one variant: the destination registers, from the source registers and shared memory.

    v = ptxspec.load().variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="desc")
    d = v.execute(d=c_regs, a_desc=ad, b_desc=bd, smem=image, smem_origin=0x2000, scale_d=1,
                  imm_scale_a=1, imm_scale_b=1, imm_trans_a=0, imm_trans_b=0)

Operands are named as in the variant's PTX syntax (`v.operands`): register fragments as uint32
arrays shaped (threads, regs) (uint64 for f64 registers), with an optional leading batch dimension;
descriptors as 64-bit integers (or one per batch element); the metadata register as (threads,)
(or (batch, threads)); immediates and the `scale_d` predicate as ints. `smem` is the shared
memory image the descriptors point into, bytes or a uint8 array (nbytes,) or (batch, nbytes), whose
byte 0 lies at shared address `smem_origin` (default 0). For wgmma the accumulator operand `d` is
read as C and the result is its new value; for mma, `c` is C and the result is `d`.

The arithmetic is `ptxspec.semantics.numerics`; the fragment maps, descriptor layouts and sparsity metadata
are the spec's (`Variant.unpack/pack`, `ptxspec.smem`, `ptxspec.sparse`).
"""
from __future__ import annotations

from typing import Any

from ptxspec.core.lazy import np

from ptxspec.model import smem as smem_mod
from ptxspec.model.kinds import kind_of
from ptxspec.semantics import blockscale, exact, fdpa
from ptxspec.semantics import numerics as nm
from ptxspec.semantics import sparse as sparse_mod
from ptxspec.semantics.operands import OperandError, address, by_name, check_operands, memory_image, registers

__all__ = ["execute_mma", "execute_kind", "operand_matrices", "compute"]

_CHUNK = 1 << 22  # products per vectorised block of the float model


_PERMS: dict = {}


def _perm(fm):
    """(flat matrix index of each register slot, register slot of each matrix cell) of a 32-bit map."""
    hit = _PERMS.get(id(fm))
    if hit is None or hit[0] is not fm:
        flat = (fm.row * fm.cols + fm.col).ravel()
        inv = np.empty(flat.size, np.intp)
        inv[flat] = np.arange(flat.size)
        hit = _PERMS[id(fm)] = (fm, flat, inv)
    return hit[1], hit[2]


def _unpack(v, name, regs):
    """v.unpack, with a gather for 32-bit elements (no 64-bit intermediate, no scatter)."""
    fm = v.fragment_map(name)
    if fm.bits != 32:
        return v.unpack(name, regs)
    r = np.asarray(regs).astype(np.uint32, copy=False)
    _, inv = _perm(fm)
    lead = r.shape[:-2]
    return np.take(r.reshape(lead + (-1,)), inv, axis=-1).reshape(lead + (fm.rows, fm.cols))


def _pack(v, name, codes):
    """v.pack, with a gather for 32-bit elements."""
    fm = v.fragment_map(name)
    if fm.bits != 32:
        return v.pack(name, codes)
    flat, _ = _perm(fm)
    c = np.asarray(codes).astype(np.uint32, copy=False)
    lead = c.shape[:-2]
    return np.take(c.reshape(lead + (-1,)), flat, axis=-1).reshape(lead + (fm.threads, fm.regs))


def _accumulator(v) -> str:
    """The operand C is read from: the input fragment of matrix C, else D read and written (wgmma)."""
    for o in v.operands:
        if o.kind == "fragment" and o.io != "out" and o.matrix in ("c", "d"):
            return o.name
    raise OperandError(f"{v.id} has no accumulator operand")


_LAYOUTS: dict = {}


def _layout(v, matrix, major, desc):
    """The operand layout a descriptor selects (memoised per spec, variant and descriptor)."""
    key = (id(v.spec), v.id, matrix, major, desc)
    hit = _LAYOUTS.get(key)
    if hit is None or hit[0] is not v.spec:
        if len(_LAYOUTS) > 4096:
            _LAYOUTS.clear()
        hit = _LAYOUTS[key] = (v.spec, smem_mod.layout_from_descriptor(v, matrix, major, desc))
    return hit[1]


def _read_smem(v, matrix, major, desc, img, origin):
    lay = _layout(v, matrix, major, int(desc))
    lo, hi = lay.span()
    n = img.shape[-1]
    if lo < origin or hi > origin + n:
        raise ValueError(f"{v.id}: {matrix.upper()} spans shared addresses [{lo:#x}, {hi:#x}), outside the "
                         f"image [{origin:#x}, {origin + n:#x})")
    idx = lay.byte - origin
    if lay.bits >= 8:
        out = np.zeros(img.shape[:-1] + lay.shape, dtype=np.uint64)
        for j in range(lay.bits // 8):
            out |= img[..., idx + j].astype(np.uint64) << np.uint64(8 * j)
        return out
    return (img[..., idx].astype(np.uint64) >> lay.bit.astype(np.uint64)) & np.uint64((1 << lay.bits) - 1)


def _per_batch(desc, batch):
    d = np.asarray(desc, dtype=np.uint64).reshape(-1)
    if d.size == 1:
        return None, int(d[0])
    if batch is None or d.size != batch:
        raise ValueError(f"{d.size} descriptors for a batch of {batch}")
    return d, None


def _matrix_from_desc(v, matrix, major, desc, img, origin, batch):
    ds, one = _per_batch(desc, batch)
    if ds is None:
        return _read_smem(v, matrix, major, one, img, origin)
    parts = []
    for i, d in enumerate(ds):
        parts.append(_read_smem(v, matrix, major, int(d), img[i] if img.ndim == 2 else img, origin))
    return np.stack(parts)


def _check_metadata(v, meta, sel):
    """Raise ValueError naming the first thread and nibble whose metadata is undefined."""
    g = sparse_mod.geometry(v)
    valid = np.zeros(1 << g["nibble_bits"], bool)
    valid[list(v.metadata_nibbles)] = True
    contributes, _, _ = sparse_mod.metadata_map(v, sel)
    shifts = np.arange(g["nibbles"], dtype=np.uint64) * np.uint64(g["nibble_bits"])
    nib = ((np.asarray(meta, np.uint64)[..., None] >> shifts) & np.uint64((1 << g["nibble_bits"]) - 1)).astype(np.int64)
    bad = ~valid[nib] & contributes[..., :, None]
    if bad.any():
        where = np.argwhere(bad)[0]
        t, n = int(where[-2]), int(where[-1])
        b = f"batch {int(where[0])}, " if bad.ndim == 3 else ""
        val = int(nib[tuple(where)])
        raise ValueError(f"{v.id}: undefined sparsity metadata: {b}thread {t} field {n} = {val:#x} "
                         f"(valid: {', '.join(hex(x) for x in v.metadata_nibbles)}; selector {sel})")


def _expand(v, packed, meta, sel):
    """(dense A codes (..., M, K), kept mask (..., M, K)) from packed codes (..., M, K/2) and
    metadata (threads,) or (batch, threads)."""
    meta = np.asarray(meta).astype(np.uint32)
    _check_metadata(v, meta, sel)
    g = sparse_mod.geometry(v)
    rows = np.arange(g["rows"])[:, None]
    if meta.ndim == 1:
        cols = sparse_mod.scatter_index(v, sparse_mod.unpack_metadata(v, meta, sel))
        out = np.zeros(packed.shape[:-2] + (g["rows"], g["cols"]), dtype=packed.dtype)
        out[..., rows, cols] = packed
        kept = np.zeros((g["rows"], g["cols"]), bool)
        kept[rows, cols] = True
        return out, np.broadcast_to(kept, out.shape)
    out = np.zeros(packed.shape[:-2] + (g["rows"], g["cols"]), dtype=packed.dtype)
    if packed.ndim == 2:
        packed = np.broadcast_to(packed, (meta.shape[0],) + packed.shape)
        out = np.zeros(packed.shape[:-2] + (g["rows"], g["cols"]), dtype=packed.dtype)
    kept = np.zeros(out.shape, bool)
    for i in range(meta.shape[0]):
        cols = sparse_mod.scatter_index(v, sparse_mod.unpack_metadata(v, meta[i], sel))
        out[i, rows, cols] = packed[i]
        kept[i, rows, cols] = True
    return out, kept


def _elements(v, mat, codes):
    """Element codes of a fragment whose elements sit in wider containers (e2m1 in bits 2-5 of a
    byte under .kind::f8f6f4): the container's padding bits are not part of the element."""
    if mat not in v.fragment_layouts:
        return codes
    t = v.spec.types[getattr(v, f"{mat}type")]
    if v.fragment_layouts[mat][1] <= t.bits:
        return codes
    c = np.asarray(codes)
    return (c >> np.asarray(t.container_shift, c.dtype)) & np.asarray((1 << t.bits) - 1, c.dtype)


def operand_matrices(v, *, smem=None, smem_origin: int = 0, **ops):
    """(A codes (..., M, K) dense, B codes (..., K, N), C codes (..., M, N), immediates) of a call;
    for sparse variants the immediates carry `kept`, the mask of the A elements multiplied."""
    ops = check_operands(v, ops, smem)
    smem_origin = address(f"{v.id}: smem_origin", smem_origin)
    names = by_name(v)
    batch = None
    for n, o in names.items():
        if o.kind == "fragment" and n in ops:
            a = registers(v, n, ops[n])
            if a.ndim == 3:
                if batch not in (None, a.shape[0]):
                    raise ValueError(f"{v.id}: operands disagree on the batch size")
                batch = a.shape[0]
    img = memory_image(smem) if smem is not None else None
    if img is not None and img.ndim == 2:
        if batch not in (None, img.shape[0]):
            raise ValueError(f"{v.id}: smem batch {img.shape[0]} != register batch {batch}")
        batch = img.shape[0]
    imm: dict[str, Any] = {n: int(ops[n]) if n in ops else kind_of(o).executor_default(o)
                           for n, o in names.items() if kind_of(o).scalar}
    acc = _accumulator(v)
    c = _unpack(v, acc, registers(v, acc, ops[acc]))
    if "a" in names:
        a = v.unpack("a", registers(v, "a", ops["a"]))
    else:
        a = _matrix_from_desc(v, "a", "MN" if imm.get("imm_trans_a") else "K", ops["a_desc"], img, smem_origin, batch)
    if "b" in names:
        b = v.unpack("b", registers(v, "b", ops["b"]))
    else:
        b = _matrix_from_desc(v, "b", "MN" if imm.get("imm_trans_b") else "K", ops["b_desc"], img, smem_origin, batch)
    a, b = _elements(v, "a", a), _elements(v, "b", b)
    for o in v.operands:  # block scaling: the scale factors, read through the operand's scale map
        if o.scale_map:
            sel = blockscale.selector_of(v, o.name)
            _one_register(v, o.name, ops[o.name])
            imm[f"scale_{o.matrix}"] = blockscale.scales_from_registers(v, o.name, ops[o.name], ops[sel.name])
    if v.sparse:
        meta_name = next(o.name for o in v.operands if o.kind == "metadata")
        sel_name = next(o.name for o in v.operands if o.kind == "selector")
        meta = _one_register(v, meta_name, ops[meta_name])
        a, imm["kept"] = _expand(v, a, meta, int(ops.get(sel_name, 0)))
    return a, b, c, imm


def _one_register(v, name: str, regs) -> np.ndarray:
    """A one-register operand per thread (metadata, scale factors): shaped (threads,) or (threads, 1),
    with or without a batch of at least one before; returned as (threads,) or (batch, threads)."""
    r = np.asarray(regs)
    core = r.shape[:-1] if r.shape[-1:] == (1,) and r.ndim >= 2 else r.shape
    if core[-1:] != (v.threads,) or len(core) > 2 or (len(core) == 2 and core[0] == 0):
        raise ValueError(f"{v.id}: {name} holds one register per thread: shaped ({v.threads},) or ({v.threads}, 1), "
                         f"or (batch, ...) with a batch of at least one; got {r.shape}")
    return r.reshape(core)


def compute(v, a, b, c, imm: dict, p: nm.NumericsParams | None = None) -> np.ndarray:
    """D codes (..., M, N) from A, B, C codes and the immediates (scale_d, imm_scale_a/b);
    `p` overrides the variant's arithmetic parameters (hypothesis tests)."""
    q = v.batch
    if q > 1 and a.shape[-2] == v.m * q:  # independent products stacked: A and C by rows, B by columns
        M, N = v.m, v.n
        a = a.reshape(a.shape[:-2] + (q, M, a.shape[-1]))
        b = np.moveaxis(b.reshape(b.shape[:-1] + (q, N)), -2, -3)
        c = c.reshape(c.shape[:-2] + (q, M, N))
        d = compute(v, a, b, c, imm, p)
        return d.reshape(d.shape[:-3] + (q * M, N))
    spec = v.spec
    if p is None:
        try:
            p = nm.params(v)
        except KeyError as exc:  # no rule of spec/numerics.yaml covers it
            raise NotImplementedError(exc.args[0]) from None
    if p.model == "none":  # e.g. m8n8k4 .bf16/.tf32: ptxas accepts it and emits no product on any target
        rule = nm.rule_of(v)
        raise NotImplementedError(f"{v.id}: {nm.NO_ARITHMETIC}" + (f" ({' '.join(rule.source.split())})" if rule else ""))
    if p.model in ("fdpa_scaled", "fdpa_groups"):  # the .kind::* forms: ptxspec.blockscale
        return _compute_kind(v, a, b, c, imm, p)
    scale_d = imm.get("scale_d", 1)
    sa, sb = imm.get("imm_scale_a", 1), imm.get("imm_scale_b", 1)
    if p.model in ("integer", "b1"):
        op = v.op if p.model == "b1" else ""  # s4/u4 with .popc: the plain product (numerics._params)
        return exact.integer_mma(spec, a, b, c, v.atype, v.btype, v.ctype, v.satfinite, op, scale_d)
    if p.model == "f64fma":
        mode = v.qualifiers.get("rnd") or "rn"
        return exact.f64_chain(a, b, c, mode)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    c = np.broadcast_to(c, batch + c.shape[-2:])
    M, K = a.shape[-2:]
    N = b.shape[-1]
    flat = int(np.prod(batch)) if batch else 1
    per = max(1, _CHUNK // (M * N * max(1, min(K, p.group or K))))
    a2, b2, c2 = a.reshape(flat, M, K), b.reshape(flat, K, N), c.reshape(flat, M, N)
    kept = imm.get("kept")
    k2 = None if kept is None else np.broadcast_to(kept, batch + (M, K)).reshape(flat, M, K)
    out = np.empty((flat, M, N), np.uint64)
    for i in range(0, flat, per):
        sl = slice(i, i + per)
        ks = None if k2 is None else k2[sl]
        if p.model == "fdpa":
            out[sl] = fdpa.fdpa(spec, a2[sl], b2[sl], c2[sl], v.atype, v.btype, v.ctype, v.dtype, p, sa, sb, scale_d, ks)
        elif p.model == "fmachain":
            out[sl] = fdpa.fma_chain(spec, a2[sl], b2[sl], c2[sl], v.atype, v.btype, v.ctype, v.dtype, p)
        elif p.model == "fp8emu":
            out[sl] = fdpa.fp8_emulated(spec, a2[sl], b2[sl], c2[sl], v.atype, v.btype, v.ctype, v.dtype, p, ks,
                                       p.split)
        else:
            raise ValueError(f"{v.id}: unknown arithmetic model {p.model!r}")
    return out.reshape(batch + (M, N))


def _compute_kind(v, a, b, c, imm: dict, p: nm.NumericsParams) -> np.ndarray:
    """fp8/fp6/fp4 products with and without block scales (ptxspec.blockscale), in chunks."""
    kp = blockscale.from_numerics(p)
    sfa, sfb, kept = imm.get("scale_a"), imm.get("scale_b"), imm.get("kept")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2],
                                *(x.shape[:-2] for x in (sfa, sfb, kept) if x is not None))
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    flat = int(np.prod(batch)) if batch else 1
    def ex(x, shape) -> np.ndarray:
        return np.broadcast_to(x, batch + shape).reshape((flat,) + shape)

    a2, b2, c2 = ex(a, (M, K)), ex(b, (K, N)), ex(c, (M, N))
    sa2 = ex(sfa, sfa.shape[-2:]) if sfa is not None else None
    sb2 = ex(sfb, sfb.shape[-2:]) if sfb is not None else None
    k2 = ex(kept, (M, K)) if kept is not None else None
    per = max(1, _CHUNK // (M * N * K))
    out = np.empty((flat, M, N), np.uint64)
    stype = v.qualifiers.get("stype") or None
    for i in range(0, flat, per):
        sl = slice(i, i + per)
        out[sl] = blockscale.mma_kind(v.spec, a2[sl], b2[sl], c2[sl], v.atype, v.btype, v.ctype, v.dtype, kp,
                                      None if sa2 is None else sa2[sl], None if sb2 is None else sb2[sl], stype,
                                      None if k2 is None else k2[sl])
    return out.reshape(batch + (M, N))


def execute_kind(v, *, a, b, c, scale_a=None, scale_b=None, sel_a=(0, 0), sel_b=(0, 0), e=None, f=0,
                 p: blockscale.KindParams | None = None, target: str | None = None) -> np.ndarray:
    """The D registers of a `.kind::*` mma / mma.sp variant, as `Variant.execute` gives them, with
    the arithmetic's parameters open: `p` (e.g. `blockscale.with_alternative(blockscale.variant_params(v), name)`), or
    `target` where the arithmetic depends on it (the sm_100a family emulates the fp8 forms).
    Scale registers shaped (threads, 1) uint32 (or (batch, threads, 1)), selectors as
    (byte_id, thread_id) (here defaulting to the first legal values)."""
    p = p or blockscale.variant_params(v, target)
    ops = dict(a=a, b=b, c=c)
    if v.qualifiers.get("block_scale"):
        if scale_a is None or scale_b is None:
            raise blockscale.ScaleError(f"{v.id} is block-scaled: pass scale_a= and scale_b=")
        ops.update({"scale_a": scale_a, "scale_b": scale_b, "sel_a": tuple(sel_a), "sel_b": tuple(sel_b)})
    elif scale_a is not None or scale_b is not None:
        raise blockscale.ScaleError(f"{v.id} takes no scale operands")
    if v.sparse:
        if e is None:
            raise ValueError(f"{v.id}: the sparsity metadata e= is missing")
        e = np.asarray(e)
        if e.ndim >= 2 and e.shape[-2:] == (v.threads, 1):  # a register operand: (threads, 1) like the others
            e = e[..., 0]
        ops.update(e=e, f=f)
    for name in ("sel_a", "sel_b"):  # an undefined selector is a ScaleError here (the executor: ValueError)
        if name in ops:
            blockscale.scale_map(v, "scale_a" if name == "sel_a" else "scale_b", *ops[name])
    A, B, C, imm = operand_matrices(v, **ops)
    d = blockscale.mma_kind(v.spec, A, B, C, v.atype, v.btype, v.ctype, v.dtype, p, imm.get("scale_a"), imm.get("scale_b"),
                 v.qualifiers.get("stype") or None, imm.get("kept"))
    return v.pack("d", d)


def execute_mma(v, *, smem=None, smem_origin: int = 0, **ops) -> np.ndarray:
    """The D registers of an mma variant, (threads, regs) or (batch, threads, regs)."""
    if v.m is None:
        raise OperandError(f"{v.id} computes no matrix product: nothing to execute")
    a, b, c, imm = operand_matrices(v, smem=smem, smem_origin=smem_origin, **ops)
    d = compute(v, a, b, c, imm)
    return _pack(v, "d", d)
