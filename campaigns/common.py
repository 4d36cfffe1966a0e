"""Pieces shared by the device harnesses (wgmma_harness.py, mma_harness.py)."""
from __future__ import annotations

import hashlib

import numpy as np


def splitmix(seed: int, count: int) -> np.ndarray:
    """`count` 64-bit words of SplitMix64 from `seed` (the same generator runs in the .cu hosts)."""
    j = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + j * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def canonical(spec, v, words) -> np.ndarray:
    """D register words with float -0 turned into +0 (the sign of an exact zero sum is not compared)."""
    w = np.asarray(words, dtype=np.uint32).copy()
    t = spec.types[v.dtype]
    if t.cls != "float":
        return w
    if t.bits == 64:
        r = w.view(np.uint64)
        r[r == np.uint64(1 << 63)] = 0
        return r.view(np.uint32).reshape(w.shape)
    if t.bits == 32:
        w[w == 0x80000000] = 0
        return w
    lo, hi = w & 0xFFFF, w >> 16
    lo[lo == 0x8000] = 0
    hi[hi == 0x8000] = 0
    return (lo | (hi << 16)).astype(np.uint32)


def digest(words) -> str:
    return hashlib.sha256(np.ascontiguousarray(words, dtype="<u4").tobytes()).hexdigest()[:32]
