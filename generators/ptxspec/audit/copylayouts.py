"""CuTe's copy traits of the matrix movements compared with the spec's movement maps.

A copy traits struct states two layouts from (thread, bit) to the bit of one logical tile, the
source's (`SrcLayout`) and the destination's (`DstLayout`): a copy moves each bit of the tile from
where the one puts it to where the other does.
- ldmatrix/stmatrix: the memory side gives each lane a row of the tile (the row its address names;
  of lanes that give the same row, the first), the register side each register element its bits.
  Element e of lane t is (row: the lane whose address gives it, column: its place in that row in
  elements), against the spec's fragment map (row r is the one lane r's address names).
- tcgen05.ld/st: `ValID` maps the tile's bits to tensor-memory addresses (`TMEM::DP_b` apart per
  data-path lane, 32 bits per column), so register element e of lane t lies at (lane, column, bit
  in the column), against the spec's (row, column) with the element at bit 0 of its column (the
  low half of each column where .pack::16b packs two); for .16x32bx2 the spec's rows 16-31 are
  the access at the split offset the statement passes.
movmatrix's traits are not compared (see `NOT_COMPARED`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ptxspec.core.lazy import np

from ptxspec.audit import cute_traits
from ptxspec.audit.findings import Binding, Finding
from ptxspec.audit.layout_algebra import NotEvaluable, Types, Unknown, offsets, points
from ptxspec.audit.layouts import Check, differ
from ptxspec.audit.match import Matcher
from ptxspec.audit.peer_asm import Lines, asm_blocks

FILES = ("cute/atom/copy_traits_sm75.hpp", "cute/atom/copy_traits_sm90.hpp", "cute/atom/copy_traits_sm100.hpp")
TYPES = ("cute/arch/tmem_allocator_sm100.hpp",)
#: instruction -> (the registers' layout, the memory's) in its copy traits
MOVES = {"ldmatrix": ("DstLayout", "SrcLayout"), "stmatrix": ("SrcLayout", "DstLayout"),
         "tcgen05.ld": ("DstLayout", "SrcLayout"), "tcgen05.st": ("SrcLayout", "DstLayout")}
NOT_COMPARED = {"movmatrix": "movmatrix's traits have the same source and destination layout: the transposition "
                             "is not in them, so they state no map to compare"}
_SPLIT = re.compile(r",\s*(\d+)\s*[,;]?\s*(?:\{[^}]*\}\s*;?)?$")


def check(spec, root: Path, bindings: list[Binding], matcher: Matcher) -> tuple[list[Finding], int, list[str]]:
    types = Types()
    for rel in TYPES:
        if (root / rel).is_file():
            types.add_file((root / rel).read_text(encoding="utf-8"))
    traits = cute_traits.read(root, "Copy_Traits", [root / f for f in FILES if (root / f).is_file()], types)
    by_struct: dict[str, list[Binding]] = defaultdict(list)
    for b in bindings:
        by_struct[b.name].append(b)
    c = Check()
    skipped: dict[str, int] = defaultdict(int)
    sources: dict[str, tuple[str, dict]] = {}
    for name, t in sorted(traits.items()):
        atom = by_struct.get(cute_traits.atom(types, name, by_struct), [])
        found = [(b, vid) for b in atom for m in [matcher.match(b)] for vid in m.variants or m.candidates]
        if not found:
            continue
        b, vid = found[0]
        v = spec.variant(vid)
        if v.instruction in NOT_COMPARED:
            same = cute_traits.member(traits, name, "SrcLayout") == cute_traits.member(traits, name, "DstLayout")
            skipped[NOT_COMPARED[v.instruction] if same else f"{v.instruction}'s traits are not compared"] += 1
            continue
        if v.instruction not in MOVES:
            continue
        regs_member, mem_member = MOVES[v.instruction]
        moved = _registers_moved(root, b, sources)
        if moved:
            skipped[f"the atom moves the instruction's registers in C++ before or after its asm ({moved}): "
                    "its traits state the moved registers, not the instruction's"] += 1
            continue
        texts = {m: cute_traits.member(traits, name, m) for m in (regs_member, mem_member, "ValID")}
        try:
            regs = points(types.eval(texts[regs_member] or ""))
            mem = types.eval(texts[mem_member] or "")  # a (thread, bit) layout, evaluated by the comparison
            if v.instruction.startswith("tcgen05"):
                addr = offsets(*types.eval(texts["ValID"] or ""))
                lane_bits = types.eval("TMEM::DP_b")
                split = _split(b.text) if "16x32bx2" in v.ptx else 0
        except (Unknown, NotEvaluable) as exc:
            c.unknown[f"{name}: {exc}"] += 1
            continue
        text = texts[regs_member] or ""
        if v.instruction.startswith("tcgen05"):
            key = (text, texts["ValID"], texts[mem_member], v.id, split)
            c.run(key, _tmem, (v, text, regs, mem, addr, lane_bits, split), t, regs_member, v)
        else:
            key = (text, texts[mem_member], v.id)
            c.run(key, _rows, (v, text, regs, mem), t, regs_member, v)
    notes = c.notes("copy traits layouts")
    notes += [f"{n} copy traits: {why}" for why, n in sorted(skipped.items())]
    notes.append("tcgen05.ld/st maps: the spec transcribed them from CuTe's copy traits and Triton's layouts "
                 "(the manual's figures are images), so CuTe agreeing with them is no independent evidence")
    return c.findings, c.checked, notes


def _registers_moved(root: Path, b: Binding, sources: dict) -> str:
    """'' when the asm's register operands ({%0, %1} of its template) are the atom's own `copy()`
    parameters; else the first that is not (a temporary the atom then shuffles, as CuTe's
    SM100_U8x8_LDSM_T does to match stmatrix's layout)."""
    text, blocks = _source(root, b.file, sources)
    block = blocks.get(b.line)
    if block is None:
        return ""
    head = text.rfind("copy(", 0, block.offset)
    params = set(re.findall(r"(\w+)\s*[,)]", text[head:text.find(")", head) + 1])) if head >= 0 else set()
    exprs = _operand_exprs(text, block.offset)
    for group in re.findall(r"\{([^}]*)\}", block.template):
        for n in re.findall(r"%(\d+)", group):
            names = set(re.findall(r"\b[A-Za-z_]\w*\b", exprs[int(n)] if int(n) < len(exprs) else ""))
            if not names & params:
                return exprs[int(n)] if int(n) < len(exprs) else f"%{n}"
    return ""


_OPERAND = re.compile(r'"[=+&]*[a-zA-Z]"\s*\(')
def _source(root: Path, rel: str, sources: dict) -> tuple[str, dict]:
    """A file's text and its asm blocks by line (read once per audit)."""
    if rel not in sources:
        text = (root / rel).read_text(encoding="utf-8")
        lines = Lines(text)
        sources[rel] = (text, {lines(blk.offset): blk for blk in asm_blocks(text)})
    return sources[rel]


def _operand_exprs(text: str, offset: int) -> list[str]:
    """The C++ expression of each asm operand, in order (outputs, then inputs)."""
    end = text.find(");", offset)
    out, pos = [], offset
    while True:
        m = _OPERAND.search(text, pos, end if end >= 0 else len(text))
        if not m:
            return out
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += (text[i] == "(") - (text[i] == ")")
            i += 1
        out.append(" ".join(text[m.end():i - 1].split()))
        pos = i


def _split(text: str) -> int:
    """The split offset a .16x32bx2 statement passes (its immediate)."""
    m = _SPLIT.search(text.strip())
    if not m:
        raise Unknown(f"no split offset in `{text}`")
    return int(m.group(1))


def _fragment(v):
    (mat,) = v.fragment_layouts
    return v.fragment_map(mat), v.fragment(mat)


def _element_bits(v, regs: np.ndarray):
    fm, ref = _fragment(v)
    threads, elements = ref.shape[:2]
    if regs.shape != (threads, elements * fm.bits):
        raise NotEvaluable(f"it has {regs.shape[0]} threads x {regs.shape[1]} bits where the spec has {threads} "
                           f"lanes x {elements} elements of {fm.bits} bits")
    return fm.bits, ref, regs.reshape(threads, elements, fm.bits)


def _rows(v, text: str, regs: np.ndarray, mem_layout) -> Finding | None:
    bits, ref, elem = _element_bits(v, regs)
    mem = points(mem_layout)
    size = int(max(elem.max(), mem.max())) + 1
    owner, place = np.full(size, -1), np.full(size, -1)
    for lane in reversed(range(mem.shape[0])):  # of lanes that give the same row, the first
        owner[mem[lane]] = lane
        place[mem[lane]] = np.arange(mem.shape[1])
    o, p = owner[elem], place[elem]
    if (o < 0).any():
        raise NotEvaluable("a register bit comes from no lane's row")
    if (o != o[..., :1]).any() or (p != p[..., :1] + np.arange(bits)).any():
        raise NotEvaluable(f"an element's {bits} bits are not consecutive bits of one row")
    got = np.stack([o[..., 0], p[..., 0] // bits], axis=-1)
    return differ(v, text, got, ref, "movement map (row: the lane whose address names it; column: element)")


def _tmem(v, text: str, regs: np.ndarray, mem_layout, addr: np.ndarray, lane_bits: int, split: int):
    bits, ref, elem = _element_bits(v, regs)
    shape, stride = mem_layout
    if isinstance(shape, int) or len(shape) != 2 or isinstance(stride, int) or len(stride) != 2 or \
            offsets(shape[0], stride[0]).any() or \
            (offsets(shape[1], stride[1]) != np.arange(len(offsets(shape[1], stride[1])))).any():
        raise NotEvaluable("its tensor-memory side is not the tile's bits in order, the same for every thread")
    first = elem[..., 0]
    if first.max() >= len(addr):
        raise NotEvaluable(f"a register bit ({int(first.max())}) lies outside ValID's {len(addr)} bits")
    a = addr[first]
    got = np.stack([a // lane_bits, (a % lane_bits) // 32, a % 32], axis=-1)
    want = np.concatenate([ref, np.zeros(ref.shape[:2] + (1,), dtype=ref.dtype)], axis=-1)
    if "16x32bx2" in v.ptx:  # rows 16-31: lanes 0-15 of the access at the split offset
        high = want[..., 0] >= 16
        want[..., 0] -= 16 * high
        want[..., 1] += split * high
    return differ(v, text, got, want, "tensor-memory map (lane, column, bit)",
                  show=lambda x: f"(lane {int(x[0])}, column {int(x[1])}, bit {int(x[2])})")
