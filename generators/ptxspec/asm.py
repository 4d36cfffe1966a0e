"""PTX text for variants: one statement per variant, and whole test kernels.

Used by the ptxas oracle (tests and `ptxspec check-ptxas`) and by the binding generators, so
the operand order and register types of every variant are written in one place.
"""
from __future__ import annotations

from .model import Operand, Variant

# Register pools per PTX register type: (prefix, count declared).
POOLS = {"f32": "f", "b32": "r", "s32": "s", "u32": "u", "f64": "fd", "b64": "rd", "pred": "p"}
POOL_SIZE = 300


def declarations() -> str:
    return "\n".join(f"  .reg .{t} %{p}<{POOL_SIZE}>;" for t, p in POOLS.items())


def operand_text(o: Operand, counters: dict[str, int], immediates: dict[str, int]) -> str:
    if o.kind in ("immediate", "selector"):
        if o.name in immediates:
            return str(immediates[o.name])
        if o.values:
            return str(o.values[-1] if o.name.startswith("imm_scale") else o.values[0])
        return str(o.min_value or 0)
    if o.kind == "predicate":
        return "%p0"
    if o.kind == "scale_selector":  # {byte-id, thread-id}: immediates, each from its legal values
        return "{" + ", ".join(str(immediates.get(f"{o.name}.{part}", values[0])) for part, values in o.parts) + "}"
    prefix = POOLS[o.reg_type]
    if o.kind == "address":  # [p]: wmma.load/wmma.store.d address register
        counters[prefix] = counters.get(prefix, 0) + 1
        return f"[%{prefix}{counters[prefix] - 1}]"
    names = []
    for _ in range(o.regs):
        names.append(f"%{prefix}{counters.get(prefix, 0)}")
        counters[prefix] = counters.get(prefix, 0) + 1
    if o.kind == "fragment":
        return "{" + ", ".join(names) + "}"
    return names[0]


def statement(v: Variant, immediates: dict[str, int] | None = None, optional: bool = True) -> str:
    """`opcode operands;` with fresh registers for each operand (optional ones only if `optional`)."""
    counters: dict[str, int] = {}
    ops = [operand_text(o, counters, immediates or {}) for o in v.operands if optional or not o.optional]
    return f"{v.ptx} {', '.join(ops)};" if ops else f"{v.ptx};"


def kernel(lines: list[str], version: str, target: str, name: str = "ptxspec_check") -> tuple[str, int]:
    """A PTX module around `lines`; returns the text and the line number of lines[0]."""
    head = [f".version {version}", f".target {target}", ".address_size 64", "",
            f".visible .entry {name}()", "{", declarations()]
    head = "\n".join(head).split("\n")
    first = len(head) + 1
    return "\n".join(head + lines + ["  ret;", "}", ""]), first
