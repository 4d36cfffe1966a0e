"""Per-lane values as formulas: a base plus one term per set bit of the lane, of the instruction
`i` and of the warp (the form every movement and fragment map has), rendered as bit fields, e.g.
`(lane & 7) + 8*((lane >> 3) & 1)`. The fragment loaders state each lane's row address so.
"""
from __future__ import annotations

from ptxspec.core.lazy import np

__all__ = ["LANES", "bit_formula"]

LANES = 32  # threads of a warp


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
