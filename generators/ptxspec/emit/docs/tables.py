"""Tables of the docs: variants, requirements by PTX version and target, as plain rows."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from ptxspec.emit.docs import figures as F
from ptxspec.emit.docs.markdown import DASH, code
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant


@dataclass
class Table:
    headers: list
    rows: list[list]


def requirement_key(req):
    """A hash-independent order for requirements (str() of a frozenset follows string hashes)."""
    return [(str(c.ptx), sorted(c.targets)) for c in req.clauses]


def qualifiers(v: Variant) -> list[str]:
    """Qualifiers beyond shape and types, as the opcode spells them."""
    out = [f".{q}" for q in v.qualifiers.values() if q]
    return out + [q for q in (".satfinite" if v.satfinite else "", f".{v.op}" if v.op else "") if q]


def page_name(instruction: str) -> str:
    return F.file_name(instruction) + ".md"


# ---------------------------------------------------------------------------------------------
# Tables of variants and requirements


def hardware_short(v: Variant) -> str:
    """The variant's maps evidence in a word or two: the GPU, or 'not run' / 'not observable' (the group says why)."""
    return v.hardware.split(":")[0]


def variant_table(spec: Spec, variants: list[Variant], status: dict[str, tuple]) -> Table:
    show_c = any(v.ctype != v.dtype for v in variants)
    show_numerics = any(v.id in status for v in variants)
    headers = ["opcode", "form", "shape", "D", "A", "B"] + (["C"] if show_c else []) + \
              ["qualifiers", "registers", "PTX", "targets", "hardware"] + (["numerics"] if show_numerics else [])
    rows = []
    target_text: dict = {}  # requirement -> its targets, with a first version where it is later
    for v in variants:
        if v.requirement not in target_text:
            tgts = []
            for t in v.targets:
                first = v.requirement.first_ptx(spec.targets[t])
                tgts.append(t if str(first) == v.min_ptx else f"{t} (≥{first})")
            until = v.requirement.until_ptx
            target_text[v.requirement] = ", ".join(tgts) + (f"; removed in PTX {until}" if until else "")
        shape = f"m{v.m}n{v.n}" + (f"k{v.k}" if v.k else "") if v.m else DASH
        row = [code(v.ptx), v.form or DASH, shape, v.dtype or DASH, v.atype or DASH, v.btype or DASH]
        if show_c:
            row.append(v.ctype or DASH)
        row += [" ".join(qualifiers(v)) or DASH, " ".join(f"{k}:{n}" for k, n in v.regs.items()) or DASH, v.min_ptx,
                target_text[v.requirement], hardware_short(v)]
        if show_numerics:
            row.append(status[v.id][3] if v.id in status else DASH)
        rows.append(row)
    return Table(headers, rows)


def _part(gv, members) -> list[str]:
    """What sets some variants of a group apart: their type pairs, else the qualifiers (or forms)
    they all have and the rest of the group lacks, else those they all lack."""
    combos = sorted({".".join(t for t in (v.atype, v.btype) if t) for v in gv})
    if any(combos):
        return combos
    def marks(v):
        return set(qualifiers(v)) | ({f"{v.form} form"} if v.form else set())
    every = set.intersection(*map(marks, members))
    have = set.intersection(*map(marks, gv)) - every
    if have:
        return sorted(have)
    lack = set.union(*map(marks, members)) - set.union(*map(marks, gv))
    return ["without " + " ".join(sorted(lack))] if lack else []


def _covered(vs, members, per_inst, several) -> list[str]:
    """Which variants a requirement covers: whole instructions, groups, or type pairs of a group."""
    groups = defaultdict(list)
    for v in vs:
        groups[(v.instruction, v.group)].append(v)
    parts = defaultdict(list)  # instruction -> its groups (with type pairs where only some)
    for (inst, g), gv in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[1][0].pos.line)):
        if len(gv) == len(members[(inst, g)]):
            parts[inst].append(g)
        else:
            parts[inst].append(f"{g} ({', '.join(_part(gv, members[(inst, g)]))})")
    text = []
    for inst, gs in parts.items():
        whole = sum(len(gv) for (i, _), gv in groups.items() if i == inst) == per_inst[inst]
        if several:
            text.append(code(inst) + ("" if whole else f": {', '.join(gs)}"))
        else:
            text.append("all" if whole else ", ".join(gs))
    return text


def requirement_table(spec: Spec, variants: list[Variant]) -> Table:
    """Distinct requirements of these variants: which variants, and the first PTX per target."""
    by_req: dict = defaultdict(list)
    for v in variants:
        by_req[v.requirement].append(v)
    targets = spec.sort_targets({t for v in variants for t in v.requirement.targets})
    members = defaultdict(list)
    for v in variants:
        members[(v.instruction, v.group)].append(v)
    per_inst = Counter(v.instruction for v in variants)
    rows = []
    for req, vs in sorted(by_req.items(), key=lambda kv: (kv[0].min_ptx, requirement_key(kv[0]))):
        cells = []
        for t in targets:
            first, until = req.first_ptx(spec.targets[t]), req.until(spec.targets[t])
            last = spec.previous_version(until) if until else None
            cells.append(DASH if not first else f"{first} to {last}" if last else str(first))
        rows.append(["; ".join(_covered(vs, members, per_inst, len(per_inst) > 1)), len(vs)] + cells)
    return Table(["variants", "count"] + targets, rows)


def ptx_target_table(spec: Spec, variants: list[Variant]) -> Table:
    """Variants valid at each PTX version (rows, equal runs merged) on each target (columns)."""
    targets = spec.sort_targets({t for v in variants for t in v.requirement.targets})
    lo = min(v.requirement.min_ptx for v in variants)
    per_req = Counter(v.requirement for v in variants)
    runs: list[list] = []  # consecutive versions with the same counts share a row
    for ver in (ver for ver in spec.ptx_versions if ver >= lo):
        counts = [sum(n for req, n in per_req.items() if req.valid(spec.targets[t], ver)) for t in targets]
        if runs and runs[-1][2] == counts:
            runs[-1][1] = ver
        else:
            runs.append([ver, ver, counts])
    rows = [[str(a) if a == b else f"{a} … {b}"] + [c or DASH for c in counts] for a, b, counts in runs]
    return Table(["PTX ISA"] + targets, rows)
