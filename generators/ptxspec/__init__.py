"""ptxspec: the machine-checked specification of PTX matrix instructions.

    import ptxspec
    spec = ptxspec.load()
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    v.regs            # {'d': 4, 'a': 4, 'b_desc': 1}
    v.fragment("d")   # (threads, elements, 2): (row, col) of each element

The package's face: its public names resolve on first use (scientific Python's lazy loading,
SPEC 1, through `lazy_loader`), so that `import ptxspec` stays light and `ptxspec query` answers
from SQLite without importing numpy, YAML or jsonschema. `PUBLIC` says where each name lives; the
block for type checkers repeats it (tests/test_layers.py holds the two equal).
"""
from typing import TYPE_CHECKING

import lazy_loader

from ptxspec.core.version import __version__  # noqa: F401 (a public name)

__all__ = ["load", "database_of", "Spec", "Variant", "SpecError", "values", "tmem", "descriptors", "smem", "sparse",
           "blockscale", "__version__"]

#: module of the package -> the public names it gives
PUBLIC = {"api": [name for name in __all__ if name != "__version__"]}

__getattr__, __dir__, _ = lazy_loader.attach(__name__, submod_attrs=PUBLIC)

if TYPE_CHECKING:
    from ptxspec.api import (Spec, SpecError, Variant, blockscale, database_of, descriptors, load,  # noqa: F401
                             smem, sparse, tmem, values)
