"""The machinery every operand kind shares: the base class `OperandKind`, what resolving an operand
gives (`Resolved`) and needs (`OperandContext`), and the C statement a binding builds (`CStatement`).
The kinds themselves are `ptxspec.model.kinds`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ptxspec.core.errors import PosDict, Problem, SpecError

if TYPE_CHECKING:  # the model imports this module
    from ptxspec.model.variant import Operand, Variant

# PTX register type -> (inline-asm constraint letter, C type of one register)
C_REGISTER = {"f32": ("f", "float"), "f64": ("d", "double"), "b32": ("r", "uint32_t"), "s32": ("r", "int32_t"),
              "u32": ("r", "uint32_t"), "b64": ("l", "uint64_t"), "u64": ("l", "uint64_t"), "s64": ("l", "int64_t"),
              "b16": ("h", "uint16_t")}
SHARED_SPACES = ("shared", "shared::cta")


class BindingError(ValueError):
    """The C binding of a variant cannot be written (a spec the emitter cannot express)."""


def camel(s: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", s) if p)


@dataclass
class Resolved:
    """What the model stores of an operand besides its YAML fields."""
    regs: int = 0
    reg_type: str = ""
    values: tuple[int, ...] | None = None  # legal values of a constant (None: no list)
    min_value: int | None = None
    layout: str | None = None
    element_type: str | None = None
    observed_on: str = ""


@dataclass
class OperandContext:
    """What a kind needs from the group being expanded to resolve one operand."""
    types: dict  # element type name -> ElementType
    matrix_types: dict[str, str]  # matrix ('a'..'d') -> element type of this variant
    fragment_layouts: dict  # matrix -> (FragmentLayout, element bits, (m, n, k))
    register_counts: dict[str, int]  # matrix -> register count, where the group gives no map
    sparsity: Any = None


# ---------------------------------------------------------------------------------------------
# C bindings: the pieces of one inline-asm statement


class CStatement:
    """Collects one binding's parameters and asm operands; outputs are numbered before inputs."""

    def __init__(self):
        self.params: list[str] = []
        self.tparams: list[str] = []
        self.asserts: list[str] = []
        self.pieces: list[tuple[str, Any]] = []  # (how the PTX operand is written, asm refs)
        self.pre: list[tuple[str, Any]] = []  # predicates set before the statement
        self.outputs: list[str] = []
        self.inputs: list[str] = []
        self.memory = False

    def out(self, constraint: str, expr: str) -> tuple[str, int]:
        self.outputs.append(f'"{constraint}"({expr})')
        return ("out", len(self.outputs) - 1)

    def inp(self, constraint: str, expr: str) -> tuple[str, int]:
        self.inputs.append(f'"{constraint}"({expr})')
        return ("in", len(self.inputs) - 1)

    def number(self, ref) -> int:
        side, i = ref
        return i if side == "out" else len(self.outputs) + i

    def template_int(self, pname: str, what: str, values, min_value=None, default=None) -> None:
        """An immediate as an `int` template parameter (with the spec's default, if any), checked by
        static_assert."""
        self.tparams.append(f"int {pname}" + (f" = {default}" if default is not None else ""))
        if values is not None:
            cond = " || ".join(f"{pname} == {x}" for x in values)
            self.asserts.append(f'  static_assert({cond}, "{what} must be one of {", ".join(str(x) for x in values)}");')
        elif min_value is not None:
            self.asserts.append(f'  static_assert({pname} >= {min_value}, "{what} must be at least {min_value}");')


def c_register(o: "Operand", v: "Variant") -> tuple[str, str]:
    if o.reg_type not in C_REGISTER:
        raise BindingError(f"{v.id}: operand {o.name!r} has register type {o.reg_type!r}, which has no "
                           "inline-asm constraint")
    return C_REGISTER[o.reg_type]


# ---------------------------------------------------------------------------------------------
# The kinds


class OperandKind:
    """Base of the kinds: a register operand of one 32-bit register unless a kind says otherwise."""

    name: ClassVar[str] = ""
    #: the group must name a sparsity (the operand describes or selects sparse metadata)
    needs_sparsity: ClassVar[bool] = False
    #: written as a constant in the statement (a template parameter in C++), not a register
    constant: ClassVar[bool] = False
    #: the executor takes it as one integer (an immediate, a selector, a predicate)
    scalar: ClassVar[bool] = False

    def resolve(self, o: dict, ctx: OperandContext) -> Resolved:
        return Resolved(1, "b32")

    # -- PTX text ---------------------------------------------------------------------------
    def ptx(self, o: "Operand", counters: dict[str, int], immediates: dict[str, int], pools: dict[str, str]) -> str:
        return register_names(o, counters, pools)[0]

    # -- C++ binding --------------------------------------------------------------------------
    def bind_c(self, o: "Operand", v: "Variant", st: CStatement) -> None:
        letter, ctype = c_register(o, v)
        if o.regs != 1:
            raise BindingError(f"{v.id}: {o.kind} operand {o.name!r} takes {o.regs} registers; expected 1")
        st.params.append(f"{ctype} {o.name}")
        st.pieces.append(("one", st.inp(letter, o.name)))

    def c_doc(self, o: "Operand", v: "Variant") -> str:
        return o.name

    def c_name(self, o: "Operand") -> str:
        """The name of the operand's C++ template parameter (constants only)."""
        return camel(o.name)

    def part_name(self, o: "Operand", part: str) -> str:
        """The C++ template parameter of one part of a braced tuple of constants."""
        return camel(f"{o.name}_{part}")

    # -- the executor ---------------------------------------------------------------------------
    def executor_default(self, o: "Operand") -> int | None:
        """The value an executor call may leave out (None: the call must give it)."""
        return o.default

    def check(self, v: "Variant", o: "Operand", value) -> None:
        """Raise ValueError when `value` is not a legal value of the operand."""

    def value_problem(self, value: int) -> str | None:
        """Why a value the spec lists as legal cannot be one of this kind (its domain), or None."""
        return None


RANGE_LIMIT = 4096  # members of one {range: ...}: far beyond any ISA set (wgmma N has 32), far below a hang


def int_set(value) -> list[int]:
    """A spec int set: a list, or {range: [first, last, step]} (last included, at most RANGE_LIMIT members)."""
    if isinstance(value, dict):
        first, last, step = value["range"]
        members = range(first, last + 1, step)
        count = max(0, (last - first) // step + 1)  # len(range) overflows beyond 2**63 (fuzz seed 23, tree 39038)
        if count > RANGE_LIMIT:
            message = f"range [{first}, {last}, {step}] has {count:,} members; a spec set holds at most {RANGE_LIMIT:,}"
            if not isinstance(value, PosDict):  # built in Python, not loaded: no position to name
                raise ValueError(message)
            raise SpecError([Problem(value.at("range"), message)])
        return list(members)
    return list(value)


def register_names(o: "Operand", counters: dict[str, int], pools: dict[str, str]) -> list[str]:
    prefix = pools[o.reg_type]
    names = []
    for _ in range(o.regs):
        names.append(f"%{prefix}{counters.get(prefix, 0)}")
        counters[prefix] = counters.get(prefix, 0) + 1
    return names
