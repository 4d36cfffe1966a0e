"""Where each fact of a variant is written (`ptxspec explain`): its opcode template, shape, types,
every qualifier and option, each requirement clause and rule that refined it, each operand with
its register count, each map, its numerics rule and the errata its facts cite, with the file:line
of the node that states it (`Variant.sources`, kept through pieces and defaults: a fact written
in a piece points into the piece).

A fact is a dict: `fact` (what: `qualifier kind`, `operand d`, `rule`, ...), `value` (the
variant's value, as text), `at` (file:line:col) and `text` (the node as written, one line)."""
from __future__ import annotations

import re
from pathlib import Path

from ptxspec.core.errors import Pos
from ptxspec.model.variant import Variant
from ptxspec.semantics.numerics import rule_of

#: the longest `text` of a fact (a node's lines joined); the file:line shows the rest
TEXT_CHARS = 200


class _Lines:
    """The lines of the spec files, read once each."""

    def __init__(self):
        self.files: dict[str, list[str]] = {}

    def node(self, pos: Pos) -> str:
        """The node at pos as written: its line, and the lines below it indented deeper, joined."""
        lines = self.files.get(pos.path)
        if lines is None:
            try:
                lines = Path(pos.path).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            self.files[pos.path] = lines
        if not 0 < pos.line <= len(lines):
            return ""
        first = lines[pos.line - 1]
        indent = len(first) - len(first.lstrip(" "))  # a list item's dash, or its key
        out = [first.strip()]
        for line in lines[pos.line:]:
            if line.strip() and len(line) - len(line.lstrip(" ")) <= indent:
                break
            out.append(line.strip())
        text = " ".join(x for x in out if x and not x.startswith("#"))
        return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 3] + "..."


def _fact(lines: _Lines, fact: str, value, origin) -> dict:
    pos = origin.pos
    return {"fact": fact, "value": "" if value is None else str(value), "at": str(pos), "text": lines.node(pos)}


def explain(variant: Variant) -> list[dict]:
    """The facts of one variant, each with where it is written (see the module's docstring)."""
    v, src, lines = variant, variant.sources, _Lines()
    out: list[dict] = []

    def add(fact, value, key):
        out.extend(_fact(lines, fact, value, o) for o in src.get(key, ()))

    add("opcode", v.ptx, "opcode")
    if v.m is not None:
        add("shape", f"m{v.m}n{v.n}k{v.k}", "shape")
    add("types", " ".join(f"{t}={getattr(v, t)}" for t in ("atype", "btype", "ctype", "dtype") if getattr(v, t)),
        "types")
    for axis, value in v.qualifiers.items():
        add(f"qualifier {axis}", value, f"qualifier.{axis}")
    if v.form:
        out.extend(_fact(lines, "form", v.form, o) for o in src.get("qualifiers", ()) if o.key == "forms")
    for o in src.get("requirement", ())[:1]:  # the instruction's (or group's) requires
        out.append(_fact(lines, "requirement", f"PTX {v.min_ptx}; {', '.join(v.targets)}", o))
    for o in src.get("rules", ()):
        out.append(_fact(lines, "rule", "", o))
    for o in src.get("requirement", ())[1 + len(src.get("rules", ())):]:  # each target's entry (isa.yaml)
        out.append(_fact(lines, "target", o.pos and lines.node(o.pos).split(",")[0].removeprefix("- {name: "), o))
    for axis, values in v.options.items():
        add(f"option {axis}", " ".join(x or "''" for x, _ in values), f"option.{axis}")
    for op in v.operands:
        regs = f"{op.regs} register{'' if op.regs == 1 else 's'}"
        add(f"operand {op.name}", f"{op.kind} {op.io}, {regs}", f"operand.{op.name}")
        if op.kind == "fragment" and op.matrix in v.fragment_layouts:  # the map gives its registers
            add(f"map {op.name}", f"{v.fragment_layouts[op.matrix][0].name}: {regs}",
                f"fragment.{op.matrix}")
        if op.scale_map:
            add(f"map {op.name}", op.scale_map, f"scale.{op.name}")
    if v.sparsity is not None:
        add("sparsity", v.sparsity.name, "sparsity")
    rule = rule_of(v)
    if rule is not None:
        out.append({"fact": "numerics", "value": rule.model, "at": str(rule.pos), "text": lines.node(rule.pos)})
    out.extend(_errata(v, out, lines))
    return out


def _errata(v: Variant, facts: list[dict], lines: _Lines) -> list[dict]:
    """The errata the variant's facts cite (by id, in their text), and the one that admits it."""
    errata = {e.id: e for e in v.spec.errata}
    pattern = re.compile("|".join(re.escape(i) for i in sorted(errata, key=len, reverse=True))) if errata else None
    cited = [v.ptxas_only] if v.ptxas_only in errata else []
    for f in facts if pattern else ():
        cited += [m.group(0) for m in pattern.finditer(f["text"]) if m.group(0) not in cited]
    return [{"fact": "erratum", "value": i, "at": str(errata[i].pos), "text": lines.node(errata[i].pos)}
            for i in cited]


def explain_text(variant: Variant, facts: list[dict]) -> str:
    """The facts as aligned text lines: fact, value, file:line:col, and the node as written."""
    head = f"{variant.ptx}" + (f" (form {variant.form})" if variant.form else "")
    width = max((len(f["fact"]) for f in facts), default=0)
    rows = [head]
    targets = [f for f in facts if f["fact"] == "target"]
    for f in facts:
        if f["fact"] == "target":  # one line for them all: each target's entry in isa.yaml
            if f is targets[0]:
                rows.append(f"  {'targets':<{width}}  " + ", ".join(f"{t['value']} ({t['at']})" for t in targets))
            continue
        value = f" = {f['value']}" if f["value"] else ""
        rows.append(f"  {f['fact']:<{width}}  {f['at']}{value}")
        if f["text"]:
            rows.append(f"  {'':<{width}}    {f['text']}")
    return "\n".join(rows) + "\n"
