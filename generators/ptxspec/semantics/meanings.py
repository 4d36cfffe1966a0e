"""What executing an instruction means: the semantics an instruction file names (`semantics:`).

Each meaning says which operands a signature must have for it (checked when the spec loads), which
executor runs its variants (`Variant.execute`), and, where an operand chooses the shape and types
at run time (tcgen05.mma's instruction descriptor), which products a variant can compute. This
table is the one place that ties them: the loader gives it to the model (`Spec.meanings`). A family
whose instructions mean something new (a matrix load with per-lane addresses, say) adds its meaning
here, with its executor; a family whose instructions mean one of these needs no code.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ptxspec.semantics import execute, movement, tmem_mma


def _has(ops, kinds: tuple[str, ...], matrix: str | None = None, io: tuple[str, ...] = ("in", "out", "inout")) -> bool:
    return any(o["kind"] in kinds and (matrix is None or o.get("matrix") == matrix) and o.get("io", "in") in io
               for o in ops)


def _mma(ops, sparse: bool) -> list[str]:
    missing = []
    if not _has(ops, ("fragment",), "d", ("out", "inout")):
        missing.append("a result fragment of D (io out or inout)")
    for m in ("a", "b"):
        if not _has(ops, ("fragment", "descriptor"), m, ("in",)):
            missing.append(f"{m.upper()} (a fragment or a descriptor, io in)")
    if not (_has(ops, ("fragment",), "c", ("in",)) or _has(ops, ("fragment",), "d", ("inout",))):
        missing.append("the accumulator C (a fragment of C, or D read and written)")
    if sparse:
        missing += [f"a {k} operand (the group is sparse)" for k in ("metadata", "selector") if not _has(ops, (k,))]
    return missing


def _load(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("fragment",), io=("out",)) else ["the loaded fragment (io out)"]
    return missing + ([] if _has(ops, ("address",)) else ["the address operand"])


def _store(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("fragment",), io=("in",)) else ["the stored fragment (io in)"]
    return missing + ([] if _has(ops, ("address",)) else ["the address operand"])


def _transpose(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("fragment",), io=("in",)) else ["the source fragment (io in)"]
    return missing + ([] if _has(ops, ("fragment",), io=("out",)) else ["the result fragment (io out)"])


def _tmem_mma(ops, sparse: bool) -> list[str]:
    missing = []
    if not _has(ops, ("tmem_address",), "d", ("inout", "out")):
        missing.append("D in tensor memory (a tmem_address of matrix d, io inout)")
    if not _has(ops, ("descriptor", "tmem_address"), "a", ("in",)):
        missing.append("A (a descriptor or a tmem_address of matrix a)")
    if not _has(ops, ("descriptor",), "b", ("in",)):
        missing.append("B (a descriptor of matrix b)")
    if not _has(ops, ("idesc",)):
        missing.append("the instruction descriptor (an idesc operand)")
    if sparse and not _has(ops, ("tmem_address",), "meta"):
        missing.append("the sparsity metadata in tensor memory (a tmem_address of matrix meta)")
    return missing


def _tmem_load(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("fragment",), io=("out",)) else ["the loaded fragment (io out)"]
    return missing + ([] if _has(ops, ("tmem_address",)) else ["the tensor-memory address"])


def _tmem_store(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("fragment",), io=("in",)) else ["the stored fragment (io in)"]
    return missing + ([] if _has(ops, ("tmem_address",)) else ["the tensor-memory address"])


def _tmem_copy(ops, sparse: bool) -> list[str]:
    missing = [] if _has(ops, ("tmem_address",)) else ["the tensor-memory address"]
    return missing + ([] if _has(ops, ("descriptor",)) else ["the shared-memory source descriptor"])


def _tmem_only(ops, sparse: bool) -> list[str]:
    return [] if not _has(ops, ("fragment",)) else ["no fragment operands"]


def _sync(ops, sparse: bool) -> list[str]:
    return ["no fragment operands (a synchronisation moves no data)"] if _has(ops, ("fragment",)) else []


@dataclass(frozen=True)
class Semantics:
    name: str
    description: str
    #: (the operands of one form, as spec mappings; whether the group is sparse) -> what is missing
    needs: Callable[[list, bool], list[str]]
    #: (variant, **operands) -> the destination registers (or memory image); None: nothing to execute
    execute: Callable | None = None
    #: variant -> [(label, rule or None, parameters, basis)] of every product an operand may select at run
    #: time (its shape and types are no fields of the variant); None where the variant's own fields decide
    products: Callable | None = None
    #: variant -> why `products` names none for it, as the spec says ('' where it says nothing)
    why_none: Callable | None = None
    #: variant -> [(operand, why)] for operands whose stated shape the executor cannot take (loading.checks)
    signature_problems: Callable | None = None


SEMANTICS: dict[str, Semantics] = {s.name: s for s in (
    Semantics("mma", "D = A*B + C over an M x N x K tile (sparse: A structured-sparse, with metadata)", _mma,
              execute.execute_mma),
    Semantics("fragment_load", "a matrix fragment loaded from memory into registers", _load, movement.execute_memory),
    Semantics("fragment_store", "a matrix fragment stored from registers to memory", _store,
              movement.execute_memory),
    Semantics("load_matrix", "rows at per-lane addresses (lane r names row r of the fragment's matrix) "
              "loaded into a register fragment", _load, movement.load_matrix),
    Semantics("store_matrix", "a register fragment stored as rows at per-lane addresses", _store,
              movement.store_matrix),
    Semantics("transpose", "a register fragment of a matrix becomes the fragment of its transpose", _transpose,
              movement.transpose),
    Semantics("sync", "ordering and completion only: no operand data", _sync),
    Semantics("tmem_mma", "D = A*B + D with D (and optionally A, scale factors, metadata) in tensor memory; M, N, "
              "K and the element types come from the instruction descriptor", _tmem_mma,
              tmem_mma.tmem_mma, tmem_mma.products, tmem_mma.why_no_products, tmem_mma.signature_problems),
    Semantics("tmem_load", "registers loaded from tensor memory (a warp-collective access)", _tmem_load),
    Semantics("tmem_store", "registers stored to tensor memory (a warp-collective access)", _tmem_store),
    Semantics("tmem_copy", "a matrix copied from shared memory (a descriptor) into tensor memory", _tmem_copy),
    Semantics("tmem_manage", "tensor-memory allocation, deallocation and row shifting: no register data",
              _tmem_only),
)}
