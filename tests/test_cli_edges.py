"""Sharp edges of the CLI a new user hit (issue 15), each against what the database itself holds."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "ptxspec", *args], capture_output=True, text=True, cwd=ROOT)


def test_version():
    import ptxspec
    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout == f"ptxspec {ptxspec.__version__}\n"


def test_one_row_is_one_row():
    proc = cli("query", "id=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    assert proc.stdout.splitlines()[-1] == "(1 row)"
    assert cli("query", "n=3").stdout.splitlines()[-1] == "(0 rows)"


def test_errata_table_shows_the_evidence():
    """`query --errata` promises the evidence: every piece of every erratum's evidence is printed."""
    rows = json.loads(cli("query", "--errata", "--format", "json").stdout)
    text = " ".join(cli("query", "--errata").stdout.split())
    assert rows and text.endswith(f"({len(rows)} errata)")
    for r in rows:
        assert r["id"] in text and " ".join(r["truth"].split()) in text
        for kind, value in r["evidence"].items():
            assert f"evidence, {kind}:" in text
            for item in value if isinstance(value, list) else [value]:
                assert " ".join(item.split()) in text, (r["id"], kind)
