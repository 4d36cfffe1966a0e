"""One variant -> the view of its C++ function(s) and its fragment traits, for family.h.j2."""
from __future__ import annotations

from ...kinds import KINDS, BindingError, CStatement, kind_of
from ...model import Operand, Spec, Variant
from .cexpr import ident, name
from .guards import requirement_text


def binding(spec: Spec, v: Variant, optional: bool = True) -> dict:
    """The pieces of v's function: parameters, template parameters, asm text and operands
    (without the operands PTX lets one leave out, when `optional` is false). Each operand's
    kind (`ptxspec.kinds`) writes its own parameter and asm operand."""
    st = CStatement()
    for o in v.operands:
        if o.optional and not optional:
            continue
        if o.kind not in KINDS:
            raise BindingError(f"{v.id}: operand {o.name!r} has kind {o.kind!r}, which the C binding "
                               f"generator does not know (known: {', '.join(KINDS)})")
        kind_of(o).bind_c(o, v, st)
    if not any(o.regs for o in v.operands):
        st.memory = True  # no register operand (a fence, a commit or a wait): a synchronisation
    ops = []
    for how, x in st.pieces:
        if how == "list":
            ops.append("{" + ", ".join(f"%{st.number(r)}" for r in x) + "}")
        elif how == "one":
            ops.append(f"%{st.number(x)}")
        elif how == "addr":
            ops.append(f"[%{st.number(x)}]")
        else:
            ops.append(x)
    stmt = f"{v.ptx} {', '.join(ops)};" if ops else f"{v.ptx};"
    lines = []
    if st.pre:
        lines.append("{")
        for pred, ref in st.pre:
            lines.append(f".reg .pred {pred};")
            lines.append(f"setp.ne.b32 {pred}, %{st.number(ref)}, 0;")
    lines.append(stmt)
    if st.pre:
        lines.append("}")
    return {"params": st.params, "tparams": st.tparams, "asserts": st.asserts, "lines": lines,
            "outputs": st.outputs, "inputs": st.inputs, "memory": st.memory}


def operand_doc(spec: Spec, v: Variant, o: Operand) -> str:
    opt = " (optional: an overload leaves it out)" if o.optional else ""
    return kind_of(o).c_doc(o, v) + opt


def function(spec: Spec, v: Variant, guard: str) -> dict:
    """The view of v's function: one overload, and one without the optional operands where PTX
    lets a statement leave some out."""
    overloads = [binding(spec, v)]
    if any(o.optional for o in v.operands):
        overloads.append(binding(spec, v, optional=False))
    form = spec.families[v.family].forms.get(v.form, "") if v.form else ""
    docs = [operand_doc(spec, v, o) for o in v.operands]
    for axis, values in v.options.items():
        docs.append(f"option {axis}: " + ", ".join(f".{value}" for value, _ in values if value) +
                    " (a qualifier the opcode may add; not bound here, see variant_options)")
    return {"name": name(v), "ptx": v.ptx, "form": f" ({form})" if form else "", "guard": guard,
            "requires": requirement_text(spec, v), "docs": docs, "overloads": overloads}


def traits(spec: Spec, v: Variant) -> dict:
    """frag::<name>: the shape, and per register operand a type naming its layout at this shape
    (layout::<layout><M, N, K, bits>: elements, regs, row(t, i), col(t, i), reg(i), slot(i)); for
    sparse variants `meta` (sparsity::<map><M, K>: contributes, row, chunk, field, metadata); per
    scale operand its block-scale factor map (scale::<map><M, N, K, vectors>: supplies, index, byte)."""
    uses = []
    for o in v.operands:
        if o.kind != "fragment" or o.matrix not in v.fragment_layouts:
            continue
        lay, bits, (m, n, k) = v.fragment_layouts[o.matrix]
        uses.append((o.name, f"layout::{ident(lay.name)}<{m}, {n}, {k}, {bits}>"))
    if v.sparsity is not None:
        uses.append(("meta", f"sparsity::{ident(v.sparsity.name)}<{v.m}, {v.k}>"))
    for o in v.operands:
        if o.scale_map:
            uses.append((o.name, f"scale::{ident(o.scale_map)}<{v.m}, {v.n}, {v.k}, {o.vectors}>"))
    return {"name": name(v), "threads": v.threads, "shape": None if v.m is None else (v.m, v.n, v.k), "uses": uses}
