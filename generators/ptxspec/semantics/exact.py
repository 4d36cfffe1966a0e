"""Exact products: integers and bits (wrapped or saturated sums) and f64 (a chain of correctly
rounded fused multiply-adds)."""
from __future__ import annotations

from ptxspec.core.lazy import np

from ptxspec.core.formats import decode


def _int_values(spec, t, codes) -> np.ndarray:
    """float64 values of integer or bit codes (8-bit codes through a view of their bytes)."""
    T = spec.types[t]
    c = np.asarray(codes)
    if T.bits == 8:
        return c.astype(np.uint8).view(np.int8 if T.signed else np.uint8).astype(np.float64)
    return decode(spec, t, c).astype(np.float64)


def integer_mma(spec, a_codes, b_codes, c_codes, atype, btype, ctype, satfinite: bool, op: str = "",
                scale_d: int = 1) -> np.ndarray:
    """Exact C + A.B (or popc of AND/XOR for b1), wrapped to s32 or clamped once with .satfinite;
    s32 codes (uint32)."""
    a = _int_values(spec, atype, a_codes)
    b = _int_values(spec, btype, b_codes)
    if op.startswith("xor"):
        ones_b = np.ones(b.shape[-2:], np.float64)
        ones_a = np.ones(a.shape[-2:], np.float64)
        prod = a @ ones_b + ones_a @ b - 2 * (a @ b)
    else:
        prod = a @ b  # exact: every partial sum is an integer far below 2^53
    d = prod.astype(np.int64)
    if scale_d:
        c = np.asarray(c_codes)
        if spec.types[ctype].bits == 32 and spec.types[ctype].signed:
            c = c.astype(np.uint32, copy=False).view(np.int32)  # s32 codes: a view, no decoding pass
        else:
            c = _int_values(spec, ctype, c).astype(np.int64)
        d += c
    if satfinite:
        np.clip(d, -(1 << 31), (1 << 31) - 1, out=d)
    return d.astype(np.uint32)  # two's-complement wrap modulo 2^32


def _f64_parts(code: int):
    neg = code >> 63
    ex = (code >> 52) & 0x7FF
    man = code & ((1 << 52) - 1)
    if ex == 0x7FF:
        return None
    if ex == 0:
        m, e = man, -1074
    else:
        m, e = man | (1 << 52), ex - 1075
    return (-m if neg else m), e


def _round_f64(S: int, e: int, mode: str) -> int:
    """Code of S * 2^e rounded to f64 (S a Python int); S == 0 -> +0."""
    if S == 0:
        return 0
    neg = S < 0
    A = -S if neg else S
    L = A.bit_length()
    E = e + L - 1
    Eq = max(E, -1022)
    q = Eq - 52
    sh = q - e
    if sh <= 0:
        R = A << -sh
    else:
        R = A >> sh
        rem = A - (R << sh)
        if rem:
            half = 1 << (sh - 1)
            if mode == "rn":
                up = rem > half or (rem == half and R & 1)
            elif mode == "rz":
                up = False
            elif mode == "rp":
                up = not neg
            elif mode == "rm":
                up = neg
            else:
                raise ValueError(mode)
            R += up
    code = ((Eq + 1022) << 52) + R
    if code >= 0x7FF << 52 or E > 1023:
        if mode == "rz" or (mode == "rp" and neg) or (mode == "rm" and not neg):
            code = (0x7FF << 52) - 1  # directed rounding away from the overflow keeps the largest finite
        else:
            code = 0x7FF << 52
    return code | (int(neg) << 63)


F64_NAN = 0xFFF8000000000000  # the NaN an invalid operation (Inf - Inf, 0 x Inf) makes


F64_QUIET = 1 << 51


def fma_f64(a: int, b: int, c: int, mode: str = "rn") -> int:
    """Correctly rounded fused a*b + c of f64 codes (Python ints)."""
    pa, pb, pc = _f64_parts(a), _f64_parts(b), _f64_parts(c)
    if pa is None or pb is None or pc is None:
        for x in (b, c, a):  # a NaN operand propagates, quieted: B's first, then the accumulator's, then A's
            if (x >> 52) & 0x7FF == 0x7FF and x & ((1 << 52) - 1):
                return x | F64_QUIET
        fa, fb, fc = (float(np.array([x], np.uint64).view(np.float64)[0]) for x in (a, b, c))
        if pa is not None and pb is not None:  # finite product, infinite c
            r = fc
        else:
            r = fa * fb + fc  # an infinite factor: inf * 0 and inf - inf are NaN, as in IEEE
        if r != r:
            return F64_NAN
        return int(np.array([r], np.float64).view(np.uint64)[0])
    (ma, ea), (mb, eb), (mc, ec) = pa, pb, pc
    P, ep = ma * mb, ea + eb
    if P == 0 and mc == 0:  # signed zeros: IEEE rules
        pneg = (a >> 63) ^ (b >> 63)
        cneg = c >> 63
        if pneg and cneg:
            return 1 << 63
        return (1 << 63) if (mode == "rm" and (pneg or cneg)) else 0
    lo = min(ep, ec)
    S = (P << (ep - lo)) + (mc << (ec - lo))
    if S == 0:
        return (1 << 63) if mode == "rm" else 0
    return _round_f64(S, lo, mode)


def f64_chain(a_codes, b_codes, c_codes, mode: str = "rn") -> np.ndarray:
    """D[m, n] = fma(a[m, K-1], b[K-1, n], ... fma(a[m, 0], b[0, n], c[m, n])) in k order."""
    a = np.asarray(a_codes, dtype=np.uint64)
    b = np.asarray(b_codes, dtype=np.uint64)
    c = np.asarray(c_codes, dtype=np.uint64)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    d = np.broadcast_to(c, batch + c.shape[-2:]).copy()
    M, K = a.shape[-2:]
    N = b.shape[-1]
    al, bl, dl = a.reshape(-1, M, K).tolist(), b.reshape(-1, K, N).tolist(), d.reshape(-1, M, N).tolist()
    for x in range(len(dl)):
        ax, bx, dx = al[x], bl[x], dl[x]
        for i in range(M):
            row = dx[i]
            for j in range(N):
                acc = row[j]
                for k in range(K):
                    acc = fma_f64(ax[i][k], bx[k][j], acc, mode)
                row[j] = acc
    return np.asarray(dl, dtype=np.uint64).reshape(d.shape)
