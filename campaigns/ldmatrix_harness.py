"""The ldmatrix / stmatrix / movmatrix device harness: forms, cases and their inputs.

Needs numpy only (it runs on the GPU machine too). Nothing here assumes a fragment map: every
input is a pattern whose values name where they came from, so the hardware's answer *is* the
map.

ldmatrix  Shared memory holds IMAGE_BYTES of 16-bit slots, slot s holding the value s (all
          distinct). Each lane gives the byte offset of one 16-byte row (distinct rows, in an
          order set by the case, every lane, used or not, gets its own row). A 16-bit half of a
          destination register then names the slot it was read from: the row (so the lane that
          supplied that row's address) and the element in the row.
stmatrix  Shared memory starts as 0xFF bytes; register j of lane t holds two 16-bit codes, one
          per half, naming (case, t, j, half). After the store each written slot names the
          register half it came from; every other slot keeps 0xFFFF.
movmatrix Lane t's register holds two codes naming (case, t, half); the result register names
          where each half came from.
e2e       "ldmatrix then mma" samples: matrices A, B (and C) drawn from exact alphabets, stored
          row- or column-major in shared memory with padded rows; each lane gives the address
          the loader under test prescribes (`Sample.addresses`); the kernel loads A and B with
          ldmatrix, runs the mma (or wgmma with A from registers, B through a descriptor) and
          returns the loaded registers and D. A stmatrix sample stores D back to shared memory.

Inputs are drawn with SplitMix64 (common.splitmix) from seeds that hash the case's name, so the
records can be replayed from their names alone.
"""
from __future__ import annotations

import hashlib
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import digest, splitmix  # noqa: E402,F401

SEED = "ldmatrix-2026-11-23"
IMAGE_BYTES = 16384          # the shared-memory window every movement case sees
ROWS = IMAGE_BYTES // 16     # 16-byte rows in it
SENTINEL = 0xFFFF
CASES = 6                    # per ldmatrix / stmatrix form
MOV_CASES = 3

NUMS = {"x1": 1, "x2": 2, "x4": 4}
# (state space, address register width): generic addresses are 64-bit; the shared window
# is tried with 32-bit and 64-bit registers
SPACES = [("", 64), ("shared", 32), ("shared", 64), ("shared::cta", 32), ("shared::cta", 64)]


def seed_for(*parts) -> int:
    key = "|".join([SEED, *map(str, parts)]).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little")


@dataclass(frozen=True)
class Form:
    instr: str          # ldmatrix | stmatrix | movmatrix
    num: str = "x1"
    trans: bool = False
    ss: str = ""
    width: int = 64     # address register bits

    @property
    def opcode(self) -> str:
        if self.instr == "movmatrix":
            return "movmatrix.sync.aligned.m8n8.trans.b16"
        t = ".trans" if self.trans else ""
        s = f".{self.ss}" if self.ss else ""
        return f"{self.instr}.sync.aligned.m8n8.{self.num}{t}{s}.b16"

    @property
    def regs(self) -> int:
        return 1 if self.instr == "movmatrix" else NUMS[self.num]

    @property
    def name(self) -> str:
        return self.opcode + (f"@a{self.width}" if self.instr != "movmatrix" else "")


def forms() -> list[Form]:
    out = []
    for instr in ("ldmatrix", "stmatrix"):
        for num in NUMS:
            for trans in (False, True):
                for ss, w in SPACES:
                    out.append(Form(instr, num, trans, ss, w))
    out.append(Form("movmatrix"))
    return out


def row_offsets(form: Form, case: int) -> np.ndarray:
    """Per lane, the byte offset of the row it names: case 0 lane i -> row i, case 1 reversed,
    then random distinct rows of the whole window."""
    if case == 0:
        rows = np.arange(32)
    elif case == 1:
        rows = np.arange(32)[::-1] + 100
    else:
        z = splitmix(seed_for(form.name, case, "rows"), ROWS)
        rows = np.argsort(z, kind="stable")[:32]
    return (rows * 16).astype(np.uint32)


def load_image() -> np.ndarray:
    """The ldmatrix window: slot s holds s."""
    return np.arange(IMAGE_BYTES // 2, dtype=np.uint16).view(np.uint8)


def store_codes(form: Form, case: int) -> np.ndarray:
    """(32, regs) words: lane t register j holds codes for (case, t, j, half) in its halves."""
    t = np.arange(32)[:, None]
    j = np.arange(form.regs)[None, :]
    base = ((case + 1) << 9) | (t << 3) | (j << 1)
    return (base | ((base | 1) << 16)).astype(np.uint32)


def mov_codes(case: int) -> np.ndarray:
    """(32, 1) words: lane t holds (case, t, half) codes."""
    t = np.arange(32)[:, None]
    base = ((case + 1) << 7) | (t << 1)
    return (base | ((base | 1) << 16)).astype(np.uint32)


# ---------------------------------------------------------------------------------------------
# The job file the host program reads, and its result file.
#
# jobs.bin:    "LDMJ", count, then per job: kernel id, threads, image bytes, input words, output
#              words, shared bytes to return; the image; the input words.
# results.bin: "LDMR", count, then per job: kernel id, status, output words, shared bytes; the
#              output words; the shared bytes.
MAGIC_JOBS, MAGIC_RESULTS = b"LDMJ", b"LDMR"


@dataclass
class Job:
    kernel: int
    threads: int
    image: np.ndarray          # uint8
    inputs: np.ndarray         # uint32
    out_words: int
    smem_back: int
    key: str = ""              # what this job is (form name + case, or sample name)
    meta: dict = field(default_factory=dict)


def write_jobs(path: Path, jobs: list[Job]):
    with open(path, "wb") as f:
        f.write(MAGIC_JOBS + struct.pack("<I", len(jobs)))
        for j in jobs:
            img = np.ascontiguousarray(j.image, dtype=np.uint8)
            ins = np.ascontiguousarray(j.inputs, dtype="<u4")
            f.write(struct.pack("<6I", j.kernel, j.threads, img.size, ins.size, j.out_words, j.smem_back))
            f.write(img.tobytes())
            f.write(ins.tobytes())


def read_results(path: Path) -> list[dict]:
    data = Path(path).read_bytes()
    assert data[:4] == MAGIC_RESULTS, "not an ldmatrix results file"
    (count,) = struct.unpack_from("<I", data, 4)
    pos, out = 8, []
    for _ in range(count):
        kid, status, nwords, nbytes = struct.unpack_from("<4I", data, pos)
        pos += 16
        words = np.frombuffer(data, "<u4", nwords, pos).copy()
        pos += 4 * nwords
        smem = np.frombuffer(data, np.uint8, nbytes, pos).copy()
        pos += nbytes
        out.append({"kernel": kid, "status": status, "words": words, "smem": smem})
    return out
