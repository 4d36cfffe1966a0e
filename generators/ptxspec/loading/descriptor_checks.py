"""Invariants of the run-time descriptors and their tensor-memory placements, on the whole model.

- type fields: the values a type field's codes name (A, B, D and scale-factor types) are types of
  spec/types.yaml, which the executor and the bindings read them as;
- K per kind: a row of A gives the instruction 32 bytes (PTX ISA Table 39: K = 16 f16, 8 tf32, 32
  for the 8-bit kinds, 64 for packed 4-bit e2m1), so K times the kind's element width is 256 bits;
- shapes: every M and N is at least 1 and N fits tensor memory's columns; every M of every shape
  (dense and sparse) has a data-path layout;
- data paths: D, for every N its shapes allow, in distinct cells inside the 128 lanes and 512
  columns; A's rows (every copy) in lanes of their own;
- scale factors: for every kind that reads them, every scale-factor id its descriptor allows with
  each of its scale-factor counts, every row of A (column of B) of every M (N) and every copy: each
  factor in a byte of a cell inside tensor memory, no two in one byte;
- metadata: every chunk of every row of each kind's sparse K, under each data path and selector,
  in tensor memory and in a 4-bit field of its own.

Each problem points at the line that states the offending fact (the formula at fault where known).
"""
from __future__ import annotations

from ptxspec.core.lazy import np

from ptxspec.core.errors import Pos
from ptxspec.core.expr import ExprError
from ptxspec.model import tmem
from ptxspec.model.spec import Spec
from ptxspec.semantics.tmem_mma import SCALE_ID_FIELDS, factors_per_row

__all__ = ["check_descriptors", "ROW_BITS"]

#: bits of a row of A that one instruction reads, whatever the kind (Table 39's K times the width)
ROW_BITS = 256
#: the code fields whose values name element types (ptxspec.semantics.tmem_mma and blockscale read
#: them as types; fuzz seed 36, tree 4958: a code named 'ueam3' validated and the executor died on it)
TYPE_FIELDS = ("atype", "btype", "dtype", "scale_type")


def check_descriptors(report, spec: Spec, docs) -> None:
    descs = {(d.data["family"], d.data["name"]): d.data for d in docs["descriptor"]}
    for key, d in descs.items():
        desc = spec.descriptors.get(key)
        if desc is not None:
            _type_names(report, spec, d)
            _k(report, spec, d, desc)
    for doc in docs["layouts"]:
        t = doc.data.get("tmem")
        if t is None:
            continue
        key = (doc.data["family"], t["descriptor"])
        desc, d = spec.descriptors.get(key), descs.get(key)
        if desc is None or d is None or _bad_shapes(report, d, desc) or _unplaced(report, d, desc):
            continue
        places = {p["id"]: p for p in t["datapaths"]}
        for lay in desc.tmem_layouts:
            problem = _datapath_problem(lay, desc.shapes)
            if problem:
                report(_where(places[lay.id], "id", *problem), f"tmem layout {lay.id}: {problem[1]}")
        _scales(report, spec, d, desc, {s["name"]: s for s in t.get("scale_factors", [])})
        places = {m["name"]: m for m in t.get("metadata", [])}
        for ml in desc.metadata_layouts:
            problem = _metadata_problem(desc, ml)
            if problem:
                report(_where(places[ml.name], "name", *problem), f"metadata layout {ml.name}: {problem[1]}")


def _type_names(report, spec: Spec, d) -> None:
    for lay in d["layouts"]:
        for f in lay["fields"]:
            if f["name"] not in TYPE_FIELDS or not isinstance(f.get("codes"), dict):
                continue
            tables = f["codes"].values() if all(isinstance(t, dict) for t in f["codes"].values()) else [f["codes"]]
            unknown = sorted({name for t in tables for name in t if name not in spec.types})
            if unknown:
                report(f.at("codes"), f"field {f['name']}: {', '.join(map(repr, unknown))} is no type of types.yaml "
                                      "(a type field's codes name element types)")


def _k(report, spec: Spec, d, desc) -> None:
    for kind, k in desc.k.items():
        try:
            bits = desc.element_bits(spec.types, kind)
        except (KeyError, ValueError):  # a kind without a layout was reported; one without types has no K
            continue
        if k * bits != ROW_BITS:
            report(d["k"].at(kind), f"k: {kind} is {k}, but a row of A gives the instruction {ROW_BITS} bits "
                                    f"(Table 39): K = {ROW_BITS // bits} for its {bits}-bit elements")


def _bad_shapes(report, d, desc) -> bool:
    """An M or N below 1, or an N wider than tensor memory (D takes a column per element of a
    row): reported at its shape."""
    bad = False
    for i, sh in enumerate(desc.shapes):
        for key, vs in (("m", sh.m), ("n", sh.n), ("m_sparse", sh.m_sparse), ("n_sparse", sh.n_sparse)):
            if vs is not None and not vs:  # a backward range (fuzz seed 36): the kind would have no shape
                report(d["shapes"][i].at(key), f"{key}: no {key[0].upper()} at all (an empty set)")
                bad = True
                continue
            vs = vs or ()
            if vs and min(vs) < 1:
                report(d["shapes"][i].at(key), f"{key}: {key[0].upper()} = {min(vs)} is not a size (at least 1)")
                bad = True
            elif vs and key[0] == "n" and max(vs) > tmem.COLUMNS:
                report(d["shapes"][i].at(key), f"{key}: N = {max(vs)} would take more than the {tmem.COLUMNS} "
                       "columns of tensor memory")
                bad = True
    return bad


def _cases(sh):
    """(key, M, sparse) of every M a shape allows, dense and sparse."""
    for sparse in (False, True):
        ms = sh.m_sparse if sparse and sh.m_sparse is not None else None
        for m in ms if ms is not None else sh.m:
            yield ("m" if ms is None else "m_sparse"), m, sparse


def _unplaced(report, d, desc) -> bool:
    """An M of a shape that no data-path layout places (the executor could not run it)."""
    bad = set()
    for i, sh in enumerate(desc.shapes):
        for key, m, sparse in _cases(sh):
            try:
                tmem.datapath_of(desc, m, sh.cta_group, sparse, sh.ws)
            except tmem.TmemError as exc:
                if (i, key, m) not in bad:  # once per M (its dense and sparse forms share the line)
                    report(d["shapes"][i].at(key), f"{key}: {exc} (no tmem layout places it)")
                bad.add((i, key, m))
    return bool(bad)


def _where(entry, default: str, key: str | None, message: str) -> Pos:
    """The line of the formula a problem names (`key`, or the one whose text the message quotes),
    else the layout's first line."""
    if key is None:
        key = next((k for k in ("lane", "column", "byte", "bit") if isinstance(entry.get(k), str)
                    and repr(entry[k]) in message), default)
    return entry.at(key)


def _ns(lay, shapes) -> list[int]:
    """Every N some shape allows with one of the layout's cases (M, CTA group, sparsity, .ws)."""
    ns: set[int] = set()
    for m, cta, sparse, ws in lay.cases:
        for sh in shapes:
            if sh.cta_group != cta or sh.ws != ws:
                continue
            for sp in sparse:
                if m in (sh.m_sparse if sp and sh.m_sparse is not None else sh.m):
                    ns.update(sh.n_sparse if sp and sh.n_sparse is not None else sh.n)
    return sorted(ns)


def _datapath_problem(lay, shapes) -> tuple[str | None, str] | None:
    """(the formula at fault, or None for the layout as a whole; what is wrong), or None."""
    for L in lay.alignments:
        for n in _ns(lay, shapes) or [64]:  # 64: the N its figure is drawn at
            at = f" (N = {n}" + (f", L = {L})" if len(lay.alignments) > 1 else ")")
            try:
                lane, col = tmem.d_cells(lay, n, L)
            except (ExprError, ArithmeticError, ValueError) as exc:  # formula: the one at fault, where known
                return getattr(exc, "formula", None), f"{exc}{at}"
            if np.bincount((lane * tmem.COLUMNS + col).ravel()).max() > 1:
                return None, f"two elements of D land in one cell{at}"
        if lay.a_lanes:
            try:
                lanes = tmem.a_cells(lay, 1, tmem.CELL_BITS, L)[0][..., 0]  # (copies, rows)
            except (ExprError, ArithmeticError, ValueError) as exc:
                return getattr(exc, "formula", "a_lanes"), f"{exc}{at}"
            counts = np.bincount(lanes.ravel())
            if counts.max() > 1:
                lane = int(np.argmax(counts))
                q, rows = np.nonzero(lanes == lane)
                return "a_lanes", (f"rows {int(rows[0])} and {int(rows[1])} of A (copies {int(q[0])}, {int(q[1])}) "
                                   f"land in lane {lane}: a row of A takes a lane of its own"
                                   + (f" (L = {L})" if len(lay.alignments) > 1 else ""))
    return None


def _metadata_problem(desc, ml) -> tuple[str | None, str] | None:
    """Every chunk of every row of each kind's sparse K, under each data path and selector, in
    tensor memory and in a 4-bit field of its own."""
    rows = {t.id: t.rows for t in desc.tmem_layouts}
    for kind in ml.kinds:
        if kind not in desc.sparsity or kind not in desc.k:
            continue
        chunks = 2 * desc.k[kind] // desc.sparsity[kind].chunk_elements
        for path in ml.datapaths:
            for sel in ml.ids:
                at = f" ({kind}, layout {path}, selector {sel})"
                try:
                    lane, col, bit = tmem.metadata_cells(ml, rows.get(path, tmem.LANES), chunks, sel)
                except tmem.TmemError as exc:
                    return getattr(exc, "formula", "bit"), f"{exc}{at}"
                except (ExprError, ArithmeticError, ValueError) as exc:
                    return None, f"{exc}{at}"
                if (bit % 4).any():
                    return "bit", f"a 4-bit field starts at bit {int(bit[bit % 4 != 0][0])}, not a multiple of 4{at}"
                if np.bincount(((lane * tmem.COLUMNS + col) * 8 + bit // 4).ravel()).max() > 1:
                    return None, f"two chunks land in one 4-bit field{at}"
    return None


# -- scale factors ------------------------------------------------------------------------------

def _scale_uses(spec: Spec, desc, missing: list):
    """Every use of a scale-factor placement by the variants that read a scaled matrix: (placement,
    extent, factors per row, id, N, what reads it); (shape index, kind, matrix, data path) in
    `missing` where no placement serves a shape."""
    counts: dict = {}  # (kind, matrix) -> scale factors per row, over the variants
    for v in spec.variants:
        kind = v.qualifiers.get(desc.selector)
        for o in v.operands:
            if v.family == desc.family and o.matrix in SCALE_ID_FIELDS and kind is not None and kind in desc.k:
                try:
                    counts.setdefault((kind, o.matrix), set()).add(factors_per_row(v, desc, kind, desc.k[kind]))
                except NotImplementedError:  # the K = 96 forms: not described
                    pass
    for (kind, matrix), sfs in sorted(counts.items()):
        field = next((f for f in desc.layout(kind).fields if f.name == SCALE_ID_FIELDS[matrix]), None)
        ids = (field.legal_for(kind) if field is not None else None) or (0,)
        for i, sh in enumerate(desc.shapes):
            if kind not in sh.selectors:
                continue
            for _, m, sparse in _cases(sh):
                lay = tmem.datapath_of(desc, m, sh.cta_group, sparse, sh.ws)
                place = next((s for s in desc.scale_factor_layouts if s.matrix == matrix and lay.id in s.datapaths),
                             None)
                if place is None:
                    missing.append((i, kind, matrix, lay.id))
                    continue
                ns = sh.n_sparse if sparse and sh.n_sparse is not None else sh.n
                folds = "N" in place.lane.names | place.column.names | place.byte.names
                for n in ns if matrix == "scale_b" or folds else ns[:1]:
                    extent = n if matrix == "scale_b" else lay.rows
                    for sf in sorted(sfs):
                        # the factors of a row fill an sf-byte-aligned part of the cell, which the id
                        # names (9.7.16.10.7.2: 1X bytes 0-3, 2X half-words 0 and 2, 4X the word)
                        for sid in (x for x in ids if x % sf == 0):
                            yield place, extent, sf, sid, n, (f"{kind}, M = {m}, {sh.cta_group}"
                                                              f"{', .ws' if sh.ws else ''}{', sparse' if sparse else ''}")


def _scales(report, spec: Spec, d, desc, places) -> None:
    """The first problem of each placement, over every use; a shape no placement serves."""
    done: set = set()
    missing: list = []
    for place, extent, sf, sid, n, who in _scale_uses(spec, desc, missing):
        if place.name in done or (place.name, extent, sf, sid, n) in done:
            continue
        done.add((place.name, extent, sf, sid, n))
        problem = _scale_problem(place, extent, sf, sid, n)
        if problem:
            done.add(place.name)
            at = f" ({who}: {sf} factor{'s' * (sf > 1)} per row, id {sid}, N = {n})"
            report(_where(places[place.name], "name", problem[0], problem[1]),
                   f"scale-factor layout {place.name}: {problem[1]}{at}")
    for i, kind, matrix, path in missing:
        report(d["shapes"][i].at("kinds"), f"{kind}: no scale-factor placement of {matrix} under tmem layout {path}")


def _scale_problem(sf, extent: int, factors: int, sf_id: int, n: int) -> tuple[str | None, str] | None:
    """Each factor of each row (column), in each copy, in a byte of a cell inside tensor memory,
    and no two in one byte."""
    try:
        lane, col, byte = tmem.scale_cells(sf, extent, factors, sf_id, n)
    except (ExprError, ArithmeticError, ValueError) as exc:
        return getattr(exc, "formula", None), str(exc).removeprefix(f"{sf.name}: ")
    cell = ((lane * tmem.COLUMNS + col[None]) * 4 + byte[None]).ravel()  # every copy of every factor
    counts = np.bincount(cell)
    if counts.max() <= 1:
        return None
    q, r, s = np.unravel_index(np.nonzero(cell == np.argmax(counts))[0][:2], lane.shape)
    what = [f"row {int(r[j])} factor {int(s[j])} copy {int(q[j])}" for j in (0, 1)]
    fault = "lane" if q[0] != q[1] else "byte" if r[0] == r[1] else "column"
    return fault, (f"two factors land in one byte ({what[0]} and {what[1]}: lane {int(lane[q[0], r[0], s[0]])}, "
                   f"column {int(col[r[0], s[0]])}, byte {int(byte[r[0], s[0]])})")
