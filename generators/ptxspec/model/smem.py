"""Shared-memory operands (wgmma's, tcgen05's): the matrix descriptor and the canonical (swizzled) layouts.

Everything here is evaluated from `spec.smem[family]` (spec/smem/*.yaml): the descriptor's fields
and their `encode` formulas, the swizzle modes, the `swizzle` formula over (a, b; and o, the
descriptor's base offset, where the spec models it) and the `canonical_layouts` `bit_offset`
formulas over (mn, k, bits, W, R, LBO, SBO). No layout constant lives in this module. Where the
spec describes the shared memory of several families, name the family (a variant names its own).

    from ptxspec import smem
    d = smem.encode_descriptor(spec, start=0x2000, lbo=128, sbo=256, swizzle="none", family="wgmma")
    smem.decode_descriptor(spec, d, "wgmma")        # {'start_address': 0x2000, ...}
    addr = smem.operand_byte_addresses(v, "b", "K", "128B", start=0x2000, lbo=16, sbo=1024)
    # addr[k, n]: byte address of B[k, n] (after swizzling)

Conventions: A is M x K (the packed M x K/2 for sparse A), B is K x N. Element (mn, k) of the
canonical layout is A[m, k] or B[k, n]. Addresses are shared-memory byte addresses: the swizzle
XORs address bits, so `start` is the address the descriptor holds, not an offset into a buffer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ptxspec.core.lazy import np

from ptxspec.core.expr import Formula
from ptxspec.core.words import integer

__all__ = [
    "descriptor_fields", "encode_descriptor", "decode_descriptor", "swizzle_mode", "canonical_layout",
    "operand_shape", "element_bits", "operand_layout", "operand_byte_addresses", "write_matrix", "read_matrix",
    "OperandLayout", "BaseOffsetUnsupported", "descriptor_for", "layout_from_descriptor", "layout_for",
]

DESCRIPTOR_BITS = 64  # a shared-memory matrix descriptor is a .b64 register (operand kind descriptor)


@dataclass(frozen=True)
class SwizzleMode:
    name: str
    code: int
    width: int
    b: int
    repeat: int
    description: str
    unit: int = 16  # bytes the swizzle moves as one (u of the swizzle formula): 32 for 128B_base32B
    majors: tuple[str, ...] = ("K", "MN")  # the operand majors it may describe (128B_base32B: MN only)

    @property
    def rows(self) -> int:
        """Rows of one swizzle atom (R of the canonical layouts): 8, or 4 for 128B_base32B."""
        return self.repeat // self.width


@dataclass
class SharedMemory:
    family: str
    description: str
    fields: list[dict]
    swizzle_modes: list[SwizzleMode]
    swizzle: Formula
    canonical_layouts: list[dict]
    majors: list[dict] = field(default_factory=list)  # name, trans (the imm-trans value), description


def _smem(spec_or_variant, family: str | None = None):
    if hasattr(spec_or_variant, "spec"):  # a variant: its family's shared memory, unless another is named
        spec, fam = spec_or_variant.spec, family or spec_or_variant.family
    else:
        spec, fam = spec_or_variant, family
    if fam is None:
        if len(spec.smem) != 1:
            raise ValueError(f"name the family: the spec describes shared memory of {sorted(spec.smem)}")
        fam = next(iter(spec.smem))
    if fam not in spec.smem:
        raise KeyError(f"the spec gives no shared-memory layout for family {fam!r} (it has {sorted(spec.smem)})")
    return spec.smem[fam]


# ---------------------------------------------------------------------------------------------
# Descriptor


@dataclass(frozen=True)
class _Field:
    name: str
    lsb: int
    width: int
    encode: Formula  # over x (a constant for a fixed field)
    inverse: tuple[tuple[int, int], ...]  # (field bit, value bit) pairs
    fixed: int | None = None  # a constant field (tcgen05's version bits): always this value
    default: int | None = None  # the value of a field the caller leaves out

    def encode_value(self, x: int) -> int:
        if x < 0:
            raise ValueError(f"descriptor field {self.name}: negative value {x}")
        v = int(self.encode(x=x))
        if v >> self.width:
            raise ValueError(f"descriptor field {self.name}: {x:#x} encodes to {v:#x}, wider than {self.width} bits")
        if self.decode_value(v) != x:
            raise ValueError(f"descriptor field {self.name}: {x:#x} is not representable "
                             f"(it encodes to {v:#x}, which decodes to {self.decode_value(v):#x})")
        return v

    def decode_value(self, v: int) -> int:
        return sum(1 << vb for fb, vb in self.inverse if (v >> fb) & 1)


def invert_encode(name: str, encode, width: int) -> tuple[tuple[int, int], ...]:
    """The inverse of a bit-routing encode formula (masks and shifts), found by probing each bit."""
    pairs, seen = [], {}
    for vb in range(63):  # formula values stay within +-2**62 (ptxspec.core.expr): bit 63 is never a field's
        out = int(encode(x=1 << vb))
        if out == 0 or out >> width:  # dropped, or beyond the field: not representable
            continue
        if out & (out - 1):
            raise ValueError(f"descriptor field {name}: encode is not a bit routing (bit {vb} -> {out:#x})")
        fb = out.bit_length() - 1
        if fb in seen:
            raise ValueError(f"descriptor field {name}: bits {seen[fb]} and {vb} both land on field bit {fb}")
        seen[fb] = vb
        pairs.append((fb, vb))
    return tuple(sorted(pairs))


_FIELD_CACHE: dict[int, tuple[object, dict]] = {}


def descriptor_fields(spec, family: str | None = None) -> dict[str, _Field]:
    """The descriptor's fields by name, each with its encode formula and that formula's inverse."""
    sm = _smem(spec, family)
    hit = _FIELD_CACHE.get(id(sm))
    if hit is None or hit[0] is not sm:
        fields = {f["name"]: _Field(f["name"], f["lsb"], f["width"], f["encode"],
                                    invert_encode(f["name"], f["encode"], f["width"]) if f.get("fixed") is None else (),
                                    f.get("fixed"), f.get("default")) for f in sm.fields}
        hit = _FIELD_CACHE[id(sm)] = (sm, fields)
    return hit[1]


def swizzle_mode(spec, mode, family: str | None = None):
    """A SwizzleMode by name ('none', '32B', ...) or by descriptor code."""
    sm = _smem(spec, family)
    for m in sm.swizzle_modes:
        if (isinstance(mode, str) and m.name == mode) or (not isinstance(mode, str) and m.code == int(mode)):
            return m
    raise KeyError(f"no swizzle mode {mode!r}; modes: {', '.join(f'{m.name} ({m.code})' for m in sm.swizzle_modes)}")


def encode_descriptor(spec, start: int, lbo: int, sbo: int, swizzle, base_offset: int = 0,
                      family: str | None = None, **more: int) -> int:
    """The 64-bit matrix descriptor. start, lbo, sbo in bytes; swizzle a mode name or code; `more`:
    the family's other fields (tcgen05's lbo_mode), which default to their `default`; fixed
    fields (tcgen05's version) always hold their value."""
    fields = descriptor_fields(spec, family)
    code = swizzle_mode(spec, swizzle, family).code
    values = {"start_address": start, "leading_byte_offset": lbo, "stride_byte_offset": sbo,
              "base_offset": base_offset, "swizzle": code, **more}
    unknown = set(more) - set(fields)
    if unknown:
        raise ValueError(f"descriptor fields {sorted(unknown)} do not exist (fields: {sorted(fields)})")
    desc = 0
    for name, f in fields.items():
        if f.fixed is not None:
            desc |= f.fixed << f.lsb
            continue
        value = values.get(name, f.default)
        if value is None:
            raise ValueError(f"descriptor field {name} has no value here")
        desc |= f.encode_value(int(value)) << f.lsb
    return desc


def decode_descriptor(spec, desc: int, family: str | None = None) -> dict:
    """Field values of a descriptor (byte addresses and offsets, the swizzle code) plus the mode name.
    The descriptor is a 64-bit register's value: a negative or wider one is a ValueError, never masked."""
    desc = integer("matrix descriptor", desc, 0, (1 << DESCRIPTOR_BITS) - 1)
    out = {}
    used = 0
    for name, f in descriptor_fields(spec, family).items():
        mask = (1 << f.width) - 1
        raw = (desc >> f.lsb) & mask
        out[name] = raw if f.fixed is not None else f.decode_value(raw)
        used |= mask << f.lsb
    out["swizzle_name"] = swizzle_mode(spec, out["swizzle"], family).name
    out["unused_bits"] = desc & ~used & ((1 << DESCRIPTOR_BITS) - 1)
    return out


# ---------------------------------------------------------------------------------------------
# Layouts


def canonical_layout(spec, major: str, swizzled: bool, family: str | None = None) -> dict:
    sm = _smem(spec, family)
    for c in sm.canonical_layouts:
        if c["major"] == major and bool(c["swizzled"]) == bool(swizzled):
            return c
    raise KeyError(f"no canonical layout for {major}-major, swizzled={swizzled}")


def _is_swizzled(mode) -> bool:
    return mode.b > 0


def element_bits(variant, matrix: str) -> int:
    t = {"a": variant.atype, "b": variant.btype}[matrix]
    et = variant.spec.types[t]
    return et.container_bits or et.bits


def operand_shape(variant, matrix: str) -> tuple[int, int]:
    """(rows, cols) of the operand as stored: A M x K (M x K/2 when sparse), B K x N."""
    if matrix == "a":
        return variant.m, variant.k // 2 if variant.sparse else variant.k
    if matrix == "b":
        return variant.k, variant.n
    raise ValueError(f"matrix must be 'a' or 'b', not {matrix!r}")


@dataclass(frozen=True)
class OperandLayout:
    """Where each element of an operand lies: `byte[r, c]` (swizzled address), `bit[r, c]` (bit in it)."""

    byte: np.ndarray
    bit: np.ndarray
    bits: int

    @property
    def shape(self):
        return self.byte.shape

    def span(self) -> tuple[int, int]:
        """[first byte, one past the last byte) touched."""
        last = self.byte + (max(self.bits, 8) // 8) - 1
        return int(self.byte.min()), int(last.max()) + 1


class BaseOffsetUnsupported(NotImplementedError):
    """The spec's swizzle formula has no base offset (name `o`), but a nonzero one was asked for."""


def operand_layout(variant, matrix: str, major: str, swizzle, start: int, lbo: int, sbo: int,
                   base_offset: int = 0) -> OperandLayout:
    """Addresses of every element of A or B for a descriptor (start, lbo, sbo, swizzle, base offset)
    and majorness. The swizzle formula sees the byte address `a`, the mode's `b` and, if it names
    it, the descriptor's base offset `o`."""
    rows, cols = operand_shape(variant, matrix)
    return layout_for(variant.spec, variant.family, matrix, major, swizzle, start, lbo, sbo, base_offset, rows, cols,
                      element_bits(variant, matrix))


def layout_for(spec, family: str, matrix: str, major: str, swizzle, start: int, lbo: int, sbo: int, base_offset: int,
               rows: int, cols: int, bits: int) -> OperandLayout:
    """operand_layout for an operand of explicit shape (rows x cols of `bits`-bit elements): A is
    rows = M x cols = K, B rows = K x cols = N (tcgen05.mma, whose shapes are in its descriptor)."""
    if major not in ("K", "MN"):
        raise ValueError(f"major must be 'K' or 'MN', not {major!r}")
    mode = swizzle_mode(spec, swizzle, family)
    if major not in mode.majors:
        raise ValueError(f"swizzle mode {mode.name} describes {' or '.join(mode.majors)}-major operands only")
    sm = _smem(spec, family)
    lay = canonical_layout(spec, major, _is_swizzled(mode), family)
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(cols, dtype=np.int64)[None, :]
    mn, k = (r, c) if matrix == "a" else (c, r)
    off = lay["bit_offset"](mn=mn, k=k, bits=bits, W=mode.width, R=mode.rows, LBO=lbo, SBO=sbo)
    off = np.broadcast_to(np.asarray(off, dtype=np.int64), (rows, cols))
    byte = start + off // 8
    if base_offset and "o" not in sm.swizzle.names:
        raise BaseOffsetUnsupported(f"the spec's swizzle formula {sm.swizzle.source!r} has no base offset `o`; "
                                    f"cannot place a matrix with base offset {base_offset}")
    byte = np.asarray(sm.swizzle(a=byte, b=mode.b, o=base_offset, u=mode.unit), dtype=np.int64)
    byte = np.broadcast_to(byte, (rows, cols)).copy()
    bit = np.broadcast_to(off % 8, (rows, cols)).copy()
    return OperandLayout(byte, bit, bits)


def operand_byte_addresses(variant, matrix: str, major: str, swizzle, start: int, lbo: int, sbo: int,
                           base_offset: int = 0):
    """Byte address of every element (rows x cols array); for sub-byte elements (b1) a pair
    (byte addresses, bit positions within the byte)."""
    lay = operand_layout(variant, matrix, major, swizzle, start, lbo, sbo, base_offset)
    return lay.byte if lay.bits >= 8 else (lay.byte, lay.bit)


def _check_distinct(lay: OperandLayout):
    flat = lay.byte * 8 + lay.bit
    if np.unique(flat).size != flat.size:
        raise ValueError("two elements of the operand share an address: the offsets overlap")


def write_matrix(smem: bytearray, variant, matrix: str, major: str, swizzle, start: int, lbo: int, sbo: int,
                 values, origin: int = 0, base_offset: int = 0) -> OperandLayout:
    """Store raw element bits `values` (rows x cols unsigned ints) into `smem`, whose byte 0 lies at
    shared address `origin`. Returns the layout used."""
    lay = operand_layout(variant, matrix, major, swizzle, start, lbo, sbo, base_offset)
    _check_distinct(lay)
    vals = np.asarray(values)
    if vals.shape != lay.shape:
        raise ValueError(f"values shape {vals.shape} != operand shape {lay.shape}")
    vals = vals.astype(np.uint64)
    lo, hi = lay.span()
    if lo < origin or hi > origin + len(smem):
        raise ValueError(f"operand spans [{lo:#x}, {hi:#x}), outside the buffer [{origin:#x}, {origin + len(smem):#x})")
    buf = np.frombuffer(smem, dtype=np.uint8)
    idx = lay.byte - origin
    if lay.bits >= 8:
        nb = lay.bits // 8
        for j in range(nb):
            buf[idx + j] = ((vals >> np.uint64(8 * j)) & np.uint64(0xFF)).astype(np.uint8)
    else:
        mask = (1 << lay.bits) - 1
        v = (vals & np.uint64(mask)).astype(np.int64)
        flat_idx, flat_bit, flat_v = idx.ravel(), lay.bit.ravel(), v.ravel()
        # several elements share a byte: clear and set per element, unbuffered
        out = buf.astype(np.int64)
        np.bitwise_and.at(out, flat_idx, ~(mask << flat_bit))
        np.bitwise_or.at(out, flat_idx, flat_v << flat_bit)
        buf[:] = out.astype(np.uint8)
    return lay


def read_matrix(smem, variant, matrix: str, major: str, swizzle, start: int, lbo: int, sbo: int,
                origin: int = 0, base_offset: int = 0) -> np.ndarray:
    """Raw element bits (rows x cols, unsigned) of A or B as the layout finds them in `smem`."""
    lay = operand_layout(variant, matrix, major, swizzle, start, lbo, sbo, base_offset)
    buf = np.frombuffer(bytes(smem), dtype=np.uint8)
    lo, hi = lay.span()
    if lo < origin or hi > origin + len(buf):
        raise ValueError(f"operand spans [{lo:#x}, {hi:#x}), outside the buffer [{origin:#x}, {origin + len(buf):#x})")
    idx = lay.byte - origin
    if lay.bits >= 8:
        out = np.zeros(lay.shape, dtype=np.uint64)
        for j in range(lay.bits // 8):
            out |= buf[idx + j].astype(np.uint64) << np.uint64(8 * j)
    else:
        out = (buf[idx].astype(np.uint64) >> lay.bit.astype(np.uint64)) & np.uint64((1 << lay.bits) - 1)
    dt = np.uint8 if lay.bits <= 8 else np.uint16 if lay.bits <= 16 else np.uint32 if lay.bits <= 32 else np.uint64
    return out.astype(dt)


def descriptor_for(variant, start: int, lbo: int, sbo: int, swizzle, base_offset: int = 0) -> int:
    return encode_descriptor(variant.spec, start, lbo, sbo, swizzle, base_offset, family=variant.family)


def layout_from_descriptor(variant, matrix: str, major: str, desc: int) -> OperandLayout:
    """The operand layout a descriptor selects (its start, LBO, SBO and swizzle mode)."""
    d = decode_descriptor(variant.spec, desc, variant.family)
    return operand_layout(variant, matrix, major, d["swizzle"], d["start_address"], d["leading_byte_offset"],
                          d["stride_byte_offset"], d["base_offset"])
