"""The ldmatrix family (ldmatrix, stmatrix, movmatrix) against independent truth.

* ptxas 13.5: the committed first-principles survey (campaigns/survey/survey_ldmatrix.py, 61,744
  candidates) says which opcodes exist, with how many registers, from which PTX version on which
  target; the spec must say exactly that. Near misses (a qualifier one step off, built in
  tests/ptxas_checks.py) are rejected: the recording ldmatrix-near-misses, replayed in the quick
  tier, judged again by ptxas in the full tier.
* The maps: the manual's text and figures as transcribed in tests/test_loaders.py (with CuTe's
  SM100 atoms for the 16x16, 8x16 and 16x8 forms); the forms sm_90a runs are also proven by the
  H100 records (tests/test_device_records_ldmatrix.py), the others must say `not run`.
* The executors: stores undo loads, movmatrix twice is the identity, and the 4/6-bit forms
  unpack the packed rows into their containers.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import test_loaders as manual

ROOT = Path(__file__).resolve().parents[1]
SURVEY = json.loads((ROOT / "campaigns" / "survey" / "ldmatrix-ptxas-13.5.json").read_text())


@pytest.fixture(scope="module")
def family(spec):
    return [v for v in spec.variants if v.family == "ldmatrix"]


def test_variants_are_what_ptxas_accepts(family):
    """82 opcodes; ptxas's .x8/.x16 (accepted by its checks, compiled as .x1) are not forms."""
    by = {o["opcode"]: o for o in SURVEY["opcodes"]}
    assert sorted(v.ptx for v in family) == sorted(by)
    for v in family:
        o = by[v.ptx]
        fragments = [x for x in v.operands if x.kind == "fragment"]
        assert all(x.regs == o["regs"] for x in fragments), v.id
    assert all(".x8." in o["opcode"] or ".x16." in o["opcode"] for o in SURVEY["frontend_only"]["opcodes"])


def test_first_versions_and_targets_are_the_surveys(spec, family):
    by = {o["opcode"]: o for o in SURVEY["opcodes"]}
    for v in family:
        want = by[v.ptx]["first_ptx"]
        assert set(v.targets) == set(want), v.id
        for t, first in want.items():
            assert str(v.requirement.first_ptx(spec.targets[t])) == first, (v.id, t)


def test_x8_is_a_ptxas_defect_not_a_form(spec):
    """ptxas 13.5 lets .x8 through its checks with one register (erratum ldmatrix-x8-x16-pass-ptxas,
    the recording ldmatrix-x8); the spec has no such variant."""
    assert "ldmatrix-x8-x16-pass-ptxas" in {e.id for e in spec.errata}
    assert not any(".x8." in v.ptx or ".x16." in v.ptx for v in spec.variants
                   if v.instruction in ("ldmatrix", "stmatrix"))  # (tcgen05.ld has its own .x8/.x16 .num)


def _transcribed(v):
    """The manual's map for a variant's form, as tests/test_loaders.py transcribes it."""
    num = v.qualifiers["num"]
    if v.m == 8 and v.n == 8:
        return manual.m8n8(num if v.instruction != "movmatrix" else "x1", v.qualifiers.get("trans") == "trans")
    if v.instruction == "stmatrix":
        return manual.m16n8_store(num)
    et = v.spec.types[v.element_type(next(iter(v.fragment_layouts)))]
    packed = et.bits if et.packed_elements else 0
    shift = et.container_shift if packed else 0
    return manual.m16n16(num, packed, shift) if v.m == 16 else manual.m8n16(num, packed, shift)


def test_maps_are_the_manuals(spec, family):
    """Every form's fragment map, register bit by register bit, is the transcription of the manual."""
    from ptxspec.model import fragment_loaders as L
    for v in family:
        for mat in v.fragment_layouts:
            fm = v.fragment_map(mat)
            et = spec.types[v.element_type(mat)]
            packed = et.bits if et.packed_elements else 0
            got = L.movement_map(v.ptx, fm.row, fm.col, fm.bits, packed, et.container_shift if packed else 0)
            if v.instruction == "movmatrix":
                want = manual.m8n8("x1", False)
            else:
                want = _transcribed(v)
            assert np.array_equal(got.lane, want.lane) and np.array_equal(got.rowbit, want.rowbit), (v.id, mat)


def test_forms_sm90a_cannot_run_are_flagged(family):
    for v in family:
        if "sm_90a" in v.targets:
            assert v.hardware == "H100", v.id
        else:
            assert v.hardware.startswith("not run"), v.id


def test_cute_16x16_byte_order(spec):
    """CuTe's SM100_U8x8_LDSM_T reorders the bytes of ldmatrix.m16n16.x1.trans so that its reference
    layout matches stmatrix.m16n8.x2.trans: undoing the reorder on CuTe's layout must give the
    spec's map. CuTe's destination layout (thread (4,8):(256,8), value (8,2,2,2):(1,128,64,1024))
    puts byte v1 + 2 v2 of its register v3 at bit 256 q + 8 g + 128 v1 + 64 v2 + 1024 v3 of a
    16 x 16-byte reference whose 128-bit rows are given by source threads p = p0 + 2 p1 + 4 p2 at row
    p0 + 8 p1 + 2 p2; after the copy its dst0 = (tmp0.b0, tmp0.b1, tmp1.b0, tmp1.b1),
    dst1 = (tmp0.b2, tmp0.b3, tmp1.b2, tmp1.b3)."""
    v = spec.variant("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8")
    fm = v.fragment_map("d")
    row_of_chunk = {p0 + 8 * p1 + 2 * p2: p0 + 2 * p1 + 4 * p2 for p0 in (0, 1) for p1 in (0, 1) for p2 in range(4)}
    # raw register r, byte k <- CuTe (register v3, byte j) per the shuffle
    unshuffle = {(0, 0): (0, 0), (0, 1): (0, 1), (1, 0): (0, 2), (1, 1): (0, 3),
                 (0, 2): (1, 0), (0, 3): (1, 1), (1, 2): (1, 2), (1, 3): (1, 3)}
    for t in range(32):
        q, g = t % 4, t // 4
        for (r, k), (v3, j) in unshuffle.items():
            v1, v2 = j % 2, j // 2
            bit = 256 * q + 8 * g + 128 * v1 + 64 * v2 + 1024 * v3
            chunk, byte = bit // 128, (bit % 128) // 8
            i = 4 * r + k
            assert (fm.row[t, i], fm.col[t, i]) == (row_of_chunk[chunk], byte), (t, r, k)


# ---------------------------------------------------------------------------------------------
# The executors
def _spaces(family, instruction):
    return [v for v in family if v.instruction == instruction and not v.qualifiers.get("space")]


def test_store_then_load_is_the_identity(spec, family):
    """For each stmatrix form, ldmatrix of the same shape, count and .trans reads back the registers."""
    rng = np.random.default_rng(3)
    loads = {(v.m, v.n, v.qualifiers.get("num"), v.qualifiers.get("trans", "")): v for v in _spaces(family, "ldmatrix")
             if v.dtype in ("b16", "b8")}
    pairs = 0
    for st in _spaces(family, "stmatrix"):
        ld = loads.get((st.m, st.n, st.qualifiers.get("num"), st.qualifiers.get("trans", "")))
        if ld is None:
            continue
        regs = rng.integers(0, 2**32, size=(32, st.regs["r"]), dtype=np.uint64).astype(np.uint32)
        p = (rng.permutation(256)[:32] * 16 + 0x100).astype(np.int64)
        mem = st.execute(r=regs, p=p, mem=np.zeros(8192, np.uint8))
        assert np.array_equal(ld.execute(p=p, mem=mem), regs), st.id
        pairs += 1
    assert pairs == 6  # m8n8 x1/x2/x4, with and without .trans


def test_movmatrix_twice_is_the_identity(spec):
    v = spec.variant("movmatrix.sync.aligned.m8n8.trans.b16")
    a = np.random.default_rng(5).integers(0, 2**32, size=(3, 32, 1), dtype=np.uint64).astype(np.uint32)
    assert np.array_equal(v.execute(a=v.execute(a=a)), a)


@pytest.mark.parametrize("fmt, bits, shift, pad", [("b6x16_p32", 6, 0, 32), ("b4x16_p64", 4, 2, 64)])
def test_unpacking_forms(spec, fmt, bits, shift, pad):
    """.m8n16: each 16-byte row holds 16 packed elements (then `pad` bits of padding, filled with
    ones here: they must not show); lane t receives elements 4q..4q+3 of row g, each in its 8-bit
    container at bit `shift`."""
    v = spec.variant(f"ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.{fmt}")
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 1 << bits, size=(8, 16))
    mem = np.zeros(8 * 32, np.uint8)
    p = np.arange(32, dtype=np.int64) * 32  # rows 32 bytes apart; lanes 8.. name rows that are not read
    for r in range(8):
        word = sum(int(c) << (bits * i) for i, c in enumerate(codes[r])) | (((1 << pad) - 1) << (16 * bits))
        mem[32 * r:32 * r + 16] = np.frombuffer(word.to_bytes(16, "little"), np.uint8)
    got = v.execute(p=p, mem=mem)
    for t in range(32):
        g, q = t // 4, t % 4
        want = sum(int(codes[g, 4 * q + k]) << (8 * k + shift) for k in range(4))
        assert int(got[t, 0]) == want, t


def test_loader_rows_for_every_product_fragment(spec):
    """Every register fragment of every mma/mma.sp/wgmma variant has answers for both storages."""
    for v in spec.variants:
        if v.semantics != "mma":
            continue
        rows = v.loaders()
        frags = {o.matrix for o in v.operands if o.kind == "fragment" and o.matrix in v.fragment_layouts
                 and v.fragment_layouts[o.matrix][0].normative}  # wmma's observed maps: no contract
        assert {r.operand for r in rows} == frags, v.id
        for r in rows:
            assert (r.status == "ok") == bool(r.form) and (r.status == "ok") != bool(r.reason), (v.id, r)


def test_the_database_answers_as_the_model(spec):
    """The fragment_loaders view of generated/ptxspec.sqlite holds exactly the model's rows."""
    import sqlite3
    from collections import Counter
    conn = sqlite3.connect(ROOT / "generated" / "ptxspec.sqlite")
    db = Counter(conn.execute("SELECT variant_id, operand, storage, direction, status, form, instructions, row, col, "
                              "reason, evidence FROM fragment_loaders"))
    api = Counter((r.variant_id, r.operand, r.storage, r.direction, r.status, r.form, r.instructions, r.row, r.col,
                   r.reason, r.evidence) for v in spec.variants for r in v.loaders())
    assert db == api


def test_query_answers_the_question():
    """`how do I load A of mma m16n8k16 .f16 from a row-major tile?` - the loader the H100 ran
    (campaigns/notes/2026-11-23-ldmatrix.md, sample k16-f16-rowA-colB) comes first."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "ptxspec", "query", "--loader", "a", "--storage", "row", "--format",
                          "json", "--family", "mma", "m=16", "n=8", "k=16", "atype=f16", "dtype=f32", "sparse=0"],
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.strip().splitlines()] if not out.startswith("[") else json.loads(out)
    first = rows[0]
    assert (first["form"], first["instructions"], first["row"], first["col"], first["evidence"]) == (
        "ldmatrix.sync.aligned.m8n8.x4.b16", 1, "(lane & 15)", "8*((lane >> 4) & 1)", "maps proven on H100")


def test_docs_show_the_loaders_on_each_product_page(spec):
    """Each group section of every mma / mma.sp / wgmma page whose variants have register fragments
    with a stated map carries the loader table; the mma .m16n8k16 .f16 page (and mma.sp .m16n8k32
    .f16's, whose packed A is the same 16 x 16) give the loader the H100 ran for A from a row-major tile (campaign 2026-11-23-ldmatrix, sample k16-f16-rowA-colB:
    `.x4`, lane l addresses row l % 16, column 8 (l / 16))."""
    import re
    docs = ROOT / "generated" / "docs"
    pages = {v.instruction: docs / v.family / f"{v.instruction}.md" for v in spec.variants if v.loaders()}
    assert {"mma", "mma.sp", "wgmma.mma_async", "wgmma.mma_async.sp"} <= set(pages)
    for instruction, page in pages.items():
        sections = re.split(r"^## ", page.read_text(), flags=re.M)[1:]
        groups = {g for v in spec.variants if v.instruction == instruction and v.loaders() for g in [v.group]}
        shown = {s.split("\n", 1)[0].strip() for s in sections if "Moving the fragments between registers" in s}
        assert shown == groups, (instruction, sorted(groups ^ shown)[:5])
    row = ("| A | row-major | load | `ldmatrix.sync.aligned.m8n8.x4.b16` | 1 | `(lane & 15)` | `8*((lane >> 4) & 1)` "
           "| maps proven on H100 |")
    for name in ("mma/mma.md", "mma/mma.sp.md"):
        assert row in (docs / name).read_text(), name
