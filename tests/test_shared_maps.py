"""The maps of variants no H100 can run are maps the H100 proved for other variants.

`.kind::f8f6f4`, block scaling and the other sm_100a/sm_120a-family forms cannot run on the
H100 (`hardware` says so per variant). Their fragment maps are the dense maps of the same shape
and element width (fp6/fp4 in 8-bit containers read as 8-bit elements; packed e2m1 as 4-bit),
and their metadata maps the sparsities of the same shape: every one of them must equal, element
for element, a map that a variant with `hardware == "H100"` uses, and campaigns proved.
"""
import numpy as np


def _maps(v):
    out = {}
    for name, (layout, bits, shape) in v.fragment_layouts.items():
        fm = v.fragment_map(name)
        out[name] = (bits, fm.row.tobytes() + fm.col.tobytes() + bytes(str(fm.row.shape), "ascii"))
    return out


def test_unrun_fragment_maps_are_proven_maps(spec):
    proven = set()
    for v in spec.variants:
        if v.family == "mma" and v.hardware == "H100":
            proven |= {(name, bits, key) for name, (bits, key) in _maps(v).items()}
    unrun = [v for v in spec.variants if v.family == "mma" and v.hardware != "H100"]
    assert len(unrun) >= 290
    lonely = [(v.id, name) for v in unrun for name, (bits, key) in _maps(v).items()
              if (name, bits, key) not in proven and not v.hardware_note]
    assert not lonely, f"{len(lonely)} maps of unrun variants that no H100-proven variant shares: {lonely[:6]}"


def test_unrun_metadata_maps_are_proven_maps(spec):
    def meta(v):
        return tuple(
            tuple(np.asarray(x).tobytes() for x in v.sparsity.metadata_map(v.threads, v.m, v.n, v.k, sel))
            for sel in v.selectors)
    proven = {(v.sparsity.name, v.m, v.k, meta(v)) for v in spec.variants
              if v.family == "mma" and v.sparse and v.hardware == "H100"}
    unrun = [v for v in spec.variants if v.family == "mma" and v.sparse and v.hardware != "H100"]
    assert unrun
    lonely = [v.id for v in unrun if (v.sparsity.name, v.m, v.k, meta(v)) not in proven]
    assert not lonely, lonely[:6]


def test_containers_hold_fp6_fp4_in_bytes(spec):
    """Under .kind::f8f6f4/.kind::mxf8f6f4 every element takes a byte (e2m1 in bits 2-5, fp6 in bits
    0-5); under .kind::mxf4/.kind::mxf4nvf4 two e2m1 share a byte: A of m16n8k32 f8f6f4 and of
    m16n8k64 mxf4 both fill 4 registers (16 x 32 bytes per warp)."""
    e2m1 = spec.types["e2m1"]
    assert (e2m1.bits, e2m1.container_bits, e2m1.container_shift) == (4, 8, 2)
    assert all((spec.types[t].bits, spec.types[t].container_bits, spec.types[t].container_shift) == (6, 8, 0)
               for t in ("e3m2", "e2m3"))
    f8 = spec.variant("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32")
    mx = spec.variant("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0")
    assert f8.regs["a"] == mx.regs["a"] == 4 and f8.regs["b"] == mx.regs["b"] == 2
    assert f8.fragment_layouts["a"][1] == 8 and mx.fragment_layouts["a"][1] == 4
