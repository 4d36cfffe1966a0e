"""A near-miss candidate space for wgmma.mma_async, built from first principles.

Nothing here reads the spec database: the candidates come from the general shape of a
warpgroup MMA (M = 64 rows over 128 threads, A and B 256 bits deep per K step, D in registers)
and from every type, shape, qualifier and operand count that could plausibly be written. The
test suite assembles them with ptxas and compares what ptxas accepts with the database.

The full cross product (2 sparsities x 36 N x 7 K x 144 type pairs x 5 accumulators x 2
satfinite x 3 ops x 2 forms x 6 immediate counts = 26 million statements) is too slow for CI,
so the space is searched in stages, the first three driven by what ptxas said before:

1. type screen: every sparsity x (atype, btype) pair of all 12 types x every dtype x satfinite
   on/off x every op x both forms x every K x 0..5 trailing immediates, at N in SCREEN_NS.
2. shape sweep: every (sparsity, types, satfinite, op, form) that ptxas accepted in stage 1
   with any K, N and immediate count, at every N in NS (8..256 step 8 and off values) x every K
   x 0..5 immediates.
3. other M: the stage-2 combinations at M in OTHER_MS (wgmma is m64 only) at a few N.
4. every N for every type: every (atype, btype, dtype) pair of the 12 x 12 x 5 types, dense and
   sparse, both forms, at every N in NS and the natural K of A's type, with 0, 2, 3 or 4
   immediates, whatever stage 1 said (120,240 candidates, 480,960 statements).

Register counts follow the general rule (per thread of the 128): D holds M*N/128 elements of
the accumulator type (16-bit ones two to a .b32 register, 32-bit ones one .f32/.s32 register
each, 64-bit ones one .f64 register each); A in registers holds M*K/128 elements (half of that
when sparse) of its bit width packed into .b32 registers; descriptors are .b64 registers; the
sparse forms add the metadata (.b32 register) and the selector (immediate 0) before scale-d.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

TYPES = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "s4", "u4", "f32", "f64")
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1,
        "s4": 4, "u4": 4, "f32": 32, "f64": 64, "s32": 32}
DTYPES = ("f16", "f32", "s32", "f64", "bf16")
NS = tuple(range(8, 257, 8)) + (4, 12, 264, 512)
KS = (8, 16, 32, 64, 128, 256, 512)
SCREEN_NS = (8,)
OTHER_MS = (32, 128)
OTHER_M_NS = (8, 64, 256)
SATFINITE = (False, True)
OPS = ("", "and.popc", "xor.popc")
FORMS = ("reg", "desc")
IMM_COUNTS = tuple(range(6))
# Legal values for the trailing immediates, in order: scale-a, scale-b, then transpose flags.
IMM_VALUES = (1, 1, 0, 0, 0)

# Register prefixes, declared by DECLARATIONS (the first line of every module built from here).
_REG = {"b32": "cr", "f32": "cf", "s32": "cs", "f64": "cd", "b64": "cq", "pred": "cp"}
DECLARATIONS = " ".join(f".reg .{t} %{p}<{n}>;" for (t, p), n in
                        zip(_REG.items(), (1100, 300, 300, 300, 4, 2)))


@dataclass(frozen=True)
class Candidate:
    sparse: bool
    m: int
    n: int
    k: int
    dtype: str
    atype: str
    btype: str
    satfinite: bool
    op: str
    form: str

    @property
    def opcode(self) -> str:
        return (f"wgmma.mma_async{'.sp' if self.sparse else ''}.sync.aligned.m{self.m}n{self.n}k{self.k}"
                f"{'.satfinite' if self.satfinite else ''}.{self.dtype}.{self.atype}.{self.btype}"
                f"{'.' + self.op if self.op else ''}")

    @property
    def key(self) -> tuple[str, str]:
        return self.opcode, self.form

    @property
    def combo(self) -> tuple:
        """Everything but the shape."""
        return (self.sparse, self.dtype, self.atype, self.btype, self.satfinite, self.op, self.form)

    def d_regs(self) -> tuple[str, int]:
        elements = self.m * self.n // 128
        bits = BITS[self.dtype]
        if bits == 16:
            return "b32", max(1, -(-elements * 16 // 32))
        if bits == 64:
            return "f64", elements
        return ("s32" if self.dtype == "s32" else "f32"), elements

    def a_regs(self) -> int:
        elements = self.m * self.k // 128 // (2 if self.sparse else 1)
        return max(1, -(-elements * BITS[self.atype] // 32))

    def statement(self, immediates: int, values=IMM_VALUES) -> str:
        dt, dn = self.d_regs()
        p = _REG[dt]
        ops = ["{" + ", ".join(f"%{p}{i}" for i in range(dn)) + "}"]
        if self.form == "reg":
            first = dn if dt == "b32" else 0
            ops.append("{" + ", ".join(f"%cr{first + i}" for i in range(self.a_regs())) + "}")
        else:
            ops.append("%cq0")
        ops.append("%cq1")
        if self.sparse:
            ops += ["%cr1099", "0"]
        ops.append("%cp0")
        ops += [str(v) for v in values[:immediates]]
        return f"{self.opcode} {', '.join(ops)};"


def combos():
    """(sparse, dtype, atype, btype, satfinite, op, form) of the type screen."""
    return itertools.product((False, True), DTYPES, TYPES, TYPES, SATFINITE, OPS, FORMS)


def screen() -> list[Candidate]:
    """Stage 1: every type combination at every K, at the screening N values."""
    return [Candidate(sp, 64, n, k, d, a, b, sat, op, form)
            for (sp, d, a, b, sat, op, form) in combos() for n in SCREEN_NS for k in KS]


def sweep(accepted_combos) -> list[Candidate]:
    """Stage 2: every N and K for each combination ptxas accepted in the screen."""
    return [Candidate(c[0], 64, n, k, *c[1:]) for c in sorted(accepted_combos) for n in NS for k in KS]


def other_m(accepted_combos, ks_of) -> list[Candidate]:
    """Stage 3: M other than 64 for the accepted combinations, at the K ptxas accepted for them."""
    return [Candidate(c[0], m, n, k, *c[1:]) for c in sorted(accepted_combos)
            for m in OTHER_MS for n in OTHER_M_NS for k in sorted(ks_of[c])]


#: K at which a type's dense wgmma would use 32 bytes of K (the sparse K doubles it).
NATURAL_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256,
             "s4": 64, "u4": 64, "f32": 8, "f64": 4}
SWEEP_IMM_COUNTS = (0, 2, 3, 4)  # the counts any wgmma signature could have


def full_sweep() -> list[Candidate]:
    """Stage 4: every N of NS for every (atype, btype, dtype) pair, dense and sparse, both forms, at
    the natural K of A's type, whether or not the type screen accepted the combination."""
    out = []
    for sp, d, a, b, form in itertools.product((False, True), DTYPES, TYPES, TYPES, FORMS):
        ops = ("and.popc", "xor.popc") if "b1" in (a, b) else ("",)
        k = NATURAL_K[a] * (2 if sp else 1)
        out += [Candidate(sp, 64, n, k, d, a, b, False, op, form) for op in ops for n in NS]
    return out


def lines(cands: list[Candidate], counts=IMM_COUNTS) -> list[tuple[Candidate, int, str]]:
    """(candidate, immediate count, statement) for each candidate and immediate count."""
    out = []
    suffixes = [("".join(f", {v}" for v in IMM_VALUES[:i]) + ";") for i in range(max(counts) + 1)]
    for c in cands:
        base = c.statement(0)[:-1]
        out += [(c, i, base + suffixes[i]) for i in counts]
    return out
