"""The .ws forms' zero-column mask descriptor (spec/descriptors/tcgen05_zero_column_mask.yaml)
against the manual's Table 45 and its examples, transcribed here (PTX ISA 9.7.16.4.3)."""
from __future__ import annotations

import numpy as np
import ptxspec
import pytest
from ptxspec.model import descriptors as D

SPEC = ptxspec.load()
SEL = "cta_group::1"
NAME = "zero_column_mask"

# Table 45: (first bit, width, field); bits 62-63 are in no row of the table
TABLE_45 = [(0, 8, "sc0"), (8, 8, "sc1"), (16, 8, "sc2"), (24, 8, "sc3"), (32, 1, "fs0"), (33, 1, "fs1"),
            (34, 1, "fs2"), (35, 1, "fs3"), (36, 3, None), (39, 1, "non_zero_mask"), (40, 8, "skip_span"),
            (48, 8, "use_span"), (56, 6, "column_shift"), (62, 2, None)]


def test_fields_are_table_45():
    d = D.descriptor(SPEC, "tcgen05", NAME)
    assert d.bits == 64 and d.operand_kind == "column_mask"
    (lay,) = d.layouts
    got = [(f.lsb, f.width, None if f.what == "reserved" else f.name) for f in lay.fields]
    assert got == TABLE_45


def test_the_manuals_examples_encode_bit_by_bit():
    ex1 = D.encode(SPEC, SEL, name=NAME, sc0=0, sc1=0, sc2=0, sc3=0, non_zero_mask=0, skip_span=4, use_span=3)
    assert ex1 == (4 << 40) | (3 << 48)
    ex4 = D.encode(SPEC, SEL, name=NAME, sc0=0, sc1=1, sc2=2, sc3=1, fs0=1, fs1=1, fs2=0, fs3=0, non_zero_mask=1,
                   skip_span=2, use_span=3, column_shift=2)
    assert ex4 == (1 << 8) | (2 << 16) | (1 << 24) | (1 << 32) | (1 << 33) | (1 << 39) | (2 << 40) | (3 << 48) | (2 << 56)
    back = D.decode(SPEC, SEL, ex4, name=NAME)
    assert back["problems"] == [] and (back["sc2"], back["fs1"], back["column_shift"]) == (2, 1, 2)


def test_bad_values_and_reserved_bits():
    with pytest.raises(D.DescriptorError):
        D.encode(SPEC, SEL, name=NAME, sc0=0, sc1=0, sc2=0, sc3=0, skip_span=0, use_span=0, column_shift=33)
    assert D.decode(SPEC, SEL, 1 << 37, name=NAME)["problems"]
    assert D.decode(SPEC, SEL, 1 << 63, name=NAME)["problems"]


def test_the_executor_reads_the_mask_through_the_descriptor():
    v = next(v for v in SPEC.variants if v.instruction == "tcgen05.mma.ws" and v.form == "desc"
             and v.qualifiers.get("kind") == "kind::f16")
    idesc = D.encode(SPEC, "kind::f16", m=32, n=64, dtype="f32", atype="f16", btype="f16")
    img = np.zeros((128, 512), np.uint32)
    ops = dict(d=0, a_desc=0, b_desc=0, idesc=idesc, enable_input_d=1)
    ones = D.encode(SPEC, SEL, name=NAME, sc0=0, sc1=0, sc2=0, sc3=0, non_zero_mask=1, skip_span=2, use_span=3)
    with pytest.raises(NotImplementedError, match="zeroes columns"):
        v.execute(tmem=img, smem=bytes(1 << 16), zero_column_mask=ones, **ops)
    with pytest.raises(ValueError, match="reserved"):
        v.execute(tmem=img, smem=bytes(1 << 16), zero_column_mask=1 << 37, **ops)


@pytest.mark.full
def test_cpp_make_puts_fields_above_bit_31(tmp_path):
    """The generated C++ builds Example 4's word (fields above bit 31 need a 64-bit shift) and
    reads it back; compiled by g++ and checked at compile time."""
    import shutil
    import subprocess

    from ptxspec.emit import cbind
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    (tmp_path / "ptxspec_common.h").write_bytes(cbind.build(SPEC)["c/ptxspec_common.h"])
    word = (1 << 8) | (2 << 16) | (1 << 24) | (1 << 32) | (1 << 33) | (1 << 39) | (2 << 40) | (3 << 48) | (2 << 56)
    ns = "ptxspec::zero_column_mask_tcgen05::ws"
    src = tmp_path / "zcm.cpp"
    src.write_text("\n".join([
        '#include <cstdint>', '#include "ptxspec_common.h"',
        f"static_assert({ns}::make(0, 1, 2, 1, 1, 1, 0, 0, 1, 2, 3, 2) == {word}ull, \"Example 4\");",
        f"static_assert({ns}::get_column_shift({word}ull) == 2 && {ns}::get_use_span({word}ull) == 3, \"fields\");",
        "int main() { return 0; }", ""]))
    subprocess.run([gxx, "-std=c++17", "-Wall", "-Werror", "-I", str(tmp_path), str(src), "-o", str(tmp_path / "z")],
                   check=True, capture_output=True)
