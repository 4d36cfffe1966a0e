#!/usr/bin/env python3
"""Ground-truth survey of the warp-level matrix instructions with ptxas 13.5.

Families: `mma` (dense), `mma.sp` / `mma.sp::ordered_metadata`, and `wmma.load`, `wmma.store`,
`wmma.mma`. Nothing here reads the spec database: the candidates are built from first
principles (every shape, element type, layout and qualifier that could plausibly be written)
and ptxas says which of them exist.

ptxas reports every bad line of a module with its line number and messages, so thousands of
candidates are judged per call (`-arch compute_XX`: parse and semantic checks only). The
messages separate "this opcode does not exist" (unknown modifier, unexpected types, illegal
layout, ...) from "this opcode exists but the operands are wrong" (`Argument vector size
mismatch`, one per wrong operand for mma; `Arguments mismatch`, a register type is wrong) and
from "exists, but not on this target / not at this PTX version". That split drives the search.
The oracle copes with four ptxas 13.5 habits (see _assemble): errors of its second checking
phase (expansion into built-in routines) are reported only up to the first error of a module,
so lines after it are judged again; syntax errors are fatal for the module; some statements
crash ptxas (SIGSEGV); and some errors name no line of the module ("<builtin>").

1. screen   every shape x type combination x a few qualifier sets, with register counts from
            the general rule (per thread of 32: A holds M*K/32 elements, half when sparse, B
            K*N/32, C/D M*N/32; sub-32-bit elements packed into .b32 registers, 64-bit ones one
            .f64 register each), at PTX 9.5 on the screening targets;
2. resolve  each candidate that ptxas accepted or only objected to its operands: the register
            count of every vector operand is searched one operand at a time (ptxas reports one
            mismatch per wrong operand), then register types, then other operand arrangements
            (with/without the block-scale and sparsity operands), and last every combination
            of vector sizes (wmma.mma reports all four operands when any one is wrong);
3. expand   every qualifier dimension (layouts, .satfinite, .rnd, bit ops, .kind x .block_scale
            x .scale_vec x .stype) one at a time around each accepted combination, then the
            cross product of the values that passed;
4. survey   each accepted opcode: register types per operand, immediate values, address and
            stride forms, every target at PTX 9.5, and per target the first PTX version
            (scanning down from 9.5, one module per version and target);
5. probes   qualifier order, missing `.aligned`, and candidates only older PTX versions accept.

Writes warp-mma-ptxas-13.5.json next to this file. Usage: python3 survey_warp_mma.py [-j N]
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "generators"))
from ptxspec.oracle.ptxas import find_ptxas  # noqa: E402
from ptxspec.oracle.ptxas import version as ptxas_version  # noqa: E402

OUT = HERE / "warp-mma-ptxas-13.5.json"

# ----------------------------------------------------------------------------------------------
# PTX versions and targets ptxas 13.5 knows (first PTX version per target: spec/isa.yaml, which
# was measured with the same ptxas; repeated here so the survey stands alone).
VERSIONS = ["6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8",
            "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1", "9.2",
            "9.3", "9.4", "9.5"]
TARGETS = {"sm_75": "6.3", "sm_80": "7.0", "sm_86": "7.1", "sm_87": "7.4", "sm_88": "9.0",
           "sm_89": "7.8", "sm_90": "7.8", "sm_90a": "8.0", "sm_100": "8.6", "sm_100a": "8.6",
           "sm_100f": "8.8", "sm_103": "8.8", "sm_103a": "8.8", "sm_103f": "8.8", "sm_107": "9.4",
           "sm_107a": "9.4", "sm_107f": "9.4", "sm_110": "9.0", "sm_110a": "9.0", "sm_110f": "9.0",
           "sm_120": "8.7", "sm_120a": "8.7", "sm_120f": "8.8", "sm_121": "8.8", "sm_121a": "8.8",
           "sm_121f": "8.8"}
LATEST = "9.5"
# Screening target: sm_120a accepts the union of the features found. A candidate that ptxas
# rejects there only for target reasons ("requires .target sm_90 or higher", "not supported on
# .target") is tried on every other target before it is dropped.
SCREEN_TARGETS = ("sm_120a",)

# ----------------------------------------------------------------------------------------------
# The candidate space.
SHAPES = ["m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128", "m16n8k4", "m16n8k8", "m16n8k16",
          "m16n8k32", "m16n8k64", "m16n8k128", "m16n8k256", "m16n16k16", "m32n8k16", "m8n32k16",
          "m16n16k8",
          # off shapes
          "m8n8k8", "m16n8k24", "m16n16k32", "m16n8k512", "m32n32k8", "m16n16k4", "m8n8k64"]
TYPES = ["f16", "bf16", "tf32", "f32", "f64", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1",
         "s8", "u8", "s4", "u4", "b1", "s32"]
ACCS = ["f16", "bf16", "tf32", "f32", "f64", "s32"]
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8,
        "e3m2": 6, "e2m3": 6, "e2m1": 4, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32}
LAYOUTS = [("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")]
KINDS = ["", "f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4"]
SVS = ["", "1X", "2X", "4X"]
STYPES = ["", "ue8m0", "ue4m3"]
OPS = ["", "and", "xor"]
RNDS = ["", "rn", "rz", "rm", "rp"]
SPS = ["", "sp", "sp::ordered_metadata"]
SPACES = ["", "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]
COUNT_OPTS = (1, 2, 4, 8)  # ptxas: "Illegal vector size: 16"

# Register pools: every PTX register type a fragment could plausibly be written with.
RTYPES = ["b32", "f32", "s32", "u32", "f16x2", "b64", "f64", "u64", "s64", "b16", "f16", "u16",
          "s16"]
PREFIX = {"b16": "h", "f16": "hf", "u16": "hu", "s16": "hs", "b32": "r", "f32": "f", "s32": "s",
          "u32": "u", "f16x2": "x", "b64": "rd", "f64": "fd", "u64": "ud", "s64": "sd",
          "pred": "p"}
POOL = 200


def module(lines: list[str], version: str, target: str) -> tuple[str, int]:
    head = [f".version {version}", f".target {target}", ".address_size 64",
            ".global .align 64 .b8 gbuf[8192];", ".shared .align 64 .b8 sbuf[8192];",
            ".visible .entry survey()", "{"]
    head += [f"  .reg .{t} %{p}<{POOL}>;" for t, p in PREFIX.items()]
    return "\n".join(head + lines + ["  ret;", "}", ""]), len(head) + 1


# ----------------------------------------------------------------------------------------------
# The oracle.
_MSG = re.compile(r"^ptxas (?!<builtin>)[^,]*, line (\d+); (error|warning|info|fatal)\s*:\s*(.*)$")
CHUNK = 4000
JOBS = 2
STATS = Counter()
_STATS_LOCK = threading.Lock()


def _ptxas(lines: list[str], version: str, target: str):
    text, first = module(lines, version, target)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([find_ptxas(), "-arch", target.replace("sm_", "compute_"), path,
                               "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(path)
    with _STATS_LOCK:
        STATS["ptxas_calls"] += 1
        STATS["lines_judged"] += len(lines)
    return proc.returncode, (proc.stdout + proc.stderr).splitlines(), first


CRASHES: dict = {}
WARNINGS: dict = {}  # cand -> ptxas warnings / advisories at PTX 9.5
ORPHANS: dict = {}  # lines whose errors ptxas reports against no line of the module


RERUN = 100  # module size for lines judged again


def _assemble(lines: list[str], version: str, target: str) -> tuple[list, list]:
    """Messages per line: (errors, warnings), each a list of lists.

    ptxas checks a statement in two phases: the parse and semantic checks, reported for every
    line, and an expansion into built-in routines (`_mma`, ...) whose errors ("Illegal
    instruction types specified for '_mma'", errors at "<builtin>" lines) are only reported
    until the first error of the module. So a line without messages is accepted only if no
    line before it had one; the others are judged again in new modules until each is settled.
    Also handled: a syntax error is fatal for the module (the line is marked, the rest judged
    again); ptxas crashes (SIGSEGV) on some statements right after reporting their errors; and
    some errors name no line of ours ("ptxas <builtin>, line 25; fatal: Parsing error"): the
    lines are then split into groups and judged again until the culprit is alone."""
    errors: list[list[str]] = [[] for _ in lines]
    warnings: list[list[str]] = [[] for _ in lines]
    todo = [list(range(len(lines)))]

    def chunks(idx, size):
        return [idx[k:k + size] for k in range(0, len(idx), size)]

    while todo:
        batch = todo.pop()
        if not batch:
            continue
        rc, out, first = _ptxas([lines[i] for i in batch], version, target)
        if rc == 0:
            for i in batch:
                errors[i] = []
            for o in out:
                m = _MSG.match(o)
                if m and m.group(2) in ("warning", "info") and 0 <= int(m.group(1)) - first < len(batch):
                    warnings[batch[int(m.group(1)) - first]].append(m.group(3).strip())
            continue
        errs: dict[int, list[str]] = defaultdict(list)
        warns: dict[int, list[str]] = defaultdict(list)
        fatal, orphan = [], []
        for o in out:
            m = _MSG.match(o)
            if not m:
                if ("error" in o or "fatal" in o) and "aborted due to errors" not in o:
                    orphan.append(re.sub(r"^ptxas ", "", o))
                continue
            k, sev, msg = int(m.group(1)) - first, m.group(2), m.group(3).strip()
            if not 0 <= k < len(batch):
                if sev not in ("warning", "info"):
                    orphan.append(o)
                continue
            if sev in ("warning", "info"):
                warns[k].append(msg)
            else:
                errs[k].append(("fatal: " if sev == "fatal" else "") + msg)
                if sev == "fatal":
                    fatal.append(k)
        for k, w in warns.items():
            warnings[batch[k]] = w
        if fatal:
            # a syntax error stops ptxas: nothing else in the module was checked
            for k in fatal:
                errors[batch[k]] = errs[k]
            todo.append([i for k, i in enumerate(batch) if k not in fatal])
            continue
        if rc < 0:
            # crashed right after reporting the errors of the line it crashed on
            k = max(errs) if errs else 0
            errs[k].append(f"ptxas crashed (signal {-rc})")
            CRASHES.setdefault(lines[batch[k]], set()).add((version, target))
            todo.extend(chunks(batch[k + 1:], RERUN))
            batch = batch[:k + 1]
        for k, e in errs.items():
            errors[batch[k]] = e
        clean = [i for k, i in enumerate(batch) if k not in errs]
        if orphan:
            if len(batch) == 1:
                errors[batch[0]] = ["(no line) " + m for m in orphan]
                ORPHANS.setdefault(lines[batch[0]], set()).add((version, target))
            elif clean:
                # lines seen doing this before are judged apart first, then group testing
                sus = [i for i in clean if lines[i] in ORPHANS]
                if sus and len(sus) < len(clean):
                    todo += [sus, [i for i in clean if i not in sus]]
                else:
                    todo += chunks(clean, -(-len(clean) // 8))
            continue
        if not errs:
            raise RuntimeError(f"ptxas failed without errors at {version} {target}: {out[:3]}")
        f = min(errs)
        # before the first error: settled; after it: judged again
        todo.extend(chunks([i for i in clean if batch.index(i) > f], RERUN))
    return errors, warnings


def judge_multi(tasks: list[tuple[list[str], str, str]]) -> list[tuple[list, list]]:
    """(errors, warnings) per line for each (lines, version, target) task; lines deduplicated
    within a task, all chunks of all tasks run JOBS at a time."""
    prepared = []
    jobs = []
    for lines, v, t in tasks:
        uniq = list(dict.fromkeys(lines))
        prepared.append((lines, uniq))
        for lo in range(0, len(uniq), CHUNK):
            jobs.append((len(prepared) - 1, lo, uniq[lo:lo + CHUNK], v, t))
    with ThreadPoolExecutor(JOBS) as ex:
        results = list(ex.map(lambda j: _assemble(j[2], j[3], j[4]), jobs))
    merged = [([None] * len(u), [None] * len(u)) for _, u in prepared]
    for (k, lo, chunk, v, t), (e, w) in zip(jobs, results):
        merged[k][0][lo:lo + len(e)] = e
        merged[k][1][lo:lo + len(w)] = w
    out = []
    for (lines, uniq), (e, w) in zip(prepared, merged):
        pos = {l: i for i, l in enumerate(uniq)}
        out.append(([e[pos[l]] for l in lines], [w[pos[l]] for l in lines]))
    return out


def judge(lines: list[str], pairs: list[tuple[str, str]]) -> dict:
    """{(version, target): (errors, warnings)} for the same lines at every pair."""
    res = judge_multi([(lines, v, t) for v, t in pairs])
    return dict(zip(pairs, res))


BENIGN = re.compile(r"Argument vector size mismatch|Illegal vector size|Arguments mismatch|"
                    r"not supported on \.target|requires \.target|requires sm_|"
                    r"Illegal operand type|Unexpected number of arguments|"
                    r"Expected .* operands|Illegal number of operands|Invalid .*operand|"
                    r"Illegal .*operand")
VECSIZE = "Argument vector size mismatch"


def benign(msgs: list[str]) -> bool:
    return all(BENIGN.search(m) and not m.startswith("fatal") for m in msgs)


# ----------------------------------------------------------------------------------------------
# Candidates.
@dataclass(frozen=True)
class Cand:
    fam: str                  # mma | mma.sp | wmma.load | wmma.store | wmma.mma
    shape: str
    sp: str = ""              # mma.sp: sp | sp::ordered_metadata
    al: str = "row"           # alayout (wmma.load/store: the layout)
    bl: str = "col"
    kind: str = ""
    bs: bool = False          # .block_scale
    sv: str = ""              # .scale_vec::NX
    st: str = ""              # .stype
    sat: bool = False
    op: str = ""              # and | xor (.popc)
    rnd: str = ""
    d: str = ""
    a: str = ""               # "" with b == "": the two-type form (.dtype.ctype)
    b: str = ""
    c: str = ""
    mat: str = ""             # wmma.load a|b|c, wmma.store d
    ss: str = ""              # state space
    aligned: bool = True

    @property
    def opcode(self) -> str:
        al = ".aligned" if self.aligned else ""
        if self.fam in ("mma", "mma.sp"):
            s = "mma" + (f".{self.sp}" if self.sp else "") + f".sync{al}.{self.shape}.{self.al}.{self.bl}"
            s += f".kind::{self.kind}" if self.kind else ""
            s += ".block_scale" if self.bs else ""
            s += f".scale_vec::{self.sv}" if self.sv else ""
            s += f".{self.rnd}" if self.rnd else ""
            s += ".satfinite" if self.sat else ""
            s += f".{self.d}" + (f".{self.a}.{self.b}" if self.a else "") + f".{self.c}"
            s += f".{self.st}" if self.st else ""
            s += f".{self.op}.popc" if self.op else ""
            return s
        if self.fam == "wmma.mma":
            s = "wmma.mma" + (f".{self.op}.popc" if self.op else "") + f".sync{al}.{self.al}.{self.bl}.{self.shape}"
            s += f".{self.rnd}" if self.rnd else ""
            s += f".{self.d}" + (f".{self.a}.{self.b}" if self.a else "") + f".{self.c}"
            s += ".satfinite" if self.sat else ""
            return s
        s = f"{self.fam}.{self.mat}.sync{al}.{self.al}.{self.shape}"
        s += f".{self.ss}" if self.ss else ""
        return s + f".{self.d}"  # element type kept in d

    @property
    def types_key(self) -> tuple:
        return (self.d, self.a, self.b, self.c)


def mnk(shape: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape)
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def pow2(n: float) -> int:
    """The vector size for n registers: a power of two, at most 8 (ptxas: "Illegal vector
    size: 16")."""
    n = max(1, math.ceil(n))
    return min(8, 1 << (n - 1).bit_length())


def elem_bits(t: str, kind: str) -> int:
    if kind in ("f8f6f4", "mxf8f6f4") and BITS.get(t, 32) < 8:
        return 8  # fp6/fp4 in 8-bit containers
    return BITS.get(t, 32)


def frag(c: Cand, which: str, t: str) -> tuple[int, str]:
    """(registers, register type) of fragment `which` by the general rule."""
    m, n, k = mnk(c.shape)
    e = {"a": m * k / 32 / (2 if c.fam == "mma.sp" else 1), "b": k * n / 32, "c": m * n / 32}[which]
    bits = elem_bits(t or "f16", c.kind)
    if bits == 64:
        return pow2(e), "f64"
    return pow2(e * bits / 32), "b32"


@dataclass(frozen=True)
class Opd:
    name: str
    kind: str                 # vec | reg | imm | addr | pair
    n: int = 1
    rt: str = "b32"           # register type (vec, reg, pair of registers) or "imm"
    val: str = ""             # immediate / address text, pair immediates "x, y"

    def render(self, ctr: dict) -> str:
        if self.kind in ("imm", "addr"):
            return self.val
        if self.kind == "pair" and self.rt == "imm":
            return "{" + self.val + "}"
        p = PREFIX[self.rt]
        cnt = 2 if self.kind == "pair" else self.n
        regs = []
        for _ in range(cnt):
            regs.append(f"%{p}{ctr.get(p, 0)}")
            ctr[p] = ctr.get(p, 0) + 1
        if self.kind == "reg":
            return regs[0]
        return "{" + ", ".join(regs) + "}"

    def desc(self) -> dict:
        d = {"name": self.name, "kind": {"vec": "vector", "reg": "register", "imm": "immediate",
                                          "addr": "address", "pair": "pair"}[self.kind]}
        if self.kind == "vec":
            d["regs"] = self.n
        return d


def stmt(c: Cand, ops: tuple[Opd, ...]) -> str:
    ctr: dict = {}
    return f"{c.opcode} {', '.join(o.render(ctr) for o in ops)};"


SCALE_OPS = (Opd("scale_a_data", "reg"), Opd("sel_a", "pair", rt="imm", val="0, 0"),
             Opd("scale_b_data", "reg"), Opd("sel_b", "pair", rt="imm", val="0, 0"))


def default_ops(c: Cand) -> tuple[Opd, ...]:
    if c.fam in ("mma", "mma.sp", "wmma.mma"):
        a_t = c.a or ("f16" if c.fam == "wmma.mma" else c.c)
        b_t = c.b or a_t
        ops = [Opd("d", "vec", *frag(c, "c", c.d)), Opd("a", "vec", *frag(c, "a", a_t)),
               Opd("b", "vec", *frag(c, "b", b_t)), Opd("c", "vec", *frag(c, "c", c.c))]
        if c.fam == "mma.sp":
            ops += [Opd("e", "reg"), Opd("f", "imm", val="0")]
        if c.bs:
            ops += SCALE_OPS
        return tuple(ops)
    which = {"a": "a", "b": "b", "c": "c", "d": "c"}[c.mat]
    r = Opd("d" if c.mat == "d" else "r", "vec", *frag(c, which, c.d))
    p = Opd("p", "addr", val="[%rd199]")
    return (p, r) if c.fam == "wmma.store" else (r, p)


# ----------------------------------------------------------------------------------------------
# Resolution: find an operand arrangement ptxas accepts for each candidate opcode.
@dataclass
class Found:
    cand: Cand
    ops: tuple
    target: str               # a target that accepted it at 9.5 (the probe target)


def _set_count(ops, i, n):
    ops = list(ops)
    ops[i] = replace(ops[i], n=n)
    return tuple(ops)


def _set_type(ops, i, rt):
    ops = list(ops)
    ops[i] = replace(ops[i], rt=rt)
    return tuple(ops)


def _alt_arrangements(c: Cand, ops: tuple) -> list[tuple]:
    """Other operand lists to try when counts and types do not explain the rejection."""
    names = [o.name for o in ops]
    alts = []
    if "scale_a_data" in names:
        alts.append(tuple(o for o in ops if o.name not in {x.name for x in SCALE_OPS}))
    elif c.fam in ("mma", "mma.sp"):
        alts.append(ops + SCALE_OPS)
    if c.fam == "mma.sp":
        alts.append(tuple(o for o in ops if o.name not in ("e", "f")))
    if c.fam == "mma":
        i = 4
        alts.append(ops[:i] + (Opd("e", "reg"), Opd("f", "imm", val="0")) + ops[i:])
    return alts


TARGET_MSG = re.compile(r"target|requires sm_")


def _only_target(errs) -> bool:
    return all(TARGET_MSG.search(m) for m in errs)


def resolve(seeds: dict, targets=SCREEN_TARGETS) -> tuple[dict, dict]:
    """seeds: {cand: operand list to start from, or None for the general rule}.
    Returns ({cand: Found} for every candidate ptxas accepts with some arrangement at PTX 9.5,
    {cand: messages} for the rest)."""
    cands = list(seeds)
    start = {c: seeds[c] or default_ops(c) for c in cands}
    found: dict[Cand, Found] = {}
    why: dict[Cand, list[str]] = {}
    todo: dict[Cand, tuple[str, list[str]]] = {}
    pairs = [(LATEST, t) for t in targets]
    res = judge([stmt(c, start[c]) for c in cands], pairs)
    for i, c in enumerate(cands):
        per_t = [(t, res[(LATEST, t)][0][i]) for _, t in pairs]
        ok = [t for t, e in per_t if not e]
        if ok:
            found[c] = Found(c, start[c], ok[0])
            continue
        ben = [(t, e) for t, e in per_t if benign(e)]
        real = [(t, e) for t, e in ben if not _only_target(e)]
        if real:
            todo[c] = real[0]
        elif ben:
            todo[c] = ben[0]
        else:
            why[c] = per_t[0][1]
    # objections about the target only, on every screening target: try every other target
    onlyt = [c for c, (t, e) in todo.items() if _only_target(e)]
    if onlyt:
        others = [t for t in TARGETS if t not in targets]
        r2 = judge([stmt(c, start[c]) for c in onlyt], [(LATEST, t) for t in others])
        for i, c in enumerate(onlyt):
            for t in others:
                e = r2[(LATEST, t)][0][i]
                if not e:
                    found[c] = Found(c, start[c], t)
                    del todo[c]
                    break
                if benign(e) and not _only_target(e):
                    todo[c] = (t, e)
                    break
            else:
                why[c] = todo.pop(c)[1]
    cur = {c: start[c] for c in todo}
    probed: dict = {}
    # register counts one vector operand at a time, register types, other arrangements
    for _ in range(2):
        if not todo:
            break
        probes = []
        for c, (t, errs) in todo.items():
            if c in probed and probed[c] == cur[c]:
                continue
            probed[c] = cur[c]
            ops = cur[c]
            sizes = any(VECSIZE in m or "vector size" in m for m in errs)
            types = any("Arguments mismatch" in m for m in errs)
            for i, o in enumerate(ops):
                if o.kind == "vec" and sizes:
                    probes += [(c, t, ("count", i, n), _set_count(ops, i, n))
                               for n in COUNT_OPTS if n != o.n]
                if o.kind in ("vec", "reg") and types:
                    probes += [(c, t, ("type", i, rt), _set_type(ops, i, rt))
                               for rt in RTYPES if rt != o.rt]
            probes += [(c, t, ("alt",), alt) for alt in _alt_arrangements(c, ops)]
        outcome = _run_probes_errs(probes)
        mine = defaultdict(list)
        for p, e in zip(probes, outcome):
            mine[p[0]].append((p, e))
        nxt = {}
        combined = {}
        for c, (t, errs0) in todo.items():
            if c not in mine:
                nxt[c] = (t, errs0)
                continue
            ok = [p for p, e in mine[c] if not e]
            if ok:
                found[c] = Found(c, ok[0][3], t)
                continue
            ops = list(cur[c])
            n0 = sum(VECSIZE in m for m in errs0)
            for i, o in enumerate(ops):
                if o.kind != "vec":
                    continue
                cnt = [(sum(VECSIZE in m for m in e), p[2][2]) for p, e in mine[c]
                       if p[2][0] == "count" and p[2][1] == i]
                if cnt and min(cnt)[0] < n0:
                    ops[i] = replace(o, n=min(cnt)[1])
            if any("Arguments mismatch" in m for m in errs0):
                for p, e in mine[c]:
                    if p[2][0] == "type" and not any("Arguments mismatch" in m for m in e):
                        ops[p[2][1]] = replace(ops[p[2][1]], rt=p[2][2])
                        break
            if tuple(ops) != cur[c]:
                combined[c] = (t, tuple(ops))
            else:
                nxt[c] = (t, errs0)  # only the every-size product below can still help
        cprobes = [(c, t, None, ops) for c, (t, ops) in combined.items()]
        for p, e in zip(cprobes, _run_probes_errs(cprobes)):
            c = p[0]
            cur[c] = p[3]
            if not e:
                found[c] = Found(c, p[3], p[1])
            elif benign(e):
                nxt[c] = (p[1], e)
            else:
                why[c] = e
        todo = nxt
    # last resort: every combination of vector sizes (wmma.mma reports a mismatch for every
    # operand when any one is wrong, so one-at-a-time cannot work there)
    probes = []
    for c, (t, errs) in todo.items():
        if not all("vector size" in m for m in errs):
            continue
        ops = cur[c]
        vecs = [i for i, o in enumerate(ops) if o.kind == "vec"]
        for combo in itertools.product(COUNT_OPTS, repeat=len(vecs)):
            o2 = list(ops)
            for i, n in zip(vecs, combo):
                o2[i] = replace(o2[i], n=n)
            probes.append((c, t, None, tuple(o2)))
    for p, e in zip(probes, _run_probes_errs(probes)):
        if not e and p[0] not in found:
            found[p[0]] = Found(p[0], p[3], p[1])
    for c, (t, errs) in todo.items():
        if c not in found:
            why[c] = errs
    return found, why


def _run_probes_errs(probes) -> list[list[str]]:
    """probes: (cand, target, ..., ops) -> error messages at LATEST on that target."""
    by_t = defaultdict(list)
    for k, p in enumerate(probes):
        by_t[p[1]].append(k)
    out: list = [None] * len(probes)
    tasks = list(by_t.items())
    res = judge_multi([([stmt(probes[k][0], probes[k][-1]) for k in ks], LATEST, t) for t, ks in tasks])
    for (t, ks), (errs, _) in zip(tasks, res):
        for k, e in zip(ks, errs):
            out[k] = e
    return out


def _run_probes(probes) -> list[bool]:
    return [not e for e in _run_probes_errs(probes)]


# ----------------------------------------------------------------------------------------------
# Candidate generation.
def type_screen_combos():
    """(d, a, b, c) type tuples of the screen: equal multiplicand types with every accumulator
    pair, every other multiplicand pair with equal f16, f32 or s32 accumulators, and the
    two-type form (.dtype.ctype) with every accumulator pair. Stage 3 then tries every
    accumulator pair on whatever multiplicand pair was accepted."""
    out = []
    for a in TYPES:
        for d, c in itertools.product(ACCS, ACCS):
            out.append((d, a, a, c))
    for a, b in itertools.product(TYPES, TYPES):
        if a != b:
            for d in ("f16", "f32", "s32"):
                out.append((d, a, b, d))
    for d, c in itertools.product(ACCS, ACCS):
        out.append((d, "", "", c))
    return out


# Qualifier sets of the screen (stage 3 varies every qualifier around what is accepted).
SCREEN_EXTRAS = [dict(), dict(kind="f8f6f4"), dict(op="xor"),
                 dict(kind="mxf8f6f4", bs=True, st="ue8m0"), dict(kind="mxf4", bs=True, st="ue8m0"),
                 dict(kind="mxf4nvf4", bs=True, sv="4X", st="ue4m3")]


def screen_mma() -> list[Cand]:
    out = []
    combos = type_screen_combos()
    for fam, sp in (("mma", ""), ("mma.sp", "sp"), ("mma.sp", "sp::ordered_metadata")):
        for shape in SHAPES:
            for (d, a, b, c) in combos:
                for ex in SCREEN_EXTRAS:
                    if ex and (d != c or not a):
                        continue
                    out.append(Cand(fam, shape, sp=sp, d=d, a=a, b=b, c=c, **ex))
    return out


def screen_wmma_mma() -> list[Cand]:
    return [Cand("wmma.mma", shape, d=d, a=a, b=b, c=c, **ex)
            for shape in SHAPES for (d, a, b, c) in type_screen_combos()
            for ex in (dict(), dict(op="xor"), dict(rnd="rn"))
            if not ex or d == c]


def screen_wmma_ls() -> list[Cand]:
    out = []
    for shape in SHAPES:
        for lay in ("row", "col"):
            for ss in SPACES:
                for t in TYPES:
                    for mat in "abc":
                        out.append(Cand("wmma.load", shape, al=lay, bl="", mat=mat, ss=ss, d=t))
                    out.append(Cand("wmma.store", shape, al=lay, bl="", mat="d", ss=ss, d=t))
    return out


def dims_of(c: Cand) -> dict[str, list[dict]]:
    """Qualifier dimensions to vary around an accepted combination."""
    if c.fam in ("mma", "mma.sp", "wmma.mma"):
        dims = {"layout": [dict(al=a, bl=b) for a, b in LAYOUTS],
                "sat": [dict(sat=s) for s in (False, True)],
                "op": [dict(op=o) for o in OPS],
                "rnd": [dict(rnd=r) for r in RNDS]}
        if c.fam != "wmma.mma":
            dims["kindscale"] = [dict(kind=k, bs=bs, sv=sv, st=st) for k in KINDS
                                 for bs in (False, True) for sv in SVS for st in STYPES]
        if c.fam == "mma.sp":
            dims["sp"] = [dict(sp=v) for v in SPS[1:]]
        return dims
    return {}


def reseed(parent: Found, new: Cand) -> tuple:
    """Operands for `new` from an accepted relative: its counts and types where the fragment is
    the same, the general rule where the accumulator type changed, scale operands per .block_scale."""
    rule = default_ops(new)
    ops = [o for o in parent.ops if o.name not in {x.name for x in SCALE_OPS}]
    for i, o in enumerate(ops):
        if (o.name == "d" and new.d != parent.cand.d) or (o.name == "c" and new.c != parent.cand.c):
            ops[i] = [r for r in rule if r.name == o.name][0]
    if new.bs:
        ops += list(SCALE_OPS)
    return tuple(ops)


def expand(found: dict) -> dict:
    """Stage 3a: each qualifier dimension varied alone around each accepted combination, and
    every accumulator pair for each accepted multiplicand pair."""
    out = {}
    for c, f in found.items():
        variants = [replace(c, **v) for vals in dims_of(c).values() for v in vals]
        if c.fam in ("mma", "mma.sp", "wmma.mma"):
            variants += [replace(c, d=d, c=cc) for d, cc in itertools.product(ACCS, ACCS)]
        for v in variants:
            if v not in found and v not in out:
                out[v] = reseed(f, v)
    return out


def cross(found: dict) -> dict:
    """Stage 3b: per (family, shape, types), the product of the values of each qualifier
    dimension that some accepted candidate of the group has."""
    groups = defaultdict(lambda: defaultdict(set))
    seed = {}
    for c, f in found.items():
        g = (c.fam, c.shape, c.types_key)
        seed.setdefault(g, f)
        for dim, vals in dims_of(c).items():
            for v in vals:
                if all(getattr(c, k) == x for k, x in v.items()):
                    groups[g][dim].add(tuple(sorted(v.items())))
    out = {}
    for (fam, shape, (d, a, b, cc)), dims in groups.items():
        names = list(dims)
        for combo in itertools.product(*[sorted(dims[n]) for n in names]):
            kw = {}
            for part in combo:
                kw.update(dict(part))
            new = Cand(fam, shape, d=d, a=a, b=b, c=cc, **kw)
            if new not in found and new not in out:
                out[new] = reseed(seed[(fam, shape, (d, a, b, cc))], new)
    return out


# ----------------------------------------------------------------------------------------------
# Surveys of accepted opcodes.
def survey_types(found: dict) -> dict:
    """{cand: [[register types accepted] per operand]} (others kept at the accepted arrangement)."""
    probes = []
    for c, f in found.items():
        for i, o in enumerate(f.ops):
            if o.kind in ("vec", "reg") or (o.kind == "pair"):
                for rt in RTYPES + (["imm"] if o.kind == "pair" else []):
                    probes.append((c, f.target, i, rt, _set_type(f.ops, i, rt)))
    ok = _run_probes(probes)
    out = {c: [[] for _ in f.ops] for c, f in found.items()}
    for p, good in zip(probes, ok):
        if good:
            out[p[0]][p[2]].append(p[3])
    return out


IMM_VALUES = ["0", "1", "2", "3", "4", "5", "7", "8", "-1", "0x1"]


def survey_immediates(found: dict) -> dict:
    """{cand: {operand: [accepted values]}} for the immediate operands (the sparsity selector,
    and each half of the block-scale selector pairs), plus whether a register works there."""
    probes = []
    for c, f in found.items():
        for i, o in enumerate(f.ops):
            if o.kind == "imm":
                for v in IMM_VALUES:
                    probes.append((c, f.target, (o.name, v), _ops_with(f.ops, i, replace(o, val=v))))
                for rt in ("b32", "u32"):
                    probes.append((c, f.target, (o.name, "%" + rt),
                                   _ops_with(f.ops, i, Opd(o.name, "reg", rt=rt))))
            if o.kind == "pair" and o.rt == "imm":
                for half, name in ((0, "byte_id"), (1, "thread_id")):
                    for v in IMM_VALUES:
                        vals = ["0", "0"]
                        vals[half] = v
                        probes.append((c, f.target, (f"{o.name}.{name}", v),
                                       _ops_with(f.ops, i, replace(o, val=", ".join(vals)))))
    ok = _run_probes(probes)
    out = defaultdict(lambda: defaultdict(list))
    for p, good in zip(probes, ok):
        if good:
            out[p[0]][p[2][0]].append(p[2][1])
    return out


def _ops_with(ops, i, new):
    ops = list(ops)
    ops[i] = new
    return tuple(ops)


ADDR_FORMS = {"[%rd]": "[%rd199]", "[%rd+32]": "[%rd199+32]", "[%r]": "[%r199]",
              "[gbuf]": "[gbuf]", "[sbuf]": "[sbuf]", "[%u]": "[%u199]"}
STRIDE_FORMS = {"none": None, "%b32": Opd("stride", "reg", rt="b32"),
                "%u32": Opd("stride", "reg", rt="u32"), "%s32": Opd("stride", "reg", rt="s32"),
                "%b64": Opd("stride", "reg", rt="b64"), "%u64": Opd("stride", "reg", rt="u64"),
                "%b16": Opd("stride", "reg", rt="b16"), "imm": Opd("stride", "imm", val="64")}


def survey_memory(found: dict) -> dict:
    """wmma.load/store: which address forms and stride operands ptxas accepts."""
    probes = []
    for c, f in found.items():
        if c.fam not in ("wmma.load", "wmma.store"):
            continue
        ops = [o for o in f.ops if o.name != "stride"]
        ai = [i for i, o in enumerate(ops) if o.kind == "addr"][0]
        for an, av in ADDR_FORMS.items():
            for sn, so in STRIDE_FORMS.items():
                o2 = list(ops)
                o2[ai] = replace(o2[ai], val=av)
                if so is not None:
                    o2.append(so)
                probes.append((c, f.target, (an, sn), tuple(o2)))
    ok = _run_probes(probes)
    out = defaultdict(lambda: {"address": set(), "stride": set(), "pairs": set()})
    for p, good in zip(probes, ok):
        if good:
            out[p[0]]["pairs"].add(p[2])
    for c, d in out.items():
        d["address"] = sorted({a for a, s in d["pairs"]})
        d["stride"] = sorted({s for a, s in d["pairs"]})
    return out


def survey_targets(found: dict) -> dict:
    """{cand: {target: first PTX version}}: every target at 9.5, then per target down from 9.5
    until the version that rejects the line (a later acceptance below that is not looked for;
    probe_legacy covers forms that only older versions accept)."""
    cands = list(found)
    lines = [stmt(c, found[c].ops) for c in cands]
    at95 = judge(lines, [(LATEST, t) for t in TARGETS])
    first = {c: {} for c in cands}
    for c, i in zip(cands, range(len(cands))):
        ws = sorted({w for t in TARGETS for w in (at95[(LATEST, t)][1][i] or [])})
        if ws:
            WARNINGS[c] = ws
    live = {t: [i for i in range(len(cands)) if not at95[(LATEST, t)][0][i]] for t in TARGETS}
    for t in TARGETS:
        for i in live[t]:
            first[cands[i]][t] = LATEST
    # scan down, one module per (version, target), with the lines still accepted
    vers = list(reversed(VERSIONS[:-1]))
    cur = {t: list(live[t]) for t in TARGETS}
    for v in vers:
        pairs = [(v, t) for t in TARGETS if cur[t] and VERSIONS.index(v) >= VERSIONS.index(TARGETS[t])]
        if not pairs:
            break
        tasks = [(vv, t, [lines[i] for i in cur[t]], list(cur[t])) for (vv, t) in pairs]
        tasks.sort(key=lambda tk: -len(tk[3]))
        # a first wave, then the rest: lines that make ptxas fail without naming a line are
        # found once by group testing, then set apart in the other modules
        rs = [r[0] for r in judge_multi([(tk[2], tk[0], tk[1]) for tk in tasks[:JOBS]])]
        rs += [r[0] for r in judge_multi([(tk[2], tk[0], tk[1]) for tk in tasks[JOBS:]])]
        for (vv, t, _, idx), errs in zip(tasks, rs):
            keep = []
            for i, e in zip(idx, errs):
                if not e:
                    first[cands[i]][t] = vv
                    keep.append(i)
            cur[t] = keep
    return first


# ----------------------------------------------------------------------------------------------
# What the manual's text (seeds 001: wmma, 002: mma.sp) says exists, written out as candidates,
# to list where ptxas disagrees. (Dense mma, 9.7.14.5, has no seed text here.)
def manual_forms() -> dict[Cand, str]:
    out: dict[Cand, str] = {}
    SS = ["", "global", "shared", "shared::cta"]
    lay2 = [("row", "col"), ("row", "row"), ("col", "col"), ("col", "row")]

    def load(section, shapes, abc_types, layouts=None):
        for shape in shapes:
            for mat, types in abc_types.items():
                for lay in (layouts or {}).get(mat, ("row", "col")):
                    for ss in SS:
                        for t in types:
                            out[Cand("wmma.load", shape, al=lay, bl="", mat=mat, ss=ss, d=t)] = section
    F16S = ["m16n16k16", "m8n32k16", "m32n8k16"]
    load("wmma.load f16", F16S, {"a": ["f16", "s8", "u8"], "b": ["f16", "s8", "u8"], "c": ["f16", "f32", "s32"]})
    load("wmma.load bf16", F16S, {"a": ["bf16"], "b": ["bf16"], "c": ["f32"]})
    load("wmma.load tf32", ["m16n16k8"], {"a": ["tf32"], "b": ["tf32"], "c": ["f32"]})
    load("wmma.load f64", ["m8n8k4"], {"a": ["f64"], "b": ["f64"], "c": ["f64"]})
    load("wmma.load sub-byte", ["m8n8k32"], {"a": ["s4", "u4"], "b": ["s4", "u4"], "c": ["s32"]},
         {"a": ("row",), "b": ("col",)})
    load("wmma.load single-bit", ["m8n8k128"], {"a": ["b1"], "b": ["b1"], "c": ["s32"]},
         {"a": ("row",), "b": ("col",)})
    for shapes, types, sec in ((F16S, ["f16", "f32", "s32"], "wmma.store f16/f32/s32"),
                               (["m8n8k32", "m8n8k128"], ["s32"], "wmma.store sub-byte/single-bit"),
                               (["m16n16k8"], ["f32"], "wmma.store tf32"),
                               (["m8n8k4"], ["f64"], "wmma.store f64")):
        for shape in shapes:
            for lay in ("row", "col"):
                for ss in SS:
                    for t in types:
                        out[Cand("wmma.store", shape, al=lay, bl="", mat="d", ss=ss, d=t)] = sec
    for shape in F16S:
        for al, bl in lay2:
            for d, c in itertools.product(("f16", "f32"), repeat=2):
                out[Cand("wmma.mma", shape, al=al, bl=bl, d=d, c=c)] = "wmma.mma f16"
            for t in ("s8", "u8"):
                for sat in (False, True):
                    out[Cand("wmma.mma", shape, al=al, bl=bl, d="s32", a=t, b=t, c="s32", sat=sat)] = "wmma.mma integer"
            out[Cand("wmma.mma", shape, al=al, bl=bl, d="f32", a="bf16", b="bf16", c="f32")] = "wmma.mma bf16"
    for al, bl in lay2:
        out[Cand("wmma.mma", "m16n16k8", al=al, bl=bl, d="f32", a="tf32", b="tf32", c="f32")] = "wmma.mma tf32"
        for rnd in RNDS:
            out[Cand("wmma.mma", "m8n8k4", al=al, bl=bl, rnd=rnd, d="f64", a="f64", b="f64", c="f64")] = "wmma.mma f64"
    for t in ("s4", "u4"):
        for sat in (False, True):
            out[Cand("wmma.mma", "m8n8k32", d="s32", a=t, b=t, c="s32", sat=sat)] = "wmma.mma sub-byte"
    for op in ("xor", "and"):
        out[Cand("wmma.mma", "m8n8k128", op=op, d="s32", a="b1", b="b1", c="s32")] = "wmma.mma single-bit"
    # mma.sp (seed 002, 9.7.14.6.3 syntax)
    SPV = ("sp", "sp::ordered_metadata")
    F8 = ("e4m3", "e5m2")
    F864 = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")

    def sp(shape, d, a, b, c, sec, spv=SPV, **kw):
        for v in spv:
            out[Cand("mma.sp", shape, sp=v, d=d, a=a, b=b, c=c, **kw)] = sec
    for shape in ("m16n8k16", "m16n8k32"):
        for d, c in itertools.product(("f16", "f32"), repeat=2):
            sp(shape, d, "f16", "f16", c, "mma.sp f16")
        sp(shape, "f32", "bf16", "bf16", "f32", "mma.sp bf16")
    for shape in ("m16n8k8", "m16n8k16"):
        sp(shape, "f32", "tf32", "tf32", "f32", "mma.sp tf32")
    for a, b in itertools.product(F8, F8):
        sp("m16n8k64", "f32", a, b, "f32", "mma.sp e4m3/e5m2")
    for a, b in itertools.product(F864, F864):
        for d, c in itertools.product(("f16", "f32"), repeat=2):
            sp("m16n8k64", d, a, b, c, "mma.sp kind::f8f6f4", spv=SPV[1:], kind="f8f6f4")
        for sv in ("", "1X"):
            sp("m16n8k64", "f32", a, b, "f32", "mma.sp kind::mxf8f6f4", spv=SPV[1:], kind="mxf8f6f4",
               bs=True, sv=sv, st="ue8m0")
    for sv in ("", "2X"):
        sp("m16n8k128", "f32", "e2m1", "e2m1", "f32", "mma.sp kind::mxf4", spv=SPV[1:], kind="mxf4",
           bs=True, sv=sv, st="ue8m0")
    for sv in ("2X", "4X"):
        for st in ("ue8m0", "ue4m3"):
            sp("m16n8k128", "f32", "e2m1", "e2m1", "f32", "mma.sp kind::mxf4nvf4", spv=SPV[1:],
               kind="mxf4nvf4", bs=True, sv=sv, st=st)
    for shapes, types in ((("m16n8k32", "m16n8k64"), ("u8", "s8")), (("m16n8k64", "m16n8k128"), ("u4", "s4"))):
        for shape in shapes:
            for a, b in itertools.product(types, types):
                for sat in (False, True):
                    sp(shape, "s32", a, b, "s32", "mma.sp integer", sat=sat)
    return out


# The seeds' example statements, as written (each in its own kernel with the declarations the
# example gives; `ptr`, A..D are declared where the example leaves them out).
SEED_EXAMPLES = [
    ("001 wmma.load example 1", ".reg .b32 x<8>; .reg .b64 ptr;",
     "wmma.load.b.sync.aligned.m16n16k16.row.f16 {x0,x1,x2,x3,x4,x5,x,x7}, [ptr];"),
    ("001 wmma.load example 1 (typo x -> x6)", ".reg .b32 x<8>; .reg .b64 ptr;",
     "wmma.load.b.sync.aligned.m16n16k16.row.f16 {x0,x1,x2,x3,x4,x5,x6,x7}, [ptr];"),
    ("001 wmma.load example 2", ".reg .b32 x<8>; .reg .b64 ptr;",
     "wmma.load.c.sync.aligned.m16n16k16.col.f32 {x0,x1,x2,x3,x4,x5,x6,x7}, [ptr]; mul.f32 x0, x0, 0.1;"),
    ("001 wmma.load example 3", ".reg .b32 x<4>; .reg .b64 ptr;",
     "wmma.load.a.sync.aligned.m32n8k16.row.u8 {x0,x1,x2,x3}, [ptr];"),
    ("001 wmma.load example 4", ".reg .b32 x0; .reg .b64 ptr;",
     "wmma.load.a.sync.aligned.m8n8k32.row.s4 {x0}, [ptr];"),
    ("001 wmma.load example 5", ".reg .b32 x<4>; .reg .b64 ptr;",
     "wmma.load.a.sync.aligned.m16n16k16.row.bf16 {x0,x1,x2,x3}, [ptr];"),
    ("001 wmma.load example 6", ".reg .b32 x<4>; .reg .b64 ptr;",
     "wmma.load.a.sync.aligned.m16n16k8.row.tf32 {x0,x1,x2,x3}, [ptr];"),
    ("001 wmma.load example 7 (.b32 register for .f64)", ".reg .b32 x<4>; .reg .b64 ptr;",
     "wmma.load.a.sync.aligned.m8n8k4.row.f64 {x0}, [ptr];"),
    ("001 wmma.store example 1 (no .aligned)", ".reg .b32 d<8>; .reg .b64 ptr;",
     "wmma.store.d.sync.m16n16k16.row.f32 [ptr], {d0, d1, d2, d3, d4, d5, d6, d7};"),
    ("001 wmma.store example 2", ".reg .b32 d<8>; .reg .b64 ptr;",
     "wmma.store.d.sync.aligned.m16n16k16.row.s32 [ptr], {d0, d1, d2, d3, d4, d5, d6, d7};"),
    ("001 wmma.store example 3", ".reg .b32 d<2>; .reg .b64 ptr;",
     "wmma.store.d.sync.aligned.m8n8k128.row.s32 [ptr], {d0, d1};"),
    ("001 wmma.store example 4 (two .f64 for the m8n8k4 accumulator)", ".reg .f64 d<2>; .reg .b64 ptr;",
     "wmma.store.d.sync.aligned.m8n8k4.row.f64 [ptr], {d0, d1};"),
    ("001 wmma.store example 4 with one .f64 (the fragment table)", ".reg .f64 d<2>; .reg .b64 ptr;",
     "wmma.store.d.sync.aligned.m8n8k4.row.f64 [ptr], {d0};"),
    ("001 wmma.mma example 1 (f16 loads, f32 mma, store)",
     ".reg .b32 a<8>, b<8>, c<8>, d<8>;",
     "wmma.load.a.sync.aligned.m16n16k16.global.row.f16 {a0, a1, a2, a3, a4, a5, a6, a7}, [A];"
     " wmma.load.b.sync.aligned.m16n16k16.global.col.f16 {b0, b1, b2, b3, b4, b5, b6, b7}, [B];"
     " wmma.load.c.sync.aligned.m16n16k16.global.row.f32 {c0, c1, c2, c3, c4, c5, c6, c7}, [C];"
     " wmma.mma.sync.aligned.m16n16k16.row.col.f32.f32 {d0, d1, d2, d3, d4, d5, d6, d7},"
     " {a0, a1, a2, a3, a4, a5, a6, a7}, {b0, b1, b2, b3, b4, b5, b6, b7}, {c0, c1, c2, c3, c4, c5, c6, c7};"
     " wmma.store.d.sync.aligned.m16n16k16.global.col.f32 [D], {d0, d1, d2, d3, d4, d5, d6, d7};"),
    ("001 wmma.mma example 1 declaration as printed (.reg .b32 a<8> b<8> c<8> d<8>;)",
     ".reg .b32 a<8> b<8> c<8> d<8>;", ""),
    ("001 wmma.mma example 2 (integer)", ".reg .b32 a, b<4>; .reg .b32 c<8>, d<8>;",
     "wmma.mma.sync.aligned.m8n32k16.row.col.s32.s8.s8.s32 {d0, d1, d2, d3, d4, d5, d6, d7},"
     " {a}, {b0, b1, b2, b3}, {c0, c1, c2, c3, c4, c5, c6, c7};"),
    ("001 wmma.mma example 3 (sub-byte)", ".reg .b32 a, b, c<2>, d<2>;",
     "wmma.mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {d0, d1}, {a}, {b}, {c0, c1};"),
    ("001 wmma.mma example 4 (single-bit)", ".reg .b32 a, b, c<2>, d<2>;",
     "wmma.mma.xor.popc.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {d0, d1}, {a}, {b}, {c0, c1};"),
    ("001 wmma.mma example 5 (f64, two-register C/D)", ".reg .f64 a, b, c<2>, d<2>;",
     "wmma.mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a}, {b}, {c0, c1};"),
    ("001 wmma.mma example 5 with one-register C/D (the fragment table)", ".reg .f64 a, b, c<2>, d<2>;",
     "wmma.mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0}, {a}, {b}, {c0};"),
    ("001 wmma.mma example 6 (tf32) as printed (.reg .b32 a<2>, b<2> but a0..a3 used)",
     ".reg .b32 a<2>, b<2>, c<8>, d<8>;",
     "wmma.mma.sync.aligned.m16n16k8.row.col.f32.tf32.tf32.f32 {d0, d1, d2, d3, d4, d5, d6, d7},"
     " {a0, a1, a2, a3}, {b0, b1, b2, b3}, {c0, c1, c2, c3, c4, c5, c6, c7};"),
    ("001 wmma.mma example 6 (tf32) with a<4>, b<4>", ".reg .b32 a<4>, b<4>, c<8>, d<8>;",
     "wmma.mma.sync.aligned.m16n16k8.row.col.f32.tf32.tf32.f32 {d0, d1, d2, d3, d4, d5, d6, d7},"
     " {a0, a1, a2, a3}, {b0, b1, b2, b3}, {c0, c1, c2, c3, c4, c5, c6, c7};"),
]
_SP_DECL = ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .b32 %Re;"
_SP_DECLF = ".reg .b32 %Ra<4>, %Rb<4>; .reg .f32 %Rc<4>, %Rd<4>; .reg .b32 %Re;"
_D4 = "{%Rd0, %Rd1, %Rd2, %Rd3}"
_C4 = "{%Rc0, %Rc1, %Rc2, %Rc3}"
_A2, _A4 = "{%Ra0, %Ra1}", "{%Ra0, %Ra1, %Ra2, %Ra3}"
_B2, _B4 = "{%Rb0, %Rb1}", "{%Rb0, %Rb1, %Rb2, %Rb3}"
SEED_EXAMPLES += [
    ("002 f16 example 1", ".reg .f16x2 %Ra<2>, %Rb<2>, %Rc<2>, %Rd<2>; .reg .b32 %Re;",
     "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%Rd0, %Rd1}, {%Ra0, %Ra1}, {%Rb0, %Rb1}, {%Rc0, %Rc1}, %Re, 0x1;"),
    ("002 f16 example 2", ".reg .f16x2 %Ra<2>, %Rb<2>, %Rc<2>, %Rd<2>; .reg .b32 %Re;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%Rd0, %Rd1}, {%Ra0, %Ra1}, {%Rb0, %Rb1}, {%Rc0, %Rc1}, %Re, 0x1;"),
    ("002 alt-fp example 1 (tf32 m16n8k8)", _SP_DECLF,
     f"mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {_D4}, {_A2}, {_B2}, {_C4}, %Re, 0x1;"),
    ("002 alt-fp example 2 (bf16 m16n8k16)", _SP_DECLF,
     f"mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {_D4}, {_A2}, {_B2}, {_C4}, %Re, 0x1;"),
    ("002 alt-fp example 3 (bf16 m16n8k32)", _SP_DECLF,
     f"mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0x1;"),
    ("002 alt-fp example 4 (e5m2.e4m3 m16n8k64)", _SP_DECLF,
     f"mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0;"),
    ("002 alt-fp example 5 (ordered bf16 m16n8k16)", _SP_DECLF,
     f"mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {_D4}, {_A2}, {_B2}, {_C4}, %Re, 0x1;"),
    ("002 alt-fp example 6 (kind::f8f6f4 f32)", _SP_DECLF,
     f"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0;"),
    ("002 alt-fp example 7 (kind::f8f6f4 f16)", _SP_DECL,
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16 {%Rd0, %Rd1}, "
     f"{_A4}, {_B4}, {{%Rc0, %Rc1}}, %Re, 0;"),
    ("002 integer example 1 (u8 m16n8k32)", ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .u32 %Re;",
     f"mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {_D4}, {_A2}, {_B2}, {_C4}, %Re, 0x1;"),
    ("002 integer example 2 (s8 m16n8k64)", ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .u32 %Re;",
     f"mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0x0;"),
    ("002 integer example 3 (ordered s8 m16n8k64)", ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .u32 %Re;",
     f"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0x0;"),
    ("002 integer example 4 (s4 m16n8k64)", ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .u32 %Re;",
     f"mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {_D4}, {_A2}, {_B2}, {_C4}, %Re, 0x1;"),
    ("002 integer example 5 (u4 m16n8k128)", ".reg .b32 %Ra<4>, %Rb<4>, %Rc<4>, %Rd<4>; .reg .u32 %Re;",
     f"mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32 {_D4}, {_A4}, {_B4}, {_C4}, %Re, 0x0;"),
    ("002 block-scale example 1 (mxf4, selectors {2, 1} {2, 3})",
     _SP_DECLF + " .reg .b32 scaleAData, scaleBData;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 "
     f"{_D4}, {_A4}, {_B4}, {_C4}, %Re, 0, scaleAData, {{2, 1}}, scaleBData, {{2, 3}};"),
    ("002 block-scale example 2 (mxf4nvf4 4X ue4m3, .u16 selectors)",
     _SP_DECLF + " .reg .b32 scaleAData, scaleBData; .reg .u16 bidA, bidB, tidA, tidB;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
     f"{_D4}, {_A4}, {_B4}, {_C4}, %Re, 0, scaleAData, {{bidA, tidA}}, scaleBData, {{bidB, tidB}};"),
    ("002 block-scale example 3 (mxf4nvf4 4X ue8m0)",
     _SP_DECLF + " .reg .b32 scaleAData, scaleBData; .reg .u16 bidA, bidB, tidA, tidB;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 "
     f"{_D4}, {_A4}, {_B4}, {_C4}, %Re, 0, scaleAData, {{bidA, tidA}}, scaleBData, {{bidB, tidB}};"),
    ("002 block-scale example 4 (mxf8f6f4 1X e3m2.e2m1)",
     _SP_DECLF + " .reg .b32 scaleAData, scaleBData;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0 "
     f"{_D4}, {_A4}, {_B4}, {_C4}, %Re, 0, scaleAData, {{0, 1}}, scaleBData, {{0, 1}};"),
    ("002 block-scale example 5 (mxf8f6f4 1X e4m3.e5m2)",
     _SP_DECLF + " .reg .b32 scaleAData, scaleBData;",
     "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0 "
     f"{_D4}, {_A4}, {_B4}, {_C4}, %Re, 0, scaleAData, {{0, 1}}, scaleBData, {{0, 0}};"),
]


def run_examples(target: str = "sm_120a") -> list[dict]:
    """Each seed example alone in a kernel at PTX 9.5 on `target`: accepted, or ptxas's messages."""
    out = []
    for name, decl, body in SEED_EXAMPLES:
        text = "\n".join([f".version {LATEST}", f".target {target}", ".address_size 64",
                          ".global .align 32 .f16 A[256], B[256];", ".global .align 32 .f32 C[256], D[256];",
                          ".visible .entry ex()", "{", "  " + decl, "  " + body, "  ret;", "}", ""])
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            proc = subprocess.run([find_ptxas(), "-arch", target.replace("sm_", "compute_"), path,
                                   "-o", os.devnull], capture_output=True, text=True)
        finally:
            os.unlink(path)
        msgs = [re.sub(r"^ptxas \S+, ", "", l) for l in (proc.stdout + proc.stderr).splitlines()
                if "aborted due to errors" not in l]
        out.append({"example": name, "statement": body or decl, "target": target,
                    "accepted": proc.returncode == 0, "messages": msgs})
    return out


# ----------------------------------------------------------------------------------------------
# Probes.
INSTR_HEADS = ("mma.sp::ordered_metadata", "mma.sp", "mma", "wmma.load.a", "wmma.load.b",
               "wmma.load.c", "wmma.store.d", "wmma.mma")
# tokens whose relative order carries meaning (types: d, a, b, c, stype; layouts: a then b)
TYPE_TOKENS = set(TYPES) | set(ACCS) | set(STYPES[1:]) | {"row", "col"}


def shuffled(opcode: str, rng: random.Random) -> str:
    """The opcode with its qualifiers in a random order; element types and layouts keep their
    relative order (their position is their meaning)."""
    head = next(h for h in INSTR_HEADS if opcode.startswith(h + "."))
    rest = opcode[len(head) + 1:].replace(".popc", "#popc").split(".")
    types = [t for t in rest if t in TYPE_TOKENS]
    others = [t for t in rest if t not in TYPE_TOKENS]
    rng.shuffle(others)
    slots = sorted(rng.sample(range(len(rest)), len(types)))
    merged, ti, oi = [], 0, 0
    for k in range(len(rest)):
        if ti < len(types) and k == slots[ti]:
            merged.append(types[ti])
            ti += 1
        else:
            merged.append(others[oi])
            oi += 1
    return head + "." + ".".join(merged).replace("#popc", ".popc")


def probe_order(found: dict, per_family: int = 60) -> dict:
    rng = random.Random(1)
    by_fam = defaultdict(list)
    for c in found:
        by_fam[c.fam].append(c)
    probes = []
    for fam, cs in sorted(by_fam.items()):
        for c in rng.sample(cs, min(per_family, len(cs))):
            for _ in range(3):
                probes.append((c, found[c].target, shuffled(c.opcode, rng), found[c].ops))
    lines = [p[2] + " " + stmt(p[0], p[3]).split(" ", 1)[1] for p in probes]
    by_t = defaultdict(list)
    for k, p in enumerate(probes):
        by_t[p[1]].append(k)
    ok = [False] * len(probes)
    res = judge_multi([([lines[k] for k in ks], LATEST, t) for t, ks in by_t.items()])
    for (t, ks), (errs, _) in zip(by_t.items(), res):
        for k, e in zip(ks, errs):
            ok[k] = not e
    rejected = [lines[k] for k in range(len(probes)) if not ok[k]]
    return {"tried": len(probes), "accepted": sum(ok), "rejected_examples": rejected[:10]}


def probe_unaligned(found: dict, first: dict) -> dict:
    """Each accepted opcode without .aligned: at PTX 9.5 on its probe target, and at the earliest
    (version, target) where the form with .aligned is accepted."""
    tasks = defaultdict(list)
    for c, f in found.items():
        u = replace(c, aligned=False)
        tasks[(LATEST, f.target)].append((c, "latest", stmt(u, f.ops)))
        if first.get(c):
            t, v = min(first[c].items(), key=lambda kv: (VERSIONS.index(kv[1]), list(TARGETS).index(kv[0])))
            tasks[(v, t)].append((c, "earliest", stmt(u, f.ops)))
    keys = list(tasks)
    res = judge_multi([([x[2] for x in tasks[k]], k[0], k[1]) for k in keys])
    acc = Counter()
    msgs = Counter()
    examples = []
    for k, (errs, _) in zip(keys, res):
        for (c, when, line), e in zip(tasks[k], errs):
            if not e:
                acc[when] += 1
                if len(examples) < 5:
                    examples.append(f"{k[0]} {k[1]}: {line}")
            else:
                msgs[e[0]] += 1
    return {"accepted_without_aligned": dict(acc), "messages": dict(msgs.most_common(5)),
            "accepted_examples": examples}


def probe_legacy(cands: list[Cand], seeds: dict) -> dict:
    """Candidates that PTX 9.5 rejects, at every older version on sm_75 / sm_80 / sm_90: which
    (version, target) accept them (e.g. .satfinite on floating-point wmma.mma before 6.5)."""
    lines = [stmt(c, seeds[c]) for c in cands]
    pairs = [(v, t) for t in ("sm_75", "sm_80", "sm_90") for v in VERSIONS
             if VERSIONS.index(v) >= VERSIONS.index(TARGETS[t])]
    res = judge(lines, pairs)
    out = {}
    for i, c in enumerate(cands):
        ok = [(v, t) for (v, t) in pairs if not res[(v, t)][0][i]]
        if ok:
            out[c.opcode] = {"accepted_at": [f"{v}/{t}" for v, t in ok], "statement": lines[i],
                             "warnings": sorted({w for vt in ok for w in res[vt][1][i]}),
                             "at_9.5": res[(LATEST, "sm_90")][0][i]}
    return out


# ----------------------------------------------------------------------------------------------
# Summaries.
TLIST = list(TARGETS)


def arch_of(t: str) -> tuple[int, str]:
    m = re.fullmatch(r"sm_(\d+)([af]?)", t)
    return int(m.group(1)), m.group(2)


def target_rule(ts) -> str:
    """A compact description of a set of targets."""
    ts = set(ts)
    if not ts:
        return "none"
    if ts == set(TLIST):
        return "all (sm_75+)"
    for t in TLIST:  # the largest "sm_X and every later target" contained in the set
        tail = {u for u in TLIST if arch_of(u)[0] >= arch_of(t)[0]}
        if tail <= ts and tail:
            rest = sorted(ts - tail, key=TLIST.index)
            return f"sm_{arch_of(t)[0]}+" + (f" and {', '.join(rest)}" if rest else "")
    return ", ".join(sorted(ts, key=TLIST.index))


def family_of(c: Cand) -> str:
    return {"mma": "mma", "mma.sp": "mma.sp", "wmma.load": "wmma", "wmma.store": "wmma",
            "wmma.mma": "wmma"}[c.fam]


def instruction_of(c: Cand) -> str:
    if c.fam == "mma.sp":
        return "mma." + c.sp
    if c.fam == "wmma.load":
        return f"wmma.load.{c.mat}"
    if c.fam == "wmma.store":
        return "wmma.store.d"
    return c.fam


def qualifiers_of(c: Cand) -> dict:
    q = {"shape": c.shape}
    if c.fam in ("wmma.load", "wmma.store"):
        q.update(layout=c.al, type=c.d)
        if c.ss:
            q["ss"] = c.ss
        return q
    q.update(alayout=c.al, blayout=c.bl, dtype=c.d, atype=c.a or None, btype=c.b or None, ctype=c.c)
    if not c.a:
        q["atype"] = q["btype"] = "(implicit)"
    for k in ("kind", "sv", "st", "op", "rnd"):
        if getattr(c, k):
            q[{"sv": "scale_vec", "st": "stype"}.get(k, k)] = getattr(c, k)
    if c.bs:
        q["block_scale"] = True
    if c.sat:
        q["satfinite"] = True
    return q


def type_class(c: Cand) -> str:
    if c.fam in ("wmma.load", "wmma.store"):
        return {"s8": "int8", "u8": "int8", "s4": "int4", "u4": "int4"}.get(c.d, c.d)
    if c.kind:
        return "kind::" + c.kind
    a = c.a or "f16"
    if a in ("e4m3", "e5m2"):
        return "fp8"
    return {"s8": "int8", "u8": "int8", "s4": "int4", "u4": "int4", "b1": "b1"}.get(a, a)


def first_ptx_rule(maps: list[dict]) -> dict:
    """Targets and first PTX versions of a group of opcodes that share one {target: version} map:
    the feature's own version F (first PTX = max(F, the target's first PTX)) and exceptions."""
    m = maps[0]
    f = min(m.values(), key=VERSIONS.index)
    exc = {t: v for t, v in m.items()
           if v != max(f, TARGETS[t], key=VERSIONS.index)}
    out = {"targets": target_rule(m), "ptx": f}
    if exc:
        out["later_on"] = exc
    return out


def summarize(found: dict, first: dict) -> list[dict]:
    groups = defaultdict(list)
    for c in found:
        if first.get(c):
            groups[(instruction_of(c), c.shape, type_class(c))].append(c)
    out = []
    for (ins, shape, tc), cs in sorted(groups.items()):
        by_map = defaultdict(list)
        for c in cs:
            by_map[tuple(sorted(first[c].items()))].append(c)
        parts = []
        for mp, members in sorted(by_map.items(), key=lambda kv: -len(kv[1])):
            r = first_ptx_rule([dict(mp)])
            r["count"] = len(members)
            if len(by_map) > 1:
                r["examples"] = [x.opcode for x in members[:3]]
            parts.append(r)
        out.append({"instruction": ins, "shape": shape, "types": tc, "count": len(cs), "rules": parts})
    return out


def _by_opcode(table: dict) -> dict:
    """{statement: {(version, target)}} -> {opcode: {"statement": first one, "at": [...]}}."""
    out: dict = {}
    for line in sorted(table):
        op = line.split(" ")[0]
        e = out.setdefault(op, {"statement": line, "at": set()})
        e["at"] |= {f"{v}/{t}" for v, t in table[line]}
    return {op: {"statement": e["statement"], "at": sorted(e["at"])} for op, e in out.items()}


# ----------------------------------------------------------------------------------------------
def main() -> None:
    global JOBS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    args = ap.parse_args()
    JOBS = args.jobs
    t0 = time.time()
    clock = {}

    def lap(name):
        clock[name] = round(time.time() - t0 - sum(clock.values()), 1)
        print(f"[{time.time() - t0:6.1f}s] {name}: {len(found)} accepted, "
              f"{STATS['lines_judged']} lines judged, {STATS['ptxas_calls']} ptxas calls", flush=True)

    # 1-2. screen and resolve
    screen = screen_mma() + screen_wmma_mma() + screen_wmma_ls()
    found, why = resolve({c: None for c in screen})
    n_screen = len(screen)
    lap("screen")
    # 3. expand every qualifier dimension to a fixpoint, then the cross products
    frontier, rounds = dict(found), 0
    while frontier and rounds < 5:
        new = {c: s for c, s in expand(frontier).items() if c not in found and c not in why}
        f2, w2 = resolve(new)
        found.update(f2)
        why.update(w2)
        frontier, rounds = f2, rounds + 1
    lap(f"expand ({rounds} rounds)")
    cx = {c: s for c, s in cross(found).items() if c not in found and c not in why}
    f3, w3 = resolve(cx)
    found.update(f3)
    why.update(w3)
    # the manual's forms that the search did not reach (if any)
    manual = manual_forms()
    extra = {c: None for c in manual if c not in found and c not in why}
    f4, w4 = resolve(extra)
    found.update(f4)
    why.update(w4)
    lap("cross")
    # 4. every target at 9.5, first PTX version per target
    first = survey_targets(found)
    # every accepted statement once more, alone in its module, on a target that accepted it
    cands = [c for c in found if first[c]]
    with ThreadPoolExecutor(JOBS) as ex:
        alone = list(ex.map(lambda c: _ptxas([stmt(c, found[c].ops)], LATEST,
                                             next(iter(first[c])))[0] == 0, cands))
    for c, ok in zip(cands, alone):
        if not ok:
            first[c] = {}
    dropped = [c for c in found if not first[c]]
    for c in dropped:  # should not happen: the oracle's verdict was not reproducible
        why[c] = ["accepted in the search but not when judged again"]
        del found[c]
    n_dropped = len(dropped)
    lap("targets and versions")
    rtypes = survey_types(found)
    imms = survey_immediates(found)
    mem = survey_memory(found)
    lap("register types, immediates, memory operands")
    # 5. probes
    order = probe_order(found)
    unaligned = probe_unaligned(found, first)
    legacy_c = {}
    for c, f in found.items():
        if c.fam == "wmma.mma" and not c.sat:
            legacy_c[replace(c, sat=True)] = reseed(f, replace(c, sat=True))
    for c in manual:
        if c not in found:
            legacy_c[c] = default_ops(c)
    legacy = probe_legacy([c for c in legacy_c if c not in found], legacy_c)
    examples = run_examples("sm_120a") + run_examples("sm_80")
    lap("probes")

    # ------------------------------------------------------------------ output
    forms: dict[str, list] = {}
    form_ids: dict[str, str] = {}
    tmaps: dict[str, dict] = {}
    tmap_ids: dict[str, str] = {}

    def intern(table, ids, prefix, value):
        key = json.dumps(value, sort_keys=True)
        if key not in ids:
            ids[key] = f"{prefix}{len(ids) + 1}"
            table[ids[key]] = value
        return ids[key]

    order_key = lambda c: (family_of(c), instruction_of(c), mnk(c.shape), c.opcode)
    opcodes = []
    for c in sorted(found, key=order_key):
        f = found[c]
        ops = []
        for o, ts in zip(f.ops, rtypes[c]):
            d = o.desc()
            if o.kind == "imm":
                d["value"] = o.val
            if o.kind == "addr":
                d["form"] = "[%rd]"
            if o.kind in ("vec", "reg", "pair"):
                d["types"] = ts
            ops.append(d)
        e = {"opcode": c.opcode, "family": family_of(c), "instruction": instruction_of(c),
             "qualifiers": {k: v for k, v in qualifiers_of(c).items() if v is not None},
             "operands": intern(forms, form_ids, "O", ops),
             "first_ptx": intern(tmaps, tmap_ids, "T", dict(sorted(first[c].items(), key=lambda kv: TLIST.index(kv[0])))),
             "example": stmt(c, f.ops)}
        if imms.get(c):
            e["immediates"] = {k: v for k, v in imms[c].items()}
        if c in mem:
            e["memory"] = {"address": mem[c]["address"], "stride": mem[c]["stride"]}
        if c in WARNINGS:
            e["warnings"] = WARNINGS[c]
        if c in manual:
            e["manual_section"] = manual[c]
        opcodes.append(e)

    manual_rejected = []
    for c, sec in manual.items():
        if c not in found:
            manual_rejected.append({"opcode": c.opcode, "section": sec,
                                    "ptxas": why.get(c, ["not judged"])[:4],
                                    "older_ptx": legacy.get(c.opcode, {}).get("accepted_at")})
    beyond = Counter((instruction_of(c), c.shape, type_class(c)) for c in found if c not in manual
                     and c.fam != "mma")
    doc = {
        "ptxas": ptxas_version(),
        "generated_by": "campaigns/survey/survey_warp_mma.py",
        "method": ("Every candidate judged by ptxas -arch compute_XX (parse and semantic checks, no "
                   "code generation). An opcode is listed when some operand arrangement assembles at "
                   "PTX 9.5 on some target; first_ptx maps each target where it assembles at 9.5 to "
                   "the lowest PTX version that still accepts it, scanning down from 9.5 one module "
                   "per (version, target). Operand 'types' are the register types ptxas accepts for "
                   "that operand with the others unchanged (registers declared .b16 .f16 .u16 .s16 "
                   ".b32 .f32 .s32 .u32 .f16x2 .b64 .f64 .u64 .s64; 'imm' = immediate pair)."),
        "versions": VERSIONS,
        "targets": TARGETS,
        "counts": {
            "candidates_screened": n_screen,
            "candidates_judged": len(found) + len(why),
            "accepted": len(found),
            "accepted_then_not_reproduced": n_dropped,
            "by_instruction": dict(Counter(instruction_of(c) for c in found)),
            "lines_judged": STATS["lines_judged"],
            "ptxas_calls": STATS["ptxas_calls"],
            "seconds": round(time.time() - t0, 1),
            "seconds_by_stage": clock,
        },
        "groups": summarize(found, first),
        "operand_forms": forms,
        "target_maps": tmaps,
        "opcodes": opcodes,
        "manual": {
            "forms_in_seed_text": len(manual),
            "rejected_by_ptxas": manual_rejected,
            "accepted_beyond_seed_text": [
                {"instruction": k[0], "shape": k[1], "types": k[2], "count": n}
                for k, n in sorted(beyond.items())],
            "examples": examples,
        },
        "probes": {
            "qualifier_order": order,
            "without_aligned": unaligned,
            "older_ptx_only": legacy,
            "ptxas_crashes": _by_opcode(CRASHES),
            "errors_without_line": _by_opcode(ORPHANS),
        },
    }
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB) in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
