"""The wgmma device harness: cases, their inputs, and the exact expected outputs from the spec.

A *case* runs one wgmma instruction (a kernel: variant + immediates) once, on one warpgroup, with
given raw inputs: a shared-memory image (placed at shared address `TARGET`), the A registers (register
form), the C registers and the sparsity metadata register of every thread, the two descriptors and
scale-d. The hardware returns the D registers of every thread.

Raw inputs are made of *segments*: either random codes drawn by a counter-based hash from an
*alphabet* (a list of element codes) with a seed, or explicit bytes. Random segments do not depend
on the spec at all (every aligned slot of the region gets a code, gaps included), so a case made
only of random segments is reproducible from its seeds forever, and its expected output depends
only on how the *current* spec interprets those raw bytes and registers: the register fragment
maps (A, C/D), the descriptor fields, the canonical layouts and swizzles, the sparsity metadata
map and the element formats. `expected_output` computes that; `tests/test_device_records.py`
compares it to the recorded hardware output.

The hash: z = seed + (j + 1) * 0x9E3779B97F4A7C15, then the splitmix64 finaliser; slot j holds
alphabet[(z >> 32) % len(alphabet)] ^ (z & junk_mask). The host driver (wgmma_host.cu) implements
the same function.
"""
from __future__ import annotations

import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "generators") not in sys.path:
    sys.path.insert(0, str(ROOT / "generators"))

import ptxspec  # noqa: E402,F401 - re-exported for the checker and the records test
from ptxspec.core.formats import all_codes  # noqa: E402,F401
from ptxspec.core.formats import decode as decode_values  # noqa: E402
from ptxspec.core.formats import encode_exact as encode_values  # noqa: E402
from ptxspec.model import smem as smem_mod  # noqa: E402
from ptxspec.semantics import sparse as sparse_mod  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import canonical, digest, splitmix  # noqa: E402,F401

TARGET = 0x2000  # shared address of byte 0 of the image (1024-aligned, above the reserved window)
THREADS = 128
MAGIC_IN = 0x434D4757  # "WGMC"
MAGIC_OUT = 0x4F4D4757  # "WGMO"
SEG_RAND, SEG_DATA = 1, 2
ARRAYS = ("img", "a", "c", "meta")

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


# ---------------------------------------------------------------------------------------------
# The hash and segments





@dataclass
class Segment:
    offset: int  # byte offset in the array
    nbytes: int
    kind: int  # SEG_RAND or SEG_DATA
    seed: int = 0
    slot_bits: int = 8
    junk_mask: int = 0
    alphabet: str = ""  # name (records) ...
    codes: tuple = ()  # ... and its codes (case file)
    data: bytes = b""

    def materialize(self) -> np.ndarray:
        if self.kind == SEG_DATA:
            assert len(self.data) == self.nbytes
            return np.frombuffer(self.data, dtype=np.uint8).copy()
        if (self.nbytes * 8) % self.slot_bits:
            raise ValueError("segment size is not a whole number of slots")
        n = self.nbytes * 8 // self.slot_bits
        z = splitmix(self.seed, n)
        alpha = np.asarray(self.codes, dtype=np.uint64)
        vals = alpha[(z >> np.uint64(32)) % np.uint64(len(alpha))] ^ (z & np.uint64(self.junk_mask))
        if self.slot_bits >= 8:
            nb = self.slot_bits // 8
            out = np.zeros((n, nb), dtype=np.uint8)
            for b in range(nb):
                out[:, b] = ((vals >> np.uint64(8 * b)) & np.uint64(0xFF)).astype(np.uint8)
            return out.reshape(-1)
        per = 8 // self.slot_bits
        v = (vals & np.uint64((1 << self.slot_bits) - 1)).reshape(-1, per)
        sh = np.arange(per, dtype=np.uint64) * np.uint64(self.slot_bits)
        return (v << sh).sum(axis=1, dtype=np.uint64).astype(np.uint8)


@dataclass
class Case:
    index: int
    kernel: int
    variant_id: str
    imm: dict  # imm_scale_a, imm_scale_b, imm_trans_a, imm_trans_b, sp_sel (those the variant has)
    scale_d: int
    a_desc: int
    b_desc: int
    img_bytes: int
    n_a: int  # A registers per thread (0: descriptor form)
    n_d: int
    has_meta: bool
    segments: dict  # array name -> [Segment]
    kind: str = "random"  # random | b-onehot | a-onehot | satfinite
    note: str = ""

    def array_bytes(self, name: str) -> int:
        return {"img": self.img_bytes, "a": THREADS * self.n_a * 4, "c": THREADS * self.n_d * 4,
                "meta": THREADS * 4 if self.has_meta else 0}[name]

    def spec_independent(self) -> bool:
        return all(s.kind == SEG_RAND for segs in self.segments.values() for s in segs)

    def materialize(self) -> dict:
        out = {}
        for name in ARRAYS:
            buf = np.zeros(self.array_bytes(name), dtype=np.uint8)
            for s in self.segments.get(name, []):
                buf[s.offset:s.offset + s.nbytes] = s.materialize()
            out[name] = buf
        return {"img": out["img"], "a": out["a"].view(np.uint32).reshape(THREADS, self.n_a),
                "c": out["c"].view(np.uint32).reshape(THREADS, self.n_d),
                "meta": out["meta"].view(np.uint32) if self.has_meta else None}

    # -- records ---------------------------------------------------------------------------
    def as_record(self) -> dict:
        return {"index": self.index, "variant": self.variant_id, "imm": self.imm, "scale_d": self.scale_d,
                "a_desc": f"{self.a_desc:#018x}", "b_desc": f"{self.b_desc:#018x}", "img_bytes": self.img_bytes,
                "n_a": self.n_a, "n_d": self.n_d, "has_meta": self.has_meta, "kind": self.kind, "note": self.note,
                "segments": {k: [[s.offset, s.nbytes, s.seed, s.slot_bits, s.junk_mask, s.alphabet] for s in v]
                             for k, v in self.segments.items()}}

    @staticmethod
    def from_record(rec: dict, alphabets: dict) -> "Case":
        segs = {k: [Segment(o, n, SEG_RAND, seed, sb, jm, name, tuple(alphabets[name]))
                    for o, n, seed, sb, jm, name in v] for k, v in rec["segments"].items()}
        return Case(rec["index"], -1, rec["variant"], dict(rec["imm"]), rec["scale_d"], int(rec["a_desc"], 16),
                    int(rec["b_desc"], 16), rec["img_bytes"], rec["n_a"], rec["n_d"], rec["has_meta"], segs,
                    rec["kind"], rec.get("note", ""))


# ---------------------------------------------------------------------------------------------
# Case file (input of the host driver) and output file


def write_case_file(path: Path, cases: list[Case]):
    out = bytearray(struct.pack("<IIII", MAGIC_IN, 1, len(cases), TARGET))
    for c in cases:
        out += struct.pack("<IIIIIIQQ", c.kernel, c.scale_d, c.n_a, c.n_d, c.img_bytes, int(c.has_meta),
                           c.a_desc, c.b_desc)
        for name in ARRAYS:
            segs = c.segments.get(name, [])
            out += struct.pack("<I", len(segs))
            for s in segs:
                out += struct.pack("<III", s.kind, s.offset, s.nbytes)
                if s.kind == SEG_RAND:
                    out += struct.pack("<QIII", s.seed, s.slot_bits, s.junk_mask, len(s.codes))
                    out += np.asarray(s.codes, dtype=np.uint32).tobytes()
                else:
                    out += s.data + b"\0" * (-len(s.data) % 4)
    Path(path).write_bytes(bytes(out))


def read_case_file(path: Path, kernels: list[dict]) -> list[Case]:
    buf = Path(path).read_bytes()
    magic, _ver, n, target = struct.unpack_from("<IIII", buf, 0)
    assert magic == MAGIC_IN and target == TARGET
    pos = 16
    cases = []
    for i in range(n):
        kid, sd, na, nd, ib, hm, ad, bd = struct.unpack_from("<IIIIIIQQ", buf, pos)
        pos += 40
        segs = {}
        for name in ARRAYS:
            (ns,) = struct.unpack_from("<I", buf, pos)
            pos += 4
            lst = []
            for _ in range(ns):
                kind, off, nb = struct.unpack_from("<III", buf, pos)
                pos += 12
                if kind == SEG_RAND:
                    seed, sb, jm, alen = struct.unpack_from("<QIII", buf, pos)
                    pos += 20
                    codes = tuple(int(x) for x in np.frombuffer(buf, dtype=np.uint32, count=alen, offset=pos))
                    pos += 4 * alen
                    lst.append(Segment(off, nb, kind, seed, sb, jm, "", codes))
                else:
                    lst.append(Segment(off, nb, kind, data=buf[pos:pos + nb]))
                    pos += nb + (-nb % 4)
            segs[name] = lst
        k = kernels[kid]
        cases.append(Case(i, kid, k["variant"], dict(k["imm"]), sd, ad, bd, ib, na, nd, bool(hm), segs))
    return cases


def read_output_file(path: Path) -> dict[int, tuple[int, np.ndarray]]:
    """case index -> (status word, D registers (threads, n_d)); a .gz file is decompressed."""
    buf = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        import gzip
        buf = gzip.decompress(buf)
    return parse_outputs(buf)


def parse_outputs(buf: bytes) -> dict[int, tuple[int, np.ndarray]]:
    out = {}
    pos = 0
    while pos < len(buf):
        magic, idx, status, nd = struct.unpack_from("<IIII", buf, pos)
        assert magic == MAGIC_OUT, f"bad output record at byte {pos}"
        pos += 16
        regs = np.frombuffer(buf, dtype=np.uint32, count=THREADS * nd, offset=pos).reshape(THREADS, nd).copy()
        pos += THREADS * nd * 4
        out[idx] = (status, regs)
    return out


# ---------------------------------------------------------------------------------------------
# Element formats (from spec/types.yaml)














SMALL = (0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0)
C_FLOAT = tuple(float(x) for x in range(-8, 9)) + (0.25, -0.25, 2.5, -2.5)


def alphabet(spec, name: str) -> list[int]:
    """Element codes of a named alphabet (stored with the records, so records never recompute them)."""
    kind, _, arg = name.partition(":")
    if kind in ("small", "cf"):
        want = SMALL if kind == "small" else C_FLOAT
        t = spec.types[arg]
        if t.cls == "float" and 1 + t.format["exponent"] + t.format["mantissa"] > 20:  # f32: too many codes
            return [int(x) for x in encode_values(spec, arg, np.asarray(want))]
        codes = all_codes(spec, arg)
        vals = decode_values(spec, arg, codes)
        out = []
        for w in want:
            hit = codes[(vals == w) & ~((vals == 0) & (np.signbit(vals)))]
            if len(hit) != 1:
                raise ValueError(f"{w} has {len(hit)} codes in {arg}")
            out.append(int(hit[0]))
        return out
    if kind == "any":  # finite codes, no negative zero, sampled down to 1024
        codes = all_codes(spec, arg)
        vals = decode_values(spec, arg, codes).astype(np.float64)
        ok = np.isfinite(vals) & ~((vals == 0) & np.signbit(vals))
        codes = codes[ok]
        if len(codes) > 1024:
            codes = np.sort(np.random.default_rng(1234).choice(codes, 1024, replace=False))
        return [int(x) for x in codes]
    if kind == "bytes":
        return list(range(256))
    if kind == "zero":
        return [0]
    if kind == "ci":  # moderate s32 accumulators
        rng = np.random.default_rng(4321)
        return [int(x) & 0xFFFFFFFF for x in rng.integers(-(1 << 20), 1 << 20, size=1024)]
    if kind == "sat":  # s32 accumulators at the ends of the range, so that A*B + C overflows
        vals = [(1 << 31) - 1 - x for x in range(512)] + [-(1 << 31) + x for x in range(512)]
        return [v & 0xFFFFFFFF for v in vals]
    if kind in ("meta", "meta-ordered"):
        sp = spec.sparsities[arg]
        nibs = list(sp.valid_nibbles)
        if kind == "meta-ordered":
            nibs = [n for n in nibs if (n >> 2) > (n & 3)]
        return nibs
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Expected output


def _major(imm: dict, which: str) -> str:
    return "MN" if imm.get(f"imm_trans_{which}", 0) else "K"


def operand_codes(spec, case: Case, arrays: dict):
    """Raw codes of A (as the instruction reads it: packed for sparse), B and C, per the current spec."""
    v = spec.variant(case.variant_id.rsplit(":", 1)[0], case.variant_id.rsplit(":", 1)[1])
    img = arrays["img"]
    if v.form == "reg":
        a = v.unpack("a", arrays["a"])
    else:
        lay = smem_mod.layout_from_descriptor(v, "a", _major(case.imm, "a"), case.a_desc)
        a = _read(img, v, "a", lay)
    lay_b = smem_mod.layout_from_descriptor(v, "b", _major(case.imm, "b"), case.b_desc)
    b = _read(img, v, "b", lay_b)
    c = v.unpack("d", arrays["c"])
    return v, a, b, c


def _read(img, v, matrix, lay):
    lo, hi = lay.span()
    if lo < TARGET or hi > TARGET + len(img):
        raise ValueError(f"{matrix.upper()} spans [{lo:#x}, {hi:#x}), outside the image "
                         f"[{TARGET:#x}, {TARGET + len(img):#x})")
    idx = lay.byte - TARGET
    if lay.bits >= 8:
        out = np.zeros(lay.shape, dtype=np.uint64)
        for j in range(lay.bits // 8):
            out |= img[idx + j].astype(np.uint64) << np.uint64(8 * j)
        return out
    return (img[idx].astype(np.uint64) >> lay.bit.astype(np.uint64)) & np.uint64((1 << lay.bits) - 1)


def expected_output(spec, case: Case, arrays: dict | None = None):
    """(expected D registers (threads, n_d) uint32, expected D values (M x N), variant)."""
    arrays = arrays if arrays is not None else case.materialize()
    v, a_codes, b_codes, c_codes = operand_codes(spec, case, arrays)
    av = decode_values(spec, v.atype, a_codes)
    bv = decode_values(spec, v.btype, b_codes)
    cv = decode_values(spec, v.dtype, c_codes)
    if v.sparse:
        av = sparse_mod.expand(v, av, arrays["meta"], case.imm.get("sp_sel", 0))
    sa = case.imm.get("imm_scale_a", 1)
    sb = case.imm.get("imm_scale_b", 1)
    isfloat = spec.types[v.dtype].cls == "float"
    if isfloat:
        if not (np.isfinite(av).all() and np.isfinite(bv).all() and np.isfinite(cv).all()):
            raise ValueError("non-finite inputs")
        prod = (sa * av) @ (sb * bv)
        d = prod + cv if case.scale_d else prod
        d = np.where(d == 0, 0.0, d)
        codes = encode_values(spec, v.dtype, d)
    else:
        prod = av.astype(np.int64) @ bv.astype(np.int64)  # b1: and.popc = sum of bit products
        d = prod + cv if case.scale_d else prod
        if v.satfinite:
            d = np.clip(d, -(1 << 31), (1 << 31) - 1)
        d = ((d + (1 << 31)) % (1 << 32)) - (1 << 31)  # two's-complement wrap otherwise
        codes = encode_values(spec, v.dtype, d)
    regs = v.pack("d", codes)
    return regs, d, v








def compare(spec, case: Case, hw_regs, arrays=None) -> dict:
    exp_regs, d, v = expected_output(spec, case, arrays)
    hw = canonical(spec, v, hw_regs)
    ex = canonical(spec, v, exp_regs)
    hw_d = v.unpack("d", hw)
    ex_d = v.unpack("d", ex)
    bad = hw_d != ex_d
    return {"variant": v, "elements": int(bad.size), "mismatches": int(bad.sum()), "bad": bad,
            "hw": hw_d, "expected": ex_d, "digest": digest(hw), "expected_digest": digest(ex)}
