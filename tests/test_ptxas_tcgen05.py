"""tcgen05 against ptxas 13.5, beyond every family's versions check: what remains here needs no ptxas.

* The full survey (campaigns/survey/survey_tcgen05.py, a few minutes, by hand) recorded all 2,650
  opcodes ptxas accepts; `test_spec_matches_the_survey` compares the spec with that record.
* Recorded (evidence/ptxas/, tests/ptxas_checks_tcgen05.py; replayed in the quick tier, judged again
  by ptxas in the full tier): tcgen05-options (every option value at its first PTX version on each
  target, one version earlier, off target), tcgen05-optional-operands, tcgen05-lane-mask (4 registers
  with .cta_group::1, 8 with ::2), tcgen05-scale-input-d, tcgen05-alloc (nCols), tcgen05-tokens (the
  ignored type tokens) and tcgen05-near-misses (a seeded sample of the survey's first-principles
  candidates on four targets: ptxas accepts exactly the spec's). The operand signatures those checks
  take from the spec are pinned here.
"""
from __future__ import annotations

import json
from pathlib import Path

from ptxas_checks_tcgen05 import opcode_key, spec_opcodes

SURVEY = Path(__file__).resolve().parent.parent / "campaigns" / "survey" / "tcgen05-ptxas-13.5.json"

#: The instructions whose `.b2` the survey looked for (erratum tcgen05-ld-b2). The other values of
#: the `b2` option, tokens ptxas accepts and ignores on every tcgen05 instruction (erratum
#: tcgen05-ignored-type-tokens), are not in the survey's record: tcgen05-tokens has them.
SURVEYED_B2 = ("tcgen05.ld", "tcgen05.st", "tcgen05.ld.red")


def _tcgen05(spec):
    return [v for v in spec.variants if v.family == "tcgen05"]


def test_lane_mask_length_is_the_cta_groups(spec):
    """disable-output-lane: 4 registers with .cta_group::1, 8 with ::2 (one bit per lane of the CTA's
    or the pair's 128 lanes)."""
    masks = [(v, o) for v in _tcgen05(spec) for o in v.operands if o.kind == "lane_mask"]
    assert len(masks) >= 100
    for v, o in masks:
        assert o.regs == {"cta_group::1": 4, "cta_group::2": 8}[v.qualifiers["cta_group"]], v.id


def test_scale_input_d_values(spec):
    """0-15, the manual's range (kind::f16 and kind::tf32), for every kind: with the integer kinds,
    where only ptxas takes it, ptxas takes any constant (the recording tcgen05-scale-input-d), more
    than the spec calls legal, never less; a default and a call are checked against these values."""
    kinds: dict[bool, set] = {False: set(), True: set()}
    for v in _tcgen05(spec):
        for o in (o for o in v.operands if o.name == "scale_input_d"):
            integer = v.qualifiers["kind"] in ("kind::i8", "kind::ti16")
            assert o.values is not None and tuple(o.values) == tuple(range(16)), v.id
            kinds[integer].add(v.qualifiers["kind"])
    assert kinds == {False: {"kind::f16", "kind::tf32"}, True: {"kind::i8", "kind::ti16"}}


def test_alloc_column_counts(spec):
    """nCols: powers of two from 32 to 512; with .exclusive the spec lists none (ptxas 13.5 takes any
    non-zero multiple of 32: tcgen05-alloc)."""
    allocs = [v for v in _tcgen05(spec) if v.instruction == "tcgen05.alloc"]
    assert len(allocs) == 8
    for v in allocs:
        legal = next(o.values for o in v.operands if o.name == "ncols")
        assert legal == (None if v.qualifiers.get("exclusive") else (32, 64, 128, 256, 512)), v.id


def test_spec_matches_the_survey(spec):
    """Every opcode the survey found is a spec opcode with the same first PTX version on every
    target, and the other way round (ptxas-only opcodes included: the errata say why)."""
    data = json.loads(SURVEY.read_text())
    tmaps = data["target_maps"]
    ours = spec_opcodes(spec, SURVEYED_B2)
    theirs = {opcode_key(o["opcode"]): o for o in data["opcodes"]}
    missing = sorted(str(k) for k in theirs if k not in ours)
    extra = sorted(str(k) for k in ours if k not in theirs)
    assert not missing, f"{len(missing)} survey opcodes not in the spec: {missing[:5]}"
    assert not extra, f"{len(extra)} spec opcodes the survey did not find: {extra[:5]}"
    wrong = []
    for key, o in theirs.items():
        for f, tm in o["forms"]:
            want = tmaps[tm] if isinstance(tm, str) else tm
            for v, _, req in ours[key]:
                got = {t: str(req.first_ptx(spec.targets[t])) for t in req.targets if spec.targets[t].ptxas}
                if got != want:
                    wrong.append((o["opcode"], v.form, got, want))
    # each spec variant of an opcode must agree with some survey form of it
    agreed = {(w[0], w[1]) for w in wrong}
    fine = set()
    for key, o in theirs.items():
        for v, _, req in ours[key]:
            got = {t: str(req.first_ptx(spec.targets[t])) for t in req.targets if spec.targets[t].ptxas}
            if any(got == (tmaps[tm] if isinstance(tm, str) else tm) for _, tm in o["forms"]):
                fine.add((o["opcode"], v.form))
    bad = sorted(agreed - fine)
    assert not bad, f"{len(bad)} spec variants disagree with the survey's targets: {bad[:5]}"
