"""Typed element values <-> raw codes, on numpy's and ml_dtypes' own types.

The rule `Variant.pack(operand, matrix)` follows (README, "Typed values"):

- an **unsigned integer** array holds raw codes: the element's bit pattern as its register slot
  holds it (an fp6/fp4 element in an 8-bit container: the container byte). A code wider than the
  slot is an error.
- an array of the **element type's own dtype** holds values: `float16` for f16, `float32` for f32,
  `float64` for f64, `ml_dtypes.bfloat16` for bf16, `float8_e4m3fn` for e4m3, `float8_e5m2` for
  e5m2, `float6_e2m3fn`/`float6_e3m2fn`/`float4_e2m1fn` for e2m3/e3m2/e2m1, `float8_e8m0fnu` for
  ue8m0, `float8_e4m3fn` (not negative) for ue4m3. tf32 takes `float32` values whose low 13 bits
  are zero: the caller chooses the rounding (`to_tf32`), never this function.
- a **signed integer** (or `ml_dtypes.int4`/`uint4`, or bool) array holds values of an integer type
  (s8, u8, s4, u4, s32, b1), checked against the type's range.
- anything else (float16 values into a bf16 operand, float32 into s32, ...) is a TypeError that says
  what to pass; nothing is reinterpreted silently.

`unpack(..., values=True)` returns the same dtypes (s4/u4 as `ml_dtypes.int4`/`uint4`, b1 as bool, the untyped b8/b16 (and packed 4/6-bit) elements of the matrix movements as unsigned integers,
tf32 as float32 with the low 13 bits zero).

The formats are matched to dtypes by their parameters in spec/types.yaml (exponent and mantissa
widths, bias, special values, sign), never by type name.
"""
from __future__ import annotations

import lazy_loader
from ptxspec.core.lazy import np

ml_dtypes = lazy_loader.load("ml_dtypes")  # imported when first needed: a model loads without it

# (exponent, mantissa, bias, specials, signed) -> the dtype's name in numpy or ml_dtypes
_FLOAT_DTYPES = {
    (11, 52, 1023, "ieee", True): "float64",
    (8, 23, 127, "ieee", True): "float32",
    (5, 10, 15, "ieee", True): "float16",
    (8, 7, 127, "ieee", True): "bfloat16",
    (8, 10, 127, "ieee", True): "float32",  # tf32: float32 with the low 13 bits zero
    (4, 3, 7, "nan_only", True): "float8_e4m3fn",
    (4, 3, 7, "nan_only", False): "float8_e4m3fn",  # ue4m3: the non-negative e4m3 codes
    (5, 2, 15, "ieee", True): "float8_e5m2",
    (3, 2, 3, "none", True): "float6_e3m2fn",
    (2, 3, 1, "none", True): "float6_e2m3fn",
    (2, 1, 1, "none", True): "float4_e2m1fn",
    (8, 0, 127, "nan_only", False): "float8_e8m0fnu",
}
_INT_DTYPES = {(4, True): "int4", (4, False): "uint4", (8, True): "int8", (8, False): "uint8",
               (32, True): "int32", (32, False): "uint32", (16, True): "int16", (16, False): "uint16"}


def _dtype(name: str) -> np.dtype:
    if hasattr(np, name) and name not in ("int4", "uint4"):
        return np.dtype(getattr(np, name))
    return np.dtype(getattr(ml_dtypes, name))


def _qualified(d: np.dtype) -> str:
    return f"np.{d.name}" if hasattr(np, d.name) and d.name not in ("int4", "uint4") else f"ml_dtypes.{d.name}"


def width(t) -> int:
    """Significant bits of a code (tf32: 19 of its 32-bit slot)."""
    if t.cls == "float":
        return int(t.signed) + t.format["exponent"] + t.format["mantissa"]
    return t.bits


def dtype_of(t) -> np.dtype:
    """The dtype that holds values of element type t (a `ptxspec.model.ElementType`)."""
    if t.cls == "bit" and t.bits == 1:
        return np.dtype(bool)
    if t.cls == "bit":  # untyped bits (ldmatrix's b16, b8, packed 4/6-bit): the smallest unsigned integer
        return _dtype(_INT_DTYPES[(next(b for b in (4, 8, 16, 32) if b >= t.bits), False)])
    if t.cls != "float":
        return _dtype(_INT_DTYPES[(t.bits, t.signed)])
    f = t.format
    key = (f["exponent"], f["mantissa"], f["bias"], f["specials"], t.signed)
    if key not in _FLOAT_DTYPES:
        raise TypeError(f"no numpy or ml_dtypes type holds {t.name} values; pass raw codes as unsigned integers")
    return _dtype(_FLOAT_DTYPES[key])


def _uint(bits: int):
    return np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32 if bits <= 32 else np.uint64


def _slot(t, slot_bits: int) -> int:
    """How far an element's code is shifted inside its slot (fp4 in an 8-bit container: 2)."""
    return t.container_shift if slot_bits > t.bits else 0


def to_codes(t, matrix, slot_bits: int, what: str) -> np.ndarray:
    """Raw codes (uint64) of a matrix of values or codes, by the module's rule; `what` names the
    operand in errors."""
    a = np.asarray(matrix)
    if a.dtype.kind == "u":  # raw codes (for u8, u4: also the values)
        if a.size and int(a.max()) >> slot_bits:
            raise ValueError(f"{what}: code {int(a.max()):#x} does not fit the {slot_bits}-bit slot of a {t.name} "
                             f"element")
        return a.astype(np.uint64)
    want = dtype_of(t)
    hint = f"pass {_qualified(want)} values or raw codes as unsigned integers, not {a.dtype}"
    if t.cls != "float":
        return _int_codes(t, a, slot_bits, what, hint)
    if a.dtype != want:
        raise TypeError(f"{what} holds {t.name}: pass {_qualified(want)} values (x.astype({_qualified(want)}) "
                        f"rounds to nearest) or raw codes as unsigned integers, not {a.dtype}")
    code_bits = a.dtype.itemsize * 8
    codes = a.view(_uint(code_bits)).astype(np.uint64)
    if width(t) < t.bits and code_bits == t.bits:  # tf32: the format sits in the slot's top bits
        low = np.uint64((1 << (t.bits - width(t))) - 1)
        if (codes & low).any():
            raise ValueError(f"{what} holds tf32: float32 values need their low {t.bits - width(t)} bits zero; "
                             "round with ptxspec.values.to_tf32(x) or pass x.view(np.uint32) codes (the tensor "
                             "cores ignore the low bits: truncation)")
    elif not t.signed:  # ue4m3 from e4m3 values: the sign bit must be clear
        sign = np.uint64(1 << (code_bits - 1)) if code_bits > t.bits else np.uint64(0)
        if sign and (codes & sign).any():
            raise ValueError(f"{what} holds {t.name}, which has no sign: got negative values")
        codes &= np.uint64((1 << t.bits) - 1)
    return codes << np.uint64(_slot(t, slot_bits))


def _int_codes(t, a, slot_bits, what, hint) -> np.ndarray:
    if a.dtype == np.dtype(bool):
        if t.cls != "bit":
            raise TypeError(f"{what} holds {t.name}: {hint}")
        return a.astype(np.uint64)
    if a.dtype.kind == "V" and a.dtype.name in ("int4", "uint4"):
        a = a.astype(np.int8 if a.dtype.name == "int4" else np.uint8)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what} holds {t.name}: {hint}")
    lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.signed else (0, (1 << t.bits) - 1)
    v = a.astype(np.int64)
    if v.size and (int(v.min()) < lo or int(v.max()) > hi):
        bad = int(v.min()) if int(v.min()) < lo else int(v.max())
        raise ValueError(f"{what} holds {t.name} ({lo} to {hi}); got {bad}")
    return (v & ((1 << t.bits) - 1)).astype(np.uint64) << np.uint64(_slot(t, slot_bits))


def from_codes(t, codes, slot_bits: int) -> np.ndarray:
    """Raw codes (as `FragmentMap.unpack` returns them) -> values of dtype_of(t)."""
    c = np.asarray(codes).astype(np.uint64) >> np.uint64(_slot(t, slot_bits))
    c &= np.uint64((1 << t.bits) - 1) if t.bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    want = dtype_of(t)
    if t.cls == "bit" and t.bits == 1:
        return c.astype(bool)
    if t.cls != "float":
        if t.signed:
            s = c.astype(np.int64)
            s = np.where(s >> (t.bits - 1), s - (1 << t.bits), s)
            return s.astype(want)
        return c.astype(want)
    if width(t) < t.bits and want.itemsize * 8 == t.bits:  # tf32: clear the bits the format does not have
        c &= np.uint64(((1 << width(t)) - 1) << (t.bits - width(t)))
    return c.astype(_uint(want.itemsize * 8)).view(want)


def to_tf32(x) -> np.ndarray:
    """float32 values rounded to tf32 (to nearest, ties to even), as float32 with the low 13 bits zero."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    finite = (bits & 0x7F800000) != 0x7F800000
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    quiet = ((bits & 0x1FFF) != 0).astype(np.uint64) << np.uint64(13)  # a NaN whose payload was all low bits
    out = np.where(finite, rounded, (bits & 0xFFFFE000) | quiet)
    return out.astype(np.uint32).view(np.float32)
