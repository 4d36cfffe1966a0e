#!/usr/bin/env python3
"""Ground-truth survey of `ldmatrix`, `stmatrix` and `movmatrix` with ptxas 13.5.

Nothing here reads the spec: the candidates come from first principles (every shape, matrix
count, transpose flag, state space and element type one could plausibly write, plus near misses
one step off) and ptxas says which exist. The oracle is survey_warp_mma's (`judge`,
`judge_multi`): it re-judges lines that follow a module's first error, splits modules that fail
without naming a line, and survives crashes.

1. screen   every candidate opcode with 1, 2, 4 and 8 `.b32` destination/source registers at PTX
            9.5 on four screening targets (sm_90a, sm_100a, sm_110a, sm_120a); a candidate that
            only some target rejects for target reasons is tried on every other target;
2. targets  each accepted opcode at every target ptxas knows, at every PTX version from the
            target's first to 9.5 (so both the first version and that nothing later drops it
            are measured), one module per (version, target);
3. operands register types, address forms (64/32-bit registers, offsets, variables of every
            state space), brace-less operands;
4. probes   qualifier order, `.sync`/`.aligned` left out, and the messages of every near miss.

Writes ldmatrix-ptxas-13.5.json next to this file. Usage: python3 survey_ldmatrix.py [-j N]
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import survey_warp_mma as oracle  # noqa: E402
from survey_warp_mma import LATEST, TARGETS, VERSIONS, find_ptxas, judge, judge_multi  # noqa: E402

OUT = HERE / "ldmatrix-ptxas-13.5.json"

# ----------------------------------------------------------------------------------------------
# The candidate space.
SHAPES = ["m8n8", "m8n16", "m16n8", "m16n16",
          # off shapes: every neighbour of the real ones
          "m8n4", "m4n8", "m16n32", "m32n8", "m8n32", "m32n32", "m16n4"]
NUMS = ["", "x1", "x2", "x4", "x3", "x8", "x16"]
SPACES = ["", "shared", "shared::cta", "shared::cluster", "global", "local", "const", "param"]
TYPES = ["b16", "b8", "b32", "b64", "b4", "b6", "f16", "bf16", "u16", "s16", "u8", "s8", "f32",
         "b8x16.b6x16_p32", "b8x16.b4x16_p64",
         # formats one step off
         "b8x16", "b6x16_p32", "b4x16_p64", "b8x16.b6x16_p64", "b8x16.b4x16_p32",
         "b8x8.b4x16_p64", "b8x16.b4x8_p64", "b16x16.b6x16_p32", "b8x16.b8x16_p32",
         "b8x32.b4x32_p128"]
MOV_SHAPES = ["m8n8", "m16n16", "m8n16", "m16n8"]
MOV_TYPES = ["b16", "b8", "b32", "f16", "bf16", "b4"]
COUNTS = (1, 2, 4, 8)
SCREEN = ("sm_90a", "sm_100a", "sm_110a", "sm_120a")
# every register type a fragment could be written with (pools of survey_warp_mma.module)
RTYPES = ["b32", "u32", "s32", "f32", "f16x2", "b16", "f16", "b64", "u64"]


@dataclass(frozen=True)
class Cand:
    instr: str                # ldmatrix | stmatrix | movmatrix
    shape: str
    num: str = ""
    trans: bool = False
    ss: str = ""
    type: str = "b16"
    sync: bool = True
    aligned: bool = True
    order: str = "manual"     # manual: shape.num.trans.ss.type; others: see ORDERS

    @property
    def opcode(self) -> str:
        head = self.instr + (".sync" if self.sync else "") + (".aligned" if self.aligned else "")
        parts = {"shape": [self.shape], "num": [self.num] if self.num else [],
                 "trans": ["trans"] if self.trans else [], "ss": [self.ss] if self.ss else [],
                 "type": [self.type]}
        seq = ORDERS[self.order]
        return head + "".join("." + p for k in seq for p in parts[k])


ORDERS = {"manual": ("shape", "num", "trans", "ss", "type"),
          "ss_first": ("ss", "shape", "num", "trans", "type"),
          "trans_after_ss": ("shape", "num", "ss", "trans", "type"),
          "type_first": ("type", "shape", "num", "trans", "ss"),
          "num_first": ("num", "shape", "trans", "ss", "type"),
          "trans_last": ("shape", "num", "ss", "type", "trans")}


@dataclass(frozen=True)
class Ops:
    regs: int = 1             # vector size of r / a, d
    rtype: str = "b32"
    addr: str = "[%rd199]"
    braces: bool = True       # movmatrix: plain registers when False


def stmt(c: Cand, o: Ops) -> str:
    p = oracle.PREFIX[o.rtype]
    if c.instr == "movmatrix":
        d, a = (f"%{p}0", f"%{p}1") if not o.braces else (f"{{%{p}0}}", f"{{%{p}1}}")
        return f"{c.opcode} {d}, {a};"
    regs = ", ".join(f"%{p}{i}" for i in range(o.regs))
    vec = f"{{{regs}}}" if o.braces else regs
    if c.instr == "ldmatrix":
        return f"{c.opcode} {vec}, {o.addr};"
    return f"{c.opcode} {o.addr}, {vec};"


def candidates() -> list[Cand]:
    out = []
    for instr in ("ldmatrix", "stmatrix"):
        for shape, num, trans, ss, t in itertools.product(SHAPES, NUMS, (False, True), SPACES, TYPES):
            out.append(Cand(instr, shape, num, trans, ss, t))
    for shape, trans, t in itertools.product(MOV_SHAPES, (True, False), MOV_TYPES):
        out.append(Cand("movmatrix", shape, "", trans, "", t))
        for num in ("x1", "x2"):
            out.append(Cand("movmatrix", shape, num, trans, "", t))
    return out


def operand_choices(c: Cand) -> list[Ops]:
    if c.instr == "movmatrix":
        return [Ops(braces=False), Ops(braces=True)]
    return [Ops(regs=n) for n in COUNTS]


# ----------------------------------------------------------------------------------------------
def screen(cands: list[Cand]) -> tuple[dict, dict]:
    """({cand: (Ops, a target that accepts it)}, {cand: messages at 9.5 on sm_100a})."""
    lines, owner = [], []
    for c in cands:
        for o in operand_choices(c):
            lines.append(stmt(c, o))
            owner.append((c, o))
    res = judge(lines, [(LATEST, t) for t in SCREEN])
    found: dict = {}
    why: dict = {}
    target_only = set()
    for k, (c, o) in enumerate(owner):
        for t in SCREEN:
            errs = res[(LATEST, t)][0][k]
            if not errs and c not in found:
                found[c] = (o, t)
            elif errs and t == "sm_100a":
                why.setdefault(c, {})[o.regs if c.instr != "movmatrix" else int(o.braces)] = errs
            if errs and all(oracle.TARGET_MSG.search(m) for m in errs):
                target_only.add((c, o))
    # a candidate every screening target rejected for target reasons only: try the rest
    rest = [(c, o) for (c, o) in target_only if c not in found]
    if rest:
        others = [t for t in TARGETS if t not in SCREEN]
        r2 = judge([stmt(c, o) for c, o in rest], [(LATEST, t) for t in others])
        for k, (c, o) in enumerate(rest):
            for t in others:
                if not r2[(LATEST, t)][0][k] and c not in found:
                    found[c] = (o, t)
    for c in found:
        why.pop(c, None)
    return found, why


def survey_targets(found: dict) -> dict:
    """{cand: {target: [accepted PTX versions]}} for every target and every version it knows."""
    cands = list(found)
    lines = [stmt(c, found[c][0]) for c in cands]
    tasks, keys = [], []
    for t, first in TARGETS.items():
        for v in VERSIONS[VERSIONS.index(first):]:
            tasks.append((lines, v, t))
            keys.append((v, t))
    res = judge_multi(tasks)
    acc = {c: defaultdict(list) for c in cands}
    msgs = {c: {} for c in cands}
    for (v, t), (errs, _) in zip(keys, res):
        for c, e in zip(cands, errs):
            if not e:
                acc[c][t].append(v)
            elif v == LATEST:
                msgs[c][t] = e
    return acc, msgs


def survey_operands(found: dict) -> dict:
    """Per accepted opcode: accepted register types, address forms, counts; brace-less forms."""
    addrs = {"reg64": "[%rd199]", "reg32": "[%r199]", "reg64+16": "[%rd199+16]",
             "reg64-16": "[%rd199+-16]", "reg32+16": "[%r199+16]", "imm": "[64]",
             "shared_var": "[sbuf]", "shared_var+16": "[sbuf+16]", "global_var": "[gbuf]"}
    cands = list(found)
    probes = []
    for c in cands:
        o, t = found[c]
        for rt in RTYPES:
            probes.append((c, t, "rtype", rt, replace(o, rtype=rt)))
        if c.instr != "movmatrix":
            for name, a in addrs.items():
                probes.append((c, t, "addr", name, replace(o, addr=a)))
            for n in COUNTS:
                probes.append((c, t, "regs", n, replace(o, regs=n)))
            probes.append((c, t, "braces", False, replace(o, braces=False)))
    by_t = defaultdict(list)
    for k, p in enumerate(probes):
        by_t[p[1]].append(k)
    out = {c: defaultdict(list) for c in cands}
    tasks = list(by_t.items())
    res = judge_multi([([stmt(probes[k][0], probes[k][4]) for k in ks], LATEST, t) for t, ks in tasks])
    for (t, ks), (errs, _) in zip(tasks, res):
        for k, e in zip(ks, errs):
            c, _, what, val, _ = probes[k]
            if not e:
                out[c][what].append(val)
    return out


def probe_variants(found: dict) -> dict:
    """Qualifier orders and .sync/.aligned left out, on the target that accepted each opcode."""
    probes = []
    for c, (o, t) in found.items():
        for order in ORDERS:
            if order != "manual":
                probes.append((c, t, f"order:{order}", replace(c, order=order), o))
        probes.append((c, t, "no_sync", replace(c, sync=False), o))
        probes.append((c, t, "no_aligned", replace(c, aligned=False), o))
        probes.append((c, t, "neither", replace(c, sync=False, aligned=False), o))
    by_t = defaultdict(list)
    for k, p in enumerate(probes):
        by_t[p[1]].append(k)
    tasks = list(by_t.items())
    res = judge_multi([([stmt(probes[k][3], probes[k][4]) for k in ks], LATEST, t) for t, ks in tasks])
    out: dict = defaultdict(Counter)
    msgs: dict = defaultdict(Counter)
    for (t, ks), (errs, _) in zip(tasks, res):
        for k, e in zip(ks, errs):
            c, _, what, _, _ = probes[k]
            out[what]["accepted" if not e else "rejected"] += 1
            for m in e:
                msgs[what][m] += 1
    return {w: {"count": dict(out[w]), "messages": dict(msgs[w].most_common(4))} for w in out}


# ----------------------------------------------------------------------------------------------
CODEGEN_TARGETS = ("sm_75", "sm_90a", "sm_100a", "sm_120a")
SASS_OP = re.compile(r"\b(LDSM|STSM|MOVM)(\.[A-Z0-9_]+)*")


def codegen(found: dict, acc: dict, zero_address: bool = False) -> dict:
    """{cand: {target: SASS opcodes, or the ptxas failure}}: each accepted opcode assembled
    alone with code generation (`-arch sm_XX`) on the CODEGEN_TARGETS that accept it, at a
    per-lane shared-memory address (a generic one for the forms without a state space), its
    registers stored to global memory so that nothing is optimized away, then disassembled.
    With `zero_address` the address register holds the constant 0 instead (a probe: ptxas 13.5
    crashes on the `.shared` stmatrix forms then)."""
    out: dict = {c: {} for c in found}
    jobs = []
    for c, (o, _) in found.items():
        for t in CODEGEN_TARGETS:
            if t in acc[c]:
                jobs.append((c, t, stmt(c, o)))

    def one(job):
        c, t, line = job
        if zero_address:
            addr = ["  mov.u64 %rd199, 0;", "  mov.u32 %r199, 0;"]
        elif c.ss:
            addr = ["  mov.u32 %r198, %tid.x;", "  shl.b32 %r198, %r198, 4;", "  mov.u32 %r197, sbuf;",
                    "  add.u32 %r199, %r197, %r198;", "  cvt.u64.u32 %rd199, %r199;"]
        else:
            addr = ["  mov.u32 %r198, %tid.x;", "  mul.wide.u32 %rd198, %r198, 16;", "  mov.u64 %rd197, sbuf;",
                    "  cvta.shared.u64 %rd197, %rd197;", "  add.u64 %rd199, %rd197, %rd198;"]
        text = "\n".join([".version 9.5", f".target {t}", ".address_size 64",
                          ".shared .align 16 .b8 sbuf[4096];",
                          ".visible .entry k(.param .u64 p)", "{",
                          "  .reg .b32 %r<200>;", "  .reg .b64 %rd<200>;",
                          "  .reg .f16x2 %x<8>;  .reg .f32 %f<8>;",
                          "  ld.param.u64 %rd1, [p];", *addr,
                          "  mov.b32 %r0, 1; mov.b32 %r1, 2; mov.b32 %r2, 3; mov.b32 %r3, 4;",
                          "  " + line, "  bar.sync 0;", "  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [sbuf+32];",
                          "  st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};",
                          "  st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};", "  ret;", "}", ""])
        with tempfile.TemporaryDirectory() as tmp:
            src, cub = Path(tmp, "m.ptx"), Path(tmp, "m.cubin")
            src.write_text(text)
            r = subprocess.run([find_ptxas(), "-arch", t, str(src), "-o", str(cub)], capture_output=True, text=True)
            if r.returncode != 0:
                msg = [m for m in (r.stdout + r.stderr).splitlines() if "error" in m or "fatal" in m]
                return c, t, {"ok": False, "messages": sorted(set(m.split(":", 1)[-1].strip() for m in msg))}
            d = subprocess.run([str(Path(find_ptxas()).with_name("cuobjdump")), "-sass", str(cub)],
                               capture_output=True, text=True).stdout
            return c, t, {"ok": True, "sass": [m.group(0) for m in SASS_OP.finditer(d)]}

    with ThreadPoolExecutor(oracle.JOBS) as ex:
        for c, t, r in ex.map(one, jobs):
            out[c][t] = r
    return out


def near_misses(found: dict, why: dict) -> dict:
    """Rejected candidates one step from a real accepted opcode (same instruction; one of shape,
    num, trans, state space, type changed), grouped by what ptxas says about them on sm_100a
    (the messages of the register counts tried, together)."""
    acc = {c for c in found if c.num not in ("x8", "x16")}
    fields = ("shape", "num", "trans", "ss", "type")
    groups: dict = {}
    by_field: Counter = Counter()
    count = 0
    for c in sorted(why, key=lambda c: c.opcode):
        steps = [f for f in fields
                 if any(a.instr == c.instr and getattr(a, f) != getattr(c, f)
                        and all(getattr(a, g) == getattr(c, g) for g in fields if g != f) for a in acc)]
        if not steps:
            continue
        count += 1
        by_field.update(steps)
        msgs = tuple(sorted({m for e in why[c].values() for m in e if "Illegal vector size" not in m}))
        g = groups.setdefault(msgs, {"messages": list(msgs), "count": 0, "examples": []})
        g["count"] += 1
        if len(g["examples"]) < 3:
            g["examples"].append(c.opcode)
    return {"count": count, "by_field": dict(by_field),
            "by_messages": sorted(groups.values(), key=lambda g: -g["count"])}


# The forms the manual's sections write out (9.7.14.5.15-17 of PTX ISA 9.x): its examples as
# (opcode, registers), and the cross products its syntax blocks allow.
MANUAL_EXAMPLES = [
    ("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16", 1), ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2),
    ("ldmatrix.sync.aligned.m8n8.x4.b16", 4), ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", 2),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8", 4),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8x16.b6x16_p32", 4),
    ("stmatrix.sync.aligned.m8n8.x1.shared.b16", 1), ("stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16", 2),
    ("stmatrix.sync.aligned.m8n8.x4.b16", 4), ("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", 1),
    ("stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8", 2), ("stmatrix.sync.aligned.m16n8.x4.b8", 4),
    ("movmatrix.sync.aligned.m8n8.trans.b16", 1)]


def manual_syntax() -> list[Cand]:
    """Every opcode the syntax blocks allow, read literally."""
    out = []
    for shape, num, trans, ss, t in itertools.product(["m8n8", "m16n16"], ["x1", "x2", "x4"], (False, True),
                                                      ["", "shared", "shared::cta"], ["b16", "b8"]):
        out.append(Cand("ldmatrix", shape, num, trans, ss, t))
    for num, ss, f in itertools.product(["x1", "x2", "x4"], ["", "shared", "shared::cta"],
                                        ["b8x16.b6x16_p32", "b8x16.b4x16_p64"]):
        out.append(Cand("ldmatrix", "m8n16", num, False, ss, f))
        out.append(Cand("ldmatrix", "m16n16", num, True, ss, f))
    for shape, num, trans, ss, t in itertools.product(["m8n8", "m16n8"], ["x1", "x2", "x4"], (False, True),
                                                      ["", "shared", "shared::cta"], ["b16", "b8"]):
        out.append(Cand("stmatrix", shape, num, trans, ss, t))
    out.append(Cand("movmatrix", "m8n8", "", True, "", "b16"))
    return out


def manual_check(found: dict, why: dict) -> dict:
    """The manual's examples judged at 9.5 on sm_100a, and its syntax blocks against ptxas."""
    lines = []
    for op, n in MANUAL_EXAMPLES:
        if op.startswith("movmatrix"):
            lines.append(f"{op} %r0, %r1;")
        elif op.startswith("ldmatrix"):
            lines.append(f"{op} {{{', '.join(f'%r{i}' for i in range(n))}}}, [%rd199];")
        else:
            lines.append(f"{op} [%rd199], {{{', '.join(f'%r{i}' for i in range(n))}}};")
    res = judge(lines, [(LATEST, "sm_100a")])[(LATEST, "sm_100a")][0]
    examples = [{"statement": l, "accepted": not e, "messages": e} for l, e in zip(lines, res)]
    syntax = manual_syntax()
    listed = {c.opcode for c in syntax}
    real = {c.opcode for c in found if c.num in ("x1", "x2", "x4", "")}
    return {"examples": examples,
            "syntax_forms": len(listed),
            "syntax_rejected": sorted(listed - real),
            "accepted_beyond_syntax": sorted(real - listed)}


def first_versions(acc: dict) -> dict:
    """{target: first PTX version}, and whether every later version accepts too."""
    first, gaps = {}, {}
    for t, vs in acc.items():
        known = VERSIONS[VERSIONS.index(TARGETS[t]):]
        f = min(vs, key=VERSIONS.index)
        first[t] = f
        missing = [v for v in known[known.index(f):] if v not in vs]
        if missing:
            gaps[t] = missing
    return first, gaps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", type=int, default=2, help="ptxas processes at once")
    args = ap.parse_args()
    oracle.JOBS = args.j
    t0 = time.time()
    cands = candidates()
    found, why = screen(cands)
    print(f"screen: {len(cands)} candidates, {len(found)} accepted ({time.time() - t0:.0f} s)", file=sys.stderr)
    acc, msgs = survey_targets(found)
    ops = survey_operands(found)
    probes = probe_variants(found)
    near = near_misses(found, why)
    gen = codegen(found, acc)
    zero = codegen(found, acc, zero_address=True)
    crashes_at_zero = sorted(c.opcode for c in found
                             if any(not r["ok"] for r in zero[c].values()))
    manual = manual_check(found, why)
    print(f"surveyed ({time.time() - t0:.0f} s)", file=sys.stderr)
    opcodes = []
    for c in sorted(found, key=lambda c: (c.instr, c.shape, c.type, c.num, c.trans, SPACES.index(c.ss))):
        o, t = found[c]
        first, gaps = first_versions(acc[c])
        rejected_at_95 = {t: m for t, m in msgs[c].items()}
        opcodes.append({
            "opcode": c.opcode, "instruction": c.instr, "shape": c.shape, "num": c.num,
            "trans": c.trans, "space": c.ss, "type": c.type,
            "regs": o.regs if c.instr != "movmatrix" else 1,
            "example": stmt(c, o), "first_ptx": first, "gaps": gaps,
            "off_target_messages": sorted({m for e in rejected_at_95.values() for m in e}),
            "register_types": sorted(ops[c]["rtype"]),
            "addresses": ops[c].get("addr", []),
            "vector_sizes": ops[c].get("regs", []),
            "without_braces": bool(ops[c].get("braces")),
            "codegen": gen[c],
        })
    # .x8 and .x16 pass ptxas's checks (any vector size of 1, 2 or 4) but its code generator
    # emits the one-matrix instruction for them: a ptxas defect, not forms; listed apart
    bogus = [o for o in opcodes if o["num"] in ("x8", "x16")]
    opcodes = [o for o in opcodes if o["num"] not in ("x8", "x16")]
    doc = {
        "ptxas": oracle.ptxas_version(),
        "candidates": len(cands),
        "statements_judged": oracle.STATS["lines_judged"],
        "ptxas_calls": oracle.STATS["ptxas_calls"],
        "screen_targets": list(SCREEN),
        "space": {"shapes": SHAPES, "nums": NUMS, "spaces": SPACES, "types": TYPES,
                  "movmatrix_shapes": MOV_SHAPES, "movmatrix_types": MOV_TYPES, "counts": list(COUNTS)},
        "accepted": len(opcodes),
        "opcodes": opcodes,
        "frontend_only": {"count": len(bogus), "opcodes": [
            {k: o[k] for k in ("opcode", "vector_sizes", "without_braces", "codegen")} for o in bogus]},
        "manual": manual,
        "probes": dict(probes, codegen_at_constant_address_0={
            "failing": crashes_at_zero,
            "messages": sorted({m for c in found for r in zero[c].values() if not r["ok"] for m in r["messages"]})}),
        "near_misses": near,
        "crashes": sorted(oracle.CRASHES),
        "errors_without_line": sorted(oracle.ORPHANS),
    }
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    print(f"{len(opcodes)} opcodes -> {OUT.name} ({time.time() - t0:.0f} s, "
          f"{oracle.STATS['lines_judged']} statements, {oracle.STATS['ptxas_calls']} ptxas calls)", file=sys.stderr)


if __name__ == "__main__":
    main()
