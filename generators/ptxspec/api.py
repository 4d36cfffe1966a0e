"""The public entry: `load` joins the layers into the Spec users hold.

On an unchanged spec, `load` reads the resolved model back from the cache (ptxspec.loading.cache);
otherwise the loader reads, checks and resolves the tree (and files the model). Either way this
module attaches what the loader cannot, being below it: how `Spec.query` searches (the query
layer's SQL over the model's database). The resolver and the database builder are imported when
first needed (a cache miss, a query): a warm `load` imports neither YAML, jsonschema nor
sqlite-utils.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import lazy_loader

from ptxspec.core import values
from ptxspec.core.errors import SpecError
from ptxspec.core.paths import default_evidence_dir, default_spec_dir
from ptxspec.loading import cache
from ptxspec.model import descriptors, smem, tmem
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant
from ptxspec.query.database import Database
from ptxspec.semantics import blockscale, sparse

if TYPE_CHECKING:
    from ptxspec.loading import resolve
    from ptxspec.query import search
else:
    resolve = lazy_loader.load("ptxspec.loading.resolve", suppress_warning=True)  # imported on a cache miss
    search = lazy_loader.load("ptxspec.query.search", suppress_warning=True)  # imported by the first Spec.query

#: the public names: functions and classes, and the tool modules the README and their docstrings
#: show as `ptxspec.<name>` (typed values, tensor memory, the instruction descriptor, shared memory,
#: sparsity metadata, block scaling)
__all__ = ["load", "database_of", "Spec", "Variant", "SpecError", "values", "tmem", "descriptors", "smem", "sparse",
           "blockscale"]


def load(spec_dir=None, evidence_dir=None) -> Spec:
    """Load, validate and resolve a spec tree (default: the repository's `spec/`, or the one installed
    with the package) into a `Spec`, joined with the hardware evidence (default: the `evidence/`
    directory beside the spec tree). An unchanged tree comes from the model cache."""
    root = Path(spec_dir) if spec_dir is not None else default_spec_dir()
    evidence = Path(evidence_dir) if evidence_dir is not None else default_evidence_dir(root)
    k = cache.key(root, evidence)
    spec = cache.read(k)
    if spec is None:
        spec = resolve.read_model(root, evidence)
        cache.write(k, spec)
    spec.searcher = search
    return spec


def database_of(spec_dir) -> Database:
    """The database `ptxspec build` would write for the spec tree in `spec_dir`, in memory."""
    return search.database(load(spec_dir))
