"""What the wmma device campaign must have returned, computed from the spec (no GPU).

Shared by check_wmma.py (compares a run's raw results) and tests/test_device_records_wmma.py
(replays evidence/records/wmma-*.json). Each function takes one record entry, whose inputs
wmma_device.py made from fixed rules and seeds, and returns the registers or memory the H100
must have produced if the current spec's fragment maps are right:

load   memory element e holds a code of e; register slot (t, i) must hold the code of the element
       the map puts there: (row, col) -> e = row * ld + col (.row) or col * ld + row (.col). Every
       copy of a replicated fragment is checked.
store  slot (t, i) holds a code of (t, i); memory must hold it where the map puts (t, i), and the
       fill pattern everywhere else (gaps of a stride included).
mma    random A, B, C registers, read through the maps (a replicated fragment: its first copy),
       multiplied exactly (the inputs are small exact values, so order and rounding do not
       matter), D packed back through its map.
chain  random A, B, C matrices in memory, loaded by the hardware: the loaded registers must be the
       matrices packed by the maps (every copy), and D as for mma.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import wmma_device as W  # noqa: E402
from common import canonical, digest  # noqa: E402

BITS = W.BITS


def _words(regs: np.ndarray, bits: int) -> np.ndarray:
    """(32, regs) uint32 or uint64 registers -> (32, words) uint32 (a 64-bit register: low, high)."""
    regs = np.asarray(regs)
    if bits == 64:
        r = regs.astype(np.uint64)
        lo = (r & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        hi = (r >> np.uint64(32)).astype(np.uint32)
        return np.stack([lo, hi], axis=-1).reshape(regs.shape[0], -1)
    return regs.astype(np.uint32)


def _regs(words: np.ndarray, bits: int) -> np.ndarray:
    words = np.asarray(words, dtype=np.uint32)
    if bits == 64:
        w = words.astype(np.uint64).reshape(words.shape[0], -1, 2)
        return w[..., 0] | (w[..., 1] << np.uint64(32))
    return words


def fragment_operand(v):
    return next(o for o in v.operands if o.kind == "fragment")


def memory_index(v, matrix: str, ld: int) -> np.ndarray:
    """(rows, cols) memory element index of each matrix element, for the variant's .layout."""
    fm = v.fragment_map(matrix)
    r = np.arange(fm.rows)[:, None]
    c = np.arange(fm.cols)[None, :]
    return r * ld + c if v.qualifiers["layout"] == "row" else c * ld + r


def widen(codes: np.ndarray, bits: int) -> np.ndarray:
    codes = codes.astype(np.uint64)
    if bits == 32:
        return codes * np.uint64(0x10001)
    if bits == 64:
        return codes * np.uint64(0x100000001)
    return codes


def expected_load(spec, entry) -> np.ndarray:
    """(passes, 32, words) uint32."""
    v = spec.variant(entry["opcode"])
    o = fragment_operand(v)
    bits = BITS[o.element_type]
    e = memory_index(v, o.matrix, entry["ld"]).astype(np.uint64)
    out = []
    for p in range(entry["passes"]):
        vals = widen(e, bits) if bits >= 16 else (e >> np.uint64(bits * p)) & np.uint64((1 << bits) - 1)
        out.append(_words(v.pack(o.matrix, vals), bits))
    return np.stack(out)


def store_inputs(v) -> tuple[np.ndarray, int]:
    o = fragment_operand(v)
    bits = BITS[o.element_type]
    words = o.regs * (2 if bits == 64 else 1)
    per_thread = words * 32 // bits if bits < 64 else words // 2
    codes = widen(np.arange(32 * per_thread, dtype=np.uint64).reshape(32, per_thread), bits)
    return W.pack_slots(codes, bits, words), bits


def expected_store(spec, entry) -> np.ndarray:
    """The buffer words after the store."""
    v = spec.variant(entry["opcode"])
    o = fragment_operand(v)
    regs, bits = store_inputs(v)
    mat = v.unpack(o.matrix, _regs(regs, bits)).astype(np.uint64)
    fm = v.fragment_map(o.matrix)
    major = fm.rows if v.qualifiers["layout"] == "row" else fm.cols
    total = major * entry["ld"]
    mem = np.full(total, (1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
    mem[memory_index(v, o.matrix, entry["ld"]).ravel()] = mat.ravel()
    nbytes = -(-total * bits // 8)
    buf = np.full((nbytes + 3) // 4 * 4, 0xFF, np.uint8)
    buf[:nbytes] = W.memory_bytes(mem, bits)[:nbytes]
    return buf.view(np.uint32)


# --- exact arithmetic of wmma.mma on small exact inputs -----------------------------------------
def decode(codes: np.ndarray, t: str) -> np.ndarray:
    c = np.asarray(codes).astype(np.uint64)
    if t == "f16":
        return c.astype(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return (c.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if t in ("f32", "tf32"):
        w = c.astype(np.uint32)
        if t == "tf32":
            w = w & np.uint32(0xFFFFE000)  # the tensor core reads the top 19 bits
        return w.view(np.float32).astype(np.float64)
    if t == "f64":
        return c.view(np.float64)
    bits, v = BITS[t], c.astype(np.int64)
    if t in ("s8", "s4", "s32"):
        v = np.where(v >= (1 << (bits - 1)), v - (1 << bits), v)
    return v


def encode(x: np.ndarray, t: str) -> np.ndarray:
    if t == "f16":
        return np.asarray(x, np.float16).view(np.uint16).astype(np.uint64)
    if t == "f32":
        return np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    if t == "f64":
        return np.asarray(x, np.float64).view(np.uint64)
    return (np.asarray(x, np.int64) & 0xFFFFFFFF).astype(np.uint64)


def product(v, A, B, C) -> np.ndarray:
    """D = A*B + C exactly (integer forms wrap or saturate; b1 by popc), as raw D codes."""
    if v.atype == "b1":
        a, b = A.astype(np.int64), B.astype(np.int64)
        bit = (a[:, :, None] ^ b[None, :, :]) if v.op == "xor.popc" else (a[:, :, None] & b[None, :, :])
        d = C + bit.sum(axis=1)
    elif v.dtype == "s32":
        d = A.astype(np.int64) @ B.astype(np.int64) + C
    else:
        d = A @ B + C  # small exact values: every partial sum is exact in float64 and in the output type
    if v.dtype == "s32":
        d = np.asarray(d, np.int64)
        d = np.clip(d, -2**31, 2**31 - 1) if v.satfinite else d
    return encode(d, v.dtype)


def expected_d(spec, v, a_words, b_words, c_words) -> np.ndarray:
    mats = {}
    for x, w in (("a", a_words), ("b", b_words), ("c", c_words)):
        t = {"a": v.atype, "b": v.btype, "c": v.ctype}[x]
        mats[x] = decode(v.unpack(x, _regs(w, BITS[t])), t)
    d = product(v, mats["a"], mats["b"], mats["c"])
    return canonical(spec, v, _words(v.pack("d", d), BITS[v.dtype]))


def mma_inputs(v, case: int) -> dict:
    """The register words wmma_device.run_mma drew for this case."""
    out = {}
    for x in "abc":
        o = v.operand(x)
        t = o.element_type
        bits = BITS[t]
        n = o.regs if bits == 64 else o.regs * 32 // bits
        vals = W.draw(t, "ab" if x != "c" else "acc", 32 * n, W.seed_for(v.ptx, "mma", case, x),
                      near_limit=(case == W.MMA_CASES - 1), junk=(case == 1))
        out[x] = W.pack_slots(vals.reshape(32, n), bits, o.regs * (2 if bits == 64 else 1))
    return out


def chain_matrices(v, case: int) -> dict:
    dims = {"a": (v.m, v.k), "b": (v.k, v.n), "c": (v.m, v.n)}
    out = {}
    for x in "abc":
        t = v.operand(x).element_type
        out[x] = W.draw(t, "ab" if x != "c" else "acc", dims[x][0] * dims[x][1], W.seed_for(v.ptx, "chain", case, x),
                        near_limit=(case == W.CHAIN_CASES - 1)).reshape(dims[x])
    return out


def expected_chain(spec, v, case: int) -> dict:
    """The A, B, C registers the loads must produce and the D of the multiply (words)."""
    mats = chain_matrices(v, case)
    regs = {x: _words(v.pack(x, mats[x]), BITS[v.operand(x).element_type]) for x in "abc"}
    regs["d"] = expected_d(spec, v, regs["a"], regs["b"], regs["c"])
    return regs


def replay(spec, entry) -> bool:
    """Does the current spec reproduce this record entry's hardware digests?"""
    kind = entry["kind"]
    if kind == "load":
        return digest(expected_load(spec, entry)) == entry["digest"]
    if kind == "store":
        return digest(expected_store(spec, entry)) == entry["digest"]
    v = spec.variant(entry["opcode"])
    if kind == "mma":
        regs = mma_inputs(v, entry["case"])
        return digest(expected_d(spec, v, regs["a"], regs["b"], regs["c"])) == entry["digest"]
    if kind == "chain":
        regs = expected_chain(spec, v, entry["case"])
        return all(digest(regs[x]) == entry[f"digest_{x}"] for x in "abcd")
    raise ValueError(f"unknown record kind {kind!r}")
