"""Exact decoding and encoding of element codes, from the formats in spec/types.yaml (decoding on
numpy's and ml_dtypes' types, with the format formula kept as their cross-check).

Every float format is described by its exponent and mantissa widths, bias and special-value
rule (`ieee`: Inf/NaN at the top exponent; `nan_only`: only the all-ones code is NaN; `none`:
every code finite). A format narrower than its slot (tf32 in a 32-bit register) occupies the
slot's top bits; the low bits are ignored, as the tensor cores ignore them.
"""
from __future__ import annotations

from ptxspec.core.lazy import np

from ptxspec.core.values import dtype_of, from_codes

#: (exponent, mantissa) widths -> the numpy float type of that IEEE format and its unsigned code type
_NUMPY_FLOAT = {(11, 52): ("float64", "uint64"), (8, 23): ("float32", "uint32"), (5, 10): ("float16", "uint16")}


def decode(spec, tname: str, codes) -> np.ndarray:
    """Raw codes -> exact values: float64 for float types, int64 for integer and bit types.

    Float formats decode through the numpy or ml_dtypes type that holds them (ptxspec.values);
    `decode_formula` is the same from the format's parameters alone, kept as the cross-check
    (tests/test_formats.py: the two agree on every code of every format of 8 bits or fewer)."""
    t = spec.types[tname]
    if t.cls == "float":
        try:
            dtype_of(t)
        except TypeError:  # a format no numpy or ml_dtypes type holds
            return decode_formula(spec, tname, codes)
        with np.errstate(invalid="ignore"):  # signalling NaNs become quiet ones, as NaN they stay
            return from_codes(t, codes, t.bits).astype(np.float64)
    return decode_formula(spec, tname, codes)


def decode_formula(spec, tname: str, codes) -> np.ndarray:
    """decode, computed from the format's exponent and mantissa widths, bias and special values."""
    t = spec.types[tname]
    c = np.asarray(codes).astype(np.uint64)
    if t.cls != "float":
        c = c.astype(np.int64) & ((1 << t.bits) - 1)
        if t.signed:
            c = np.where(c >> (t.bits - 1), c - (1 << t.bits), c)
        return c
    f = t.format
    e, m, bias = f["exponent"], f["mantissa"], f["bias"]
    if (e, m) == (11, 52):
        return c.view(np.float64).copy()
    s_bits = 1 if t.signed else 0  # unsigned formats (ue8m0, ue4m3 scale factors) have no sign bit
    c = (c >> np.uint64(t.bits - (s_bits + e + m))).astype(np.int64)
    sign = (c >> (e + m)) & s_bits
    ex = (c >> m) & ((1 << e) - 1)
    man = c & ((1 << m) - 1)
    if m == 0:  # an exponent-only format (ue8m0) has no subnormals and no zero: code 0 is 2^-bias
        val = 2.0 ** (ex - bias)
    else:
        val = np.where(ex == 0, man * 2.0 ** (1 - bias - m), (1.0 + man / 2.0 ** m) * 2.0 ** (ex - bias))
    top = (1 << e) - 1
    if f["specials"] == "ieee":
        val = np.where(ex == top, np.where(man == 0, np.inf, np.nan), val)
    elif f["specials"] == "nan_only":
        val = np.where((ex == top) & (man == (1 << m) - 1), np.nan, val)
    return np.where(sign == 1, -val, val)


def encode_exact(spec, tname: str, values) -> np.ndarray:
    """Exact values -> raw codes (uint64) of f64, f32, f16 or an integer type; raises ValueError
    when a value is not exactly representable (this is no rounding conversion)."""
    t = spec.types[tname]
    v = np.asarray(values)
    if t.cls != "float":
        return (v.astype(np.int64) & ((1 << t.bits) - 1)).astype(np.uint64)
    key = (t.format["exponent"], t.format["mantissa"])
    if key not in _NUMPY_FLOAT or t.bits != np.dtype(_NUMPY_FLOAT[key][0]).itemsize * 8:
        raise ValueError(f"exact encoding into {tname} is not supported")
    ftype, utype = _NUMPY_FLOAT[key]
    with np.errstate(over="ignore"):
        out = v.astype(ftype)
    same = out.astype(np.float64) == v.astype(np.float64)
    if not np.all(same | (np.isnan(out) & np.isnan(v))):
        bad = tuple(np.argwhere(~same)[0])
        raise ValueError(f"value {v[bad]} at {bad} is not exact in {tname}")
    return out.view(utype).astype(np.uint64)


def all_codes(spec, tname: str, max_bits: int = 20) -> np.ndarray:
    """Every distinct code of a type (formats narrower than their slot: top bits, low bits 0)."""
    t = spec.types[tname]
    width = int(t.signed) + t.format["exponent"] + t.format["mantissa"] if t.cls == "float" else t.bits
    if width > max_bits:
        raise ValueError(f"{tname} has {width} significant bits; more than {max_bits} to enumerate")
    return np.arange(1 << width, dtype=np.uint64) << np.uint64(t.bits - width)
