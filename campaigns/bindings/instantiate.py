"""A CUDA translation unit that calls every C binding of a set of variants (one kernel each).

Used by tests/test_bindings.py: compiled to PTX, assembled, searched for each opcode. Kernels are
light, for compile time: register inputs are zeros, scalar operands come from a global buffer,
and one register of each output is stored (the asm is volatile: the instruction stays whole).
Bindings with optional operands are called both ways. The device campaign (gen_bindings.py)
writes its own kernels, with real data.
"""
from __future__ import annotations

import re

from ptxspec.emit import cbind
from ptxspec.model.kinds import kind_of

PRELUDE = """\
#include <stdint.h>
#include <string.h>
#include "ptxspec.h"
template <class T, int N> __device__ __forceinline__ void st1(const T (&x)[N], uint32_t* p) {
  memcpy(p, &x[0], sizeof(T));
}
template <class T> __device__ __forceinline__ T ld1(const uint32_t* p) { T x; memcpy(&x, p, sizeof x); return x; }
"""


def immediates(v, chosen: dict | None = None) -> list[str]:
    """Template arguments of v's binding, in order: chosen[name] or the first legal value."""
    chosen = chosen or {}
    args = []
    for o in v.operands:
        if o.kind in ("immediate", "selector"):
            if o.name in chosen:
                args.append(str(chosen[o.name]))
            elif o.values:
                args.append(str(o.values[0]))
            else:
                args.append(str(o.min_value or 0))
        elif o.kind == "scale_selector":
            for part, vals in o.parts:
                args.append(str(chosen.get(f"{o.name}.{part}", vals[0])))
    return args


def _from_param(param: str, name: str, buf: str, off: int, pre: list, post: list) -> tuple[str, int]:
    """The argument for a binding parameter `param` (C++) from buf[off...]: zeroed arrays for array
    references, a local stored back for an output reference, a load for a value."""
    m = re.fullmatch(r"(const )?(\w+) \(&\w+\)\[(\d+)\]", param)
    if m:
        pre.append(f"{m[2]} {name}[{m[3]}] = {{}};")
        if not m[1]:
            post.append(f"st1({name}, {buf} + {off});")
        return name, off + int(m[3])
    ctype = param.rsplit(" ", 1)[0]
    if ctype.endswith("&"):
        pre.append(f"{ctype[:-1]} {name} = {{}};")
        post.append(f"memcpy({buf} + {off}, &{name}, sizeof {name});")
        return name, off + 2
    return f"ld1<{ctype}>({buf} + {off})", off + 2


def call(v, buf: str = "buf", chosen: dict | None = None,
         shared: str = "smem_addr", generic: bool = False) -> tuple[list[str], str, list[str]]:
    """(declarations and loads, the call, stores) for v; operands come from buf[...] in operand order.
    generic: call through the instruction's generic entry point (ptxspec::ops::...) instead of by name."""
    pre, args, post, arg_ops = [], [], [], []
    off = 0
    params = {re.split(r"[^A-Za-z0-9_]+", p.split("[")[0].rstrip(")"))[-1]: p for p in cbind.binding(v.spec, v)["params"]}
    for o in v.operands:
        if o.kind in ("fragment", "descriptor", "metadata", "scale", "stride", "predicate", "address"):
            arg_ops.append(o)
        if o.kind == "fragment":
            _, ctype = cbind.REGISTER[o.reg_type]
            pre.append(f"{ctype} {o.name}[{o.regs}];" if o.io == "out" else f"{ctype} {o.name}[{o.regs}] = {{}};")
            if o.io != "in":
                post.append(f"st1({o.name}, {buf} + {off});")
            off += o.regs * (2 if o.reg_type in ("f64", "b64") else 1)
            args.append(o.name)
        elif o.kind in ("descriptor", "metadata", "scale", "stride"):
            _, ctype = cbind.REGISTER[o.reg_type]
            args.append(f"ld1<{ctype}>({buf} + {off})")
            off += 2 if o.reg_type in ("b64",) else 1
        elif o.kind == "predicate":
            args.append(f"({buf}[{off}] & 1) != 0")
            off += 1
        elif o.kind == "address":
            space = v.qualifiers.get("space", "")
            args.append(shared if space in cbind.SHARED_SPACES else f"{buf} + 4096")
        elif not kind_of(o).constant:  # any other kind: as its binding's parameter says
            arg_ops.append(o)
            arg, off = _from_param(params[o.name], o.name, buf, off, pre, post)
            args.append(arg)
    tmpl = immediates(v, chosen)
    fn = f"ptxspec::{cbind.name(v)}" + (f"<{', '.join(tmpl)}>" if tmpl else "")
    if generic:
        fn = cbind.generic_call(v.spec, v, chosen)
    call_text = f"{fn}({', '.join(args)});"
    optional = [i for i, o in enumerate(arg_ops) if getattr(o, "optional", False)]
    if optional:  # the overload without the optional operands, too
        call_text += f"\n  {fn}({', '.join(a for i, a in enumerate(args) if i not in optional)});"
    return pre, call_text, post


def translation_unit(variants, kernel_prefix: str = "k", generic_every: int = 0) -> str:
    """generic_every = n > 0: every n-th variant is called through its generic entry point."""
    out = [PRELUDE]
    for i, v in enumerate(variants):
        pre, call_text, post = call(v, generic=bool(generic_every) and i % generic_every == 0)
        uses_shared = any(o.kind == "address" and v.qualifiers.get("space", "") in cbind.SHARED_SPACES
                          for o in v.operands)
        body = []
        if uses_shared:
            body += ["__shared__ uint32_t smem[1024];",
                     "uint32_t smem_addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));"]
        if v.instruction.startswith("wgmma.mma_async"):  # as a kernel would: fence, mma, commit, wait
            call_text = ("ptxspec::wgmma_fence_sync_aligned();\n  " + call_text + "\n  "
                         "ptxspec::wgmma_commit_group_sync_aligned();\n  ptxspec::wgmma_wait_group_sync_aligned<0>();")
        body += pre + [call_text] + post
        out.append(f"// {v.id}\n__global__ void {kernel_prefix}{i}(uint32_t* buf) {{\n  " + "\n  ".join(body) + "\n}\n")
    return "\n".join(out)
