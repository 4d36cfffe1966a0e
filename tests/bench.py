"""Benchmarks of the quality bars (run by hand: `python3 tests/bench.py`; not a timed test).

Every figure is the median of 5 runs, and is also given in yardsticks: Y is the wall time of
`python3 -c 'sum(i*i for i in range(10**7))'` (a fresh interpreter), measured in the same run, so
that figures from machines of different speed compare (issue 28's bars: a warm `ptxspec.load()`
<= 0.3 Y, `ptxspec validate` <= 2 Y, `ptxspec build --check` <= 4 Y, a CLI query <= 0.1 Y). The
default run reports: `ptxspec.load()` warm (a fresh process, the model cache warm: the process and
the load itself), `ptxspec validate`, `ptxspec build --check`, two CLI queries (a small one, all of
sm_90a as JSON), an in-process query and the executor's throughput. `--all` adds the older
figures (build, database, lookups, every CLI query in every format, sizes, the audits); `--cli`
and `--audit` run those parts alone. On a shared machine the wall time measures the others too:
the yardstick, taken in the same run, moves with them.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ptxspec
from ptxspec.emit import artifacts as build_mod
from ptxspec.emit import sqlite as sqlite_emit
from ptxspec.query.database import Database

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 5
# Every process timed here keeps Python's bytecode as an installed package does (pip compiles it at
# install): with PYTHONDONTWRITEBYTECODE set, each would compile the package's modules again (about
# 0.1 s a process), which no user of an installed ptxspec pays.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
YARDSTICK = [sys.executable, "-c", "sum(i*i for i in range(10**7))"]


def timed(fn, repeat=REPEAT):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _cli(*args) -> list[str]:
    return [sys.executable, "-m", "ptxspec", *args]


def _quiet(argv):
    return lambda: subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)


LOAD_PROBE = ("import time; t = time.perf_counter(); import ptxspec; i = time.perf_counter(); ptxspec.load(); "
              "print(i - t, time.perf_counter() - i)")


def yardstick() -> float:
    return timed(_quiet(YARDSTICK))


def paired_show(name: str, argv: list[str], bar: float) -> None:
    """A command timed in pairs with the yardstick (a yardstick run, then the command, REPEAT times):
    the machine's drift in speed moves both of a pair alike, so the median of the ratios is steadier
    than a ratio of medians."""
    times, ratios = [], []
    _quiet(argv)()  # once before: caches warm, as for the others
    for _ in range(REPEAT):
        yard = timed(_quiet(YARDSTICK), repeat=1)
        secs = timed(_quiet(argv), repeat=1)
        times.append(secs)
        ratios.append(secs / yard)
    r = statistics.median(ratios)
    print(f"{name:52s} {statistics.median(times) * 1000:9.1f} ms {r:7.3f} Y   (bar {bar} Y: "
          f"{'within' if r <= bar else 'OVER'}; ratios {min(ratios):.3f}-{max(ratios):.3f})")


def bars() -> None:
    """The figures issue 28 sets bars for, in ms and in yardsticks."""
    ptxspec.load()  # the model cache warm
    y = yardstick()
    print(f"load average {os.getloadavg()[0]:.1f}; median of {REPEAT}; Y = yardstick "
          f"({' '.join(YARDSTICK[1:])!r} in a fresh interpreter)")
    show = lambda name, secs, bar=None: print(  # noqa: E731
        f"{name:52s} {secs * 1000:9.1f} ms {secs / y:7.3f} Y" + (f"   (bar {bar} Y: "
                                                                  f"{'within' if secs / y <= bar else 'OVER'})"
                                                                  if bar else ""))
    show("yardstick Y", y)
    runs = []
    for _ in range(REPEAT):  # a fresh process each time, the cache warm
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", LOAD_PROBE], check=True, capture_output=True, text=True,
                             cwd=ROOT).stdout.split()
        runs.append((time.perf_counter() - t, float(out[0]), float(out[1])))
    show("ptxspec.load() warm, fresh process (start to loaded)", statistics.median(r[0] for r in runs))
    show("  of which `import ptxspec`", statistics.median(r[1] for r in runs))
    show("  of which ptxspec.load()", statistics.median(r[2] for r in runs), 0.3)
    print("the commands below: each run beside a yardstick (Y, A, Y, A, ...); Y is the median of the ratios")
    paired_show("ptxspec validate (CLI, end to end)", _cli("validate"), 2)
    paired_show("ptxspec build --check (CLI, end to end)", _cli("build", "--check"), 4)
    with tempfile.TemporaryDirectory() as tmp:  # issue 29's bar: the build that writes every artifact
        paired_show("ptxspec build --out DIR (CLI, end to end)", _cli("build", "--out", tmp), 4)
    paired_show("ptxspec query n=200 atype=e4m3 (CLI, end to end)", _cli("query", "n=200", "atype=e4m3"), 0.1)
    paired_show("ptxspec query --target sm_90a --format json (CLI)", _cli("query", "--target", "sm_90a", "--format", "json"),
          0.1)
    spec = ptxspec.load()
    spec.query(family="wgmma", n=200, atype="e4m3")  # the searcher's first use opens the database
    show("spec.query(family=wgmma, n=200, atype=e4m3) (in process)",
         timed(lambda: spec.query(family="wgmma", n=200, atype="e4m3"), repeat=50))
    show("spec.variant(opcode, form) (in process)",
         timed(lambda: spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "reg"), repeat=1000))
    executor_bench(spec, y)


def main():
    spec = ptxspec.load()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            ("ptxspec build (CLI, end to end)",
             timed(lambda: subprocess.run([sys.executable, "-m", "ptxspec", "build", "--out", tmp], check=True,
                                          capture_output=True))),
            ("load (in process, cache warm)", timed(ptxspec.load)),
            ("artifacts from a loaded model", timed(lambda: build_mod.artifacts(spec))),
            ("database built (rows + sqlite file)", timed(lambda: sqlite_emit.connect(spec).serialize())),
            ("database (sqlite)", timed(lambda: sqlite_emit.build(spec))),
        ]
        db = Database.open(ROOT / "generated" / "ptxspec.sqlite")
        vid = "wgmma.mma_async.sync.aligned.m64n200k32.f32.e4m3.e4m3:reg"
        rows += [
            ("db query: variants n=200 atype=e4m3", timed(lambda: db.variants(["n=200", "atype=e4m3"]), repeat=50)),
            ("db query: valid on sm_90a at PTX 8.2", timed(lambda: db.variants(target="sm_90a", ptx="8.2"), repeat=20)),
            ("db query: which thread holds D[17][5]", timed(lambda: db.fragment(vid, "d", row=17, col=5), repeat=50)),
        ]
    y = yardstick()
    print(f"\n{'yardstick Y':45s} {y * 1000:9.2f} ms (median)")
    for name, secs in rows:
        print(f"{name:45s} {secs * 1000:9.2f} ms (median) {secs / y:8.3f} Y")
    cli_bench()
    for path in sorted((ROOT / "generated").glob("ptxspec.*")):
        print(f"{'size of generated/' + path.name:45s} {path.stat().st_size / 1e6:9.2f} MB")
    audit_bench()


WG = "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"
#: Every kind of `ptxspec query`, with the largest answers (issue 15: each under 150 ms end to end).
CLI_QUERIES = [
    ("every variant", []),
    ("valid on sm_90a at PTX 8.0 (1,783 variants)", ["--target", "sm_90a", "--ptx", "8.0"]),
    ("README: wgmma n=200 e4m3 x e5m2", ["--family", "wgmma", "n=200", "atype=e4m3", "btype=e5m2"]),
    ("README: valid on sm_90a at PTX 8.2", ["--target", "sm_90a", "--ptx", "8.2"]),
    ("filters with lists and patterns", ["n>=128", "atype=e4m3,e5m2", "ptx~*sp*"]),
    ("errata", ["--errata"]),
    ("one variant by opcode", ["--variant", WG, "--form", "reg"]),
    ("operands of a variant", ["--variant", WG, "--form", "reg", "--operands"]),
    ("operands of 64 variants", ["--family", "wgmma", "n=256", "sparse=0", "--operands"]),
    ("fragment D of m64n256 f32 (16,384 elements)", ["--variant", WG, "--form", "reg", "--fragment", "d"]),
    ("what thread 37 holds", ["--variant", WG, "--form", "reg", "--fragment", "d", "--thread", "37"]),
    ("which thread holds D[17][5], 8 variants", ["--family", "wgmma", "n=200", "atype=e4m3", "--fragment", "d",
                                                 "--row", "17", "--col", "5"]),
]


def cli_bench(repeat=7, limit_ms=150):
    """`ptxspec query` end to end (a new interpreter each time), every query x every format: the
    best of `repeat` runs. Wall time, and the process's CPU time (user + system), which is what the
    wall time is on an idle machine: on 2 cores shared by several busy users the wall time mostly
    measures the others."""
    import shutil
    exe = shutil.which("ptxspec")
    cmd = [exe] if exe and Path(exe).resolve().parent == Path(sys.executable).resolve().parent \
        else [sys.executable, "-m", "ptxspec"]
    y = yardstick()
    print(f"\nptxspec query end to end ({' '.join(Path(c).name for c in cmd)}; best of {repeat}; "
          f"load average {os.getloadavg()[0]:.1f}; Y = {y * 1000:.0f} ms); wall / CPU ms:")
    worst = 0.0
    for name, args in CLI_QUERIES:
        cells = []
        for fmt in ("table", "json", "csv"):
            runs = [_run_once(cmd + ["query", *args, "--format", fmt]) for _ in range(repeat)]
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            worst = max(worst, cpu)
            cells.append(f"{fmt} {wall * 1000:5.0f} /{cpu * 1000:4.0f}")
        print(f"  {name:46s} " + "  ".join(cells))
    print(f"  slowest (CPU): {worst * 1000:.0f} ms = {worst / y:.3f} Y "
          f"({'within' if worst * 1000 <= limit_ms else 'OVER'} {limit_ms} ms)")


def _run_once(argv, check=True) -> tuple[float, float]:
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _wgmma_inputs(spec, ptx, form, batch, seed=0):
    """Registers and shared memory of `batch` random instances (finite inputs, B K-major 128B)."""
    import numpy as np
    from ptxspec.model import smem as S
    from ptxspec.semantics import sparse as SP
    v = spec.variant(ptx, form)
    rng = np.random.default_rng(seed)
    bits = lambda t: spec.types[t].bits  # noqa: E731
    mask = lambda t: (1 << bits(t)) - 1 if spec.types[t].cls != "float" else (  # noqa: E731
        0x3BFF if bits(t) == 16 else 0x3B if bits(t) == 8 else 0x3FFFFFFF)
    acols = v.k // 2 if v.sparse else v.k
    A = rng.integers(0, 1 << 32, (batch, v.m, acols), dtype=np.uint64) & np.uint64(mask(v.atype))
    B = rng.integers(0, 1 << 32, (batch, v.k, v.n), dtype=np.uint64) & np.uint64(mask(v.btype))
    C = rng.integers(0, 1 << 32, (batch, v.m, v.n), dtype=np.uint64) & np.uint64(mask(v.dtype))  # finite, as A and B
    lay = S.operand_layout(v, "b", "K", "128B", 0, 16, 1024)
    size = -(-lay.span()[1] // 1024) * 1024
    img = np.zeros((batch, size), np.uint8)
    for j in range(bits(v.btype) // 8):
        img[:, lay.byte + j] = ((B >> np.uint64(8 * j)) & np.uint64(0xFF)).astype(np.uint8)
    ops = dict(d=v.pack("d", C), a=v.pack("a", A), b_desc=S.descriptor_for(v, 0, 16, 1024, "128B"), smem=img)
    if v.sparse:
        ops.update(sp_meta=SP.pack_metadata(v, SP.random_kept(v, rng, v.metadata_nibbles), 0), sp_sel=0)
    return v, ops, A, B


def executor_bench(spec, y=None):
    """Executor throughput (PRODUCT.md: >= 10^6 output elements/s; also per yardstick Y: outputs in the
    time of one Y) and the integer batch against numpy."""
    y = y or yardstick()
    import numpy as np
    D, SP = "wgmma.mma_async.sync.aligned", "wgmma.mma_async.sp.sync.aligned"
    for ptx in (f"{D}.m64n256k16.f32.f16.f16", f"{D}.m64n256k16.f32.bf16.bf16", f"{D}.m64n256k16.f16.f16.f16",
                f"{D}.m64n256k8.f32.tf32.tf32", f"{D}.m64n256k32.f32.e4m3.e5m2", f"{SP}.m64n256k32.f32.f16.f16",
                f"{D}.m64n256k32.s32.s8.s8"):
        v, ops, _, _ = _wgmma_inputs(spec, ptx, "reg", 64)
        secs = timed(lambda v=v, ops=ops: v.execute(**ops))
        rate = 64 * v.m * v.n / secs
        print(f"{'execute ' + ptx.split('aligned.')[1] + ' x64':52s} {rate / 1e6:9.2f} M outputs/s "
              f"{rate * y / 1e6:7.2f} M outputs/Y")
    v, ops, A, B = _wgmma_inputs(spec, f"{D}.m64n256k32.s32.s8.s8", "reg", 1000, seed=1)
    t_exec = timed(lambda: v.execute(**ops))
    a32 = A.astype(np.int8).astype(np.int32)
    b32 = B.astype(np.int8).astype(np.int32)
    t_np = timed(lambda: np.matmul(a32, b32))
    t_f64 = timed(lambda: np.matmul(a32.astype(np.float64), b32.astype(np.float64)))
    print(f"{'execute 1000 x m64n256k32.s32.s8.s8':52s} {t_exec * 1000:9.2f} ms {t_exec / y:7.3f} Y")
    print(f"{'numpy int32 matmul, same batch':45s} {t_np * 1000:9.2f} ms  (executor / numpy = {t_exec / t_np:.2f})")
    print(f"{'numpy float64 matmul, same batch':45s} {t_f64 * 1000:9.2f} ms  (executor / numpy = {t_exec / t_f64:.2f})")


def audit_bench(repeat=5):
    """`ptxspec audit` end to end without --ptxas (issue 32: <= 10 s each), beside the yardstick Y
    (python3 -c 'sum(i*i for i in range(10**7))') measured in the same run: median wall and CPU time
    of `repeat` runs after one warm-up (the model cache). LLVM too where PTXSPEC_AUDIT_LLVM names a
    checkout."""
    runs = [_run_once([sys.executable, "-c", "sum(i*i for i in range(10**7))"]) for _ in range(repeat)]
    y = statistics.median(r[0] for r in runs)
    print(f"\n{'yardstick Y (sum of squares, 10**7)':45s} {y * 1000:9.0f} ms wall {statistics.median(r[1] for r in runs) * 1000:7.0f} ms CPU (median of {repeat})")
    peers = [("cccl",), ("cutlass",)] + ([("llvm", os.environ["PTXSPEC_AUDIT_LLVM"])] if os.environ.get("PTXSPEC_AUDIT_LLVM") else [])
    for peer in peers:
        argv = [sys.executable, "-m", "ptxspec", "audit", *peer]
        subprocess.run(argv, capture_output=True)
        runs = [_run_once(argv, check=False) for _ in range(repeat)]
        wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{'ptxspec audit ' + peer[0] + ' (CLI, end to end)':45s} {wall * 1000:9.0f} ms wall {cpu * 1000:7.0f} ms CPU "
              f"(median of {repeat}) = {wall / y:.1f} Y ({'within' if wall <= 10 else 'OVER'} 10 s)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--cli"]:  # only the end-to-end query timings
        cli_bench()
    elif sys.argv[1:] == ["--audit"]:  # only the audits' timings
        audit_bench()
    elif sys.argv[1:] == ["--all"]:
        bars()
        main()
    else:
        bars()
