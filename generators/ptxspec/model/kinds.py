"""Operand kinds: one small class per kind of operand, and the registry of them.

Each kind says, for an operand of that kind, everything the generators need: how many registers
of which PTX type it takes (the model), how it is written in a PTX statement (`asm`), what its
C++ binding parameter is and how its doc line reads (`emit.cbind`), and what the executor checks
and assumes when a call leaves it out (`execute`). A new kind of operand is one new class here,
registered in `KINDS`; nothing else branches on operand kinds.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ptxspec.core.words import integer
from ptxspec.model.tmem import COLUMNS
from ptxspec.model.operand_kind import (
    C_REGISTER,
    SHARED_SPACES,
    BindingError,
    CStatement,
    OperandContext,
    OperandKind,
    Resolved,
    c_register,
    camel,
    int_set,
    register_names,
)

if TYPE_CHECKING:  # the model imports this module
    from ptxspec.model.variant import Operand

class Fragment(OperandKind):
    """A vector of registers holding this thread's elements of a matrix."""
    name = "fragment"

    def resolve(self, o, ctx):
        mat = o["matrix"]
        etype = ctx.matrix_types[mat]
        t = ctx.types[etype]
        if mat in ctx.register_counts:  # the register count is known, the map is not
            return Resolved(ctx.register_counts[mat], t.register if t.bits >= 32 or mat in ("c", "d") else "b32",
                            element_type=etype)
        lay, ebits, shape = ctx.fragment_layouts[mat]
        elements = int(lay.elements(M=shape[0], N=shape[1], K=shape[2]))
        regs = elements if ebits == 64 else -(-elements * ebits // 32)
        reg_type = t.register if ebits >= 32 or mat in ("c", "d") else "b32"
        return Resolved(regs, reg_type, layout=lay.name, element_type=etype, observed_on=lay.observed_on)

    def ptx(self, o, counters, immediates, pools):
        names = ", ".join(register_names(o, counters, pools))
        return "{" + names + "}" if o.vector else names

    def bind_c(self, o, v, st):
        letter, ctype = c_register(o, v)
        if not o.vector and o.regs != 1:
            raise BindingError(f"{v.id}: fragment {o.name!r} is written bare but takes {o.regs} registers")
        arr = f"{o.name})[{o.regs}]"
        if o.io == "in":
            st.params.append(f"const {ctype} (&{arr}")
            refs = [st.inp(letter, f"{o.name}[{r}]") for r in range(o.regs)]
        else:
            st.params.append(f"{ctype} (&{arr}")
            mod = "+" if o.io == "inout" else "="
            refs = [st.out(mod + letter, f"{o.name}[{r}]") for r in range(o.regs)]
        st.pieces.append(("list", refs) if o.vector else ("one", refs[0]))

    def c_doc(self, o, v):
        assert o.matrix is not None  # a fragment names its matrix (the resolver checks)
        if o.matrix not in v.fragment_layouts:  # register count only, no map
            return (f"{o.name} ({o.io}): {o.regs} x .{o.reg_type}: {o.element_type} matrix {o.matrix.upper()} "
                    f"(no fragment map)")
        fm = v.fragment_map(o.matrix)
        per = f", {fm.per_reg} per register" if fm.per_reg > 1 else ""
        return (f"{o.name} ({o.io}): {o.regs} x .{o.reg_type}: {fm.rows}x{fm.cols} {o.element_type or ''} matrix "
                f"{o.matrix.upper()}, {fm.elements} elements per thread{per} "
                f"(frag::<name>::{o.name}: layout {o.layout})").replace("  ", " ")

    def executor_default(self, o):
        return 0 if o.io == "out" else None  # results need no input


class Descriptor(OperandKind):
    """A 64-bit shared-memory matrix descriptor."""
    name = "descriptor"

    def resolve(self, o, ctx):
        return Resolved(1, "b64")

    def bind_c(self, o, v, st):
        super().bind_c(o, v, st)
        st.memory = True

    def c_doc(self, o, v):
        of = f" of {o.matrix.upper()}" if o.matrix else ""
        where = f"ptxspec::smem_{v.family}::MatrixDescriptor" if v.family in v.spec.smem else "uint64_t"
        return f"{o.name}: 64-bit shared-memory matrix descriptor{of} ({where})"


class Metadata(OperandKind):
    """The 32-bit sparsity metadata register."""
    name = "metadata"
    needs_sparsity = True

    def c_doc(self, o, v):
        return f"{o.name}: sparsity metadata register (frag::<name>::meta::metadata)"


class Scale(OperandKind):
    """A .b32 register of block-scale factors: four bytes, read through the operand's scale map
    (spec/layouts `scale_maps`) with the selector of the same matrix."""
    name = "scale"

    def c_doc(self, o, v):
        return f"{o.name}: block-scale factors (32-bit register)"


class Stride(OperandKind):
    """Elements between rows (columns) in memory: a 32-bit register or constant."""
    name = "stride"

    def c_doc(self, o, v):
        return f"{o.name}: stride in elements (32-bit register)"


class Address(OperandKind):
    """[p]: a 64-bit register holding an address in the variant's state space (qualifier `space`)."""
    name = "address"

    def resolve(self, o, ctx):
        return Resolved(1, "b64")

    def ptx(self, o, counters, immediates, pools):
        return f"[{register_names(o, counters, pools)[0]}]"

    def bind_c(self, o, v, st):
        if v.qualifiers.get("space", "") in SHARED_SPACES:
            # a shared-window address: static_cast<uint32_t>(__cvta_generic_to_shared(ptr))
            st.params.append(f"uint32_t {o.name}")
            st.pieces.append(("addr", st.inp("r", o.name)))
        else:
            writes = not any(x.kind == "fragment" and x.io != "in" for x in v.operands)  # a store
            st.params.append(f"{'void' if writes else 'const void'}* {o.name}")
            st.pieces.append(("addr", st.inp("l", o.name)))
        st.memory = True

    def c_doc(self, o, v):
        space = v.qualifiers.get("space", "") or "generic"
        what = "32-bit shared-window address" if space in SHARED_SPACES else f"{space} pointer"
        return f"{o.name}: [{o.name}], {what}"


class Predicate(OperandKind):
    """A predicate register, or the constant 0 or 1."""
    name = "predicate"
    scalar = True

    def resolve(self, o, ctx):
        return Resolved(0, "pred")

    def ptx(self, o, counters, immediates, pools):
        return "%p0"

    def bind_c(self, o, v, st):
        st.params.append(f"bool {o.name}" + ("" if o.default is None else f" = {'true' if o.default else 'false'}"))
        ref = st.inp("r", f"static_cast<int>({o.name})")
        st.pre.append((f"p_{o.name}", ref))
        st.pieces.append(("pred", f"p_{o.name}"))

    def c_doc(self, o, v):
        return f"{o.name}: predicate (false: D = A*B, C is not added)"

    def check(self, v, o, value):
        if int(value) not in (0, 1):
            raise ValueError(f"{v.id}: {o.name} = {value} is a predicate: 0 or 1")


class Immediate(OperandKind):
    """An integer constant, from a list of legal values or at least a minimum."""
    name = "immediate"
    constant = True
    scalar = True

    def resolve(self, o, ctx):
        legal = o.get("values")
        if isinstance(legal, dict) and "min" in legal:
            return Resolved(0, "", min_value=legal["min"])
        return Resolved(0, "", values=None if legal is None else tuple(int_set(legal)))

    def ptx(self, o, counters, immediates, pools):
        if o.name in immediates:
            return str(immediates[o.name])
        if o.default is not None:
            return str(o.default)
        if o.values:
            return str(o.values[0])
        return str(o.min_value or 0)

    #: what an immediate may be: the bindings pass it as a C++ `int` template argument (32 bits), and no
    #: immediate of these instructions is wider (fuzz seed 35, tree 6015: a minimum of 2**63 - 1
    #: validated, and the header's static_assert could hold for no int)
    RANGE = (-(1 << 31), (1 << 31) - 1)

    def value_problem(self, value: int) -> str | None:
        lo, hi = self.RANGE
        return None if lo <= value <= hi else f"{value} is outside {lo}..{hi}: an immediate is a 32-bit integer (the " \
                                              "bindings' `int`)"

    def bind_c(self, o, v, st):
        pname = self.c_name(o)
        st.template_int(pname, o.name, o.values, o.min_value, o.default)
        st.pieces.append(("one", st.inp("n", pname)))

    def c_doc(self, o, v):
        vals = (", ".join(map(str, o.values)) if o.values is not None
                else f">= {o.min_value}" if o.min_value is not None else "any value")
        dflt = "" if o.default is None else f"; default {o.default}"
        return f"{o.name}: template parameter {self.c_name(o)} ({vals}{dflt})"

    def check(self, v, o, value):
        if o.values is not None and int(value) not in o.values:
            raise ValueError(f"{v.id}: {o.name} = {value} is not one of {list(o.values)}")
        if o.min_value is not None and int(value) < o.min_value:
            raise ValueError(f"{v.id}: {o.name} = {value} is below its minimum {o.min_value}")


class Selector(Immediate):
    """The sparsity selector: which threads of a group supply the metadata."""
    name = "selector"
    needs_sparsity = True

    def resolve(self, o, ctx):
        return Resolved(0, "", values=ctx.sparsity.selectors)

    def c_name(self, o):
        return "SpSel"  # one name for the sparsity selector in every instruction

    def c_doc(self, o, v):
        return (f"{o.name}: template parameter SpSel, sparsity selector: which threads supply metadata "
                f"({', '.join(map(str, o.values or ()))})")


class ScaleSelector(OperandKind):
    """A braced tuple of immediates ({byte-id, thread-id}) picking scale factors out of the scale registers."""
    name = "scale_selector"
    constant = True

    def resolve(self, o, ctx):
        return Resolved(0, "")

    def ptx(self, o, counters, immediates, pools):
        return "{" + ", ".join(str(immediates.get(f"{o.name}.{part}", values[0])) for part, values in o.parts) + "}"

    def bind_c(self, o, v, st):
        if not o.parts:
            raise BindingError(f"{v.id}: scale_selector operand {o.name!r} lists no parts")
        refs = []
        for part, vals in o.parts:
            pname = self.part_name(o, part)
            st.template_int(pname, f"{o.name}.{part}", tuple(vals) or None)
            refs.append(st.inp("n", pname))
        st.pieces.append(("list", refs))

    def c_doc(self, o, v):
        return f"{o.name}: template parameters " + ", ".join(
            f"{self.part_name(o, p)} ({min(vs)}..{max(vs)})" for p, vs in o.parts)

    def check(self, v, o, value):
        parts = tuple(value) if isinstance(value, (tuple, list)) else None
        if parts is None or len(parts) != len(o.parts):
            raise ValueError(f"{v.id}: {o.name} is a tuple ({', '.join(p for p, _ in o.parts)})")
        for (part, legal), x in zip(o.parts, parts):
            x = integer(f"{v.id}: {o.name}.{part}", x, -(1 << 63), (1 << 63) - 1)  # 1.5 is no selector
            if x not in legal:
                raise ValueError(f"{v.id}: {o.name}.{part} = {x} is not one of {list(legal)}")


class TmemAddress(OperandKind):
    """[taddr]: a 32-bit register holding a tensor-memory address (lane << 16 | column)."""
    name = "tmem_address"
    scalar = True

    def ptx(self, o, counters, immediates, pools):
        return f"[{register_names(o, counters, pools)[0]}]"

    def bind_c(self, o, v, st):
        st.params.append(f"uint32_t {o.name}")
        st.pieces.append(("addr", st.inp("r", o.name)))
        st.memory = True

    def c_doc(self, o, v):
        what = f" of {o.matrix.upper()}" if o.matrix else ""
        return f"{o.name}: [{o.name}], tensor-memory address{what} (lane << 16 | column)"

    def check(self, v, o, value):
        value = int(value)
        if not 0 <= value < 1 << 32:
            raise ValueError(f"{v.id}: {o.name} = {value} is not a 32-bit tensor-memory address")


class TmemRegister(TmemAddress):
    """A 32-bit register holding a tensor-memory address, written bare (tcgen05.dealloc)."""
    name = "tmem_register"

    def ptx(self, o, counters, immediates, pools):
        return register_names(o, counters, pools)[0]

    def bind_c(self, o, v, st):
        st.params.append(f"uint32_t {o.name}")
        st.pieces.append(("one", st.inp("r", o.name)))
        st.memory = True

    def c_doc(self, o, v):
        return f"{o.name}: tensor-memory address (lane << 16 | column) returned by the allocation"


class InstructionDescriptor(OperandKind):
    """The 32-bit instruction descriptor of an MMA whose shapes and types are runtime data: a
    register (ptxas takes any 32-bit immediate too, and never looks at its value)."""
    name = "idesc"
    scalar = True

    def c_doc(self, o, v):
        return f"{o.name}: 32-bit instruction descriptor (ptxspec::idesc_{v.family}: M, N, types, sparsity)"


class LaneMask(OperandKind):
    """A vector of 32-bit registers, one bit per tensor-memory lane (disable-output-lane: a set bit
    keeps that lane of D unchanged); its length is stated in the signature (`regs`)."""
    name = "lane_mask"

    def resolve(self, o, ctx):
        return Resolved(int(o.get("regs", 1)), "b32")

    def ptx(self, o, counters, immediates, pools):
        return "{" + ", ".join(register_names(o, counters, pools)) + "}"

    def bind_c(self, o, v, st):
        st.params.append(f"const uint32_t (&{o.name})[{o.regs}]")
        st.pieces.append(("list", [st.inp("r", f"{o.name}[{r}]") for r in range(o.regs)]))

    def c_doc(self, o, v):
        return f"{o.name}: {o.regs} x .b32, one bit per tensor-memory lane (bit l of register l / 32)"

    def executor_default(self, o):
        return 0 if o.default is None else o.default


class ColumnMask(OperandKind):
    """A 64-bit register with a zero-column mask descriptor (which columns of B read as zero)."""
    name = "column_mask"
    scalar = True

    def resolve(self, o, ctx):
        return Resolved(1, "b64")

    def c_doc(self, o, v):
        return f"{o.name}: 64-bit zero-column mask descriptor"


class CtaMask(OperandKind):
    """A 16-bit register with one bit per CTA of the cluster (%cluster_ctarank)."""
    name = "cta_mask"
    scalar = True

    def resolve(self, o, ctx):
        return Resolved(1, f"b{int(o.get('bits', 16))}")

    def c_doc(self, o, v):
        return f"{o.name}: {o.reg_type[1:]}-bit mask of destination CTAs in the cluster"


class ColumnCount(OperandKind):
    """A 32-bit register with a number of tensor-memory columns (legal values in the signature)."""
    name = "column_count"
    scalar = True

    def resolve(self, o, ctx):
        legal = o.get("values")
        return Resolved(1, "b32", values=None if legal is None else tuple(int_set(legal)))

    def ptx(self, o, counters, immediates, pools):
        """The register, or the constant `immediates` gives (PTX takes either)."""
        if o.name in immediates:
            return str(immediates[o.name])
        return super().ptx(o, counters, immediates, pools)

    def c_doc(self, o, v):
        vals = "" if o.values is None else f" ({', '.join(map(str, o.values))})"
        return f"{o.name}: number of tensor-memory columns{vals}"

    def check(self, v, o, value):
        if o.values is not None and int(value) not in o.values:
            raise ValueError(f"{v.id}: {o.name} = {value} is not one of {list(o.values)}")

    def value_problem(self, value: int) -> str | None:
        """Tensor memory is allocated in powers of two of at least 32 columns, of the 512 a CTA has (PTX
        ISA 9.7.16.7.1; fuzz seed 37: counts of -1, 0, 7, 65 and 2**63 - 1 validated)."""
        if value < 32 or value > COLUMNS or value & (value - 1):
            return f"{value} columns: a count is a power of two from 32 to {COLUMNS}"
        return None


class Reduction(OperandKind):
    """A 32-bit register receiving a reduction of the values the instruction moved."""
    name = "reduction"

    def bind_c(self, o, v, st):
        letter, ctype = c_register(o, v)
        st.params.append(f"{ctype}& {o.name}")
        st.pieces.append(("one", st.out("=" + letter, o.name)))

    def c_doc(self, o, v):
        return f"{o.name} (out): the reduction over each thread's loaded values"

    def executor_default(self, o):
        return 0  # a result needs no input


#: Every kind, by the name the spec's signatures use.
KINDS: dict[str, OperandKind] = {k.name: k for k in (
    Fragment(), Descriptor(), Metadata(), Selector(), Predicate(), Immediate(), Scale(), ScaleSelector(),
    Address(), Stride(), TmemAddress(), InstructionDescriptor(), LaneMask(), ColumnMask(), CtaMask(), ColumnCount(),
    Reduction(), TmemRegister())}


def kind_of(o: "Operand") -> OperandKind:
    return KINDS[o.kind]


__all__ = ["KINDS", "OperandKind", "OperandContext", "Resolved", "CStatement", "BindingError", "kind_of", "camel",
           "C_REGISTER", "SHARED_SPACES"]
