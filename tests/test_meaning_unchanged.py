"""Issue 29's measure of the spec-language rewrite: it changed no fact. The databases built before it
(e40298b, main before the rewrite landed) and after it (0ce5db1, the rewrite with its one deliberate
correction and that correction's erratum) hold the same rows in every table and view users read,
group names aside (the rewrite named groups anew), but for that correction: tcgen05.mma's
integer-kind scale_input_d states the manual's 0-15 (commit 5b53278; erratum
tcgen05-scale-input-d-range) where it stated no range. Tables new since (the ptxas recordings and
their column descriptions) are additions, not changes.

Both databases are the committed ones (git show REV:generated/ptxspec.sqlite), compared by SQLite
(tests/compare_databases.py). A clone without that history cannot run it. The view
fragment_elements (21 million rows, 80 s to compare) is the join of two views compared here,
operands (each operand's layout and elements per register) and layout_elements (each layout's
map): the test checks that it is that join on both sides, and compares its parts.
"""
from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from compare_databases import compare

pytestmark = pytest.mark.full

ROOT = Path(__file__).resolve().parents[1]
BEFORE, AFTER = "e40298b", "0ce5db1"
#: fragment_elements, as both databases define it: operand rows (compared: the view operands) joined
#: with the elements of their layouts (compared: the view layout_elements)
DERIVED = ('CREATE VIEW "fragment_elements" AS SELECT v.id AS "variant_id", o.name AS "operand", e."thread", '
           'e.element / o.per_reg AS "reg", e.element % o.per_reg AS "slot", e."row", e."col" FROM variant_rows v '
           'JOIN signature_operands s ON s.signature = v.signature JOIN operand_defs o ON o.id = s.operand '
           'JOIN layout_elements e ON e.layout_id = o.layout_id')
NEW_TABLES = {"ptxas_recordings", "ptxas_results", "ptxas_sets", "variant_ptxas"}


def _database(rev: str, where: Path) -> Path:
    done = subprocess.run(["git", "show", f"{rev}:generated/ptxspec.sqlite"], cwd=ROOT, capture_output=True)
    if done.returncode:
        pytest.skip(f"revision {rev} is not in this clone ({done.stderr.decode().strip()})")
    path = where / f"{rev}.sqlite"
    path.write_bytes(done.stdout)
    return path


def test_the_rewrite_changed_no_fact_but_the_stated_correction(tmp_path):
    old, new = _database(BEFORE, tmp_path), _database(AFTER, tmp_path)
    for db in (old, new):
        (view,) = sqlite3.connect(db).execute("SELECT sql FROM sqlite_master WHERE name = 'fragment_elements'").fetchone()
        assert view == DERIVED, view
    diffs = compare(old, new, {"variants.grp", "variant_rows.grp"}, examples=1000, skip={"fragment_elements"})
    assert set(diffs) == {"operands", "errata", "descriptions"} | NEW_TABLES, sorted(diffs)
    for table in NEW_TABLES:
        assert diffs[table][0][1] == (f"{table}: only in NEW",)
    # the column descriptions added are those of the new tables and of the stored variant rows' new
    # reference to them (variant_rows.ptxas); no description changed
    (gone, _), (added, rows) = diffs["descriptions"]
    assert gone == 0 and added == len(rows)
    assert {r[0] for r in rows if r[0] not in NEW_TABLES} == {"variant_rows"}
    assert [r[1] for r in rows if r[0] == "variant_rows"] == ["ptxas"]
    # one erratum added, the correction's; none changed or removed
    (gone, _), (added, rows) = diffs["errata"]
    assert (gone, added) == (0, 1) and rows[0][0] == "tcgen05-scale-input-d-range"
    # the correction: 24 operand rows, scale_input_d of the integer kinds, whose legal values were none
    # and are 0-15; every other column of those rows as it was
    (n_old, old_rows), (n_new, new_rows) = diffs["operands"]
    assert n_old == n_new == 24
    columns = [r[1] for r in sqlite3.connect(new).execute("PRAGMA table_info(operands)")]
    at = columns.index("legal_values")
    key = lambda r: tuple(x for i, x in enumerate(r) if i != at)  # noqa: E731
    assert sorted(map(key, old_rows)) == sorted(map(key, new_rows))
    assert all(r[columns.index("name")] == "scale_input_d" and r[at] is None for r in old_rows)
    assert all(r[at] == str(list(range(16))) for r in new_rows)
    assert all(("kind::i8" in r[0] or "kind::ti16" in r[0]) for r in new_rows)
