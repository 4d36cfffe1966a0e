"""ptxspec.core.formats against independent truth: numpy's IEEE types and the formats' documented values."""
import numpy as np
import pytest
from ptxspec.core import formats

# numpy warns when its own reference casts carry NaN payloads; the comparison treats NaN as NaN.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def test_f16_and_f32_match_numpy(spec):
    codes16 = np.arange(1 << 16, dtype=np.uint64)
    want = codes16.astype(np.uint16).view(np.float16).astype(np.float64)
    got = formats.decode(spec, "f16", codes16)
    assert np.array_equal(got, want, equal_nan=True)
    rng = np.random.default_rng(3)
    codes32 = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64)
    want = codes32.astype(np.uint32).view(np.float32).astype(np.float64)
    assert np.array_equal(formats.decode(spec, "f32", codes32), want, equal_nan=True)


def test_bf16_tf32_as_f32_top_bits(spec):
    codes = np.arange(1 << 16, dtype=np.uint64)
    want = (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    assert np.array_equal(formats.decode(spec, "bf16", codes), want, equal_nan=True)
    rng = np.random.default_rng(4)
    raw = rng.integers(0, 1 << 32, 100_000, dtype=np.uint64)
    want = (raw.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    assert np.array_equal(formats.decode(spec, "tf32", raw), want, equal_nan=True)  # low 13 bits ignored


@pytest.mark.parametrize("code, value", [
    (0x7E, 448.0), (0xFE, -448.0), (0x08, 2.0 ** -6), (0x01, 2.0 ** -9), (0x80, -0.0), (0x38, 1.0)])
def test_e4m3_documented_values(spec, code, value):
    got = formats.decode(spec, "e4m3", [code])[0]
    assert got == value and np.signbit(got) == np.signbit(value)


def test_e4m3_nan_codes_and_no_infinity(spec):
    vals = formats.decode(spec, "e4m3", np.arange(256))
    assert set(np.flatnonzero(np.isnan(vals))) == {0x7F, 0xFF} and not np.isinf(vals).any()


@pytest.mark.parametrize("code, value", [(0x7B, 57344.0), (0x7C, np.inf), (0xFC, -np.inf), (0x3C, 1.0),
                                         (0x01, 2.0 ** -16)])
def test_e5m2_documented_values(spec, code, value):
    assert formats.decode(spec, "e5m2", [code])[0] == value


def test_integers(spec):
    assert formats.decode(spec, "s8", [0x7F, 0x80, 0xFF]).tolist() == [127, -128, -1]
    assert formats.decode(spec, "u4", [0xF]).tolist() == [15]
    assert formats.decode(spec, "s4", [0x8, 0x7]).tolist() == [-8, 7]
    assert formats.decode(spec, "s32", [0x80000000]).tolist() == [-(1 << 31)]


def test_encode_exact_round_trips_and_refuses_rounding(spec):
    for t in ("f16", "f32", "f64", "s32"):
        vals = np.array([0.0, 1.5, -3.0, 2.0 ** -14])
        vals = vals.astype(np.int64) if t == "s32" else vals
        assert np.array_equal(formats.decode(spec, t, formats.encode_exact(spec, t, vals)), vals)
    with pytest.raises(ValueError, match="not exact"):
        formats.encode_exact(spec, "f16", [1.0 + 2.0 ** -12])


def test_all_codes(spec):
    assert len(formats.all_codes(spec, "e4m3")) == 256
    assert (formats.all_codes(spec, "tf32") & np.uint64(0x1FFF)).max() == 0
