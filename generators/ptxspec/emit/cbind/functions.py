"""One variant -> its C++ function: a shared signature macro and the variant's own lines.

Variants whose operands agree in everything but the opcode (kinds, registers, constraint letters,
immediates and their legal values) share one signature macro, `PTXSPEC_SIG_<hash>(NAME, OP, REQ)`,
which defines the function NAME wrapping the PTX statement OP, and deletes it where the guard REQ
is false (the device pass of a target the variant does not support). The variant's own lines are
its doc comment and one line that invokes the macro. Register lists in the asm operands are
written with the PTXSPEC_R<n> list macros of ptxspec_common.h.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from ptxspec.emit.cbind.cexpr import ident, name
from ptxspec.emit.cbind.guards import requirement_text
from ptxspec.model.kinds import KINDS, kind_of
from ptxspec.model.operand_kind import BindingError, CStatement
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant


def _statement(v: Variant, optional: bool) -> CStatement:
    st = CStatement()
    for o in v.operands:
        if o.optional and not optional:
            continue
        if o.kind not in KINDS:
            raise BindingError(f"{v.id}: operand {o.name!r} has kind {o.kind!r}, which the C binding "
                               f"generator does not know (known: {', '.join(KINDS)})")
        kind_of(o).bind_c(o, v, st)
    if not any(o.regs for o in v.operands):
        st.memory = True  # no register operand: a synchronisation, ordering memory
    return st


def _asm_lines(st: CStatement, opcode: str) -> list[str]:
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
    lines = []
    if st.pre:
        lines.append("{")
        for pred, ref in st.pre:
            lines.append(f".reg .pred {pred};")
            lines.append(f"setp.ne.b32 {pred}, %{st.number(ref)}, 0;")
    lines.append(f"{opcode} {', '.join(ops)};" if ops else f"{opcode};")
    if st.pre:
        lines.append("}")
    return lines


def binding(spec: Spec, v: Variant, optional: bool = True) -> dict:
    """The pieces of v's function: parameters, template parameters, asm text and operands
    (without the operands PTX lets one leave out, when `optional` is false). Each operand's
    kind (`ptxspec.model.kinds`) writes its own parameter and asm operand."""
    st = _statement(v, optional)
    return {"params": _defaults_trailing(st.params), "tparams": st.tparams, "asserts": st.asserts,
            "lines": _asm_lines(st, v.ptx), "outputs": st.outputs, "inputs": st.inputs, "memory": st.memory}


def _defaults_trailing(params: list[str]) -> list[str]:
    """Default arguments only where every later parameter has one too (C++'s rule)."""
    out, defaulted = [], True
    for p in reversed(params):
        defaulted = defaulted and " = " in p
        out.append(p if defaulted else p.split(" = ")[0])
    return out[::-1]


_ONE = re.compile(r'^"([^"]+)"\((\w+)\[(\d+)\]\)$')


def compress(constraints: list[str]) -> list[str]:
    """Runs of `"c"(x[i])`, `"c"(x[i+1])`, ... become PTXSPEC_R<n>("c", x, i) (n a power of two)."""
    return list(_compress(tuple(constraints)))


@lru_cache(maxsize=None)
def _compress(constraints: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(constraints):
        m = _ONE.match(constraints[i])
        if not m:
            out.append(constraints[i])
            i += 1
            continue
        c, x, first = m.group(1), m.group(2), int(m.group(3))
        j = i + 1
        while j < len(constraints):
            nxt = _ONE.match(constraints[j])
            if nxt is None or nxt.groups() != (c, x, str(first + j - i)):
                break
            j += 1
        run, start = j - i, first
        while run:
            n = 1 << (run.bit_length() - 1)
            out.append(f'PTXSPEC_R{n}("{c}", {x}, {start})' if n > 1 else f'"{c}"({x}[{start}])')
            start += n
            run -= n
        i = j
    return tuple(out)


def signature(spec: Spec, v: Variant, optional: bool = True) -> dict:
    """The shared signature macro of v's function (without the optional operands when `optional`
    is false): its name, parameters, checks and asm, with OP standing for the opcode."""
    st = _statement(v, optional)
    lines = _asm_lines(st, "\x00")
    asm = " ".join(('OP "' + line[1:] + '\\n"') if line.startswith("\x00") else f'"{line}\\n"' for line in lines)
    asm = asm.replace('OP " ;', 'OP ";')  # an opcode with no operands
    operands = ""
    if st.inputs or st.memory:
        operands = f" : {', '.join(compress(st.outputs))} : {', '.join(compress(st.inputs))}"
        operands += ' : "memory"' if st.memory else ""
    elif st.outputs:
        operands = f" : {', '.join(compress(st.outputs))}"
    sig = {"tparams": st.tparams, "params": _defaults_trailing(st.params), "asserts": [a.strip() for a in st.asserts],
           "asm": asm + operands}
    key = repr(sorted(sig.items())).encode()
    sig["macro"] = "PTXSPEC_SIG_" + hashlib.sha1(key).hexdigest()[:10]
    return sig


def operand_doc(spec: Spec, v: Variant, o) -> str:
    opt = " (optional: an overload leaves it out)" if o.optional else ""
    return kind_of(o).c_doc(o, v) + opt


def function(spec: Spec, v: Variant, guard: str) -> dict:
    """The view of v's function: its signature macros (one more without the optional operands,
    where PTX lets a statement leave some out), doc lines and guard."""
    sigs = [signature(spec, v)]
    if any(o.optional for o in v.operands):
        sigs.append(signature(spec, v, optional=False))
    form = spec.families[v.family].forms.get(v.form, "") if v.form else ""
    docs = [operand_doc(spec, v, o) for o in v.operands]
    for axis, values in v.options.items():
        docs.append(f"option {axis}: " + ", ".join(f".{value}" for value, _ in values if value) +
                    " (a qualifier the opcode may add; not bound here, see variant_options)")
    return {"name": name(v), "ptx": v.ptx, "form": f" ({form})" if form else "", "guard": guard,
            "requires": requirement_text(spec, v), "docs": docs, "signatures": sigs, "instruction": v.instruction}


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
