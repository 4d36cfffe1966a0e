"""Replays the ldmatrix / stmatrix / movmatrix H100 campaign (evidence/records/ldmatrix-*.json)
without a GPU.

Every case's inputs are regenerated from its name (campaigns/ldmatrix_harness.py); the
hardware's outputs are in the record as digests, and the maps it showed as data. The movement
forms are replayed through the spec's executors (the ldmatrix family's maps) and checked against
the manual's text transcribed in campaigns/check_ldmatrix.py (`manual_source`); the
end-to-end samples against the spec's mma/wgmma fragment maps and its executor (loaded
registers = fragments of the stored matrices, D = A*B + C), and against the model's
fragment_loaders: each loader the H100 ran is a row of it, address for address.

The second campaign (evidence/records/ldmatrix-table-*.json, campaigns/ldmatrix_table.py) took
its loaders from the table itself: form, run count and every lane's address evaluated from the
row's formulas; its cases replay the same way (loaded registers, D, the stored tile).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "campaigns"))
import check_ldmatrix as chk  # noqa: E402
import ldmatrix_e2e as e2e  # noqa: E402
import ldmatrix_table as table  # noqa: E402
from ldmatrix_harness import IMAGE_BYTES, digest, forms, load_image, mov_codes, row_offsets, store_codes  # noqa: E402

RECORDS = HERE.parent / "evidence" / "records"


@pytest.fixture(scope="module")
def record():
    return json.loads((RECORDS / "ldmatrix-2026-11-23.json").read_text())


@pytest.fixture(scope="module")
def table_record():
    return json.loads((RECORDS / "ldmatrix-table-2026-11-23.json").read_text())


def test_every_sm90a_form_ran(record):
    """30 ldmatrix and 30 stmatrix kernels (3 .num x .trans x 5 state-space/address forms) and
    movmatrix, every case agreeing with the manual."""
    names = {f.name for f in forms()}
    assert set(record["movement"]) == names
    for name, e in record["movement"].items():
        assert e["cases"] and all(c["manual"] for c in e["cases"]), name


def test_movement_digests_are_the_manuals_maps(record):
    by = {f.name: f for f in forms()}
    for name, e in record["movement"].items():
        f = by[name]
        for c in e["cases"]:
            if f.instr == "ldmatrix":
                want = chk.expected_ldmatrix(f, c["case"])
            elif f.instr == "stmatrix":
                want = chk.expected_stmatrix(f, c["case"]).view(np.uint32)
                assert c["stray_slots"] == 0, name
            else:
                want = chk.expected_movmatrix(c["case"])
            assert digest(want) == c["digest"], (name, c["case"])


def test_observed_maps(record):
    """The maps read off the raw values alone (no map assumed) are the manual's, and the same in
    every case: lanes past the last matrix are ignored, whatever row they name."""
    by = {f.name: f for f in forms()}
    for name, e in record["movement"].items():
        if "observed" not in e:
            continue
        assert e["map_stable"], name
        assert chk.decode_map(e["observed"]) == chk.expected_map(by[name]), name
        lanes = {L for L, _ in chk.decode_map(e["observed"])}
        assert lanes == set(range(8 * by[name].regs)), name


@pytest.fixture(scope="module")
def spec():
    return e2e._spec()


def test_movement_records_replay_through_the_executors(record, spec):
    """Every movement case, run by the spec's executor (load_matrix, store_matrix, transpose) on
    the same inputs, gives the digest the H100 gave."""
    by = {f.name: f for f in forms()}
    for name, e in record["movement"].items():
        f = by[name]
        v = spec.variant(f.opcode)
        for c in e["cases"]:
            p = row_offsets(f, c["case"]).astype(np.int64)
            if f.instr == "ldmatrix":
                got = v.execute(p=p, mem=load_image())
            elif f.instr == "stmatrix":
                got = np.asarray(v.execute(r=store_codes(f, c["case"]), p=p,
                                           mem=np.full(IMAGE_BYTES, 0xFF, np.uint8))).view(np.uint32)
            else:
                got = v.execute(a=mov_codes(c["case"]))
            assert digest(np.asarray(got, np.uint32)) == c["digest"], (name, c["case"])


@pytest.mark.parametrize("sample", e2e.SAMPLES, ids=lambda s: s.name)
def test_samples_are_rows_of_the_loader_table(spec, sample):
    """The loader each sample ran (form, and every lane's address) is a row of the model's table,
    its row/col formulas evaluated as written."""
    from ptxspec.core.expr import compile_formula
    v = e2e.variant_of(spec, sample)
    for op, load, direction in (("a", sample.a, "load"), ("b", sample.b, "load"), ("d", sample.d, "store")):
        if load is None:
            continue
        form = load.form("ldmatrix" if direction == "load" else "stmatrix").replace(".shared", "")
        rows = [r for r in v.loaders(op) if r.storage == load.storage and r.direction == direction and r.form == form]
        assert len(rows) == 1 and rows[0].instructions == 1 and rows[0].evidence == "maps proven on H100", (op, rows)
        row = compile_formula(rows[0].row, frozenset({"lane", "i", "warp"}))
        col = compile_formula(rows[0].col, frozenset({"lane", "i", "warp"}))
        eb = spec.types[e2e.type_of(v, op)].bits // 8
        want = e2e.lane_offsets(load, eb, sample.threads)
        for tid in range(sample.threads):
            warp, lane = divmod(tid, 32)
            if lane >= 8 * load.count:
                continue  # names no row
            r, c = int(row(lane=lane, i=0, warp=warp)), int(col(lane=lane, i=0, warp=warp))
            assert load.offset + (r * load.ld + c) * eb == want[tid], (op, tid)


@pytest.mark.parametrize("sample", e2e.SAMPLES, ids=lambda s: s.name)
def test_end_to_end(record, spec, sample):
    """ldmatrix at the sample's lane addresses gave exactly the mma's fragments, and the mma (wgmma)
    on them gave the spec's D; stmatrix stored D where the sample says."""
    e = record["e2e"][sample.name]
    assert len(e["cases"]) == e2e.CASES
    for c in e["cases"]:
        assert c["status"] and c["a_is_fragment"] and c["b_is_fragment"] and c["d_is_executor"]
        r = e2e.expected(spec, sample, c["case"], record["target"])
        words = np.concatenate([r["a"].ravel()] + ([r["b"].ravel()] if sample.b else []) + [r["d"].ravel()])
        assert digest(words.astype(np.uint32)) == c["digest"], (sample.name, c["case"])
        if sample.d is not None:
            assert c["stored_d"]
            assert digest(r["window_after"].view(np.uint32)) == c["smem_digest"]


@pytest.mark.parametrize("sample", table.SAMPLES, ids=lambda s: s.name)
def test_table_loaders_end_to_end(table_record, spec, sample):
    """Loaders taken from the table (form, runs, per-lane addresses from its formulas): the H100's
    registers were the operands' fragments, D the executor's, the stored tile D; the digests of
    what it returned are what the model predicts today."""
    e = table_record["e2e"][sample.name]
    assert e["variant"] == sample.variant and len(e["cases"]) == table.CASES
    v = table.variant_of(spec, sample)
    for op, mv in sample.loads.items():
        assert table.loader(v, op, mv, "load").instructions == e["loads"][op][2] or not mv.runs
    for c in e["cases"]:
        assert all(x for k, x in c.items() if isinstance(x, bool)), (sample.name, c)
        r = table.expected(spec, sample, c["case"], table_record["target"])
        assert digest(r["words"].astype(np.uint32)) == c["digest"], (sample.name, c["case"])
        if sample.stores:
            assert digest(r["window_after"].view(np.uint32)) == c["smem_digest"], (sample.name, c["case"])


def test_table_campaign_covers(table_record):
    """What the second campaign set out to run: runs > 1 (.x1 four and two times), a loaded C and a
    stored D, sub-byte and b1 operands, mma.sp, wgmma with A from registers (fp8 too)."""
    names = set(table_record["e2e"])
    assert names == {s.name for s in table.SAMPLES}
    variants = {e["variant"] for e in table_record["e2e"].values()}
    assert any(".sp::ordered_metadata." in v for v in variants)
    assert any(v.startswith("wgmma.") and "e4m3" in v for v in variants)
    assert any(".b1." in v for v in variants) and any(".s4." in v for v in variants)
