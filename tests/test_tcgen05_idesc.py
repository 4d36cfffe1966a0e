"""The tcgen05 instruction descriptor (spec/descriptors/tcgen05.yaml) against independent truth:

* field by field against the manual's Tables 42-44 as transcribed by hand in tcgen05_truth.py:
  every field's bit position and width, every legal value's code (setting one field changes
  exactly its bits, to the table's code), the reserved bits;
* the descriptors CUTLASS builds for named atoms (values worked out by hand from its headers,
  tcgen05_truth.CUTLASS_IDESCS), by the Python encoder and by the generated C++ (g++);
* Table 39's shapes (tcgen05_truth.SHAPES_TABLE_39) against the shapes the spec allows;
* decode inverts encode, and reports what a layout does not allow, Table 39's type
  combinations included.
"""
from __future__ import annotations

import itertools
import re
import shutil
import subprocess

import pytest
from ptxspec.emit import cbind
from ptxspec.model import descriptors as D
from tcgen05_truth import CUTLASS_IDESCS, IDESC_TABLES, K96, KIND_TYPES, SHAPES_TABLE_39

KINDS = {k: f"kind::{k}" for k in ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")}
YES_NO = {"no": 0, "yes": 1}


def _truth_fields(kind):
    for t in IDESC_TABLES:
        if kind in t["kinds"]:
            return t["fields"]
    raise KeyError(kind)


def _values(kind, raw, fields=None):
    """The table's {value name: code} for one kind (None: a number field)."""
    if isinstance(raw, str) and raw.startswith("as "):  # "as atype": the same values as that field
        raw = next(r for n, _, _, r in fields if n == raw[3:])
    if isinstance(raw, dict):
        if kind in raw:
            raw = raw[kind]
        elif "other" in raw and all(isinstance(v, dict) for v in raw.values()):
            raw = raw["other"]
        return raw
    return None


@pytest.fixture(scope="module")
def idesc(spec):
    return D.descriptor(spec, "tcgen05", "idesc")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_field_positions_and_reserved_bits(idesc, kind):
    lay = idesc.layout(KINDS[kind])
    truth = _truth_fields(kind)
    want = {(lsb, width) for name, lsb, width, _ in truth if name != "reserved"}
    got = {(f.lsb, f.width) for f in lay.fields if f.what != "reserved"}
    assert got == want
    names = {(lsb, width): name for name, lsb, width, _ in truth}
    for f in lay.fields:
        if f.what == "reserved":
            assert names[(f.lsb, f.width)] == "reserved" and f.reserved == 0
        else:
            assert {"k": "k96"}.get(names[(f.lsb, f.width)], names[(f.lsb, f.width)]) == f.name


def _baseline(spec, kind):
    """Inputs of a legal descriptor for the kind: M and N from Table 39, types from its first pair."""
    m, n = SHAPES_TABLE_39[(kind, False, 1)][0][0], 64
    types = KIND_TYPES[kind]
    args = dict(m=m, n=n, atype=types["ab"][0], btype=types["ab"][0])
    if len(types["dtype"]) > 1 or kind in ("f16", "tf32", "f8f6f4", "i8"):
        args["dtype"] = types["dtype"][-1]
    if "scale" in types:
        args["scale_type"] = types["scale"][0]
    return args


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_field_value_sets_exactly_its_bits(spec, kind):
    base_args = _baseline(spec, kind)
    base = D.encode(spec, KINDS[kind], **base_args)
    checked = 0
    for name, lsb, width, raw in _truth_fields(kind):
        if name == "reserved":
            assert (base >> lsb) & ((1 << width) - 1) == 0
            continue
        mask = ((1 << width) - 1) << lsb
        values = _values(kind, raw, _truth_fields(kind))
        if name in ("m", "n"):
            shift = {"M >> 4": 4, "M >> 7": 7, "N >> 3": 3}[raw]
            legal = SHAPES_TABLE_39[(kind, False, 1)][0] if name == "m" else (8, 64, 256)
            cases = [(x, x >> shift) for x in legal]
        elif values is None:  # "0-3", "0 or 2": small numbers stored as themselves
            lo, hi = map(int, re.findall(r"\d+", raw)[:2])
            cases = [(x, x) for x in ((lo, hi) if " or " in raw else range(lo, hi + 1))]
        elif set(values) <= set(YES_NO):
            cases = [(YES_NO[k], code) for k, code in values.items()]
        elif name == "k":
            cases = [(0, 0), (1, 1)]
        else:
            cases = list(values.items())
        for value, code in cases:
            key = {"k": "k96"}.get(name, name)
            word = D.encode(spec, KINDS[kind], **{**base_args, key: value})
            assert (word >> lsb) & ((1 << width) - 1) == code, (name, value)
            assert word & ~mask == base & ~mask, (name, value)
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_values_the_tables_do_not_allow_are_refused(spec, kind):
    base = _baseline(spec, kind)
    bad = [dict(atype="f32"), dict(n=4), dict(n=260), dict(m=48)]
    if kind == "i8":
        bad.append(dict(negate_a=1))
    if kind in ("mxf4", "mxf4nvf4"):
        bad += [dict(transpose_a=1), dict(a_scale_id=1)]
    if kind != "i8":
        bad.append(dict(saturate=1) if kind in ("f16", "tf32", "f8f6f4") else dict(atype="s8"))
    for b in bad:
        with pytest.raises(D.DescriptorError):
            D.encode(spec, KINDS[kind], cta_group="cta_group::1", **{**base, **b})


def test_cutlass_descriptors(spec):
    for atom, kind, fields, want in CUTLASS_IDESCS:
        assert D.encode(spec, KINDS[kind], **fields) == want, atom
        got = D.decode(spec, KINDS[kind], want)
        assert not got["problems"], (atom, got["problems"])
        for k, v in fields.items():
            assert got[k] == v, (atom, k)


def test_shapes_are_table_39(spec):
    for (kind, ws, cta), (ms, n_dense, n_sparse, k_dense, k_sparse, m_sparse) in SHAPES_TABLE_39.items():
        for sparse in (False, True):
            got = D.shapes(spec, KINDS[kind], f"cta_group::{cta}", ws, sparse)
            assert got is not None, (kind, ws, cta)
            m, n, k = got
            assert tuple(m) == tuple(m_sparse if sparse and m_sparse else ms), (kind, ws, cta, sparse)
            assert tuple(n) == tuple(n_sparse if sparse else n_dense), (kind, ws, cta, sparse)
            assert k == (k_sparse if sparse else k_dense), (kind, ws, cta, sparse)
    for kind in KINDS.values():  # every block-scaled kind with .ws, and cta_group::2 with .ws: none
        assert D.shapes(spec, kind, "cta_group::2", ws=True) is None
    for kind in ("mxf8f6f4", "mxf4", "mxf4nvf4"):
        assert D.shapes(spec, KINDS[kind], "cta_group::1", ws=True) is None
    # K = 96: the k96 bit of the mxf4 layouts (dense, M = 256, CTA pair)
    for kind, cta, m in K96:
        word = D.encode(spec, KINDS[kind], cta_group=f"cta_group::{cta}", m=m, n=128, atype="e2m1",
                        btype="e2m1", scale_type="ue8m0", k96=1)
        assert word >> 31 == 1


def test_decode_reports_what_the_layout_does_not_allow(spec):
    word = D.encode(spec, "kind::f16", m=128, n=64, dtype="f32", atype="f16", btype="f16")
    assert D.decode(spec, "kind::f16", word)["problems"] == []
    assert any("reserved" in p for p in D.decode(spec, "kind::f16", word | 1 << 23)["problems"])
    assert any("atype" in p for p in D.decode(spec, "kind::f16", word | 7 << 7)["problems"])
    # every encodable f16 descriptor decodes to its inputs
    for m, n, a, d, ta in itertools.product((64, 128), (8, 136, 256), ("f16", "bf16"), ("f16", "f32"), (0, 1)):
        if (a, d) == ("bf16", "f16"):  # Table 39: refused (test_kind_f16_type_combinations_follow_table_39)
            continue
        w = D.encode(spec, "kind::f16", m=m, n=n, atype=a, btype=a, dtype=d, transpose_a=ta)
        got = D.decode(spec, "kind::f16", w)
        assert (got["m"], got["n"], got["atype"], got["dtype"], got["transpose_a"]) == (m, n, a, d, ta)


def test_kind_f16_type_combinations_follow_table_39(spec):
    """Table 39 gives kind::f16 an f16 D only with f16 A and B (bf16 inputs accumulate into f32):
    the encoder refuses the others, decode reports them, and the executor's product list
    (tcgen05.mma's numerics status) names none of them. Other kinds' D types take every input
    type of the kind."""
    from ptxspec.semantics import tmem_mma
    types = KIND_TYPES["f16"]
    assert types["bf16_needs_f32"]
    for a, b, d in itertools.product(types["ab"], types["ab"], types["dtype"]):
        args = dict(m=128, n=64, atype=a, btype=b, dtype=d)
        if d == "f16" and "bf16" in (a, b):
            with pytest.raises(D.DescriptorError, match="Table 39"):
                D.encode(spec, "kind::f16", **args)
            word = D.encode(spec, "kind::f16", **{**args, "dtype": "f32"}) & ~(3 << 4)  # dtype f16 = 0
            assert [p for p in D.decode(spec, "kind::f16", word)["problems"] if "Table 39" in p], args
        else:
            word = D.encode(spec, "kind::f16", **args)
            assert D.decode(spec, "kind::f16", word)["problems"] == []
    for kind in ("f8f6f4", "tf32", "i8"):
        for a, b, d in itertools.product(KIND_TYPES[kind]["ab"], KIND_TYPES[kind]["ab"], KIND_TYPES[kind]["dtype"]):
            D.encode(spec, KINDS[kind], m=128, n=64, atype=a, btype=b, dtype=d)
    mma = next(v for v in spec.variants if v.semantics == "tmem_mma" and v.qualifiers.get("kind") == "kind::f16")
    labels = {label for label, *_ in tmem_mma.products(mma)}
    assert labels and not {x for x in labels if x.endswith("->f16") and "bf16" in x}, labels
    assert "f16*f16->f16" in labels and "bf16*bf16->f32" in labels


@pytest.mark.full
def test_cpp_encoder_matches(spec, tmp_path):
    """The generated C++ (ptxspec_common.h: idesc_tcgen05::<layout>::make / get_<field>) builds
    CUTLASS's descriptors too, and reads them back; compiled by g++ and run."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    files = cbind.build(spec)
    (tmp_path / "ptxspec_common.h").write_bytes(files["c/ptxspec_common.h"])
    idesc = D.descriptor(spec)
    lines = ["#include <cstdio>", "#include <cstdint>", '#include "ptxspec_common.h"', "int main() {"]
    want = []
    for atom, kind, fields, value in CUTLASS_IDESCS:
        lay = idesc.layout(KINDS[kind])
        ns = f"ptxspec::idesc_tcgen05::{lay.name}"
        args = []
        for f in lay.fields:
            if f.what == "reserved":
                continue
            x = fields.get(f.name)
            if f.what == "codes":
                x = f"{ns}::{f.name}_{x if x is not None else D._default(f, KINDS[kind])}"
            elif x is None:
                x = D._default(f, KINDS[kind])
            args.append(str(x))
        lines.append(f'  std::printf("%u\\n", (unsigned){ns}::make({", ".join(args)}));')
        want.append(value)
        lines.append(f'  std::printf("%u\\n", (unsigned){ns}::get_n({value}u));')
        want.append(fields["n"])
        lines.append(f'  std::printf("%u\\n", (unsigned){ns}::get_m({value}u));')
        want.append(fields["m"])
    lines += ["  return 0;", "}"]
    src = tmp_path / "idesc.cpp"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "idesc"
    subprocess.run([gxx, "-std=c++17", "-Wall", "-Werror", "-I", str(tmp_path), str(src), "-o", str(exe)],
                   check=True, capture_output=True)
    out = [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    assert out == want
