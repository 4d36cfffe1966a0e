"""`ptxspec query` and the database, against the manual's own formulas and the README."""
import json
import random
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from ptxspec.query.database import Database, QueryError

ROOT = Path(__file__).resolve().parents[1]
DB = ROOT / "generated" / "ptxspec.sqlite"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "ptxspec", "query", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def db():
    return Database.open(DB)


def manual_d_position(n_bits: int, r: int, c: int):
    """PTX ISA 9.7.15.5.1.1, accumulator D: warp w holds rows 16w..16w+15; within the warp lane
    4*g + q holds rows g and g+8, columns 8j + 2q and 8j + 2q + 1 of every 8-column block j as
    elements d[4j..4j+3] = (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1)."""
    warp, rr = divmod(r, 16)
    g, upper = rr % 8, rr // 8
    j, cc = divmod(c, 8)
    q, low = divmod(cc, 2)
    thread = 32 * warp + 4 * g + q
    element = 4 * j + 2 * upper + low
    per_reg = 32 // n_bits
    return thread, element // per_reg, element % per_reg


def test_which_thread_holds_d_matches_manual(db):
    rng = random.Random(7)
    rows = db.conn.execute("SELECT id, n, dtype FROM variants WHERE instruction LIKE 'wgmma.mma_async%'").fetchall()
    for vid, n, dtype in rng.sample(rows, 60):
        r, c = rng.randrange(64), rng.randrange(n)
        got = db.fragment(vid, "d", row=r, col=c)
        assert len(got) == 1, (vid, r, c)
        bits = 16 if dtype == "f16" else 32
        assert (got[0]["thread"], got[0]["reg"], got[0]["slot"]) == manual_d_position(bits, r, c), (vid, r, c)


def test_what_thread_holds_via_cli():
    proc = cli("--variant", "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "--form", "reg",
               "--fragment", "d", "--thread", "37", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 8  # N/2 elements per thread
    for row in rows:
        assert manual_d_position(16, row["row"], row["col"]) == (37, row["reg"], row["slot"])


def test_target_and_ptx_validity_semantics(db):
    def count(**kw):
        return len(db.variants(family="wgmma", **kw))
    assert count(target="sm_90a", ptx="7.8") == 0  # sm_90a does not exist before PTX 8.0
    dense = count(target="sm_90a", ptx="8.0")
    assert dense == count(filters=["instruction!=wgmma.mma_async.sp", "min_ptx=8.0"])
    assert count(target="sm_90a", ptx="8.2") == dense + count(filters=["sparse=1", "min_ptx=8.2"])
    assert count(target="sm_90a", ptx="9.5") == count()
    assert count(target="sm_90", ptx="9.5") == 0 and count(target="sm_100a", ptx="9.5") == 0


def test_filters_on_any_column_and_operators(db):
    got = db.variants(["n>=240", "n<256", "atype=s8,u8", "form=reg", "satfinite=true", "sparse=0"])
    assert {r["n"] for r in got} == {240} and len(got) == 4
    assert all(r["ptx"].endswith("s8") or r["ptx"].endswith("u8") for r in got)
    assert db.variants(["ptx~*m64n*k256*xor*"]) == []  # wgmma has no .xor.popc


@pytest.mark.parametrize("bad, needle", [
    ("nn=8", "did you mean 'n'"), ("n=eight", "integer"), ("dtype=f128", "values:"),
    ("atype=f16' OR '1'='1", "no atype"), ("n=8; DROP TABLE variants", "integer"),
    ("id=x\" OR 1=1 --", None), ("m", "FIELD=VALUE"), ("targets=sm_90a", "JSON"),
])
def test_bad_input_is_one_clear_line(bad, needle):
    proc = cli(bad)
    if needle is None:  # a strange but well-formed value: no match, no error, nothing injected
        assert proc.returncode == 0 and "(0 rows)" in proc.stdout
        return
    assert proc.returncode == 2, proc.stdout
    assert needle in proc.stderr and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert sqlite3.connect(DB).execute("SELECT count(*) FROM variants").fetchone()[0] > 0


def test_query_error_lists_valid_fields(db):
    with pytest.raises(QueryError, match="fields: id, family"):
        db.variants(["bogus=1"])
    with pytest.raises(QueryError, match="has no register fragment 'b'"):
        db.fragment("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16:reg", "b")


def test_every_table_and_column_is_described(db):
    described = {(o, c) for o, c in db.conn.execute("SELECT object, column_name FROM descriptions")}
    objects = db.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").fetchall()
    assert objects
    for (name,) in objects:
        assert (name, "") in described, name
        for col in db.conn.execute(f"PRAGMA table_info({name})"):
            assert (name, col[1]) in described, (name, col[1])


def test_provenance_names_the_spec(db):
    prov = dict(db.conn.execute("SELECT key, value FROM provenance"))
    assert re.fullmatch(r"[0-9a-f]{64}", prov["spec_sha256"]) and prov["generator"].startswith("ptxspec ")


def _readme_blocks(lang):
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_readme_queries_run():
    commands = [line for block in _readme_blocks("sh") for line in block.splitlines()
                if line.startswith("ptxspec query")]
    assert len(commands) >= 3
    for line in commands:
        argv = shlex.split(line.split("#")[0])
        proc = subprocess.run([sys.executable, "-m", "ptxspec", *argv[1:]], capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 0 and proc.stdout.strip(), (line, proc.stderr)
    sql_blocks = _readme_blocks("sql")
    assert sql_blocks
    conn = sqlite3.connect(DB)
    for block in sql_blocks:
        assert conn.execute(block).fetchall(), block


def test_every_qualifier_is_a_column(db, spec):
    """Each qualifier axis of the model is a column of `variants`, filled for the variants that have it."""
    cols = db.columns("variants")
    for q in spec.axes:
        assert q in cols, q
        want = sum(1 for v in spec.variants if v.qualifiers.get(q))
        got = db.conn.execute(f"SELECT count(*) FROM variants WHERE {q} != ''").fetchone()[0]
        assert got == want, q
    rz = [r for r in db.variants(["rnd=rz"]) if r["family"] == "mma"]  # wmma spells layouts before the shape
    assert {r["ptx"].split(".")[3] for r in rz} == {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"}


def test_columns_hold_the_schema_types():
    """A string column holds text (a declared type without TEXT affinity would turn '8.4' into 8.4)."""
    import json
    schema = json.loads((ROOT / "schema" / "database.schema.json").read_text())["$defs"]
    conn = sqlite3.connect(DB)
    for table, t in schema.items():
        if "x-view" in t:
            continue
        cols = list(t["properties"])
        # a view joined from other tables (x-from: fragment_elements is 21 million rows) copies its
        # columns from tables checked in full here: a sample of its rows shows the same classes
        rows = f"(SELECT * FROM {table} LIMIT 200000)" if "x-from" in t else table
        seen = conn.execute(f"SELECT DISTINCT {', '.join(f'typeof({c})' for c in cols)} FROM {rows}").fetchall()
        for i, col in enumerate(cols):  # one scan per table: the column's storage classes
            p = t["properties"][col]
            kinds = {"string": {"text"}, "integer": {"integer"}}[p["type"] if isinstance(p["type"], str)
                                                                 else next(x for x in p["type"] if x != "null")]
            got = {r[i] for r in seen} - {"null"}
            assert got <= kinds, (table, col, got)


def test_ptx_filter_honours_removed_forms():
    """.satfinite on .f16 wmma.mma was removed in PTX 6.5: valid on sm_75 at 6.3 and 6.4, not after."""
    from ptxspec.query.database import Database
    db = Database.open(DB)
    sat = "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite"
    for ptx, present in (("6.3", True), ("6.4", True), ("6.5", False), ("9.5", False)):
        ids = {r["ptx"] for r in db.variants(family="wmma", target="sm_75", ptx=ptx)}
        assert (sat in ids) == present, ptx
        assert (sat in {r["ptx"] for r in db.variants(family="wmma", ptx=ptx)}) == present, ptx
