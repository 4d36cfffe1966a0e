"""The C++ API around the bindings: typed descriptors, one numbering of swizzle modes, advance_k,
the generic entry points, the example GEMM, and a cbind that names no family or instruction.

- advance_k's legality and byte step (spec/smem `advance_k`) are checked against the spec's
  canonical layouts and swizzle formula, evaluated here: moving the start address by `bytes`
  must address, after swizzling, exactly the elements the unmoved descriptor has at column j + k,
  and `legal` must hold exactly where that is so;
- code that mixes up descriptor encodings and swizzle modes, swaps descriptor fields, steps a
  descriptor illegally or asks a generic entry point for a variant the spec lacks does not compile
  (g++ and nvcc 13.5), while the same code done right does;
- examples/gemm/gemm.cu compiles with nvcc 13.5 under -Wall -Wextra -Werror to sm_90a machine code
  with the m64n256k16 HGMMA and no spills; the H100 campaign's record says it was bit-identical to
  torch.mm(..., out_dtype=float32) and at least 70 % of cuBLAS bf16 at 4096^3 for this source.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptxspec.emit import cbind
from ptxspec.oracle.ptxas import PtxasNotFound, find_ptxas

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "gemm" / "gemm.cu"
RECORD = ROOT / "evidence" / "records" / "gemm-2026-11-23.json"


#: a hang guard, not a speed limit: a compile this long is stuck, however busy the machine
HANG_GUARD = 1800


def _nvcc() -> str:
    try:
        nvcc = Path(find_ptxas()).parent / "nvcc"
    except PtxasNotFound:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed")
    if not nvcc.is_file():
        pytest.skip("no nvcc beside ptxas")
    return str(nvcc)


@pytest.fixture(scope="module")
def headers(spec, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("capi")
    for rel, data in cbind.build(spec).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(data)
    return d / "c"


# ---------------------------------------------------------------------------------------------
# advance_k against the canonical layouts


def _cases(sm, widths):
    """(layout, mode, bits, K): every canonical layout with every mode it applies to (a mode that
    describes only some majors, only those), at element widths `widths` (bits) and instruction
    extents of 64 to 512 bits (the wgmma operands: 256 bits of K per dense operand, 128 or 512 for
    sparse A and B)."""
    for c in sm.canonical_layouts:
        for m in sm.swizzle_modes:
            if (m.b > 0) != bool(c["swizzled"]) or c["major"] not in m.majors:
                continue
            for bits in widths:
                for span in (128, 256, 512):
                    if span % bits == 0:
                        yield c, m, bits, span // bits


@pytest.mark.parametrize("family,widths", [  # quick tier: wgmma at 8 to 32 bits; the full tier the narrow widths
    ("wgmma", (8, 16, 32)), pytest.param("wgmma", (1, 4), marks=pytest.mark.full),  # (whose K is longest), tcgen05 too
    pytest.param("tcgen05", (1, 4, 8, 16, 32), marks=pytest.mark.full)], ids=["wgmma", "wgmma-narrow", "tcgen05"])
def test_advance_k_is_what_the_canonical_layouts_say(spec, family, widths):
    sm = spec.smem[family]
    assert all(c["advance_k"] for c in sm.canonical_layouts)
    lbo, sbo, start = 4096, 1536, 0x8000  # no coincidence (LBO = W, SBO = 8 W) that makes a layout linear
    checked = legal_seen = 0
    for c, m, bits, K in _cases(sm, widths):
        adv = c["advance_k"]
        mn = np.arange(16)[:, None]  # two 8-row atoms: SBO and the row swizzle both in play
        j = np.arange(K)[None, :]
        dims = dict(W=m.width, R=m.rows)

        def addr(first, cols, c=c, m=m, bits=bits, mn=mn, dims=dims):  # swizzled bit address of element (mn, cols)
            off = np.asarray(c["bit_offset"](mn=mn, k=cols, bits=bits, LBO=lbo, SBO=sbo, **dims), dtype=np.int64)
            byte = first + off // 8
            return np.asarray(sm.swizzle(a=byte, b=m.b, o=0, u=m.unit), dtype=np.int64) * 8 + off % 8

        ks = np.arange(0, 4 * m.width * 8 // bits + 1)  # every step at once: (k, mn, column)
        step_bits = np.broadcast_to(np.asarray(c["bit_offset"](mn=0, k=ks, bits=bits, LBO=lbo, SBO=sbo, **dims),
                                               dtype=np.int64), ks.shape)
        same = np.empty(ks.shape, dtype=bool)
        batch = max(1, (1 << 13) // (16 * K))  # steps per evaluation: arrays of about 8 Ki addresses
        for i in range(0, ks.size, batch):
            part = slice(i, i + batch)
            moved = addr(start + (step_bits[part] // 8)[:, None, None], j[None])
            same[part] = (moved == addr(start, j[None] + ks[part, None, None])).all(axis=(1, 2))
        truth = (step_bits % 128 == 0) & same
        legal = np.broadcast_to(np.asarray(adv["legal"](k=ks, bits=bits, K=K, **dims), dtype=bool), ks.shape)
        bad = np.flatnonzero(legal != truth)
        assert not bad.size, (c["major"], c["swizzled"], m.name, bits, K, int(ks[bad[0]]))
        moves = np.broadcast_to(np.asarray(adv["bytes"](k=ks, bits=bits, LBO=lbo, SBO=sbo, **dims), dtype=np.int64),
                                ks.shape)
        assert np.array_equal(moves[legal], (step_bits // 8)[legal]), (c["major"], c["swizzled"], m.name, bits, K)
        legal_seen += int(legal.sum())
        checked += ks.size
    assert checked > 100 and legal_seen > 10


# ---------------------------------------------------------------------------------------------
# What must not compile


GOOD = r"""
#include "ptxspec_common.h"
namespace sm = ptxspec::smem_wgmma;
constexpr sm::MatrixDescriptor d = sm::MatrixDescriptor().start_address(ptxspec::SmemAddress(0x400))
    .leading_byte_offset(16).stride_byte_offset(1024).swizzle(sm::swizzle_128B);
static_assert(d.swizzle() == sm::SwizzleMode::_128B && d.stride_byte_offset() == 1024, "");
static_assert(uint64_t(sm::make_descriptor(ptxspec::SmemAddress(0x400), 16, 1024, 0, sm::swizzle_128B)) == uint64_t(d), "");
static_assert(sm::advance_k<sm::Major::K, sm::swizzle_128B, 16, 16, 48>(d).start_address().value == 0x400 + 96, "");
static_assert(sm::swizzle_address(0x410u, sm::swizzle_128B) == 0x410u, "");
static_assert(sm::swizzle_address(0x490u, sm::swizzle_128B) == 0x480u, "");
// tcgen05 (PTX ISA 9.7.16.4.1): a fixed 0b001 at bits 46-48 that no setter changes, a 3-bit swizzle
// field with its own codes, and 128-byte swizzling of 32-byte units (bits 5-6 ^= bits 7-8) in 4-row
// atoms, MN-major only
namespace tc = ptxspec::smem_tcgen05;
constexpr tc::MatrixDescriptor e = tc::MatrixDescriptor().start_address(ptxspec::SmemAddress(0x400))
    .leading_byte_offset(16).stride_byte_offset(1024).swizzle(tc::swizzle_128B);
static_assert(uint64_t(tc::MatrixDescriptor()) == 1ull << 46, "");
static_assert(uint64_t(e) >> 61 == 2 && (uint64_t(e) >> 46 & 7) == 1 && e.swizzle() == tc::SwizzleMode::_128B, "");
static_assert(uint64_t(tc::make_descriptor(ptxspec::SmemAddress(0x400), 16, 1024, 0, 0, tc::swizzle_128B)) == uint64_t(e), "");
static_assert(tc::advance_k<tc::Major::K, tc::swizzle_128B, 16, 16, 48>(e).start_address().value == 0x400 + 96, "");
static_assert(tc::advance_k<tc::Major::MN, tc::swizzle_128B_base32B, 16, 2, 2>(e).start_address().value == 0x400 + 256, "");
static_assert(tc::swizzle_address(0x490u, tc::swizzle_128B_base32B) == 0x4B0u, "");
static_assert(tc::bit_offset(tc::Major::K, tc::swizzle_128B_base32B, 0, 0, 16, 16, 1024) == -1, "");
int main() { return 0; }
"""

BAD = {
    # the descriptor's code of the 128B mode (1) where a swizzle mode is expected: 32B's B is 1
    "descriptor code to the address helper": "uint32_t x = sm::swizzle_address(0x490u, 1);",
    "raw integer as a swizzle mode": "uint32_t x = sm::swizzle_address(0x490u, uint64_t(1));",
    "base offset and swizzle swapped": "auto x = sm::make_descriptor(ptxspec::SmemAddress(0x400), 16, 1024, sm::swizzle_128B, 0);",
    "integer where a shared address goes": "auto x = sm::make_descriptor(0x400, 16, 1024, 0, sm::swizzle_128B);",
    "a swizzle mode as a byte offset": "auto x = sm::MatrixDescriptor().leading_byte_offset(sm::swizzle_128B);",
    "a step past the swizzle row": "auto x = sm::advance_k<sm::Major::K, sm::swizzle_128B, 16, 16, 56>(sm::MatrixDescriptor());",
    "a step of half a 16-byte unit": "auto x = sm::advance_k<sm::Major::K, sm::swizzle_128B, 16, 16, 4>(sm::MatrixDescriptor());",
    "tcgen05: a setter for the fixed version": "auto x = tc::MatrixDescriptor().version(2);",
    "tcgen05: a Hopper swizzle mode": "auto x = tc::MatrixDescriptor().swizzle(sm::swizzle_128B);",
    "tcgen05: 128B_base32B for a K-major operand":
        "auto x = tc::advance_k<tc::Major::K, tc::swizzle_128B_base32B, 16, 16, 0>(tc::MatrixDescriptor());",
}


def _gxx(src: Path, headers: Path, cwd: Path) -> subprocess.CompletedProcess:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    return subprocess.run([gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", str(headers),
                           str(src)], cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD)


@pytest.mark.full
def test_typed_descriptors_compile_when_right(headers, tmp_path):
    src = tmp_path / "good.cpp"
    src.write_text(GOOD)
    r = _gxx(src, headers, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.full
@pytest.mark.parametrize("what", sorted(BAD))
def test_mixed_up_descriptor_code_does_not_compile(headers, tmp_path, what):
    src = tmp_path / "bad.cpp"
    src.write_text(GOOD.replace("int main() { return 0; }", "void f() {\n  " + BAD[what] + "\n  (void)x;\n}\n"
                                "int main() { return 0; }"))
    r = _gxx(src, headers, tmp_path)
    assert r.returncode != 0, f"{what}: compiled"
    if "step" in what:
        assert "advance_k, K-major, swizzled: legal only when" in r.stderr
    if "K-major operand" in what:
        assert "advance_k: this swizzle mode does not describe operands of this major" in r.stderr


@pytest.mark.full
def test_generic_entry_point_refuses_what_the_spec_lacks(spec, headers, tmp_path):
    nvcc = _nvcc()
    src = tmp_path / "entry.cu"
    src.write_text('#include "ptxspec.h"\nusing namespace ptxspec;\n'
                   "__global__ void k(float* out, uint64_t a, uint64_t b) {\n  float d[8] = {};\n"
                   "  ops::wgmma_mma_async<64, 12, 16, type::f32, type::bf16, type::bf16>::call(d, a, b);\n"
                   "  out[0] = d[0];\n}\n")
    r = subprocess.run([nvcc, "-std=c++17", "-arch", "compute_90a", "-ptx", "-I", str(headers), str(src), "-o",
                        str(tmp_path / "entry.ptx")], capture_output=True, text=True, timeout=HANG_GUARD)
    assert r.returncode != 0
    msg = r.stdout + r.stderr
    assert "no wgmma.mma_async variant has these fields" in msg
    assert "64 8..256/8 16 f32 bf16 bf16" in msg  # the valid N of this type combination, by name


# ---------------------------------------------------------------------------------------------
# The example


@pytest.mark.full
def test_example_gemm_compiles_to_hgmma_without_spills(tmp_path):
    nvcc = _nvcc()
    cubin = tmp_path / "gemm.cubin"
    r = subprocess.run([nvcc, "-std=c++17", "-O3", "-gencode", "arch=compute_90a,code=sm_90a", "-cubin",
                        "-Xcompiler", "-Wall,-Wextra,-Werror", "-Werror", "all-warnings", "-Xptxas", "-v",
                        "-I", str(ROOT / "generated" / "c"), str(EXAMPLE), "-o", str(cubin)],
                       capture_output=True, text=True, timeout=HANG_GUARD)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert "0 bytes spill stores, 0 bytes spill loads" in r.stderr
    assert "C7510" not in r.stderr and "C7517" not in r.stderr  # no serialised or waited-for wgmma
    dump = Path(find_ptxas()).parent / "cuobjdump"
    sass = subprocess.run([str(dump), "-sass", str(cubin)], capture_output=True, text=True).stdout
    assert len(re.findall(r"HGMMA\.64x256x16\.F32\.BF16", sass)) == 4  # four k16 steps per 64-column stage


def test_example_gemm_h100_record(spec):
    """The H100 run of this example (examples/gemm/run.py; campaigns/notes/2026-11-23-gemm.md),
    tied to the example's source and to the maps it relied on (the model's D map, from which the
    epilogue places C, and the 128B-swizzled K-major layout its descriptors describe)."""
    from ptxspec.model import smem

    rec = json.loads(RECORD.read_text())
    v = spec.variant(*rec["variant"].split(":"))
    d = hashlib.sha256(np.ascontiguousarray(v.fragment("d"), dtype=np.int64).tobytes()).hexdigest()
    lay = smem.operand_layout(v, "a", "K", "128B", start=0, lbo=16, sbo=1024)
    a = hashlib.sha256(np.ascontiguousarray(lay.byte, dtype=np.int64).tobytes()).hexdigest()
    assert (d, a) == (rec["model_at_run"]["d_map_sha256"], rec["model_at_run"]["a_layout_128B_K_major_sha256"]), \
        "the model's maps changed since the H100 run: run examples/gemm/run.py on the device again"
    assert rec["source_sha256"] == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest(), \
        "gemm.cu changed since the H100 run: run examples/gemm/run.py on the device again and record it"
    assert rec["gpu"].startswith("NVIDIA H100") and rec["reference"].startswith("torch.mm(a, bt.t(), out_dtype")
    assert rec["all_bit_identical"] and len(rec["cases"]) >= 10
    assert {(c["m"], c["n"], c["k"]) for c in rec["cases"]} >= {(4096, 4096, 4096)}
    assert all(c["bit_identical"] and c["mismatches"] == 0 for c in rec["cases"])
    t = rec["timing_4096"]
    assert min(t["example"]["tflops"], t["example_again"]["tflops"]) / t["cublas_bf16"]["tflops"] >= 0.70


# ---------------------------------------------------------------------------------------------
# cbind is family-blind


def test_cbind_names_no_family_or_instruction(spec):
    """New families arrive as model data: the C++ emitter and its templates name none."""
    src = Path(cbind.__file__).parent
    tpl = Path(cbind.__file__).resolve().parents[2] / "templates" / "c"
    text = "\n".join(p.read_text() for p in sorted(src.glob("*.py")) + sorted(tpl.glob("*.j2")))
    names = set(spec.families) | set(spec.instructions) | {v.ptx.split(".")[0] for v in spec.variants}
    found = sorted(n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text))
    assert not found, f"cbind names {found}"


@pytest.mark.full
def test_a_new_family_binds_with_no_cbind_change(tmp_path):
    """tests/new_family's `toy` (not PTX) over a copy of spec/: its header comes out of the same
    templates, and a kernel calls a toy variant by name and through its generic entry point."""
    import ptxspec

    nvcc = _nvcc()
    top = tmp_path / "toy"
    shutil.copytree(ROOT / "spec", top / "spec")
    shutil.copytree(ROOT / "tests" / "new_family", top / "spec", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("README.md"))
    shutil.copytree(ROOT / "evidence", top / "evidence", ignore=shutil.ignore_patterns("records", "*.py"))
    toy = ptxspec.load(top / "spec")
    d = tmp_path / "h"
    for rel, data in cbind.build(toy).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(data)
    v = next(v for v in toy.variants if v.family == "toy" and v.dtype == "f32")
    src = tmp_path / "toy.cu"
    src.write_text('#include "ptxspec_toy.h"\n__global__ void k(float* out) {\n'
                   "  float d[4]; uint32_t a[4] = {}, b[2] = {}; float c[4] = {};\n"
                   f"  ptxspec::{cbind.name(v)}(d, a, b, c);\n  out[0] = d[0];\n"
                   f"  {cbind.generic_call(toy, v)}(d, a, b, c);\n  out[1] = d[1];\n}}\n")
    r = subprocess.run([nvcc, "-std=c++17", "-arch", "compute_90a", "-ptx", "-Xcompiler", "-Wall,-Wextra,-Werror",
                        "-I", str(d / "c"), str(src), "-o", str(tmp_path / "toy.ptx")],
                       capture_output=True, text=True, timeout=HANG_GUARD)
    # nvcc checks the PTX it wrote with ptxas, which does not know `toy`: only that may fail
    compiler_errors = [x for x in (r.stdout + r.stderr).splitlines() if "error:" in x or "warning" in x]
    assert not compiler_errors, "\n".join(compiler_errors[:20])
    assert (tmp_path / "toy.ptx").read_text().count(v.ptx + " ") == 2
