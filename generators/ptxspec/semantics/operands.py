"""Operands of an execution: checked and shaped before any executor reads them.

Every executor takes a variant's operands by their PTX names; what a register fragment, an image of
memory or an immediate must be is checked here, once for all, and a wrong one is an OperandError
(or ValueError) that names the operand and says what to pass.
"""
from __future__ import annotations

import numpy as np

from ptxspec.model.kinds import kind_of


class OperandError(TypeError):
    """An operand missing, unknown, or of the wrong kind for the variant."""


def by_name(v):
    return {o.name: o for o in v.operands}


def check_operands(v, ops: dict, smem):
    names = by_name(v)
    unknown = sorted(set(ops) - set(names))
    if unknown:
        raise OperandError(f"{v.id} has no operand {', '.join(map(repr, unknown))}; it has {', '.join(names)}")
    for o in v.operands:
        kind = kind_of(o)
        if o.name in ops:
            kind.check(v, o, ops[o.name])
        elif kind.executor_default(o) is None:
            raise OperandError(f"{v.id}: operand {o.name!r} ({o.kind}) is missing")
    if any(o.kind == "descriptor" for o in v.operands) and smem is None:
        raise OperandError(f"{v.id} reads shared memory through descriptors: pass smem=")


def registers(v, name, arr):
    o = v.operand(name)
    a = np.asarray(arr)
    want = (v.threads, o.regs)
    if a.shape[-2:] != want or a.ndim not in (2, 3):
        raise ValueError(f"{v.id}: operand {name!r} must be shaped {want} or (batch, *{want}); got {a.shape}")
    return a


def memory_image(smem):
    if isinstance(smem, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(smem), dtype=np.uint8)
    a = np.asarray(smem)
    if a.dtype != np.uint8:
        raise TypeError(f"smem must be bytes or a uint8 array, not {a.dtype}")
    return a
