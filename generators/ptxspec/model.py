"""The resolved model: every variant of every instruction, explicit, checked, in memory.

`build_model` takes the documents from `source.read_tree` and expands each instruction's groups
(the cross product of shapes, types and qualifiers) into `Variant`s with their requirements,
operand signatures and fragment maps. Every generator reads this model and nothing else.
"""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .errors import Pos, Problems
from .expr import ExprError, compile_formula
from .fragments import FragmentLayout, FragmentMap, Sparsity
from .kinds import KINDS, OperandContext
from .isa import Clause, Requirement, Target, TargetSetError, Version, resolve_target_set
from .source import Document, did_you_mean

REGS_NAMES = frozenset({"M", "N", "K", "abits", "bbits", "cbits", "dbits"})
OPCODE_FIELDS = ("m", "n", "k", "atype", "btype", "ctype", "dtype", "satfinite", "op")
#: Qualifier axes a group may vary besides shape and types (values are bare: "row", "kind::f8f6f4").
QUALIFIERS = ("alayout", "blayout", "layout", "kind", "block_scale", "scale_vec", "stype", "rnd", "space", "spvariant",
              "frag", "stride")
_PLACEHOLDER = re.compile(r"\{(\.?)(\w+)\}")


def _placeholder_names(template: str) -> set[str]:
    return {m.group(2) for m in _PLACEHOLDER.finditer(template)}


def fill_template(template: str, values: dict) -> str:
    """`{name}` -> value; `{.name}` -> "." + value, or nothing when the value is empty."""
    def sub(m):
        value = values.get(m.group(2), "")
        value = "" if value is None or value is False else str(value)
        return f".{value}" if m.group(1) and value else ("" if m.group(1) else value)
    return _PLACEHOLDER.sub(sub, template)


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

    @property
    def hardware(self) -> str:
        """What the hardware shows of the maps: 'H100', or why not (see schema/database.schema.json)."""
        if "sm_90a" not in self.requirement.targets:
            return "not run: no sm_90a target"
        return f"not observable on sm_90a: {self.hardware_note}" if self.hardware_note else "H100"

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

    def operand(self, name: str) -> Operand:
        for o in self.operands:
            if o.name == name:
                return o
        raise KeyError(f"{self.id} has no operand {name!r}; it has {', '.join(o.name for o in self.operands)}")

    def fragment_map(self, operand: str) -> FragmentMap:
        """The map of a matrix ('a'..'d') or of the fragment operand of that name (wmma.load's 'r')."""
        cache = self.spec._map_cache
        if operand not in self.fragment_layouts:
            named = [o.matrix for o in self.operands if o.name == operand and o.kind == "fragment"]
            operand = named[0] if named else operand
        if operand not in self.fragment_layouts:
            raise KeyError(f"{self.id} has no register fragment {operand!r}; it has "
                           f"{', '.join(sorted(self.fragment_layouts)) or 'none'}")
        layout, bits, shape = self.fragment_layouts[operand]
        key = (layout.name, bits, layout.shape_key(*shape))
        if key not in cache:
            cache[key] = layout.evaluate(self.threads, bits, *shape)
        return cache[key]

    def fragment(self, operand: str) -> np.ndarray:
        """(threads, elements, 2) array of (row, col) for each element of a register operand."""
        fm = self.fragment_map(operand)
        return np.stack([fm.row, fm.col], axis=-1)

    def pack(self, operand: str, matrix) -> np.ndarray:
        return self.fragment_map(operand).pack(matrix)

    def unpack(self, operand: str, regs) -> np.ndarray:
        return self.fragment_map(operand).unpack(regs)

    def execute(self, **operands) -> np.ndarray:
        """The destination registers, bit-exact (see ptxspec.execute)."""
        from .execute import execute
        return execute(self, **operands)

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
            **{q: self.qualifiers.get(q, "") for q in QUALIFIERS if q in self.qualifiers},
            "min_ptx": self.min_ptx, "targets": self.targets,
            **({"until_ptx": str(self.requirement.until_ptx)} if self.requirement.until_ptx else {}),
            "requires": self.requirement.as_data(order),
            "regs": self.regs, "operands": [o.as_data() for o in self.operands],
            "selectors": list(self.selectors),
            "metadata_nibbles": list(self.metadata_nibbles),
            "batch": self.batch, "ptxas_only": self.ptxas_only, "hardware": self.hardware,
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


@dataclass
class Family:
    name: str
    title: str
    description: str
    manual: str
    threads: int
    n_sets: dict[str, list[int]]
    pos: Pos


@dataclass(frozen=True)
class SwizzleMode:
    name: str
    code: int
    width: int
    b: int
    repeat: int
    description: str


@dataclass
class SharedMemory:
    family: str
    description: str
    fields: list[dict]
    swizzle_modes: list[SwizzleMode]
    swizzle: object
    canonical_layouts: list[dict]


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

    def __init__(self):
        self.ptx_versions: list[Version] = []
        self.ptxas_versions: set[Version] = set()
        self.targets: dict[str, Target] = {}
        self.types: dict[str, ElementType] = {}
        self.families: dict[str, Family] = {}
        self.instructions: dict[str, Instruction] = {}
        self.layouts: dict[str, FragmentLayout] = {}
        self.sparsities: dict[str, Sparsity] = {}
        self.smem: dict[str, SharedMemory] = {}
        self.errata: list[Erratum] = []
        self.variants: list[Variant] = []
        self._by_key: dict[tuple[str, str], Variant] = {}
        self._by_id: dict[str, Variant] = {}
        self._map_cache: dict = {}
        self.digest = ""  # SHA-256 of the spec tree it was built from

    def target_order(self, name: str):
        return self.targets[name].sort_key

    def sort_targets(self, names) -> list[str]:
        return sorted(names, key=self.target_order)

    def previous_version(self, v: Version) -> Version | None:
        idx = self.ptx_versions.index(v)
        return self.ptx_versions[idx - 1] if idx > 0 else None

    def variant(self, ptx: str, form: str | None = None) -> Variant:
        ptx = " ".join(ptx.split()).rstrip(";")
        if ptx in self._by_id:
            return self._by_id[ptx]
        if form is None:
            found = [v for (p, _), v in self._by_key.items() if p == ptx]
            if len(found) == 1:
                return found[0]
            if found:
                raise KeyError(f"{ptx} has forms {', '.join(sorted(v.form for v in found))}; pass form=")
        elif (ptx, form) in self._by_key:
            return self._by_key[(ptx, form)]
        close = did_you_mean(ptx, (p for p, _ in self._by_key))
        raise KeyError(f"no variant {ptx!r}" + (f" with form {form!r}" if form else "") + close)

    def query(self, family=None, target=None, ptx=None, **fields) -> list[Variant]:
        out = []
        ver = Version.parse(ptx) if isinstance(ptx, str) else ptx
        tgt = self.targets[target] if target else None
        for v in self.variants:
            if family and v.family != family:
                continue
            if tgt is not None or ver is not None:
                if tgt is not None and ver is not None and not v.requirement.valid(tgt, ver):
                    continue
                if tgt is not None and ver is None and tgt.name not in v.requirement.targets:
                    continue
                if tgt is None and ver is not None and ver < v.requirement.min_ptx:
                    continue
            if any(str(getattr(v, k)) != str(val) for k, val in fields.items()):
                continue
            out.append(v)
        return out


# ---------------------------------------------------------------------------------------------
# Building


def _int_set(value) -> list[int]:
    if isinstance(value, dict):
        first, last, step = value["range"]
        return list(range(first, last + 1, step))
    return list(value)


class _Builder:
    def __init__(self, docs: dict[str, list[Document]]):
        self.docs = docs
        self.p = Problems()
        self.failed_instructions: set[str] = set()
        self.spec = Spec()

    def formula(self, data, key, names, doc_pos):
        try:
            return compile_formula(str(data[key]), names)
        except ExprError as exc:
            self.p.add(data.at(key) if hasattr(data, "at") else doc_pos, f"{key}: {exc}")
            return None

    def build(self) -> Spec:
        self.isa()
        self.types()
        self.families()
        self.layouts()
        self.smem()
        for doc in self.docs["instruction"]:
            self.instruction(doc)
        self.unused_layouts()
        self.errata()
        self.p.raise_if_any()
        s = self.spec
        s.variants.sort(key=lambda v: (v.family, v.instruction, v.id))
        s.digest = getattr(self.docs, "digest", "")
        return s

    # -- isa, types, families ------------------------------------------------------------------
    def isa(self):
        doc = self.docs["isa"][0].data
        seen = {}
        for i, entry in enumerate(doc["ptx_versions"]):
            v = Version.parse(entry["version"])
            pos = doc["ptx_versions"].at(i)
            if v in seen:
                self.p.add(pos, f"PTX version {v} listed twice (first at line {seen[v].line})")
                continue
            if self.spec.ptx_versions and v < self.spec.ptx_versions[-1]:
                self.p.add(pos, f"PTX version {v} is out of order")
            seen[v] = pos
            self.spec.ptx_versions.append(v)
            if entry.get("ptxas", True):
                self.spec.ptxas_versions.add(v)
        for i, entry in enumerate(doc["targets"]):
            pos = doc["targets"].at(i)
            name = entry["name"]
            if name in self.spec.targets:
                self.p.add(pos, f"target {name} listed twice")
                continue
            want = f"sm_{entry['arch']}{entry['suffix']}"
            if name != want:
                self.p.add(pos, f"target name {name} does not match arch {entry['arch']} and suffix {entry['suffix']!r}")
            v = Version.parse(entry["ptx"])
            if v not in seen:
                self.p.add(entry.at("ptx"), f"unknown PTX version {v}")
            self.spec.targets[name] = Target(name, entry["arch"], entry["suffix"], entry["family"], v,
                                             entry.get("ptxas", True))

    def version(self, data, key) -> Version | None:
        v = Version.parse(data[key])
        if v not in self.spec.ptx_versions:
            self.p.add(data.at(key), f"unknown PTX version {v}"
                       + did_you_mean(str(v), [str(x) for x in self.spec.ptx_versions]))
            return None
        return v

    def target_set(self, data, key) -> frozenset[str] | None:
        try:
            return resolve_target_set(data[key], self.spec.targets)
        except TargetSetError as exc:
            name = str(exc).split("'")[1] if "'" in str(exc) else ""
            self.p.add(data.at(key), f"{exc}{did_you_mean(name, self.spec.targets)}")
            return None

    def types(self):
        doc = self.docs["types"][0].data
        for i, t in enumerate(doc["types"]):
            if t["name"] in self.spec.types:
                self.p.add(doc["types"].at(i), f"type {t['name']} listed twice")
                continue
            if t["class"] == "float" and "format" not in t:
                self.p.add(doc["types"].at(i), f"float type {t['name']} needs a format")
            self.spec.types[t["name"]] = ElementType(t["name"], t["class"], t["bits"], t["register"],
                                                     t.get("signed", t["class"] == "float"), t.get("format"),
                                                     t.get("description", ""), t.get("container_bits"),
                                                     t.get("container_shift", 0))
            c_bits, c_shift = t.get("container_bits"), t.get("container_shift", 0)
            if c_shift and (c_bits is None or c_shift + t["bits"] > c_bits):
                self.p.add(doc["types"].at(i), f"type {t['name']}: a {t['bits']}-bit element at bit {c_shift} "
                           f"does not fit its {c_bits}-bit container" if c_bits else
                           f"type {t['name']}: container_shift needs container_bits")

    def families(self):
        for doc in self.docs["family"]:
            d = doc.data
            if d["name"] in self.spec.families:
                self.p.add(d.at("name"), f"family {d['name']} defined twice")
                continue
            n_sets = {}
            for name, value in d.get("n_sets", {}).items():
                n_sets[name] = _int_set(value)
                if not n_sets[name]:
                    self.p.add(d["n_sets"].at(name), f"n_set {name!r} is empty (a range runs first to last, upward)")
            self.spec.families[d["name"]] = Family(d["name"], d["title"], d["description"], d.get("manual", ""),
                                                   d["threads"], n_sets, d.pos)

    # -- layouts ------------------------------------------------------------------------------
    def layouts(self):
        self.broken_layouts: set[str] = set()
        first_pos: dict[str, Pos] = {}
        for doc in self.docs["layouts"]:
            d = doc.data
            for section, cls, table in (("fragments", FragmentLayout, self.spec.layouts),
                                        ("sparsity", Sparsity, self.spec.sparsities)):
                entries = d.get(section, {})
                for name, body in entries.items():
                    pos = entries.at(name)
                    if name in first_pos:
                        self.p.add(pos, f"layout {name!r} defined twice (first at {first_pos[name]})")
                        continue
                    first_pos[name] = pos
                    if body.get("observed_on") and body["observed_on"] not in self.spec.targets:
                        self.p.add(body.at("observed_on"), f"unknown target {body['observed_on']!r}"
                                   f"{did_you_mean(body['observed_on'], self.spec.targets)}")
                    try:
                        table[name] = cls.build(name, body, pos)
                    except ExprError as exc:
                        self.broken_layouts.add(name)
                        # point at the first key whose formula fails
                        for key, value in body.items():
                            if isinstance(value, (str, int)) and not isinstance(value, bool):
                                try:
                                    names = _names_for(cls, key)
                                    if names:
                                        compile_formula(str(value), names)
                                except ExprError as e2:
                                    self.p.add(body.at(key), f"{key}: {e2}")
                                    break
                        else:
                            self.p.add(pos, str(exc))

    # -- shared memory ------------------------------------------------------------------------
    def smem(self):
        for doc in self.docs["smem"]:
            d = doc.data
            fields, used = [], 0
            for i, f in enumerate(d["descriptor"]["fields"]):
                mask = ((1 << f["width"]) - 1) << f["lsb"]
                if f["lsb"] + f["width"] > 64:
                    self.p.add(d["descriptor"]["fields"].at(i), f"field {f['name']} runs past bit 63")
                elif used & mask:
                    self.p.add(d["descriptor"]["fields"].at(i), f"field {f['name']} overlaps another field")
                used |= mask
                enc = self.formula(f, "encode", frozenset({"x"}), d.pos)
                fields.append({**{k: f[k] for k in ("name", "lsb", "width", "description")}, "encode": enc})
            modes = [SwizzleMode(m["name"], m["code"], m["width"], m["b"], m["repeat"], m["description"])
                     for m in d["swizzle_modes"]]
            codes = [m.code for m in modes]
            if len(set(codes)) != len(codes):
                self.p.add(d.at("swizzle_modes"), "two swizzle modes share a code")
            swz = self.formula(d, "swizzle", frozenset({"a", "b", "o"}), d.pos)
            self.known_family(d)
            layouts = []
            for i, c in enumerate(d["canonical_layouts"]):
                off = self.formula(c, "bit_offset", frozenset({"mn", "k", "bits", "W", "LBO", "SBO"}), d.pos)
                layouts.append({"major": c["major"], "swizzled": c["swizzled"], "cute": c["cute"], "bit_offset": off})
            self.sample_smem(d, fields, swz, modes, layouts)
            self.spec.smem[d["family"]] = SharedMemory(d["family"], d["description"], fields, modes, swz, layouts)

    def sample_smem(self, d, fields, swz, modes, layouts):
        """Compiling is not enough: evaluate every shared-memory formula on sample inputs."""
        import numpy as np
        for i, f in enumerate(fields):
            if f["encode"] is not None:
                try:
                    f["encode"](x=np.arange(0, 1 << 18, 16, dtype=np.int64))
                except ExprError as exc:
                    self.p.add(d["descriptor"]["fields"][i].at("encode"), f"encode: {exc}")
        addresses = np.arange(0, 4096, 16, dtype=np.int64)
        if swz is not None:
            for m in modes:
                try:
                    swz(a=addresses, b=m.b, o=0)
                except ExprError as exc:
                    self.p.add(d.at("swizzle"), f"swizzle ({m.name}): {exc}")
                    break
        grid = dict(mn=np.arange(64)[:, None], k=np.arange(32)[None, :], bits=16, LBO=256, SBO=1024)
        for i, c in enumerate(layouts):
            if c["bit_offset"] is not None:
                try:
                    for m in modes:
                        c["bit_offset"](W=m.width, **grid)
                except ExprError as exc:
                    self.p.add(d["canonical_layouts"][i].at("bit_offset"), f"bit_offset: {exc}")

    def clause(self, r) -> Clause | None:
        """One requirement alternative; with `until`, only targets that some version before it knows."""
        v, ts = self.version(r, "ptx"), self.target_set(r, "targets")
        if v is None or ts is None:
            return None
        until = None
        if "until" in r:
            until = self.version(r, "until")
            if until is None:
                return None
            if until <= v:
                self.p.add(r.at("until"), f"until {until} is not after ptx {v}")
                return None
            ts = frozenset(t for t in ts if self.spec.targets[t].ptx < until)
        return Clause(v, ts, until)

    # -- instructions and their variants -------------------------------------------------------
    def instruction(self, doc: Document):
        d = doc.data
        s = self.spec
        fam = s.families.get(d["family"])
        if fam is None:
            self.p.add(d.at("family"), f"unknown family {d['family']!r}{did_you_mean(d['family'], s.families)}")
            return
        if d["name"] in s.instructions:
            self.p.add(d.at("name"), f"instruction {d['name']} defined twice (also {s.instructions[d['name']].path})")
            return
        clauses = []
        for i, r in enumerate(d["requires"]):
            c = self.clause(r)
            if c is not None:
                if not c.targets:
                    self.p.add(d["requires"].at(i), "target set is empty")
                clauses.append(c)
        base = Requirement(tuple(clauses))
        placeholders = self.template_placeholders(d, "opcode")
        for gi, g in enumerate(d["groups"]):  # a group may write its own opcode template
            if "opcode" in g:
                placeholders |= self.template_placeholders(g, "opcode")
        inst = Instruction(d["name"], d["family"], d["description"], d.get("manual", ""), d["opcode"],
                           list(d.get("rules", [])), base, d.pos, doc.path)
        s.instructions[inst.name] = inst
        refinements = []
        for i, r in enumerate(d.get("refinements", [])):
            v = self.version(r["requires"], "ptx") if "ptx" in r["requires"] else None
            ts = self.target_set(r["requires"], "targets") if "targets" in r["requires"] else None
            refinements.append((r["when"], v, ts, d["refinements"].at(i), [False], r.get("metadata_order", "")))
        before = len(self.p.items)
        for gi, g in enumerate(d["groups"]):
            self.group(inst, fam, d, g, d["groups"].at(gi), base, refinements, placeholders)
        if len(self.p.items) != before:
            self.failed_instructions.add(inst.name)
        else:  # a failed group may be why a refinement matches nothing
            for when, _, _, pos, used, _ in refinements:
                if not used[0]:
                    self.p.add(pos, f"refinement matches no variant: {dict(when)}")

    def template_placeholders(self, data, key) -> set[str]:
        placeholders = {m.group(2) for m in _PLACEHOLDER.finditer(data[key])}
        leftover = _PLACEHOLDER.sub("", data[key])
        if "{" in leftover or "}" in leftover:
            self.p.add(data.at(key), "malformed placeholder in opcode template (use {name} or {.name})")
        for ph in sorted(placeholders - set(OPCODE_FIELDS) - set(QUALIFIERS)):
            self.p.add(data.at(key), f"unknown opcode placeholder {{{ph}}}"
                       f"{did_you_mean(ph, OPCODE_FIELDS + QUALIFIERS)}")
        return placeholders

    def group(self, inst, fam, d, g, gpos, base, refinements, placeholders):
        s = self.spec
        if "requires" in g:  # a group may state its own requirement instead of the instruction's
            clauses = []
            for i, r in enumerate(g["requires"]):
                c = self.clause(r)
                if c is None:
                    return
                if not c.targets:
                    self.p.add(g["requires"].at(i), "target set is empty")
                    return
                clauses.append(c)
            base = Requirement(tuple(clauses))
        template = g.get("opcode", d["opcode"])
        quals = g.get("qualifiers", {})
        for q in quals:
            if q not in _placeholder_names(template):
                self.p.add(quals.at(q), f"qualifier {q!r} does not appear in the opcode template {template!r}")
                return
        qual_axes = [[(q, v) for v in vals] for q, vals in quals.items()]
        sig_name = g["signature"]
        if sig_name not in d["signatures"]:
            self.p.add(g.at("signature"), f"unknown signature {sig_name!r}{did_you_mean(sig_name, d['signatures'])}")
            return
        signature = d["signatures"][sig_name]
        names = [o["name"] for o in signature]
        for i, name in enumerate(names):
            if name in names[:i]:
                self.p.add(signature.at(i), f"operand {name!r} listed twice")
        shape = g.get("shape")
        if shape is not None:
            n_spec = shape["n"]
            if isinstance(n_spec, str):
                if n_spec not in fam.n_sets:
                    self.p.add(shape.at("n"), f"unknown n_set {n_spec!r}{did_you_mean(n_spec, fam.n_sets)}")
                    return
                ns = fam.n_sets[n_spec]
            else:
                ns = list(n_spec)
            shapes = [(m, n, k) for m in shape["m"] for n in ns for k in shape["k"]]
        else:
            shapes = [(None, None, None)]
        types = g.get("types")
        if types is not None:
            ok = True
            for key in ("atype", "btype", "ctype", "dtype"):
                for j, t in enumerate(types.get(key, [])):
                    if t not in s.types:
                        self.p.add(types[key].at(j), f"unknown type {t!r}{did_you_mean(t, s.types)}")
                        ok = False
            if not ok:
                return
            combos = [(a, b, c, dd) for a in types.get("atype", [""]) for b in types.get("btype", [""])
                      for dd in types.get("dtype", [""]) for c in types.get("ctype", [None])]
            # C has the type of D unless given, for the multiply-accumulates (they name atype)
            combos = [(a, b, c if c is not None else (dd if a else ""), dd) for a, b, c, dd in combos]
        else:
            combos = [("", "", "", "")]
        batch = g.get("batch", 1)
        sats = g.get("satfinite", [False])
        ops = g.get("op", [""])
        forms = g.get("forms", [""])
        sparsity = None
        if "sparsity" in g:
            sparsity = s.sparsities.get(g["sparsity"])
            if sparsity is None:
                self.p.add(g.at("sparsity"), f"unknown sparsity {g['sparsity']!r}{did_you_mean(g['sparsity'], s.sparsities)}")
                return
        if "fragments" in g and (shape is None or types is None):
            self.p.add(gpos, f"group {g['name']!r} has fragments but no "
                       f"{'shape' if shape is None else 'types'}: fragment maps need both")
            return
        if sparsity is not None and shape is None:
            self.p.add(gpos, f"group {g['name']!r} has a sparsity but no shape")
            return
        frag_specs = {}
        for mat, fs in g.get("fragments", {}).items():
            regs = self.formula(fs, "regs", REGS_NAMES, gpos)
            if regs is None:
                return
            frag_specs[mat] = (fs.get("layout"), regs, fs)
        for o_i, o in enumerate(signature):
            if o["kind"] == "fragment" and o.get("matrix") not in frag_specs:
                used_forms = set(o.get("forms", forms))
                if used_forms & set(forms):
                    self.p.add(g.at("signature"), f"operand {o['name']!r} is a fragment of matrix "
                               f"{o.get('matrix')!r} but group {g['name']!r} gives no fragment layout for it")
                    return
            if KINDS[o["kind"]].needs_sparsity and sparsity is None:
                self.p.add(g.at("signature"), f"operand {o['name']!r} needs the group to name a sparsity")
                return
        checked_maps: set = set()
        for (m, n, k), (a, b, c, dd), sat, op, form, qv in itertools.product(
                shapes, combos, sats, ops, forms, itertools.product(*qual_axes)):
            qdict = dict(qv)
            fields = dict(m=m, n=n, k=k, atype=a, btype=b, ctype=c, dtype=dd, satfinite=sat, op=op, form=form, **qdict)
            values = {"m": m, "n": n, "k": k, "atype": a, "btype": b, "ctype": c, "dtype": dd,
                      "satfinite": ".satfinite" if sat else "", "op": f".{op}" if op else "", **qdict}
            ptx = fill_template(template, values)
            req, order = base, ""
            for when, v, ts, rpos, used, meta_order in refinements:
                if all(str(fields.get(key)) == str(val) for key, val in when.items()):
                    used[0] = True
                    req = req.refined(v, ts)
                    order = meta_order or order
            bits = {f"{x}bits": s.types[t].bits for x, t in zip("abcd", (a, b, c, dd)) if t}
            shape_env = dict(M=m or 0, N=n or 0, K=k or 0)
            fl, regs_only = {}, {}
            for mat, (lay_name, regs_f, fs) in frag_specs.items():
                if lay_name is None:  # the register count is known, the map is not (see the group)
                    try:
                        regs_only[mat] = int(regs_f(**shape_env, **{x: bits.get(x, 0) for x in
                                                                  ("abits", "bbits", "cbits", "dbits")}))
                    except ExprError as exc:
                        self.p.add(fs.at("regs"), f"regs for m{m}n{n}k{k}: {exc}")
                        return
                    continue
                lay_name = fill_template(lay_name, {**values, "form": form})
                lay = s.layouts.get(lay_name)
                if lay is None:
                    if lay_name not in self.broken_layouts:  # already reported where it is defined
                        self.p.add(fs.at("layout"), f"unknown layout {lay_name!r}{did_you_mean(lay_name, s.layouts)}")
                    return
                etype = {"a": a, "b": b, "c": c, "d": dd}[mat]
                ebits = s.types[etype].bits
                if fs.get("containers"):  # each element in its type's container (e2m1 in 8 bits, say)
                    ebits = s.types[etype].container_bits or ebits
                key = (lay.name, ebits, (m, n, k), mat, sparsity is not None, batch)
                if key not in checked_maps:
                    checked_maps.add(key)
                    if not self.check_fragment(inst, g, fs, lay, regs_f, ebits, fam.threads, m, n, k, mat,
                                               sparsity, shape_env, {**bits, f"{mat}bits": ebits}, batch):
                        return
                fl[mat] = (lay, ebits, (m or 0, n or 0, k or 0))
            if sparsity is not None and ("sp", sparsity.name, m, n, k) not in checked_maps:
                checked_maps.add(("sp", sparsity.name, m, n, k))
                try:
                    problem = sparsity.bijection_problem(fam.threads, m, n, k)
                except ExprError as exc:
                    problem = str(exc)
                if problem:
                    self.p.add(sparsity.pos, f"sparsity {sparsity.name} for m{m}n{n}k{k}: {problem}")
                    return
            operands = []
            for o in signature:
                if o.get("forms") and form not in o["forms"]:
                    continue
                operands.append(self.operand(o, fl, sparsity, a, b, c, dd, regs_only))
            vid = f"{ptx}:{form}" if form else ptx
            var = Variant(vid, inst.family, inst.name, ptx, form, m, n, k, a, b, c, dd, sat, op,
                          sparsity is not None, req, tuple(operands), g["name"], gpos, fam.threads, s, qdict, fl,
                          sparsity, order if sparsity is not None else "", batch, g.get("ptxas_only", ""),
                          " ".join(g.get("hardware_note", "").split()))
            if vid in s._by_id:
                other = s._by_id[vid]
                where = f"line {other.pos.line}" if other.pos.path == gpos.path else \
                    f"{os.path.relpath(other.pos.path, getattr(self.docs, 'root', '') or '.')}:{other.pos.line}"
                self.p.add(gpos, f"variant {vid} defined twice (also group {other.group!r} at {where})")
                continue
            s._by_id[vid] = var
            s._by_key[(ptx, form)] = var
            s.variants.append(var)

    def check_fragment(self, inst, g, fs, lay, regs_f, ebits, threads, m, n, k, mat, sparsity, shape_env, bits,
                       batch=1):
        try:
            fmap = lay.evaluate(threads, ebits, m or 0, n or 0, k or 0)
        except ExprError as exc:
            if lay.name not in self.broken_layouts:  # one report per layout, not per shape using it
                self.broken_layouts.add(lay.name)
                self.p.add(lay.pos, f"layout {lay.name} for m{m}n{n}k{k}: {exc}")
            return False
        try:
            regs = int(regs_f(**shape_env, **{b: bits.get(b, 0) for b in ("abits", "bbits", "cbits", "dbits")}))
        except ExprError as exc:
            self.p.add(fs.at("regs"), f"regs for m{m}n{n}k{k}: {exc}")
            return False
        # a batch of independent products is stacked: A and C/D by rows, B by columns
        want_rows, want_cols = {"a": (m * batch, k), "b": (k, n * batch), "c": (m * batch, n),
                                "d": (m * batch, n)}[mat]
        if mat == "a" and sparsity is not None:
            want_cols = k // 2
        if (fmap.rows, fmap.cols) != (want_rows, want_cols):
            self.p.add(fs.at("layout"), f"layout {lay.name} covers a {fmap.rows}x{fmap.cols} matrix but "
                       f"{mat.upper()} of m{m}n{n}k{k} is {want_rows}x{want_cols}"
                       + (" (packed sparse A)" if mat == "a" and sparsity else "")
                       + (f" ({batch} stacked products)" if batch > 1 else ""))
            return False
        problem = fmap.bijection_problem()
        if problem:
            self.p.add(lay.pos, f"layout {lay.name} is not a bijection for m{m}n{n}k{k}: {problem}")
            return False
        if regs != fmap.regs:
            self.p.add(fs.at("regs"), f"regs says {regs} registers for {mat.upper()} of m{m}n{n}k{k} in group "
                       f"{g['name']!r}, but {fmap.elements} elements of {ebits} bits fill {fmap.regs}")
            return False
        return True

    def operand(self, o, fl, sparsity, a, b, c, dd, regs_only=None) -> Operand:
        kind = o["kind"]
        ctx = OperandContext(self.spec.types, {"a": a, "b": b, "c": c, "d": dd}, fl, regs_only or {}, sparsity)
        r = KINDS[kind].resolve(o, ctx)
        parts = tuple((name, tuple(_int_set(vals))) for name, vals in o.get("parts", {}).items())
        return Operand(o["name"], kind, o.get("io", "in"), o.get("matrix"), r.values, r.min_value, r.regs, r.reg_type,
                       r.layout, r.element_type, parts, bool(o.get("optional", False)), r.observed_on,
                       o.get("default"))

    def unused_layouts(self):
        """Layouts no variant uses yet are still checked, where their size needs no shape parameter."""
        used = {lay.name for v in self.spec.variants for lay, _, _ in v.fragment_layouts.values()}
        for doc in self.docs["layouts"]:
            fam = self.spec.families.get(doc.data["family"])
            if fam is None:
                self.p.add(doc.data.at("family"), f"unknown family {doc.data['family']!r}"
                           f"{did_you_mean(doc.data['family'], self.spec.families)}")
                continue
            for name in doc.data.get("fragments", {}):
                lay = self.spec.layouts.get(name)
                if lay is None or name in used or lay.shape_names:
                    continue
                try:
                    problem = lay.evaluate(fam.threads, 32, 0, 0, 0).bijection_problem()
                except ExprError as exc:
                    problem = str(exc)
                if problem:
                    self.p.add(lay.pos, f"layout {name} is not a bijection: {problem}")

    def known_family(self, d) -> bool:
        if d["family"] in self.spec.families:
            return True
        self.p.add(d.at("family"), f"unknown family {d['family']!r}{did_you_mean(d['family'], self.spec.families)}")
        return False

    def errata(self):
        ids = {}
        def checkable(op: str) -> bool:  # opcodes missing because their instruction failed are not the erratum's fault
            owner = max((n for n in self.spec.instructions if op.startswith(n + ".")), key=len, default=None)
            return owner not in self.failed_instructions
        for doc in self.docs["errata"]:
            d = doc.data
            self.known_family(d)
            for i, e in enumerate(d["errata"]):
                pos = d["errata"].at(i)
                if e["id"] in ids:
                    self.p.add(pos, f"erratum {e['id']} listed twice")
                    continue
                ids[e["id"]] = pos
                for key in ("present", "absent"):
                    for j, op in enumerate(e["evidence"].get(key, [])):
                        if not checkable(op):
                            continue
                        exists = any(p == " ".join(op.split()) for p, _ in self.spec._by_key)
                        if exists != (key == "present"):
                            self.p.add(e["evidence"][key].at(j),
                                       f"erratum {e['id']}: {op} is {'not ' if key == 'present' else ''}a variant "
                                       f"of the spec, but the evidence lists it as {key}")
                self.spec.errata.append(Erratum(e["id"], d["family"], e["title"], e["manual"], e["manual_says"],
                                                e["truth"], dict(e["evidence"]), pos))
        reported = set()
        for v in self.spec.variants:  # a variant beyond the manual must name the erratum that says so
            if v.ptxas_only and v.ptxas_only not in ids and (v.ptxas_only, v.group) not in reported:
                reported.add((v.ptxas_only, v.group))
                self.p.add(v.pos, f"group {v.group!r}: ptxas_only names unknown erratum {v.ptxas_only!r}"
                           f"{did_you_mean(v.ptxas_only, ids)}")


def _names_for(cls, key):
    if cls is FragmentLayout:
        return {"rows": frozenset({"M", "N", "K"}), "cols": frozenset({"M", "N", "K"}),
                "elements": frozenset({"M", "N", "K"}), "row": frozenset({"t", "i", "M", "N", "K"}),
                "col": frozenset({"t", "i", "M", "N", "K"})}.get(key)
    from .fragments import META_NAMES
    return {"contributes": META_NAMES, "row": META_NAMES, "chunk_index": META_NAMES}.get(key)


def build_model(docs: dict[str, list[Document]]) -> Spec:
    return _Builder(docs).build()
