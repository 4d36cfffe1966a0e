"""Invariants of the run-time descriptors' tensor-memory placements, on the whole model.

- shapes: every M and N is at least 1 and N fits tensor memory's columns;
- data paths: D, for every N its shapes allow, in distinct cells inside the 128 lanes and 512
  columns (A's lanes inside the lanes too);
- scale factors: each placement puts its factors in distinct bytes of such cells;
- metadata: every chunk of every row of each kind's sparse K, under each data path and selector,
  in tensor memory and in a 4-bit field of its own.

Each problem points at the line that states the offending fact (the formula at fault where known).
"""
from __future__ import annotations

import numpy as np

from ptxspec.core.errors import Pos
from ptxspec.core.expr import ExprError
from ptxspec.model import tmem
from ptxspec.model.spec import Spec

__all__ = ["check_descriptors"]


def check_descriptors(report, spec: Spec, docs) -> None:
    descs = {(d.data["family"], d.data["name"]): d.data for d in docs["descriptor"]}
    for doc in docs["layouts"]:
        t = doc.data.get("tmem")
        if t is None:
            continue
        key = (doc.data["family"], t["descriptor"])
        desc, d = spec.descriptors.get(key), descs.get(key)
        if desc is None or d is None or _bad_shapes(report, d, desc):
            continue
        places = {p["id"]: p for p in t["datapaths"]}
        for lay in desc.tmem_layouts:
            problem = _datapath_problem(lay, desc.shapes)
            if problem:
                report(_where(places[lay.id], "id", *problem), f"tmem layout {lay.id}: {problem[1]}")
        places = {s["name"]: s for s in t.get("scale_factors", [])}
        for sf in desc.scale_factor_layouts:
            problem = _scale_problem(sf)
            if problem:
                report(_where(places[sf.name], "name", *problem), f"scale-factor layout {sf.name}: {problem[1]}")
        places = {m["name"]: m for m in t.get("metadata", [])}
        for ml in desc.metadata_layouts:
            problem = _metadata_problem(desc, ml)
            if problem:
                report(_where(places[ml.name], "name", *problem), f"metadata layout {ml.name}: {problem[1]}")


def _bad_shapes(report, d, desc) -> bool:
    """An M or N below 1, or an N wider than tensor memory (D takes a column per element of a
    row): reported at its shape."""
    bad = False
    for i, sh in enumerate(desc.shapes):
        for key, vs in (("m", sh.m), ("n", sh.n), ("m_sparse", sh.m_sparse or ()), ("n_sparse", sh.n_sparse or ())):
            if vs and min(vs) < 1:
                report(d["shapes"][i].at(key), f"{key}: {key[0].upper()} = {min(vs)} is not a size (at least 1)")
                bad = True
            elif vs and key[0] == "n" and max(vs) > tmem.COLUMNS:
                report(d["shapes"][i].at(key), f"{key}: N = {max(vs)} would take more than the {tmem.COLUMNS} "
                       "columns of tensor memory")
                bad = True
    return bad


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
            if lane.min() < 0 or lane.max() >= tmem.LANES:
                bad = int(lane.min() if lane.min() < 0 else lane.max())
                return "lane", f"D lands in lane {bad}, outside 0-{tmem.LANES - 1}{at}"
            if col.min() < 0 or col.max() >= tmem.COLUMNS:
                bad = int(col.min() if col.min() < 0 else col.max())
                return "column", f"D lands in column {bad}, outside 0-{tmem.COLUMNS - 1}{at}"
            if np.bincount((lane * tmem.COLUMNS + col).ravel()).max() > 1:
                return None, f"two elements of D land in one cell{at}"
            try:
                lanes = tmem.a_cells(lay, 1, tmem.CELL_BITS, L)[0] if lay.a_lanes else None
            except (ExprError, ArithmeticError, ValueError) as exc:
                return getattr(exc, "formula", "a_lanes"), f"{exc}{at}"
            if lanes is not None and (lanes.min() < 0 or lanes.max() >= tmem.LANES):
                return "a_lanes", f"a row of A lands outside lanes 0-{tmem.LANES - 1}{at}"
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


def _scale_problem(sf) -> tuple[str | None, str] | None:
    extent, n = tmem.scale_example(sf)
    try:
        lane, col, byte = tmem.scale_cells(sf, extent, 4, 0, n)
    except (ExprError, ArithmeticError, ValueError) as exc:
        return getattr(exc, "formula", None), str(exc)
    if lane.min() < 0 or lane.max() >= tmem.LANES:
        return "lane", f"a factor lands outside lanes 0-{tmem.LANES - 1}"
    if col.min() < 0 or col.max() >= tmem.COLUMNS:
        return "column", f"a factor lands outside columns 0-{tmem.COLUMNS - 1}"
    for q in range(len(lane)):
        if np.bincount(((lane[q] * tmem.COLUMNS + col) * 4 + byte).ravel()).max() > 1:
            return None, f"two factors land in one byte (copy {q})"
    return None
