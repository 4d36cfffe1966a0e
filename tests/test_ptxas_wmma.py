"""ptxas 13.5 against the wmma family, beyond every family's versions check: what remains here needs
no ptxas.

* The spec's wmma opcodes are exactly the ones the ptxas survey found (campaigns/survey/, measured
  from first principles, not from the spec), with the same first PTX version on every target and
  the same register counts.
* Recorded (evidence/ptxas/, tests/ptxas_checks_wmma.py; replayed in the quick tier, judged again by
  ptxas in the full tier): wmma-stride (every wmma.load / wmma.store.d without its optional stride on
  every target at its first version, and with a constant stride), wmma-near-misses (every opcode with
  one qualifier token changed is accepted exactly where the result is a variant of the spec with the
  same registers), wmma-registers (one register more or fewer, or the other width, is rejected),
  wmma-satfinite-removed (.satfinite on floating-point wmma.mma: PTX 6.4 yes, 6.5 no).
"""
import json
from pathlib import Path

import pytest

SURVEY = Path(__file__).resolve().parents[1] / "campaigns" / "survey" / "warp-mma-ptxas-13.5.json"


@pytest.fixture(scope="module")
def survey():
    return json.loads(SURVEY.read_text())


@pytest.fixture(scope="module")
def wmma(spec):
    # the variants PTX 9.5 still has (the 48 .satfinite .f16 ones removed in 6.5: versions-wmma)
    vs = [v for v in spec.variants if v.family == "wmma" and v.requirement.until_ptx is None]
    assert len(vs) == 666
    return vs


def test_opcodes_match_the_survey(spec, wmma, survey):
    measured = {o["opcode"]: o for o in survey["opcodes"] if o["family"] == "wmma"}
    ours = {v.ptx: v for v in wmma}
    assert sorted(set(measured) - set(ours)) == [] and sorted(set(ours) - set(measured)) == []
    wrong_ptx, wrong_regs = [], []
    for op, o in measured.items():
        v = ours[op]
        firsts = {t.name: str(v.requirement.first_ptx(t)) for t in spec.targets.values()
                  if t.ptxas and v.requirement.first_ptx(t) is not None}
        if firsts != survey["target_maps"][o["first_ptx"]]:
            wrong_ptx.append(op)
        regs = [f["regs"] for f in survey["operand_forms"][o["operands"]] if f["kind"] == "vector"]
        if regs != [x.regs for x in v.operands if x.kind == "fragment"]:
            wrong_regs.append((op, regs))
        types = [f["types"] for f in survey["operand_forms"][o["operands"]] if f["kind"] == "vector"]
        for x, accepted in zip([x for x in v.operands if x.kind == "fragment"], types):
            assert x.reg_type in accepted, (op, x.name, x.reg_type, accepted)
    assert not wrong_ptx, f"{len(wrong_ptx)} differ in first PTX per target, e.g. {wrong_ptx[:5]}"
    assert not wrong_regs, wrong_regs[:5]


def test_operands_describe_themselves(wmma):
    for v in wmma:
        kinds = [o.kind for o in v.operands]
        if v.instruction == "wmma.mma":
            assert kinds == ["fragment"] * 4 and [o.matrix for o in v.operands] == list("dabc")
            continue
        assert sorted(kinds) == ["address", "fragment", "stride"]
        address, stride = v.operand("p"), v.operand("stride")
        assert (address.regs, address.reg_type, address.optional) == (1, "b64", False)
        assert (stride.regs, stride.reg_type, stride.optional) == (1, "b32", True)
        frag = next(o for o in v.operands if o.kind == "fragment")
        assert frag.io == ("in" if v.instruction == "wmma.store.d" else "out")
        assert frag.matrix == v.instruction[-1]
        assert v.qualifiers["space"] in ("", "global", "shared", "shared::cta")


def test_floating_satfinite_removed_in_6_5(wmma):
    """The manual: .satfinite on floating-point wmma.mma was deprecated in PTX 6.4 and removed in 6.5
    (ptxas: wmma-satfinite-removed). The variants PTX 9.5 has include none, and a rule says so."""
    floats = [v for v in wmma if v.instruction == "wmma.mma" and v.dtype in ("f16", "f32") and v.atype == "f16"]
    assert len(floats) == 48 and not any(v.satfinite for v in floats)
    rules = " ".join(next(v for v in wmma if v.instruction == "wmma.mma").spec.instructions["wmma.mma"].rules)
    assert "removed in 6.5" in rules
