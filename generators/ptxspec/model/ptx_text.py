"""PTX text for variants: one statement per variant, and whole test kernels.

Used by the ptxas oracle (tests and `ptxspec check-ptxas`) and by the binding generators, so
the operand order and register types of every variant are written in one place.
"""
from __future__ import annotations

from ptxspec.model.kinds import kind_of
from ptxspec.model.variant import Operand, Variant

# Register pools per PTX register type: (prefix, count declared).
POOLS = {"f32": "f", "b32": "r", "s32": "s", "u32": "u", "f64": "fd", "b64": "rd", "b16": "h", "pred": "p"}
POOL_SIZE = 300


def declarations() -> str:
    return "\n".join(f"  .reg .{t} %{p}<{POOL_SIZE}>;" for t, p in POOLS.items())


def operand_text(o: Operand, counters: dict[str, int], immediates: dict[str, int]) -> str:
    """How o is written in a statement: fresh registers from the pools, or its constant."""
    return kind_of(o).ptx(o, counters, immediates, POOLS)


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
