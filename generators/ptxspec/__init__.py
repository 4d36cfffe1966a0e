"""ptxspec: the machine-checked specification of PTX matrix instructions.

    import ptxspec
    spec = ptxspec.load()
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    v.regs            # {'d': 4, 'a': 4, 'b_desc': 1}
    v.fragment("d")   # (threads, elements, 2): (row, col) of each element
"""
from __future__ import annotations

from .errors import SpecError
from .model import Spec, Variant, build_model
from .source import read_tree

__all__ = ["load", "Spec", "Variant", "SpecError"]
__version__ = "0.1.0"


def load(spec_dir=None) -> Spec:
    """Load, validate and resolve a spec tree (default: the repository's `spec/`)."""
    return build_model(read_tree(spec_dir))
