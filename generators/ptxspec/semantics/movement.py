"""Executors of the data movements: rows at per-lane addresses into a register fragment
(load_matrix: ldmatrix), the fragment back to rows (store_matrix: stmatrix), a fragment into the
fragment of its transpose (transpose: movmatrix), and wmma's fragment loads and stores at a
strided address (fragment_load, fragment_store); `ptxspec.semantics.meanings` names each.

The fragment's matrix (the family's, rows x cols) is the stack of rows the lanes' addresses name:
row r starts at p[r], the address lane r gives (lanes past the last row name nothing and are not
read); element c of a row lies at the bit its type's memory layout gives (ElementType.memory_bit:
back to back, or packed in units with padding), and lands in its register slot at the type's
container shift. Addresses are byte addresses of the memory image, whose byte 0 lies at `mem_origin`.
"""
from __future__ import annotations

from ptxspec.core.lazy import np

from ptxspec.semantics.operands import OperandError, address, addresses, integer, memory_image, registers


def _rows_and_type(v):
    (mat,) = v.fragment_layouts
    fm = v.fragment_map(mat)
    etype = v.spec.types[getattr(v, f"{mat}type")]
    return mat, fm, etype


def _bit_addresses(v, fm, etype, p, img, origin: int) -> np.ndarray:
    """(batch..., rows, cols) bit offsets into the image of every element of the matrix. Every
    address is checked as a 64-bit register's integer and against the image before any arithmetic
    (an address far past the image used to wrap around into it)."""
    p = addresses(f"{v.id}: operand 'p' (one address per lane)", p)
    if p.ndim not in (1, 2) or p.shape[-1] != v.threads or p.size == 0:
        raise OperandError(f"{v.id}: p holds one address per lane: shape ({v.threads},) or (batch, {v.threads}) "
                           f"with a batch of at least one; got {p.shape}")
    rows = p[..., :fm.rows]  # lane r gives row r
    span = int(etype.memory_bit(fm.cols - 1)) + etype.bits
    nbytes = img.shape[-1]
    low = rows < np.uint64(origin)
    offset = np.where(low, np.uint64(0), rows - np.uint64(origin))  # no wrap: below the origin is refused
    far = offset > np.uint64(nbytes)
    if low.any() or far.any() or ((np.where(far, 0, offset).astype(np.int64) * 8 + span) > nbytes * 8).any():
        raise ValueError(f"{v.id}: operand 'p': a row lies outside the memory [{origin:#x}, {origin + nbytes:#x}): "
                         f"lane addresses {int(rows.min()):#x} to {int(rows.max()):#x}")
    offset = offset.astype(np.int64)
    if (offset % 16).any():
        raise ValueError(f"{v.id}: every row address must be 16-byte aligned")
    cols = etype.memory_bit(np.arange(fm.cols, dtype=np.int64))
    return offset[..., :, None] * 8 + cols


def _gather(img, bits, width: int) -> np.ndarray:
    """`width`-bit values at bit offsets `bits` of the little-endian image(s)."""
    out = np.zeros(np.broadcast_shapes(img.shape[:-1] + (1,) * bits.ndim, bits.shape) if img.ndim > 1 else bits.shape,
                   np.uint64)
    for b in range(width):
        at = bits + b
        byte = img[..., at // 8] if img.ndim > 1 else img[at // 8]
        out |= ((byte.astype(np.uint64) >> (at % 8).astype(np.uint64)) & np.uint64(1)) << np.uint64(b)
    return out


def _no_others(v, rest: dict, names: str) -> None:
    if rest:
        raise OperandError(f"{v.id} has no operand {', '.join(map(repr, sorted(rest)))}; it takes {names}")


def _origin(v, mem_origin, smem_origin) -> int:
    """Where byte 0 of the memory image lies (smem_origin is the older name of mem_origin)."""
    name, value = ("smem_origin", smem_origin) if smem_origin is not None else ("mem_origin", mem_origin)
    return address(f"{v.id}: {name}", value)


def load_matrix(v, *, mem=None, smem=None, p=None, mem_origin: int = 0, smem_origin: int | None = None, **rest):
    """The fragment registers (threads, regs) (or (batch, threads, regs)) the lanes receive."""
    mem = mem if mem is not None else smem
    if mem is None or p is None:
        raise OperandError(f"{v.id} reads rows of memory: pass mem= (bytes) and p= (one address per lane)")
    _no_others(v, rest, "mem, p, mem_origin")
    origin = _origin(v, mem_origin, smem_origin)
    mat, fm, etype = _rows_and_type(v)
    img = memory_image(mem, "mem")
    bits = _bit_addresses(v, fm, etype, p, img, origin)
    codes = _gather(img, bits, etype.bits) << np.uint64(etype.container_shift)
    return v.pack(mat, codes)


def store_matrix(v, *, r=None, mem=None, smem=None, p=None, mem_origin: int = 0, smem_origin: int | None = None,
                 **rest):
    """A copy of the memory image with the fragment `r` stored as rows at the lanes' addresses."""
    mem = mem if mem is not None else smem
    if mem is None or p is None or r is None:
        raise OperandError(f"{v.id} writes rows of memory: pass r= (the fragment), mem= (bytes) and p=")
    _no_others(v, rest, "r, mem, p, mem_origin")
    origin = _origin(v, mem_origin, smem_origin)
    mat, fm, etype = _rows_and_type(v)
    img = memory_image(mem, "mem")
    vals = v.unpack(mat, registers(v, "r", r)).astype(np.uint64) >> np.uint64(etype.container_shift)
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


def transpose(v, *, a=None, **rest):
    """The result fragment: the fragment of the transpose of the matrix `a` holds."""
    if a is None:
        raise OperandError(f"{v.id}: pass a= (the source fragment)")
    _no_others(v, {k: x for k, x in rest.items() if k != "d"}, "a")
    src = [o.matrix for o in v.operands if o.kind == "fragment" and o.io == "in"][0]
    dst = [o.matrix for o in v.operands if o.kind == "fragment" and o.io == "out"][0]
    m = v.unpack(src, registers(v, "a", a))
    return v.pack(dst, np.swapaxes(m, -1, -2))


# ---------------------------------------------------------------------------------------------
# wmma at the memory level: wmma.load (memory -> fragment), wmma.store (fragment -> memory)


def _wmma_matrix(v):
    """(matrix letter, fragment map) of a wmma.load / wmma.store variant."""
    (mat,) = v.fragment_layouts
    return mat, v.fragment_map(mat)


def _offsets(v, fm, stride: int) -> np.ndarray:
    """Bit offset in memory of each matrix element, relative to the address p: `layout` decides
    whether rows (row) or columns (col) lie `stride` elements apart."""
    layout = v.qualifiers.get("layout")
    r = np.arange(fm.rows, dtype=np.int64)[:, None]
    c = np.arange(fm.cols, dtype=np.int64)[None, :]
    if layout == "row":
        if stride < fm.cols:
            raise ValueError(f"{v.id}: stride {stride} is less than the {fm.cols} elements of a row")
        idx = r * stride + c
    elif layout == "col":
        if stride < fm.rows:
            raise ValueError(f"{v.id}: stride {stride} is less than the {fm.rows} elements of a column")
        idx = c * stride + r
    else:
        raise ValueError(f"{v.id}: no row/col layout")
    return idx * fm.bits  # bit offsets


def wmma_memory(v, *, mem, p: int, stride: int, mem_origin: int = 0, r=None):
    """wmma.load: the fragment registers read from `mem` (bytes or uint8 (nbytes,) / (batch, nbytes)
    whose byte 0 is at address `mem_origin`) at address p with the variant's layout and `stride`
    (elements). wmma.store: a copy of `mem` with the fragment `r` written there."""
    mat, fm = _wmma_matrix(v)
    img = memory_image(mem, "mem")
    p, mem_origin = address(f"{v.id}: operand 'p'", p), address(f"{v.id}: mem_origin", mem_origin)
    stride = integer(f"{v.id}: operand 'stride' (elements)", stride, 0, (1 << 32) - 1)
    outside = ValueError(f"{v.id}: the matrix at {p:#x} (stride {stride}) lies outside the memory "
                         f"[{mem_origin:#x}, {mem_origin + img.shape[-1]:#x})")
    if not mem_origin <= p <= mem_origin + img.shape[-1]:  # before any arithmetic that could wrap
        raise outside
    bits = _offsets(v, fm, stride) + (p - mem_origin) * 8
    if bits.min() < 0 or (bits.max() + fm.bits) > img.shape[-1] * 8:
        raise outside
    if fm.bits >= 8 and (bits % fm.bits).any():
        raise ValueError(f"{v.id}: address {p:#x} is not aligned to the {fm.bits // 8}-byte elements")
    byte = bits // 8
    if v.semantics == "fragment_load":
        if fm.bits >= 8:
            out = np.zeros(img.shape[:-1] + byte.shape, np.uint64)
            for j in range(fm.bits // 8):
                out |= img[..., byte + j].astype(np.uint64) << np.uint64(8 * j)
        else:
            out = (img[..., byte].astype(np.uint64) >> (bits % 8).astype(np.uint64)) & np.uint64((1 << fm.bits) - 1)
        return v.pack(mat, out)
    if r is None:
        raise OperandError(f"{v.id}: operand 'r' (the fragment to store) is missing")
    vals = v.unpack(mat, registers(v, "r", r)).astype(np.uint64)
    out = np.array(np.broadcast_to(img, vals.shape[:-2] + img.shape[-1:]), dtype=np.uint8)
    if fm.bits >= 8:
        for j in range(fm.bits // 8):
            out[..., byte + j] = ((vals >> np.uint64(8 * j)) & np.uint64(0xFF)).astype(np.uint8)
    else:
        sh = (bits % 8).astype(np.uint64)
        mask = (np.uint64((1 << fm.bits) - 1) << sh).astype(np.uint8)
        flat = out.reshape(-1, out.shape[-1])
        v2 = ((vals & np.uint64((1 << fm.bits) - 1)) << sh).astype(np.uint8).reshape(flat.shape[0], -1)
        bf, mf = byte.ravel(), mask.ravel()
        for i in range(flat.shape[0]):  # elements share bytes: clear and set element by element
            row = flat[i].astype(np.int64)
            np.bitwise_and.at(row, bf, ~mf.astype(np.int64))
            np.bitwise_or.at(row, bf, v2[i].astype(np.int64))
            flat[i] = row.astype(np.uint8)
    return out


def execute_memory(v, **ops) -> np.ndarray:
    """A fragment load (the loaded registers) or store (the memory image with the fragment stored)."""
    if "mem" not in ops:
        raise OperandError(f"{v.id} reads or writes memory: pass mem= (bytes), p= and stride=")
    return wmma_memory(v, **ops)
