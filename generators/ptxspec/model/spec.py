"""The resolved model: every variant of every instruction, explicit, checked, in memory.

`ptxspec.loading.resolve.build_model` takes the documents from `loading.tree.read_tree` and expands
each instruction's groups (the cross product of shapes, types and qualifiers) into `Variant`s with
their requirements, operand signatures and fragment maps. Every generator reads this model and
nothing else. The model's classes import no loader, executor, query or emitter.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any

from ptxspec.model.arithmetic import NumericsRule
from ptxspec.model.catalog import Catalog
from ptxspec.model.descriptors import BitDescriptor
from ptxspec.model.elements import ElementType
from ptxspec.model.errata import Erratum
from ptxspec.model.evidence import EvidenceIndex
from ptxspec.model.family import Axis, Family, Instruction
from ptxspec.model.fragment_loaders import LoaderTable
from ptxspec.model.fragments import FragmentLayout, ScaleMap
from ptxspec.model.isa import Target, Version
from ptxspec.model.smem import SharedMemory
from ptxspec.model.sparsity import Sparsity
from ptxspec.model.variant import Variant


class Spec:
    """The loaded, resolved specification."""

    def __init__(self, *, ptx_versions: list[Version], ptxas_versions: set[Version], targets: dict[str, Target],
                 types: dict[str, ElementType], families: dict[str, Family], layouts: dict[str, FragmentLayout],
                 sparsities: dict[str, Sparsity], smem: dict[str, SharedMemory], digest: str,
                 scale_maps: dict[str, ScaleMap] | None = None,
                 descriptors: dict[tuple[str, str], BitDescriptor] | None = None):
        self.ptx_versions = ptx_versions
        self.ptxas_versions = ptxas_versions
        self.targets = targets
        self.types = types
        self.families = families
        self.layouts = layouts
        self.sparsities = sparsities
        self.scale_maps = scale_maps or {}  # block-scale factor maps (spec/layouts `scale_maps`)
        self.smem = smem
        self.descriptors = descriptors or {}  # (family, name) -> BitDescriptor
        self.digest = digest  # SHA-256 of the spec tree it was built from
        self.evidence = EvidenceIndex([])  # the hardware campaigns (evidence/), joined by variant id
        self.instructions: dict[str, Instruction] = {}  # filled by the resolver, with the variants
        self.errata: list[Erratum] = []
        self.numerics: list[NumericsRule] = []  # tried in order: the first that matches applies
        self.variants: list[Variant] = []
        self._by_key: dict[tuple[str, str], Variant] = {}
        self._by_id: dict[str, Variant] = {}
        self._map_cache: dict = {}
        #: semantics name -> its meaning (what its operands must be, how it executes, which products
        #: a descriptor may select): given by the loader from ptxspec.semantics.meanings
        self.meanings: dict[str, Any] = {}
        #: what answers `query` (the query layer's module whose `search` runs the SQL of `ptxspec query`
        #: over this model's database), given by ptxspec.load; None in a model built otherwise
        self.searcher: Any = None

    #: what a pickle (ptxspec.loading.cache) leaves out: caches, indexes of the variants, and what
    #: ptxspec.load attaches
    TRANSIENT = ("searcher", "catalog", "loaders", "_database", "_map_cache", "_by_key", "_by_id")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self.TRANSIENT}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._map_cache = {}
        self.searcher = None
        self._by_id = {v.id: v for v in self.variants}
        self._by_key = {(v.ptx, v.form): v for v in self.variants}

    @property
    def axes(self) -> dict[str, Axis]:
        """Every qualifier axis of every family (families by name, axes in their order); an axis two
        families declare is listed once, as the first declares it."""
        out: dict[str, Axis] = {}
        for name in sorted(self.families):
            for a in self.families[name].axes.values():
                if not a.option:  # option axes are not variant fields (see Variant.options)
                    out.setdefault(a.name, a)
        return out

    def descriptor(self, family: str = "tcgen05", name: str = "idesc") -> BitDescriptor:
        """A run-time descriptor operand's layouts (spec/descriptors/)."""
        try:
            return self.descriptors[(family, name)]
        except KeyError:
            raise KeyError(f"the spec describes no descriptor {name!r} of family {family!r} "
                           f"(it has {sorted(self.descriptors)})") from None

    def target_order(self, name: str):
        return self.targets[name].sort_key

    def sort_targets(self, names) -> list[str]:
        return sorted(names, key=self.target_order)

    def previous_version(self, v: Version) -> Version | None:
        idx = self.ptx_versions.index(v)
        return self.ptx_versions[idx - 1] if idx > 0 else None

    def variant(self, ptx: str, form: str | None = None) -> Variant:
        """One variant by id, or by opcode with its qualifiers in any order ptxas accepts (and the
        form, where the opcode has several); errors as `ptxspec query --variant` (ptxspec.model.catalog)."""
        hit = self._by_id.get(ptx) if form is None else self._by_key.get((ptx, form))
        if hit is None and form is None:
            hit = self._by_key.get((ptx, ""))
        if hit is not None:
            return hit
        return self._by_id[self.catalog.resolve(ptx, form)]

    @cached_property
    def loaders(self):
        """Which movement form (ldmatrix, stmatrix) moves each fragment of each product variant,
        composed from their maps (ptxspec.model.fragment_loaders); computed on first use."""
        return LoaderTable(self)

    @cached_property
    def catalog(self) -> Catalog:
        """Every variant's spelling, for finding one by its opcode (ptxspec.model.catalog)."""
        return Catalog(((v.id, v.ptx, v.form) for v in self.variants), self.types, self.instructions,
                       ((v.id, value) for v in self.variants for vals in v.options.values() for value, _ in vals
                        if value))

    def query(self, *filters: str, family=None, target=None, ptx=None, **fields) -> list[Variant]:
        """Variants as `ptxspec query` finds them (the same SQL, errors and did-you-mean): filters
        `FIELD=VALUE` (or != < <= > >= ~), fields as keywords (n=200, atype="e4m3", sparse=True)."""
        if self.searcher is None:
            raise RuntimeError("this model was built without a query engine: use ptxspec.load()")
        return [self._by_id[i] for i in self.searcher.search(self, filters, family, target, ptx, fields)]
