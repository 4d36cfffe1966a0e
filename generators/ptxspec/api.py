"""The public entry: `load` joins the layers into the Spec users hold.

Loading (`ptxspec.loading`) reads and checks the spec and gives the model its meanings (the
executors); this module adds the one thing the loader cannot, being below it: how `Spec.query`
searches (the query layer's SQL over the model's database).
"""
from __future__ import annotations

from ptxspec.core import values
from ptxspec.core.errors import SpecError
from ptxspec.loading.resolve import read_model
from ptxspec.model import descriptors, smem, tmem
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant
from ptxspec.query.database import Database
from ptxspec.query.search import database, search
from ptxspec.semantics import blockscale, sparse

#: the public names: functions and classes, and the tool modules the README and their docstrings
#: show as `ptxspec.<name>` (typed values, tensor memory, the instruction descriptor, shared memory,
#: sparsity metadata, block scaling)
__all__ = ["load", "database_of", "Spec", "Variant", "SpecError", "values", "tmem", "descriptors", "smem", "sparse",
           "blockscale"]


def load(spec_dir=None, evidence_dir=None) -> Spec:
    """Load, validate and resolve a spec tree (default: the repository's `spec/`, or the one installed
    with the package) into a `Spec`, joined with the hardware evidence (default: the `evidence/`
    directory beside the spec tree)."""
    spec = read_model(spec_dir, evidence_dir)
    spec.searcher = search
    return spec


def database_of(spec_dir) -> Database:
    """The database `ptxspec build` would write for the spec tree in `spec_dir`, in memory."""
    return database(load(spec_dir))
