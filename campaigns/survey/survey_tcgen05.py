#!/usr/bin/env python3
"""Ground-truth survey of the tcgen05 instructions (Blackwell tensor cores, TMEM) with ptxas 13.5.

Nothing here reads the spec database or the manual's syntax tables: every instruction is
written from its parts (instruction name, qualifier slots, operand slots), the parts include
values no form uses (near misses: other CTA groups, kinds, shapes, `.num`, scale vectors,
collector buffers, state spaces, types), and ptxas 13.5 says which statements exist. The
oracle is the one of `survey_warp_mma.py` (judge_multi): many statements per module, lines
after a module's first error judged again, crashes and line-less errors isolated.

1. screen   the cross product of each instruction's base qualifier slots, each written with
            the operand arrangement its qualifiers suggest (sparse -> a metadata address,
            block scaling -> two scale addresses, `16x32bx2` -> the split offset, ...), at
            PTX 9.5 on sm_107a and sm_110a; a statement rejected there only for its target
            is tried on every other target;
2. resolve  candidates that ptxas rejects only for their operands: every arrangement of
            the instruction's operand slots, vector lengths searched one operand at a time
            (ptxas names the argument whose vector has the wrong length);
3. expand   every other qualifier slot one at a time around each accepted opcode, then the
            cross product of the values that passed;
4. forms    for each accepted opcode, every operand arrangement ptxas accepts;
5. survey   each form on every target at PTX 9.5 and, per target, the first PTX version
            (scanning down one version at a time); register types accepted per operand;
            immediate ranges; addresses; qualifier order; missing .sync/.aligned.

idesc (the 32-bit instruction descriptor) is an ordinary operand to ptxas: a register or any
32-bit immediate, its contents unchecked even when code is generated (step 5 shows it), so
M, N, K and the element types of tcgen05.mma are not part of any opcode and not checkable by
ptxas. Writes tcgen05-ptxas-13.5.json next to this file.
Usage: python3 survey_tcgen05.py [-j N] [--quick]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import survey_warp_mma as W  # noqa: E402  (the oracle, the register pools, targets, versions)

OUT = HERE / "tcgen05-ptxas-13.5.json"
TARGETS = list(W.TARGETS)          # every target ptxas 13.5 knows, with its first PTX version
VERSIONS = list(W.VERSIONS)
LATEST = W.LATEST
SCREEN = ("sm_107a", "sm_110a")    # between them every feature found; the rest retried below
FIRST_TCGEN05 = "8.5"              # versions below this are not scanned (no Blackwell target)


# ----------------------------------------------------------------------------------------------
# Operands.
@dataclass(frozen=True)
class Opd:
    """One operand as written: `kind` says how, `rt` the register type, `n` a vector's length."""
    role: str
    kind: str          # tmem [%r] | desc %rd | reg | pred | imm | vec {..} | smem [%rd] | var [sbuf]
    n: int = 1
    rt: str = "b32"
    val: str = ""

    def render(self, ctr: Counter) -> str:
        def reg(rt):
            p = W.PREFIX[rt]
            ctr[p] += 1
            return f"%{p}{ctr[p] - 1}"
        if self.kind == "imm":
            return self.val
        if self.kind == "var":
            return "[sbuf]"
        if self.kind == "tmem":
            return f"[{reg(self.rt)}{self.val}]"
        if self.kind == "smem":
            return f"[{reg(self.rt)}]"
        if self.kind == "vec":
            return "{" + ", ".join(reg(self.rt) for _ in range(self.n)) + "}"
        return reg(self.rt)

    def describe(self) -> dict:
        d = {"role": self.role, "kind": self.kind}
        if self.kind == "vec":
            d["regs"] = self.n
        if self.kind in ("reg", "vec", "tmem", "smem", "desc", "pred"):
            d["type"] = self.rt
        if self.kind == "imm":
            d["value"] = self.val
        return d


def T(role):  # a TMEM address operand
    return Opd(role, "tmem")


def D(role):  # a 64-bit descriptor register
    return Opd(role, "desc", rt="b64")


def R(role, rt="b32"):
    return Opd(role, "reg", rt=rt)


def P(role):
    return Opd(role, "pred", rt="pred")


def I(role, val):
    return Opd(role, "imm", val=str(val))


def V(role, n, rt="b32"):
    return Opd(role, "vec", n=n, rt=rt)


# ----------------------------------------------------------------------------------------------
# Instructions: qualifier slots (the universe, near misses included) and operand slots.
@dataclass(frozen=True)
class Cand:
    fam: str
    q: tuple           # one value per slot of the family, "" = absent

    @property
    def fmly(self) -> "Family":
        return FAMILIES[self.fam]

    @property
    def opcode(self) -> str:
        return self.fmly.head + "".join("." + v for v in self.q if v)

    def get(self, slot: str) -> str:
        return self.q[self.fmly.index[slot]]

    def with_(self, **kw) -> "Cand":
        q = list(self.q)
        for k, v in kw.items():
            q[self.fmly.index[k]] = v
        return Cand(self.fam, tuple(q))


class Family:
    head = "tcgen05"
    slots: list[tuple[str, list[str]]] = []   # (slot, values) in writing order
    base: tuple[str, ...] = ()                # slots crossed in the screen
    fixed: dict[str, str] = {}                # value of the other slots in the screen

    def __init__(self, name):
        self.name = name
        self.index = {s: i for i, (s, _) in enumerate(self.slots)}
        self.values = dict(self.slots)

    def screen(self) -> list[Cand]:
        dims = [self.values[s] if s in self.base else [self.fixed.get(s, "")] for s, _ in self.slots]
        return [Cand(self.name, q) for q in itertools.product(*dims)]

    def natural(self, c: Cand) -> list[tuple[Opd, ...]]:
        """The operand arrangements the qualifiers suggest (tried in the screen)."""
        raise NotImplementedError

    def arrangements(self, c: Cand) -> list[tuple[Opd, ...]]:
        """Every arrangement of the operand slots (tried when ptxas objects to the operands)."""
        return self.natural(c)


def _opt(*alts):
    """Alternatives for one operand slot: tuples of operands (empty = slot left out)."""
    return [a if isinstance(a, tuple) else (a,) for a in alts]


def _combine(*slots) -> list[tuple[Opd, ...]]:
    return [tuple(o for part in combo for o in part) for combo in itertools.product(*slots)]


CTA = ["cta_group::1", "cta_group::2", "", "cta_group::4"]


class Mma(Family):
    slots = [
        ("inst", ["mma", "mma.sp", "mma.ws", "mma.ws.sp", "mma.sp.ws"]),
        ("cta", CTA),
        ("kind", ["kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf8f6f4",
                  "kind::mxf4", "kind::mxf4nvf4", "kind::ti16",
                  "kind::f8", "kind::f6f4", "kind::i4", "kind::bf16", "kind::f32", "kind::mxf8",
                  "kind::s8", "kind::e4m3", "kind::mxf6f4", "kind::i16", ""]),
        ("bs", ["", "block_scale"]),
        ("sv", ["", "scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "scale_vec::3X",
                "scale_vec::8X", "block16", "block32", "block64", "block8"]),
        ("lut", ["", "decompress::lut::b", "decompress::lut::a"]),
        ("ashift", ["", "ashift"]),
        ("cola", ["", "collector::a::fill", "collector::a::use", "collector::a::lastuse",
                  "collector::a::discard", "collector::a::keep"]),
        ("colb", [""] + [f"collector::{b}::{o}" for b in ("b", "b0", "b1", "b2", "b3", "b4")
                         for o in ("fill", "use", "lastuse", "discard")]),
    ]
    base = ("inst", "cta", "kind", "bs", "sv")

    @staticmethod
    def _slots(c: Cand, full: bool):
        sp = ".sp" in c.get("inst") or c.get("lut") != ""
        ws = ".ws" in c.get("inst")
        bs = c.get("bs") != ""
        a = _opt(D("a_desc"), T("a_tmem"))
        # sparse: the metadata address; .decompress::lut::b: the lookup table's address
        mrole = "sp_meta" if ".sp" in c.get("inst") else "lut"
        meta = _opt((), T(mrole)) if full else _opt(T(mrole) if sp else ())
        scales = _opt((), (T("scale_a"), T("scale_b"))) if full else _opt((T("scale_a"), T("scale_b")) if bs else ())
        if full:
            mask = _opt((), V("disable_output_lane", 4), V("disable_output_lane", 8))
            # after enable-input-d an immediate is read as scale-input-d, except in .ws forms,
            # whose optional last operand (the zero-column mask) may be an immediate too: the
            # .ws forms are tried with the mask as a register (immediates: survey_types)
            sd = _opt(()) if ws else _opt((), I("scale_input_d", 1))
            zcm = _opt((), D("zero_column_mask"))
        else:
            mask, sd, zcm = _opt(()), _opt(()), _opt(())
        return _combine(_opt(T("d")), a, _opt(D("b_desc")), meta, _opt(R("idesc")), scales, mask,
                        _opt(P("enable_input_d")), sd, zcm)

    def natural(self, c):
        return self._slots(c, False)

    def arrangements(self, c):
        return self._slots(c, True)


LD_SHAPES = ["16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2",
             "32x64b", "16x32b", "8x256b", "32x32bx2"]
NUMS = ["x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128", "x256", "x3", ""]


def ld_regs(shape: str, num: str) -> int:
    """First principles: lanes x bits x repeats over 32 threads x 32 bits."""
    m = re.fullmatch(r"(\d+)x(\d+)b(x2)?", shape)
    if not m or not num:
        return 1
    lanes, bits, two = int(m.group(1)), int(m.group(2)), 2 if m.group(3) else 1
    return max(1, lanes * bits * two * int(num[1:]) // 1024)


class Ld(Family):
    slots = [
        ("inst", ["ld", "st", "ld.red", "ld.spcompress", "ld.red.spcompress", "st.red", "ld.sp"]),
        ("sync", ["sync", ""]),
        ("aligned", ["aligned", ""]),
        ("shape", LD_SHAPES),
        ("num", NUMS),
        ("sp", ["", "sp::2:4", "sp::4:8"]),
        ("pack", ["", "pack::16b", "unpack::16b"]),
        ("red", ["", "min", "max", "add"]),
        ("abs", ["", "abs"]),
        ("nan", ["", "NaN"]),
        # the element type, alone or followed by an index type (.f32.b2 of ld.spcompress)
        ("type", ["b32", "f32", "u32", "s32", "b16", "b64", "", "b32.b2", "f32.b2", "u32.b2", "s32.b2",
                  "b16.b2", "f32.b4", "f32.b1", "b2"]),
    ]
    base = ("inst", "shape", "num", "sp", "red", "type")
    fixed = {"sync": "sync", "aligned": "aligned"}

    @staticmethod
    def _slots(c: Cand, full: bool):
        inst, shape, num = c.get("inst"), c.get("shape"), c.get("num")
        n = ld_regs(shape, num)
        red = ".red" in inst
        spc = "spcompress" in inst
        k = int(num[1:]) if num[1:].isdigit() else 1
        split = _opt((), I("imm_half_splitoff", 16)) if full else _opt(I("imm_half_splitoff", 16) if shape.endswith("x2") else ())
        if spc:
            data = _opt((V("meta", max(1, -(-k // 32))), V("r", max(1, k // 2))))
        else:
            data = _opt(V("r", n))
        redval = _opt((), R("redval")) if full else _opt(R("redval") if red else ())
        if inst.startswith("st"):
            return _combine(_opt(T("taddr")), split, data)
        return _combine(data, redval, _opt(T("taddr")), split)

    def natural(self, c):
        return self._slots(c, False)

    def arrangements(self, c):
        return self._slots(c, True)


class Alloc(Family):
    slots = [
        ("inst", ["alloc", "dealloc", "relinquish_alloc_permit"]),
        ("cta", CTA),
        ("excl", ["", "exclusive"]),
        ("sync", ["sync", ""]),
        ("aligned", ["aligned", ""]),
        ("space", ["", "shared::cta", "shared", "shared::cluster", "global"]),
        ("type", ["b32", "b64", ""]),
    ]
    base = tuple(s for s, _ in slots)

    def _slots(self, c, full):
        inst = c.get("inst")
        if inst == "relinquish_alloc_permit":
            return [()]
        ncols = _opt(I("ncols", 32), R("ncols")) if full else _opt(I("ncols", 32))
        if inst == "alloc":
            dst = _opt(Opd("dst", "smem", rt="b64"), Opd("dst", "smem", rt="b32"), Opd("dst", "var")) \
                if full else _opt(Opd("dst", "smem", rt="b64"))
            return _combine(dst, ncols)
        taddr = _opt(R("taddr"), R("taddr", "b64")) if full else _opt(R("taddr"))
        return _combine(taddr, ncols)

    def natural(self, c):
        return self._slots(c, False)

    def arrangements(self, c):
        return self._slots(c, True)


class Commit(Family):
    slots = [
        ("cta", CTA),
        ("restrict", ["", "sync_restrict::shared::read::mma::a", "sync_restrict::shared::read::mma::b"]),
        ("mech", ["mbarrier::arrive::one", "", "mbarrier::arrive", "mbarrier::arrive::two"]),
        ("space", ["", "shared::cluster", "shared::cta", "shared"]),
        ("mc", ["", "multicast::cluster", "multicast::cluster::32b", "multicast::cta"]),
        ("type", ["b64", "b32", ""]),
    ]
    base = tuple(s for s, _ in slots)
    head = "tcgen05.commit"

    def _slots(self, c, full):
        mbar = _opt(Opd("mbar", "smem", rt="b64"), Opd("mbar", "smem", rt="b32"), Opd("mbar", "var")) \
            if full else _opt(Opd("mbar", "smem", rt="b64"))
        if full:
            mask = _opt((), R("cta_mask", "b16"), R("cta_mask", "b32"), I("cta_mask", 3))
        else:
            mask = _opt(R("cta_mask", "b16") if c.get("mc") else ())
        return _combine(mbar, mask)

    def natural(self, c):
        return self._slots(c, False)

    def arrangements(self, c):
        return self._slots(c, True)


class Cp(Family):
    slots = [
        ("cta", CTA),
        ("shape", ["128x256b", "4x256b", "128x128b", "64x128b", "32x128b",
                   "128x64b", "64x256b", "32x256b", "16x256b", "4x128b"]),
        ("mc", ["", "warpx2::02_13", "warpx2::01_23", "warpx4", "warpx2::03_12", "warpx8"]),
        ("dst", ["", "b8x16", "b8x8", "b16x16"]),
        ("src", ["", "b6x16_p32", "b4x16_p64", "b4x16_p32", "b6x16"]),
    ]
    base = tuple(s for s, _ in slots)
    head = "tcgen05.cp"

    def _slots(self, c, full):
        taddr = _opt(T("taddr"), Opd("taddr", "tmem", rt="b64")) if full else _opt(T("taddr"))
        sdesc = _opt(D("s_desc"), R("s_desc"), Opd("s_desc", "smem", rt="b64")) if full else _opt(D("s_desc"))
        return _combine(taddr, sdesc)

    def natural(self, c):
        return self._slots(c, False)

    def arrangements(self, c):
        return self._slots(c, True)


class Shift(Family):
    slots = [("cta", CTA), ("dir", ["down", "up", ""])]
    base = ("cta", "dir")
    head = "tcgen05.shift"

    def natural(self, c):
        return [(T("taddr"),)]

    def arrangements(self, c):
        return [(T("taddr"),), (Opd("taddr", "tmem", rt="b64"),), (R("taddr"),)]


class Wait(Family):
    slots = [("what", ["wait::ld", "wait::st", "wait::mma", "wait::cp", "wait"]),
             ("sync", ["sync", ""]), ("aligned", ["aligned", ""])]
    base = tuple(s for s, _ in slots)

    def natural(self, c):
        return [()]


class Fence(Family):
    slots = [("what", ["fence::before_thread_sync", "fence::after_thread_sync", "fence::proxy",
                       "fence", "fence::mma"]),
             ("sync", ["", "sync"]), ("aligned", ["", "aligned"])]
    base = tuple(s for s, _ in slots)

    def natural(self, c):
        return [()]


FAMILIES: dict[str, Family] = {}
for _name, _cls in [("mma", Mma), ("ld", Ld), ("alloc", Alloc), ("commit", Commit), ("cp", Cp),
                    ("shift", Shift), ("wait", Wait), ("fence", Fence)]:
    FAMILIES[_name] = _cls(_name)


def instruction(c: Cand) -> str:
    """The instruction a candidate belongs to (tcgen05.mma.ws.sp, tcgen05.ld.red, ...)."""
    if c.fam in ("mma", "ld", "alloc"):
        return "tcgen05." + c.get("inst")
    if c.fam in ("wait", "fence"):
        return "tcgen05." + c.get("what").split("::")[0]
    return FAMILIES[c.fam].head


def stmt(c: Cand, ops: tuple) -> str:
    ctr: Counter = Counter()
    return f"{c.opcode} {', '.join(o.render(ctr) for o in ops)};" if ops else f"{c.opcode};"


# ----------------------------------------------------------------------------------------------
# Judging.
TARGET_MSG = re.compile(r"not supported on \.target|requires \.target|requires sm_|"
                        r"not supported on target|Feature .* not supported")
OPERAND_MSG = re.compile(r"Arguments mismatch|vector size mismatch|Vector expected|"
                         r"Unexpected number of arguments|must be constant|Illegal operand type|"
                         r"must be register|expected to be|out of range|Illegal to use symbol|"
                         r"State space incorrect|Unknown symbol")
VEC_MSG = re.compile(r"Argument (\d+) of instruction '[^']*': Argument vector size mismatch")
VEC_SIZES = (1, 2, 3, 4, 8, 16, 32, 64, 128, 256)


def only_target(errs) -> bool:
    return bool(errs) and all(TARGET_MSG.search(m) for m in errs)


def operandish(errs) -> bool:
    return any(OPERAND_MSG.search(m) for m in errs) or only_target(errs)


def judge(lines: list[str], pairs: list[tuple[str, str]]) -> dict:
    return dict(zip(pairs, W.judge_multi([(lines, v, t) for v, t in pairs])))


def first_ok(res: dict, pairs, i) -> str | None:
    for v, t in pairs:
        if not res[(v, t)][0][i]:
            return t
    return None


def vec_variants(ops: tuple, errs: list[str]) -> list[tuple]:
    """Other vector lengths for the arguments ptxas names as having the wrong length."""
    bad = sorted({int(m.group(1)) for e in errs for m in [VEC_MSG.search(e)] if m})
    out = []
    for k in bad:
        if k < len(ops) and ops[k].kind == "vec":
            out += [ops[:k] + (replace(ops[k], n=n),) + ops[k + 1:] for n in VEC_SIZES if n != ops[k].n]
    return out


FATAL: dict[tuple, list[str]] = {}   # (family, slot, value) -> the syntax error it causes


def screen_tokens() -> None:
    """Qualifier values ptxas cannot even parse (`fatal: Parsing error`, e.g. an unknown shape
    such as .32x64b) stop a whole module, so a module full of them costs one ptxas run per
    line. Each value is first tried alone in the family's first screening candidate; a value
    that is a syntax error there is recorded and every candidate using it is rejected with
    that message instead of being assembled."""
    tries = []
    for f in FAMILIES.values():
        c0 = f.screen()[0]
        for s, vals in f.slots:
            for v in vals:
                c = c0.with_(**{s: v})
                tries.append(((f.name, s, v), stmt(c, f.natural(c)[0])))
    for t in SCREEN:
        res = judge([x for _, x in tries], [(LATEST, t)])[(LATEST, t)][0]
        for (key, _), e in zip(tries, res):
            if any(m.startswith("fatal") for m in e):
                FATAL[key] = e


def fatal_of(c: Cand) -> list[str] | None:
    for s, v in zip([s for s, _ in c.fmly.slots], c.q):
        if (c.fam, s, v) in FATAL:
            return FATAL[(c.fam, s, v)]
    return None


def resolve(cands: list[Cand], screen=SCREEN) -> tuple[dict, dict]:
    """{cand: (operands, target)} for candidates ptxas accepts with some arrangement at PTX
    9.5, {cand: messages} for the others."""
    found: dict[Cand, tuple] = {}
    why: dict[Cand, list[str]] = {}
    for c in cands:
        if fatal_of(c):
            why[c] = fatal_of(c)
    cands = [c for c in cands if c not in why]
    if not cands:
        return found, why
    pairs = [(LATEST, t) for t in screen]
    # 1. the natural arrangements on the screening targets
    tries = [(c, ops) for c in cands for ops in c.fmly.natural(c)]
    res = judge([stmt(c, o) for c, o in tries], pairs)
    per: dict[Cand, list] = defaultdict(list)
    for i, (c, ops) in enumerate(tries):
        t = first_ok(res, pairs, i)
        if t and c not in found:
            found[c] = (ops, t)
        per[c].append([(t, res[(v, t)][0][i]) for v, t in pairs])
    rest = [c for c in cands if c not in found]
    # 2. target-only objections everywhere: try the other targets
    onlyt = [c for c in rest if all(only_target(e) for rows in per[c] for _, e in rows)]
    others = [t for t in TARGETS if t not in screen]
    if onlyt:
        tries2 = [(c, ops) for c in onlyt for ops in c.fmly.natural(c)]
        p2 = [(LATEST, t) for t in others]
        r2 = judge([stmt(c, o) for c, o in tries2], p2)
        for i, (c, ops) in enumerate(tries2):
            t = first_ok(r2, p2, i)
            if t and c not in found:
                found[c] = (ops, t)
            for v, tt in p2:
                per[c].append([(tt, r2[(v, tt)][0][i])])
    # 3. operand-level objections: every arrangement, vector lengths searched
    todo = {}
    for c in cands:
        if c in found:
            continue
        rows = [(t, e) for r in per[c] for t, e in r]
        cand_t = [t for t, e in rows if operandish(e) and not only_target(e)]
        if cand_t:
            todo[c] = cand_t[0]
        else:
            why[c] = rows[0][1]
    attempts = {c: [(ops, t) for ops in c.fmly.arrangements(c)] for c, t in todo.items()}
    for _round in range(4):
        if not attempts:
            break
        flat = [(c, ops, t) for c, lst in attempts.items() for ops, t in lst]
        by_t = defaultdict(list)
        for j, (c, ops, t) in enumerate(flat):
            by_t[t].append(j)
        verdict = {}
        for t, idx in by_t.items():
            r = judge([stmt(flat[j][0], flat[j][1]) for j in idx], [(LATEST, t)])[(LATEST, t)][0]
            for j, e in zip(idx, r):
                verdict[j] = e
        nxt = defaultdict(list)
        for j, (c, ops, t) in enumerate(flat):
            e = verdict[j]
            if c in found:
                continue
            if not e:
                found[c] = (ops, t)
                continue
            why.setdefault(c, e)
            for alt in vec_variants(ops, e):
                nxt[c].append((alt, t))
        attempts = {c: v for c, v in nxt.items() if c not in found}
    for c in found:
        why.pop(c, None)
    for c in cands:
        if c not in found and c not in why:
            why[c] = ["(no verdict)"]
    return found, why


def expand(found: dict) -> list[Cand]:
    """Every non-base slot varied one at a time around each accepted opcode."""
    out = set()
    for c in found:
        f = c.fmly
        for s, vals in f.slots:
            if s in f.base:
                continue
            for v in vals:
                if v != c.get(s):
                    out.add(c.with_(**{s: v}))
    return sorted(out, key=lambda c: (c.fam, c.q))


def cross(found: dict) -> list[Cand]:
    """Cross product of the non-base slot values that passed, per base opcode."""
    groups = defaultdict(lambda: defaultdict(set))
    for c in found:
        f = c.fmly
        key = tuple(c.get(s) for s in f.base)
        for s, _ in f.slots:
            if s not in f.base:
                groups[(c.fam, key)][s].add(c.get(s))
    out = []
    for (fam, key), vals in groups.items():
        f = FAMILIES[fam]
        extra = [s for s, _ in f.slots if s not in f.base]
        dims = [sorted(vals[s]) for s in extra]
        for combo in itertools.product(*dims):
            q = list(range(len(f.slots)))
            for s, v in zip(f.base, key):
                q[f.index[s]] = v
            for s, v in zip(extra, combo):
                q[f.index[s]] = v
            out.append(Cand(fam, tuple(q)))
    return out


# ----------------------------------------------------------------------------------------------
# Forms, targets, versions.
def forms_of(found: dict) -> dict[Cand, list[tuple]]:
    """Every operand arrangement ptxas accepts, per opcode (vector lengths from the resolved
    arrangement carried over, and searched again where ptxas objects to them)."""
    out: dict[Cand, list[tuple]] = {}
    tries = []
    for c, (ops0, t) in found.items():
        lens = {o.role: o.n for o in ops0 if o.kind == "vec"}
        for ops in c.fmly.arrangements(c):
            ops = tuple(replace(o, n=lens.get(o.role, o.n)) if o.kind == "vec" else o for o in ops)
            tries.append((c, ops, t))
    for _round in range(3):
        by_t = defaultdict(list)
        for j, x in enumerate(tries):
            by_t[x[2]].append(j)
        verdict = {}
        for t, idx in by_t.items():
            r = judge([stmt(tries[j][0], tries[j][1]) for j in idx], [(LATEST, t)])[(LATEST, t)][0]
            verdict.update(zip(idx, r))
        nxt = []
        for j, (c, ops, t) in enumerate(tries):
            e = verdict[j]
            if not e:
                if ops not in out.setdefault(c, []):
                    out[c].append(ops)
            elif _round < 2:
                nxt += [(c, alt, t) for alt in vec_variants(ops, e)]
        tries = nxt
        if not tries:
            break
    for c, (ops0, t) in found.items():
        out.setdefault(c, [ops0])
    return out


def vkey(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


def survey_targets(lines: list[str]) -> list[dict]:
    """{target: first PTX version} per line: every target at 9.5, then down one version at a
    time while the line is accepted (and the target exists at that version)."""
    first = [dict() for _ in lines]
    pairs = [(LATEST, t) for t in TARGETS]
    res = judge(lines, pairs)
    alive = defaultdict(list)
    for t in TARGETS:
        for i in range(len(lines)):
            if not res[(LATEST, t)][0][i]:
                first[i][t] = LATEST
                alive[t].append(i)
    down = [v for v in reversed(VERSIONS) if vkey(v) < vkey(LATEST) and vkey(v) >= vkey(FIRST_TCGEN05)]
    for v in down:
        batch = [(t, i) for t, idx in alive.items() if vkey(v) >= vkey(W.TARGETS[t]) for i in idx]
        if not batch:
            break
        by_t = defaultdict(list)
        for t, i in batch:
            by_t[t].append(i)
        r = judge_each(lines, by_t, v)
        alive = defaultdict(list)
        for t, idx in by_t.items():
            for i, e in zip(idx, r[t]):
                if not e:
                    first[i][t] = v
                    alive[t].append(i)
    return first


def judge_each(lines, by_t: dict, v: str) -> dict:
    tasks = [([lines[i] for i in idx], v, t) for t, idx in by_t.items()]
    out = W.judge_multi(tasks)
    return {t: errs for (t, _), (errs, _) in zip(by_t.items(), out)}


# ----------------------------------------------------------------------------------------------
# Register types, immediates, addresses, order, idesc.
RTYPES = ["b32", "s32", "u32", "f32", "b64", "u64", "s64", "f64", "b16", "u16", "s16", "f16", "f16x2", "pred"]


def survey_types(reps: list[tuple[Cand, tuple, str]]) -> list[dict]:
    """For one form per group: which register types each register operand accepts, and
    whether an immediate is accepted in its place."""
    tries, where = [], []
    for gi, (c, ops, t) in enumerate(reps):
        for k, o in enumerate(ops):
            if o.kind in ("imm", "var"):
                continue
            alts = [replace(o, rt=rt) for rt in RTYPES]
            if o.kind in ("reg", "desc", "pred"):
                alts.append(Opd(o.role, "imm", val="1"))
            for a in alts:
                tries.append((stmt(c, ops[:k] + (a,) + ops[k + 1:]), t))
                where.append((gi, k, a.rt if a.kind != "imm" else "imm"))
    by_t = defaultdict(list)
    for j, (_, t) in enumerate(tries):
        by_t[t].append(j)
    ok = {}
    for t, idx in by_t.items():
        r = judge([tries[j][0] for j in idx], [(LATEST, t)])[(LATEST, t)][0]
        ok.update({j: not e for j, e in zip(idx, r)})
    out = [defaultdict(list) for _ in reps]
    for j, (gi, k, rt) in enumerate(where):
        if ok[j]:
            out[gi][k].append(rt)
    return [{reps[gi][1][k].role: v for k, v in d.items()} for gi, d in enumerate(out)]


def sweep(c: Cand, ops: tuple, role: str, values, t: str, kind="imm") -> list:
    k = [o.role for o in ops].index(role)
    lines = []
    for v in values:
        o = Opd(role, "imm", val=str(v)) if kind == "imm" else replace(ops[k], val=str(v))
        lines.append(stmt(c, ops[:k] + (o,) + ops[k + 1:]))
    errs = judge(lines, [(LATEST, t)])[(LATEST, t)][0]
    return [v for v, e in zip(values, errs) if not e]


def pick(forms: dict, first: dict, pred) -> tuple | None:
    for c, lst in forms.items():
        for ops in lst:
            if pred(c, ops) and first.get((c, ops)):
                return c, ops, next(iter(first[(c, ops)]))
    return None


def survey_immediates(forms: dict, first: dict) -> dict:
    out = {}
    roles = lambda ops: [o.role for o in ops]  # noqa: E731

    def has(inst, role, imm=True):
        return lambda c, ops: instruction(c) == inst and role in roles(ops) and \
            (not imm or ops[roles(ops).index(role)].kind == "imm")
    checks = [
        ("tcgen05.alloc ncols", has("tcgen05.alloc", "ncols"), "ncols",
         [-32, 0, 1, 16, 31, 32, 33, 48, 64, 96, 128, 160, 192, 256, 384, 512, 544, 640, 768, 1024, 2048]),
        ("tcgen05.dealloc ncols", has("tcgen05.dealloc", "ncols"), "ncols",
         [-32, 0, 16, 32, 48, 64, 96, 128, 256, 384, 512, 1024]),
        ("tcgen05.mma scale_input_d", has("tcgen05.mma", "scale_input_d"), "scale_input_d",
         list(range(-2, 18)) + [0x10, 255]),
        ("tcgen05.mma enable_input_d", has("tcgen05.mma", "enable_input_d", imm=False), "enable_input_d",
         [0, 1, 2, -1]),
        ("tcgen05.mma idesc", has("tcgen05.mma", "idesc", imm=False), "idesc",
         [0, 1, 0x08400010, 0x7FFFFFFF, 0xFFFFFFFF, 0x100000000, -1]),
        ("tcgen05.mma.ws zero_column_mask", has("tcgen05.mma.ws", "zero_column_mask", imm=False),
         "zero_column_mask", [0, 1, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, -1]),
        ("tcgen05.ld imm_half_splitoff", has("tcgen05.ld", "imm_half_splitoff"), "imm_half_splitoff",
         [-1, 0, 1, 2, 4, 8, 15, 16, 31, 32, 64, 128, 256, 511, 512, 0x10000, 0x7FFFFFFF, 0x100000000]),
        ("tcgen05.st imm_half_splitoff", has("tcgen05.st", "imm_half_splitoff"), "imm_half_splitoff",
         [-1, 0, 1, 16, 512, 0x10000, 0x100000000]),
        ("tcgen05.commit cta_mask", has("tcgen05.commit", "cta_mask"), "cta_mask",
         [-1, 0, 1, 3, 0xFF, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x100000000]),
    ]
    for name, pred, role, values in checks:
        p = pick(forms, first, pred)
        if p:
            c, ops, t = p
            out[name] = {"statement": stmt(c, ops), "tried": [str(v) for v in values],
                         "accepted": [str(v) for v in sweep(c, ops, role, values, t)]}
    # TMEM address offsets ([%r+imm]) on ld and mma
    for name, inst, role in [("tcgen05.ld taddr offset", "tcgen05.ld", "taddr"),
                             ("tcgen05.mma d offset", "tcgen05.mma", "d")]:
        p = pick(forms, first, lambda c, ops, i=inst, r=role: instruction(c) == i and r in roles(ops))
        if p:
            c, ops, t = p
            vals = ["+4", "+0x10000", "-4", "+0x7fffffff"]
            out[name] = {"statement": stmt(c, ops), "tried": vals,
                         "accepted": sweep(c, ops, role, vals, t, kind="val")}
    return out


def probe_order(forms: dict, first: dict, n=300) -> dict:
    """Qualifier order: shuffled qualifiers of accepted opcodes (after the instruction name)."""
    rng = random.Random(13)
    picks = [(c, lst[0]) for c, lst in forms.items() if first.get((c, lst[0]))]
    rng.shuffle(picks)
    lines, meta = [], []
    for c, ops in picks[:n]:
        head = instruction(c)
        # each qualifier slot after the instruction name moves as a unit (f32.b2 too)
        named = {"mma": {"inst"}, "ld": {"inst"}, "alloc": {"inst"}, "wait": {"what"}, "fence": {"what"}}
        skip = named.get(c.fam, set())
        parts = [v for (s, _), v in zip(c.fmly.slots, c.q) if v and s not in skip]
        if c.fam in ("wait", "fence"):
            head = "tcgen05." + c.get("what")
        if len(parts) < 2:
            continue
        sh = parts[:]
        while sh == parts:
            rng.shuffle(sh)
        ctr: Counter = Counter()
        lines.append(f"{head}.{'.'.join(sh)} " + ", ".join(o.render(ctr) for o in ops) + ";")
        meta.append(next(iter(first[(c, ops)])))
    ok = 0
    rejected = []
    by_t = defaultdict(list)
    for j, t in enumerate(meta):
        by_t[t].append(j)
    for t, idx in by_t.items():
        r = judge([lines[j] for j in idx], [(LATEST, t)])[(LATEST, t)][0]
        for j, e in zip(idx, r):
            if e:
                rejected.append({"statement": lines[j], "messages": e})
            else:
                ok += 1
    return {"tried": len(lines), "accepted": ok, "rejected_examples": rejected[:12]}


# idesc values no kind allows (by the manual's tables): each is written as an immediate and
# assembled with code generation (-arch sm_100a), one statement per module.
BAD_IDESCS = {
    "f16 M=128 N=256 (legal)": ("kind::f16", 0x08400010),
    "all ones": ("kind::f16", 0xFFFFFFFF),
    "zero (M=0, N=0)": ("kind::f16", 0x0),
    "f16 N=264 (above 256)": ("kind::f16", (8 << 24) | (33 << 17) | (1 << 4)),
    "f16 N=4 (not a multiple of 8)": ("kind::f16", (8 << 24) | (0 << 17) | (1 << 4)),
    "f16 M=32 (no M=32 outside .ws)": ("kind::f16", (2 << 24) | (16 << 17) | (1 << 4)),
    "f16 dtype S32": ("kind::f16", (8 << 24) | (16 << 17) | (2 << 4)),
    "f16 atype E2M1 (an f8f6f4 code)": ("kind::f16", (8 << 24) | (16 << 17) | (1 << 4) | (5 << 7)),
    "f16 reserved bit 6 set": ("kind::f16", 0x08400010 | (1 << 6)),
    "tf32 atype F16": ("kind::tf32", (8 << 24) | (16 << 17) | (1 << 4)),
    "i8 dtype F32 and negate A": ("kind::i8", (8 << 24) | (16 << 17) | (1 << 4) | (1 << 13)),
    "f8f6f4 atype code 2 (undefined)": ("kind::f8f6f4", (8 << 24) | (16 << 17) | (1 << 4) | (2 << 7)),
    "sparse bit set in a dense statement": ("kind::f16", 0x08400010 | (1 << 2)),
}


def probe_idesc_codegen() -> dict:
    """Is an immediate idesc checked when code is generated for sm_100a? One module each."""
    import subprocess
    import tempfile
    res = {}
    for name, (kind, v) in BAD_IDESCS.items():
        text, _ = W.module([f"tcgen05.mma.cta_group::1.{kind} [%r1], %rd1, %rd2, {v:#010x}, %p1;"], LATEST, "sm_100a")
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(text)
        p = subprocess.run([W.find_ptxas(), "-arch", "sm_100a", f.name, "-o", os.devnull],
                           capture_output=True, text=True)
        os.unlink(f.name)
        res[f"{name}: {kind} {v:#010x}"] = "assembled" if p.returncode == 0 else p.stderr.strip()[:200]
    return res


def probe_unaligned(forms: dict, first: dict) -> dict:
    """Accepted opcodes written without .sync / .aligned, on a target that accepts them."""
    out = Counter()
    examples = {}
    lines, ts = [], []
    for c, lst in forms.items():
        f = c.fmly
        if "sync" not in f.index or c.get("sync") != "sync":
            continue
        ops = lst[0]
        if not first.get((c, ops)):
            continue
        for drop in ("sync", "aligned"):
            lines.append((drop, stmt(c.with_(**{drop: ""}), ops)))
            ts.append(next(iter(first[(c, ops)])))
    by_t = defaultdict(list)
    for j, t in enumerate(ts):
        by_t[t].append(j)
    for t, idx in by_t.items():
        r = judge([lines[j][1] for j in idx], [(LATEST, t)])[(LATEST, t)][0]
        for j, e in zip(idx, r):
            drop = lines[j][0]
            out[f"without .{drop}: {'accepted' if not e else 'rejected'}"] += 1
            if e and drop not in examples:
                examples[drop] = {"statement": lines[j][1], "messages": e}
    return {"counts": dict(out), "examples": examples}


# ----------------------------------------------------------------------------------------------
# Output.
def near_miss_summary(why: dict) -> dict:
    """Rejected candidates: counts per instruction and per first message (numbers and names
    stripped), with one example each."""
    per_inst = Counter(instruction(c) for c in why)
    msgs = defaultdict(lambda: [0, None])
    for c, e in why.items():
        key = re.sub(r"'[^']*'|\d+", "_", e[0]) if e else "(none)"
        msgs[key][0] += 1
        if msgs[key][1] is None:
            msgs[key][1] = c.opcode
    top = sorted(msgs.items(), key=lambda kv: -kv[1][0])
    return {"rejected_opcodes": dict(sorted(per_inst.items())),
            "messages": [{"message": k, "count": n, "example": ex} for k, (n, ex) in top]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    args = ap.parse_args()
    W.JOBS = args.jobs
    W.CHUNK = 1500   # smaller modules: a syntax error ptxas stops at costs less
    W.POOL = 600     # registers per type: 16x256b.x128 would need 512
    t0 = time.time()
    clock = {}

    def lap(name, extra=""):
        clock[name] = round(time.time() - t0 - sum(clock.values()), 1)
        print(f"[{time.time() - t0:6.1f}s] {name}: {extra} {W.STATS['lines_judged']} lines judged, "
              f"{W.STATS['ptxas_calls']} ptxas calls", flush=True)

    screen_tokens()
    lap("token screen", f"{len(FATAL)} qualifier values are syntax errors,")
    screen = [c for f in FAMILIES.values() for c in f.screen()]
    found, why = resolve(screen)
    lap("screen", f"{len(screen)} candidates, {len(found)} accepted,")
    frontier, rounds = dict(found), 0
    while frontier and rounds < 10:
        new = [c for c in expand(frontier) if c not in found and c not in why]
        f2, w2 = resolve(new)
        found.update(f2)
        why.update(w2)
        frontier, rounds = f2, rounds + 1
    lap(f"expand ({rounds} rounds)", f"{len(found)} accepted,")
    cx = [c for c in cross(found) if c not in found and c not in why]
    f3, w3 = resolve(cx)
    found.update(f3)
    why.update(w3)
    lap("cross", f"{len(found)} accepted, {len(why)} rejected,")
    forms = forms_of(found)
    flat = [(c, ops) for c in sorted(forms, key=lambda c: (c.fam, c.q)) for ops in forms[c]]
    lap("forms", f"{len(flat)} forms,")
    lines = [stmt(c, ops) for c, ops in flat]
    fv = survey_targets(lines)
    first = {k: v for k, v in zip(flat, fv)}
    lap("targets and versions")
    # register types: one form per (instruction, operand roles and kinds)
    groups = {}
    for (c, ops), tv in first.items():
        if not tv:
            continue
        key = (instruction(c), c.get("kind") if c.fam == "mma" else "", c.get("shape") if c.fam == "ld" else "",
               tuple((o.role, o.kind) for o in ops))
        groups.setdefault(key, (c, ops, next(iter(tv))))
    reps = list(groups.values())
    rtypes = survey_types(reps)
    imms = survey_immediates(forms, first)
    order = probe_order(forms, first)
    unaligned = probe_unaligned(forms, first)
    codegen = probe_idesc_codegen()
    lap("types, immediates, probes")

    # ------------------------------------------------------------------ JSON
    tmaps, tmap_ids = {}, {}

    def intern_tmap(m):
        key = json.dumps(m, sort_keys=True)
        if key not in tmap_ids:
            tmap_ids[key] = f"t{len(tmap_ids)}"
            tmaps[tmap_ids[key]] = dict(sorted(m.items()))
        return tmap_ids[key]

    sigs, sig_ids = {}, {}

    def intern_sig(ops):
        text = ", ".join(o.role + (f"[{o.n}]" if o.kind == "vec" else "") +
                         (f"={o.val}" if o.kind == "imm" else "") +
                         ("" if o.kind in ("vec", "imm") else f":{o.kind}/{o.rt}") for o in ops)
        if text not in sig_ids:
            sig_ids[text] = f"f{len(sig_ids)}"
            sigs[sig_ids[text]] = text
        return sig_ids[text]

    opcodes = []
    for c in sorted(forms, key=lambda c: (instruction(c), c.opcode)):
        fl = [[intern_sig(ops), intern_tmap(first[(c, ops)])] for ops in forms[c] if first[(c, ops)]]
        if fl:
            quals = {s: v for s, v in zip([s for s, _ in c.fmly.slots], c.q) if v}
            ops0 = next(ops for ops in forms[c] if first[(c, ops)])
            opcodes.append({"opcode": c.opcode, "instruction": instruction(c), "qualifiers": quals,
                            "example": stmt(c, ops0), "forms": fl})
    per_inst = Counter(o["instruction"] for o in opcodes)
    per_inst_forms = Counter()
    for o in opcodes:
        per_inst_forms[o["instruction"]] += len(o["forms"])
    type_rows = []
    for (c, ops, t), rt in zip(reps, rtypes):
        type_rows.append({"statement": stmt(c, ops), "target": t, "accepted_types": rt})
    doc = {
        "about": "tcgen05 opcodes and operand forms accepted by ptxas 13.5, from first-principles "
                 "candidates; see survey_tcgen05.py and tcgen05.md",
        "ptxas": W.ptxas_version(),
        "summary": {
            "candidates_judged": len(found) + len(why),
            "accepted_opcodes": len(opcodes),
            "accepted_forms": sum(per_inst_forms.values()),
            "opcodes_per_instruction": dict(sorted(per_inst.items())),
            "forms_per_instruction": dict(sorted(per_inst_forms.items())),
        },
        "target_maps": tmaps,
        "operand_forms": sigs,
        "opcodes": opcodes,
        "register_types": type_rows,
        "immediates": imms,
        "probes": {
            "qualifier_order": order,
            "without_sync_aligned": unaligned,
            "idesc_immediate_with_codegen_sm_100a": codegen,
            "ptxas_crash_count": len(W.CRASHES),
            "ptxas_crashes": sorted(W.CRASHES)[:20],
            "errors_without_line": sorted(W.ORPHANS)[:20],
        },
        "near_misses": near_miss_summary(why),
        "syntax_error_values": {f"{fam}.{slot}={v}": e[0] for (fam, slot, v), e in sorted(FATAL.items())},
    }
    # one opcode per line: small, and diffs of a rerun stay readable
    text = json.dumps({k: v for k, v in doc.items() if k != "opcodes"}, indent=1)
    body = ",\n".join(json.dumps(o, separators=(",", ":")) for o in opcodes)
    args.out.write_text(text[:-2] + ',\n "opcodes": [\n' + body + "\n]\n}\n")
    lap("written", f"{args.out} ({args.out.stat().st_size // 1024} KiB),")


if __name__ == "__main__":
    main()
