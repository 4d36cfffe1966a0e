"""Structured sparsity of A: compress a dense A, expand a packed A, and the metadata registers.

Everything comes from the variant's `Sparsity` (spec/layouts/*.yaml `sparsity:`): each row of the
M x K matrix A is cut into chunks of `chunk` index units (`unit_bits` wide; an element spans
`element_units` units, or a unit holds `unit_elements` elements: the pair-wise 4:8 sparsity of
4-bit types); each chunk keeps `kept` units. The metadata register of a thread that
`contributes` for selector `sel` holds eight nibbles; nibble n describes the chunk
(row(t, n), chunk_index(t, n)) as its kept unit indices, the first in the low bits:
(second << 2) | first for 4-unit chunks.

`kept` arrays have shape (M, chunks per row, kept): the kept unit indices of every chunk, in
nibble order (first, second). Packed element j of a chunk is the element of kept unit
j * element_units.

    from ptxspec import sparse
    kept = sparse.random_kept(v, np.random.default_rng(0))
    packed = sparse.compress(v, dense, kept)             # M x K/2
    meta = sparse.pack_metadata(v, kept, sel=0)          # uint32 (threads,)
    sparse.expand(v, packed, meta, sel=0)                # dense M x K, zeros where not kept
"""
from __future__ import annotations

from ptxspec.core.lazy import np

__all__ = ["geometry", "nibble_to_kept", "kept_to_nibble", "random_kept", "compress", "expand", "scatter_index",
           "pack_metadata", "unpack_metadata", "metadata_map"]


def _sparsity(variant):
    sp = variant.sparsity
    if sp is None:
        raise ValueError(f"{variant.id} is not sparse")
    return sp


def geometry(variant) -> dict:
    """Chunk geometry of A: index bits per kept unit, elements per chunk, kept elements per chunk."""
    sp = _sparsity(variant)
    if sp.chunk % sp.element_units or sp.kept % sp.element_units or (sp.element_units > 1 and sp.unit_elements > 1):
        raise ValueError(f"{sp.name}: chunk and kept must be whole elements")
    index_bits = max(1, (sp.chunk - 1).bit_length())
    nibble_bits = index_bits * sp.kept
    if 32 % nibble_bits:
        raise ValueError(f"{sp.name}: {nibble_bits}-bit metadata fields do not tile a 32-bit register")
    cpr = sp.chunks_per_row(variant.k)
    return {"index_bits": index_bits, "nibble_bits": nibble_bits, "nibbles": 32 // nibble_bits,
            "chunk_elements": sp.chunk * sp.unit_elements // sp.element_units,
            "kept_elements": sp.kept * sp.unit_elements // sp.element_units,
            "chunks_per_row": cpr, "rows": variant.m, "cols": variant.k,
            "packed_cols": cpr * (sp.kept * sp.unit_elements // sp.element_units)}


def nibble_to_kept(variant, nibble) -> np.ndarray:
    """Kept unit indices (..., kept) of metadata nibbles (first index in the low bits)."""
    g = geometry(variant)
    nib = np.asarray(nibble, dtype=np.int64)
    mask = (1 << g["index_bits"]) - 1
    return np.stack([(nib >> (g["index_bits"] * j)) & mask for j in range(_sparsity(variant).kept)], axis=-1)


def kept_to_nibble(variant, kept) -> np.ndarray:
    g = geometry(variant)
    kept = np.asarray(kept, dtype=np.int64)
    return np.asarray(sum(kept[..., j] << (g["index_bits"] * j) for j in range(kept.shape[-1])))


def random_kept(variant, rng, nibbles=None) -> np.ndarray:
    """A random valid kept array: each chunk's nibble drawn from `nibbles` (default: the spec's valid ones)."""
    g = geometry(variant)
    choices = np.asarray(nibbles if nibbles is not None else _sparsity(variant).valid_nibbles, dtype=np.int64)
    nib = choices[rng.integers(0, len(choices), size=(g["rows"], g["chunks_per_row"]))]
    return nibble_to_kept(variant, nib)


def _kept_elements(variant, kept) -> np.ndarray:
    """(M, cpr, kept_elements): element index within the chunk of each packed element."""
    sp = _sparsity(variant)
    kept = np.asarray(kept, dtype=np.int64)
    g = geometry(variant)
    if kept.shape != (g["rows"], g["chunks_per_row"], sp.kept):
        raise ValueError(f"kept shape {kept.shape} != {(g['rows'], g['chunks_per_row'], sp.kept)}")
    if ((kept < 0) | (kept >= sp.chunk)).any():
        raise ValueError(f"kept unit index outside 0..{sp.chunk - 1}")
    eu = sp.element_units
    lead = kept[..., 0::eu]
    for j in range(eu):  # every unit of a kept element is kept, in order, from its first unit
        if (kept[..., j::eu] != lead + j).any() or (lead % eu).any():
            raise ValueError(f"kept units do not form whole {eu}-unit elements")
    srt = np.sort(lead, axis=-1)
    if (srt[..., 1:] == srt[..., :-1]).any():
        raise ValueError("a chunk keeps the same element twice")
    ue = sp.unit_elements  # a kept unit of ue elements keeps all of them, in order
    elems = lead // eu if ue == 1 else (lead[..., :, None] * ue + np.arange(ue)).reshape(*lead.shape[:-1], -1)
    return elems


def scatter_index(variant, kept) -> np.ndarray:
    """(M, K/2): the dense column of each packed element."""
    g = geometry(variant)
    elems = _kept_elements(variant, kept)
    base = (np.arange(g["chunks_per_row"]) * g["chunk_elements"])[None, :, None]
    return (base + elems).reshape(g["rows"], g["packed_cols"])


def compress(variant, dense_A, kept) -> np.ndarray:
    """The packed M x K/2 A: the kept elements of each chunk of `dense_A` (M x K), in kept order."""
    g = geometry(variant)
    dense = np.asarray(dense_A)
    if dense.shape[-2:] != (g["rows"], g["cols"]):
        raise ValueError(f"dense A shape {dense.shape} != {(g['rows'], g['cols'])}")
    cols = scatter_index(variant, kept)
    rows = np.arange(g["rows"])[:, None]
    return dense[..., rows, cols]


def metadata_map(variant, sel: int):
    """(contributes (threads,), row (threads, nibbles), chunk (threads, nibbles)) for selector sel."""
    sp = _sparsity(variant)
    if sel not in sp.selectors:
        raise ValueError(f"{variant.id}: selector {sel} not in {sp.selectors}")
    return sp.metadata_map(variant.threads, variant.m, variant.n, variant.k, sel)


def pack_metadata(variant, kept, sel: int, fill: int = 0) -> np.ndarray:
    """uint32 metadata register of every thread; threads that do not contribute get `fill`."""
    g = geometry(variant)
    _kept_elements(variant, kept)
    contributes, row, chunk = metadata_map(variant, sel)
    nib = kept_to_nibble(variant, kept)  # (M, cpr)
    vals = nib[row, chunk]  # (threads, nibbles)
    shifts = np.arange(g["nibbles"], dtype=np.uint64) * np.uint64(g["nibble_bits"])
    regs = (vals.astype(np.uint64) << shifts).sum(axis=-1, dtype=np.uint64)
    regs = np.where(contributes, regs, np.uint64(fill & 0xFFFFFFFF))
    return regs.astype(np.uint32)


def unpack_metadata(variant, regs, sel: int) -> np.ndarray:
    """The kept array (M, cpr, kept) that the metadata registers describe (contributing threads only)."""
    g = geometry(variant)
    regs = np.asarray(regs).astype(np.uint64)
    if regs.shape != (variant.threads,):
        raise ValueError(f"metadata shape {regs.shape} != ({variant.threads},)")
    contributes, row, chunk = metadata_map(variant, sel)
    shifts = np.arange(g["nibbles"], dtype=np.uint64) * np.uint64(g["nibble_bits"])
    nib = ((regs[:, None] >> shifts) & np.uint64((1 << g["nibble_bits"]) - 1)).astype(np.int64)
    out = np.full((g["rows"], g["chunks_per_row"]), -1, dtype=np.int64)
    out[row[contributes], chunk[contributes]] = nib[contributes]
    if (out < 0).any():
        raise ValueError(f"selector {sel}: the contributing threads leave chunks without metadata")
    return nibble_to_kept(variant, out)


def expand(variant, packed_A, metadata_regs, sel: int) -> np.ndarray:
    """Dense M x K A from the packed M x K/2 A and the metadata registers (zeros where not kept)."""
    g = geometry(variant)
    packed = np.asarray(packed_A)
    if packed.shape[-2:] != (g["rows"], g["packed_cols"]):
        raise ValueError(f"packed A shape {packed.shape} != {(g['rows'], g['packed_cols'])}")
    cols = scatter_index(variant, unpack_metadata(variant, metadata_regs, sel))
    out = np.zeros(packed.shape[:-2] + (g["rows"], g["cols"]), dtype=packed.dtype)
    out[..., np.arange(g["rows"])[:, None], cols] = packed
    return out
