"""Structured sparsity of A, one vocabulary for every family (spec/layouts `sparsity:`).

Each row of A is cut into chunks of `chunk` index units; a 4-bit metadata nibble names the
`kept` units of its chunk, the first in the low two bits. A unit is `unit_bits` wide: an element
spans `element_units` units (tf32 in 16-bit units), or a unit holds `unit_elements` elements (the
pair-wise 4:8 sparsity of 4-bit types). `valid_nibbles` are the nibbles the manual calls
meaningful. Where the metadata sits in registers (warp-level mma.sp, wgmma) the sparsity also
maps it: thread t `contributes` for selector `sel`, and its nibble n describes the chunk
(`row`, `chunk_index`). Where it sits in tensor memory (tcgen05), its placement is a layout of
its own (spec/layouts `tmem: metadata`) and the sparsity has no register map.

The same facts in elements, as tcgen05's tables state them: a chunk of `chunk_elements`
elements keeps `kept_subchunks` sub-chunks of `subchunk_elements` elements, and `codes` gives
each valid nibble's kept sub-chunks, first kept element first.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos
from ptxspec.core.expr import Formula, compile_formula

__all__ = ["Sparsity", "META_NAMES", "REGISTER_MAP"]

# Metadata describes A, which does not depend on N: formulas may not use it.
META_NAMES = frozenset({"t", "n", "sel", "M", "K"})
#: the keys of a register map: all or none of them
REGISTER_MAP = ("selectors", "contributes", "row", "chunk_index")


@dataclass(frozen=True)
class Sparsity:
    """Structured sparsity of A and, where the metadata is in registers, their map."""

    name: str
    description: str
    unit_bits: int | None  # None where one sparsity serves elements of several widths (tcgen05)
    element_units: int
    chunk: int
    kept: int
    selectors: tuple[int, ...]  # () without a register map
    contributes: Formula | None
    row: Formula | None
    chunk_index: Formula | None
    valid_nibbles: tuple[int, ...]
    pos: Pos = field(compare=False, default=Pos(""))
    unit_elements: int = 1  # elements per index unit (2 for 4-bit types: pair-wise sparsity)
    manual: str = ""

    @staticmethod
    def build(name: str, data: dict, pos: Pos) -> "Sparsity":
        c = lambda key: compile_formula(str(data[key]), META_NAMES) if key in data else None
        return Sparsity(name, data.get("description", ""), data.get("unit_bits"), data.get("element_units", 1),
                        data["chunk"], data["kept"], tuple(data.get("selectors", ())), c("contributes"), c("row"),
                        c("chunk_index"), tuple(data["valid_nibbles"]), pos, data.get("unit_elements", 1),
                        data.get("manual", ""))

    @property
    def in_registers(self) -> bool:
        """Whether the sparsity maps its metadata to registers (else it lies in tensor memory)."""
        return self.contributes is not None

    # -- the chunk in elements ------------------------------------------------------------------

    @property
    def chunk_elements(self) -> int:
        return self.chunk * self.unit_elements // self.element_units

    @property
    def subchunk_elements(self) -> int:
        """Elements kept or dropped together: an element, or a unit of `unit_elements`."""
        return self.unit_elements

    @property
    def kept_subchunks(self) -> int:
        return self.kept // self.element_units

    @property
    def codes(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(nibble, kept sub-chunks, first kept element first) of every valid nibble."""
        out = []
        for x in self.valid_nibbles:
            units = [(x >> (2 * j)) & 3 for j in range(self.kept)]
            out.append((x, tuple(u // self.element_units for u in units[::self.element_units])))
        return tuple(out)

    # -- the register map -----------------------------------------------------------------------

    @property
    def register_map(self) -> tuple[Formula, Formula, Formula]:
        """(contributes, row, chunk_index); ValueError where the metadata lies in tensor memory."""
        if self.contributes is None or self.row is None or self.chunk_index is None:
            raise ValueError(f"sparsity {self.name}: its metadata lies in tensor memory, not in registers")
        return self.contributes, self.row, self.chunk_index

    def metadata_map(self, threads: int, m: int, n: int, k: int, sel: int):
        """(contributing mask (threads,), row (threads, 8), chunk (threads, 8)) for selector sel."""
        contributes_f, row_f, chunk_f = self.register_map
        shape = dict(M=m, K=k, sel=sel)
        t = np.arange(threads, dtype=np.int64)[:, None]
        nib = np.arange(8, dtype=np.int64)[None, :]
        contributes = np.broadcast_to(contributes_f(t=t[:, 0], n=0, **shape), (threads,)).astype(bool)
        row = np.broadcast_to(row_f(t=t, n=nib, **shape), (threads, 8)).astype(np.int64)
        chunk = np.broadcast_to(chunk_f(t=t, n=nib, **shape), (threads, 8)).astype(np.int64)
        return contributes, row, chunk

    def chunks_per_row(self, k: int) -> int:
        return k * self.element_units // (self.chunk * self.unit_elements)

    def bijection_problem(self, threads: int, m: int, n: int, k: int) -> str | None:
        cpr = self.chunks_per_row(k)
        for sel in self.selectors:
            mask, row, chunk = self.metadata_map(threads, m, n, k, sel)
            r, c = row[mask].ravel(), chunk[mask].ravel()
            if r.size != m * cpr:
                return (f"selector {sel}: {int(mask.sum())} threads x 8 nibbles describe {r.size} chunks, "
                        f"but A has {m} rows x {cpr} chunks")
            if ((r < 0) | (r >= m) | (c < 0) | (c >= cpr)).any():
                return f"selector {sel}: a nibble maps outside the {m}x{cpr} chunk grid"
            counts = np.bincount(r * cpr + c, minlength=m * cpr)
            if (counts != 1).any():
                cell = int(np.argmax(counts != 1))
                return f"selector {sel}: chunk ({cell // cpr}, {cell % cpr}) is described {counts[cell]} times"
        return None
