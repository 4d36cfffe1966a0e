"""Variants: one opcode in one operand form, with its requirement, operands and fragment maps."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos
from ptxspec.core.values import from_codes, to_codes
from ptxspec.core.words import words
from ptxspec.model.fragments import FragmentLayout, FragmentMap
from ptxspec.model.isa import Requirement, Version
from ptxspec.model.opcodes import fill_template
from ptxspec.model.sparsity import Sparsity

if TYPE_CHECKING:  # annotations only: a variant belongs to a Spec, which imports this module
    from ptxspec.model.spec import Spec


@dataclass(frozen=True)
class Operand:
    name: str
    kind: str
    io: str
    matrix: str | None
    values: tuple[int, ...] | None  # legal immediate values, None: no limit listed
    min_value: int | None
    regs: int  # registers per thread (0 for immediates)
    reg_type: str  # PTX register type to declare ("" for immediates)
    layout: str | None = None
    element_type: str | None = None
    parts: tuple[tuple[str, tuple[int, ...]], ...] = ()  # a braced tuple of immediates: (name, legal values)
    optional: bool = False  # the PTX statement may leave it out (wmma's stride)
    observed_on: str = ""  # a fragment whose map is an observation of this target, not the manual's (wmma)
    default: int | None = None  # the neutral value, assumed by the executor and bindings when left out
    vector: bool = True  # a fragment written as a brace-enclosed vector ({d}), or bare (d: movmatrix)
    vectors: int = 0  # a scale operand: scale factors per row of A / column of B (the .scale_vec)
    scale_map: str | None = None  # a scale operand: its block-scale factor map (spec/layouts `scale_maps`)

    def as_data(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "io": self.io, "regs": self.regs, "reg_type": self.reg_type}
        if self.matrix:
            d["matrix"] = self.matrix
        if self.layout:
            d["layout"] = self.layout
        if self.element_type:
            d["element_type"] = self.element_type
        if self.values is not None:
            d["values"] = list(self.values)
        if self.min_value is not None:
            d["min"] = self.min_value
        if self.parts:
            d["parts"] = {name: list(vals) for name, vals in self.parts}
        if self.optional:
            d["optional"] = True
        if self.observed_on:
            d["observed_on"] = self.observed_on
        if not self.vector:
            d["vector"] = False
        if self.scale_map:
            d["scale_map"] = self.scale_map
        if self.vectors:
            d["vectors"] = self.vectors
        return d


@dataclass(eq=False)
class Variant:
    id: str
    family: str
    instruction: str
    ptx: str
    form: str
    m: int | None
    n: int | None
    k: int | None
    atype: str
    btype: str
    ctype: str
    dtype: str
    satfinite: bool
    op: str
    sparse: bool
    requirement: Requirement
    operands: tuple[Operand, ...]
    group: str
    pos: Pos
    threads: int
    spec: "Spec" = field(repr=False)
    qualifiers: dict[str, str] = field(default_factory=dict)
    fragment_layouts: dict[str, tuple[FragmentLayout, int, tuple[int, int, int]]] = field(default_factory=dict, repr=False)
    sparsity: Sparsity | None = None
    metadata_order: str = ""  # "increasing" when a refinement says the kept indices must increase
    batch: int = 1  # independent products per instruction (mma.m8n8k4 .f16: one per quad-pair), stacked
    ptxas_only: str = ""  # erratum id: ptxas accepts the variant, the manual does not define it
    hardware_note: str = ""  # why an H100 cannot show this variant's maps although sm_90a accepts it
    #: option axis -> the values the variant accepts, each with its requirement (see `opcodes`)
    options: dict[str, tuple[tuple[str, Requirement], ...]] = field(default_factory=dict, repr=False)
    option_template: str = ""  # the opcode with the option axes' placeholders still to fill
    #: field group -> the YAML nodes that determined it, most specific first (`resolve.Origin`):
    #: opcode, shape, types, qualifiers, requirement, operands, fragment.<matrix>, sparsity
    sources: dict[str, tuple] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> tuple:
        """Pickled (the model cache) as its fields' values in order, without what it computes on
        demand (its record, its hardware line)."""
        return tuple(getattr(self, f) for f in _FIELDS)

    def __setstate__(self, state: tuple) -> None:
        self.__dict__.update(zip(_FIELDS, state))

    @cached_property
    def hardware(self) -> str:
        """What hardware proved of the maps: the GPU of a campaign that ran the variant and matched
        (evidence/), or why there is none (see schema/database.schema.json). Computed once: the
        model's evidence does not change."""
        proofs = [e for e in self.spec.evidence.of(self.id, "maps") if not e.results[self.id].mismatches]
        if proofs:
            return proofs[0].hardware
        if self.hardware_note:
            return f"not observable on sm_90a: {self.hardware_note}"
        ran_on = sorted({e.target for e in self.spec.evidence.campaigns})
        if ran_on and not self.requirement.targets & set(ran_on):
            return f"not run: no {', '.join(ran_on)} target"
        return "not run: no hardware record"

    @property
    def semantics(self) -> str:
        return self.spec.instructions[self.instruction].semantics

    @property
    def min_ptx(self) -> str:
        return str(self.requirement.min_ptx)

    @property
    def targets(self) -> list[str]:
        return self.spec.sort_targets(self.requirement.targets)

    @property
    def regs(self) -> dict[str, int]:
        return {o.name: o.regs for o in self.operands if o.regs}

    @property
    def metadata_nibbles(self) -> tuple[int, ...]:
        """Valid values of each metadata nibble: (second kept unit << 2) | first kept unit."""
        if self.sparsity is None:
            return ()
        nibbles = self.sparsity.valid_nibbles
        if self.metadata_order == "increasing":
            nibbles = tuple(x for x in nibbles if (x & 3) < (x >> 2))
        return nibbles

    @property
    def selectors(self) -> tuple[int, ...]:
        return self.sparsity.selectors if self.sparsity else ()

    def opcode(self, **options: str) -> str:
        """The opcode with the given option values (the option axes' qualifiers; '' leaves one out)."""
        if not options:
            return self.ptx
        for axis, value in options.items():
            if axis not in self.options or value not in dict(self.options[axis]):
                legal = ", ".join(repr(v) for v, _ in self.options.get(axis, ())) or "none"
                raise KeyError(f"{self.id}: option {axis}={value!r} is not accepted (values: {legal})")
        return fill_template(self.option_template, options)

    def opcodes(self) -> list[tuple[str, dict[str, str], Requirement]]:
        """Every opcode of the variant: (ptx, option values, requirement) for each combination of
        its option values, the base opcode (every option left out) first."""
        axes = list(self.options)
        out = []
        for combo in itertools.product(*(self.options[a] for a in axes)):
            req = self.requirement
            for _, r in combo:
                req = req.intersect(r)
            if req.clauses:
                chosen = {a: v for a, (v, _) in zip(axes, combo)}
                out.append((self.opcode(**chosen) if axes else self.ptx, chosen, req))
        return out

    def operand(self, name: str) -> Operand:
        for o in self.operands:
            if o.name == name:
                return o
        raise KeyError(f"{self.id} has no operand {name!r}; it has {', '.join(o.name for o in self.operands)}")

    def fragment_map(self, operand: str) -> FragmentMap:
        """The map of a matrix ('a'..'d') or of the fragment operand of that name (wmma.load's 'r')."""
        cache = self.spec._map_cache
        if operand not in self.fragment_layouts:
            named = [o.matrix for o in self.operands if o.name == operand and o.kind == "fragment" and o.matrix]
            operand = named[0] if named else operand
        if operand not in self.fragment_layouts:
            raise KeyError(f"{self.id} has no register fragment {operand!r}; it has "
                           f"{', '.join(sorted(self.fragment_layouts)) or 'none'}")
        layout, bits, shape = self.fragment_layouts[operand]
        key = (layout.name, bits, layout.shape_key(*shape))
        if key not in cache:
            cache[key] = layout.evaluate(self.threads, bits, *shape)
        return cache[key]

    def loaders(self, operand: str | None = None) -> list:
        """How to load (store) this variant's register fragments from (to) a row- or column-major
        tile with ldmatrix (stmatrix): one row per form that does it, best first, or the reason
        none does (ptxspec.model.fragment_loaders.LoaderRow)."""
        return self.spec.loaders.rows_for(self, operand)
    def scale_map(self, operand: str, byte_id: int, thread_id: int) -> np.ndarray:
        """(threads, 4, 2): (row of A or column of B, K-block) that each byte of each lane's scale
        register `operand` scales with the selector {byte_id, thread_id}; (-1, -1): not read. The
        K-block is K / vectors consecutive k (of the dense K)."""
        o = self.operand(operand)
        if not o.scale_map:
            raise KeyError(f"{self.id}: {operand!r} is no scale operand with a map")
        key = ("scale", o.scale_map, o.vectors, self.m, self.n, self.k, byte_id, thread_id)
        cache = self.spec._map_cache
        if key not in cache:
            cache[key] = self.spec.scale_maps[o.scale_map].evaluate(self.threads, o.vectors, byte_id, thread_id,
                                                                  self.m or 0, self.n or 0, self.k or 0)
        return cache[key]

    def fragment(self, operand: str) -> np.ndarray:
        """(threads, elements, 2) array of (row, col) for each element of a register operand."""
        fm = self.fragment_map(operand)
        return np.stack([fm.row, fm.col], axis=-1)

    def element_type(self, operand: str) -> str:
        """The element type of a register fragment ('a'..'d', or a fragment operand's name)."""
        self.fragment_map(operand)  # the error for an operand without a fragment
        for o in self.operands:
            if o.element_type and (o.name == operand or o.matrix == operand):
                return o.element_type
        return getattr(self, self.spec.families[self.family].matrices[operand].type_field)

    def pack(self, operand: str, matrix) -> np.ndarray:
        """A matrix of the operand's element values (numpy or ml_dtypes), or of raw codes in an unsigned
        array -> uint32 registers (..., threads, regs); the rule is ptxspec.values'."""
        fm = self.fragment_map(operand)
        t = self.spec.types[self.element_type(operand)]
        return fm.pack(to_codes(t, matrix, fm.bits, f"operand {operand!r} of {self.id}"))

    def unpack(self, operand: str, regs, values: bool = False) -> np.ndarray:
        """Registers -> the matrix of raw codes, or (values=True) of typed values (ptxspec.values).
        Registers are words: unsigned integers of the register's width (ptxspec.core.words)."""
        fm = self.fragment_map(operand)
        what = f"registers of operand {operand!r} of {self.id}"
        regs = words(what, regs, 64 if fm.bits == 64 else 32)
        if 0 in regs.shape[:-2]:
            raise ValueError(f"{what}: an empty batch (shape {regs.shape}); pass at least one set of registers")
        codes = fm.unpack(regs)
        if not values:
            return codes
        return from_codes(self.spec.types[self.element_type(operand)], codes, fm.bits)

    def execute(self, **operands) -> np.ndarray:
        """What executing the variant gives, by its semantics (the executor `ptxspec.semantics.meanings`
        names for it; the variant's hardware / numerics status says what of it was measured)."""
        meaning = self.spec.meanings.get(self.semantics)
        if meaning is None or meaning.execute is None:
            raise TypeError(f"{self.id} computes no matrix product: nothing to execute ({self.semantics})")
        return meaning.execute(self, **operands)

    def valid(self, target: str, ptx: str | Version) -> bool:
        ver = ptx if isinstance(ptx, Version) else Version.parse(ptx)
        return self.requirement.valid(self.spec.targets[target], ver)

    def as_record(self) -> dict:
        """The variant as plain data: the query/JSON contract of PRODUCT.md (computed once)."""
        cached = self.__dict__.get("_record")
        if cached is None:
            cached = self.__dict__["_record"] = self._record()
        return cached

    def _record(self) -> dict:
        order = self.spec.target_order
        return {
            "id": self.id, "family": self.family, "instruction": self.instruction, "ptx": self.ptx,
            "form": self.form, "m": self.m, "n": self.n, "k": self.k,
            "atype": self.atype, "btype": self.btype, "ctype": self.ctype, "dtype": self.dtype,
            "satfinite": self.satfinite, "op": self.op, "sparse": self.sparse,
            # every qualifier axis of the family, '' where the opcode has none: one set of keys per family
            **{q: self.qualifiers.get(q, "") for q, a in self.spec.families[self.family].axes.items() if not a.option},
            "min_ptx": self.min_ptx, "targets": self.targets,
            **({"until_ptx": str(self.requirement.until_ptx)} if self.requirement.until_ptx else {}),
            "requires": self.requirement.as_data(order),
            "regs": self.regs, "operands": [o.as_data() for o in self.operands],
            "selectors": list(self.selectors),
            "metadata_nibbles": list(self.metadata_nibbles),
            "batch": self.batch, "ptxas_only": self.ptxas_only, "hardware": self.hardware,
            **({"options": {axis: [{"value": value, "requires": req.as_data(order)} for value, req in values]
                            for axis, values in self.options.items()}} if self.options else {}),
        }


_FIELDS = tuple(f.name for f in fields(Variant))
