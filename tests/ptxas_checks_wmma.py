"""The warp-level families' checks of ptxas (tests/ptxas_facts.py says what a check is), beyond every
family's versions check: wmma's optional stride, its one-token near misses, its register counts and
widths, the .satfinite PTX 6.5 removed; and the first-principles search of mma and wmma
(campaigns/survey/survey_warp_mma.py, steps 1-3), whose accepted opcodes must be the spec's.

ptxas 13.5 can blame the wrong line of a module of wmma statements (a wmma.store.d at a shape with
no built-in routine makes it report "Unknown symbol" on later valid lines): every verdict that
differs from the spec's is judged again alone (tests/ptxas_facts.judge).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from ptxas_facts import Case, Check, Found, digest
from ptxspec.model import ptx_text as asm
from ptxspec.model.isa import Version

LATEST = Version(9, 5)
TARGET = "sm_90a"  # every wmma variant is valid there at PTX 9.5
SURVEY = Path(__file__).resolve().parents[1] / "campaigns" / "survey" / "survey_warp_mma.py"

SHAPES = ["m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128",
          "m16n8k16", "m8n8k16", "m16n16k32"]
TYPES = ["f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s4", "u4", "b1", "s32", "e4m3"]
LAYOUTS = ["row", "col"]
SPACES = ["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]
RND = ["rn", "rz", "rm", "rp"]


def checks() -> list[Check]:
    return [
        Check("wmma-stride", "Every wmma.load / wmma.store.d without its optional stride, on every target at its "
              "first PTX version, and with a constant stride at PTX 9.5 on sm_90a: each assembles.",
              "test_ptxas_wmma.py::test_stride_is_optional_on_every_target", "cases", _stride,
              sanity=lambda cases, ok: [] if len(cases) > 5000 else [f"only {len(cases)} stride cases"]),
        Check("wmma-near-misses", "Each wmma opcode with one qualifier token changed (shape, type, layout, state "
              "space, rounding, .aligned, .satfinite, .popc) at PTX 9.5 on sm_90a: ptxas accepts the result exactly "
              "where it is a variant of the spec with the same operands.",
              "test_ptxas_wmma.py::test_near_misses_are_rejected", "cases", _near_misses,
              sanity=lambda cases, ok: [] if len(cases) > 10000 and sum(ok) > 500 else
              [f"too few near misses: {len(cases)}, {sum(ok)} accepted"]),
        Check("wmma-registers", "One register more or fewer in any wmma fragment, or registers of the other width, "
              "at PTX 9.5 on sm_90a: rejected.", "test_ptxas_wmma.py::test_register_counts_and_widths_are_exact",
              "cases", _registers,
              sanity=lambda cases, ok: [] if len(cases) > 3000 else [f"only {len(cases)} register cases"]),
        Check("wmma-satfinite-removed", "The 48 floating-point wmma.mma with .satfinite spelled last, on sm_75: "
              "accepted at PTX 6.4, rejected at 6.5, which removed them.",
              "test_ptxas_wmma.py::test_floating_satfinite_removed_in_6_5", "cases", _satfinite),
        Check("warp-search", "The first-principles search of mma, mma.sp and wmma (campaigns/survey/"
              "survey_warp_mma.py steps 1-3: screen, resolve the operands, expand every qualifier to a fixpoint, "
              "cross products) at PTX 9.5: the opcodes ptxas accepts, with their register counts, are the spec's.",
              "test_ptxas_warp_search.py", "search", search=warp_search, expect=_expect_warp,
              params={"generator": "campaigns/survey/survey_warp_mma.py", "version": "9.5"}),
    ]


def wmma_variants(spec):
    # the variants PTX 9.5 still has (the 48 .satfinite .f16 ones removed in 6.5: versions-wmma)
    vs = [v for v in spec.variants if v.family == "wmma" and v.requirement.until_ptx is None]
    assert len(vs) == 666, len(vs)
    return vs


def _stride(spec, facts) -> list[Case]:
    out = []
    for v in wmma_variants(spec):
        if v.instruction == "wmma.mma":
            continue
        bare = asm.statement(v, optional=False)
        for t in spec.targets.values():
            first = v.requirement.first_ptx(t)
            if t.ptxas and first is not None:
                out.append(Case(v.id, "no stride", str(first), t.name, bare, True))
        out.append(Case(v.id, "constant stride", str(LATEST), TARGET, bare[:-1] + ", 64;", True))
    return out


def mutations(opcode: str):
    """Opcodes one qualifier token away from `opcode`."""
    tokens = opcode.split(".")  # "shared::cta" is one token already (split on '.' only)
    for i, tok in enumerate(tokens):
        for cls in (SHAPES, TYPES, LAYOUTS, SPACES, RND):
            if tok in cls:
                for other in cls:
                    if other != tok:
                        yield ".".join(tokens[:i] + [other] + tokens[i + 1:])
        if tok in SPACES:
            yield ".".join(tokens[:i] + tokens[i + 1:])
    if not any(t in SPACES for t in tokens) and (tokens[1] in ("load", "store")):
        at = next(i for i, t in enumerate(tokens) if t in SHAPES) + 1
        for sp in SPACES:
            yield ".".join(tokens[:at] + [sp] + tokens[at:])
    if "aligned" in tokens:
        yield ".".join(t for t in tokens if t != "aligned")
    if tokens[1] == "mma":
        # .satfinite on or off; .rnd where there is none; .and/.xor.popc added or dropped
        yield ".".join(tokens[:-1]) if tokens[-1] == "satfinite" else opcode + ".satfinite"
        shape_at = next(i for i, t in enumerate(tokens) if t in SHAPES) + 1
        if tokens[shape_at] not in RND:
            for r in RND:
                yield ".".join(tokens[:shape_at] + [r] + tokens[shape_at:])
        if tokens[2] == "popc":
            yield ".".join(tokens[:2] + tokens[4:])
        else:
            for op in ("and", "xor"):
                yield ".".join(tokens[:2] + [op, "popc"] + tokens[2:])


def _signature(v):
    return [(o.kind, o.regs, o.reg_type) for o in v.operands]


def _near_misses(spec, facts) -> list[Case]:
    vs = wmma_variants(spec)
    by_ptx = {v.ptx: v for v in vs}
    out, seen = [], set()
    for v in vs:
        operands = asm.statement(v)[len(v.ptx):]
        for m in mutations(v.ptx):
            if (m, operands) in seen:
                continue
            seen.add((m, operands))
            other = by_ptx.get(m)
            out.append(Case(v.id, m, str(LATEST), TARGET, m + operands,
                            other is not None and _signature(other) == _signature(v)))
    return out


def _statement(v, operands) -> str:
    counters: dict[str, int] = {}
    return f"{v.ptx} {', '.join(asm.operand_text(o, counters, {}) for o in operands)};"


def _registers(spec, facts) -> list[Case]:
    out = []
    for v in wmma_variants(spec):
        for i, o in enumerate(v.operands):
            if o.kind != "fragment":
                continue
            for delta in (-1, 1):
                if o.regs + delta >= 1:
                    ops = list(v.operands)
                    ops[i] = type(o)(**{**o.__dict__, "regs": o.regs + delta})
                    out.append(Case(v.id, f"{o.name} regs{delta:+d}", str(LATEST), TARGET, _statement(v, ops), False))
            ops = list(v.operands)
            ops[i] = type(o)(**{**o.__dict__, "reg_type": "b32" if o.reg_type in ("f64", "b64") else "b64"})
            out.append(Case(v.id, f"{o.name} width", str(LATEST), TARGET, _statement(v, ops), False))
    return out


def _satfinite(spec, facts) -> list[Case]:
    floats = [v for v in wmma_variants(spec) if v.instruction == "wmma.mma" and v.dtype in ("f16", "f32")
              and v.atype == "f16"]
    assert len(floats) == 48 and not any(v.satfinite for v in floats)
    out = []
    for v in floats:
        line = asm.statement(v).replace(v.ptx, v.ptx + ".satfinite", 1)
        out += [Case(v.id, ".satfinite last", ver, "sm_75", line,
                     any(x.requirement.valid(spec.targets["sm_75"], Version.parse(ver)) for x in _spelled(spec, v)))
                for ver in ("6.4", "6.5")]
    return out


def _spelled(spec, v):
    """The spec's variants that v's opcode with .satfinite names (none, or the removed form)."""
    try:
        return [spec.variant(v.ptx + ".satfinite")]
    except KeyError:
        return []


# ---------------------------------------------------------------------------------------------
# The first-principles search


def _survey():
    module = importlib.util.spec_from_file_location("survey_warp_mma", SURVEY)
    assert module is not None and module.loader is not None
    mod = importlib.util.module_from_spec(module)
    sys.modules[module.name] = mod  # its dataclasses look their module up there
    module.loader.exec_module(mod)
    mod.JOBS = max(2, os.cpu_count() or 2)
    return mod


def warp_search() -> Found:
    mod = _survey()
    screen = mod.screen_mma() + mod.screen_wmma_mma() + mod.screen_wmma_ls()
    found, why = mod.resolve({c: None for c in screen})
    tried = set(found) | set(why)
    frontier, rounds = dict(found), 0
    while frontier and rounds < 5:
        new = {c: s for c, s in mod.expand(frontier).items() if c not in found and c not in why}
        tried |= set(new)
        f2, w2 = mod.resolve(new)
        found.update(f2)
        why.update(w2)
        frontier, rounds = f2, rounds + 1
    cross = {c: s for c, s in mod.cross(found).items() if c not in found and c not in why}
    tried |= set(cross)
    f3, _ = mod.resolve(cross)
    found.update(f3)
    keys = sorted(f"{mod.family_of(c)} {c.opcode}" for c in tried)
    return Found({"generator": "campaigns/survey/survey_warp_mma.py", "version": "9.5", "rounds": rounds},
                 len(tried), mod.STATS["lines_judged"], digest("\n".join(keys), 16),
                 {c.opcode: " ".join(f"{o.name}={o.n}" for o in f.ops if o.kind == "vec") for c, f in found.items()})


def _expect_warp(spec, doc) -> list[str]:
    if doc["statements"] <= 100_000:
        return [f"only {doc['statements']} statements judged: the search did not run as designed"]
    found = doc["found"]
    out = []
    for family, prefixes in (("mma", ("mma.",)), ("wmma", ("wmma.",))):
        ours = {v.ptx for v in spec.variants if v.family == family and v.requirement.until_ptx is None}
        theirs = {op for op in found if op.startswith(prefixes)}
        out += [f"{op}: ptxas {doc['ptxas']} accepted it at PTX 9.5, the spec lacks it" for op in sorted(theirs - ours)]
        out += [f"{op}: in the spec, ptxas {doc['ptxas']} accepted no arrangement of it at PTX 9.5"
                for op in sorted(ours - theirs)]
    for v in spec.variants:  # the operand vector sizes ptxas accepted are the spec's register counts
        if v.family != "mma" or v.ptx not in found:
            continue
        sizes = dict(item.split("=") for item in found[v.ptx].split())
        ours = {name: str(regs) for name, regs in v.regs.items() if name in sizes}
        if sizes != ours:
            out.append(f"{v.id}: ptxas {doc['ptxas']} accepted {found[v.ptx]}, the spec has {v.regs}")
    return out
