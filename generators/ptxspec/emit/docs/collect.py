"""Collectors: the model -> the figures of a family (`FIGURE_KINDS` lists them), and `Figures`, which
records which figure draws which operand of which variant. The figure kinds are
`ptxspec.emit.docs.figures`."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ptxspec.core.lazy import np

from ptxspec.emit.docs.figures import (
    ROLE_TITLES,
    BitDescriptorFigure,
    DescriptorFigure,
    Figure,
    FragFigure,
    MapFigure,
    MetaFigure,
    ScaleFigure,
    SwizzleFigure,
    TmemFigure,
    file_name,
)
from ptxspec.model import tmem
from ptxspec.model.fragments import FragmentMap
from ptxspec.model.kinds import kind_of
from ptxspec.model.variant import Variant


def span(values) -> str:
    lo, hi = int(min(values)), int(max(values))
    return str(lo) if lo == hi else f"{lo}-{hi}"


def tmem_blocks(lane, col, first, second, col_step: int):
    """{(lane block, column block): (first range, second range, fill)} of cells at (lane, col)."""
    cells: dict = defaultdict(lambda: ([], []))
    for ln, c, a, b in zip(lane.ravel().tolist(), col.ravel().tolist(), first.ravel().tolist(), second.ravel().tolist()):
        got = cells[(ln // 16, c // col_step)]
        got[0].append(a)
        got[1].append(b)
    return {k: (span(a), span(b), min(a) // 32) for k, (a, b) in sorted(cells.items())}


def periodic(instances: dict[tuple, FragmentMap]) -> tuple[int, int, int] | None:
    """(N, columns, elements per thread) of one repeat when every instance is the smallest one tiled
    along N (the instances differ in N only), else None."""
    keys = [dict(k) for k in instances]
    if "N" not in keys[0] or len({tuple((a, b) for a, b in k.items() if a != "N") for k in keys}) != 1:
        return None
    by_n = {k["N"]: fm for k, fm in zip(keys, instances.values())}
    p = min(by_n)
    base = by_n[p]
    ep, cp = base.elements, base.cols
    if ep % base.per_reg:
        return None
    for n, fm in by_n.items():
        reps = n // p
        if n % p or fm.cols != cp * reps or fm.rows != base.rows or fm.elements != ep * reps:
            return None
        rows = fm.row.reshape(fm.threads, reps, ep)
        cols = fm.col.reshape(fm.threads, reps, ep)
        if not (rows == base.row[:, None, :]).all():
            return None
        if not (cols == base.col[:, None, :] + cp * np.arange(reps)[None, :, None]).all():
            return None
    return p, cp, ep


@dataclass
class Figures:
    """Every figure of one family, and which figure draws which operand of which variant."""
    frag: list[FragFigure] = field(default_factory=list)
    frag_of: dict[tuple[str, str], FragFigure] = field(default_factory=dict)  # (variant id, operand) -> figure
    meta: list[MetaFigure] = field(default_factory=list)
    swizzle: list[SwizzleFigure] = field(default_factory=list)
    descriptor: list[DescriptorFigure] = field(default_factory=list)
    other: list[Figure] = field(default_factory=list)  # figures of kinds added later
    #: variant id -> (operand, what it holds: an element type or the figure's kind, figure), in order
    uses: dict[str, list[tuple[str, str, MapFigure]]] = field(default_factory=lambda: defaultdict(list))

    def use(self, v: Variant, operand: str, what: str, fig: MapFigure) -> None:
        self.uses[v.id].append((operand, what, fig))

    def all(self) -> list[Figure]:
        return [*self.frag, *self.meta, *self.swizzle, *self.descriptor, *self.other]


def _fragment_groups(spec, variants):
    groups: dict[tuple, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    fms = {}
    for v in variants:
        for o in v.operands:
            if not o.layout:  # not a register fragment, or one with no map (its register count only)
                continue
            layout, bits, shape = v.fragment_layouts[o.matrix]
            role = "sparse-a" if v.sparse and o.matrix == "a" else o.matrix
            key = layout.shape_key(*shape)
            groups[(role, layout.name, bits)][key].append((v, o))
            if (layout.name, bits, key) not in fms:
                fms[(layout.name, bits, key)] = v.fragment_map(o.matrix)
    return groups, fms


def collect_fragments(spec, family: str, variants, figs: Figures) -> None:
    groups, fms = _fragment_groups(spec, variants)
    order = {r: j for j, r in enumerate(ROLE_TITLES)}
    for (role, lname, bits) in sorted(groups, key=lambda g: (order.get(g[0], 9), g[1], g[2])):
        insts = groups[(role, lname, bits)]
        layout = spec.layouts[lname]
        fm_of = {k: fms[(lname, bits, k)] for k in insts}
        per = periodic(fm_of) if len(insts) > 1 else None
        stem = f"{role}-{lname}-{bits}bit"
        drawn = []
        if per:
            pn, p, ep = per
            n0 = min(dict(k)["N"] for k in insts)
            pick = {dict(k)["N"]: k for k in insts}
            key = pick.get(2 * n0, pick[n0])  # two repeats drawn
            fig = FragFigure(stem, family, role, layout, bits, fm_of[key], dict(key),
                             [dict(k) for k in sorted(insts)], p, ep, pn)
            drawn = [(fig, list(insts))]
        else:
            for k in sorted(insts):
                suffix = "".join(f"-{n}{val}" for n, val in k)
                fig = FragFigure(stem + suffix, family, role, layout, bits, fm_of[k], dict(k), [dict(k)])
                drawn.append((fig, [k]))
        for fig, keys in drawn:
            figs.frag.append(fig)
            for k in keys:
                for v, o in insts[k]:
                    fig.types.add(o.element_type)
                    fig.where.add((v.instruction, v.group))
                    if role == "sparse-a":
                        fig.sparsities.add(v.sparsity)
                    figs.frag_of[(v.id, o.name)] = fig
                    figs.use(v, o.name, o.element_type, fig)


def metadata_operands(v) -> list[str]:
    """The registers that carry sparsity metadata (a kind that needs a sparsity and is not a constant)."""
    return [o.name for o in v.operands if kind_of(o).needs_sparsity and not kind_of(o).constant]


def collect_metadata(spec, family: str, variants, figs: Figures) -> None:
    seen: dict[tuple, list[MetaFigure]] = {}
    threads = spec.families[family].threads
    for v in variants:
        sp = v.sparsity
        if sp is None:
            continue
        key = (sp.name, v.m, v.k)
        if key not in seen:
            seen[key] = [MetaFigure(f"metadata-{sp.name}-m{v.m}k{v.k}-sel{sel}", family, threads, sp,
                                    v.m, v.k, sel) for sel in sp.selectors]
            figs.meta += seen[key]
        for f in seen[key]:
            f.where.add((v.instruction, v.group))
            for name in metadata_operands(v):
                figs.use(v, name, "metadata", f)


def collect_scales(spec, family: str, variants, figs: Figures) -> None:
    """One figure per scale map, scale count, shape and legal selector value; a variant's scale
    operand uses the figure of its first selector value (the scale page shows them all)."""
    seen: dict[tuple, list[ScaleFigure]] = {}
    threads = spec.families[family].threads
    for v in variants:
        for o in v.operands:
            if not o.scale_map:
                continue
            sel = next(s for s in v.operands if s.kind == "scale_selector" and s.matrix == o.matrix)
            parts = dict(sel.parts)
            key = (o.scale_map, o.vectors, v.m, v.n, v.k)
            if key not in seen:
                seen[key] = [ScaleFigure(f"scale-{o.scale_map}-{o.vectors}x-m{v.m}n{v.n}k{v.k}-sel{b}{t}", family,
                                         threads, spec.scale_maps[o.scale_map], o.vectors, b, t, v.m, v.n, v.k)
                             for b in parts["byte_id"] for t in parts["thread_id"]]
                figs.other += seen[key]
            for f in seen[key]:
                f.where.add((v.instruction, v.group))
                f.operands.add(o.name)
            figs.use(v, o.name, "scale", seen[key][0])


def collect_smem(spec, family: str, variants, figs: Figures) -> None:
    sm = spec.smem.get(family)
    if sm is None:
        return
    figs.swizzle += [SwizzleFigure(f"{family}-swizzle-{file_name(m.name)}", family, sm, m)
                     for m in sm.swizzle_modes]
    figs.descriptor.append(DescriptorFigure(f"{family}-descriptor", family, sm))


def collect_descriptors(spec, family: str, variants, figs: Figures) -> None:
    for (fam, name), d in sorted(spec.descriptors.items()):
        if fam == family:
            figs.other += [BitDescriptorFigure(f"{family}-{name}-{file_name(lay.name)}", family, d, lay)
                           for lay in d.layouts]


def collect_tmem(spec, family: str, variants, figs: Figures) -> None:
    """D's data-path layouts drawn for N = 64 in blocks of 16 columns (the half-data-path ones at
    each lane alignment), and the scale-factor placements for 128 rows (2x2: N = 256) in 32-bit
    columns; layouts that draw alike share one figure."""
    for (fam, name), d in sorted(spec.descriptors.items()):
        if fam != family:
            continue
        groups: dict = {}
        for lay in d.tmem_layouts:
            for L in lay.alignments:
                lane, col = tmem.d_cells(lay, 64, L)
                m, n = np.indices(lane.shape)
                blocks = {k: (f"rows {a}", f"cols {b}", f) for k, (a, b, f) in tmem_blocks(lane, col, m, n, 16).items()}
                ident = tuple(sorted(blocks.items()))
                label = lay.id + (f" (L = {L})" if len(lay.alignments) > 1 else "")
                groups.setdefault(("d", ident), ("d", blocks, 4, [f"columns {16 * c}-{16 * c + 15}" for c in range(4)],
                                                 "N = 64", []))[-1].append(label)
        for sf in d.scale_factor_layouts:
            extent, n = tmem.scale_example(sf)
            lane, col, byte = tmem.scale_cells(sf, extent, 4, 0, n)
            r = np.broadcast_to(np.arange(extent)[:, None], byte.shape)
            blocks = {}
            for q in range(sf.copies):
                blocks.update(tmem_blocks(lane[q], col, r, byte, 1))
            blocks = {k: (f"r {a}", f"bytes {b}", f) for k, (a, b, f) in blocks.items()}
            ident = tuple(sorted(blocks.items()))
            ncols = int(col.max()) + 1
            what = f"{sf.matrix} under {', '.join(sf.datapaths)}"
            groups.setdefault(("scale", ident), ("scale", blocks, ncols, [f"column {c}" for c in range(ncols)],
                                                 f"{f'N = {n}' if n else f'{extent} rows (columns)'}, 4 factors from id 0",
                                                 []))[-1].append(what)
        for what, blocks, ncols, labels, example, names in groups.values():
            key = f"{family}-tmem-{what}-" + file_name("-".join(x.replace(" under ", "-").replace(" = ", "")
                                                                 for x in names)).strip("-")
            key = re.sub(r"-+", "-", key)
            figs.other.append(TmemFigure(key, family, what, tuple(names), example, blocks, ncols, labels))


FIGURE_KINDS = (collect_fragments, collect_metadata, collect_scales, collect_smem, collect_descriptors, collect_tmem)


def collect(spec, family: str, variants) -> Figures:
    figs = Figures()
    for collector in FIGURE_KINDS:
        collector(spec, family, variants, figs)
    return figs
