"""The figures of the docs, as data: what each one draws and stands for, and how it is drawn.

Every figure kind is a dataclass deriving from `Figure`: a `kind` name (its caption template is
`figures/<kind>.txt.j2`), a `key` naming it within its family, `attrs()` (the data attributes the SVG
carries for tests and tools: what the drawing shows, never where it is used), `draw(lines)` (the SVG,
given the caption lines) and, where equal figures recur, `identity()` (equal for figures whose
drawings are equal, so each is drawn once). A figure that maps an operand of a variant derives from
`MapFigure`, which adds the `title`, the `order` among figures of its kind, the `layout_name` its map
comes from and the family `page` that shows it (with an `anchor` where a section there is headed by
the title); a collector records which operand of which variant it draws (`Figures.use`), and every
group's map table lists those uses, whatever the kind.

Collectors (`ptxspec.emit.docs.collect`) turn the model into figures; `FIGURE_KINDS` there lists them.
So a new kind of figure (a scale-factor map, a TMEM layout) is one class here and one collector there,
one caption template, and a section template where pages show it. Drawings are shared: `docs.build` writes each distinct SVG once
under docs/figures/, named by the `key` of the first figure that draws it, and sets `path` on every
figure that draws it.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from ptxspec.core.lazy import np

from ptxspec.emit import svg
from ptxspec.model.descriptors import BitDescriptor, DescriptorLayout
from ptxspec.model.fragments import FragmentLayout, FragmentMap, ScaleMap
from ptxspec.model.smem import SharedMemory, SwizzleMode
from ptxspec.model.sparsity import Sparsity

ROLE_TITLES = {"a": "A", "b": "B", "c": "C", "d": "D", "sparse-a": "packed sparse A"}


def file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name)


class Figure(ABC):
    """What every figure kind has; where its shared drawing is: `path` under docs/, `href` from a
    family's page (set by `docs.draw`)."""
    kind: ClassVar[str]
    key: str
    family: str
    path: str = ""

    @property
    def href(self) -> str:
        return "../" + self.path

    def identity(self) -> tuple | None:
        """Equal for figures whose drawings are equal (given equal captions), which are then drawn
        once; None: draw this one (a kind whose figures do not recur)."""
        return None

    @abstractmethod
    def attrs(self) -> dict:
        """The SVG's data attributes."""

    @abstractmethod
    def draw(self, lines: list[str]) -> str:
        """The SVG, headed by the caption lines."""


class MapFigure(Figure):
    """A figure that maps operands of variants (`Figures.use` records which): the map tables link it."""
    where: set[tuple[str, str]]  # (instruction, group) of the variants it maps

    @property
    @abstractmethod
    def title(self) -> str: ...

    @property
    @abstractmethod
    def page(self) -> str:
        """The family page that shows the figure."""

    @property
    def anchor(self) -> str | None:
        """The heading of its section on `page`, if the page heads one with it."""
        return None

    @property
    @abstractmethod
    def order(self) -> tuple:
        """Its place among the figures of its kind."""

    @property
    @abstractmethod
    def layout_name(self) -> str:
        """The name of the map it draws."""


@dataclass
class FragFigure(MapFigure):
    kind: ClassVar[str] = "fragment"
    key: str  # unique within the family: role, layout, element bits, drawn shape
    family: str
    role: str
    layout: FragmentLayout
    bits: int
    fm: FragmentMap  # the map drawn
    params: dict  # shape parameters of the drawn instance
    covers: list[dict] = field(default_factory=list)  # shape parameters of every instance it stands for
    period: int | None = None  # columns per repeat
    period_elements: int | None = None  # elements per thread per repeat
    period_n: int | None = None  # N per repeat (= period where a column is one N)
    types: set[str] = field(default_factory=set)
    where: set[tuple[str, str]] = field(default_factory=set)  # (instruction, group)
    sparsities: set[Sparsity] = field(default_factory=set)  # of the variants whose packed sparse A it draws

    @property
    def title(self) -> str:
        return f"{ROLE_TITLES.get(self.role, self.role.upper())} - {self.layout.name}, {self.bits}-bit elements"

    @property
    def page(self) -> str:
        """The page that shows the figure (in a section headed by its title)."""
        return "sparsity.md" if self.role == "sparse-a" else "fragments.md"

    @property
    def anchor(self) -> str:
        return self.title

    @property
    def order(self) -> tuple:
        return (self.title,)

    @property
    def layout_name(self) -> str:
        return self.layout.name

    @property
    def period_regs(self) -> int | None:
        return self.period_elements // self.fm.per_reg if self.period and self.period_elements else None

    @property
    def params_text(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self.params.items())

    @property
    def covers_n(self) -> list[int]:
        return [c["N"] for c in self.covers]

    @property
    def chunk(self) -> tuple[int, int] | None:
        """(packed columns per chunk, unpacked columns per chunk) of a packed sparse A, else None."""
        if self.role != "sparse-a":
            return None
        sp = min(self.sparsities, key=lambda s: s.name)
        return sp.kept // sp.element_units, sp.chunk // sp.element_units

    @property
    def copy_regs(self) -> int:
        """Registers per copy of a replicated map."""
        return self.fm.elements // self.fm.replicas // self.fm.per_reg

    def identity(self) -> tuple:
        """Equal for figures whose drawings are equal (given equal captions): drawn only once."""
        fm = self.fm
        return (self.kind, fm.row.tobytes(), fm.col.tobytes(), fm.row.shape, fm.rows, fm.cols, fm.bits,
                fm.replicas, self.period, self.period_elements, self.period_n, self.chunk)

    def attrs(self) -> dict:
        fm = self.fm
        a = {"kind": "fragment", "threads": fm.threads, "rows": fm.rows, "cols": fm.cols, "per-reg": fm.per_reg}
        if self.period:
            a.update({"repeat-cols": self.period, "repeat-regs": self.period_regs})
            if self.period_n and self.period_n != self.period:  # a repeat is not one column per N
                a["repeat-n"] = self.period_n
        if fm.replicas > 1:
            a.update({"replicas": fm.replicas, "replica-regs": self.copy_regs})
        return a

    def draw(self, lines: list[str]) -> str:
        chunk = self.chunk
        return svg.fragment(self.fm, lines=lines, attrs=self.attrs(), period=self.period,
                            chunk_header=chunk[0] if chunk else None)


@dataclass
class ScaleFigure(MapFigure):
    """A block-scale factor map at one selector value: who holds each factor of scale_A / scale_B."""
    kind: ClassVar[str] = "scale"
    key: str
    family: str
    threads: int
    smap: ScaleMap
    vectors: int
    byte_id: int
    thread_id: int
    m: int
    n: int
    k: int
    where: set[tuple[str, str]] = field(default_factory=set)
    operands: set[str] = field(default_factory=set)

    @property
    def page(self) -> str:
        return "scale.md"

    @property
    def title(self) -> str:
        return f"{self.smap.name}, {self.vectors}X, selector {{{self.byte_id}, {self.thread_id}}}"

    @property
    def layout_name(self) -> str:
        return self.smap.name

    @property
    def order(self) -> tuple:
        return self.smap.name, self.vectors, self.byte_id, self.thread_id

    @property
    def extent(self) -> int:
        return self.m if self.smap.matrix == "a" else self.n

    def _map(self) -> np.ndarray:
        return self.smap.evaluate(self.threads, self.vectors, self.byte_id, self.thread_id, self.m, self.n, self.k)

    def identity(self) -> tuple:
        return (self.kind, self._map().tobytes(), self.smap.matrix, self.extent, self.vectors)

    def attrs(self) -> dict:
        return {"kind": "scale", "threads": self.threads, "matrix": self.smap.matrix, "extent": self.extent,
                "vectors": self.vectors, "byte-id": self.byte_id, "thread-id": self.thread_id}

    def draw(self, lines: list[str]) -> str:
        mp = self._map()
        return svg.scale(mp[..., 0], mp[..., 1], matrix=self.smap.matrix, extent=self.extent,
                         vectors=self.vectors, lines=lines, attrs=self.attrs())


@dataclass
class MetaFigure(MapFigure):
    kind: ClassVar[str] = "metadata"
    key: str
    family: str
    threads: int
    sparsity: Sparsity
    m: int
    k: int
    sel: int
    where: set[tuple[str, str]] = field(default_factory=set)

    @property
    def page(self) -> str:
        return "sparsity.md"

    @property
    def title(self) -> str:
        return f"selector {self.sel}, m{self.m} k{self.k}"

    @property
    def layout_name(self) -> str:
        return self.sparsity.name

    @property
    def order(self) -> tuple:
        return self.m, self.k, self.sel

    @property
    def chunk_cols(self) -> int:
        return self.sparsity.chunk // self.sparsity.element_units

    def _map(self):
        return self.sparsity.metadata_map(self.threads, self.m, 0, self.k, self.sel)

    @property
    def idle(self) -> dict:
        """Threads that supply no metadata: {'count': n, 'quads': lanes t%4 when those explain them}."""
        mask = self._map()[0]
        idle = [t for t in range(self.threads) if not mask[t]]
        quads = sorted({t % 4 for t in idle})
        exact = bool(idle) and all((t % 4 in quads) == (not mask[t]) for t in range(len(mask)))
        return {"count": len(idle), "quads": quads if exact else None}

    @property
    def chunks(self) -> int:
        return self.sparsity.chunks_per_row(self.k)

    def attrs(self) -> dict:
        return {"kind": "metadata", "threads": self.threads, "rows": self.m, "chunks": self.chunks,
                "chunk-cols": self.chunk_cols}

    def draw(self, lines: list[str]) -> str:
        mask, row, chunk = self._map()
        return svg.metadata(row, chunk, mask, self.m, self.chunks, lines=lines,
                            attrs=self.attrs(), chunk_cols=self.chunk_cols)


@dataclass
class SwizzleFigure(Figure):
    kind: ClassVar[str] = "swizzle"
    key: str
    family: str
    smem: SharedMemory
    mode: SwizzleMode

    def logical(self) -> list[list[int]]:
        """Per row and physical 16-byte unit, the unit of the unswizzled row stored there."""
        mode, sm = self.mode, self.smem
        rows, units = mode.repeat // mode.width, mode.width // 16
        out = [[0] * units for _ in range(rows)]
        for r in range(rows):
            for u in range(units):
                a = int(sm.swizzle(a=r * mode.width + 16 * u, b=mode.b, o=0, u=mode.unit))  # pattern on its boundary
                out[(a % mode.repeat) // mode.width][(a % mode.width) // 16] = u
        return out

    def attrs(self) -> dict:
        m = self.mode
        return {"kind": "swizzle", "family": self.family, "mode": m.name, "code": m.code, "width": m.width,
                "b": m.b, "repeat": m.repeat}

    def draw(self, lines: list[str]) -> str:
        return svg.swizzle(self.logical(), self.mode.width, lines=lines, attrs=self.attrs())


@dataclass
class DescriptorFigure(Figure):
    kind: ClassVar[str] = "descriptor"
    key: str
    family: str
    smem: SharedMemory
    bits: int = 64

    def attrs(self) -> dict:
        return {"kind": "descriptor", "family": self.family, "bits": self.bits}

    def draw(self, lines: list[str]) -> str:
        return svg.descriptor(self.smem.fields, self.bits, lines=lines, attrs=self.attrs())


@dataclass
class BitDescriptorFigure(Figure):
    """One layout of a run-time descriptor operand (an instruction descriptor per .kind): its bit fields."""
    kind: ClassVar[str] = "bitdescriptor"
    key: str
    family: str
    descriptor: BitDescriptor
    layout: DescriptorLayout

    def attrs(self) -> dict:
        return {"kind": "bitdescriptor", "family": self.family, "descriptor": self.descriptor.name,
                "layout": self.layout.name, "bits": self.descriptor.bits}

    def draw(self, lines: list[str]) -> str:
        fields = [{"name": f.name, "lsb": f.lsb, "width": f.width} for f in self.layout.fields if f.what != "reserved"]
        return svg.descriptor(fields, self.descriptor.bits, lines=lines, attrs=self.attrs())


@dataclass
class TmemFigure(Figure):
    """Where an MMA's D (its data-path layouts) or block-scale factors lie in tensor memory, in
    blocks of 16 lanes; one figure per distinct drawing, naming every layout that draws it."""
    kind: ClassVar[str] = "tmem"
    key: str
    family: str
    what: str  # "d" | "scale"
    names: tuple[str, ...]  # the layout letters (d) or placements with their matrix (scale) it draws
    example: str  # the N or extent it is drawn for, in words
    blocks: dict  # (lane block, column block) -> (label, label, fill)
    col_blocks: int
    col_labels: list[str]

    def attrs(self) -> dict:
        return {"kind": "tmem", "family": self.family, "what": self.what, "layouts": ",".join(self.names)}

    def draw(self, lines: list[str]) -> str:
        return svg.tmem(self.blocks, lane_blocks=8, lane_step=16, col_blocks=self.col_blocks,
                        col_labels=self.col_labels, lines=lines, attrs=self.attrs())
