"""Register fragments and block-scale factor maps, evaluated from their spec formulas.

A `FragmentLayout` is a thread-value map: (thread t, element i) -> (row, col). Evaluated for
one shape it becomes a `FragmentMap` with index arrays, which packs a matrix into registers and
unpacks registers into a matrix. Element i of a thread sits in register i // (32 / bits) at
slot i % (32 / bits), low bits first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos
from ptxspec.core.expr import ExprError, Formula, compile_formula

LAYOUT_NAMES = frozenset({"t", "i", "M", "N", "K"})
SHAPE_NAMES = frozenset({"M", "N", "K"})
MAX_ELEMENTS = 1024  # per thread; the largest fragment today has 128
MAX_DIM = 4096


@dataclass(frozen=True)
class FragmentLayout:
    name: str
    description: str
    rows: Formula
    cols: Formula
    elements: Formula
    row: Formula
    col: Formula
    pos: Pos = field(compare=False, default=Pos(""))
    # Each element is held this many times; copy j is elements j*E/replicas .. (j+1)*E/replicas - 1
    # of every thread (wmma .f16 A and B), and an instruction reads the first copy.
    replicas: int = 1
    # "" for a normative map (the manual states it); else the target it was measured on, where the
    # manual leaves the distribution unspecified (wmma)
    observed_on: str = ""

    @staticmethod
    def build(name: str, data: dict, pos: Pos) -> "FragmentLayout":
        c = lambda key, names: compile_formula(str(data[key]), names)
        return FragmentLayout(name, data["description"], c("rows", SHAPE_NAMES), c("cols", SHAPE_NAMES),
                              c("elements", SHAPE_NAMES), c("row", LAYOUT_NAMES), c("col", LAYOUT_NAMES), pos,
                              int(data.get("replicas", 1)), str(data.get("observed_on", "")))

    @property
    def normative(self) -> bool:
        return not self.observed_on

    @cached_property
    def shape_names(self) -> tuple[str, ...]:
        """The shape parameters (M, N, K) the map depends on: variants that agree on them share it."""
        used = set().union(*(f.names for f in (self.rows, self.cols, self.elements, self.row, self.col)))
        return tuple(n for n in ("M", "N", "K") if n in used)

    def shape_key(self, m: int, n: int, k: int) -> tuple:
        env = dict(M=m, N=n, K=k)
        return tuple((name, env[name]) for name in self.shape_names)

    def evaluate(self, threads: int, bits: int, m: int, n: int, k: int) -> "FragmentMap":
        shape = dict(M=m, N=n, K=k)
        elements = int(self.elements(**shape))
        rows, cols = int(self.rows(**shape)), int(self.cols(**shape))
        if not 1 <= elements <= MAX_ELEMENTS:
            raise ExprError(f"elements = {elements}: a thread holds 1 to {MAX_ELEMENTS} elements")
        if not (1 <= rows <= MAX_DIM and 1 <= cols <= MAX_DIM):
            raise ExprError(f"a {rows}x{cols} matrix: rows and cols must be 1 to {MAX_DIM}")
        t = np.arange(threads, dtype=np.int64)[:, None]
        i = np.arange(elements, dtype=np.int64)[None, :]
        row_idx = np.broadcast_to(self.row(t=t, i=i, **shape), (threads, elements)).astype(np.int64)
        col_idx = np.broadcast_to(self.col(t=t, i=i, **shape), (threads, elements)).astype(np.int64)
        row_idx.setflags(write=False)  # maps are cached and shared by every variant using them
        col_idx.setflags(write=False)
        return FragmentMap(self.name, rows, cols, bits, row_idx, col_idx, self.replicas)


@dataclass(frozen=True, eq=False)
class FragmentMap:
    """One layout evaluated for a shape and element width."""

    layout: str
    rows: int
    cols: int
    bits: int
    row: np.ndarray  # (threads, elements)
    col: np.ndarray
    replicas: int = 1  # copies of each element (see FragmentLayout)

    @property
    def threads(self) -> int:
        return self.row.shape[0]

    @property
    def elements(self) -> int:
        return self.row.shape[1]

    @property
    def per_reg(self) -> int:
        return max(1, 32 // self.bits)

    @property
    def regs(self) -> int:
        """Registers per thread: 32-bit ones, or one 64-bit register per 64-bit element."""
        return self.elements if self.bits == 64 else -(-self.elements * self.bits // 32)

    def bijection_problem(self) -> str | None:
        """None when the map hits every cell of the rows x cols matrix exactly once (with replicas:
        when each copy of the elements does)."""
        if self.replicas > 1:
            if self.elements % self.replicas:
                return f"{self.elements} elements per thread do not split into {self.replicas} copies"
            per = self.elements // self.replicas
            for j in range(self.replicas):
                copy = FragmentMap(self.layout, self.rows, self.cols, self.bits, self.row[:, j * per:(j + 1) * per],
                                   self.col[:, j * per:(j + 1) * per])
                problem = copy.bijection_problem()
                if problem:
                    return f"copy {j} (elements {j * per}..{(j + 1) * per - 1}): {problem}"
            return None
        r, c = self.row.ravel(), self.col.ravel()
        if r.size != self.rows * self.cols:
            return (f"maps {r.size} elements onto a {self.rows}x{self.cols} matrix "
                    f"({self.rows * self.cols} cells)")
        bad = (r < 0) | (r >= self.rows) | (c < 0) | (c >= self.cols)
        if bad.any():
            j = int(np.argmax(bad))
            t, i = divmod(j, self.elements)
            return f"thread {t} element {i} maps to ({r[j]}, {c[j]}), outside the {self.rows}x{self.cols} matrix"
        flat = r * self.cols + c
        counts = np.bincount(flat, minlength=self.rows * self.cols)
        if (counts != 1).any():
            cell = int(np.argmax(counts != 1))
            hits = np.nonzero(flat == cell)[0][:2]
            who = ", ".join(f"thread {h // self.elements} element {h % self.elements}" for h in hits)
            return f"cell ({cell // self.cols}, {cell % self.cols}) is covered {counts[cell]} times ({who or 'never'})"
        return None

    @cached_property
    def elements_table(self) -> np.ndarray:
        """(thread, reg, slot, row, col) for every element, in thread then element order."""
        t = np.repeat(np.arange(self.threads), self.elements)
        i = np.tile(np.arange(self.elements), self.threads)
        return np.stack([t, i // self.per_reg, i % self.per_reg, self.row.ravel(), self.col.ravel()], axis=1)

    def _shifts(self) -> np.ndarray:
        return (np.arange(self.per_reg, dtype=np.uint64) * np.uint64(self.bits))

    def pack(self, matrix) -> np.ndarray:
        """matrix: raw element bits, shape (..., rows, cols) -> uint32 registers (..., threads, regs)."""
        mat = _as_bits(matrix, self.bits)
        if mat.shape[-2:] != (self.rows, self.cols):
            raise ValueError(f"matrix shape {mat.shape[-2:]} != ({self.rows}, {self.cols})")
        vals = mat[..., self.row, self.col].astype(np.uint64)  # (..., T, E)
        pad = self.regs * self.per_reg - self.elements
        if pad:
            vals = np.concatenate([vals, np.zeros(vals.shape[:-1] + (pad,), np.uint64)], axis=-1)
        vals = vals.reshape(vals.shape[:-1] + (self.regs, self.per_reg))
        if self.bits >= 32:
            return vals[..., 0].astype(np.uint64 if self.bits == 64 else np.uint32)
        return (vals << self._shifts()).sum(axis=-1, dtype=np.uint64).astype(np.uint32)

    def unpack(self, regs) -> np.ndarray:
        """uint32 registers (..., threads, regs) -> raw element bits (..., rows, cols)."""
        regs = np.asarray(regs)
        if regs.shape[-2:] != (self.threads, self.regs):
            raise ValueError(f"register array shape {regs.shape[-2:]} != ({self.threads}, {self.regs})")
        r = regs.astype(np.uint64)
        if self.bits >= 32:
            vals = r
        else:
            mask = np.uint64((1 << self.bits) - 1)
            vals = ((r[..., None] >> self._shifts()) & mask).reshape(r.shape[:-1] + (-1,))[..., :self.elements]
        out = np.zeros(regs.shape[:-2] + (self.rows, self.cols), dtype=_bits_dtype(self.bits))
        per = self.elements // self.replicas  # replicated: the first copy is what an instruction reads
        out[..., self.row[:, :per], self.col[:, :per]] = vals[..., :per]
        return out


def _bits_dtype(bits: int):
    return np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32 if bits <= 32 else np.uint64


def _as_bits(matrix, bits: int) -> np.ndarray:
    a = np.asarray(matrix)
    if a.dtype == np.float16 and bits == 16 or a.dtype == np.float32 and bits == 32 \
            or a.dtype == np.float64 and bits == 64:
        a = a.view(_bits_dtype(bits))
    elif a.dtype.kind == "f":
        raise TypeError(f"give {bits}-bit elements as raw bit patterns (unsigned integers), not {a.dtype}")
    a = a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.uint64)
    if bits < 64:
        a = a & ((1 << bits) - 1)
    return a.astype(np.uint64)


# Scale-factor maps: names their formulas may use
SCALE_NAMES = frozenset({"t", "tid", "M", "N", "K"})
SCALE_BYTE_NAMES = frozenset({"bid", "j"})


@dataclass(frozen=True)
class ScaleMap:
    """Which lane's scale register, and which byte of it, holds which block-scale factor: with
    the selector {byte-id bid, thread-id tid}, lane t supplies scales where `supplies` is nonzero;
    they are those of row `index` of A (matrix a) or column `index` of B (matrix b); scale column
    j (K-block j, of `vectors` per row or column) sits in byte `byte`. Bytes no lane supplies are
    not read."""

    name: str
    description: str
    matrix: str  # a | b
    supplies: Formula
    index: Formula
    byte: Formula
    pos: Pos = field(compare=False, default=Pos(""))

    @staticmethod
    def build(name: str, data: dict, pos: Pos) -> "ScaleMap":
        c = lambda key, names: compile_formula(str(data[key]), names)
        return ScaleMap(name, data["description"], data["matrix"], c("supplies", SCALE_NAMES),
                        c("index", SCALE_NAMES), c("byte", SCALE_BYTE_NAMES), pos)

    def evaluate(self, threads: int, vectors: int, byte_id: int, thread_id: int, m: int, n: int, k: int) -> np.ndarray:
        """(threads, 4, 2) int64: (row or column, K-block) each byte of each lane's register scales;
        (-1, -1) where the byte is not read."""
        shape = dict(M=m, N=n, K=k)
        t = np.arange(threads, dtype=np.int64)
        sup = np.broadcast_to(self.supplies(t=t, tid=thread_id, **shape), (threads,)).astype(bool)
        idx = np.broadcast_to(self.index(t=t, tid=thread_id, **shape), (threads,)).astype(np.int64)
        out = np.full((threads, 4, 2), -1, np.int64)
        for j in range(vectors):
            byte = int(self.byte(bid=byte_id, j=j))
            if not 0 <= byte < 4:
                raise ExprError(f"byte-id {byte_id}: scale column {j} falls in byte {byte}, outside the register")
            out[sup, byte, 0] = idx[sup]
            out[sup, byte, 1] = j
        return out

    def bijection_problem(self, threads: int, vectors: int, selector: dict[str, tuple[int, ...]],
                          m: int, n: int, k: int) -> str | None:
        """None when, for every legal selector, each (row or column, K-block) has exactly one byte."""
        extent = m if self.matrix == "a" else n
        for bid in selector.get("byte_id", ()):
            for tid in selector.get("thread_id", ()):
                try:
                    mp = self.evaluate(threads, vectors, bid, tid, m, n, k)
                except ExprError as exc:
                    return str(exc)
                idx, blk = mp[..., 0], mp[..., 1]
                used = idx >= 0
                if ((idx[used] >= extent) | (blk[used] >= vectors)).any():
                    return f"selector {{{bid}, {tid}}}: a byte scales outside the {extent} x {vectors} scale matrix"
                counts = np.bincount(idx[used] * vectors + blk[used], minlength=extent * vectors)
                if (counts != 1).any():
                    cell = int(np.argmax(counts != 1))
                    return (f"selector {{{bid}, {tid}}}: scale ({cell // vectors}, {cell % vectors}) is held "
                            f"{counts[cell]} times")
        return None
