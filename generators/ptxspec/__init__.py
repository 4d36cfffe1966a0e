"""ptxspec: the machine-checked specification of PTX matrix instructions.

    import ptxspec
    spec = ptxspec.load()
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    v.regs            # {'d': 4, 'a': 4, 'b_desc': 1}
    v.fragment("d")   # (threads, elements, 2): (row, col) of each element
"""
from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["load", "Spec", "Variant", "SpecError"]
__version__ = "0.1.0"

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from .errors import SpecError
    from .model import Spec, Variant


def load(spec_dir=None, evidence_dir=None):
    """Load, validate and resolve a spec tree (default: the repository's `spec/`) into a `Spec`,
    joined with the hardware evidence (default: the `evidence/` directory beside the spec tree)."""
    from . import execute  # noqa: F401  (registers Variant.execute)
    from .resolve import build_model
    from .source import read_tree
    tree = read_tree(spec_dir)
    return build_model(tree, evidence_dir)


def __getattr__(name):  # keep `import ptxspec` light: the model (numpy, yaml) loads on first use
    if name == "SpecError":  # errors.py imports dataclasses: not on the query CLI's path
        from .errors import SpecError
        return SpecError
    if name in ("Spec", "Variant"):
        from . import model
        return getattr(model, name)
    if name == "values":  # ptxspec.values.to_tf32, without an import of its own
        from . import values
        return values
    raise AttributeError(f"module 'ptxspec' has no attribute {name!r}")
