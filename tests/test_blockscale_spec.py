"""Block scaling through the spec and everything generated from it, against the manual's figures
(transcribed in tests/test_blockscale.py, not derived from the spec):

* the scale-factor maps of spec/layouts (`scale_maps`) in the database (`scale_factors`), in
  `ptxspec query --scale`, in the docs' figures and in the C headers' constexpr maps;
* the executor's API for the scale operands (`scale_a`/`scale_b` registers, `sel_a`/`sel_b`
  tuples) and its errors;
* numerics_status: every `.kind` variant modelled, none without a model, the status and the
  rules' sources saying what the model rests on (the forms MMA-Sim measured, transcribed below from
  its kernel list, and the zero rule); `ptxspec query numerics=...`;
* a broken scale map is a load error with its position.
"""
import itertools
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptxspec.semantics import blockscale as bs
from ptxspec.semantics.execute import execute_kind
from ptxspec.semantics import numerics as nm
from ptxspec.semantics import numerics_status
from ptxspec.core.errors import SpecError
from ptxspec.core.paths import default_database
from test_blockscale import MANUAL_BYTES, MANUAL_SFA_LANES, MANUAL_SFB_LANES, block_scaled

ROOT = Path(__file__).resolve().parents[1]
V4X = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"


def manual_rows(v) -> set[tuple]:
    """(operand, byte_id, thread_id, thread, byte, row, col, k_block, k_first, k_last) of the figures."""
    out = set()
    sv = int([q for q in v.ptx.split(".") if q.startswith("scale_vec::")][0][11]) if "scale_vec::" in v.ptx \
        else (1 if "kind::mxf8f6f4" in v.ptx else 2)
    block = v.k // sv
    for operand, lanes_by_tid in (("scale_a", MANUAL_SFA_LANES), ("scale_b", MANUAL_SFB_LANES)):
        for byte_id, tid in itertools.product(MANUAL_BYTES[sv], lanes_by_tid):
            for lane, index in lanes_by_tid[tid].items():
                for j, byte in enumerate(MANUAL_BYTES[sv][byte_id]):
                    row, col = (index, None) if operand == "scale_a" else (None, index)
                    out.add((operand, byte_id, tid, lane, byte, row, col, j, j * block, j * block + block - 1))
    return out


@pytest.fixture(scope="module")
def db():
    con = sqlite3.connect(f"file:{default_database()}?mode=ro", uri=True)
    yield con
    con.close()


def test_database_scale_factors_are_the_manual_figures(spec, db):
    for v in block_scaled(spec):
        got = set(db.execute("SELECT operand, byte_id, thread_id, thread, byte, row, col, k_block, k_first, k_last "
                             "FROM scale_factors WHERE variant_id = ?", (v.id,)))
        assert got == manual_rows(v), v.id
    described = {r[0] for r in db.execute("SELECT column_name FROM descriptions WHERE object = 'scale_factors'")}
    assert {"row", "col", "thread", "byte", "k_block", "byte_id", "thread_id"} <= described
    unscaled = [v.id for v in spec.variants if v.qualifiers.get("kind") and not v.qualifiers.get("block_scale")
                and nm.computes_product(v)]
    assert not db.execute("SELECT count(*) FROM scale_factors WHERE variant_id = ?", (unscaled[0],)).fetchone()[0]


def _cli(*args) -> str:
    out = subprocess.run([sys.executable, "-m", "ptxspec", *args], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_query_who_holds_a_scale_and_what_a_byte_covers():
    rows = json.loads(_cli("query", "--variant", V4X, "--scale", "scale_a", "--row", "13", "--k", "40", "--format", "json"))
    want = {(lane, 2) for tid, lanes in MANUAL_SFA_LANES.items() for lane, r in lanes.items() if r == 13}
    assert {(r["thread"], r["byte"]) for r in rows} == want and all(r["k_first"] == 32 for r in rows)
    rows = json.loads(_cli("query", "--variant", V4X, "--scale", "scale_b", "--thread", "21", "--byte", "3",
                           "--format", "json"))
    assert [(r["thread_id"], r["col"], r["k_block"]) for r in rows] == [(1, 5, 3)]
    bad = subprocess.run([sys.executable, "-m", "ptxspec", "query", "--variant", V4X, "--scale", "scale_a", "--row", "16"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode != 0 and "row 16 is out of range" in bad.stderr


#: The .kind forms MMA-Sim ran on an RTX Blackwell (sm_120a, mma.sync), transcribed from its kernel
#: list (github.com/microsoft/MMA-Sim 1727461, mmasim/kernels/nv_rtxblackwell.py: "m16n8k32.f8f6f4.
#: f32.e5m2.e5m2.f32", "m16n8k32.mxf8f6f4.block32.f32.e4m3.e4m3.f32.ue8m0", "m16n8k64.mxf4.block32...",
#: "m16n8k64.mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3", ...), as PTX spells them (block32 is 1X for
#: mxf8f6f4, 2X for the fp4 kinds, with or without `.scale_vec`; block16 is 4X).
MMASIM_SM120 = {f"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.{d}.{t}.{t}.{d}" for d in ("f32", "f16")
                for t in ("e4m3", "e5m2")} | \
    {f"mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale{sv}.f32.{t}.{t}.f32.ue8m0"
     for sv in ("", ".scale_vec::1X") for t in ("e4m3", "e5m2")} | \
    {f"mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale{sv}.f32.e2m1.e2m1.f32.ue8m0"
     for sv in ("", ".scale_vec::2X")} | \
    {"mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
     "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"}
MEASURED = "modelled (MMA-Sim measured this form on sm_120a; zeros: the H100 rule); not run on hardware"
UNMEASURED = "modelled (MMA-Sim's sm_120a rule; this form not measured; zeros: the H100 rule); not run on hardware"


def test_numerics_status_models_every_kind_variant(spec, db):
    kinds = [v for v in spec.variants if v.qualifiers.get("kind") and nm.computes_product(v)]
    assert len(kinds) == 290
    status = dict(db.execute("SELECT variant_id, status FROM numerics_status"))
    assert {v.ptx for v in kinds} >= MMASIM_SM120 and len(MMASIM_SM120) == 12
    for v in kinds:  # what MMA-Sim measured, and the zero rule, in the status of every .kind variant
        assert status[v.id] == (MEASURED if v.ptx in MMASIM_SM120 else UNMEASURED), v.id
    models = dict(db.execute("SELECT variant_id, model FROM numerics_status"))
    assert {models[v.id] for v in kinds if v.qualifiers.get("kind") in ("kind::mxf4", "kind::mxf4nvf4")
            and v.qualifiers.get("block_scale")} == {"fdpa_groups"}
    for pos, basis, source in db.execute("SELECT DISTINCT r.position, r.basis, r.source FROM numerics_status s "
                                         "JOIN numerics_rules r ON r.position = s.rule JOIN variants v "
                                         "ON v.id = s.variant_id WHERE v.kind != '' AND v.m IS NOT NULL"):
        assert basis == "published" and "MMA-Sim" in source and "2511.10909" in source
    out = _cli("query", f"numerics={MEASURED}", "--format", "json")
    assert {r["ptx"] for r in json.loads(out)} == MMASIM_SM120
    sm100 = numerics_status.PUBLISHED_AS.format(bs.SM100_STATUS)
    held = {r["id"] for r in json.loads(_cli("query", f"numerics={sm100}", "--format", "json"))}
    assert held and {v.semantics for v in spec.variants if v.id in held} == {"tmem_mma"}  # tcgen05.mma's kinds
    assert {spec._by_id[i].qualifiers["kind"] for i in held} == {"kind::f8f6f4", "kind::mxf8f6f4", "kind::mxf4",
                                                                  "kind::mxf4nvf4"}
    assert not [v.id for v in kinds if status[v.id] == "no model"]


def test_kind_params_are_the_spec_rules(spec):
    """blockscale.kind_params (for callers without a variant, tcgen05's kinds) states the rules of
    spec/numerics.yaml; they must agree for every .kind variant."""
    for v in spec.variants:
        kind = v.qualifiers.get("kind")
        if kind and nm.computes_product(v):
            want = bs.from_numerics(nm.params(v))
            got = bs.kind_params(kind.removeprefix("kind::"), bool(v.qualifiers.get("block_scale")), v.dtype)
            assert (got.path, got.F, got.round, got.zero_exp) == (want.path, want.F, want.round, want.zero_exp), v.id
            if got.path == "groups":
                assert got.group == want.group


def test_executor_takes_scale_registers_and_selectors(spec):
    v = spec.variant(V4X)
    rng = np.random.default_rng(4)
    regs = {x: rng.integers(0, 1 << 32, (2, 32, v.operand(x).regs), dtype=np.uint64).astype(np.uint32) for x in "abc"}
    sa = (rng.integers(0, 0x7F, (2, 32, 1)) * 0x01010101).astype(np.uint32)
    sb = (rng.integers(0, 0x7F, (2, 32, 1)) * 0x01010101).astype(np.uint32)
    d = v.execute(**regs, scale_a=sa, scale_b=sb, sel_a=(0, 1), sel_b=(0, 3))
    assert np.array_equal(d, execute_kind(v, **regs, scale_a=sa, scale_b=sb, sel_a=(0, 1), sel_b=(0, 3)))
    with pytest.raises(ValueError, match=r"sel_a.byte_id = 2 is not one of \[0\]"):
        v.execute(**regs, scale_a=sa, scale_b=sb, sel_a=(2, 0), sel_b=(0, 0))
    with pytest.raises(ValueError, match=r"sel_b is a tuple \(byte_id, thread_id\)"):
        v.execute(**regs, scale_a=sa, scale_b=sb, sel_a=(0, 0), sel_b=0)
    with pytest.raises(TypeError, match="operand 'sel_a' .* is missing"):
        v.execute(**regs, scale_a=sa, scale_b=sb)
    with pytest.raises(ValueError, match=r"scale_a holds one register per thread: shaped \(32,\) or \(32, 1\)"):
        v.execute(**regs, scale_a=sa[..., :16, :], scale_b=sb, sel_a=(0, 0), sel_b=(0, 0))
    with pytest.raises(bs.ScaleError, match="is not a .ue4m3 code"):
        v.execute(**regs, scale_a=np.full((2, 32, 1), 0x80808080, np.uint32), scale_b=sb, sel_a=(0, 0), sel_b=(0, 0))


def _figure_cells(root):
    import test_docs
    for c, texts, _ in test_docs._cells(root):
        t, b = re.fullmatch(r"T(\d+)", texts[0]), re.fullmatch(r"byte (\d)", texts[1])
        yield int(t[1]), int(b[1]), int(c["row"]), int(c["col"])


def test_docs_draw_every_scale_map_as_the_manual_does(spec):
    import xml.etree.ElementTree as ET
    from ptxspec.emit import docs
    built = docs.build(spec)
    figs = {p: ET.fromstring(b) for p, b in built.items() if p.endswith(".svg") and "/scale-" in p}
    assert len(figs) == 42  # distinct drawings: dense and sparse K share theirs
    seen = set()
    for path, root in figs.items():
        a = {k[5:]: v for k, v in root.attrib.items() if k.startswith("data-")}
        sv, bid, tid = int(a["vectors"]), int(a["byte-id"]), int(a["thread-id"])
        lanes = (MANUAL_SFA_LANES if a["matrix"] == "a" else MANUAL_SFB_LANES)[tid]
        want = {(lane, byte, index, j) if a["matrix"] == "a" else (lane, byte, j, index)
                for lane, index in lanes.items() for j, byte in enumerate(MANUAL_BYTES[sv][bid])}
        assert set(_figure_cells(root)) == want, path
        seen.add((a["matrix"], sv, bid, tid))
    assert len(seen) == sum(len(MANUAL_BYTES[sv]) * (2 + 4) for sv in (1, 2, 4))  # every selector of every map
    page = built["docs/mma/scale.md"].decode()
    assert "## mma.scale.a, 4X" in page and "selector {0, 1}" in page
    group = built["docs/mma/mma.md"].decode()
    assert "| `scale_a` | scale | `mma.scale.a` |" in group and MEASURED in group and UNMEASURED in group


@pytest.mark.full
def test_c_header_scale_maps_are_the_manual_figures(tmp_path):
    """ptxspec::scale::<map><M, N, K, VECTORS> and frag::<variant>::scale_a, checked by static_assert."""
    try:
        from ptxspec.oracle.ptxas import find_ptxas
        nvcc = Path(find_ptxas()).with_name("nvcc")
    except Exception:  # noqa: BLE001
        pytest.skip("no nvcc wheel")
    if not nvcc.is_file():
        pytest.skip("no nvcc beside ptxas")
    checks = []
    for tid, lanes in MANUAL_SFA_LANES.items():
        for lane in range(32):
            sup = "true" if lane in lanes else "false"
            checks.append(f"static_assert(A::supplies({lane}, {tid}) == {sup}, \"\");")
            if lane in lanes:
                checks.append(f"static_assert(A::index({lane}, {tid}) == {lanes[lane]}, \"\");")
    for tid, lanes in MANUAL_SFB_LANES.items():
        for lane, col in lanes.items():
            checks.append(f"static_assert(B::supplies({lane}, {tid}) && B::index({lane}, {tid}) == {col}, \"\");")
    for j, byte in enumerate(MANUAL_BYTES[4][0]):
        checks.append(f"static_assert(A::byte(0, {j}) == {byte}, \"\");")
    src = tmp_path / "scale.cu"
    src.write_text('#include "ptxspec_common.h"\n'
                   "using A = ptxspec::scale::mma_scale_a<16, 8, 64, 4>;\nusing B = ptxspec::scale::mma_scale_b<16, 8, 64, 4>;\n"
                   "static_assert(A::block == 16 && A::vectors == 4 && A::matrix == 'a', \"\");\n"
                   + "\n".join(checks) + "\nint main() { return 0; }\n")
    out = subprocess.run([str(nvcc), "-std=c++17", "-I", str(default_database().parent / "c"), "-c", str(src), "-o",
                          str(tmp_path / "scale.o")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    header = (default_database().parent / "c" / "ptxspec_mma.h").read_text()
    assert "using scale_a = scale::mma_scale_a<16, 8, 64, 4>;" in header


def test_a_scale_map_that_is_not_a_bijection_is_a_load_error(tmp_path):
    from ptxspec import load
    tree = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", tree)
    lay = tree / "layouts" / "mma.yaml"
    text = lay.read_text()
    assert 'index: "t//4 + 8*(t%2)"' in text
    lay.write_text(text.replace('index: "t//4 + 8*(t%2)"', 'index: "t//4"'))
    with pytest.raises(SpecError) as exc:
        load(tree)
    msg = str(exc.value)
    line = text[:text.index("  mma.scale.a:")].count("\n") + 1
    assert f"layouts/mma.yaml:{line}:" in msg and "scale map mma.scale.a" in msg and "is held 2 times" in msg


def test_docs_show_the_status_beside_each_kind_variant(spec):
    """Every .kind variant's row on its instruction page ends with its numerics status, the
    modelled one (none of them was run on hardware), and how-to-read.md says what that status means."""
    docs = default_database().parent / "docs"
    rows = {}
    for page in docs.glob("*/*.md"):
        text = page.read_text()
        for line in text.splitlines():
            m = re.match(r"\| `([^`]+)` \|", line)
            if m:
                rows[m[1]] = (line, text)
    kinds = [v for v in spec.variants if v.qualifiers.get("kind") and nm.computes_product(v)]
    for v in kinds:
        line, _ = rows[v.ptx]
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[-1] == (MEASURED if v.ptx in MMASIM_SM120 else UNMEASURED) and "bit-exact" not in line, v.ptx
    how = (docs / "how-to-read.md").read_text()
    assert f"*{MEASURED}* (" in how and f"*{UNMEASURED}* (" in how and "MMA-Sim compared bit for bit" in how


def _scale_vec_from_ptx(ptx: str) -> int:
    """The manual: .scale_vec::NX as written, else 1X for mxf8f6f4 and 2X for mxf4."""
    m = re.search(r"\.scale_vec::(\d)X", ptx)
    return int(m[1]) if m else 1 if "kind::mxf8f6f4" in ptx else 2


def test_every_block_scaled_variant_has_its_maps_in_headers_and_docs(spec):
    """Each of the 110 block-scaled variants: its C struct names the scale maps of its shape and
    .scale_vec, and its group's operand table links the scale figures of that .scale_vec."""
    gen = default_database().parent
    headers = "\n".join(p.read_text() for p in sorted((gen / "c").glob("*.h")))
    structs = dict(re.findall(r"^struct (\w+) : shape<[\d, ]+> \{(.*?)\};$", headers, re.M))  # frag::<name>, one line
    pages = "\n".join(p.read_text() for p in sorted((gen / "docs").glob("*/*.md")))
    groups = pages.split("\n## ")
    vs = block_scaled(spec)
    assert len(vs) == 110
    for v in vs:
        sv = _scale_vec_from_ptx(v.ptx)
        body = structs[re.sub(r"[.:]+", "_", v.ptx)]
        for mat in "ab":
            assert f"using scale_{mat} = scale::mma_scale_{mat}<{v.m}, {v.n}, {v.k}, {sv}>;" in body, v.ptx
        group = next(g for g in groups if f"| `{v.ptx}` |" in g)
        for mat in "ab":
            assert re.search(rf"\| `scale_{mat}` \| scale \| `mma\.scale\.{mat}` \| \[mma\.scale\.{mat}, {sv}X, "
                             rf"selector \{{0, 0\}}\]\(scale\.md\) · \[svg\]\(\.\./figures/scale-mma\.scale\.{mat}-{sv}x-", group), v.ptx


def test_no_variant_is_left_without_a_model(spec, db):
    """Issue 12: numerics_status has no `no model` row. The rows that were (outside the .kind forms)
    now say what ptxas makes of them: forms beyond the manual that compute nothing on any target,
    and the float .satfinite wmma forms PTX ISA 6.5 removed, modelled on ptxas's sm_75 code. (Of
    the forms whose types a descriptor selects, tcgen05.mma .kind::ti16 has no descriptor layout in
    the spec yet: tests/test_tcgen05_execute.py holds it to `no model`.)"""
    assert not db.execute("SELECT s.variant_id FROM numerics_status s JOIN variants v ON v.id = s.variant_id "
                          "WHERE s.status = 'no model' AND v.m IS NOT NULL").fetchall()
    by = dict(db.execute("SELECT status, count(*) FROM numerics_status GROUP BY status").fetchall())
    assert by[nm.NO_ARITHMETIC] == 48 and by[numerics_status.UNMEASURED["sass"]] == 48
