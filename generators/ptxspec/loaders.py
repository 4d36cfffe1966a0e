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

import numpy as np

LANES = 32
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

    def part(self, threads: slice, regs: slice) -> "FragmentBits":
        r, c, e = self.row[threads, regs], self.col[threads, regs], self.ebit[threads, regs]
        return FragmentBits(r.shape[0], r.shape[1], r, c, e, self.width, self.data_bits, self.shift)


def fragment_bits(v, operand: str) -> FragmentBits | None:
    """The bit map of one register operand (None for 64-bit elements, which live in 64-bit
    registers no ldmatrix writes)."""
    _, width, _ = v.fragment_layouts[operand]
    pos = np.asarray(v.fragment(operand))
    threads, elements = pos.shape[0], pos.shape[1]
    if width > 32:
        return None
    per = 32 // width
    regs = -(-elements // per)
    etype = v.spec.types[getattr(v, f"{operand}type")] if operand in "abcd" else None
    data = etype.bits if etype is not None and etype.bits < width else width
    shift = etype.container_shift if etype is not None and etype.bits < width else 0
    row = np.full((threads, regs, 32), -1, np.int64)
    col = np.full((threads, regs, 32), -1, np.int64)
    ebit = np.full((threads, regs, 32), -1, np.int64)
    i = np.arange(elements)
    r, s = i // per, i % per
    for b in range(width):
        e = b - shift
        if not 0 <= e < data:
            continue
        bit = s * width + b
        row[:, r, bit] = pos[:, :, 0]
        col[:, r, bit] = pos[:, :, 1]
        ebit[:, r, bit] = e
    return FragmentBits(threads, regs, row, col, ebit, width, data, shift)


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


def compose(fb: FragmentBits, m: MovementMap, storage: Storage) -> Loader:
    """Solve for the row address of every lane of every instruction."""
    if m.packed and fb.data_bits != m.packed:
        return Loader(False, f"the form unpacks {m.packed}-bit elements, the fragment holds {fb.data_bits}-bit ones")
    if fb.regs % m.regs:
        return Loader(False, f"{fb.regs} registers are not a whole number of {m.regs}-register loads")
    n = fb.regs // m.regs
    warps = fb.threads // LANES
    if n > 1 or warps > 1:
        # most forms fail on the first instruction of the first warp already: try that alone first
        first = compose(fb.part(slice(0, LANES), slice(0, m.regs)), m, storage)
        if not first.ok:
            return first
    srow, along = _memory_bit(fb, storage, m)
    # (warp, lane, instruction, register of the form, bit) for the fragment's registers in order
    shape = (warps, LANES, n, m.regs, 32)
    want = (fb.ebit >= 0).reshape(shape)
    srow, along = srow.reshape(shape), along.reshape(shape)
    lane = np.broadcast_to(m.lane[None, :, None], shape)
    rowbit = np.broadcast_to(m.rowbit[None, :, None], shape)
    pad = want & (lane < 0)
    if pad.any():
        w, t, k, j, b = (int(x[0]) for x in np.nonzero(pad))
        return Loader(False, f"lane {t} register {k * m.regs + j} bit {b} must hold element data; the form fills "
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
# Formulas: the per-lane values as a base plus one term per set bit of the lane, the instruction
# `i` and the warp (the form every movement and fragment map here has), rendered as bit fields.
def _render(terms: list[tuple[int, int]], var: str) -> str:
    parts = []
    i = 0
    while i < len(terms):
        b, d = terms[i]
        j = i
        while j + 1 < len(terms) and terms[j + 1][0] == terms[j][0] + 1 and terms[j + 1][1] == 2 * terms[j][1]:
            j += 1
        width = terms[j][0] - b + 1
        bits = f"({var} >> {b})" if b else var
        bits = f"({bits} & {(1 << width) - 1})"
        parts.append(bits if d == 1 else f"{d}*{bits}")
        i = j + 1
    return " + ".join(parts)


def bit_formula(values: np.ndarray, what: str = "") -> str:
    """values (threads, instructions), -1 where the lane names no row: `base + terms(lane) +
    terms(i) + terms(warp)`, or "" when the values are not of that form."""
    threads, n = values.shape
    v = values.reshape(threads // LANES, LANES, n).transpose(0, 2, 1)  # warp, instruction, lane
    used = v >= 0
    if not used[0, 0, 0]:
        return ""
    base = int(v[0, 0, 0])
    W, I, L = v.shape
    idx = np.meshgrid(np.arange(W), np.arange(I), np.arange(L), indexing="ij")
    pred = np.full(v.shape, base, np.int64)
    text = []
    for name, axis, size in (("lane", 2, L), ("i", 1, I), ("warp", 0, W)):
        terms = []
        for b in range(int(size - 1).bit_length()):
            at = [0, 0, 0]
            at[axis] = 1 << b
            if not used[tuple(at)]:
                continue
            d = int(v[tuple(at)]) - base
            if d:
                terms.append((b, d))
                pred += ((idx[axis] >> b) & 1) * d
        if terms:
            text.append(_render(terms, name))
    if not np.array_equal(pred[used], v[used]):
        return ""
    return " + ".join(([str(base)] if base else []) + text) or "0"
