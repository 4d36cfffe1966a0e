"""The executors stay bit-exact with the H100: recorded hardware cases, recomputed without a GPU.

evidence/records/numerics-*.json holds one entry per kernel of the executor campaign
(campaigns/notes/2026-11-22-numerics.md: every wgmma, mma, mma.sp and wmma.mma variant an
H100 runs, 2,508 variants, 301 million D elements compared bit for bit, 0 mismatches): its case
count and, for one case per
kernel (rotating through the input kinds: random bits, narrow and wide exponents, zeros and
subnormals, cancellation, Inf/NaN, signed zeros, alignment), the digest of the D registers the
H100 returned. Each such case is redrawn from its seed (SplitMix64, no numpy random streams) and
executed with `Variant.execute`; its digest must equal the hardware's.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from ptxspec.semantics import numerics as nm
from ptxspec.semantics import fdpa
from ptxspec.semantics import fields

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "campaigns" / "numerics"))
import numgen as G  # noqa: E402
import replay as R  # noqa: E402

RECORDS = sorted((ROOT / "evidence" / "records").glob("numerics-*.json"))


def _docs():
    return [(p, json.loads(p.read_text())) for p in RECORDS]


def test_records_exist_and_are_compact():
    assert RECORDS
    for p in RECORDS:
        assert p.stat().st_size < 1024 * 1024, p


def test_records_cover_their_variants(spec):
    """Every recorded variant is in the spec, with >= 10^5 compared outputs and no mismatch.
    (Variants the spec gained after the campaign show as `not run` in the database's
    numerics_status table until a campaign covers them.)"""
    outputs = {}
    for _, doc in _docs():
        assert doc["kinds"] == list(G.KINDS), "the records were drawn with other input kinds"
        for k in doc["kernels"]:
            assert k["mismatches"] == 0
            outputs[k["variant"]] = outputs.get(k["variant"], 0) + k["outputs"]
    gone = sorted(vid for vid in outputs if vid not in spec._by_id)
    assert not gone, f"recorded variants no longer in the spec: {gone[:3]}"
    thin = sorted(vid for vid, n in outputs.items() if n < 100_000)
    assert not thin, thin[:3]
    assert len(outputs) >= 2508  # every product variant whose `hardware` is "H100" (2026-11-22)


def test_every_h100_variant_is_recorded(spec):
    """Each variant the H100 runs (Variant.hardware == "H100") that computes a product has records."""
    from ptxspec.semantics import numerics_status
    have = numerics_status.measured(spec)
    missing = sorted(v.id for v in spec.variants
                     if nm.computes_product(v) and v.hardware == "H100" and v.id not in have)
    assert not missing, f"{len(missing)} variants without hardware records, e.g. {missing[:3]}"


def _kernels():
    out = []
    for p, doc in _docs():
        for k in doc["kernels"]:
            out.append(pytest.param(k, id=f"{k['variant']}{'' if not k['imm'] else json.dumps(k['imm'], sort_keys=True)}"))
    return out


@pytest.fixture(scope="module")
def replayed(spec):
    """kernel key -> whether the executor reproduces the recorded case (all kernels at once)."""
    res = {}
    for _, doc in _docs():
        for k in doc["kernels"]:
            idx, dig = k["replay"]
            ((_, ok, _),) = R.replay_kernel(spec, {"variant": k["variant"], "imm": k["imm"]}, {idx: dig}, [idx])
            res[(k["variant"], json.dumps(k["imm"], sort_keys=True))] = ok
    return res


def test_every_recorded_case_replays(replayed):
    bad = sorted(key for key, ok in replayed.items() if not ok)
    assert not bad, f"{len(bad)} of {len(replayed)} recorded hardware cases differ, e.g. {bad[:3]}"


def test_a_changed_model_is_caught(spec):
    """The replay is sensitive: one fraction bit less in the alignment changes recorded digests."""
    vid = "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16:reg"
    k = next(k for _, doc in _docs() for k in doc["kernels"] if k["variant"] == vid and k["imm"].get("imm_scale_a") == 1)
    v = G.variant_of(spec, k["variant"])
    cases = [G.case_inputs(spec, k, i) for i in (1, 4)]  # narrow and cancellation
    good = G.expected_words(spec, v, cases)
    p = nm.params(v)
    worse = G.expected_words(spec, v, cases, nm.NumericsParams(p.model, p.group, p.F - 1, p.round, p.keep, p.zero_exp))
    assert (good != worse).any()


@pytest.mark.parametrize("vid,other", [
    # m8n8k4 .f16 (ptxas's FFMA emulation): the f16 form's pairs as one chain from +0 instead
    ("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16", {"group": 4}),
    # the f32 form's chain as the tensor cores' fused step
    ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", {"model": "fdpa", "F": 25, "round": "rz"}),
    # wmma .f16.f32: rounding straight to f16 (no f32 step first)
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32", {"via": "", "round": "rn"}),
    # wmma m16n16k8 .tf32: one step over k8 instead of two HMMA.1684 steps of k4
    ("wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", {"group": 8}),
])
def test_the_followup_models_are_pinned(spec, vid, other):
    """The alternatives the follow-up campaign refuted change recorded hardware digests."""
    from dataclasses import replace

    k = next(k for _, doc in _docs() for k in doc["kernels"] if k["variant"] == vid)
    v = G.variant_of(spec, vid)
    kinds = {"f16.f16.f16.f16": (3, 8), "f16.f32": (3,)}.get(next((t for t in ("f16.f16.f16.f16", "f16.f32")
                                                                  if vid.endswith(t)), ""), (0, 1))
    cases = [G.case_inputs(spec, k, i) for i in kinds]  # zeros/subnormals, signed zeros; or bits, narrow
    good = G.expected_words(spec, v, cases)
    worse = G.expected_words(spec, v, cases, replace(nm.params(v), **other))
    assert (good != worse).any()



def test_mmasim_mains_zero_rule_is_refuted_by_the_records(spec, monkeypatch):
    """MMA-Sim main (c785138) gives a zero element the exponent -126 and adds it to its partner's, for
    Hopper as for Blackwell (campaigns/survey/blockscale.md section 4). Every case of a recorded kernel,
    recomputed with that rule, no longer gives the hardware's digest of all cases; the model does."""
    vid = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    k = next(k for _, doc in _docs() for k in doc["kernels"] if k["variant"] == vid)
    v = G.variant_of(spec, vid)
    cases = [G.case_inputs(spec, k, i) for i in range(k["cases"])]

    def all_cases():
        return hashlib.sha256("".join(R.digest_words(w) for w in G.expected_words(spec, v, cases)).encode()) \
            .hexdigest()[:24]
    assert all_cases() == k["all_cases"]
    step = fdpa.fdpa_step

    def mmasim_main(spec_, fa, fb, fc, out_type, F, mode, keep, zero_exp, kept=None, zeros="operands"):
        z = [fields.Fields(f.neg, f.mag, np.where((f.mag == 0) & (f.special == 0), -126, f.exp), f.special, f.mbits)
             for f in (fa, fb)]
        return step(spec_, z[0], z[1], fc, out_type, F, mode, keep, -126, kept, zeros="fields")
    monkeypatch.setattr(fdpa, "fdpa_step", mmasim_main)
    assert all_cases() != k["all_cases"]
