"""The resolved model: every variant of every instruction, explicit, checked, in memory.

`build_model` (`ptxspec.resolve`) takes the documents from `source.read_tree` and expands each
instruction's groups (the cross product of shapes, types and qualifiers) into `Variant`s with
their requirements, operand signatures and fragment maps. Every generator reads this model and
nothing else. This module holds the model's classes only: it imports no resolver, emitter or
executor.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from .errors import Pos
from .evidence import EvidenceIndex
from .expr import Formula
from .fragments import FragmentLayout, FragmentMap, ScaleMap, Sparsity
from .isa import Requirement, Target, Version

#: Fields every opcode template may name besides its family's axes.
OPCODE_FIELDS = ("m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op")

#: semantics -> how variants of it execute, registered by `ptxspec.execute` when it is imported
#: (`ptxspec.load` does).
EXECUTORS: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True)
class ElementType:
    name: str
    cls: str
    bits: int
    register: str
    signed: bool
    format: dict | None
    description: str
    container_bits: int | None = None
    container_shift: int = 0  # lowest bit of the element inside its container
    # in memory: every `packed_elements` elements fill `bits` each of a `packed_bits`-bit unit, the
    # rest of the unit padding (the 4/6-bit formats ldmatrix unpacks); 0 when stored back to back
    packed_elements: int = 0
    packed_bits: int = 0

    def memory_bit(self, element):
        """Bit offset of element `element` (an index along a stored row) from the row's start."""
        if self.packed_elements:
            return (element // self.packed_elements) * self.packed_bits + (element % self.packed_elements) * self.bits
        return element * (self.container_bits or self.bits)


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
        from .resolve.instructions import fill_template
        return fill_template(self.option_template, options)

    def opcodes(self) -> list[tuple[str, dict[str, str], Requirement]]:
        """Every opcode of the variant: (ptx, option values, requirement) for each combination of
        its option values, the base opcode (every option left out) first."""
        import itertools
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
        none does (ptxspec.loaders.LoaderRow)."""
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
        from .values import to_codes
        fm = self.fragment_map(operand)
        t = self.spec.types[self.element_type(operand)]
        return fm.pack(to_codes(t, matrix, fm.bits, f"operand {operand!r} of {self.id}"))

    def unpack(self, operand: str, regs, values: bool = False) -> np.ndarray:
        """Registers -> the matrix of raw codes, or (values=True) of typed values (ptxspec.values)."""
        fm = self.fragment_map(operand)
        codes = fm.unpack(regs)
        if not values:
            return codes
        from .values import from_codes
        return from_codes(self.spec.types[self.element_type(operand)], codes, fm.bits)

    def execute(self, **operands) -> np.ndarray:
        """What executing the variant gives, by its semantics (ptxspec.execute; the executor and the
        variant's hardware / numerics status say what of it was measured)."""
        if not EXECUTORS:
            raise RuntimeError("no executor loaded: import ptxspec.execute (ptxspec.load does)")
        run = EXECUTORS.get(self.semantics)
        if run is None:
            raise TypeError(f"{self.id} computes no matrix product: nothing to execute ({self.semantics})")
        return run(self, **operands)

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
            **{q: self.qualifiers[q] for q in self.spec.families[self.family].axes if q in self.qualifiers},
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


@dataclass
class Instruction:
    name: str
    family: str
    description: str
    manual: str
    opcode: str
    rules: list[str]
    requirement: Requirement
    pos: Pos
    path: str
    semantics: str  # what executing it means (ptxspec.semantics)


@dataclass(frozen=True)
class Axis:
    """A qualifier axis of a family: the opcode varies along it (.row/.col, .kind::..., .space)."""
    name: str
    description: str
    values: tuple[str, ...]  # bare, as opcode templates write them; '' is the qualifier left out
    option: bool = False  # an option axis: listed per variant with its requirements, not a variant per value


@dataclass(frozen=True)
class MatrixDims:
    """The size of a matrix of a family, as formulas of M, N, K, batch and sparse."""
    name: str
    description: str
    rows: Any  # Formula
    cols: Any
    type_field: str = ""  # the variant field with its element type (atype, btype, ctype, dtype)

    def size(self, m: int, n: int, k: int, batch: int = 1, sparse: bool = False) -> tuple[int, int]:
        env = dict(M=m, N=n, K=k, batch=batch, sparse=int(sparse))
        return int(self.rows(**env)), int(self.cols(**env))


@dataclass
class Family:
    name: str
    title: str
    description: str
    manual: str
    threads: int
    n_sets: dict[str, list[int]]
    pos: Pos
    axes: dict[str, Axis] = field(default_factory=dict)  # in the order variants list them
    forms: dict[str, str] = field(default_factory=dict)  # operand form -> what it means
    matrices: dict[str, MatrixDims] = field(default_factory=dict)


@dataclass(frozen=True)
class SwizzleMode:
    name: str
    code: int
    width: int
    b: int
    repeat: int
    description: str
    unit: int = 16  # bytes the swizzle moves as one (u of the swizzle formula): 32 for 128B_base32B
    majors: tuple[str, ...] = ("K", "MN")  # the operand majors it may describe (128B_base32B: MN only)

    @property
    def rows(self) -> int:
        """Rows of one swizzle atom (R of the canonical layouts): 8, or 4 for 128B_base32B."""
        return self.repeat // self.width


@dataclass
class SharedMemory:
    family: str
    description: str
    fields: list[dict]
    swizzle_modes: list[SwizzleMode]
    swizzle: Formula
    canonical_layouts: list[dict]
    majors: list[dict] = field(default_factory=list)  # name, trans (the imm-trans value), description


@dataclass(frozen=True)
class DescriptorField:
    """One bit field of a descriptor layout: a number (`encode` over x, `legal` inputs per selector
    value), a named value (`codes` per selector value), or a reserved constant."""
    name: str
    lsb: int
    width: int
    description: str
    encode: Formula | None = None  # over x, for a number field
    legal: dict = field(default_factory=dict)  # selector value ('' = any other) -> allowed inputs
    codes: dict = field(default_factory=dict)  # selector value ('' = any) -> {value name: code}
    reserved: int | None = None

    @property
    def what(self) -> str:
        return "reserved" if self.reserved is not None else "codes" if self.codes else "number"

    def legal_for(self, selector: str) -> tuple[int, ...] | None:
        return self.legal.get(selector, self.legal.get(""))

    def codes_for(self, selector: str) -> dict[str, int]:
        return self.codes.get(selector, self.codes.get("", {}))


@dataclass(frozen=True)
class DescriptorCombination:
    """A rule across code fields of a layout (PTX ISA Table 39): for the selector values it names,
    when every field of `when` holds one of its values, each field of `then` must hold one of its."""
    selectors: tuple[str, ...]
    when: tuple[tuple[str, tuple[str, ...]], ...]  # (field, value names), in the spec's order
    then: tuple[tuple[str, tuple[str, ...]], ...]
    manual: str
    description: str = ""

    def problem(self, selector: str, values: dict) -> str | None:
        """Why named field values break this rule for `selector`, or None when they keep it."""
        if selector not in self.selectors or any(values.get(f) not in allowed for f, allowed in self.when):
            return None
        bad = [f"{f} {values.get(f)!r}" for f, allowed in self.then if values.get(f) not in allowed]
        if not bad:
            return None
        when = " and ".join(f"{f} {'/'.join(v)}" for f, v in self.when)
        then = " and ".join(f"{f} {'/'.join(v)}" for f, v in self.then)
        return f"{', '.join(bad)} with {when} ({selector} takes {then} then, {self.manual})"


@dataclass(frozen=True)
class DescriptorLayout:
    name: str
    manual: str
    selectors: tuple[str, ...]  # the selector values (kinds) that use it
    fields: tuple[DescriptorField, ...]
    combinations: tuple[DescriptorCombination, ...] = ()

    def problems(self, selector: str, values: dict) -> list[str]:
        """What named code-field values break of the layout's combinations, for `selector`."""
        return [p for c in self.combinations if (p := c.problem(selector, values)) is not None]


@dataclass(frozen=True)
class DescriptorShape:
    """Table 39: the M and N a descriptor may give for some selector values, CTA group and .ws."""
    selectors: tuple[str, ...]
    cta_group: str
    ws: bool
    m: tuple[int, ...]
    n: tuple[int, ...]
    m_sparse: tuple[int, ...] | None = None
    n_sparse: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TmemLayout:
    """A data-path layout of tcgen05.mma (the manual's layouts A-G): where each element of D, and
    of A when A comes from TMEM, lies in tensor memory. Formulas over m, n, N, L (ptxspec.tmem)."""
    id: str
    manual: str
    organization: str
    cases: tuple[tuple[int, str, tuple[bool, ...], bool], ...]  # (M, cta_group, sparse values, ws)
    rows: int  # rows of D (and A) one CTA holds
    alignments: tuple[int, ...]
    lane: Formula
    column: Formula
    a_lanes: tuple[Formula, ...]  # lanes of row m of A, one per copy; () when not stated
    description: str


@dataclass(frozen=True)
class ScaleFactorLayout:
    """Where the block-scale factors of A or B lie in tensor memory, under some data-path layouts."""
    name: str
    manual: str
    matrix: str  # scale_a | scale_b
    datapaths: tuple[str, ...]
    copies: int
    lane: Formula  # over r, s, q, id, N
    column: Formula
    byte: Formula
    description: str


@dataclass(frozen=True)
class SparsityRule:
    """How a sparse A's chunks are described for some kinds: `chunk` elements keep half, in
    sub-chunks of `unit`; `codes` maps each meaningful 4-bit metadata field to the sub-chunks kept."""
    kinds: tuple[str, ...]
    manual: str
    chunk: int
    unit: int
    codes: tuple[tuple[int, tuple[int, ...]], ...]
    description: str

    @property
    def kept(self) -> int:
        """Sub-chunks kept per chunk."""
        return self.chunk // self.unit // 2


@dataclass(frozen=True)
class MetadataLayout:
    """Where the sparsity metadata of A lies in tensor memory, for some kinds and data paths."""
    name: str
    manual: str
    kinds: tuple[str, ...]
    datapaths: tuple[str, ...]
    ids: tuple[int, ...]  # the sparsity-selector values described
    lane: Formula  # over r, c, id
    column: Formula
    bit: Formula
    description: str


@dataclass
class BitDescriptor:
    """A run-time descriptor operand as data (spec/descriptors/): tcgen05.mma's idesc."""
    family: str
    name: str
    operand_kind: str
    manual: str
    bits: int
    description: str
    selector: str  # the qualifier axis that picks the layout
    layouts: list[DescriptorLayout]
    shapes: list[DescriptorShape]
    k: dict[str, int]
    pos: Pos | None = None
    tmem_layouts: list[TmemLayout] = field(default_factory=list)
    scale_factor_layouts: list[ScaleFactorLayout] = field(default_factory=list)
    sparsity: list[SparsityRule] = field(default_factory=list)
    metadata_layouts: list[MetadataLayout] = field(default_factory=list)
    unstated: dict[str, str] = field(default_factory=dict)  # selector value without a layout -> why

    def layout(self, selector: str) -> DescriptorLayout:
        for lay in self.layouts:
            if selector in lay.selectors:
                return lay
        known = sorted(s for lay in self.layouts for s in lay.selectors)
        raise KeyError(f"{self.family} {self.name}: no layout for {self.selector} {selector!r} "
                       f"(the manual's tables give {', '.join(known)})")


@dataclass(frozen=True)
class NumericsRule:
    """One rule of spec/numerics.yaml: the arithmetic of the variants `when` matches."""
    when: dict
    model: str
    params: dict
    source: str
    pos: Pos
    basis: str = "measured"  # measured (our campaigns) | published (the manual and others' measurements)
    status: str = ""  # what numerics_status says of the variants no campaign ran: their provenance, briefly


@dataclass
class Erratum:
    id: str
    family: str
    title: str
    manual: str
    manual_says: str
    truth: str
    evidence: dict
    pos: Pos


class Spec:
    """The loaded, resolved specification."""

    def __init__(self, *, ptx_versions: list[Version], ptxas_versions: set[Version], targets: dict[str, Target],
                 types: dict[str, "ElementType"], families: dict[str, "Family"], layouts: dict[str, FragmentLayout],
                 sparsities: dict[str, Sparsity], smem: dict[str, "SharedMemory"], digest: str,
                 scale_maps: dict[str, ScaleMap] | None = None,
                 descriptors: dict[tuple[str, str], "BitDescriptor"] | None = None):
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

    def target_order(self, name: str):
        return self.targets[name].sort_key

    def sort_targets(self, names) -> list[str]:
        return sorted(names, key=self.target_order)

    def previous_version(self, v: Version) -> Version | None:
        idx = self.ptx_versions.index(v)
        return self.ptx_versions[idx - 1] if idx > 0 else None

    def variant(self, ptx: str, form: str | None = None) -> Variant:
        """One variant by id, or by opcode with its qualifiers in any order ptxas accepts (and the
        form, where the opcode has several); errors as `ptxspec query --variant` (ptxspec.lookup)."""
        hit = self._by_id.get(ptx) if form is None else self._by_key.get((ptx, form))
        if hit is None and form is None:
            hit = self._by_key.get((ptx, ""))
        if hit is not None:
            return hit
        return self._by_id[self.catalog.resolve(ptx, form)]

    @cached_property
    def loaders(self):
        """Which movement form (ldmatrix, stmatrix) moves each fragment of each product variant,
        composed from their maps (ptxspec.loaders); computed on first use."""
        from .loaders import LoaderTable
        return LoaderTable(self)

    @cached_property
    def catalog(self):
        from .lookup import Catalog
        return Catalog(((v.id, v.ptx, v.form) for v in self.variants), self.types, self.instructions,
                       ((v.id, value) for v in self.variants for vals in v.options.values() for value, _ in vals
                        if value))

    def query(self, *filters: str, family=None, target=None, ptx=None, **fields) -> list[Variant]:
        """Variants as `ptxspec query` finds them (the same SQL, errors and did-you-mean): filters
        `FIELD=VALUE` (or != < <= > >= ~), fields as keywords (n=200, atype="e4m3", sparse=True)."""
        from .lookup import query
        return [self._by_id[i] for i in query(self, filters, family, target, ptx, fields)]


def build_model(docs) -> "Spec":
    """The resolved model of a spec tree's documents (`ptxspec.resolve`)."""
    from .resolve import build_model as build
    return build(docs)
