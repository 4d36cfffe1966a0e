"""The size of every matrix a variant takes: its family's `rows` and `cols` formulas evaluated where
the variant's shape puts them, each a whole number of 1 to MAX_DIM.

Only the matrices a fragment layout maps used to be evaluated (map_checks, against the layout's
size): one held in tensor memory or shared memory alone (tcgen05's lut, meta, scale_a, kept, ...)
had its formulas parsed and never run, so `rows: "2**64"`, `"-K"` or `cols: "1 // 0"` validated
(fuzz seed 33, tree 528).

Where a variant's shape comes from (`variant_shapes`): a variant whose opcode states one (M, N or K)
is evaluated at it, a dimension it lacks read as 0 (as the fragment checks read it). A variant
without one takes its shape at run time from an instruction descriptor (tcgen05.mma's idesc): it
is evaluated at every shape its family's descriptors list for the variant's kind and CTA group
(PTX ISA Table 39: each M and N, dense and sparse, and the kind's K, dense and doubled for sparse
A). Where no descriptor lists a shape for it, only a formula that names no dimension is evaluated.

The last of the model's invariants (ptxspec.loading.checks), checked when no other is broken: a
shape out of its family's bounds, or a descriptor's shape table in error, is reported where it is
written, not here at the formulas it would make fail.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ptxspec.core.errors import PosDict
from ptxspec.core.expr import ExprError
from ptxspec.core.lazy import np
from ptxspec.model import fragments
from ptxspec.model.spec import Spec

#: The most rows or columns a matrix of a family may have: the bound a fragment layout's matrix
#: already has (model.fragments.MAX_DIM, 4096), now for every matrix. The largest in today's spec is
#: 512 (tcgen05's tile16 for tcgen05.ld .16x128b.x64.pack::16b); MMA operands stop at 256 (tcgen05.mma's
#: M and N, the b1 MMAs' K), and tensor memory itself is 128 lanes of 512 columns. Eight times the
#: largest leaves room for what comes; a larger size is no matrix an instruction addresses but a typo
#: or a runaway formula.
MAX_DIM = fragments.MAX_DIM
DIMENSIONS = frozenset({"M", "N", "K"})


@dataclass(frozen=True)
class Shapes:
    """Where a variant's matrices are evaluated: the opcode's shape (one point; a dimension it
    lacks is 0), a descriptor's shapes (`runtime`), or no point at all (constant formulas only)."""
    points: tuple[tuple[int, int, int], ...]
    runtime: bool = False
    text: str = ""  # the opcode's shape, as the variant spells it (m16n8k16, m8n8)

    @cached_property
    def env(self) -> dict[str, Any]:
        if not self.runtime:  # Python ints: the opcode's one shape, or none
            return dict(zip("MNK", self.points[0] if self.points else (0, 0, 0)))
        cols = np.array(self.points, dtype=np.int64).T
        return dict(zip("MNK", cols))

    def label(self, i: int = 0) -> str:
        if not self.points:
            return "no shape: neither its opcode nor an instruction descriptor states one"
        if not self.runtime:
            return self.text
        m, n, k = self.points[i]
        return f"M = {m}, N = {n}, K = {k}, a shape its instruction descriptor allows"


def descriptor_points(spec: Spec, family: str, qualifiers: dict) -> tuple[tuple[int, int, int], ...]:
    """Every (M, N, K) the family's instruction descriptors list for a variant of these qualifiers
    (its value of the descriptor's selector axis and its `cta_group`, where it has them)."""
    points: set[tuple[int, int, int]] = set()
    for (fam, _), d in sorted(spec.descriptors.items()):
        if fam != family:
            continue
        kind = qualifiers.get(d.selector) or None
        for sh in d.shapes:
            if (qualifiers.get("cta_group") or sh.cta_group) != sh.cta_group:
                continue
            ms, ns = set(sh.m) | set(sh.m_sparse or ()), set(sh.n) | set(sh.n_sparse or ())
            for sel in sh.selectors:
                if kind in (None, sel) and d.k.get(sel):
                    points.update(itertools.product(ms, ns, (d.k[sel], 2 * d.k[sel])))
    return tuple(sorted(points))


def variant_shapes(spec: Spec, family: str, shape: tuple, qualifiers: dict) -> Shapes:
    """The shapes a variant of this opcode shape (m, n, k; None where it has none) and qualifiers
    takes its matrices' sizes at."""
    if any(x is not None for x in shape):
        m, n, k = (x or 0 for x in shape)
        return Shapes(((m, n, k),), text="".join(f"{d}{x}" for d, x in zip("mnk", shape) if x is not None))
    points = descriptor_points(spec, family, qualifiers)
    return Shapes(points, runtime=bool(points))


def sizes(formula, shapes: Shapes, batch: int, sparse: bool) -> list[int] | None:
    """The formula's values at the shapes, one per point (one for none); None where it names a
    dimension and there is no shape. ExprError as the formula raises it (a value past +-2**62 among
    them: a descriptor's shapes are evaluated as int64 arrays, each step bounded first)."""
    if not shapes.points and formula.names & DIMENSIONS:
        return None
    value = formula(**shapes.env, batch=batch, sparse=int(sparse))
    if isinstance(value, np.ndarray):
        return np.broadcast_to(value, (len(shapes.points),)).tolist()
    return [int(value)] * max(len(shapes.points), 1)


def check_matrix_sizes(report, spec: Spec, family_docs: dict) -> None:
    """Every variant's matrices sized (`report(pos, message, cause)`), each (matrix, shapes, batch,
    sparsity) once however many variants share it."""
    shapes_of: dict[tuple, Shapes] = {}
    variants_seen: set[tuple] = set()
    checked: set[tuple] = set()
    # the qualifiers a descriptor's shapes depend on: its selector's, and the CTA group
    axes = {f: ("cta_group", *sorted({d.selector for (fam, _), d in spec.descriptors.items() if fam == f}))
            for f in spec.families}
    for v in spec.variants:
        shape = (v.m, v.n, v.k)
        at = (v.family, shape, () if any(x is not None for x in shape) else
              tuple(v.qualifiers.get(a, "") for a in axes[v.family]))
        if (at, id(v.operands), v.batch, v.sparse) in variants_seen:  # (operands: one tuple for variants alike)
            continue
        variants_seen.add((at, id(v.operands), v.batch, v.sparse))
        if at not in shapes_of:
            shapes_of[at] = variant_shapes(spec, v.family, shape, v.qualifiers)
        dims = spec.families[v.family].matrices
        for mat in sorted({o.matrix for o in v.operands if o.matrix in dims}):
            if (at, mat, v.batch, v.sparse) in checked:
                continue
            checked.add((at, mat, v.batch, v.sparse))
            _check(report, v, mat, shapes_of[at], dims[mat], family_docs[v.family]["matrices"])
        for o in v.operands:  # a fragment whose map the spec does not state: its registers hold its matrix
            if o.kind == "fragment" and o.matrix in dims and o.matrix not in v.fragment_layouts:
                _capacity(report, spec, v, o, shapes_of[at], dims[o.matrix])


def _check(report, v, mat: str, shapes: Shapes, dims, entries) -> None:
    def where(i: int) -> str:
        return f"{v.ptx} ({shapes.label(i)}{f', batch {v.batch}' if v.batch != 1 else ''})"
    for what in ("rows", "cols"):
        problem = _size_problem(getattr(dims, what), what, shapes, v.batch, v.sparse, where)
        if problem:
            report(entries[mat].at(what) if isinstance(entries[mat], PosDict) else entries.at(mat),
                   f"matrix {mat}: {problem}", cause=("matrix size", v.family, mat, what))


def _size_problem(formula, what: str, shapes: Shapes, batch: int, sparse: bool, at) -> str | None:
    """What is wrong with the formula's values (`at(i)`: the variant and shape i), or None."""
    try:
        values = sizes(formula, shapes, batch, sparse)
    except ExprError as exc:
        return f"{what} for {at(0)}: {exc}"
    if values is None:
        return None
    i = next((i for i, x in enumerate(values) if not 1 <= x <= MAX_DIM), None)
    if i is None:
        return None
    return f"{what} {formula.source!r} is {values[i]} for {at(i)}: a matrix has 1 to {MAX_DIM} {what}"


def _capacity(report, spec: Spec, v, o, shapes: Shapes, dims) -> None:
    """A fragment without a map (its register count alone stated) can hold its matrix: registers x
    their width x threads >= rows x cols x element bits. A map checks this and more; without one a
    count of 1 for tcgen05.ld.red.spcompress's 2 to 64 kept f32 values per lane validated (fuzz seed
    36, tree 10560). Checked at the opcode's one shape (a size problem is _check's)."""
    if shapes.runtime or not shapes.points:
        return
    etype = spec.types.get(o.element_type or getattr(v, dims.type_field, "") or "")
    try:
        rows, cols = (sizes(getattr(dims, what), shapes, v.batch, v.sparse) for what in ("rows", "cols"))
    except ExprError:
        return
    if etype is None or rows is None or cols is None:
        return
    width = int("".join(ch for ch in o.reg_type if ch.isdigit()) or 32)
    held, needed = o.regs * width * v.threads, rows[0] * cols[0] * etype.bits
    if held < needed:
        report(v.pos, f"group {v.group!r}: fragment {o.matrix} (operand {o.name}) of {v.ptx}: {o.regs} {o.reg_type} "
                      f"register(s) in each of {v.threads} threads hold {held} bits, but matrix {o.matrix} is "
                      f"{rows[0]} x {cols[0]} {etype.name} ({needed} bits)", cause=("fragment capacity", v.family, o.matrix))
