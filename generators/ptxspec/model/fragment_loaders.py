"""Fragment loaders: which ldmatrix (stmatrix) form, at which row address per lane, moves exactly
one register fragment of an mma between registers and a tile in shared memory.

Derived, never written down: a *movement map* says, for every bit of every register of every
lane, which lane's row address it comes from (goes to) and which bit of that 16-byte row it is; a
*fragment map* says which element (row, column) and which bit of it the same register bit must
hold; a *storage* says where each element's bits lie in memory, for any leading dimension. A form
loads the fragment iff every lane's row can be placed: all the bits that come from one address
lane must come from a single stored row, at one common offset from where they lie in it, and that
offset is a whole, 16-byte aligned row start. The composition finds those row starts, lane by lane,
or the first reason there are none. Nothing here knows any instruction or variant by name.

Conventions: threads t of the fragment (32 per warp; wgmma's 128 threads load warp by warp);
register bits low to high; the stored matrix is the operand's matrix itself (`row`) or its
transpose (`col`), rows `ld` elements apart (any `ld` whose rows are 16-byte aligned); row and
column of a lane's address are in elements of the stored matrix; lanes beyond the form's
matrices name no row (on sm_90a they are ignored; the manual asks sm_75 code to repeat the lower
lanes' addresses).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ptxspec.core.lazy import np
from ptxspec.model.lane_formulas import LANES, bit_formula

ROW_BITS = 128  # one ldmatrix row: 16 bytes


@dataclass(frozen=True, eq=False)
class MovementMap:
    """One instruction form, evaluated: arrays (32 lanes, regs, 32 bits)."""
    opcode: str
    regs: int
    lane: np.ndarray     # address lane of each register bit; -1: no memory bit (container padding)
    rowbit: np.ndarray   # bit of that lane's 16-byte row
    packed: int = 0      # >0: the rows hold 16 elements of this many bits, packed (decompression)

    @property
    def address_lanes(self) -> int:
        return int(self.lane.max()) + 1


def movement_map(opcode: str, row: np.ndarray, col: np.ndarray, bits: int, packed: int = 0,
                 shift: int = 0) -> MovementMap:
    """A form's map from its fragment layout: element i of lane t (row[t, i], col[t, i]) is element
    col of the row whose address lane row gives; `bits` per register slot. With `packed`, the rows
    hold 16 elements of `packed` bits each (then padding) and each lands in its `bits`-bit slot at
    bit `shift`, the slot's other bits padding."""
    lanes, elements = row.shape
    per = 32 // bits
    regs = -(-elements // per)
    lane = np.full((lanes, regs, 32), -1, np.int64)
    rowbit = np.full((lanes, regs, 32), -1, np.int64)
    i = np.arange(elements)
    r, s = i // per, i % per
    for b in range(bits):
        if packed and not shift <= b < shift + packed:
            continue
        lane[:, r, s * bits + b] = row
        rowbit[:, r, s * bits + b] = col * packed + (b - shift) if packed else col * bits + b
    return MovementMap(opcode, regs, lane, rowbit, packed)


@dataclass(frozen=True)
class Storage:
    name: str            # "row" | "col"
    transposed: bool


ROW, COL = Storage("row", False), Storage("col", True)


@dataclass(frozen=True, eq=False)
class FragmentBits:
    """Every register bit of a fragment: the element it belongs to and which bit of it (-1 for a
    container's padding bit, which no load needs to fill)."""
    threads: int
    regs: int
    row: np.ndarray      # (threads, regs, 32)
    col: np.ndarray
    ebit: np.ndarray
    width: int           # bits per register slot (the element or its container)
    data_bits: int       # bits of the element proper
    shift: int           # lowest element bit inside its container
    bits: np.ndarray | None = None  # the register bits the last axis holds (None: all 32, in order)

    def identity(self) -> tuple:
        """What every composition of the fragment depends on: two fragments of one identity (f16 and
        bf16 elements of one layout, one map written for several shapes) compose alike."""
        return (self.threads, self.regs, self.width, self.data_bits, self.shift,
                None if self.bits is None else self.bits.tobytes(), self.row.tobytes(), self.col.tobytes(),
                self.ebit.tobytes())

    def part(self, threads: slice, regs: slice) -> "FragmentBits":
        r, c, e = self.row[threads, regs], self.col[threads, regs], self.ebit[threads, regs]
        return FragmentBits(r.shape[0], r.shape[1], r, c, e, self.width, self.data_bits, self.shift, self.bits)

    def starts(self) -> np.ndarray:
        return slot_starts(self.width, self.shift, self.data_bits)


def slot_starts(width: int, shift: int, data: int) -> np.ndarray:
    """Where a run of a fragment's register bits begins (see _run_starts), as a mask of the 32: each
    slot's first bit, its element's first bit and the bit after the element."""
    out = np.zeros(33, bool)
    for s in range(0, 32, width):
        out[[s, s + shift, s + shift + data]] = True
    return out[:32]


def fragment_bits(v, operand: str, only: np.ndarray | None = None) -> FragmentBits | None:
    """The bit map of one register fragment (a matrix name or a fragment operand's name); None for
    64-bit elements, which live in 64-bit registers no matrix load writes. `only` (a mask of the 32
    register bits): the bits to hold besides where the fragment's own runs begin; the others are
    left out (compose needs no more than the run starts of the fragment and of the form)."""
    fm = v.fragment_map(operand)
    width = fm.bits
    if width > 32:
        return None
    etype = v.spec.types[v.element_type(operand)]
    boxed = etype.bits < width  # the element sits in a container
    data = etype.bits if boxed else width
    shift = etype.container_shift if boxed else 0
    per = 32 // width
    regs = fm.regs
    threads, elements = fm.row.shape
    held = None
    if only is not None:
        held = np.flatnonzero(only | slot_starts(width, shift, data))
    index = np.arange(32) if held is None else np.full(32, -1)  # register bit -> position on the last axis
    if held is not None:
        index[held] = np.arange(len(held))
    size = 32 if held is None else len(held)
    row = np.full((threads, regs, size), -1, np.int64)
    col = np.full((threads, regs, size), -1, np.int64)
    ebit = np.full((threads, regs, size), -1, np.int64)
    i = np.arange(elements)
    b = np.arange(shift, shift + data)
    r = np.broadcast_to((i // per)[:, None], (elements, data))
    bit = index[(i % per)[:, None] * width + b[None, :]]  # (element, data bit) -> position
    sel = bit >= 0
    r, bit, eb = r[sel], bit[sel], np.broadcast_to(b - shift, sel.shape)[sel]
    el = np.broadcast_to(i[:, None], sel.shape)[sel]
    row[:, r, bit] = fm.row[:, el]
    col[:, r, bit] = fm.col[:, el]
    ebit[:, r, bit] = eb
    return FragmentBits(threads, regs, row, col, ebit, width, data, shift, held)


@dataclass(frozen=True)
class Loader:
    """The answer for one (fragment, form, storage): `ok`, or `reason` why not."""
    ok: bool
    reason: str = ""
    instructions: int = 0            # how many times the form runs (registers in order)
    rows: np.ndarray | None = field(default=None, repr=False)   # (threads, instructions): row of the address
    cols: np.ndarray | None = field(default=None, repr=False)   # column (elements), -1: lane names no row
    row_formula: str = ""
    col_formula: str = ""


def _memory_bit(fb: FragmentBits, storage: Storage, m: MovementMap):
    """(stored row, bit position along the stored row) of every fragment bit."""
    r, c = (fb.col, fb.row) if storage.transposed else (fb.row, fb.col)
    if m.packed:
        # 16 elements of `packed` bits per 128-bit chunk of the row, then padding
        along = (c // 16) * ROW_BITS + (c % 16) * m.packed + fb.ebit
    else:
        along = c * fb.width + fb.ebit + fb.shift
    return r, along


def _run_starts(fb: FragmentBits, m: MovementMap) -> np.ndarray:
    """The register bits at which a run begins: within a run every bit belongs to the same element
    (or is padding) of the fragment and comes from the same address lane, one bit further along
    its row, than the bit before. Every rule of the composition holds for a whole run if it holds
    for its first bit, so those bits alone are composed (the answer is the same, 5 to 30 times
    faster)."""
    starts = fb.starts()  # each slot: its padding below, its element bits, padding above
    starts[1:] |= _movement_breaks(m)
    return np.flatnonzero(starts)


# Both caches are keyed on a form's map (by identity) and bounded: a long process that loads many
# models (a test session, a server) keeps only the recent forms' entries.
@lru_cache(maxsize=256)
def _movement_breaks(m: MovementMap) -> np.ndarray:
    """Bits 1..31 at which the form's next bit comes from another lane or is not the next row bit."""
    lane, rowbit = m.lane, m.rowbit
    return ((lane[..., 1:] != lane[..., :-1]) | (rowbit[..., 1:] != rowbit[..., :-1] + 1)).any(axis=(0, 1))


@lru_cache(maxsize=4096)
def _cut_map(m: MovementMap, keep: bytes) -> MovementMap:
    bits = np.frombuffer(keep, np.int64)
    return MovementMap(m.opcode, m.regs, m.lane[..., bits], m.rowbit[..., bits], m.packed)


def compose(fb: FragmentBits, m: MovementMap, storage: Storage, reduced: dict | None = None,
            firsts: dict | None = None) -> Loader:
    """Solve for the row address of every lane of every instruction. `reduced` keeps the
    fragment's arrays cut to each set of run starts, for the next form with the same set;
    `firsts` the answers for the first instruction of the first warp, for the next fragment that
    begins alike (of one LoaderTable: its forms live as long, so a form's id names it)."""
    form = m
    unfit = _unfit(fb, m)
    if unfit is not None:  # most forms, and cheaply: before the arrays are cut
        return unfit
    keep = _run_starts(fb, m)
    if len(keep) < 32:
        key = keep.tobytes()
        cut = None if reduced is None else reduced.get(key)
        if cut is None:
            at = keep if fb.bits is None else np.searchsorted(fb.bits, keep)
            if fb.bits is not None and not np.array_equal(fb.bits[at], keep):
                raise ValueError("the fragment was built without a run start of this form")
            cut = FragmentBits(fb.threads, fb.regs, fb.row[..., at], fb.col[..., at], fb.ebit[..., at],
                               fb.width, fb.data_bits, fb.shift, keep)
            if reduced is not None:
                reduced[key] = cut
        fb = cut
        m = _cut_map(m, key)
    if firsts is not None and (fb.regs > m.regs or fb.threads > LANES):
        part = fb.part(slice(0, LANES), slice(0, m.regs))
        k = (id(form), keep.tobytes(), storage.name, part.identity())
        first = firsts.get(k)
        if first is None:
            first = firsts[k] = _compose(part, m, storage, keep)
        if not first.ok:
            return first
        return _compose(fb, m, storage, keep, first_ok=True)
    return _compose(fb, m, storage, keep)


def _unfit(fb: FragmentBits, m: MovementMap) -> Loader | None:
    """Why the form cannot load the fragment whatever its map: elements of another width, or a
    register count that is no multiple of the form's."""
    if m.packed and fb.data_bits != m.packed:
        return Loader(False, f"the form unpacks {m.packed}-bit elements, the fragment holds {fb.data_bits}-bit ones")
    if fb.regs % m.regs:
        return Loader(False, f"{fb.regs} registers are not a whole number of {m.regs}-register loads")
    return None


def _compose(fb: FragmentBits, m: MovementMap, storage: Storage, bits: np.ndarray, first_ok: bool = False) -> Loader:
    """compose() on the register bits `bits` (the last axis of every array), the fragment fit for
    the form (_unfit); `first_ok`: its first instruction of the first warp composes."""
    n = fb.regs // m.regs
    warps = fb.threads // LANES
    if (n > 1 or warps > 1) and not first_ok:
        # most forms fail on the first instruction of the first warp already: try that alone first
        first = _compose(fb.part(slice(0, LANES), slice(0, m.regs)), m, storage, bits)
        if not first.ok:
            return first
    srow, along = _memory_bit(fb, storage, m)
    # (warp, lane, instruction, register of the form, bit) for the fragment's registers in order
    shape = (warps, LANES, n, m.regs, len(bits))
    want = (fb.ebit >= 0).reshape(shape)
    srow, along = srow.reshape(shape), along.reshape(shape)
    lane = np.broadcast_to(m.lane[None, :, None], shape)
    rowbit = np.broadcast_to(m.rowbit[None, :, None], shape)
    pad = want & (lane < 0)
    if pad.any():
        w, t, k, j, b = (int(x[0]) for x in np.nonzero(pad))
        return Loader(False, f"lane {t} register {k * m.regs + j} bit {bits[b]} must hold element data; the form fills "
                             "it with padding")
    # one slot per (warp, instruction, address lane)
    wk = np.arange(warps)[:, None, None, None, None] * n + np.arange(n)[None, None, :, None, None]
    slot = (np.broadcast_to(wk, shape) * LANES + lane)[want]
    nslots = warps * n * LANES
    values = {"stored row": srow[want], "offset along the row": (along - rowbit)[want]}
    found = {}
    for name, val in values.items():
        first = np.zeros(nslots, np.int64)
        first[slot[::-1]] = val[::-1]          # each slot's first value (later writes win)
        clash = first[slot] != val
        if clash.any():
            x = int(np.argmax(clash))
            z = int(slot[x])
            (w, k), L = divmod(z // LANES, n), z % LANES
            where = (f" (warp {w}" if warps > 1 else "") + (f", instruction {k}" if n > 1 else "")
            where = f"{where})" if where else ""
            return Loader(False, f"address lane {L}{where} would need two values of the {name}: "
                                 f"{first[z]} and {val[x]}")
        found[name] = first
    used = np.zeros(nslots, bool)
    used[slot] = True
    off = found["offset along the row"]
    misplaced = used & ((off % ROW_BITS != 0) | (off < 0))
    if misplaced.any():
        z = int(np.argmax(misplaced))
        return Loader(False, f"address lane {z % LANES}'s row would start {off[z]} bits into a stored row, "
                             "not at a 16-byte boundary")
    col = (off // ROW_BITS) * 16 if m.packed else off // fb.width
    # (warp, instruction, lane) -> (threads, instructions)
    as_table = lambda a: np.where(used, a, -1).reshape(warps, n, LANES).transpose(0, 2, 1).reshape(fb.threads, n)
    rows, cols = as_table(found["stored row"]), as_table(col)
    return Loader(True, "", n, rows, cols, bit_formula(rows), bit_formula(cols))


# ---------------------------------------------------------------------------------------------
# The table: every register fragment of every variant that computes a product, against every
# movement form of the spec.
@dataclass(frozen=True)
class Movement:
    """A movement form: its map, and the variants that are it in each state space."""
    form: str                 # the opcode without a state space (generic addresses)
    instruction: str
    semantics: str            # load_matrix | store_matrix
    variants: tuple[str, ...]  # its variant ids, one per state space
    map: MovementMap
    hardware: str             # the hardware status its variants share ("" when they differ)


@dataclass(frozen=True)
class LoaderRow:
    variant_id: str
    operand: str              # the fragment's matrix (a, b, c, d)
    storage: str              # row | col
    direction: str            # load | store
    status: str               # ok | none
    form: str = ""
    instruction: str = ""
    variants: tuple[str, ...] = ()
    instructions: int = 0
    row: str = ""
    col: str = ""
    reason: str = ""
    evidence: str = ""


DIRECTIONS = {"load_matrix": "load", "store_matrix": "store"}


def movements(spec) -> list[Movement]:
    """The spec's movement forms: variants whose semantics moves rows between memory and a
    fragment, one form per set of variants that differ only in the state space."""
    groups: dict[tuple, list] = {}
    for v in spec.variants:
        if v.semantics not in DIRECTIONS:
            continue
        quals = tuple(sorted((k, x) for k, x in v.qualifiers.items() if k != "space"))
        groups.setdefault((v.instruction, v.m, v.n, v.atype, v.dtype, quals), []).append(v)
    out = []
    for vs in groups.values():
        v = min(vs, key=lambda x: (len(x.ptx), x.ptx))  # the generic form: no state space
        (mat,) = v.fragment_layouts
        fm = v.fragment_map(mat)
        et = spec.types[v.element_type(mat)]
        packed = et.bits if et.packed_elements else 0
        m = movement_map(v.ptx, fm.row, fm.col, fm.bits, packed, et.container_shift if packed else 0)
        hw = {x.hardware for x in vs}
        out.append(Movement(v.ptx, v.instruction, v.semantics, tuple(sorted(x.id for x in vs)), m,
                            hw.pop() if len(hw) == 1 else ""))
    return sorted(out, key=lambda m: (m.semantics, m.map.regs, m.form))


_RANK = ("would need two values", "16-byte boundary", "padding", "registers are not", "the form unpacks")


def _best_reason(misses: list[tuple[str, str]]) -> str:
    """The closest miss: a lane conflict beats a misaligned row beats a register count."""
    for key in _RANK:
        for form, why in misses:
            if key in why:
                return f"{form}: {why}"
    return f"{misses[0][0]}: {misses[0][1]}" if misses else "the spec has no movement form for it"


class LoaderTable:
    """Every register fragment of every variant that computes a product, composed with every
    movement form: per distinct fragment (layout, its shape parameters, element type) the answers
    for row- and column-major storage, loading and storing. Each fragment is composed on first use
    (the docs need a few); keyed_rows composes them all, once per model."""

    def __init__(self, spec):
        self.spec = spec
        self.forms = movements(spec)
        # where any form's runs begin: a fragment needs no other bits than these and its own run starts
        self._form_breaks = np.zeros(32, bool)
        for m in self.forms:
            self._form_breaks[1:] |= _movement_breaks(m.map)
        self._cache: dict[tuple, dict] = {}
        self._solved: dict[tuple | None, dict] = {}  # FragmentBits.identity() -> its answers
        self._firsts: dict[tuple, Loader] = {}  # compose()'s answers for first instructions
        self._complete = False

    def _compose_all(self) -> None:
        if not self._complete:
            for v in self.spec.variants:
                for matrix, _ in self.fragments(v):
                    self.results(v, matrix)
            self._complete = True

    @staticmethod
    def fragments(v):
        """(matrix, directions) of each register fragment of a product variant."""
        if v.semantics != "mma":
            return []
        out = []
        for o in v.operands:
            # maps the manual states only: an observed map (wmma's) is no contract to load against
            if o.kind == "fragment" and o.matrix in v.fragment_layouts and v.fragment_layouts[o.matrix][0].normative:
                out.append((o.matrix, {"in": ("load_matrix",), "out": ("store_matrix",),
                                       "inout": ("load_matrix", "store_matrix")}[o.io]))
        return out

    @staticmethod
    def key(v, matrix) -> tuple:
        lay, _, shape = v.fragment_layouts[matrix]
        return (lay.name, lay.shape_key(*shape), v.element_type(matrix))

    def results(self, v, matrix) -> dict:
        k = self.key(v, matrix)
        if k not in self._cache:
            fb = fragment_bits(v, matrix, self._form_breaks)
            same = None if fb is None else fb.identity()
            if same not in self._solved:
                self._solved[same] = _solve(fb, self.forms, self._firsts)
            self._cache[k] = self._solved[same]
        return self._cache[k]

    def keyed_rows(self):
        """(fragment key, LoaderRow without a variant) for every distinct fragment, both storages,
        both directions; the row's evidence field holds the form's hardware status."""
        self._compose_all()
        for k, res in sorted(self._cache.items(), key=lambda kv: repr(kv[0])):
            for (storage, sem), found in sorted(res.items(), key=lambda kv: kv[0]):
                ok = sorted(((m, r) for m, r in found if r is not None and r.ok),
                            key=lambda x: (x[1].instructions, x[0].form))
                if not ok:
                    yield k, LoaderRow("", "", storage, DIRECTIONS[sem], "none", reason=_why_not(found))
                for m, r in ok:
                    yield k, LoaderRow("", "", storage, DIRECTIONS[sem], "ok", m.form, m.instruction, m.variants,
                                       r.instructions, r.row_formula, r.col_formula, "", m.hardware)

    def rows_for(self, v, matrix: str | None = None) -> list[LoaderRow]:
        """The loaders (and stores) of a variant's fragments, best first."""
        out = []
        for mat, sems in self.fragments(v):
            if matrix is not None and mat != matrix:
                continue
            res = self.results(v, mat)
            for storage in (ROW.name, COL.name):
                for sem in sems:
                    found = res.get((storage, sem), [])
                    ok = sorted(((m, r) for m, r in found if r is not None and r.ok),
                                key=lambda x: (x[1].instructions, x[0].form))
                    if not ok:
                        out.append(LoaderRow(v.id, mat, storage, DIRECTIONS[sem], "none", reason=_why_not(found)))
                    out += [LoaderRow(v.id, mat, storage, DIRECTIONS[sem], "ok", m.form, m.instruction, m.variants,
                                      r.instructions, r.row_formula, r.col_formula, "", _evidence(m, v))
                            for m, r in ok]
        return out


def _why_not(found) -> str:
    if any(r is None for _, r in found):
        return "64-bit elements live in 64-bit registers, which no movement form writes"
    return _best_reason([(m.form, r.reason) for m, r in found])


def _solve(fb: FragmentBits | None, forms, firsts: dict) -> dict:
    """Every form composed with one fragment (built holding the bits where any form's runs begin),
    both storages; None: a fragment of 64-bit elements."""
    out: dict = {}
    reduced: dict = {}
    for storage in (ROW, COL):
        for m in forms:
            out.setdefault((storage.name, m.semantics), []).append(
                (m, None if fb is None else compose(fb, m.map, storage, reduced, firsts)))
    return out


def _evidence(m: Movement, v) -> str:
    """What hardware shows of the two maps composed (the composition itself is exact)."""
    missing = [what for what, hw in (("the movement form's", m.hardware), ("the fragment's", v.hardware))
               if hw != "H100"]
    return "maps proven on H100" if not missing else f"not run on hardware ({' and '.join(missing)} map)"
