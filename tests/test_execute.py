"""Variant.execute: the contract of PRODUCT.md (operands by PTX name, registers (threads, regs) with an
optional batch dimension, shared memory as bytes) and the identities the immediates obey."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from ptxspec.model import smem as S
from ptxspec.semantics import numerics as nm
from ptxspec.semantics import numerics_status

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "campaigns" / "numerics"))
import numgen as G  # noqa: E402

WG = "wgmma.mma_async.sync.aligned.m64n24k16.f32.bf16.bf16"


def _case(spec, vid, i, **imm):
    v = G.variant_of(spec, vid)
    names = {o.name: (1 if o.name.startswith("imm_scale") else 0) for o in v.operands if o.kind in ("immediate", "selector")}
    names.update(imm)
    return v, G.case_inputs(spec, {"variant": vid, "imm": names}, i)


@pytest.mark.parametrize("vid", [WG + ":desc", WG + ":reg", "wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e5m2:desc",
                                 "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                 "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"])
def test_batch_equals_one_by_one(spec, vid):
    v = G.variant_of(spec, vid)
    cases = [_case(spec, vid, i)[1] for i in range(6)]
    # one call per case
    single = [v.execute(smem=c["smem"], smem_origin=G.TARGET, **c["ops"]) if c["smem"] is not None
              else v.execute(**c["ops"]) for c in cases]
    # cases 0 and 6 share descriptors and scale-d in the campaign's rotation; batch the registers
    c0 = cases[0]
    batch = {n: (np.stack([c0["ops"][n]] * 3) if np.ndim(x) else x) for n, x in c0["ops"].items()}
    kw = {}
    if c0["smem"] is not None:
        kw = dict(smem=np.stack([c0["smem"]] * 3), smem_origin=G.TARGET)
    out = v.execute(**kw, **batch)
    assert out.shape == (3,) + single[0].shape
    assert all(np.array_equal(o, single[0]) for o in out)
    assert single[0].shape == (v.threads, v.operand("d").regs)


def test_scale_d_zero_is_c_plus_zero(spec):
    v, c = _case(spec, WG + ":reg", 1)
    ops = dict(c["ops"])
    ops["scale_d"] = 0
    zero = dict(ops, d=np.zeros_like(ops["d"]), scale_d=1)
    assert np.array_equal(v.execute(smem=c["smem"], smem_origin=G.TARGET, **ops),
                          v.execute(smem=c["smem"], smem_origin=G.TARGET, **zero))


def test_imm_scale_negates_exactly(spec):
    """imm-scale-a = -1 is A with every sign bit flipped (the campaign confirmed it on the H100)."""
    v, c = _case(spec, WG + ":reg", 2, imm_scale_a=-1)
    ops = dict(c["ops"])
    a = v.unpack("a", ops["a"]) ^ np.uint16(0x8000)
    flipped = dict(ops, a=v.pack("a", a), imm_scale_a=1)
    assert np.array_equal(v.execute(smem=c["smem"], smem_origin=G.TARGET, **ops),
                          v.execute(smem=c["smem"], smem_origin=G.TARGET, **flipped))


def test_descriptor_reads_every_swizzle(spec):
    """The same B placed with each swizzle mode gives the same D."""
    v = spec.variant(WG, "reg")
    rng = np.random.default_rng(0)
    A = rng.integers(0, 1 << 16, (64, 16), dtype=np.uint64) & np.uint64(0x3FFF)
    B = rng.integers(0, 1 << 16, (16, 24), dtype=np.uint64) & np.uint64(0xBFFF)
    outs = []
    for mode, lbo, sbo in (("none", 128, 256), ("32B", 16, 256), ("64B", 16, 512), ("128B", 16, 1024)):
        img = bytearray(8192)
        S.write_matrix(img, v, "b", "K", mode, 0x400, lbo, sbo, B)
        d = S.descriptor_for(v, 0x400, lbo, sbo, mode)
        outs.append(v.execute(d=np.zeros((128, 12), np.uint32), a=v.pack("a", A), b_desc=d, smem=bytes(img)))
    assert all(np.array_equal(o, outs[0]) for o in outs)


def test_operand_errors(spec):
    v = spec.variant(WG, "desc")
    with pytest.raises(TypeError, match="reads shared memory"):
        v.execute(d=np.zeros((128, 12), np.uint32), a_desc=0, b_desc=0)
    with pytest.raises(TypeError, match="has no operand"):
        v.execute(d=np.zeros((128, 12), np.uint32), a=0, a_desc=0, b_desc=0, smem=b"")
    with pytest.raises(ValueError, match="not one of"):
        v.execute(d=np.zeros((128, 12), np.uint32), a_desc=0, b_desc=0, smem=b"", imm_scale_a=2)
    with pytest.raises(ValueError, match="outside the image"):
        v.execute(d=np.zeros((128, 12), np.uint32), a_desc=S.descriptor_for(v, 0x400, 128, 256, "none"),
                  b_desc=0, smem=bytes(64))


def test_params_come_from_rules_for_every_measured_variant(spec):
    measured = numerics_status.measured(spec)
    assert measured
    for v in G.runnable(spec):
        if v.id not in measured:
            continue
        p = nm.params(v)
        assert p == nm._params(v)
        if p.model == "fdpa":  # one step over K; wmma m16n16k8 .tf32: two HMMA.1684 steps of k4
            assert p.group == (4 if (v.family, v.k, v.atype) == ("wmma", 8, "tf32") else v.k)


def test_variants_the_h100_cannot_show_are_refused(spec):
    """m8n8k4 .bf16/.tf32 (D reads 0x00fffdc0 whatever the inputs) and wmma .f64 m16n16k16/k8 (no
    multiply emitted): the spec's hardware_note; no arithmetic on any target (tests/test_numerics_sass.py),
    no campaign, a clear refusal."""
    noted = [v for v in spec.variants if v.hardware_note and nm.computes_product(v)]
    assert {v.m for v in noted} >= {8, 16} and len(noted) >= 48
    assert not set(G.runnable(spec)) & set(noted)
    v = spec.variant("mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32")
    z = {n: np.zeros((32, v.operand(n).regs), np.uint32) for n in ("a", "b", "c")}
    with pytest.raises(NotImplementedError, match="no arithmetic: ptxas emits no product for it on any target"):
        v.execute(**z)
    status = {r[0]: r[3] for r in numerics_status.status_rows(spec)}
    assert {status[v.id] for v in noted} == {nm.NO_ARITHMETIC}


def _put(mem, mat, p, stride, layout, bits):
    """Write a matrix of raw codes bit by bit (an independent writer: no numpy layout code)."""
    rows, cols = mat.shape
    for i in range(rows):
        for j in range(cols):
            off = (i * stride + j if layout == "row" else j * stride + i) * bits + p * 8
            val = int(mat[i, j])
            for b in range(bits):
                if (val >> b) & 1:
                    mem[(off + b) // 8] |= 1 << ((off + b) % 8)


def _get(mem, shape, p, stride, layout, bits):
    out = np.zeros(shape, np.uint64)
    for i in range(shape[0]):
        for j in range(shape[1]):
            off = (i * stride + j if layout == "row" else j * stride + i) * bits + p * 8
            out[i, j] = sum(((int(mem[(off + b) // 8]) >> ((off + b) % 8)) & 1) << b for b in range(bits))
    return out


@pytest.mark.parametrize("shape,at,dt,al,bl,cl,dl", [
    ((16, 16, 16), "f16", "f32", "row", "col", "row", "col"), ((32, 8, 16), "bf16", "f32", "col", "row", "col", "row"),
    ((8, 8, 32), "s4", "s32", "row", "col", "row", "col"), ((8, 8, 128), "b1", "s32", "row", "col", "col", "row"),
    ((8, 8, 4), "f64", "f64", "col", "row", "row", "col"), ((16, 16, 8), "tf32", "f32", "row", "row", "row", "row")])
def test_wmma_memory_chain(spec, shape, at, dt, al, bl, cl, dl):
    """wmma.load (layout, stride) -> wmma.mma -> wmma.store gives A.B + C in memory (exact values)."""
    from ptxspec.core.formats import decode
    m, n, k = shape
    bits = {t: spec.types[t].bits for t in (at, dt)}

    def pick(inst, attr, t, lay):
        return next(v for v in spec.variants if v.instruction == inst and (v.m, v.n, v.k) == shape
                    and getattr(v, attr) == t and v.qualifiers.get("layout") == lay and v.qualifiers.get("space") == "")
    mma = next(v for v in spec.variants if v.instruction == "wmma.mma" and (v.m, v.n, v.k) == shape and v.atype == at
               and v.dtype == dt and v.ctype == dt and v.qualifiers["alayout"] == al and v.qualifiers["blayout"] == bl
               and not v.satfinite and not v.qualifiers.get("rnd") and (v.op or "and").startswith("and"))
    rng = np.random.default_rng(4)

    def codes(t, shp):
        if spec.types[t].cls != "float":
            if t == "s32":
                return (rng.integers(-1000, 1000, shp) & 0xFFFFFFFF).astype(np.uint64)
            return rng.integers(0, 1 << spec.types[t].bits, shp).astype(np.uint64)
        vals = rng.choice([0, 0.5, -1, 1.5, 2, -3], shp)
        if t == "f16":
            return vals.astype(np.float16).view(np.uint16).astype(np.uint64)
        if t == "bf16":
            return (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
        return vals.astype(np.float64).view(np.uint64) if t == "f64" else \
            vals.astype(np.float32).view(np.uint32).astype(np.uint64)
    A, B, C = codes(at, (m, k)), codes(at, (k, n)), codes(dt, (m, n))
    sa, sb = (k if al == "row" else m) + 128, (n if bl == "row" else k) + 128
    sc, sd = (n if cl == "row" else m) + 8, (n if dl == "row" else m) + 4
    mem = bytearray(1 << 15)
    _put(mem, A, 0x100, sa, al, bits[at])
    _put(mem, B, 0x2000, sb, bl, bits[at])
    _put(mem, C, 0x4000, sc, cl, bits[dt])
    ra = pick("wmma.load.a", "atype", at, al).execute(mem=bytes(mem), p=0x100, stride=sa)
    rb = pick("wmma.load.b", "btype", at, bl).execute(mem=bytes(mem), p=0x2000, stride=sb)
    rc = pick("wmma.load.c", "ctype", dt, cl).execute(mem=bytes(mem), p=0x4000, stride=sc)
    out = pick("wmma.store.d", "dtype", dt, dl).execute(mem=bytes(1 << 15), p=0x400, r=mma.execute(a=ra, b=rb, c=rc),
                                                       stride=sd)
    got = decode(spec, dt, _get(out, (m, n), 0x400, sd, dl, bits[dt])).astype(np.float64)
    want = decode(spec, at, A).astype(np.float64) @ decode(spec, at, B).astype(np.float64) \
        + decode(spec, dt, C).astype(np.float64)
    if dt == "s32":
        want = ((want.astype(np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)
    assert np.array_equal(got, want)


def test_generated_tables_are_used_when_fresh(spec, tmp_path, monkeypatch):
    from ptxspec.emit import pyexec
    for rel, data in pyexec.build(spec).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("ptxspec_generated")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(nm, "_TABLES", {})
    v = spec.variant(WG, "reg")
    assert nm._generated(v) == nm._params(v)
    # other rules are another spec (spec/numerics.yaml is in the digest): the table is stale, not used
    other = dataclasses.replace(spec.numerics[0], when={"family": "wgmma", "atype": ["bf16"]}, model="fdpa",
                                params={"F": 24})  # a rule its model can take (numerics.MODEL_PARAMS)
    monkeypatch.setattr(spec, "numerics", [other] + spec.numerics)
    monkeypatch.setattr(spec, "digest", "another spec")
    monkeypatch.setattr(nm, "_TABLES", {})
    assert nm._generated(v) is None
    assert nm.params(v).F == 24
