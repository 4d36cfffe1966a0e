"""The tcgen05.ld/st device harness for sm_100a (campaigns/tcgen05) is ready to run, though no
sm_100a GPU has run it:

* its kernels (one per tcgen05.ld and tcgen05.st variant of the spec) compile with the wheel's
  nvcc for sm_100a, the host driver links, and every kernel's machine code moves data to and from
  tensor memory (LDTM and STTM);
* its checker works without a GPU: the results a device following the spec's maps would return
  compare with 0 mismatches for every variant, and one misplaced register is caught.
"""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "campaigns" / "tcgen05"))
import tmemgen  # noqa: E402
from ptxspec.oracle.ptxas import PtxasNotFound, find_ptxas  # noqa: E402


def _tool(name):
    try:
        path = Path(find_ptxas()).with_name(name)
    except PtxasNotFound:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed")
    if not path.is_file():
        pytest.skip(f"no {name} beside ptxas")
    return str(path)


@pytest.mark.full
def test_kernels_compile_and_link_for_sm100a(spec, tmp_path):
    nvcc = _tool("nvcc")
    jobs = tmemgen.sources(spec, tmp_path)
    assert len(jobs) == len(tmemgen.variants(spec)) == 148
    arch = ["-gencode", "arch=compute_100a,code=sm_100a"]
    proc = subprocess.run([nvcc, *arch, "-O1", "-Werror", "all-warnings", "-c", str(tmp_path / "tmem_kernels.cu"),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    exe = tmp_path / "tmem_run"
    proc = subprocess.run([nvcc, *arch, "-O1", str(HERE.parent / "campaigns" / "tcgen05" / "tmem_host.cu"), str(tmp_path / "k.o"),
                           "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sass = subprocess.run([_tool("cuobjdump"), "-sass", str(exe)], capture_output=True, text=True).stdout
    functions = re.split(r"\n\s*Function : ", sass)[1:]
    assert len(functions) == len(jobs)
    assert all("LDTM" in f and "STTM" in f for f in functions)


def test_checker_without_a_gpu(spec, tmp_path):
    ideal = tmemgen.ideal_results(spec)
    tmemgen.write_results(tmp_path / "results.bin", ideal)
    back = tmemgen.read_results(tmp_path / "results.bin")
    report = tmemgen.check(spec, back)
    assert len(report) == 148
    assert all(r["ran"] and r["mismatches"] == 0 and r["problem_count"] == 0 for r in report.values())
    # one register of one thread of a load, and one cell of a store, in the wrong place
    vs = tmemgen.variants(spec)
    ld = next(i for i, v in enumerate(vs) if v.instruction == "tcgen05.ld" and v.n == 2 and "16x256b" in v.id)
    st = next(i for i, v in enumerate(vs) if v.instruction == "tcgen05.st" and v.n == 4 and "16x64b" in v.id)
    w = back[ld][1].copy()
    w[5, [0, 1]] = w[5, [1, 0]]
    back[ld] = (0, w)
    w = back[st][1].copy()
    w[3, [0, 1]] = w[3, [1, 0]]
    back[st] = (0, w)
    report = tmemgen.check(spec, back)
    bad = {k: r["mismatches"] for k, r in report.items() if r["mismatches"]}
    assert bad == {vs[ld].id: 2, vs[st].id: 2}


# ----------------------------------------------------------------------------------------------
# tcgen05.mma: the executors' layouts and arithmetic (campaigns/tcgen05/mmagen.py)

import mmagen  # noqa: E402


@pytest.mark.full
def test_mma_kernels_compile_and_link_for_sm100a(spec, tmp_path):
    nvcc = _tool("nvcc")
    jobs = mmagen.sources(spec, tmp_path)
    zeros = [i for i, c in enumerate(mmagen.CASES) if c[2]["kind"] in mmagen.ZERO_KINDS]
    assert len(jobs) == 2 * len(mmagen.CASES) + len(zeros) and len(zeros) == 5
    arch = ["-gencode", "arch=compute_100a,code=sm_100a"]
    proc = subprocess.run([nvcc, *arch, "-O1", "-Werror", "all-warnings", "-c", str(tmp_path / "mma_kernels.cu"),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    exe = tmp_path / "mma_run"
    proc = subprocess.run([nvcc, *arch, "-O1", str(HERE.parent / "campaigns" / "tcgen05" / "tmem_host.cu"), str(tmp_path / "k.o"),
                           "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sass = subprocess.run([_tool("cuobjdump"), "-sass", str(exe)], capture_output=True, text=True).stdout
    functions = re.split(r"\n\s*Function : ", sass)[1:]
    assert len(functions) == len(jobs)
    # every kernel issues exactly one tensor-core MMA (UTCHMMA, UTCQMMA, UTCIMMA, UTCOMMA, .WS forms),
    # the .2CTA form exactly in the kernels of the .cta_group::2 cases (a cluster of two CTAs)
    assert all(len(re.findall(r"\bUTC[A-Z]*MMA\b", f)) == 1 for f in functions)
    pair = {int(re.match(r"_Z\d+mma_(\d+)Pj", f).group(1)): bool(re.search(r"\bUTC[A-Z]*MMA\.2CTA\b", f))
            for f in functions}
    assert pair == {k: mmagen.ctas(i) == 2 for k, (i, _) in enumerate(jobs)}
    assert sum(pair.values()) == 6


def test_mma_checker_without_a_gpu(spec, tmp_path):
    """The results the executors give pass; one wrong cell of one kernel is caught; a kernel that
    did not run is reported."""
    ideal = {k: mmagen.expected(spec, i, f) for k, (i, f) in enumerate(mmagen.jobs())}
    mmagen.write_results(tmp_path / "r.bin", ideal)
    report = mmagen.check(spec, mmagen.read_results(tmp_path / "r.bin"))
    n = len(mmagen.jobs())
    assert len(report) == n
    assert all(r["ran"] and r["mismatches"] == 0 for r in report.values())
    # the zero-heavy kernels tell each of MMA-Sim's zero rules from the model (nonzero mismatches
    # under each alternative somewhere), so one run settles which one the hardware follows
    alts = [r["alternatives"] for r in report.values() if r["flavour"] == "zeros"]
    assert len(alts) == 5 and all(sum(a[name] for a in alts) > 0 for name in alts[0])
    bad = dict(ideal)
    bad[3] = ideal[3].copy()
    bad[3][5, 2] ^= 1
    del bad[7]
    mmagen.write_results(tmp_path / "r.bin", bad)
    report = mmagen.check(spec, mmagen.read_results(tmp_path / "r.bin"))
    assert report["3"]["mismatches"] == 1 and report["3"]["first"][0][:2] == [5, 2]
    assert not report["7"]["ran"]
    assert sum(r["ran"] and r["mismatches"] == 0 for r in report.values()) == n - 2


def test_mma_checker_names_the_zero_rule_a_device_follows(spec, tmp_path):
    """A device that follows MMA-Sim main's zero rule: its zero-heavy kernels mismatch the model and
    match zeros=mmasim-main exactly."""
    from ptxspec.semantics import blockscale as bs
    name = next(n for n in bs.ALTERNATIVES if n.startswith("zeros=mmasim-main "))
    res = {}
    for k, (i, f) in enumerate(mmagen.jobs()):
        if f == "zeros":
            res[k] = mmagen.expected(spec, i, f, mmagen.zero_alternatives(spec, i)[name])
    mmagen.write_results(tmp_path / "r.bin", res)
    report = {k: r for k, r in mmagen.check(spec, mmagen.read_results(tmp_path / "r.bin")).items() if r["ran"]}
    assert len(report) == 5 and sum(r["mismatches"] for r in report.values()) > 0
    assert all(r["alternatives"]["zeros=mmasim-main"] == 0 for r in report.values())


# ----------------------------------------------------------------------------------------------
# tcgen05.ld.red (sm_103a): registers through the ld maps, and the reduction

import redgen  # noqa: E402


@pytest.mark.full
def test_red_kernels_compile_and_link_for_sm103a(spec, tmp_path):
    nvcc = _tool("nvcc")
    jobs = redgen.sources(spec, tmp_path)
    assert len(jobs) == len(redgen.variants(spec)) == 168
    arch = ["-gencode", "arch=compute_103a,code=sm_103a"]
    proc = subprocess.run([nvcc, *arch, "-O1", "-Werror", "all-warnings", "-c", str(tmp_path / "red_kernels.cu"),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    exe = tmp_path / "red_run"
    proc = subprocess.run([nvcc, *arch, "-O1", str(HERE.parent / "campaigns" / "tcgen05" / "tmem_host.cu"), str(tmp_path / "k.o"),
                           "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sass = subprocess.run([_tool("cuobjdump"), "-sass", str(exe)], capture_output=True, text=True).stdout
    functions = [f for f in re.split(r"\n\s*Function : ", sass)[1:] if f.startswith("_Z")]
    assert sum("red_k" in f.split("\n", 1)[0] for f in functions) == len(jobs)


def test_red_checker_without_a_gpu(spec):
    """The values a device following the spec's maps and the manual's reduction returns pass; a
    wrong reduction and a misplaced register are caught; the reductions mean something (every
    f32 .NaN form meets a NaN, .abs min differs from the signed min)."""
    vs = redgen.variants(spec)
    ideal = {i: (0, redgen.expected(v).astype(np.uint32)) for i, v in enumerate(vs)}
    report = redgen.check(spec, ideal)
    assert all(r["ran"] and not r["register_mismatches"] and not r["reduction_mismatches"] for r in report.values())
    k = next(i for i, v in enumerate(vs) if v.dtype == "f32" and v.qualifiers.get("red_abs") and v.n == 8)
    bad = dict(ideal)
    words = ideal[k][1].copy()
    words[3, -1] ^= 0x80000000
    words[4, 0], words[4, 1] = words[4, 1], words[4, 0]
    bad[k] = (0, words)
    r = redgen.check(spec, bad)[vs[k].id]
    assert r["reduction_mismatches"] == 1 and r["register_mismatches"] >= 1
    nan_forms = [v for v in vs if v.qualifiers.get("red_nan")]
    assert nan_forms and all((redgen.expected(v)[:, -1] == redgen.CANONICAL_NAN).any() for v in nan_forms)
    for v in vs:
        if v.qualifiers.get("red_abs") and v.qualifiers["red"] == "min":  # magnitudes: never negative
            plain = next(w for w in vs if w.dtype == v.dtype and w.n == v.n and w.qualifiers["tmem_shape"] ==
                         v.qualifiers["tmem_shape"] and w.qualifiers["red"] == v.qualifiers["red"]
                         and not w.qualifiers.get("red_abs") and not w.qualifiers.get("red_nan"))
            assert (redgen.expected(v)[:, -1] != redgen.expected(plain)[:, -1]).any()
