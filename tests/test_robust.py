"""Hostile input that the bad-spec corpus cannot hold (special files, links, permissions, damaged
databases, templates, command-line paths): every case ends in exit 0, 1 or 2 with one located
line per problem, never a signal, a hang, a traceback or a file written where it should not be.

Each case here failed before issue 18 (a crash, a hang, silence or a stray write).
"""
from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import ptxspec
import pytest
from ptxspec.core.errors import SpecError
from ptxspec.query.database import DATABASE_VERSION, Database, QueryError

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec"
DB = ROOT / "generated" / "ptxspec.sqlite"
LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: error: \S.*$")
#: hang guards, not speed limits (a command this long is stuck, however busy the machine): what these
#: tests look for is an error or a refusal, not a time
TIMEOUT = 600


def run(*args, cwd=None, timeout=TIMEOUT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", "ptxspec", *args], capture_output=True, text=True, errors="replace",
                          cwd=cwd or ROOT, timeout=timeout, env=env)


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "spec"
    shutil.copytree(SPEC, root)
    return root


def problems(root: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        ptxspec.load(root)
    return [f"{os.path.relpath(p.pos.path, root)}:{p.pos.line}: {p.message}" for p in info.value.problems]


# -- special files in a spec tree ------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_like_a_spec_file_is_an_error_not_a_hang(tree):
    target = tree / "families" / "wmma" / "load_a.yaml"
    target.unlink()
    os.mkfifo(target)
    proc = run("--spec", str(tree), "validate")  # it used to block until killed (the hang guard ends it)
    assert proc.returncode == 1, proc.stderr
    assert "load_a.yaml:1:1: error: cannot read: not a regular file (a FIFO)" in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_link_to_a_device_is_not_read(tree):
    (tree / "families" / "zero.yaml").symlink_to("/dev/zero")
    assert problems(tree) == ["families/zero.yaml:1: cannot read: not a regular file (a character device)"]


def test_links_loops_and_directories(tree):
    (tree / "loop.yaml").symlink_to("loop.yaml")
    (tree / "broken.yaml").symlink_to("nowhere.yaml")
    (tree / "families" / "again").symlink_to(tree / "families")  # a directory cycle
    found = problems(tree)
    assert found[0].startswith("broken.yaml:1: a broken symbolic link")
    assert found[1] == "families/again:1: a symbolic link to a directory: spec trees hold real directories " \
                       "(links are not followed)"
    assert found[2].startswith("loop.yaml:1: cannot read:")
    assert len(found) == 3


def test_link_to_a_regular_file_is_read(tree):
    real = tree / "families" / "wgmma" / "fence.yaml"
    moved = tree.parent / "fence.yaml"
    real.rename(moved)
    real.symlink_to(moved)
    assert sorted(ptxspec.load(tree).instructions) == sorted(ptxspec.load(SPEC).instructions)


def test_unreadable_file_is_a_located_error(tree, monkeypatch):
    """(Root reads anything, so the permission error is simulated where the loader opens files.)"""
    from ptxspec.core import files
    victim = str(tree / "types.yaml")
    real_open = os.open

    def deny(path, *args, **kwargs):
        if os.fspath(path) == victim:
            raise PermissionError(13, "Permission denied", victim)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", deny)
    assert problems(tree) == ["types.yaml:1: cannot read: Permission denied"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_file_and_directory_by_permission(tree):
    (tree / "types.yaml").chmod(0)
    (tree / "smem").chmod(0)
    try:
        found = problems(tree)
    finally:
        (tree / "types.yaml").chmod(0o644)
        (tree / "smem").chmod(0o755)
    assert "types.yaml:1: cannot read: Permission denied" in found
    assert "smem:1: cannot read directory: Permission denied" in found


def test_oversized_file_is_refused_before_parsing(tree):
    (tree / "families" / "wgmma" / "fence.yaml").write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    found = problems(tree)
    assert len(found) == 1 and "spec files stay under" in found[0], found


# -- the commands ------------------------------------------------------------------------------

@pytest.mark.full
def test_build_without_out_writes_beside_the_given_spec(tree):
    before = {p: p.stat().st_mtime_ns for p in (ROOT / "generated").rglob("*") if p.is_file()}
    proc = run("--spec", str(tree), "build", cwd=tree.parent)
    assert proc.returncode == 0, proc.stderr
    assert (tree.parent / "generated" / "ptxspec.sqlite").is_file()
    after = {p: p.stat().st_mtime_ns for p in (ROOT / "generated").rglob("*") if p.is_file()}
    assert after == before, "build --spec OTHER wrote into the repository's generated/"


@pytest.mark.full
def test_build_into_an_unwritable_place_is_one_clear_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory\n")
    proc = run("build", "--out", str(blocker / "out"))
    assert proc.returncode == 2, proc.stderr
    assert re.fullmatch(rf"ptxspec build: error: cannot write {re.escape(str(blocker / 'out'))}: .+\n", proc.stderr), \
        proc.stderr
    assert blocker.read_text() == "not a directory\n"


def test_render_into_an_unwritable_place_is_a_located_error(tmp_path):
    template = tmp_path / "t.j2"
    template.write_text("{{ variants | length }}\n")
    out = tmp_path / "missing" / "out.txt"
    proc = run("render", str(template), "--out", str(out))
    assert proc.returncode == 1, proc.stderr
    assert re.fullmatch(rf"{re.escape(str(out))}:1:1: error: .+\n", proc.stderr), proc.stderr
    assert not (tmp_path / "missing").exists()


# -- query on any database ---------------------------------------------------------------------

@pytest.fixture
def damaged(tmp_path):
    def make(kind: str) -> Path:
        path = tmp_path / f"{kind}.sqlite"
        if kind == "truncated":
            path.write_bytes(DB.read_bytes()[: DB.stat().st_size // 2])
        elif kind == "foreign":
            conn = sqlite3.connect(path)
            conn.execute("CREATE TABLE variants (id TEXT)")
            conn.commit()
            conn.close()
        elif kind == "text":
            path.write_text("hello, I am not a database\n")
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "garbled":
            data = bytearray(DB.read_bytes())
            for off in range(8192, len(data), 65536):
                data[off:off + 256] = b"\xde\xad\xbe\xef" * 64
            path.write_bytes(bytes(data))
        elif kind in ("bad_json", "deep_json", "newer", "blob"):
            shutil.copyfile(DB, path)
            conn = sqlite3.connect(path)
            if kind == "bad_json":  # (variants is a view over these tables; variants_json joins their json)
                conn.execute("""UPDATE signatures SET regs = '{not json', json = '"regs":{not json'""")
            elif kind == "blob":  # fuzz seed 23, query 173604: --format json died on bytes (exit 3)
                conn.execute("UPDATE variant_rows SET k = X'00ff', ptx = X'00ff'")
            elif kind == "deep_json":
                conn.execute("UPDATE requirements SET targets = ?, json = ?", ("[" * 100_000, '"targets":' + "[" * 100_000))
            else:
                conn.execute("PRAGMA user_version = 99")
            conn.commit()
            conn.close()
        return path
    return make


@pytest.mark.parametrize("kind", ["truncated", "foreign", "text", "empty", "garbled", "bad_json", "deep_json",
                                  "newer", "blob"])
@pytest.mark.parametrize("fmt", ["json", "csv", "table"])  # csv and table read columns without the row decoder
def test_query_on_a_damaged_or_foreign_database_is_one_clear_line(damaged, kind, fmt):
    path = damaged(kind)
    proc = run("query", "--db", str(path), "--family", "wgmma", "--format", fmt)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "ptxspec build" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_one_variant_of_a_database_holding_blobs_is_one_clear_line(damaged, fmt):
    """The one-variant path decodes rows in Python: a BLOB is named, never printed or a traceback."""
    proc = run("query", "--db", str(damaged("blob")), "--format", fmt, "--variant",
               "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "--form", "reg")
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "holds binary data (a BLOB)" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


@pytest.mark.parametrize("args, needle", [
    (["n=9999999999999999999"], "out of range"),
    (["n=" + "9" * 5000], "not an integer"),
    ([f"n={i}" for i in range(500)], "at most 64"),
    (["n=" + ",".join(map(str, range(5000)))], "filter values"),
    (["ptx~" + "*a" * 200], "wildcards"),
    (["--variant", "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "--form", "reg", "--fragment", "d",
      "--row", str(1 << 70)], "out of range"),
])
def test_hostile_query_arguments_are_usage_errors(args, needle):
    proc = run("query", *args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_database_path_with_uri_characters_is_opened_read_only(tmp_path):
    odd = tmp_path / "we#ird?name%20.sqlite"
    shutil.copyfile(DB, odd)
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run("query", "--db", str(odd), "--family", "wgmma", "n=8", "atype=f16")
    assert proc.returncode == 0, proc.stderr
    assert "(8 rows)" in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no stray file from a mangled URI
    db = Database.open(odd)
    with pytest.raises(QueryError, match="damaged or not a ptxspec database"):
        db.execute("DELETE FROM variants")  # read-only


def test_database_api_checks_the_layout_version(damaged):
    with pytest.raises(QueryError, match=f"layout version 99; this ptxspec reads version {DATABASE_VERSION}"):
        Database.open(damaged("newer"))


# -- render in a sandbox -----------------------------------------------------------------------

@pytest.mark.parametrize("body, needle", [
    ("{{ cycler.__init__.__globals__.os.popen('id').read() }}", "unsafe"),
    ("{{ lipsum.__globals__['os'].system('true') }}", "unsafe"),
    ("{% for i in range(10**9) %}{% endfor %}", "range of 1000000000 items is beyond the sandbox's limit"),
    ("{{ spec.variants.clear() }}", "unsafe"),
    ("{{ types.pop('f16') }}", "unsafe"),
    ("{{ spec.variant('mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32').fragment_map('d').row.fill(0) }}", "unsafe"),
    ("{{ 'x' * 10**10 }}", "beyond the sandbox's limit"),
    ("{{ 10 ** 100000 }}", "beyond the sandbox's limits"),
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursion limit"),
    ("{{ 1 // 0 }}", "ZeroDivisionError"),
    ("{{ spec.variant('no.such.opcode') }}", "no variant 'no.such.opcode'"),
])
def test_render_runs_templates_in_a_sandbox(tmp_path, body, needle):
    template = tmp_path / "t.j2"
    template.write_text("first line\n" + body + "\n")
    proc = run("render", str(template), "--out", str(tmp_path / "out.txt"))
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert re.fullmatch(rf"{re.escape(str(template))}:2:1: error: .*\n", proc.stderr), proc.stderr
    assert needle in proc.stderr, proc.stderr
    assert not (tmp_path / "out.txt").exists()


def test_render_leaves_the_model_as_it_was(tmp_path):
    from ptxspec.emit.user_template import RenderError, render
    spec = ptxspec.load()
    mma = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    count, fragment = len(spec.variants), mma.fragment("d").copy()
    for body in ("{{ spec.variants.clear() }}", "{{ spec.variant('mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32').fragment_map('d').row.fill(0) }}",
                 "{{ types.clear() }}"):
        template = tmp_path / "t.j2"
        template.write_text(body)
        with pytest.raises(RenderError, match="unsafe"):
            render(spec, template)
    assert len(spec.variants) == count and len(spec.types) > 10
    assert (mma.fragment("d") == fragment).all()


def test_render_of_a_non_utf8_template_is_located(tmp_path):
    template = tmp_path / "t.j2"
    template.write_bytes(b"\xff\xfe{{ x }}\n")
    proc = run("render", str(template))
    assert proc.returncode == 1
    assert LOCATED.match(proc.stderr.strip()) and "not UTF-8" in proc.stderr, proc.stderr


# -- diff keeps to 0, 1, 2 ------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_diff_of_a_revision_with_an_absolute_link_in_spec(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SPEC, repo / "spec")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    (repo / "spec" / "families" / "link.yaml").symlink_to("/etc/hostname")
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "link"], check=True)
    (repo / "spec" / "families" / "link.yaml").unlink()
    proc = run("--spec", str(repo / "spec"), "diff", "HEAD", cwd=repo)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "cannot read its spec/" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
