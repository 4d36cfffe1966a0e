"""ptxas 13.5 against the wmma family, beyond the generic checks of test_ptxas_families.py.

* The spec's wmma opcodes are exactly the ones the ptxas survey found (campaigns/survey/, measured
  from first principles, not from the spec), with the same first PTX version on every target and
  the same register counts.
* Every wmma.load / wmma.store.d assembles without its optional stride too, on every target at
  its first version, and with the stride as a constant.
* A near-miss space made from every variant by changing one qualifier token (every other shape,
  element type, layout, state space including the forbidden ones, rounding mode; adding or
  dropping the state space) is accepted by ptxas exactly where the result is a variant of the
  spec with the same registers; so is changing one fragment's register count by one, or the
  width of its registers.

Many statements are judged in one module, then every statement whose verdict disagrees with the
spec is judged again alone: ptxas 13.5 can blame the wrong line. A wmma.store.d at a shape that
has no built-in routine (`.m16n16k8.f16`) makes it report "Unknown symbol
'__cuda_sm7x_wmma_m16n16k8_store_d_col_f16'" on later, valid wmma.store.d lines of the module.
"""
import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ptxspec.model import ptx_text as asm
from ptxspec.model.isa import Version
from ptxspec.oracle import ptxas

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")
SURVEY = Path(__file__).resolve().parents[1] / "campaigns" / "survey" / "warp-mma-ptxas-13.5.json"
LATEST = Version(9, 5)
TARGET = "sm_90a"  # every wmma variant is valid there at PTX 9.5

SHAPES = ["m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128",
          "m16n8k16", "m8n8k16", "m16n16k32"]
TYPES = ["f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s4", "u4", "b1", "s32", "e4m3"]
LAYOUTS = ["row", "col"]
SPACES = ["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]
RND = ["rn", "rz", "rm", "rp"]


@pytest.fixture(scope="module")
def survey():
    return json.loads(SURVEY.read_text())


@pytest.fixture(scope="module")
def wmma(spec):
    # the variants PTX 9.5 still has (the 48 .satfinite .f16 ones removed in 6.5: test_ptxas_families)
    vs = [v for v in spec.variants if v.family == "wmma" and v.requirement.until_ptx is None]
    assert len(vs) == 666
    return vs


def _judge_all(batches, expect=lambda key: True):
    """{(version, target): [(key, line)]} -> {key: accepted}; a verdict other than expect(key) is
    confirmed by judging the statement alone."""
    def one(item):
        (version, target), entries = item
        ok, _ = ptxas.judge([line for _, line in entries], str(version), target)
        out = []
        for (key, line), verdict in zip(entries, ok):
            if verdict != expect(key):
                verdict = ptxas.judge([line], str(version), target)[0][0]
            out.append((key, verdict))
        return out
    out = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for results in pool.map(one, sorted(batches.items(), key=lambda kv: (str(kv[0][0]), kv[0][1]))):
            out.update(results)
    return out


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


def test_stride_is_optional_on_every_target(spec, wmma):
    batches = defaultdict(list)
    for v in wmma:
        if v.instruction == "wmma.mma":
            continue
        bare = asm.statement(v, optional=False)
        constant = bare[:-1] + ", 64;"
        for t in spec.targets.values():
            first = v.requirement.first_ptx(t)
            if t.ptxas and first is not None:
                batches[(first, t.name)].append(((v.id, t.name, "none"), bare))
        batches[(LATEST, TARGET)].append(((v.id, TARGET, "constant"), constant))
    verdicts = _judge_all(batches)
    bad = [key for key, ok in verdicts.items() if not ok]
    assert len(verdicts) > 5000 and not bad, f"{len(bad)} of {len(verdicts)} rejected: {bad[:10]}"


def _mutations(opcode: str):
    """Opcodes one qualifier token away from `opcode`."""
    tokens = opcode.split(".")
    # "shared::cta" is one token already (split on '.' only)
    for i, tok in enumerate(tokens):
        for cls in (SHAPES, TYPES, LAYOUTS, SPACES, RND):
            if tok in cls:
                for other in cls:
                    if other != tok:
                        yield ".".join(tokens[:i] + [other] + tokens[i + 1:])
        if tok in SPACES:
            yield ".".join(tokens[:i] + tokens[i + 1:])
    if not any(t in SPACES for t in tokens) and (tokens[1] in ("load", "store")):
        at = next(i for i, t in enumerate(tokens) if t in SHAPES) + 1
        for sp in SPACES:
            yield ".".join(tokens[:at] + [sp] + tokens[at:])
    if "aligned" in tokens:
        yield ".".join(t for t in tokens if t != "aligned")
    if tokens[1] == "mma":
        # .satfinite on or off; .rnd where there is none; .and/.xor.popc added or dropped
        yield ".".join(tokens[:-1]) if tokens[-1] == "satfinite" else opcode + ".satfinite"
        shape_at = next(i for i, t in enumerate(tokens) if t in SHAPES) + 1
        if tokens[shape_at] not in RND:
            for r in RND:
                yield ".".join(tokens[:shape_at] + [r] + tokens[shape_at:])
        if tokens[2] == "popc":
            yield ".".join(tokens[:2] + tokens[4:])
        else:
            for op in ("and", "xor"):
                yield ".".join(tokens[:2] + [op, "popc"] + tokens[2:])


def test_near_misses_are_rejected(spec, wmma):
    by_ptx = {v.ptx: v for v in wmma}

    def signature(v):
        return [(o.kind, o.regs, o.reg_type) for o in v.operands]

    entries, seen = [], set()
    for v in wmma:
        line = asm.statement(v)
        operands = line[len(v.ptx):]
        for m in _mutations(v.ptx):
            if (m, operands) in seen:
                continue
            seen.add((m, operands))
            other = by_ptx.get(m)
            expect = other is not None and signature(other) == signature(v)
            entries.append(((m, v.ptx, expect), m + operands))
    verdicts = _judge_all({(LATEST, TARGET): entries}, expect=lambda key: key[2])
    wrong = [key for key, ok in verdicts.items() if ok != key[2]]
    accepted = sum(verdicts.values())
    assert len(verdicts) > 10000 and accepted > 500, (len(verdicts), accepted)
    assert not wrong, f"{len(wrong)} of {len(verdicts)} judged otherwise than the spec says: {wrong[:10]}"


def test_register_counts_and_widths_are_exact(wmma):
    """One register more or fewer in any fragment, or registers of the other width, is rejected."""
    entries = []
    for v in wmma:
        frags = [i for i, o in enumerate(v.operands) if o.kind == "fragment"]
        for i in frags:
            o = v.operands[i]
            for delta in (-1, 1):
                if o.regs + delta < 1:
                    continue
                ops = list(v.operands)
                ops[i] = type(o)(**{**o.__dict__, "regs": o.regs + delta})
                entries.append(((v.ptx, o.name, f"regs{delta:+d}"), _statement(v, ops)))
            wide = o.reg_type in ("f64", "b64")
            ops = list(v.operands)
            ops[i] = type(o)(**{**o.__dict__, "reg_type": "b32" if wide else "b64"})
            entries.append(((v.ptx, o.name, "width"), _statement(v, ops)))
    verdicts = _judge_all({(LATEST, TARGET): entries}, expect=lambda key: False)
    bad = [key for key, ok in verdicts.items() if ok]
    assert len(verdicts) > 3000 and not bad, f"{len(bad)} of {len(verdicts)} accepted: {bad[:10]}"


def _statement(v, operands) -> str:
    counters: dict[str, int] = {}
    return f"{v.ptx} {', '.join(asm.operand_text(o, counters, {}) for o in operands)};"


def test_floating_satfinite_removed_in_6_5(wmma):
    """The manual: .satfinite on floating-point wmma.mma was deprecated in PTX 6.4 and removed in
    6.5. ptxas takes it at 6.4 (sm_75) and refuses it from 6.5; the spec, whose variants are what
    PTX 6.5 and later accept, has none, and says so in a rule."""
    floats = [v for v in wmma if v.instruction == "wmma.mma" and v.dtype in ("f16", "f32") and v.atype == "f16"]
    assert len(floats) == 48 and not any(v.satfinite for v in floats)
    lines = [(v.ptx, asm.statement(v).replace(v.ptx, v.ptx + ".satfinite", 1)) for v in floats]
    verdicts = _judge_all({(Version(6, 4), "sm_75"): [(("6.4", p), line) for p, line in lines],
                           (Version(6, 5), "sm_75"): [(("6.5", p), line) for p, line in lines]},
                          expect=lambda key: key[0] == "6.4")
    assert [key for key, ok in verdicts.items() if ok != (key[0] == "6.4")] == []
    rules = " ".join(next(v for v in wmma if v.instruction == "wmma.mma").spec.instructions["wmma.mma"].rules)
    assert "removed in 6.5" in rules
