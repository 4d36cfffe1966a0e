"""Operands of an execution: checked and shaped before any executor reads them.

Every executor takes a variant's operands by their PTX names; what a register fragment, an image of
memory or an immediate must be is checked here, once for all, and a wrong one is an OperandError
(or ValueError) that names the operand and says what to pass.

What a value must be follows from the operand's kind and register type (ptxspec.core.words):
registers, lane masks, metadata and scale registers are arrays of 32-bit words (64-bit for .f64 /
.b64 registers: descriptors, addresses); an instruction descriptor, a tensor-memory address, a
column mask or count is one word of its register; an immediate, a selector or a predicate one
integer. Memory is bytes; tensor memory 32-bit cells. Floats, negative or too-wide values, and
anything numpy would truncate or wrap are refused, never converted.
"""
from __future__ import annotations

import re

from ptxspec.core.lazy import np

from ptxspec.core.words import address, addresses, integer, words
from ptxspec.model.kinds import kind_of

__all__ = ["OperandError", "by_name", "check_operands", "checked", "registers", "memory_image", "tmem_image",
           "address", "addresses", "integer", "words", "word_bits"]

#: an immediate (imm-scale-a: -1 or 1, a selector, split) is a PTX integer constant: a 64-bit integer
_IMMEDIATE = (-(1 << 63), (1 << 63) - 1)


class OperandError(TypeError):
    """An operand missing, unknown, or of the wrong kind for the variant."""


def by_name(v):
    return {o.name: o for o in v.operands}


def word_bits(o) -> int:
    """Bits of one register of the operand (.b64, .f64: 64; .b16: 16; otherwise 32)."""
    m = re.search(r"(\d+)$", o.reg_type or "")
    return int(m.group(1)) if m else 32


def _what(v, o) -> str:
    return f"{v.id}: operand {o.name!r} ({o.kind})"


def checked(v, ops: dict) -> dict:
    """The operands given, each checked as what its kind holds and returned as that exactly: a Python
    int for one integer, a uint32 / uint64 array of words otherwise (unknown names are left to the
    caller); then against its legal values (its kind's check). A value that is no such thing is a
    TypeError / ValueError naming the operand."""
    names = by_name(v)
    out = dict(ops)
    for name, value in ops.items():
        o = names.get(name)
        if o is None:
            continue
        kind = kind_of(o)
        what = _what(v, o)
        if o.kind == "scale_selector":
            out[name] = value  # a tuple of immediates: its kind checks each part
        elif o.regs == 0:  # an immediate, a selector, a predicate: a constant of the statement
            out[name] = integer(what, value, *_IMMEDIATE)
        elif kind.scalar:  # one register: an instruction descriptor, a TMEM address, a mask, a count
            out[name] = integer(what, value, 0, (1 << word_bits(o)) - 1)
        else:  # registers (per thread, per batch element): fragments, masks, descriptors, addresses
            out[name] = words(what, value, word_bits(o))
        kind.check(v, o, out[name])  # its legal values
    return out


def check_operands(v, ops: dict, smem) -> dict:
    """Every operand known, present or defaulted, and legal; the values as `checked` returns them."""
    names = by_name(v)
    unknown = sorted(set(ops) - set(names))
    if unknown:
        raise OperandError(f"{v.id} has no operand {', '.join(map(repr, unknown))}; it has {', '.join(names)}")
    ops = checked(v, ops)
    for o in v.operands:
        if o.name not in ops and kind_of(o).executor_default(o) is None:
            raise OperandError(f"{v.id}: operand {o.name!r} ({o.kind}) is missing")
    if any(o.kind == "descriptor" for o in v.operands) and smem is None:
        raise OperandError(f"{v.id} reads shared memory through descriptors: pass smem=")
    return ops


def registers(v, name, arr):
    """A register fragment: words of its register type, shaped (threads, regs) or (batch, threads, regs)
    with batch >= 1."""
    o = v.operand(name)
    a = words(_what(v, o), arr, word_bits(o))
    want = (v.threads, o.regs)
    if a.shape[-2:] != want or a.ndim not in (2, 3):
        raise ValueError(f"{v.id}: operand {name!r} must be shaped {want} or (batch, *{want}); got {a.shape}")
    if a.ndim == 3 and a.shape[0] == 0:
        raise ValueError(f"{v.id}: operand {name!r} is an empty batch (shape {a.shape}): pass at least one "
                         f"{want} set of registers")
    return a


def memory_image(smem, what: str = "smem", ndims: tuple[int, ...] = (1, 2)):
    """An image of memory: bytes, or a uint8 array (nbytes,) (or (batch, nbytes))."""
    if isinstance(smem, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(smem), dtype=np.uint8)
    a = np.asarray(smem)
    if a.dtype != np.uint8:
        raise TypeError(f"{what} must be bytes or a uint8 array, not {a.dtype}")
    if a.ndim not in ndims or (a.ndim > 1 and a.shape[0] == 0):
        shapes = " or ".join({1: "(nbytes,)", 2: "(batch, nbytes)"}.get(n, f"{n}-d") for n in ndims)
        raise ValueError(f"{what} must be shaped {shapes}, with a batch of at least one; got {a.shape}")
    return a


def tmem_image(v, img, shape: tuple[int, ...], columns: int, what: str = "tmem") -> np.ndarray:
    """A tensor-memory image: 32-bit cells, a copy shaped `shape` (-1: the columns, from 1 to
    `columns`: an image may hold the first columns of a CTA's tensor memory, not more than it has)."""
    a = np.array(words(f"{v.id}: {what} (tensor-memory cells)", img, 32), dtype=np.uint32)
    if a.ndim != len(shape) or any(n != w if w != -1 else not 1 <= n <= columns for w, n in zip(shape, a.shape)):
        want = ", ".join(f"1 to {columns} columns" if w == -1 else str(w) for w in shape)
        raise ValueError(f"{v.id}: {what} must be shaped ({want}) of 32-bit cells; got {a.shape}")
    return a
