"""spec/layouts `tmem:` -> the tensor-memory placements of a descriptor's shapes and kinds.

A layouts file's `tmem` names the descriptor (of its family) whose shapes (M, CTA group,
sparsity, .ws) and kinds it places: the data-path layouts of D and A, the block-scale factors,
the sparsity metadata, and each kind's sparsity (a `sparsity:` entry by name). The model keeps
them with that descriptor, as the database does (`tmem_layouts`, `tmem_scale_layouts`,
`tmem_metadata_layouts`, `sparsity_codes`).

Checked here: the descriptor exists and is placed once; data-path ids are unique, their CTA groups
known, no (M, CTA group, sparsity, .ws) in two layouts; placements name known data paths, one per
matrix (or kind) and data path; the sparsity of each kind is a known sparsity without a register
map, for a kind that has a layout. Whether the formulas put everything in distinct cells inside
tensor memory is checked with the whole model (ptxspec.loading.tmem_checks).
"""
from __future__ import annotations

from ptxspec.core.errors import did_you_mean
from ptxspec.loading.context import Context
from ptxspec.loading.tree import Document
from ptxspec.model.family import Family
from ptxspec.model.sparsity import Sparsity
from ptxspec.model.tmem import MetadataLayout, ScaleFactorLayout, TmemLayout

__all__ = ["resolve_tmem"]

_TMEM_NAMES = frozenset({"m", "n", "N", "L"})
_SF_NAMES = frozenset({"r", "s", "q", "id", "N"})
_META_NAMES = frozenset({"r", "c", "id"})


def resolve_tmem(ctx: Context, docs: list[Document], descriptors: dict, families: dict[str, Family],
                 sparsities: dict[str, Sparsity]) -> None:
    """Attach each layouts file's `tmem` placements to the descriptor it names."""
    placed: dict[tuple, str] = {}
    for doc in docs:
        t = doc.data.get("tmem")
        if t is None:
            continue
        key = (doc.data["family"], t["descriptor"])
        desc = descriptors.get(key)
        if desc is None:
            known = [n for f, n in descriptors if f == key[0]]
            ctx.p.add(t.at("descriptor"), f"family {key[0]} has no descriptor {key[1]!r}{did_you_mean(key[1], known)}")
            continue
        if key in placed:
            ctx.p.add(t.at("descriptor"), f"descriptor {key[1]} of {key[0]} is placed twice (also {placed[key]})")
            continue
        placed[key] = doc.path
        fam = families.get(key[0])
        datapaths = _datapaths(ctx, t, fam.axes.get("cta_group") if fam else None)
        ids = {p.id for p in datapaths}
        kinds = {s for lay in desc.layouts for s in lay.selectors}
        desc.tmem_layouts = datapaths
        desc.scale_factor_layouts = _scale_factors(ctx, t, ids)
        desc.sparsity = _sparsity(ctx, t, kinds, sparsities)
        desc.metadata_layouts = _metadata(ctx, t, ids, set(t.get("sparsity", {})))  # a bad name: reported once


def _datapaths(ctx: Context, t, cta) -> list[TmemLayout]:
    out, seen, cases_seen = [], set(), {}
    for i, p in enumerate(t["datapaths"]):
        where = t["datapaths"][i]
        if p["id"] in seen:
            ctx.p.add(where.at("id"), f"tmem layout {p['id']} is defined twice")
        seen.add(p["id"])
        cases = []
        for j, c in enumerate(p["cases"]):
            if cta is None or c["cta_group"] not in cta.values:
                ctx.p.add(p["cases"][j].at("cta_group"), f"{c['cta_group']!r} is not a value of axis cta_group")
            for sp in c["sparse"]:
                key = (c["m"], c["cta_group"], sp, c["ws"])
                if key in cases_seen:
                    ctx.p.add(p["cases"][j].at("m"), f"M = {c['m']}, {c['cta_group']}, sparse {sp}, ws {c['ws']} is "
                                                     f"already layout {cases_seen[key]}'s")
                cases_seen[key] = p["id"]
            cases.append((c["m"], c["cta_group"], tuple(c["sparse"]), c["ws"]))
        lane, column = (ctx.formula(p, key, _TMEM_NAMES, where.pos) for key in ("lane", "column"))
        a_lanes = []
        for j, src in enumerate(p.get("a_lanes", [])):
            f = ctx.formula({"a_lane": src}, "a_lane", _TMEM_NAMES, p["a_lanes"].at(j))
            if f is not None:
                a_lanes.append(f)
        if lane is None or column is None:
            continue
        out.append(TmemLayout(p["id"], p["manual"], p["organization"], tuple(cases), p["rows"],
                              tuple(p.get("alignments", [0])), lane, column, tuple(a_lanes), _text(p)))
    return out


def _text(entry) -> str:
    """A description as one line: a folded block and a flow string of the same words are one text."""
    return " ".join(entry["description"].split())


def _placement(ctx: Context, entry, ids: set[str], names: frozenset[str], keys: tuple[str, ...]):
    """A placement's data paths must be known; its formulas (over `names`), or None."""
    for p in entry["datapaths"]:
        if p not in ids:
            ctx.p.add(entry.at("datapaths"), f"{p!r} is no tmem layout (they are {', '.join(sorted(ids))})")
    fs = [ctx.formula(entry, key, names, entry.pos) for key in keys]
    return None if None in fs else fs


def _scale_factors(ctx: Context, t, ids: set[str]) -> list[ScaleFactorLayout]:
    out = []
    placed = t.get("scale_factors", [])
    ctx.once(placed, lambda s: s["name"], "scale-factor layout")
    ctx.once(placed, lambda s: [f"{s['matrix']} under layout {p}" for p in s["datapaths"]],
             "the scale-factor placement of", "datapaths")  # one per matrix and data-path layout
    for i, s in enumerate(placed):
        fs = _placement(ctx, placed[i], ids, _SF_NAMES, ("lane", "column", "byte"))
        if fs is not None:
            out.append(ScaleFactorLayout(s["name"], s["manual"], s["matrix"], tuple(s["datapaths"]), s["copies"],
                                         *fs, _text(s)))  # type: ignore[arg-type]
    return out


def _sparsity(ctx: Context, t, kinds: set[str], sparsities: dict[str, Sparsity]) -> dict[str, Sparsity]:
    """Each kind's sparsity: a kind with a layout, a sparsity of `sparsity:` whose metadata is not
    in registers (it lies where `metadata` puts it)."""
    out = {}
    table = t.get("sparsity", {})
    for kind, name in table.items():
        if kind not in kinds:
            ctx.p.add(table.at(kind), f"sparsity: {kind!r} has no layout")
            continue
        sp = sparsities.get(name)
        if sp is None:
            ctx.p.add(table.at(kind), f"unknown sparsity {name!r}{did_you_mean(name, sparsities)}")
        elif sp.in_registers:
            ctx.p.add(table.at(kind), f"sparsity {name} maps its metadata to registers; in tensor memory the "
                                      "metadata placements (`metadata`) say where it lies")
        else:
            out[kind] = sp
    return out


def _metadata(ctx: Context, t, ids: set[str], sparse_kinds: set[str]) -> list[MetadataLayout]:
    """Kinds with a sparsity, known data paths, one placement per kind and data path."""
    lays = t.get("metadata", [])
    ctx.once(lays, lambda m: m["name"], "metadata layout")
    ctx.once(lays, lambda m: [f"{k} under layout {p}" for k in m["kinds"] for p in m["datapaths"]],
             "the metadata layout of", "kinds")
    out = []
    for i, m in enumerate(lays):
        where = lays[i]
        for sel in m["kinds"]:
            if sel not in sparse_kinds:
                ctx.p.add(where.at("kinds"), f"metadata layout {m['name']}: {sel!r} has no sparsity")
        fs = _placement(ctx, where, ids, _META_NAMES, ("lane", "column", "bit"))
        if fs is not None:
            out.append(MetadataLayout(m["name"], m["manual"], tuple(m["kinds"]), tuple(m["datapaths"]),
                                      tuple(m["ids"]), *fs, _text(m)))  # type: ignore[arg-type]
    return out
