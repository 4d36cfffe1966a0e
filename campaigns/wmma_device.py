"""Runs on the GPU machine (run_wmma.sh): drives every kernel of build/wmma through libwmma.so.

    python3 campaigns/wmma_device.py BUILD OUT.npz

Needs numpy only (no ptxspec, no spec): every input is made here from fixed seeds (SplitMix64,
campaigns/common.py, so check_wmma.py and the records test draw the same inputs without a
GPU), and every raw result is saved for check_wmma.py, which interprets it against the spec.

load   The buffer holds the matrix stored row- or column-major with leading dimension `ld` (the
       default, or with the stride operand the default plus a gap of one fragment's bytes). Memory
       element e holds its own index e: 16-bit slots e; 32-bit e * 0x10001 (the high half survives
       a load that cleared low bits); 64-bit e * 0x100000001; narrower elements take one digit of e
       per pass (pass p stores (e >> bits*p) & mask), so each register slot tells which memory
       element it came from. Saved: the output words of every pass.
store  Register slot (thread t, element i) holds t*E + i (the same widening); the buffer starts
       as 0xFF bytes. Saved: the buffer after the store.
mma    A, B, C registers drawn slot by slot from small exact alphabets (seeded; .tf32 also with
       random low 13 bits in case 1); saved: the inputs and the D words.
chain  Matrices A, B, C (row- or column-major as the variant's layouts, default strides) drawn
       from the same alphabets; the kernel loads them, multiplies, and returns every register.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import splitmix  # noqa: E402

SEED = "wmma-2026-11-22"
MMA_CASES = 4
CHAIN_CASES = 3


def seed_for(opcode: str, kind: str, case: int, operand: str) -> int:
    """The seed of one operand of one case: a stable hash of what it is."""
    key = f"{SEED}|{opcode}|{kind}|{case}|{operand}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little")


# --- element alphabets (raw codes) -------------------------------------------------------------
SMALL = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0]
ACC = [float(x) for x in range(-8, 9)] + [0.25, -0.25, 0.75, -4.5]


def bf16_code(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0] >> 16)


def codes(type_: str, role: str) -> np.ndarray:
    vals = SMALL if role == "ab" else ACC
    if type_ == "f16":
        return np.array(vals, np.float16).view(np.uint16).astype(np.uint64)
    if type_ == "bf16":
        return np.array([bf16_code(x) for x in vals], np.uint64)
    if type_ in ("f32", "tf32"):
        return np.array(vals, np.float32).view(np.uint32).astype(np.uint64)
    if type_ == "f64":
        return np.array(vals, np.float64).view(np.uint64)
    raise KeyError(type_)


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
        "b1": 1}


def draw(type_: str, role: str, count: int, seed: int, near_limit=False, junk=False) -> np.ndarray:
    """`count` raw element codes (uint64) of `type_`, from SplitMix64(seed): element j from word j.
    s32: moderate values, or (near_limit) within 2^19 of the s32 limits; sub-word integers and
    b1: every code; floats: the alphabet (`junk`: .tf32 with random low 13 bits, which it ignores)."""
    bits = BITS[type_]
    z = splitmix(seed, count)
    hi = (z >> np.uint64(32)).astype(np.int64)
    if type_ == "s32":
        if near_limit:
            lim = np.where(z & np.uint64(1), 2**31 - 1, -(2**31)).astype(np.int64)
            v = lim - np.sign(lim) * (hi % (1 << 19))
        else:
            v = hi % (1 << 21) - (1 << 20)
        return (v & 0xFFFFFFFF).astype(np.uint64)
    if type_ in ("s8", "u8", "s4", "u4", "b1"):
        return (hi % (1 << bits)).astype(np.uint64)
    alpha = codes(type_, role)
    out = alpha[hi % len(alpha)]
    if junk and type_ == "tf32":
        out = out | (z & np.uint64(0x1FFF))
    return out


def pack_slots(vals: np.ndarray, bits: int, words: int) -> np.ndarray:
    """Per-thread element codes (32, E) -> (32, words) uint32 words, low slots first."""
    vals = vals.astype(np.uint64)
    if bits == 64:
        lo = (vals & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        hi = (vals >> np.uint64(32)).astype(np.uint32)
        return np.stack([lo, hi], axis=-1).reshape(32, -1)[:, :words]
    per = 32 // bits
    v = vals.reshape(32, words, per)
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits))
    return (v << shifts).sum(axis=-1, dtype=np.uint64).astype(np.uint32)


def memory_bytes(elements: np.ndarray, bits: int) -> np.ndarray:
    """Element codes (flat, in memory order) -> bytes, little-endian, narrow elements low bits first."""
    e = elements.astype(np.uint64)
    if bits >= 8:
        dt = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
        return e.astype(dt).view(np.uint8)
    per = 8 // bits
    pad = (-len(e)) % per
    e = np.concatenate([e, np.zeros(pad, np.uint64)]).reshape(-1, per)
    shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    return (e << shifts).sum(axis=-1, dtype=np.uint64).astype(np.uint8)


def words_of(kern_frag: dict) -> int:
    return kern_frag["regs"] * (2 if kern_frag["wide"] else 1)


def leading(kern: dict) -> tuple[int, int]:
    """(major count, default ld) of the stored matrix."""
    rows, cols = kern["rows"], kern["cols"]
    return (rows, cols) if kern["layout"] == "row" else (cols, rows)


def gap(kern: dict) -> int:
    """Stride gap in elements: one fragment's bytes (per thread), at least 16 bytes."""
    frag_bytes = max(16, words_of(kern) * 4)
    return frag_bytes * 8 // kern["bits"]


class Lib:
    def __init__(self, path: Path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.wmma_launch.restype = ctypes.c_int
        self.lib.wmma_launch.argtypes = [ctypes.c_int] + [ctypes.c_void_p, ctypes.c_size_t] * 4 + \
            [ctypes.c_uint, ctypes.c_void_p, ctypes.c_size_t]
        if self.lib.wmma_init() != 0:
            raise SystemExit("wmma_init failed")

    def launch(self, idx, ins=(None, None, None), buf=None, stride=0, out_words=0):
        ins = [np.ascontiguousarray(x) if x is not None else None for x in ins]
        args = []
        for x in ins:
            args += [x.ctypes.data if x is not None else None, x.nbytes if x is not None else 0]
        if buf is not None:
            buf = np.ascontiguousarray(buf)
        out = np.zeros(max(out_words, 1), np.uint32)
        rc = self.lib.wmma_launch(idx, *args, buf.ctypes.data if buf is not None else None,
                                  buf.nbytes if buf is not None else 0, stride, out.ctypes.data, out_words * 4)
        return rc, buf, out[:out_words]


def run_load(lib, kern):
    major, ld0 = leading(kern)
    ld = ld0 + gap(kern) if kern["stride"] else ld0
    total = major * ld
    bits = kern["bits"]
    words = words_of(kern)
    e = np.arange(total, dtype=np.uint64)
    if bits >= 16:
        passes = 1
    else:
        passes = max(1, -(-int(total - 1).bit_length() // bits))
    outs = []
    for p in range(passes):
        if bits == 16:
            vals = e
        elif bits == 32:
            vals = e * np.uint64(0x10001)
        elif bits == 64:
            vals = e * np.uint64(0x100000001)
        else:
            vals = (e >> np.uint64(bits * p)) & np.uint64((1 << bits) - 1)
        mem = memory_bytes(vals, bits)
        mem = np.concatenate([mem, np.zeros((-len(mem)) % 4, np.uint8)]).view(np.uint32)
        rc, _, out = lib.launch(kern["index"], buf=mem, stride=ld, out_words=32 * words)
        if rc != 0:
            return {"rc": rc}
        outs.append(out.reshape(32, words))
    return {"rc": 0, "ld": ld, "passes": passes, "out": np.stack(outs)}


def run_store(lib, kern):
    major, ld0 = leading(kern)
    ld = ld0 + gap(kern) if kern["stride"] else ld0
    total = major * ld
    bits = kern["bits"]
    words = words_of(kern)
    per_thread = words * 32 // bits if bits < 64 else words // 2
    code = np.arange(32 * per_thread, dtype=np.uint64).reshape(32, per_thread)
    if bits == 32:
        code = code * np.uint64(0x10001)
    elif bits == 64:
        code = code * np.uint64(0x100000001)
    regs = pack_slots(code, bits, words)
    nbytes = -(-total * bits // 8)
    buf = np.full((nbytes + 3) // 4, 0xFFFFFFFF, np.uint32)
    rc, buf, _ = lib.launch(kern["index"], ins=(regs, None, None), buf=buf, stride=ld)
    if rc != 0:
        return {"rc": rc}
    return {"rc": 0, "ld": ld, "in": regs, "buf": buf}


def frag_slots(f: dict, type_: str) -> int:
    bits = BITS[type_]
    return f["regs"] if bits == 64 else f["regs"] * 32 // bits


def run_mma(lib, kern):
    fr, ty = kern["frags"], kern["types"]
    cases = []
    for c in range(MMA_CASES):
        regs = {}
        for x in "abc":
            n = frag_slots(fr[x], ty[x])
            vals = draw(ty[x], "ab" if x != "c" else "acc", 32 * n, seed_for(kern["opcode"], "mma", c, x),
                        near_limit=(c == MMA_CASES - 1), junk=(c == 1))
            regs[x] = pack_slots(vals.reshape(32, n), BITS[ty[x]], words_of(fr[x]))
        rc, _, out = lib.launch(kern["index"], ins=(regs["a"], regs["b"], regs["c"]), out_words=32 * words_of(fr["d"]))
        if rc != 0:
            return {"rc": rc}
        cases.append({**regs, "d": out.reshape(32, -1)})
    return {"rc": 0, "cases": cases}


def matrix_memory(mat: np.ndarray, layout: str, bits: int) -> np.ndarray:
    flat = (mat if layout == "row" else mat.T).ravel()
    mem = memory_bytes(flat, bits)
    return np.concatenate([mem, np.zeros((-len(mem)) % 4, np.uint8)]).view(np.uint32)


def run_chain(lib, kern):
    fr, ty = kern["frags"], kern["types"]
    m, n, k = kern["shape"]
    lay = {"a": kern["alayout"], "b": kern["blayout"], "c": "row"}
    dims = {"a": (m, k), "b": (k, n), "c": (m, n)}
    cases = []
    for c in range(CHAIN_CASES):
        mats, mems = {}, {}
        for x in "abc":
            r, cc = dims[x]
            mats[x] = draw(ty[x], "ab" if x != "c" else "acc", r * cc, seed_for(kern["opcode"], "chain", c, x),
                           near_limit=(c == CHAIN_CASES - 1)).reshape(r, cc)
            mems[x] = matrix_memory(mats[x], lay[x], BITS[ty[x]])
        total = sum(32 * words_of(fr[x]) for x in "abcd")
        rc, _, out = lib.launch(kern["index"], ins=(mems["a"], mems["b"], mems["c"]), out_words=total)
        if rc != 0:
            return {"rc": rc}
        res, off = {}, 0
        for x in "abcd":
            w = 32 * words_of(fr[x])
            res[x] = out[off:off + w].reshape(32, -1)
            off += w
        cases.append({"mats": mats, "regs": res})
    return {"rc": 0, "cases": cases}


def main(argv):
    build, out_path = Path(argv[1]), Path(argv[2])
    plan = json.loads((build / "kernels.json").read_text())
    lib = Lib(build / "libwmma.so")
    saved = {}
    t0 = time.time()
    fails = 0
    for kern in plan["kernels"]:
        fn = {"load": run_load, "store": run_store, "mma": run_mma, "chain": run_chain}[kern["kind"]]
        res = fn(lib, kern)
        i = kern["index"]
        saved[f"k{i}_rc"] = np.array(res["rc"])
        if res["rc"] != 0:
            fails += 1
            print(f"kernel {i} {kern['kind']} {kern['opcode']}: rc {res['rc']}", flush=True)
            continue
        if kern["kind"] == "load":
            saved[f"k{i}_out"] = res["out"]
            saved[f"k{i}_ld"] = np.array(res["ld"])
        elif kern["kind"] == "store":
            saved[f"k{i}_buf"] = res["buf"]
            saved[f"k{i}_in"] = res["in"]
            saved[f"k{i}_ld"] = np.array(res["ld"])
        elif kern["kind"] == "mma":
            for c, case in enumerate(res["cases"]):
                for x in "abcd":
                    saved[f"k{i}_c{c}_{x}"] = case[x]
        else:
            for c, case in enumerate(res["cases"]):
                for x in "abc":
                    saved[f"k{i}_c{c}_m{x}"] = case["mats"][x]
                for x in "abcd":
                    saved[f"k{i}_c{c}_{x}"] = case["regs"][x]
    np.savez_compressed(out_path, **saved)
    print(f"{len(plan['kernels'])} kernels, {fails} failed, {time.time() - t0:.1f} s", flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
