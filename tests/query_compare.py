"""Every answer of the database, before and after a change to how it is stored (run by hand).

    PYTHONPATH=<tree>/generators python3 tests/query_compare.py record OUT.json [--db FILE]
    python3 tests/query_compare.py compare BEFORE.json AFTER.json

`record` runs, with the code on PYTHONPATH and against a database file (default: that tree's
generated/ptxspec.sqlite), a broad sample of `ptxspec query` invocations in every format (filters of
every kind, --target/--ptx, --errata, --variant, --operands, --fragment with --thread/--row/--col,
and the errors they give), the README's SQL, the Datasette canned queries of generated/datasette.json
for sampled parameters, and, for every table and view the database offers users, its columns
(PRAGMA table_info) and a digest of all its rows (fragment_elements: a digest per variant and
operand computed in SQL, and all rows of a sample). It writes a digest of each answer (exit code,
stdout, stderr). `compare` lists the answers that differ; exit 1 if any does.

Run `record` in the tree before the change and in the tree after it: the same invocations (the
sample is drawn from the database's own variant ids, in id order) must give the same answers.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import sqlite3
import sys
from pathlib import Path

FORMATS = ("table", "json", "csv")


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    from ptxspec.cli import main as cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:  # argparse errors
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def invocations(conn: sqlite3.Connection) -> list[list[str]]:
    """The `ptxspec query` argument lists (without --db and --format)."""
    ids = [r[0] for r in conn.execute("SELECT id FROM variants ORDER BY id")]
    families = [r[0] for r in conn.execute("SELECT name FROM families ORDER BY name")]
    targets = [r[0] for r in conn.execute("SELECT name FROM targets ORDER BY name")]
    versions = [r[0] for r in conn.execute("SELECT version FROM ptx_versions ORDER BY ordinal")]
    axes = [r[1] for r in conn.execute("PRAGMA table_info(variants)")]
    runs: list[list[str]] = [[], ["--errata"], *(["--errata", "--family", f] for f in families)]
    runs += [["--family", f] for f in families] + [["--family", "nosuch"], ["--family", "wgmm"]]
    runs += [["--target", t] for t in targets] + [["--target", "sm_99"], ["--ptx", "9.9"]]
    runs += [["--ptx", v] for v in versions]
    runs += [["--target", t, "--ptx", v] for t in targets[::3] for v in versions[::4]]
    runs += [["--target", "sm_90a", "--ptx", "8.2"], ["--target", "sm_75", "--ptx", "6.4"],
             ["--target", "sm_75", "--ptx", "6.5"], ["--family", "wmma", "--target", "sm_75", "--ptx", "6.3"],
             ["--family", "mma", "--target", "sm_120a", "--ptx", "8.7"], ["--target", "sm_100a", "--ptx", "8.6"]]
    filters = [
        ["n=200"], ["n=200", "atype=e4m3"], ["--family", "wgmma", "n=200", "atype=e4m3", "btype=e5m2"],
        ["n>=128", "atype=e4m3,e5m2", "ptx~*sp*"], ["n<16"], ["n>248"], ["n!=8"], ["n<=8", "m=64"],
        ["atype!=f16,bf16", "family=mma"], ["satfinite=1"], ["satfinite=true"], ["sparse=yes"], ["sparse=no"],
        ["form=reg"], ["form=desc", "n=256"], ["min_ptx=8.7"], ["ptx~*kind::*"], ["id~*:desc"], ["k=0x20"],
        ["targets~*sm_120*"], ["requires~*until*"], ["regs~*sp_meta*"], ["hardware~not run*"],
        ["ptxas_only!="], ["grp~*f8f6f4*"], ["batch=2"], ["until_ptx~6*"], ["threads=128"],
        # errors: unknown field, bad integer, unknown value, JSON column compared with =, bad syntax
        ["bogus=1"], ["nn=8"], ["n=abc"], ["atype=e4m33"], ["family=wgmm"], ["targets=sm_90a"], ["n"],
        ["form=register"], ["min_ptx=8.99"],
    ]
    for col in axes:  # every column with its most common non-empty value
        if col in ("id", "ptx", "targets", "requires", "regs", "selectors", "metadata_nibbles"):
            continue
        row = conn.execute(f'SELECT "{col}", count(*) c FROM variants WHERE "{col}" IS NOT NULL AND "{col}" != \'\' '
                           f'GROUP BY 1 ORDER BY c DESC, 1 LIMIT 1').fetchone()
        if row:
            filters.append([f"{col}={row[0]}"])
    runs += filters
    sample = ids[::23]
    runs += [["--variant", i] for i in sample]
    forms = [i.rpartition(":") for i in sample if i.endswith((":reg", ":desc"))]
    runs += [["--variant", opcode, "--form", form] for opcode, _, form in forms]
    runs += [["--variant", opcode] for opcode, _, _ in forms[::4]]  # ambiguous without --form
    runs += [["--variant", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.bogus"], ["--variant", "nosuch"],
             ["--variant", "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e4m3.e4m3.f32"]]
    runs += [["--variant", i, "--operands"] for i in ids[::11]]
    runs += [["--family", "wgmma", "n=256", "sparse=0", "--operands"], ["--family", "mma", "m=8", "--operands"],
             ["n=8", "--operands"], ["n=3", "--operands"]]
    frag_sample = ids[::41]
    for i in frag_sample:
        ops = [r[0] for r in conn.execute("SELECT name FROM operands WHERE variant_id = ? AND layout_id IS NOT NULL "
                                          "ORDER BY position", (i,))]
        for op in ops:
            runs.append(["--variant", i, "--fragment", op])
            runs.append(["--variant", i, "--fragment", op, "--thread", "5"])
            runs.append(["--variant", i, "--fragment", op, "--row", "3"])
            runs.append(["--variant", i, "--fragment", op, "--row", "7", "--col", "1"])
        runs.append(["--variant", i, "--fragment", "nosuch"])
    wg = "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"
    runs += [["--variant", wg, "--form", "reg", "--fragment", "d", "--thread", "37"],
             ["--variant", wg, "--form", "reg", "--fragment", "d", "--thread", "128"],
             ["--variant", wg, "--form", "reg", "--fragment", "d", "--row", "64"],
             ["--family", "wgmma", "n=200", "atype=e4m3", "--fragment", "d", "--row", "17", "--col", "5"],
             ["--family", "mma", "m=16", "n=8", "k=16", "--fragment", "a", "--thread", "3"],
             ["--fragment", "d"], ["--row", "3"]]
    return runs


def sql_answers(conn: sqlite3.Connection, root: Path) -> dict[str, str]:
    """Digests of SQL answers: the README's queries, the canned queries, every user-visible table."""
    out: dict[str, str] = {}
    readme = (root / "README.md").read_text(encoding="utf-8")
    for n, block in enumerate(re.findall(r"```sql\n(.*?)```", readme, re.S)):
        out[f"sql:readme:{n}"] = _digest(conn.execute(block).fetchall())
    canned = json.loads((root / "generated" / "datasette.json").read_text())["databases"]["ptxspec"]["queries"]
    ids = [r[0] for r in conn.execute("SELECT id FROM variants ORDER BY id")][::17]
    ptxs = sorted({r[0] for r in conn.execute("SELECT ptx FROM variants")})[::13]
    sparsities = conn.execute("SELECT DISTINCT sparsity, m, k, selector FROM sparsity_metadata ORDER BY 1, 2, 3, 4").fetchall()
    params: dict[str, list[dict]] = {
        "which_thread_holds": [dict(variant_id=i, operand=o, row=r, col=c) for i in ids[::3]
                               for o in ("a", "b", "c", "d", "r") for r, c in ((0, 0), (5, 3), (17, 5))],
        "thread_holds": [dict(variant_id=i, operand=o, thread=t) for i in ids[::3] for o in ("a", "d", "r")
                         for t in (0, 37)],
        "valid_on_target": [dict(target=t, ptx=p) for t in ("sm_75", "sm_90a", "sm_100a", "sm_120f")
                            for p in ("6.4", "8.0", "8.7", "9.5")],
        "requirements_of_opcode": [dict(ptx=p) for p in ptxs],
        "register_signature": [dict(variant_id=i) for i in ids],
        "metadata_nibble": [dict(sparsity=s, m=m, k=k, selector=sel, row=r, chunk=c) for s, m, k, sel in sparsities
                            for r, c in ((0, 0), (3, 1), (9, 2))],
        "errata_list": [{}],
    }
    for name, q in canned.items():
        for p in params.get(name, [{}]):
            out[f"sql:canned:{name}:{json.dumps(p, sort_keys=True)}"] = _digest(conn.execute(q["sql"], p).fetchall())
    # every table and view a user sees (the names of the database before the change: internal tables
    # a change adds are not answers)
    names = [r[0] for r in conn.execute("SELECT object FROM descriptions WHERE column_name = '' ORDER BY object")]
    for name in names:
        out[f"sql:descriptions:{name}"] = _digest(conn.execute(
            "SELECT column_name, description FROM descriptions WHERE object = ? ORDER BY column_name", (name,)).fetchall())
        if name in ("descriptions", "provenance"):
            continue
        info = [(r[1], (r[2] or "").upper()) for r in conn.execute(f"PRAGMA table_info({name})")]
        out[f"sql:columns:{name}"] = _digest(info)
        if name == "fragment_elements":
            continue
        cols = ", ".join(f'"{c}"' for c, _ in info)
        out[f"sql:rows:{name}"] = _digest(conn.execute(f"SELECT {cols} FROM {name} ORDER BY {cols}").fetchall())
    for key, value in conn.execute("SELECT key, value FROM provenance"):
        out[f"sql:provenance:{key}"] = _digest(value)
    # values compared as text: the columns' affinity converts them (Datasette binds filters as text)
    for i in ids[::40]:
        for sql in ("SELECT count(*) FROM fragment_elements WHERE variant_id = ? AND row = '3' AND col = '1'",
                    "SELECT count(*) FROM fragment_elements WHERE variant_id = ? AND thread = '5'",
                    "SELECT count(*) FROM operands WHERE variant_id = ? AND regs = '1'",
                    "SELECT count(*) FROM variant_targets WHERE variant_id = ? AND min_ptx = 8.0"):
            out[f"sql:affinity:{sql}:{i}"] = _digest(conn.execute(sql, (i,)).fetchall())
    for sql in ("SELECT count(*) FROM layout_elements WHERE layout_id = '3' AND row = '2' AND element = '1'",
                "SELECT count(*) FROM variants WHERE n = '200' AND satfinite = '0'",
                "SELECT count(*) FROM numerics_status WHERE cases = '782'",
                "SELECT count(*) FROM variant_evidence WHERE outputs = '0'"):
        out[f"sql:affinity:{sql}"] = _digest(conn.execute(sql).fetchall())
    # fragment_elements: per variant and operand, count and two sums of an injective code of each row
    code = "((((thread * 1031 + reg) * 1031 + slot) * 1031 + row) * 1031 + col)"
    agg = conn.execute(f"SELECT variant_id, operand, count(*), sum({code}), sum(({code} % 1000003) * ({code} % 999983)) "
                       "FROM fragment_elements GROUP BY variant_id, operand ORDER BY variant_id, operand").fetchall()
    out["sql:fragment_elements:aggregate"] = _digest(agg)
    out["sql:fragment_elements:count"] = _digest(conn.execute("SELECT count(*) FROM fragment_elements").fetchall())
    for i in ids[::5]:
        out[f"sql:fragment_elements:{i}"] = _digest(conn.execute(
            "SELECT * FROM fragment_elements WHERE variant_id = ? ORDER BY operand, thread, reg, slot", (i,)).fetchall())
    return out


def record(path: Path, db: Path | None) -> None:
    import ptxspec
    root = Path(ptxspec.__file__).resolve().parents[2]
    db = db or root / "generated" / "ptxspec.sqlite"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    answers: dict[str, str] = {}
    runs = invocations(conn)
    for argv in runs:
        for fmt in FORMATS:
            full = ["query", "--db", str(db), *argv, "--format", fmt]
            rc, out, err = _cli(full)
            answers["query " + " ".join([*argv, "--format", fmt])] = _digest(rc, out, err.replace(str(db), "DB"))
    answers.update(sql_answers(conn, root))
    path.write_text(json.dumps(answers, indent=0, sort_keys=True) + "\n")
    print(f"{path}: {len(runs) * len(FORMATS)} ptxspec query invocations, {len(answers) - len(runs) * len(FORMATS)} "
          f"SQL answers, from {db}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    missing = sorted(set(a) - set(b))
    differ = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    for k in missing:
        print(f"missing after: {k}")
    for k in differ:
        print(f"differs: {k}")
    print(f"{len(a)} answers before, {len(b)} after: {len(differ)} differ, {len(missing)} missing")
    return 1 if differ or missing else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "record":
        db = Path(argv[3]) if len(argv) == 4 and argv[2] == "--db" else None
        record(Path(argv[1]), db)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
