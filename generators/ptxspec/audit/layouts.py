"""CuTe's MMA traits layouts, evaluated as shape:stride functions (`layout_algebra`) and compared
with the spec's maps element by element.

A CuTe thread-value layout maps (thread, value) to a position in the operand's matrix, stored
column-major: A as (M, K), B as (N, K), C/D as (M, N); `ThrID` maps its threads to the warp's
lanes. Compared with the spec's maps of the variant the traits' atom emits:
- A, B, C/D with the fragment maps (`Variant.fragment`); where `ThrID` is no identity (SM70's
  quad-pair: 8 threads of lanes 0-3 and 16-19), on those lanes, whose product is the first one;
- a sparse A, whose layout places the dense (M, K) elements two to a stored element
  (`sparse_elem<2, T>`), with the spec's packed fragment in the compressed (M, K/2): stored
  element e of a thread holds values 2e and 2e + 1, at compressed column k // 2;
- `SFALayout`/`SFBLayout` (thread, k) -> (row of A or column of B, k) with the block-scale
  factor maps (`Variant.scale_map`) at the selectors CuTe's atoms pass (constants, read from
  cute/arch): every lane the spec reads a factor from holds CuTe's factors of that row (column);
- a sparse atom's `ELayout` (thread, value) -> (row, dense k) of the metadata, eight nibbles of a
  register per thread, with the spec's metadata map at every selector the variant allows.
A layout that does not evaluate (shape and stride of different ranks, a position outside the
matrix, two elements on one position, a count unlike the spec's) is a finding, not an error.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ptxspec.core.lazy import np

from ptxspec.audit import cute_traits
from ptxspec.audit.findings import Binding, Finding
from ptxspec.audit.layout_algebra import NotEvaluable, Types, Unknown, evaluate, offsets, points
from ptxspec.audit.match import Matcher

OPERANDS = (("ALayout", "a", "A"), ("BLayout", "b", "B"), ("CLayout", "d", "C"))
SCALES = (("SFALayout", "scale_a", "A"), ("SFBLayout", "scale_b", "B"))
_SELECTOR = re.compile(r"static\s+constexpr\s+uint16_t\s+(?:tid|bid)[AB]\s*=\s*(\d+)\s*;")


def read_traits(root: Path) -> tuple[Types, dict[str, cute_traits.Traits], set[int]]:
    """The MMA traits, the types of every file, and the selector values the block-scale atoms pass."""
    types = Types()
    arch = sorted((root / "cute" / "arch").glob("mma*.hpp"))
    traits = cute_traits.read(root, "MMA_Traits", sorted((root / "cute" / "atom").glob("mma_traits*.hpp")), types)
    selectors = set()
    for path in arch:
        text = path.read_text(encoding="utf-8")
        types.add_file(text)
        selectors |= {int(x) for x in _SELECTOR.findall(text)} if "uint16_t" in text else set()
    return types, traits, selectors


class Check:
    """Comparisons of one peer's layouts; each distinct (layout, map) evaluated once (CuTe repeats
    them by the hundred), its finding placed at every traits struct that has it."""

    def __init__(self):
        self.findings: list[Finding] = []
        self.checked = 0
        self.unknown: dict[str, int] = defaultdict(int)
        self.memo: dict[tuple, Finding | None] = {}

    def run(self, key: tuple, compute, args: tuple, where: cute_traits.Traits, member: str, v) -> None:
        """`compute(*args)`, once per key; its finding placed at `where`."""
        self.checked += 1
        if key not in self.memo:
            try:
                self.memo[key] = compute(*args)
            except NotEvaluable as exc:
                self.memo[key] = broken(v, key[0], exc)
        f = self.memo[key]
        if f is not None:
            self.findings.append(Finding(f.kind, f.severity, where.file, where.line, f"{where.name}::{member} {f.message}",
                                         f"{where.name}::{member}", (v.id,), f.evidence, f.status, f.judge, f.verdict))

    def notes(self, what: str) -> list[str]:
        return [f"{n} {what} not evaluated: {why}" for why, n in sorted(self.unknown.items())]


def broken(v, text: str, exc: Exception) -> Finding:
    return Finding("layout", "error", "", 0, f"`{text}` does not evaluate: {exc}", "", (v.id,), {"layout": text},
                   "confirmed", "layout algebra", "the layout fails on its own terms")


def differ(v, text: str, got: np.ndarray, ref: np.ndarray, what: str, lanes=None, show=None) -> Finding | None:
    """A finding when `got` and the spec's `ref` ((threads, values, k) arrays) differ anywhere."""
    diff = np.argwhere((got != ref).any(axis=-1))
    if not len(diff):
        return None
    lanes = lanes if lanes is not None else np.arange(got.shape[0])
    show = show or (lambda a: f"({', '.join(str(int(x)) for x in a)})")
    first = [f"lane {int(lanes[t])} value {e}: CuTe {show(got[t, e])}, spec {show(ref[t, e])}" for t, e in diff[:3]]
    proven = not v.hardware.startswith("not")
    return Finding("layout", "error", "", 0,
                   f"`{text}` puts {len(diff)} of {got.shape[0] * got.shape[1]} elements elsewhere than the spec's "
                   f"{what} of {v.id}: " + "; ".join(first), "", (v.id,),
                   {"layout": text, "differing": int(len(diff)), "first": first, "hardware": v.hardware},
                   "confirmed" if proven else "unadjudicated", "spec maps" if proven else "",
                   f"the spec's map is proven: {v.hardware}" if proven else f"the spec's map is {v.hardware}")


def check(spec, root: Path, bindings: list[Binding], matcher: Matcher) -> tuple[list[Finding], int, list[str]]:
    types, traits, selectors = read_traits(root)
    by_struct: dict[str, list[Binding]] = defaultdict(list)
    for b in bindings:
        by_struct[b.name].append(b)
    c = Check()
    for name, t in sorted(traits.items()):
        atom = by_struct.get(cute_traits.atom(types, name, by_struct), [])
        # the variant the opcode names, also where the operands differ (a spelling finding of its own)
        vids = [vid for b in atom for m in [matcher.match(b)] for vid in m.variants or m.candidates]
        if not vids:
            continue
        v = spec.variant(vids[0])
        try:
            lanes = offsets(*types.eval(cute_traits.member(traits, name, "ThrID") or f"Layout<_{v.threads}>"))
        except (Unknown, NotEvaluable) as exc:
            c.unknown[f"ThrID: {exc}"] += 1
            continue
        for member, operand, letter in OPERANDS:
            text = cute_traits.member(traits, name, member)
            if text is None or not any(o.kind == "fragment" and operand in (o.matrix, o.name) for o in v.operands):
                continue  # the operand is no register fragment of the variant (wgmma's A from a descriptor)
            _operand(c, types, t, member, text, v, operand, letter, lanes)
        text = cute_traits.member(traits, name, "ELayout")
        if text is not None and v.sparsity is not None:
            _metadata(c, types, t, text, v)
        for vid in dict.fromkeys(vids):  # each variant of the atom: the factor maps differ by scale_vec
            w = spec.variant(vid)
            for member, operand, letter in SCALES:
                text = cute_traits.member(traits, name, member)
                if text is None or not any(o.name == operand and o.scale_map for o in w.operands):
                    continue
                if selectors != {0}:
                    c.unknown[f"the block-scale atoms pass selectors {sorted(selectors)}, not only 0"] += 1
                    continue
                _scale(c, types, t, member, text, w, operand, letter)
    notes = c.notes("traits layouts")
    notes.append("block-scale factors: compared is which lane holds which row (column) of factors; the byte "
                 "of a lane's register each K-block's factor lies in comes from CuTe's scale-factor tensor "
                 "layouts, not from its traits, and is not compared")
    return c.findings, c.checked, notes


def _dims(v, letter: str) -> tuple[int, int]:
    m, n, k = v.m or 0, v.n or 0, v.k or 0
    return {"A": (m, k), "B": (n, k), "C": (m, n)}[letter]


def _operand(c: Check, types: Types, t, member, text, v, operand, letter, lanes) -> None:
    try:
        lay = types.eval(text)
    except Unknown as exc:
        c.unknown[str(exc)] += 1
        return
    rows, cols = _dims(v, letter)
    ref = v.fragment(operand)
    if len(lanes) != v.threads or (np.sort(lanes) != np.arange(v.threads)).any():
        ref = ref[lanes]  # SM70's quad-pair: the lanes of the first product, in its own coordinates
        if (ref < 0).any() or (ref[..., 0] >= (cols if letter == "B" else rows)).any() or \
                (ref[..., 1] >= (rows if letter == "B" else cols)).any():
            c.unknown[f"a ThrID whose lanes are not the spec's first product ({member})"] += 1
            return
    fl, bits, shape = v.fragment_layouts[operand]
    key = (text, "sparse" if v.sparse and operand == "a" else letter, rows, cols, fl.name, bits,
           fl.shape_key(*shape), v.threads, tuple(lanes.tolist()))
    if v.sparse and operand == "a":
        c.run(key, _sparse_a, (v, text, lay, ref, rows, cols, lanes), t, member, v)
    else:
        c.run(key, _dense, (v, text, lay, ref, rows, cols, letter, lanes), t, member, v)


def _dense(v, text, lay, ref, rows, cols, letter, lanes) -> Finding | None:
    got = evaluate(lay, rows, cols, ref.shape[0], ref.shape[1])
    if letter == "B":  # CuTe (n, k) against the spec's (row k, col n)
        got = got[..., ::-1]
    return differ(v, text, got, ref, f"map of operand {letter}", lanes)


def _sparse_a(v, text, lay, ref, rows, cols, lanes) -> Finding | None:
    """CuTe's dense (M, K) places, two per stored element, against the packed (M, K/2) fragment."""
    idx = points(lay)
    threads, stored = ref.shape[0], ref.shape[1]
    if idx.shape != (threads, 2 * stored):
        raise NotEvaluable(f"it has {idx.shape[0]} threads x {idx.shape[1]} values where the spec's packed fragment "
                           f"has {threads} x {stored} stored elements of two values each")
    got = evaluate(lay, rows, cols, threads, 2 * stored).reshape(threads, stored, 2, 2)
    pair_row, pair_col = got[..., 0], got[..., 1] // 2
    split = (pair_row[..., 0] != pair_row[..., 1]) | (pair_col[..., 0] != pair_col[..., 1])
    if split.any():
        t, e = np.argwhere(split)[0]
        raise NotEvaluable(f"lane {int(lanes[t])} stores values {2 * e} and {2 * e + 1} of different compressed "
                           f"positions ({got[t, e, 0].tolist()} and {got[t, e, 1].tolist()})")
    packed = np.stack([pair_row[..., 0], pair_col[..., 0]], axis=-1)
    return differ(v, text, packed, ref, "packed (compressed) fragment of A", lanes)


def _scale(c: Check, types: Types, t, member, text, v, operand, letter) -> None:
    try:
        lay = types.eval(text)
    except Unknown as exc:
        c.unknown[str(exc)] += 1
        return
    extent = v.m if letter == "A" else v.n
    key = (text, "scale", operand, v.id)
    c.run(key, _scale_rows, (v, text, lay, operand, extent or 0, v.k or 0), t, member, v)


def _scale_rows(v, text, lay, operand, extent: int, k: int) -> Finding | None:
    """Which row (column) of factors each lane holds: CuTe's (thread, k) -> (row, k) against the lanes
    the spec reads each row's factors from (selectors {0, 0})."""
    idx = points(lay)
    if idx.shape != (v.threads, k):
        raise NotEvaluable(f"it has {idx.shape[0]} threads x {idx.shape[1]} values where the spec has "
                           f"{v.threads} lanes x K = {k}")
    if idx.min() < 0 or idx.max() >= extent * k:
        raise NotEvaluable(f"it reaches position {int(idx.max())} of a {extent} x {k} matrix of factors")
    row, kk = idx % extent, idx // extent
    spans = [int(x) for x in np.flatnonzero((row != row[:, :1]).any(axis=1) | (np.sort(kk, axis=1) != np.arange(k)).any(axis=1))]
    if spans:
        raise NotEvaluable(f"lane {spans[0]} does not hold the K factors of one row: rows "
                           f"{sorted(set(row[spans[0]].tolist()))}")
    smap = v.scale_map(operand, 0, 0)
    read = (smap[..., 0] >= 0).any(axis=1)
    spec_row = np.where(read, smap[..., 0].max(axis=1), -1)
    if ((smap[..., 0] >= 0) & (smap[..., 0] != spec_row[:, None])).any():
        return None  # a lane whose bytes scale several rows: not a layout CuTe's traits can state
    got = np.where(read, row[:, 0], -1)
    return differ(v, text, got[:, None, None], spec_row[:, None, None],
                  f"block-scale factor map of {operand} (selectors 0, 0)", show=lambda a: f"row {int(a[0])}")


def _metadata(c: Check, types: Types, t, text, v) -> None:
    try:
        lay = types.eval(text)
    except Unknown as exc:
        c.unknown[str(exc)] += 1
        return
    c.run((text, "metadata", v.id), _nibbles, (v, text, lay), t, "ELayout", v)


def _nibbles(v, text, lay) -> Finding | None:
    """CuTe's (thread, value) -> (row, dense k) of the metadata, eight nibbles of one register per
    thread (values in order), against the spec's metadata map: at every selector the spec allows,
    each nibble of each lane that supplies metadata describes the chunk CuTe places there."""
    idx = points(lay)
    m, k = v.m or 0, v.k or 0
    if idx.shape[0] != v.threads or idx.shape[1] % 8:
        raise NotEvaluable(f"it has {idx.shape[0]} threads x {idx.shape[1]} values where the spec has {v.threads} "
                           "lanes x 8 nibbles of a 32-bit metadata register")
    if idx.min() < 0 or idx.max() >= m * k:
        raise NotEvaluable(f"it reaches position {int(idx.max())} of a {m} x {k} matrix")
    width = k // v.sparsity.chunks_per_row(k)
    row = (idx % m).reshape(v.threads, 8, -1)
    chunk = (idx // m // width).reshape(v.threads, 8, -1)
    if (row != row[..., :1]).any() or (chunk != chunk[..., :1]).any():
        raise NotEvaluable("a nibble's values lie in several chunks of A")
    got = np.stack([row[..., 0], chunk[..., 0]], axis=-1)
    for sel in v.selectors:
        mask, srow, schunk = v.sparsity.metadata_map(v.threads, m, v.n or 0, k, sel)
        lanes = np.flatnonzero(mask)
        f = differ(v, text, got[lanes], np.stack([srow, schunk], axis=-1)[lanes],
                   f"metadata map (row, chunk) at selector {sel}", lanes)
        if f is not None:
            return f
    return None
