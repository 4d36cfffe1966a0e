"""numpy, imported on first use.

Every module of the package that computes with arrays takes `np` from here instead of importing
numpy itself. numpy's import is a third of a warm `ptxspec.load()` (about 0.1 s), and a process
that reads a cached model and asks it questions, or `ptxspec query`, needs no array: the first
attribute read (`np.zeros`, `np.ndarray`, ...) imports it (scientific Python's lazy loading,
SPEC 1). Type checkers see numpy itself.
"""
from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_loader.load("numpy")

__all__ = ["np"]
