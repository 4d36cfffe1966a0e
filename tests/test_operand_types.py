"""Register and memory operands are machine words, checked, never converted (issue 30, items 9-12).

A register is a 32-bit word (64 for .f64/.b64 registers), a TMEM cell a 32-bit word, an address a
64-bit register's integer inside the image it addresses; the contract (PRODUCT.md, "Bad input")
is that anything else — floats, NaN, negative or too-wide integers, addresses past the image,
non-integral addresses — is a TypeError or ValueError that names the operand, where the executors
used to truncate, wrap or mask it silently (a float register of 0.5 read as 0, -1 as 0xFFFFFFFF,
2**40 as 0, an address of 2**62 wrapped into a 4 KiB image). OverflowError and ZeroDivisionError
are not answers either. The tensor-memory helpers refuse sizes beyond tensor memory before they
allocate, and the descriptor decoders refuse words wider than the descriptor.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptxspec
from ptxspec.model import descriptors as D
from ptxspec.model import smem as S
from ptxspec.model import tmem

SPEC = ptxspec.load()
BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
REFUSED = (TypeError, ValueError)


def refuses(call, *names):
    """call() raises TypeError/ValueError (not a subclass such as OverflowError... nor any other)
    whose message names each of `names`."""
    with pytest.raises(REFUSED) as info:
        call()
    assert not isinstance(info.value, (OverflowError, ZeroDivisionError)), repr(info.value)
    for name in names:
        assert name in str(info.value), (name, str(info.value))
    return str(info.value)


def zeros(v, name, batch=()):
    o = v.operand(name)
    return np.zeros(batch + (v.threads, o.regs), np.uint32)


# -- item 9: registers --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.full((32, 4), 0.5), np.full((32, 4), np.nan), np.full((32, 4), -1, np.int64),
                                 np.full((32, 4), 2 ** 40, np.int64), np.full((32, 4), True),
                                 [[2 ** 70] * 4] * 32, [["1"] * 4] * 32])
def test_mma_registers_that_are_not_words_are_refused(bad):
    v = SPEC.variant(BF16)
    msg = refuses(lambda: v.execute(a=bad, b=zeros(v, "b"), c=zeros(v, "c")), "'a'")
    assert "32-bit" in msg


def test_in_range_integers_of_any_dtype_are_words():
    v = SPEC.variant(BF16)
    one = np.uint32(0x3F80)  # bf16 1.0 in the low half of every register
    a = np.full((32, 4), one | (one << 16), np.uint32)
    b = np.full((32, 2), one | (one << 16), np.uint32)
    want = v.execute(a=a, b=b, c=zeros(v, "c"))
    assert (want.view(np.float32) == 16).all()  # K = 16 products of 1 x 1
    for dt in (np.int64, np.uint64, np.int32):
        assert np.array_equal(v.execute(a=a.astype(dt), b=b.astype(dt), c=zeros(v, "c").astype(dt)), want)
    assert np.array_equal(v.execute(a=a.tolist(), b=b.tolist(), c=zeros(v, "c").tolist()), want)


def test_every_register_operand_of_every_kind_of_executor_refuses_floats():
    """One variant per semantics that has an executor: each of its register operands, given floats
    of the right shape, is refused by name."""
    seen = set()
    for v in SPEC.variants:
        meaning = SPEC.meanings.get(v.semantics)
        if meaning is None or meaning.execute is None or v.semantics in seen or v.semantics == "tmem_mma":
            continue
        for o in v.operands:
            if o.kind == "fragment" and o.io != "out":
                seen.add(v.semantics)
                bad = np.full((v.threads, o.regs), 1.0)
                with pytest.raises(REFUSED) as info:
                    v.execute(**{o.name: bad})
                assert f"'{o.name}'" in str(info.value) or "pass" in str(info.value), (v.id, str(info.value))
    assert {"mma", "store_matrix", "transpose", "fragment_store"} <= seen, seen


def test_unpack_refuses_registers_that_are_not_words():
    v = SPEC.variant(BF16)
    refuses(lambda: v.unpack("a", np.full((32, 4), 0.5)), "'a'")
    refuses(lambda: v.unpack("a", np.full((32, 4), -1)), "'a'")
    assert v.unpack("a", np.zeros((32, 4), np.int64)).shape == (16, 16)


@pytest.mark.parametrize("bad", [np.nan, -1, 2 ** 40])
def test_stmatrix_refuses_registers_that_are_not_words(bad):
    v = SPEC.variant("stmatrix.sync.aligned.m8n8.x1.shared.b16")
    p = np.arange(32) * 16
    refuses(lambda: v.execute(r=np.full((32, 1), bad), mem=np.zeros(4096, np.uint8), p=p), "'r'")


def test_movement_executors_refuse_unknown_operands():
    v = SPEC.variant("ldmatrix.sync.aligned.m8n8.x1.shared.b16")
    refuses(lambda: v.execute(mem=np.zeros(4096, np.uint8), p=np.arange(32) * 16, mem_orign=16), "mem_orign")


# -- item 10: addresses -------------------------------------------------------------------------

LDM = "ldmatrix.sync.aligned.m8n8.x1.shared.b16"


@pytest.mark.parametrize("p", [np.full(32, 2 ** 62), np.full(32, 2 ** 63 - 16), np.full(32, 16.5), [2 ** 64] * 32,
                               np.full(32, -16), np.full(32, 4096)])
def test_ldmatrix_addresses_outside_the_image_or_not_integers_are_refused(p):
    v = SPEC.variant(LDM)
    refuses(lambda: v.execute(mem=np.arange(4096, dtype=np.uint8), p=p), "p" if np.ndim(p) else "")


def test_ldmatrix_origin_must_be_an_address():
    v = SPEC.variant(LDM)
    mem = np.arange(4096, dtype=np.uint8)
    refuses(lambda: v.execute(mem=mem, p=np.zeros(32, int), mem_origin=-2 ** 70), "mem_origin")
    refuses(lambda: v.execute(mem=mem, p=np.zeros(32, int), mem_origin=0.5), "mem_origin")
    # near the top of the address space, inside the image: read, not wrapped
    top = 2 ** 64 - 4096
    got = v.execute(mem=mem, p=[top + 16 * i for i in range(32)], mem_origin=top)
    assert np.array_equal(got, v.execute(mem=mem, p=np.arange(32) * 16))
    refuses(lambda: v.execute(mem=mem, p=np.full(32, top - 16), mem_origin=top), "outside")


def test_wmma_address_and_stride_are_integers_inside_the_image():
    v = next(x for x in SPEC.variants if x.semantics == "fragment_load" and x.qualifiers.get("layout") == "row")
    mem = bytes(1 << 16)
    v.execute(mem=mem, p=0x100, stride=64)
    refuses(lambda: v.execute(mem=mem, p=0x100 + 0.5, stride=64), "'p'")
    refuses(lambda: v.execute(mem=mem, p=0x100, stride=64.0), "stride")
    refuses(lambda: v.execute(mem=mem, p=2 ** 64 + 0x100, stride=64), "'p'")
    refuses(lambda: v.execute(mem=mem, p=2 ** 62, stride=64), "outside")
    refuses(lambda: v.execute(mem=mem, p=0x100, stride=64, mem_origin=-2 ** 70), "mem_origin")


# -- tcgen05.mma: TMEM images, shared memory, lane masks ----------------------------------------

ORIGIN = 0x400


def _tcgen05_call():
    v = next(x for x in SPEC.variants if x.instruction == "tcgen05.mma" and x.form == "desc"
             and x.qualifiers.get("cta_group") == "cta_group::1" and x.qualifiers.get("kind") == "kind::f16"
             and not x.qualifiers.get("ashift") and not x.qualifiers.get("decompress")
             and any(o.name == "disable_output_lane" for o in x.operands))
    desc = S.encode_descriptor(SPEC, start=ORIGIN, lbo=2048, sbo=128, swizzle="none", family="tcgen05")
    ops = dict(tmem=np.zeros((128, 512), np.uint32), smem=np.zeros(1 << 15, np.uint8), smem_origin=ORIGIN, d=0,
               a_desc=desc, b_desc=desc, enable_input_d=1, disable_output_lane=[0] * 4,
               idesc=D.encode(SPEC, "kind::f16", m=128, n=16, atype="f16", btype="f16", dtype="f32"))
    return v, ops


def test_tcgen05_call_is_valid():
    v, ops = _tcgen05_call()
    assert v.execute(**ops).shape == (128, 512)


@pytest.mark.parametrize("name,bad,says", [
    ("tmem", np.full((128, 512), np.nan), "tmem"),
    ("tmem", np.full((128, 512), -1, np.int64), "tmem"),
    ("tmem", np.full((128, 512), 2 ** 32, np.int64), "tmem"),
    ("tmem", np.zeros((128, 513), np.uint32), "1 to 512 columns"),
    ("tmem", np.zeros((127, 512), np.uint32), "1 to 512 columns"),
    ("smem", np.zeros(1 << 15), "smem"),
    ("disable_output_lane", [2 ** 40] * 4, "disable_output_lane"),
    ("disable_output_lane", [-1] * 4, "disable_output_lane"),
    ("disable_output_lane", [0.5] * 4, "disable_output_lane"),
    ("idesc", 1.5, "idesc"),
    ("idesc", 2 ** 40, "idesc"),
    ("d", -1, "'d'"),
    ("d", 16.0, "'d'"),
    ("a_desc", -1, "a_desc"),
    ("enable_input_d", 5, "enable_input_d"),
    ("smem_origin", -2 ** 70, "smem_origin"),
])
def test_tcgen05_operands_that_are_not_words_are_refused(name, bad, says):
    v, ops = _tcgen05_call()
    ops[name] = bad
    refuses(lambda: v.execute(**ops), says)


# -- item 11: the tensor-memory helpers are bounded and checked ----------------------------------

LAY = tmem.datapath(SPEC, 128, "cta_group::1", False, False)


@pytest.mark.parametrize("call", [
    lambda: tmem.a_cells(LAY, k=16, bits=0),
    lambda: tmem.a_cells(LAY, k=16, bits=-8),
    lambda: tmem.a_cells(LAY, k=10 ** 9, bits=16),
    lambda: tmem.a_cells(LAY, k=16.0, bits=16),
    lambda: tmem.d_cells(LAY, n=10 ** 9),
    lambda: tmem.d_cells(LAY, n=0),
    lambda: tmem.d_cells(LAY, n=2 ** 70),
    lambda: tmem.scale_cells(tmem.scale_layout(SPEC, "scale_a", LAY.id), 10 ** 8, 4, 0),
    lambda: tmem.scale_cells(tmem.scale_layout(SPEC, "scale_a", LAY.id), 128, 10 ** 8, 0),
    lambda: tmem.scale_cells(tmem.scale_layout(SPEC, "scale_a", LAY.id), 128, 4, 2 ** 70),
    lambda: tmem.metadata_cells(tmem.metadata_layout(SPEC, "kind::f16", LAY.id), rows=128, chunks=1000, sel=0),
    lambda: tmem.metadata_cells(tmem.metadata_layout(SPEC, "kind::f16", LAY.id), rows=10 ** 9, chunks=4, sel=0),
])
def test_tmem_helpers_refuse_what_tensor_memory_cannot_hold(call):
    """Each raises at once (sizes are checked before anything is allocated: no test of speed here,
    d_cells(n=10**9) used to run for minutes) and every cell they do return lies in the 128 x 512."""
    refuses(call)


def test_tmem_helpers_answer_inside_tensor_memory():
    lane, col = tmem.d_cells(LAY, n=256)
    assert lane.max() < tmem.LANES and col.max() < tmem.COLUMNS
    lane, col, _ = tmem.metadata_cells(tmem.metadata_layout(SPEC, "kind::f16", LAY.id), rows=128, chunks=8, sel=0)
    assert lane.max() < tmem.LANES and col.max() < tmem.COLUMNS


# -- item 12: empty batches, descriptor words -----------------------------------------------------

def test_an_empty_batch_is_a_clear_error():
    v = SPEC.variant(BF16)
    msg = refuses(lambda: v.execute(a=zeros(v, "a", (0,)), b=zeros(v, "b", (0,)), c=zeros(v, "c", (0,))), "empty batch")
    assert "reshape" not in msg


def test_idesc_decoder_refuses_words_wider_than_the_descriptor():
    word = D.encode(SPEC, "kind::f16", m=128, n=64, atype="f16", btype="f16", dtype="f32")
    assert D.decode(SPEC, "kind::f16", word)["m"] == 128
    for bad in (word | 1 << 32, word | 1 << 40, -1, -word):
        refuses(lambda bad=bad: D.decode(SPEC, "kind::f16", bad), "32-bit")


def test_smem_descriptor_decoder_refuses_words_wider_than_64_bits():
    d = S.encode_descriptor(SPEC, start=ORIGIN, lbo=2048, sbo=128, swizzle="none", family="tcgen05")
    assert S.decode_descriptor(SPEC, d, "tcgen05")["start_address"] == ORIGIN
    for bad in (d | 1 << 64, 1 << 70, -1):
        refuses(lambda bad=bad: S.decode_descriptor(SPEC, bad, "tcgen05"), "descriptor")


def test_unpack_of_an_empty_batch_is_a_clear_error():
    v = SPEC.variant(BF16)
    msg = refuses(lambda: v.unpack("a", np.zeros((0, 32, 4), np.uint32)), "empty batch")
    assert "reshape" not in msg


def test_one_register_operands_keep_their_shape():
    """Metadata, scale registers and the lane mask hold one (or four) registers per thread: a shape
    that only flattens to it is refused, not read."""
    v = next(x for x in SPEC.variants if x.family == "mma" and x.sparse and x.atype == "f16")
    nib = v.metadata_nibbles[0]
    ops = {o.name: np.zeros((v.threads, o.regs), np.uint32) for o in v.operands if o.kind == "fragment" and o.io != "out"}
    meta = np.full(v.threads, sum(nib << (4 * i) for i in range(8)), np.uint32)
    v.execute(**ops, e=meta, f=0)
    refuses(lambda: v.execute(**ops, e=meta[None, None], f=0), "e holds one register")
    refuses(lambda: v.execute(**ops, e=meta[None][:0], f=0), "batch of at least one")
    t, tops = _tcgen05_call()
    tops["disable_output_lane"] = np.zeros((1, 1, 4), np.uint32)
    refuses(lambda: t.execute(**tops), "shaped (4,)")
