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


def test_json_answers_hold_what_the_database_holds():
    """The JSON composed by SQLite has the content of the decoded rows (keys, order, values, types)."""
    from ptxspec.query.database import Database
    db = Database.open(ROOT / "generated" / "ptxspec.sqlite")
    got = json.loads(cli("query", "--target", "sm_90a", "--ptx", "8.0", "--format", "json").stdout)
    want = db.variants(target="sm_90a", ptx="8.0")
    assert len(got) > 1000 and got == want
    assert [list(r) for r in got[:3]] == [list(r) for r in want[:3]]  # key order too
    assert all(isinstance(r["satfinite"], bool) and isinstance(r["targets"], list) for r in got)
    vid = "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:reg"
    got = json.loads(cli("query", "--variant", vid, "--fragment", "d", "--format", "json").stdout)
    assert got == db.fragment(vid, "d") and len(got) == 128 * 128


def test_table_and_csv_of_every_variant_match_the_rows():
    from ptxspec.query.database import Database
    db = Database.open(ROOT / "generated" / "ptxspec.sqlite")
    rows = db.variants()
    table = cli("query").stdout.splitlines()
    assert table[-1] == f"({len(rows)} rows)" and len(table) == len(rows) + 2
    first = table[1].split()
    assert first[0] == rows[0]["ptx"] and ",".join(rows[0]["targets"]) in first
    csv_lines = cli("query", "--format", "csv").stdout.splitlines()
    assert len(csv_lines) == len(rows) + 1 and csv_lines[0].startswith("id,family,instruction,ptx,form")


def test_fragment_coordinates_out_of_range_say_the_range():
    vid = "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:reg"  # D: 64 x 256 on 128 threads
    for flag, value, text in (("--row", "99", "rows 0 to 63"), ("--col", "256", "cols 0 to 255"),
                              ("--thread", "128", "threads 0 to 127"), ("--row", "-1", "rows 0 to 63")):
        proc = cli("query", "--variant", vid, "--fragment", "d", flag, value)
        assert proc.returncode == 2 and text in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    proc = cli("query", "--variant", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "--fragment", "a",
               "--thread", "40")
    assert proc.returncode == 2 and "threads 0 to 31" in proc.stderr


def test_variants_json_is_json_object_of_every_column_byte_for_byte():
    """The view variants_json joins stored runs of members (ptxspec.query.json_parts): its text is
    what SQLite's json_object writes over the columns of variants, byte for byte, in the same order."""
    from ptxspec.query.database import BOOLEAN_COLUMNS, JSON_COLUMNS, Database
    db = Database.open(ROOT / "generated" / "ptxspec.sqlite")

    def value(col):
        if col in JSON_COLUMNS:
            return f'json(v."{col}")'
        return f"""json(CASE WHEN v."{col}" THEN 'true' ELSE 'false' END)""" if col in BOOLEAN_COLUMNS else f'v."{col}"'
    pairs = ", ".join(f"'{c}', {value(c)}" for c in db.columns("variants"))
    want = [r[0] for r in db.execute(f"SELECT json_object({pairs}) FROM variants v ORDER BY family, instruction, id",
                                     plain=True)]
    assert len(want) > 4000 and db.variants_json() == want
    sm90a = db.execute(f"SELECT json_object({pairs}) FROM variants v JOIN variant_targets t ON t.variant_id = v.id "
                       "AND t.target = 'sm_90a' ORDER BY family, instruction, id", plain=True)
    chunks = list(db.variants_json_utf8(target="sm_90a", size=100))
    assert [len(c) for c in chunks[:-1]] == [100] * (len(chunks) - 1) and 0 < len(chunks[-1]) <= 100
    assert [text for c in chunks for text in c] == [r[0].encode() for r in sm90a]


def _argparse_or_error(argv):
    import contextlib
    import io

    from ptxspec.cli.main import parser
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(parser().parse_args(argv))
        except SystemExit:
            return None


def test_the_quick_parse_of_a_query_is_argparse_s_or_none():
    """quick_query_args answers only command lines argparse parses, and as argparse does; the rest
    (help, errors, abbreviations, --opt=value, ...) go to argparse."""
    import random

    from ptxspec.cli.main import QUERY_OPTIONS, quick_query_args
    words = [flag for flag, _ in QUERY_OPTIONS] + ["--tar", "--format=json", "-h", "--help", "--", "-", "-1", "", "1",
                                                   "x", "json", "csv", "xml", "row", "load", "n=200", "atype=e4m3",
                                                   "sm_90a", "8.0", "query", "--spec", "1e3", " 7"]
    rng = random.Random(28)
    argvs = [["query", "--target", "sm_90a", "--format", "json"], ["query", "n=200", "atype=e4m3"],
             ["query", "--format", "csv", "n=200", "--row", "3"], ["query", "n=1", "--errata", "n=2"]]
    argvs += [["query", *rng.choices(words, k=rng.randint(0, 6))] for _ in range(3000)]
    quick = 0
    for argv in argvs:
        got = quick_query_args(argv)
        want = _argparse_or_error(argv)
        if got is not None:
            quick += 1
            assert want is not None and vars(got) == want and list(vars(got)) == list(want), argv
    assert quick_query_args(argvs[0]) is not None and quick_query_args(argvs[1]) is not None
    assert quick_query_args(argvs[3]) is None and quick > 300, quick  # two runs of filters: argparse's error


def test_a_parser_with_one_command_s_options_reads_as_the_whole():
    """`main` builds only the options of the commands a command line names: the help of the whole,
    and of each command, is the same either way."""
    from ptxspec.cli.main import COMMANDS, parser
    whole = parser()
    assert parser(set()).format_help() == whole.format_help()
    subs = next(a for a in whole._actions if a.choices and "query" in a.choices).choices
    for name in COMMANDS:
        one = parser({name})
        mine = next(a for a in one._actions if a.choices and name in a.choices).choices
        assert mine[name].format_help() == subs[name].format_help(), name
