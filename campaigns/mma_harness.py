"""The mma device harness: cases, their register inputs, and the exact expected D from the spec.

A *case* runs one warp-level `mma` (a kernel: variant + the immediates it has, e.g. a sparsity
selector) once, on one warp, with given registers: A, B, C (and the metadata register where the
variant has one). The hardware returns the D registers of every thread.

Each operand's registers are either *random*, drawn slot by slot from an *alphabet* (a list of
element codes) by a counter-based hash of a seed, or *explicit* (directed cases: a selection
matrix packed with `variant.pack`, zeros). A random operand does not depend on the spec at all:
every element slot of every register gets a code (slot j of the operand's registers, thread
major, register, then low bits first), so a case made only of random operands is reproducible from
its seeds forever, and its expected output depends only on how the *current* spec reads those
registers: the fragment maps of A, B, C and D (`variant.unpack`), the element formats and the
operation (`.satfinite`, `.and.popc`/`.xor.popc`). Unpacking random registers through a map is
the same bijection as packing a random matrix with it, so the proof is the same.
`tests/test_device_records.py` recomputes the digests of the recorded cases from the current spec;
the records of directed cases carry their explicit registers as raw words, which replay the same
way (only what those words *meant* when they were made depends on the spec of that day).

Registers travel as 32-bit words, (threads, words) per operand: a 64-bit register (.f64) is two
words, low first.

The hash: z = seed + (j + 1) * 0x9E3779B97F4A7C15, then the splitmix64 finaliser; slot j holds
alphabet[(z >> 32) % len(alphabet)] ^ (z & junk_mask) (the same as wgmma_harness.py).

Note: the registers are all a program can see, so the maps are proven up to a common relabelling
of the rows of A, C and D, of the columns of B, C and D, and of K in A and B; the spec's indexing
is the manual's convention for that relabelling, and every other choice is refuted.
"""
from __future__ import annotations

import base64
import struct
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "generators") not in sys.path:
    sys.path.insert(0, str(ROOT / "generators"))

import ptxspec  # noqa: E402,F401 - re-exported for the checker and the records test
from ptxspec.core.formats import all_codes  # noqa: E402,F401
from ptxspec.core.formats import decode as decode_values  # noqa: E402
from ptxspec.core.formats import encode_exact as encode_values  # noqa: E402
from ptxspec.semantics import sparse as sparse_mod  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import canonical, digest, splitmix  # noqa: E402,F401

THREADS = 32
MAGIC_IN = 0x49414D4D  # "MMAI"
MAGIC_OUT = 0x4F414D4D  # "MMAO"
INPUTS = ("a", "b", "c", "meta")  # the register operands a case provides, in file order


# ---------------------------------------------------------------------------------------------
# The hash and random operands





@dataclass
class Draw:
    """A random operand: `words` 32-bit words per thread, filled slot by slot."""

    seed: int
    slot_bits: int  # 1, 4, 8, 16, 32 or 64
    junk_mask: int
    alphabet: str  # name (records) ...
    codes: tuple = ()  # ... and its codes

    def materialize(self, words: int) -> np.ndarray:
        """(THREADS, words) uint32."""
        nbits = THREADS * words * 32
        if nbits % self.slot_bits:
            raise ValueError("operand size is not a whole number of slots")
        n = nbits // self.slot_bits
        z = splitmix(self.seed, n)
        alpha = np.asarray(self.codes, dtype=np.uint64)
        vals = alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))] ^ (z & np.uint64(self.junk_mask))
        if self.slot_bits == 64:
            return vals.view(np.uint32).reshape(THREADS, words).copy()  # little-endian: low word first
        vals = vals & np.uint64((1 << self.slot_bits) - 1)
        per = 32 // self.slot_bits
        sh = np.arange(per, dtype=np.uint64) * np.uint64(self.slot_bits)
        w = (vals.reshape(-1, per) << sh).sum(axis=1, dtype=np.uint64).astype(np.uint32)
        return w.reshape(THREADS, words)

    def as_record(self) -> list:
        return [self.seed, self.slot_bits, self.junk_mask, self.alphabet]


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    index: int
    kernel: int  # index into the campaign's kernel list (-1 for a case rebuilt from a record)
    variant_id: str
    imm: dict  # immediates of the kernel (e.g. the sparsity selector), by operand name
    words: dict  # operand -> 32-bit words per thread (a, b, c, d, meta; 0 where absent)
    draws: dict  # operand -> Draw (random operands)
    data: dict = field(default_factory=dict)  # operand -> explicit (THREADS, words) uint32
    kind: str = "random"
    note: str = ""

    def spec_independent(self) -> bool:
        return not self.data

    def materialize(self) -> dict:
        out = {}
        for name in INPUTS:
            w = self.words.get(name, 0)
            if not w:
                continue
            if name in self.data:
                arr = np.asarray(self.data[name], dtype=np.uint32).reshape(THREADS, w)
            elif name in self.draws:
                arr = self.draws[name].materialize(w)
            else:
                arr = np.zeros((THREADS, w), np.uint32)
            out[name] = arr
        return out

    def as_record(self) -> dict:
        """Seeds and alphabets of the random operands; explicit operands as their raw words
        (zlib + base64: fixed register contents, so the record replays under any later spec)."""
        rec = {"index": self.index, "variant": self.variant_id, "imm": self.imm, "words": self.words,
               "kind": self.kind, "note": self.note,
               "draws": {k: d.as_record() for k, d in self.draws.items()}}
        if self.data:
            rec["data"] = {k: base64.b64encode(zlib.compress(np.ascontiguousarray(a, dtype="<u4").tobytes(), 9))
                           .decode() for k, a in self.data.items()}
        return rec

    @staticmethod
    def from_record(rec: dict, alphabets: dict) -> "Case":
        draws = {k: Draw(seed, sb, jm, name, tuple(alphabets[name]))
                 for k, (seed, sb, jm, name) in rec["draws"].items()}
        data = {k: np.frombuffer(zlib.decompress(base64.b64decode(x)), dtype="<u4").astype(np.uint32).reshape(
            THREADS, rec["words"][k]) for k, x in rec.get("data", {}).items()}
        return Case(rec["index"], -1, rec["variant"], dict(rec["imm"]), dict(rec["words"]), draws, data,
                    rec["kind"], rec.get("note", ""))


def find_operand(v, name: str):
    """The operand a, b, c or d (by name), or meta (the operand of kind metadata); None if absent."""
    for o in v.operands:
        if (o.kind == "metadata") if name == "meta" else (o.name == name):
            return o
    return None


def operand_words(v, name: str) -> int:
    """32-bit words per thread of a register operand (0 when the variant has none)."""
    o = find_operand(v, name)
    return 0 if o is None else o.regs * (2 if o.reg_type.endswith("64") else 1)


def regs_of(v, name: str, words: np.ndarray) -> np.ndarray:
    """(THREADS, words) uint32 -> the register array `variant.unpack` takes (uint64 for 64-bit)."""
    o = v.operand(name)
    w = np.ascontiguousarray(words, dtype=np.uint32)
    if o.reg_type.endswith("64"):
        return w.view(np.uint64).reshape(THREADS, o.regs)
    return w


def words_of(regs) -> np.ndarray:
    """Registers from `variant.pack` (uint32, or uint64 for 64-bit) -> (THREADS, words) uint32."""
    r = np.ascontiguousarray(regs)
    if r.dtype == np.uint64:
        return r.view(np.uint32).reshape(r.shape[0], -1)
    return r.astype(np.uint32)


# ---------------------------------------------------------------------------------------------
# Input and output files (gen_mma.py writes the inputs, mma_host.cu reads them and writes D)
#
# in:  u32 magic, version, nkernels; per kernel: u32 kernel, ncases, words a, b, c, meta, d,
#      then ncases x THREADS x words u32 for a, b, c, meta in turn.
# out: u32 magic, nkernels; per kernel: u32 kernel, ncases, words d, status (cudaError_t),
#      then ncases x THREADS x words d u32.


def write_inputs(path: Path, kernels: list[dict], cases: list[Case]):
    by_kernel = {}
    for c in cases:
        by_kernel.setdefault(c.kernel, []).append(c)
    out = bytearray(struct.pack("<III", MAGIC_IN, 1, len(by_kernel)))
    for kid in sorted(by_kernel):
        cs = by_kernel[kid]
        w = cs[0].words
        out += struct.pack("<IIIIIII", kid, len(cs), w["a"], w["b"], w["c"], w.get("meta", 0), w["d"])
        mats = [c.materialize() for c in cs]
        for name in INPUTS:
            if w.get(name, 0):
                out += np.stack([m[name] for m in mats]).astype("<u4").tobytes()
    Path(path).write_bytes(bytes(out))


def read_inputs(path: Path) -> dict[int, dict[str, np.ndarray]]:
    """kernel -> {operand: (ncases, THREADS, words) uint32}: exactly what was sent."""
    buf = Path(path).read_bytes()
    magic, _ver, nk = struct.unpack_from("<III", buf, 0)
    assert magic == MAGIC_IN, "not an mma input file"
    pos, out = 12, {}
    for _ in range(nk):
        kid, n, wa, wb, wc, wm, wd = struct.unpack_from("<IIIIIII", buf, pos)
        pos += 28
        arrays = {}
        for name, w in zip(INPUTS, (wa, wb, wc, wm)):
            if w:
                arrays[name] = np.frombuffer(buf, dtype="<u4", count=n * THREADS * w, offset=pos).reshape(
                    n, THREADS, w).astype(np.uint32)
                pos += 4 * n * THREADS * w
        out[kid] = arrays
    assert pos == len(buf), "trailing bytes in the input file"
    return out


def read_outputs(path: Path) -> dict[int, tuple[int, np.ndarray]]:
    """kernel -> (status, D words (ncases, THREADS, words)); a .gz file is decompressed."""
    buf = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        import gzip
        buf = gzip.decompress(buf)
    magic, nk = struct.unpack_from("<II", buf, 0)
    assert magic == MAGIC_OUT, "not an mma output file"
    pos, out = 8, {}
    for _ in range(nk):
        kid, n, wd, status = struct.unpack_from("<IIII", buf, pos)
        pos += 16
        d = np.frombuffer(buf, dtype="<u4", count=n * THREADS * wd, offset=pos).reshape(n, THREADS, wd).copy()
        pos += 4 * d.size
        out[kid] = (status, d)
    assert pos == len(buf), "trailing bytes in the output file"
    return out


# ---------------------------------------------------------------------------------------------
# Element formats (from spec/types.yaml)













def _wide(spec, tname: str) -> bool:
    t = spec.types[tname]
    return t.cls == "float" and 1 + t.format["exponent"] + t.format["mantissa"] > 20


SMALL = (0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0)
C_FLOAT = tuple(float(x) for x in range(-8, 9)) + (0.25, -0.25, 2.5, -2.5)


def alphabet(spec, name: str) -> list[int]:
    """Element codes of a named alphabet (stored with the records, so records never recompute them).

    small:T  A/B values {0, +-0.5, +-1, +-1.5, +-2, +-3} (exact products and sums in every type)
    cf:T     float accumulators -8..8 and a few quarters
    any:T    every finite code of T (no -0), sampled down to 1024 (f32, f64: 1008 random normal codes
             of every exponent and 16 subnormals)
    anyn:T   the same without subnormals (accumulators passed through: C = D)
    int:T    every code of an integer or bit type
    ci:s32   moderate s32 accumulators (|c| < 2^20)
    sat:s32  s32 accumulators within 512 of the limits (A*B + C overflows: .satfinite clamps, else wraps)
    one:T    the code of 1
    meta:S   the valid metadata nibbles of sparsity S
    meta-ordered:S  those whose two indices increase (what .sp::ordered_metadata allows)
    anynz:T  any:T without zero
    """
    kind, _, arg = name.partition(":")
    if kind in ("small", "cf", "one"):
        want = {"small": SMALL, "cf": C_FLOAT, "one": (1.0,)}[kind]
        t = spec.types[arg]
        if t.cls != "float":
            return [int(x) & ((1 << t.bits) - 1) for x in want]
        if _wide(spec, arg):
            return [int(x) for x in encode_values(spec, arg, np.asarray(want))]
        codes = all_codes(spec, arg)
        vals = decode_values(spec, arg, codes)
        out = []
        for w in want:
            hit = codes[(vals == w) & ~((vals == 0) & np.signbit(vals))]
            if len(hit) != 1:
                raise ValueError(f"{w} has {len(hit)} codes in {arg}")
            out.append(int(hit[0]))
        return out
    if kind in ("any", "anyn"):
        t = spec.types[arg]
        if t.cls != "float":
            return [int(x) for x in all_codes(spec, arg)]
        e, m = t.format["exponent"], t.format["mantissa"]
        if _wide(spec, arg):  # random finite codes of every exponent; any:T also 16 subnormals
            rng = np.random.default_rng(1234)
            raw = rng.integers(0, 2**64 - 1, size=4096, dtype=np.uint64, endpoint=True)
            raw = raw & np.uint64((1 << t.bits) - 1)
            vals = decode_values(spec, arg, raw)
            normal = ((raw >> np.uint64(m)) & np.uint64((1 << e) - 1)) != 0
            raw = raw[np.isfinite(vals) & normal][:1008]
            sub = rng.integers(1, 1 << 20, size=16, dtype=np.uint64) | \
                (rng.integers(0, 2, size=16, dtype=np.uint64) << np.uint64(t.bits - 1))
            if kind == "anyn":
                sub = np.zeros(1, np.uint64)
            return sorted(int(x) for x in np.concatenate([raw, sub]))
        codes = all_codes(spec, arg)
        vals = decode_values(spec, arg, codes).astype(np.float64)
        ok = np.isfinite(vals) & ~((vals == 0) & np.signbit(vals))
        if kind == "anyn":  # no subnormals
            width = 1 + e + m
            ex = (codes >> np.uint64(t.bits - width + m)) & np.uint64((1 << e) - 1)
            ok &= (ex != 0) | (vals == 0)
        codes = codes[ok]
        if len(codes) > 1024:
            codes = np.sort(np.random.default_rng(1234).choice(codes, 1024, replace=False))
        return [int(x) for x in codes]
    if kind == "int":
        return [int(x) for x in all_codes(spec, arg)]
    if kind == "zero":
        return [0]
    if kind == "ci":
        rng = np.random.default_rng(4321)
        return [int(x) & 0xFFFFFFFF for x in rng.integers(-(1 << 20), 1 << 20, size=1024)]
    if kind == "sat":
        vals = [(1 << 31) - 1 - x for x in range(512)] + [-(1 << 31) + x for x in range(512)]
        return [v & 0xFFFFFFFF for v in vals]
    if kind in ("meta", "meta-ordered"):
        nibs = list(spec.sparsities[arg].valid_nibbles)
        if kind == "meta-ordered":  # .sp::ordered_metadata: the two indices of a chunk increasing
            nibs = [n for n in nibs if (n >> 2) > (n & 3)]
        return nibs
    if kind == "anynz":  # every finite nonzero code (sampled like any:T): the packed A of metadata probes
        return [x for x in alphabet(spec, f"any:{arg}") if decode_values(spec, arg, [x])[0] != 0]
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Expected output


def variant_of(spec, vid: str):
    return spec.variant(vid)


def operand_codes(spec, case: Case, arrays: dict):
    """(variant, A codes (M x K, dense), B codes, C codes) as the current spec reads the registers."""
    v = variant_of(spec, case.variant_id)
    a = v.unpack("a", regs_of(v, "a", arrays["a"]))
    b = v.unpack("b", regs_of(v, "b", arrays["b"]))
    c = v.unpack("c", regs_of(v, "c", arrays["c"]))
    return v, a, b, c


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    return np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1).sum(axis=-1).astype(np.int64)


def _batched(v, a: np.ndarray, b: np.ndarray, op: str = ""):
    """A @ B for each of the variant's `batch` stacked products (A, C, D stacked by rows, B by
    columns); with op "and"/"xor", the sum over K of popcount(a AND/XOR b) instead of a*b."""
    nb = v.batch
    a3 = a.reshape(nb, a.shape[0] // nb, a.shape[1])
    b3 = b.reshape(b.shape[0], nb, b.shape[1] // nb).transpose(1, 0, 2)
    if op:
        x = (a3[:, :, :, None] & b3[:, None, :, :]) if op == "and" else (a3[:, :, :, None] ^ b3[:, None, :, :])
        out = _popcount(x).sum(axis=2)
    else:
        out = a3 @ b3
    return out.reshape(a.shape[0], b.shape[1] // nb)


def expected_output(spec, case: Case, arrays: dict | None = None):
    """(expected D words (THREADS, words) uint32, expected D values (M x N), variant)."""
    arrays = arrays if arrays is not None else case.materialize()
    v, a_codes, b_codes, c_codes = operand_codes(spec, case, arrays)
    av = decode_values(spec, v.atype, a_codes)
    bv = decode_values(spec, v.btype, b_codes)
    cv = decode_values(spec, v.ctype, c_codes)
    sel = next((case.imm[o.name] for o in v.operands if o.kind == "selector"), 0)
    if v.sparse:
        av = sparse_mod.expand(v, av, arrays["meta"].reshape(THREADS), sel)
    if spec.types[v.dtype].cls == "float":
        if not (np.isfinite(av).all() and np.isfinite(bv).all() and np.isfinite(cv).all()):
            raise ValueError("non-finite inputs")
        d = _batched(v, av, bv) + cv
        d = np.where(d == 0, 0.0, d)
        codes = encode_values(spec, v.dtype, d)
    else:
        if v.op and not v.op.endswith("popc"):
            raise ValueError(f"unknown operation {v.op!r}")
        if v.op and spec.types[v.atype].bits > 1:
            # .and.popc/.xor.popc on s4/u4 (ptxas_only): the H100 computes the plain integer product
            # (ptxas 13.0 emits IMMA.S8 and drops the operation; erratum mma-int4-popc-beyond-manual)
            prod = _batched(v, av.astype(np.int64), bv.astype(np.int64))
        elif v.op:  # .and.popc / .xor.popc: popcount of the bitwise AND / XOR of the raw codes, summed over K
            ac = np.asarray(a_codes, np.int64)
            if v.sparse:
                ac = sparse_mod.expand(v, ac, arrays["meta"].reshape(THREADS), sel)
            bc = np.asarray(b_codes, np.int64)
            prod = _batched(v, ac, bc, op=v.op.split(".")[0])
        else:
            prod = _batched(v, av.astype(np.int64), bv.astype(np.int64))
        d = prod + cv.astype(np.int64)
        if v.satfinite:
            d = np.clip(d, -(1 << 31), (1 << 31) - 1)
        d = ((d + (1 << 31)) % (1 << 32)) - (1 << 31)  # two's-complement wrap otherwise
        codes = encode_values(spec, v.dtype, d)
    return words_of(v.pack("d", codes)), d, v








def compare(spec, case: Case, hw_words, arrays=None) -> dict:
    exp, d, v = expected_output(spec, case, arrays)
    hw = canonical(spec, v, hw_words)
    ex = canonical(spec, v, exp)
    hw_d = v.unpack("d", regs_of(v, "d", hw))
    ex_d = v.unpack("d", regs_of(v, "d", ex))
    bad = hw_d != ex_d
    return {"variant": v, "elements": int(bad.size), "mismatches": int(bad.sum()), "bad": bad,
            "hw": hw_d, "expected": ex_d, "digest": digest(hw), "expected_digest": digest(ex)}
