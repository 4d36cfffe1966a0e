"""`ptxspec explain`: each fact of a variant with the file:line that states it. The truth is the
spec's text itself, read here line by line: the line a fact names must be the one that writes it
(the qualifier's value, the operand's name, the layout's name), and a one-line edit of a copy of
the spec moves the fact to the edited line."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import ptxspec
from ptxspec.cli.main import main
from ptxspec.query.explain import explain

SPEC = Path(__file__).resolve().parents[1] / "spec"
WGMMA = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
TCGEN05 = "tcgen05.mma.cta_group::1.kind::f16.ashift"


def _line(at: str) -> str:
    path, line, _col = at.rsplit(":", 2)
    return Path(path).read_text(encoding="utf-8").splitlines()[int(line) - 1]


def _facts(spec, opcode, form=None):
    return explain(spec.variant(opcode, form))


@pytest.mark.parametrize("opcode,form", [(WGMMA, "reg"), (TCGEN05, "tmem"),
                                         ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32",
                                          None)])
def test_each_fact_points_at_the_line_that_writes_it(spec, opcode, form):
    v = spec.variant(opcode, form)
    facts = explain(v)
    kinds = {f["fact"].split()[0] for f in facts}
    assert {"opcode", "requirement", "target", "operand"} <= kinds
    for f in facts:
        line = _line(f["at"])
        what = f["fact"]
        if what.startswith("qualifier "):
            assert f["value"] in line, (f, line)  # the value as the group (or its piece) lists it
        elif what.startswith("operand "):
            assert re.search(rf"name: {re.escape(what.split()[1])}\b", line), (f, line)
        elif what.startswith("map ") and "layouts" in f["at"]:
            assert f["value"].split(":")[0] in line, (f, line)
        elif what == "opcode":
            assert line.startswith("opcode:")
        elif what == "target":
            assert f"name: {f['value']}," in line
        elif what == "erratum":
            assert f"id: {f['value']}" in line
    # every operand of the variant, and every qualifier, is explained
    assert {f["fact"] for f in facts} >= {f"operand {o.name}" for o in v.operands}
    assert {f["fact"] for f in facts} >= {f"qualifier {q}" for q in v.qualifiers}


def test_targets_are_those_of_the_requirement(spec):
    v = spec.variant(TCGEN05, "tmem")
    assert sorted(f["value"] for f in explain(v) if f["fact"] == "target") == sorted(v.targets)


def test_a_rule_and_its_erratum_are_named(spec):
    # kind::i8 with scale-input-d: admitted by a rule citing an erratum (ptxas accepts, the manual does not)
    v = spec.variant("tcgen05.mma.cta_group::1.kind::i8", "desc_scaled")
    facts = explain(v)
    assert v.ptxas_only
    assert any(f["fact"] == "erratum" and f["value"] == v.ptxas_only for f in facts)
    assert any(f["fact"] == "rule" and "ptxas_only" in f["text"] for f in facts)


def test_one_line_edit_moves_the_fact(tmp_path):
    """A kind stated once in the family's pieces: every tcgen05.mma form of that kind points there,
    and after an edit of that one line (a comment inserted above moves it down) to the new line."""
    copy = tmp_path / "spec"
    shutil.copytree(SPEC, copy)
    fam = copy / "families" / "tcgen05" / "family.yaml"
    text = fam.read_text(encoding="utf-8")
    target = '    - {name: i8, qualifiers: {kind: ["kind::i8"]}}\n'
    assert text.count(target) == 1
    line_no = text[:text.index(target)].count("\n") + 1
    spec = ptxspec.load(copy)
    for form in ("desc", "tmem"):
        kind = next(f for f in _facts(spec, "tcgen05.mma.cta_group::2.kind::i8", form) if f["fact"] == "qualifier kind")
        assert kind["at"].endswith(f"family.yaml:{line_no}:{target.index('kind:') + 1}")
    fam.write_text(text.replace(target, "    # i8: 9.7.16.10.9.1\n" + target), encoding="utf-8")
    spec = ptxspec.load(copy)
    kind = next(f for f in _facts(spec, "tcgen05.mma.sp.cta_group::1.kind::i8", "tmem") if f["fact"] == "qualifier kind")
    assert kind["at"].endswith(f"family.yaml:{line_no + 1}:{target.index('kind:') + 1}")


def test_cli_text_json_and_unknown(capsys):
    assert main(["explain", WGMMA, "--form", "reg"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{WGMMA} (form reg)"
    assert "spec/families/wgmma/mma_async.yaml:" in out
    assert main(["explain", WGMMA, "--form", "reg", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ptx"] == WGMMA and data["form"] == "reg"
    assert all(set(f) == {"fact", "value", "at", "text"} for f in data["facts"])
    assert main(["explain", WGMMA.replace("m64n64", "m64n65")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptxspec explain: error: ") and len(err.strip().splitlines()) == 1
