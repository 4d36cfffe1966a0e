"""Machine words and addresses as a caller gives them: checked, never reinterpreted.

A register, a tensor-memory cell or a lane mask is a 32-bit (or 64-bit) word; an address, a
descriptor or an instruction descriptor is an unsigned integer of its register's width. Callers
pass numpy arrays or Python integers; what they pass must be such a word exactly:

- unsigned integer arrays, and integer arrays (or Python ints) whose values lie in 0 .. 2**bits - 1,
  are accepted as they are;
- floats (even integral ones), booleans, strings, objects that are not ints, negative values and
  values of more than `bits` bits are a TypeError or ValueError naming the operand (`what`) and
  saying what to pass. Nothing is truncated, wrapped or rounded silently (a float register of
  0.5 used to read as 0, an int64 -1 as 0xFFFFFFFF, 2**40 as 0).

Typed element values (float16, bfloat16, ...) go through `Variant.pack` (ptxspec.core.values),
which turns them into these words.
"""
from __future__ import annotations

import operator

from ptxspec.core.lazy import np

__all__ = ["words", "integer", "address", "addresses", "ADDRESS_BITS"]

ADDRESS_BITS = 64  # a generic or state-space address is a 64-bit register (shared: its low 32 bits)

_PACK_HINT = "typed element values go through Variant.pack(operand, values)"


def _kind(a: np.ndarray) -> str:
    return "booleans" if a.dtype.kind == "b" else f"{a.dtype}"


def words(what: str, arr, bits: int = 32) -> np.ndarray:
    """`arr` as an array of `bits`-bit words (np.uint32 for 32, np.uint64 for 64), or a TypeError or
    ValueError naming `what` when it is anything but non-negative integers below 2**bits."""
    out_dtype = np.uint32 if bits <= 32 else np.uint64
    want = f"{bits}-bit words: unsigned integers (np.uint{32 if bits <= 32 else 64}) from 0 to 2**{bits} - 1"
    try:
        a = np.asarray(arr)
    except (ValueError, TypeError) as exc:  # ragged nesting, and the like
        raise ValueError(f"{what} must be an array of {want}; got an object numpy cannot read as one ({exc})") \
            from None
    if a.dtype.kind == "O":  # Python ints too wide for int64 and uint64, or foreign objects
        flat = a.ravel().tolist()
        if not all(type(x) is int for x in flat):
            bad = next(x for x in flat if type(x) is not int)
            raise TypeError(f"{what} holds {want}, not {type(bad).__name__} ({bad!r}); {_PACK_HINT}")
        if flat:
            lo, hi = min(flat), max(flat)
            if lo < 0 or hi >> bits:
                raise ValueError(f"{what} holds {want}; got {lo if lo < 0 else hi}")
        return np.array(flat, dtype=out_dtype).reshape(a.shape)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what} holds {want}, not {_kind(a)}; {_PACK_HINT}")
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >> bits:
            raise ValueError(f"{what} holds {want}; got {lo if lo < 0 else hi}")
    return a.astype(out_dtype, copy=False)


def integer(what: str, value, lo: int, hi: int) -> int:
    """`value` as a Python int in lo .. hi (a Python or numpy integer, or a 0-d integer array);
    a float, a bool or a string is a TypeError, a value out of range a ValueError, both naming `what`."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} is an integer from {lo} to {hi}, not a boolean")
    try:
        x = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} is an integer from {lo} to {hi}, not {type(value).__name__} ({value!r:.60})") \
            from None
    if not lo <= x <= hi:
        raise ValueError(f"{what} is an integer from {lo} to {hi}; got {x}")
    return x


def address(what: str, value) -> int:
    """A byte address (or an origin: where byte 0 of an image lies): an integer of a 64-bit register."""
    return integer(what, value, 0, (1 << ADDRESS_BITS) - 1)


def addresses(what: str, arr) -> np.ndarray:
    """An array of byte addresses, as np.uint64 (each a 64-bit register's integer)."""
    return words(what, arr, ADDRESS_BITS).astype(np.uint64, copy=False)
