"""Database reads have a time budget (issue 30, item 11): a crafted database whose `variants` view
is an endless recursive CTE (application id and layout version kept, so every check passes) made
`query --variant ... --fragment d --row 1 --col 1` run forever. SQLite's progress handler now stops
any statement past its budget with a one-line error that says how to raise it. The budget is set
to nothing here, against work that has no end: nothing depends on the machine's speed.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ptxspec.query.budget import QUERY_SECONDS_ENV
from ptxspec.query.database import Database, QueryError

ROOT = Path(__file__).resolve().parents[1]
DB = ROOT / "generated" / "ptxspec.sqlite"
BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


@pytest.fixture(scope="module")
def endless(tmp_path_factory) -> Path:
    """The real database with `variants` replaced by a view that recurses without end."""
    path = tmp_path_factory.mktemp("crafted") / "endless.sqlite"
    shutil.copyfile(DB, path)
    conn = sqlite3.connect(path)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'variants'").fetchone()[0]
    conn.executescript("DROP VIEW variants; " + sql.replace('VIEW "variants"', "VIEW variants_real", 1) + "; "
                       "CREATE VIEW variants AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                       "SELECT v.* FROM variants_real v JOIN r ON r.x < 0;")
    conn.commit()
    conn.close()
    return path


def test_an_endless_view_is_stopped_by_the_budget(endless):
    db = Database(sqlite3.connect(endless), "endless")
    db.seconds = 0
    with pytest.raises(QueryError, match=f"time budget of 0 s.*{QUERY_SECONDS_ENV}"):
        db.execute("SELECT id FROM variants WHERE id = ?", (BF16,))


def test_the_query_command_stops_with_a_clear_error(endless):
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "query", "--db", str(endless), "--variant", BF16,
                           "--fragment", "d", "--row", "1", "--col", "1"], capture_output=True, text=True,
                          env={**os.environ, QUERY_SECONDS_ENV: "0"}, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ptxspec query: error:") and QUERY_SECONDS_ENV in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1


def test_the_budget_leaves_real_queries_alone():
    db = Database.open(DB)
    assert len(db.execute("SELECT id FROM variants")) > 4000
    assert db.seconds is not None and db.seconds > 0


@pytest.mark.parametrize("bad", ["x", "-1", "nan", "inf"])
def test_a_bad_budget_is_a_clear_error(monkeypatch, bad):
    monkeypatch.setenv(QUERY_SECONDS_ENV, bad)
    with pytest.raises(QueryError, match=QUERY_SECONDS_ENV):
        Database.open(DB).execute("SELECT 1")
