"""ptxspec audit on the pinned peers (the [peers] extra: nvidia-cuda-cccl 13.3.5.0.6, nvidia-cutlass
4.2.0.0): the report's counts, every confirmed finding confirmed by ptxas or by the maps, and each
reader able to fail on a copy of the peer's files with one thing altered."""
import shutil
from pathlib import Path

import numpy as np
import pytest

from ptxspec.audit import AuditError, audit, cccl, cute


@pytest.fixture(scope="module")
def cccl_quick(spec):
    return audit(spec, "cccl")


@pytest.fixture(scope="module")
def cute_quick(spec):
    return audit(spec, "cutlass")


@pytest.fixture(scope="module")
def cccl_report(spec):
    return audit(spec, "cccl", ptxas=True)


@pytest.fixture(scope="module")
def cute_report(spec):
    return audit(spec, "cutlass", ptxas=True)


def test_cccl_counts(cccl_quick):
    c = cccl_quick.counts()
    assert (c["spellings"], c["matched"], c["distinct_variants"]) == (923, 923, 459)
    assert c["by_kind"] == {"spelling": 0, "guard": 158, "layout": 0}
    assert cccl_quick.coverage.families["tcgen05"] == (434, 692)


@pytest.mark.full
def test_cccl_verdicts(cccl_report):
    c = cccl_report.counts()
    assert c["by_status"] == {"confirmed": 158, "refuted": 0, "unadjudicated": 0}
    for f in cccl_report.findings:  # every verdict is ptxas's, at the witness points it names
        assert f.judge.startswith("ptxas") and f.evidence["ptxas"]
        expect = "rejects" if f.evidence["direction"] == "allows" else "accepts"
        assert set(f.evidence["ptxas"].values()) == {expect}


@pytest.mark.full
def test_cccl_i8_documented_on_family_targets(cccl_report):
    """kind::i8 is documented for SM_100f..SM_110f; ptxas rejects it on the family targets."""
    i8 = [f for f in cccl_report.findings if "kind::i8" in f.subject and f.evidence["direction"] == "allows"]
    assert i8 and all("sm_100f" in f.evidence["targets"] for f in i8)
    assert all(f.evidence["ptxas"]["sm_100f PTX 9.5"] == "rejects" for f in i8)


def test_cute_counts(cute_quick):
    c = cute_quick.counts()
    assert (c["spellings"], c["matched"]) == (2576, 2522)
    assert c["by_kind"] == {"spelling": 54, "guard": 350, "layout": 10}
    # MMA traits A/B/C (SM70's quad-pairs too), sparse A against the packed fragment, the sparse
    # metadata, the block-scale factors, and the copy traits of ldmatrix/stmatrix and tcgen05.ld/st
    assert c["layouts_checked"] == 4811
    notes = "\n".join(cute_quick.unchecked)
    assert "2 copy traits: the atom moves the instruction's registers in C++" in notes  # SM100_U8x{8,16}_LDSM_T
    assert "1 copy traits: movmatrix's traits have the same source and destination layout" in notes
    assert "so CuTe agreeing with them is no independent evidence" in notes  # the spec's tcgen05.ld/st maps


@pytest.mark.full
def test_cute_verdicts(cute_report):
    c = cute_report.counts()
    assert c["by_status"] == {"confirmed": 360, "refuted": 54, "unadjudicated": 0}
    for f in cute_report.findings:
        if f.status == "confirmed":
            assert f.judge.startswith("ptxas") or f.judge in ("layout algebra", "spec maps", "spec fields (H100)")
    # the block-scale selectors written as .b16 registers (mma.sync and mma.sp::ordered_metadata):
    # ptxas accepts them on sm_120a/f and sm_121a/f, the spec has immediates only - the spec is wrong
    refuted = [f for f in cute_report.findings if f.status == "refuted"]
    assert {f.kind for f in refuted} == {"spelling"} and all("block_scale" in f.subject for f in refuted)
    assert all(f.evidence["ptxas"]["sm_120a PTX 9.5"] == "accepts" for f in refuted)


def test_cute_s4_b_layout_collides(cute_quick, spec):
    """SM80_16x8x32_S32S4S4S32_TN::BLayout, against the manual's B fragment of m16n8k32 .s4
    (9.7.14.5.8: row k = (lane % 4) * 8 + i, col n = lane / 4), transcribed here."""
    (f,) = [f for f in cute_quick.findings if f.subject == "SM80_16x8x32_S32S4S4S32_TN::BLayout"]
    assert f.status == "confirmed" and "two elements on one position" in f.message
    lane, i = np.arange(32)[:, None], np.arange(8)[None, :]
    manual = np.stack(np.broadcast_arrays((lane % 4) * 8 + i, lane // 4), axis=-1)
    v = spec.variant("mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32")
    assert (v.fragment("b") == manual).all()
    cute = (lane % 4) * 32 + lane // 4 + 8 * i  # CuTe's ((4,8),8):((32,1),8), as (n + 8 k)
    assert len(np.unique(cute)) < cute.size


def _copy(src: Path, dst: Path, rels) -> Path:
    for rel in rels:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / rel, dst / rel)
    return dst


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


def test_cccl_reader_can_fail(spec, tmp_path):
    src, _ = cccl.default_root()
    rels = ["instructions/generated/ldmatrix.h", "instructions/generated/tcgen05_shift.h"]
    root = _copy(src, tmp_path / "cuda" / "__ptx", rels)
    base = audit(spec, "cccl", str(tmp_path))
    _edit(root / rels[1], "tcgen05.shift.cta_group::1.down", "tcgen05.shift.cta_group::1.up")
    _edit(root / rels[0], "#if __cccl_ptx_isa >= 650", "#if __cccl_ptx_isa >= 600")
    r = audit(spec, "cccl", str(tmp_path))
    new = [f for f in r.findings if (f.file, f.line, f.message) not in {(g.file, g.line, g.message) for g in base.findings}]
    assert any(f.kind == "spelling" and f.subject == "tcgen05.shift.cta_group::1.up" for f in new)
    assert any(f.kind == "guard" and f.evidence["direction"] == "allows" and f.subject.startswith("ldmatrix")
               for f in new)
    _edit(root / rels[0], "#if __cccl_ptx_isa >= 860", "#if __cccl_ptx_isa >= 8x0")
    with pytest.raises(AuditError, match="ldmatrix.h:[0-9]+: cannot read the PTX guard"):
        audit(spec, "cccl", str(tmp_path))


CUTE_FILES = ["cutlass/detail/helper_macros.hpp", "cutlass/arch/config.h", "cute/arch/config.hpp",
              "cute/arch/mma_sm80.hpp", "cute/atom/mma_traits_sm80.hpp", "cute/arch/mma_sm90_desc.hpp",
              "cute/arch/mma_sm100_desc.hpp", "cute/arch/copy_sm75.hpp", "cute/atom/copy_traits_sm75.hpp",
              "cute/arch/mma_sm120.hpp", "cute/atom/mma_traits_sm120.hpp"]


def test_cute_reader_can_fail(spec, tmp_path):
    """One asm string, one guard, one layout stride of each kind (MMA traits, copy traits,
    block-scale factors) and one descriptor field altered: each is reported."""
    src, _ = cute.default_root()
    root = _copy(src, tmp_path, CUTE_FILES)
    base = audit(spec, "cutlass", str(root))
    assert base.layouts_checked > 100 and base.counts()["by_kind"]["layout"] == 10
    _edit(root / "cute/arch/mma_sm80.hpp", '"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 "',
          '"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f32 "')
    _edit(root / "cute/arch/mma_sm80.hpp", "(__CUDA_ARCH__ >= 800))", "(__CUDA_ARCH__ >= 750))")
    _edit(root / "cute/atom/mma_traits_sm80.hpp", "Stride<Stride<_32,_1>,Stride<_16,_8>>>;",
          "Stride<Stride<_32,_1>,Stride<_8,_16>>>;")
    # SM75_U16x4_LDSM_T's registers: the strides of the element in a register and of the register swapped
    _edit(root / "cute/atom/copy_traits_sm75.hpp", "Stride<Stride<_256,_16>,Stride< _1,_128,_1024>>>;",
          "Stride<Stride<_256,_16>,Stride< _1,_1024,_128>>>;")
    # SM120_16x8x64_TN_VS's SFALayout: the rows of the lanes swapped
    _edit(root / "cute/atom/mma_traits_sm120.hpp", "Stride<Stride<_8,_0,_1>,_16>>;", "Stride<Stride<_1,_0,_2>,_16>>;")
    _edit(root / "cute/arch/mma_sm100_desc.hpp", "n_dim_         : 6,", "n_dim_         : 5,")
    r = audit(spec, "cutlass", str(root))
    new = [f for f in r.findings if (f.file, f.line, f.message) not in {(g.file, g.line, g.message) for g in base.findings}]
    assert {("spelling", ""), ("guard", "allows"), ("layout", "")} <= {(f.kind, f.evidence.get("direction", ""))
                                                                       for f in new}
    assert any("InstrDescriptor.m_dim_" in f.subject or "n_dim_" in f.subject for f in r.findings)
    subjects = {f.subject: f for f in new if f.kind == "layout"}
    assert "elsewhere than the spec's map" in subjects["SM80_16x8x8_F32F16F16F32_TN::ALayout"].message
    assert "movement map" in subjects["SM75_U16x4_LDSM_T::DstLayout"].message
    assert "block-scale factor map of scale_a" in subjects["SM120_16x8x64_TN_VS::SFALayout"].message
