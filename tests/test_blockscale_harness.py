"""The Blackwell device harness of the .kind::* mma forms (campaigns/blockscale) is ready to run:

* its kernels for sm_120a (every .kind variant, and every selector value of every scale map) and
  for sm_100a (the fp8 .kind forms it accepts) compile with the wheel's nvcc, the host driver
  links, and the machine code holds one tensor instruction per kernel on sm_120a;
* its data path works without a GPU: inputs drawn, outputs read, and a device that returned the
  executor's own registers compares with 0 mismatches, one flipped bit with 1.
"""
import json
import shutil
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "campaigns" / "blockscale"))
import bsgen  # noqa: E402
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
@pytest.mark.parametrize("target, kernels", [("sm_120a", 340), ("sm_100a", 80)])
def test_kernels_compile_and_link(spec, tmp_path, target, kernels):
    nvcc = _tool("nvcc")
    ks = bsgen.sources(spec, tmp_path, target, quick=True)
    assert len(ks) == kernels
    arch = ["-gencode", f"arch=compute_{target[3:]},code={target}"]
    cus = sorted(tmp_path.glob("bs_kernels_*.cu"))

    def build(cu):
        return subprocess.run([nvcc, *arch, "-O1", "-c", str(cu), "-o", str(cu.with_suffix(".o"))],
                              capture_output=True, text=True)
    with ThreadPoolExecutor(2) as pool:
        for cu, proc in zip(cus, pool.map(build, cus)):
            assert proc.returncode == 0, f"{cu.name}:\n{proc.stderr[-3000:]}"
    exe = tmp_path / "bs_run"
    proc = subprocess.run([nvcc, *arch, "-I", str(tmp_path), str(HERE.parent / "campaigns" / "blockscale" / "bs_host.cu"),
                           *map(str, sorted(tmp_path.glob("bs_kernels_*.o"))), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cuobjdump = shutil.which("cuobjdump") or str(Path(nvcc).with_name("cuobjdump"))
    if not Path(cuobjdump).is_file():
        return
    sass = subprocess.run([cuobjdump, "-sass", str(exe)], capture_output=True, text=True).stdout
    if target == "sm_120a":  # one QMMA / OMMA per kernel: every .kind form is native there
        assert sum(line.count("QMMA") + line.count("OMMA") for line in sass.splitlines()) == kernels
    else:  # the fp8 .kind forms are f16 HMMA steps on sm_100a
        assert "HMMA" in sass and "QMMA" not in sass


ONLY = ["mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e5m2.f32.ue8m0",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e4m3.f16"]


def test_data_path_without_a_gpu(spec, tmp_path):
    ks = bsgen.sources(spec, tmp_path, "sm_120a", quick=True, only=ONLY)
    assert {k["variant"] for k in ks} == set(ONLY)
    bsgen.write_inputs(spec, tmp_path)
    # a "device" that returns the executor's registers, read back from in.bin like bs_host.cu
    data = (tmp_path / "in.bin").read_bytes()
    magic, nk = struct.unpack_from("<2I", data, 0)
    assert (magic, nk) == (bsgen.MAGIC_IN, len(ks))
    pos, out = 8, [struct.pack("<2I", bsgen.MAGIC_OUT, nk)]
    for k in ks:
        kid, n, n_in, n_out = struct.unpack_from("<4I", data, pos)
        pos += 16
        words = np.frombuffer(data, "<u4", n * 32 * n_in, pos).reshape(n, 32, n_in)
        pos += 4 * words.size
        v = spec.variant(k["variant"])
        d = np.zeros((n, 32, n_out), np.uint32)
        for i in range(n):
            regs, start = {}, 0
            for name in bsgen.operand_order(v):
                r = v.operand(name).regs
                regs[name] = words[i, :, start:start + r]
                start += r
            drawn, kind = bsgen.case_inputs(spec, k, i)
            assert all(np.array_equal(regs[x], drawn[x].reshape(32, -1)) for x in regs)
            d[i] = bsgen.expected(spec, v, k, drawn)
        if kid == 0:
            d[1, 5, 0] ^= 1  # one wrong bit of one register
        out.append(struct.pack("<4I", kid, n, n_out, 0) + d.astype("<u4").tobytes())
    (tmp_path / "out.bin").write_bytes(b"".join(out))
    report = bsgen.compare(spec, tmp_path, bsgen.read_outputs(tmp_path / "out.bin"))
    bad = {vid: sum(r["model"].values()) for vid, r in report["variants"].items()}
    assert bad == {vid: int(vid == ks[0]["variant"]) for vid in ONLY}
    assert json.dumps(report)  # serialisable as report.json


ZERO_VARIANTS = ["mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0",
                 "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"]


def test_zero_kinds_tell_the_zero_rules_apart(spec):
    """The zero-heavy case kinds (zeroprod, zerogroup, zeroc) give D that differs from the model's
    under each of MMA-Sim's zero rules (campaigns/survey/blockscale.md section 4), on the products and on
    the groups path, so one Blackwell run says which rule the hardware follows."""
    from ptxspec.semantics import blockscale as bs
    seen: dict[str, int] = {}
    for vid in ZERO_VARIANTS:
        v = spec.variant(vid)
        k = bsgen.plan(spec, "sm_120a", only={vid})[0]
        base = bs.variant_params(v)
        zeros = {n: q for n, q in bs.alternatives_for(v, base).items() if n.startswith("zeros=")}
        assert len(zeros) == 3
        for i in range(len(bsgen.KINDS) * 3):
            regs, kind = bsgen.case_inputs(spec, k, i)
            if kind not in ("zeroprod", "zerogroup", "zeroc"):
                continue
            want = v.unpack("d", bsgen.expected(spec, v, k, regs, base))
            for n, q in zeros.items():
                seen[n] = seen.get(n, 0) + int((v.unpack("d", bsgen.expected(spec, v, k, regs, q)) != want).sum())
    assert set(seen) == {n for n in bs.ALTERNATIVES if n.startswith("zeros=")} and all(seen.values()), seen
