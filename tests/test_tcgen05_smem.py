"""The tcgen05 shared-memory matrix descriptor (spec/smem/tcgen05.yaml) against independent truth:
the manual's field table (PTX ISA 9.7.16.4.1) and the descriptors CUTLASS builds
(UMMA::make_umma_desc), both transcribed by hand in tcgen05_truth.py; CuTe's swizzle functors;
and the Hopper descriptor (spec/smem/wgmma.yaml, measured on an H100), which the manual says is
the same but for the new bits. Nothing here ran on a Blackwell GPU.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from ptxspec.model import smem as S
from tcgen05_truth import (
    CUTE_MN_SW128_32B_TF32,
    CUTLASS_SMEM_DESCS,
    SMEM_CUTE_SWIZZLE,
    SMEM_DESC_TABLE,
    SMEM_SWIZZLE_CODES,
)

F = "tcgen05"


def test_fields_are_the_manuals_table(spec):
    sm = spec.smem[F]
    got = sorted((f["lsb"], f["width"], f.get("fixed")) for f in sm.fields)
    want = sorted((lsb, width, content if name == "fixed" else None) for name, lsb, width, content in SMEM_DESC_TABLE)
    assert got == want
    names = {f["lsb"]: f["name"] for f in sm.fields}
    assert all(names[lsb] == name for name, lsb, _, _ in SMEM_DESC_TABLE if name != "fixed")
    assert {m.name: m.code for m in sm.swizzle_modes} == SMEM_SWIZZLE_CODES


def test_each_field_sets_exactly_its_bits(spec):
    base = S.encode_descriptor(spec, 0, 0, 0, "none", family=F)
    assert base == 1 << 46  # only the fixed 0b001
    for name, lsb, width, _ in SMEM_DESC_TABLE:
        if name == "fixed":
            continue
        top = (1 << width) - 1
        if name in ("start_address", "leading_byte_offset", "stride_byte_offset"):
            args = {"start_address": dict(start=top << 4), "leading_byte_offset": dict(lbo=top << 4),
                    "stride_byte_offset": dict(sbo=top << 4)}[name]
            d = S.encode_descriptor(spec, **{"start": 0, "lbo": 0, "sbo": 0, **args}, swizzle="none", family=F)
        elif name == "swizzle":
            d = S.encode_descriptor(spec, 0, 0, 0, 6, family=F)
            top = 6
        elif name == "lbo_mode":
            d = S.encode_descriptor(spec, 0, 0, 0, "none", family=F, lbo_mode=1)
        else:
            d = S.encode_descriptor(spec, 0, 0, 0, "none", base_offset=top, family=F)
        assert d ^ base == top << lsb, name


@pytest.mark.parametrize("what, start, lbo, sbo, swizzle, want", CUTLASS_SMEM_DESCS)
def test_cutlass_descriptors(spec, what, start, lbo, sbo, swizzle, want):
    assert S.encode_descriptor(spec, start, lbo, sbo, swizzle, family=F) == want, what
    got = S.decode_descriptor(spec, want, F)
    assert (got["start_address"], got["leading_byte_offset"], got["stride_byte_offset"], got["swizzle_name"],
            got["lbo_mode"], got["version"], got["unused_bits"]) == (start, lbo, sbo, swizzle, 0, 1, 0)


def test_same_as_hopper_but_the_new_bits(spec):
    """For the four modes Hopper has, the Blackwell descriptor is the wgmma one (whose 2-bit swizzle
    at 62-63 holds c where Blackwell's 3 bits at 61-63 hold 2c) plus the fixed bit 46."""
    for start, lbo, sbo, base, mode in itertools.product((0x0, 0x1230, 0x3FFF0), (16, 0x2A0), (1024, 0x3FFF0),
                                                          (0, 5), ("none", "32B", "64B", "128B")):
        hopper = S.encode_descriptor(spec, start, lbo, sbo, mode, base, family="wgmma")
        assert S.encode_descriptor(spec, start, lbo, sbo, mode, base, family=F) == hopper | 1 << 46


def _cute_swizzle(x, b, m, s):
    mask = ((1 << b) - 1) << (m + s)
    return x ^ ((x & mask) >> s)


def test_swizzle_is_cutes(spec):
    sm = spec.smem[F]
    a = np.arange(0, 1 << 14, dtype=np.int64)
    for mode in sm.swizzle_modes:
        got = np.asarray(sm.swizzle(a=a, b=mode.b, o=0, u=mode.unit), dtype=np.int64)
        assert (got == _cute_swizzle(a, *SMEM_CUTE_SWIZZLE[mode.name])).all(), mode.name


def test_mn_major_32b_atom_canonical_layout(spec):
    """The MN-major swizzled canonical layout with the 128B_base32B mode (4 rows per atom) places
    every tf32 element of the 64 x 8 tile where CuTe's layout does."""
    lay = S.canonical_layout(spec, "MN", True, F)
    mode = S.swizzle_mode(spec, "128B_base32B", F)
    (shape, stride) = CUTE_MN_SW128_32B_TF32
    mn, k = np.meshgrid(np.arange(64), np.arange(8), indexing="ij")
    unit = mn // 4
    cute = 16 * ((unit % 8) * stride[0][0] + (unit // 8) * stride[0][1] + (k % 4) * stride[1][0]
                 + (k // 4) * stride[1][1]) + 4 * (mn % 4)
    bits = lay["bit_offset"](mn=mn, k=k, bits=32, W=mode.width, R=mode.rows, LBO=512, SBO=1024)
    assert (np.asarray(bits) == 8 * cute).all()
    assert mode.majors == ("MN",)
