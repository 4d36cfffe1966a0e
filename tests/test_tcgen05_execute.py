"""tcgen05.mma executors (semantics tmem_mma) against independent truth.

Shared memory is filled here by hand in the no-swizzle K-major canonical layout (core matrices of
8 rows x 16 bytes; CuTe's ((8,m),(T,2k)):((1T,SBO),(1,LBO)), written out below, not the spec's
formula); where D lies in TMEM is read back with the layouts transcribed in test_tcgen05_tmem.py's
terms (D: lane m; F: 16 rows per 32-lane partition; G: N folded into the four partitions). Truth
is numpy: small integers make every product and sum exact in every format, so D must equal A @ B
(+ C) exactly; identity, unit scale factors, masks and dropped sparse positions are checked as
what they mean. Nothing here ran on a Blackwell GPU: the executors are "not run on hardware".
"""
from __future__ import annotations

import json

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ptxspec
from ptxspec.model import descriptors as D
from ptxspec.model import smem as S

SPEC = ptxspec.load()
RNG = np.random.default_rng(13)
ORIGIN = 0x400
COLS = 512


def variant(instruction, form="desc", **q):
    q = {"ashift": "", "decompress": "", **q}
    for v in SPEC.variants:
        if v.instruction == instruction and v.form == form and all(v.qualifiers.get(k, "") == x for k, x in q.items()):
            return v
    raise KeyError((instruction, form, q))


def place_kmajor(buf: bytearray, start: int, mat: np.ndarray, bits: int, sbo: int, lbo: int) -> None:
    """mat (MN x K raw codes) at `start`, K-major without swizzle: row mn of a core matrix every
    16 bytes, 8 rows per core matrix, SBO between groups of 8 rows, LBO between 16-byte K chunks."""
    rows, k = mat.shape
    for mn in range(rows):
        for kk in range(k):
            bit = kk * bits
            byte = start + (mn % 8) * 16 + (mn // 8) * sbo + (bit // 128) * lbo + (bit % 128) // 8 - ORIGIN
            val = int(mat[mn, kk])
            if bits >= 8:
                for j in range(bits // 8):
                    buf[byte + j] = (val >> (8 * j)) & 0xFF
            else:
                sh = bit % 8
                buf[byte] = (buf[byte] & ~(((1 << bits) - 1) << sh)) | (val << sh)


def desc_for(start, mat, bits, buf):
    rows = mat.shape[0]
    sbo, lbo = 128, 128 * ((rows + 7) // 8)
    place_kmajor(buf, start, mat, bits, sbo, lbo)
    return S.encode_descriptor(SPEC, start=start, lbo=lbo, sbo=sbo, swizzle="none", family="tcgen05")


def codes(values, dtype):
    return np.asarray(values, dtype=np.float64).astype(dtype).view(np.uint8 if np.dtype(dtype).itemsize == 1 else
                                                                   np.uint16 if np.dtype(dtype).itemsize == 2
                                                                   else np.uint32).astype(np.uint64)


def f32_of(cells):
    return np.asarray(cells, np.uint32).view(np.float32)


def run_dense(kind, atype, btype, dtype, m, n, a_np, b_np, elt, *, cta="cta_group::1", a_bits=None, b_bits=None,
              form="desc", c=None, enable=1, mask=None, extra=None, idesc_extra=None, v=None, tmem_a=None):
    """One CTA: A (m x K) and B (K x n) element codes -> the TMEM image after the instruction."""
    v = v or variant("tcgen05.mma", form, cta_group=cta, kind=kind)
    k = a_np.shape[1]
    buf = bytearray(1 << 16)
    a_bits = a_bits or elt(atype)
    b_bits = b_bits or elt(btype)
    img = np.zeros((128, COLS), np.uint32) if c is None else c.copy()
    ops = dict(d=0, b_desc=desc_for(ORIGIN + 0x8000, b_np.T.copy(), b_bits, buf), enable_input_d=enable,
               idesc=D.encode(SPEC, kind, m=m, n=n, atype=atype, btype=btype, **({} if kind.startswith("kind::mx")
                                                                                   else {"dtype": dtype}),
                              **(idesc_extra or {})))
    if form.startswith("desc"):
        ops["a_desc"] = desc_for(ORIGIN, a_np, a_bits, buf)
    else:
        ops["a_tmem"] = tmem_a[0]
        img = tmem_a[1](img)
    if mask is not None:
        ops["disable_output_lane"] = mask
    ops.update(extra or {})
    assert k == D.shapes(SPEC, kind, cta, False, False)[2]
    return v.execute(tmem=img, smem=np.frombuffer(bytes(buf), np.uint8), smem_origin=ORIGIN, **ops)


def bits_of(t):
    return SPEC.types[t].bits


def small_ints(shape, lo=-3, hi=4):
    return RNG.integers(lo, hi, size=shape).astype(np.float64)


@pytest.mark.parametrize("atype,dtype", [("f16", "f32"), ("bf16", "f32"), ("f16", "f16")])
def test_f16_kind_is_the_exact_product(atype, dtype):
    M, N, K = 128, 16, 16
    a, b = small_ints((M, K)), small_ints((K, N))
    npt = ml_dtypes.bfloat16 if atype == "bf16" else np.float16
    out = run_dense("kind::f16", atype, atype, dtype, M, N, codes(a, npt), codes(b, npt), bits_of)
    got = f32_of(out[:, :N]) if dtype == "f32" else (out[:, :N] & 0xFFFF).astype(np.uint16).view(np.float16)
    assert (got.astype(np.float64) == a @ b).all()
    assert not out[:, N:].any()
    if dtype == "f16":
        assert not (out[:, :N] >> 16).any()  # a 16-bit D fills the low half of its cell


def test_identity_and_enable_input_d():
    M, N, K = 128, 16, 16
    a = small_ints((M, K))
    eye = np.eye(K, N)
    c = np.zeros((128, COLS), np.uint32)
    cvals = small_ints((M, N))
    c[:, :N] = cvals.astype(np.float32).view(np.uint32)
    A, B = codes(a, np.float16), codes(eye, np.float16)
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, A, B, bits_of, c=c)
    assert (f32_of(out[:, :N]) == a[:, :N] + cvals).all()  # D = A*I + D
    out0 = run_dense("kind::f16", "f16", "f16", "f32", M, N, A, B, bits_of, c=c, enable=0)
    assert (f32_of(out0[:, :N]) == a[:, :N]).all()  # enable-input-d false: D = A*B


def test_disable_output_lane_keeps_exactly_the_masked_lanes():
    M, N, K = 128, 16, 16
    a, b = small_ints((M, K)), small_ints((K, N))
    c = RNG.integers(0, 1 << 32, size=(128, COLS), dtype=np.uint64).astype(np.uint32)
    lanes = sorted(RNG.choice(128, 37, replace=False).tolist())
    mask = [sum(1 << (ln - 32 * r) for ln in lanes if ln // 32 == r) for r in range(4)]
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, codes(a, np.float16), codes(b, np.float16), bits_of,
                    c=c, enable=0, mask=mask)
    kept = np.zeros(128, bool)
    kept[lanes] = True
    assert (out[kept] == c[kept]).all()
    assert (f32_of(out[~kept, :N]) == (a @ b)[~kept]).all()
    assert (out[:, N:] == c[:, N:]).all()


def test_tf32_and_a_from_tmem():
    M, N, K = 128, 32, 8
    a, b = small_ints((M, K)), small_ints((K, N))
    A, B = codes(a, np.float32), codes(b, np.float32)
    out = run_dense("kind::tf32", "tf32", "tf32", "f32", M, N, A, B, bits_of)
    assert (f32_of(out[:, :N]) == a @ b).all()

    def put(img):  # A in TMEM from column 256: one tf32 per cell, row m in lane m
        img = img.copy()
        img[:, 256:256 + K] = A.astype(np.uint32)
        return img
    out2 = run_dense("kind::tf32", "tf32", "tf32", "f32", M, N, A, B, bits_of, form="tmem", tmem_a=(256, put))
    assert (out2[:, :N] == out[:, :N]).all()


def test_f16_a_from_tmem_is_packed_two_per_cell():
    M, N, K = 128, 16, 16
    a, b = small_ints((M, K)), small_ints((K, N))
    A, B = codes(a, np.float16), codes(b, np.float16)

    def put(img):
        img = img.copy()
        img[:, 128:128 + K // 2] = (A[:, 0::2] | (A[:, 1::2] << np.uint64(16))).astype(np.uint32)
        return img
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, A, B, bits_of, form="tmem", tmem_a=(128, put))
    assert (f32_of(out[:, :N]) == a @ b).all()


@pytest.mark.parametrize("atype,btype,sat", [("s8", "s8", 0), ("u8", "s8", 0), ("s8", "u8", 1)])
def test_i8_kind_m64_layout_f(atype, btype, sat):
    M, N, K = 64, 8, 32
    lo_a, hi_a = (-128, 128) if atype == "s8" else (0, 256)
    lo_b, hi_b = (-128, 128) if btype == "s8" else (0, 256)
    a = RNG.integers(lo_a, hi_a, size=(M, K))
    b = RNG.integers(lo_b, hi_b, size=(K, N))
    c = np.zeros((128, COLS), np.uint32)
    cv = RNG.integers(-(1 << 31), 1 << 31, size=(M, N)) if sat else RNG.integers(-1000, 1000, size=(M, N))
    lane = np.arange(M) % 16 + 32 * (np.arange(M) // 16)  # layout F, lane alignment 0
    c[lane[:, None], np.arange(N)] = cv.astype(np.int32).view(np.uint32)
    out = run_dense("kind::i8", atype, btype, "s32", M, N, (a & 0xFF).astype(np.uint64), (b & 0xFF).astype(np.uint64),
                    lambda t: 8, c=c, idesc_extra={"saturate": sat})
    want = a @ b + cv
    want = np.clip(want, -(1 << 31), (1 << 31) - 1) if sat else (want + (1 << 31)) % (1 << 32) - (1 << 31)
    assert (out[lane[:, None], np.arange(N)].view(np.int32) == want).all()
    other = np.setdiff1d(np.arange(128), lane)
    assert not out[other].any()  # the other half of the data path is untouched


def test_ws_m32_folds_n_into_the_partitions():
    M, N, K = 32, 64, 16
    v = variant("tcgen05.mma.ws", "desc", kind="kind::f16")
    a, b = small_ints((M, K)), small_ints((K, N))
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, codes(a, np.float16), codes(b, np.float16), bits_of,
                    v=v, extra={"zero_column_mask": 0})
    d = a @ b
    for q in range(4):  # layout G: columns q*N/4.. in lanes 32q..
        assert (f32_of(out[32 * q:32 * q + 32, :N // 4]) == d[:, q * N // 4:(q + 1) * N // 4]).all()
    assert not out[:, N // 4:].any()


def test_negate_a():
    M, N, K = 128, 8, 16
    a, b = small_ints((M, K)), small_ints((K, N))
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, codes(a, np.float16), codes(b, np.float16), bits_of,
                    idesc_extra={"negate_a": 1})
    assert (f32_of(out[:, :N]) == -(a @ b)).all()


def test_scale_input_d():
    M, N, K = 128, 16, 16
    v = variant("tcgen05.mma", "desc_scaled", cta_group="cta_group::1", kind="kind::f16")
    a, b = small_ints((M, K)), small_ints((K, N))
    c = np.zeros((128, COLS), np.uint32)
    cv = small_ints((M, N)) * 8
    c[:, :N] = cv.astype(np.float32).view(np.uint32)
    out = run_dense("kind::f16", "f16", "f16", "f32", M, N, codes(a, np.float16), codes(b, np.float16), bits_of,
                    v=v, c=c, extra={"scale_input_d": 3})
    assert (f32_of(out[:, :N]) == a @ b + cv / 8).all()  # D = A*B + D * 2^-3


E2M1 = {0.0: 0, 0.5: 1, 1.0: 2, 1.5: 3, 2.0: 4, 3.0: 5, 4.0: 6, 6.0: 7}


def e2m1(x):
    return np.vectorize(lambda t: (8 if t < 0 else 0) | E2M1[abs(t)])(x).astype(np.uint64)


def test_f8f6f4_e4m3_and_e2m1_in_containers():
    M, N, K = 128, 16, 32
    a, b = small_ints((M, K)), small_ints((K, N))
    out = run_dense("kind::f8f6f4", "e4m3", "e4m3", "f32", M, N, codes(a, ml_dtypes.float8_e4m3fn),
                    codes(b, ml_dtypes.float8_e4m3fn), lambda t: 8)
    assert (f32_of(out[:, :N]) == a @ b).all()
    a2, b2 = small_ints((M, K), -2, 3), small_ints((K, N), -2, 3)
    out2 = run_dense("kind::f8f6f4", "e2m1", "e2m1", "f32", M, N, e2m1(a2) << np.uint64(2), e2m1(b2) << np.uint64(2),
                     lambda t: 8)  # under kind::f8f6f4 an e2m1 sits in bits 2-5 of its byte
    assert (f32_of(out2[:, :N]) == a2 @ b2).all()


def scale_image(img, col, rows, factors, values, sf_id=0):
    """Scale factors (rows x factors byte codes) at column `col`: row r in lane r % 32 of every
    partition, column col + r // 32, byte sf_id + s (CuTe's tmem_sf_frg, written out here)."""
    for r in range(rows):
        for q in range(4):
            for s in range(factors):
                cell = img[r % 32 + 32 * q, col + r // 32]
                sh = 8 * (sf_id + s)
                img[r % 32 + 32 * q, col + r // 32] = (int(cell) & ~(0xFF << sh)) | (int(values[r, s]) << sh)
    return img


@pytest.mark.parametrize("kind,scale_vec,factors,atype", [("kind::mxf8f6f4", "", 1, "e4m3"),
                                                          ("kind::mxf4", "", 2, "e2m1"),
                                                          ("kind::mxf4nvf4", "scale_vec::4X", 4, "e2m1")])
def test_block_scaling(kind, scale_vec, factors, atype):
    M, N = 128, 16
    K = D.shapes(SPEC, kind, "cta_group::1", False, False)[2]
    v = variant("tcgen05.mma", "desc", cta_group="cta_group::1", kind=kind, scale_vec=scale_vec)
    if atype == "e4m3":
        a, b = small_ints((M, K)), small_ints((K, N))
        A, B, bits = codes(a, ml_dtypes.float8_e4m3fn), codes(b, ml_dtypes.float8_e4m3fn), lambda t: 8
    else:
        a, b = small_ints((M, K), -2, 3), small_ints((K, N), -2, 3)
        A, B, bits = e2m1(a), e2m1(b), lambda t: 4
    for exps in (np.zeros, lambda s: RNG.integers(-3, 4, size=s)):
        ea, eb = exps((M, factors)), exps((N, factors))
        img = np.zeros((128, COLS), np.uint32)
        img = scale_image(img, 256, M, factors, ea + 127)
        img = scale_image(img, 320, N, factors, eb + 127)
        out = run_dense(kind, atype, atype, "f32", M, N, A, B, bits, v=v, c=img, extra={"scale_a": 256, "scale_b": 320},
                        idesc_extra={"scale_type": "ue8m0"} if kind == "kind::mxf4nvf4" else None)
        blk = K // factors
        sa = np.repeat(2.0 ** ea, blk, axis=1)  # (M, K)
        sb = np.repeat(2.0 ** eb, blk, axis=1).T  # (K, N)
        assert (f32_of(out[:, :N]) == (a * sa) @ (b * sb)).all()


def test_sparse_drops_exactly_the_metadata_positions():
    M, N, K = 128, 16, 32
    v = variant("tcgen05.mma.sp", "desc", cta_group="cta_group::1", kind="kind::f16")
    dense = small_ints((M, K))
    b = small_ints((K, N))
    meta = np.sort(np.stack([RNG.choice(4, 2, replace=False) for _ in range(M * K // 4)]), axis=1).reshape(M, K // 4, 2)
    pos = (meta + 4 * np.arange(K // 4)[None, :, None]).reshape(M, K // 2)
    packed = np.take_along_axis(dense, pos, axis=1)
    kept = np.zeros((M, K), bool)
    np.put_along_axis(kept, pos, True, axis=1)
    buf = bytearray(1 << 16)
    ops = dict(d=0, a_desc=desc_for(ORIGIN, codes(packed, np.float16), 16, buf),
               b_desc=desc_for(ORIGIN + 0x8000, codes(b, np.float16).T.copy(), 16, buf), sp_meta=0x100,
               idesc=D.encode(SPEC, "kind::f16", m=M, n=N, dtype="f32", atype="f16", btype="f16", sparse="sparse"))
    out = v.execute(tmem=np.zeros((128, COLS), np.uint32), smem=np.frombuffer(bytes(buf), np.uint8),
                    smem_origin=ORIGIN, meta=meta, **ops)
    assert (f32_of(out[:, :N]) == np.where(kept, dense, 0) @ b).all()
    # positions that do not rise within their chunk are no metadata
    with pytest.raises(ValueError):
        v.execute(tmem=np.zeros((128, COLS), np.uint32), smem=np.frombuffer(bytes(buf), np.uint8),
                  smem_origin=ORIGIN, meta=meta[..., ::-1], **ops)


def test_two_ctas_m256():
    M, N, K = 256, 32, 16
    v = variant("tcgen05.mma", "desc", cta_group="cta_group::2", kind="kind::f16")
    a, b = small_ints((M, K)), small_ints((K, N))
    bufs = []
    ad = bd = None
    for cta in range(2):  # CTA c: rows 128c.. of A, columns 16c.. of B
        buf = bytearray(1 << 16)
        ad = desc_for(ORIGIN, codes(a[128 * cta:128 * cta + 128], np.float16), 16, buf)
        bd = desc_for(ORIGIN + 0x8000, codes(b[:, 16 * cta:16 * cta + 16], np.float16).T.copy(), 16, buf)
        bufs.append(np.frombuffer(bytes(buf), np.uint8))
    out = v.execute(tmem=np.zeros((2, 128, COLS), np.uint32), smem=np.stack(bufs), smem_origin=ORIGIN, d=0,
                    a_desc=ad, b_desc=bd, enable_input_d=1,
                    idesc=D.encode(SPEC, "kind::f16", m=M, n=N, dtype="f32", atype="f16", btype="f16"))
    d = a @ b
    for cta in range(2):  # layout A: the CTA's 128 rows in lanes 0-127
        assert (f32_of(out[cta, :, :N]) == d[128 * cta:128 * cta + 128]).all()


def test_bad_descriptors_and_operands():
    v = variant("tcgen05.mma", "desc", cta_group="cta_group::1", kind="kind::f16")
    img = np.zeros((128, COLS), np.uint32)
    good = D.encode(SPEC, "kind::f16", m=128, n=16, dtype="f32", atype="f16", btype="f16")
    with pytest.raises(ValueError, match="reserved|legal|means nothing"):
        v.execute(tmem=img, smem=bytes(1 << 16), d=0, a_desc=0, b_desc=0, idesc=good | (1 << 23))
    with pytest.raises(ValueError, match="not a legal shape"):
        v.execute(tmem=img, smem=bytes(1 << 16), d=0, a_desc=0, b_desc=0, idesc=good & ~(0x3F << 17))  # N = 0
    with pytest.raises(TypeError):
        v.execute(tmem=img, smem=bytes(1 << 16), d=0, a_desc=0, b_desc=0, idesc=good, bogus=1)


#: The element types each kind's instruction descriptor may select and the D it may write, from the
#: PTX ISA manual's tcgen05 "kinds" table (9.7.16.10.x, read for this test): A/B types -> D types.
MANUAL_KIND_TYPES = {
    "kind::f16": ({"f16", "bf16"}, {"f16", "f32"}),
    "kind::tf32": ({"tf32"}, {"f32"}),
    "kind::i8": ({"s8", "u8"}, {"s32"}),
    "kind::f8f6f4": ({"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}, {"f16", "f32"}),
}
#: Kinds whose arithmetic rests on the manual and published measurements of Blackwell-class tensor
#: cores (the block-scaled .kind forms of mma, MMA-Sim) rather than on campaigns run here on Hopper.
PUBLISHED_KINDS = {"kind::f8f6f4", "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"}
#: Their status: MMA-Sim's sm_100a model (github.com/microsoft/MMA-Sim: mmasim/simulator/nv_ptx.py
#: gives tcgen05mma the same functions as mma; its sm_100a kernels measured part of each kind), and
#: the zero rule the executors apply on every Blackwell path.
SM100 = "modelled (MMA-Sim's sm_100a model; measured there in part; zeros: the H100 rule); not run on hardware"


def test_every_tcgen05_mma_variant_has_an_honest_numerics_status():
    import sqlite3

    from ptxspec.semantics import numerics_status
    from ptxspec.core.paths import default_database
    con = sqlite3.connect(f"file:{default_database()}?mode=ro", uri=True)
    rows = {r[0]: r[1:] for r in con.execute("SELECT variant_id, status, model, parameters FROM numerics_status")}
    con.close()
    mmas = [v for v in SPEC.variants if v.semantics == "tmem_mma"]
    assert len(mmas) == 224
    for v in mmas:
        status, model, params = rows[v.id]
        kind = v.qualifiers["kind"]
        assert "bit-exact" not in status and "proven" not in status, v.id
        if kind == "kind::ti16":  # sm_107's kind: the spec's idesc tables have no layout for it, so refused
            with pytest.raises(KeyError, match="no layout"):
                D.decode(SPEC, kind, 0)
            assert model is None and status.startswith("no model: ") and "erratum tcgen05-kind-ti16-idesc" in status
            assert "tcgen05-kind-ti16-idesc" in {e.id for e in SPEC.errata}, v.id
            continue
        assert status.endswith("not run on hardware"), v.id
        assert status == (SM100 if kind in PUBLISHED_KINDS else numerics_status.BORROWED), v.id
        if kind in MANUAL_KIND_TYPES:
            ab, ds = MANUAL_KIND_TYPES[kind]
            made = {label.split("->")[1] for label in json.loads(params)}
            inputs = {t for label in json.loads(params) for t in label.split("->")[0].split("*")}
            assert made == ds and inputs == ab, (v.id, made, inputs)
        if kind in ("kind::mxf4", "kind::mxf4nvf4"):
            assert model == "fdpa_groups", v.id


@pytest.mark.full
def test_a_spec_without_the_instruction_descriptor_builds(tmp_path):
    """A spec may leave tcgen05's instruction descriptor undescribed (fuzz seed 23, tree 31993:
    descriptors/tcgen05.yaml deleted; validate accepted it and the build died in StopIteration):
    then no tcgen05.mma product can be named, and each variant says `no model`, and why. (The
    placements of its shapes in tensor memory go with it: `tmem:` naming no descriptor is an error.)"""
    import shutil
    from ptxspec.semantics import numerics_status
    from ptxspec.emit.artifacts import artifacts
    shutil.copytree(Path(__file__).resolve().parents[1] / "spec", tmp_path / "spec")
    (tmp_path / "spec" / "descriptors" / "tcgen05.yaml").unlink()
    layouts = tmp_path / "spec" / "layouts" / "tcgen05.yaml"
    text = layouts.read_text(encoding="utf-8")
    layouts.write_text(text[:text.index("\ntmem:\n")] + "\n", encoding="utf-8")  # the last section
    spec = ptxspec.load(tmp_path / "spec")
    rows = {r[0]: r[3] for r in numerics_status.status_rows(spec)}
    mmas = [v.id for v in spec.variants if v.semantics == "tmem_mma"]
    assert len(mmas) == 224 and {rows[i] for i in mmas} == {"no model: the spec describes no instruction descriptor for it"}
    assert "ptxspec.sqlite" in artifacts(spec)


def test_a_measured_tcgen05_variant_keeps_its_row_and_shows_the_measurement(monkeypatch):
    """A campaign record for a descriptor-selected variant (none exists yet: no sm_100a GPU) must
    show in numerics_status as measured, not vanish or stay 'not run on hardware'."""
    from ptxspec.semantics import numerics_status
    v = variant("tcgen05.mma", "desc", cta_group="cta_group::1", kind="kind::f16")
    record = {"cases": 3, "outputs": 300, "mismatches": 0, "date": "2026-11-26", "campaign": "made-up"}
    monkeypatch.setattr(numerics_status, "measured", lambda spec: {v.id: record})
    rows = {r[0]: r for r in numerics_status.status_rows(SPEC)}
    assert rows[v.id][3:10] == ("bit-exact", 3, 300, 0, "1.000000000", "2026-11-26", "made-up")
    assert rows[v.id][1]  # its models are still named
    other = variant("tcgen05.mma", "desc", cta_group="cta_group::2", kind="kind::f16")
    assert rows[other.id][3].endswith("not run on hardware")
