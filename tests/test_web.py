"""`ptxspec serve` end to end: Datasette on 127.0.0.1, canned queries over HTTP, pages in Chromium."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from ptxspec.emit.datasette import CANNED

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("datasette")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
VID = "wgmma.mma_async.sync.aligned.m64n200k32.f32.e4m3.e4m3:reg"
PARAMS = {
    "which_thread_holds": {"variant_id": VID, "operand": "d", "row": 17, "col": 5},
    "thread_holds": {"variant_id": VID, "operand": "d", "thread": 38},
    "valid_on_target": {"target": "sm_90a", "ptx": "8.1"},
    "requirements_of_opcode": {"ptx": "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8"},
    "register_signature": {"variant_id": VID},
    "metadata_nibble": {"sparsity": "wgmma.sparse.16bit", "m": 64, "k": 32, "selector": 1, "row": 17, "chunk": 5},
    "errata_list": {},
    "scale_holder": {"variant_id": "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1"
                     ".e2m1.f32.ue4m3", "operand": "scale_a", "index": 13, "k": 40},
}


#: a hang guard, not a speed limit: a server that takes this long to start, answer or stop is stuck
HANG_GUARD = 300


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port):
    proc = subprocess.Popen([sys.executable, "-m", "ptxspec", "serve", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + HANG_GUARD
    while time.time() < deadline:
        try:
            urllib.request.urlopen(base + "/-/versions.json", timeout=1)
            return proc, base
        except OSError:
            if proc.poll() is not None:
                pytest.fail(proc.stderr.read().decode())
            time.sleep(0.2)
    proc.kill()
    pytest.fail("datasette did not start")


def _descendants(pid):
    """Every live process below pid (from /proc)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - out
        out |= frontier
    return out


@pytest.fixture(scope="module")
def server():
    proc, base = _start(_free_port())
    yield base
    proc.terminate()
    proc.wait(timeout=HANG_GUARD)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_and_leaves_no_process(sig):
    port = _free_port()
    proc, base = _start(port)
    before = _descendants(proc.pid)
    proc.send_signal(sig)
    try:
        proc.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("ptxspec serve did not stop")
    left = [p for p in before if os.path.exists(f"/proc/{p}")]
    for p in left:  # clean up what a broken serve leaves, then fail
        os.kill(p, signal.SIGKILL)
    assert not left, f"processes left running: {left}"
    with pytest.raises(OSError):
        urllib.request.urlopen(base + "/-/versions.json", timeout=2)


def get_json(url):
    with urllib.request.urlopen(url, timeout=HANG_GUARD) as r:
        return json.load(r)


def test_bound_to_loopback_only(server):
    port = int(server.rsplit(":", 1)[1])
    out = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout if shutil.which("ss") else ""
    listening = [line for line in out.splitlines() if f":{port} " in line]
    assert all("127.0.0.1:" in line for line in listening)


def test_every_canned_query_is_exercised():
    assert set(PARAMS) == set(CANNED)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_canned_query(server, name):
    qs = urllib.parse.urlencode({**PARAMS[name], "_shape": "array"})
    rows = get_json(f"{server}/ptxspec/{name}.json?{qs}")
    assert rows, name
    if name == "which_thread_holds":  # manual: lane 4g+q of warp w holds D[16w+g][8j+2q(+1)]
        assert rows == [{"thread": 38, "reg": 1, "slot": 0}]
    if name == "thread_holds":
        assert len(rows) == 100 and {r["row"] for r in rows} == {17, 25}
    if name == "valid_on_target":  # sparse forms need 8.2, mixed s8/u8 8.4
        wgmma = [r["id"] for r in rows if r["id"].startswith("wgmma.mma_async")]
        assert all(".sp." not in i and ".s8.u8" not in i for i in wgmma)
        # dense wgmma at PTX 8.1: 2 forms x (32 N x (2 f16 + bf16 + tf32 + 8 fp8) + 18 N x (2 same-sign
        # integer pairs x 2 satfinite + b1)) = 948 (mixed s8/u8 needs 8.4, sparse 8.2)
        assert len(wgmma) == 2 * (32 * 12 + 18 * 5)
    if name == "requirements_of_opcode":
        assert {(r["form"], r["target"], r["min_ptx"]) for r in rows} == {("reg", "sm_90a", "8.4"),
                                                                           ("desc", "sm_90a", "8.4")}
    if name == "metadata_nibble":  # selector 1: threads with t % 4 in {2, 3}
        assert len(rows) == 1 and rows[0]["thread"] % 4 in (2, 3)
    if name == "scale_holder":  # row 13 = 5 + 8: the odd lane of quad 5's pair, K-block 2 in byte 2
        assert [(r["thread_id"], r["thread"], r["byte"]) for r in rows] == [(0, 21, 2), (1, 23, 2)]


def test_descriptions_reach_datasette(server):
    meta = get_json(f"{server}/-/metadata.json")
    tables = meta["databases"]["ptxspec"]["tables"]
    assert "fragment_elements" in tables and tables["variants"]["columns"]["min_ptx"]


def _chromium(args, tmp_path):
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=HANG_GUARD)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (.ci/run installs it)")
@pytest.mark.parametrize("path, expected", [
    ("/", ["ptxspec", "machine-checked specification"]),
    ("/ptxspec", ["variants", "fragment_elements", "Which thread and register hold an element?"]),
    ("/ptxspec/variants?family=wgmma&n=200", ["wgmma.mma_async.sync.aligned.m64n200k16.f32.bf16.bf16", "min_ptx"]),
    ("/ptxspec/which_thread_holds?" + urllib.parse.urlencode(PARAMS["which_thread_holds"]), ["38"]),
    ("/ptxspec/errata", ["wgmma-integer-n-list"]),
])
@pytest.mark.full
def test_pages_in_chromium(server, tmp_path, path, expected):
    dom = _chromium(["--dump-dom", server + path], tmp_path).stdout
    for text in expected:
        assert text in dom, (path, text)
    shot = tmp_path / "page.png"
    _chromium([f"--screenshot={shot}", "--window-size=1280,900", server + path], tmp_path)
    assert shot.is_file() and shot.stat().st_size > 20_000  # a rendered page, not a blank one
