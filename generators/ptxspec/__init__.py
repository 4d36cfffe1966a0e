"""ptxspec: the machine-checked specification of PTX matrix instructions.

    import ptxspec
    spec = ptxspec.load()
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    v.regs            # {'d': 4, 'a': 4, 'b_desc': 1}
    v.fragment("d")   # (threads, elements, 2): (row, col) of each element

The package's face: its public names resolve on first use (scientific Python's lazy loading,
SPEC 1, through `lazy_loader`), so that `import ptxspec` stays light and `ptxspec query` answers
from SQLite without importing numpy, YAML or jsonschema. The names and where they live are
written out here, once.
"""
from __future__ import annotations

import lazy_loader

__version__ = "0.1.0"

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submodules=["api"],
    submod_attrs={"api": ["load", "database_of", "Spec", "Variant", "SpecError", "values"]},
)
