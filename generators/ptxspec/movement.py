"""Executors of the matrix movements: rows at per-lane addresses into a register fragment
(load_matrix), the fragment back to rows (store_matrix), and a fragment into the fragment of its
transpose (transpose). Registered with `ptxspec.execute` by semantics.

The fragment's matrix (the family's, rows x cols) is the stack of rows the lanes' addresses name:
row r starts at p[r], the address lane r gives (lanes past the last row name nothing and are not
read); element c of a row lies at the bit its type's memory layout gives (ElementType.memory_bit:
back to back, or packed in units with padding), and lands in its register slot at the type's
container shift. Addresses are byte addresses of the memory image, whose byte 0 lies at `mem_origin`.
"""
from __future__ import annotations

import numpy as np

from .execute import OperandError, _regs, _smem_array


def _rows_and_type(v):
    (mat,) = v.fragment_layouts
    fm = v.fragment_map(mat)
    etype = v.spec.types[getattr(v, f"{mat}type")]
    return mat, fm, etype


def _bit_addresses(v, fm, etype, p, img, origin: int) -> np.ndarray:
    """(batch..., rows, cols) bit offsets into the image of every element of the matrix."""
    p = np.asarray(p, dtype=np.int64)
    if p.shape[-1] != v.threads:
        raise OperandError(f"{v.id}: p holds one address per lane: shape ({v.threads},) or (batch, {v.threads}); "
                           f"got {p.shape}")
    rows = p[..., :fm.rows]  # lane r gives row r
    if ((rows - origin) % 16).any():
        raise ValueError(f"{v.id}: every row address must be 16-byte aligned")
    cols = etype.memory_bit(np.arange(fm.cols, dtype=np.int64))
    bits = (rows[..., :, None] - origin) * 8 + cols
    span = int(etype.memory_bit(fm.cols - 1)) + etype.bits
    if (rows < origin).any() or ((rows - origin) * 8 + span > img.shape[-1] * 8).any():
        raise ValueError(f"{v.id}: a row lies outside the memory [{origin:#x}, {origin + img.shape[-1]:#x})")
    return bits


def _gather(img, bits, width: int) -> np.ndarray:
    """`width`-bit values at bit offsets `bits` of the little-endian image(s)."""
    out = np.zeros(np.broadcast_shapes(img.shape[:-1] + (1,) * bits.ndim, bits.shape) if img.ndim > 1 else bits.shape,
                   np.uint64)
    for b in range(width):
        at = bits + b
        byte = img[..., at // 8] if img.ndim > 1 else img[at // 8]
        out |= ((byte.astype(np.uint64) >> (at % 8).astype(np.uint64)) & np.uint64(1)) << np.uint64(b)
    return out


def load_matrix(v, *, mem=None, smem=None, p=None, mem_origin: int = 0, smem_origin: int | None = None, **_):
    """The fragment registers (threads, regs) (or (batch, threads, regs)) the lanes receive."""
    mem = mem if mem is not None else smem
    if mem is None or p is None:
        raise OperandError(f"{v.id} reads rows of memory: pass mem= (bytes) and p= (one address per lane)")
    origin = smem_origin if smem_origin is not None else mem_origin
    mat, fm, etype = _rows_and_type(v)
    img = _smem_array(mem)
    bits = _bit_addresses(v, fm, etype, p, img, origin)
    codes = _gather(img, bits, etype.bits) << np.uint64(etype.container_shift)
    return v.pack(mat, codes)


def store_matrix(v, *, r=None, mem=None, smem=None, p=None, mem_origin: int = 0, smem_origin: int | None = None, **_):
    """A copy of the memory image with the fragment `r` stored as rows at the lanes' addresses."""
    mem = mem if mem is not None else smem
    if mem is None or p is None or r is None:
        raise OperandError(f"{v.id} writes rows of memory: pass r= (the fragment), mem= (bytes) and p=")
    origin = smem_origin if smem_origin is not None else mem_origin
    mat, fm, etype = _rows_and_type(v)
    img = _smem_array(mem)
    vals = v.unpack(mat, _regs(v, "r", r)).astype(np.uint64) >> np.uint64(etype.container_shift)
    bits = _bit_addresses(v, fm, etype, p, img, origin)
    batch = np.broadcast_shapes(vals.shape[:-2], bits.shape[:-2], img.shape[:-1])
    out = np.array(np.broadcast_to(img, batch + img.shape[-1:]), dtype=np.uint8)
    flat = out.reshape(-1, out.shape[-1])
    vb = np.broadcast_to(vals, batch + vals.shape[-2:]).reshape(flat.shape[0], -1)
    bb = np.broadcast_to(bits, batch + bits.shape[-2:]).reshape(flat.shape[0], -1)
    for i in range(flat.shape[0]):
        bitv = np.unpackbits(flat[i], bitorder="little")
        for b in range(etype.bits):
            bitv[bb[i] + b] = ((vb[i] >> np.uint64(b)) & np.uint64(1)).astype(np.uint8)
        flat[i] = np.packbits(bitv, bitorder="little")
    return out


def transpose(v, *, a=None, **_):
    """The result fragment: the fragment of the transpose of the matrix `a` holds."""
    if a is None:
        raise OperandError(f"{v.id}: pass a= (the source fragment)")
    src = [o.matrix for o in v.operands if o.kind == "fragment" and o.io == "in"][0]
    dst = [o.matrix for o in v.operands if o.kind == "fragment" and o.io == "out"][0]
    m = v.unpack(src, _regs(v, "a", a))
    return v.pack(dst, np.swapaxes(m, -1, -2))
