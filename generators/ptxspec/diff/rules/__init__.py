"""The rules, one module per area; importing this package registers every rule."""
from . import (  # noqa: F401 - imported for their @rule registrations
    arithmetic,
    definitions,
    descriptors,
    descriptions,
    errata,
    families,
    fragments,
    instructions,
    isa,
    layouts,
    operands,
    requirements,
    smem,
    sparsity,
    types,
    variants,
)
