"""`ptxspec diff`: pairs of spec trees with known edits and their exact classified reports.

Each test copies the repository's spec/ into tmp_path, edits the YAML text there, and checks the
rule ids, severities, counts and file:line of every change. Line numbers are computed from the
edited text, so the tests follow the spec as it grows. Each edit resolves a tree (a second or two of
CPU): the quick tier keeps one edit per kind of change (a shape, a fragment map, a version, operand
values, an erratum) and the reports, the full tier (`full`) runs every edit; every rule also has
its own case in the quick tier (tests/test_diff_rules.py).
"""
import collections
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ptxspec import diff
from ptxspec.cli.main import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec"
MMA = "families/wgmma/mma_async.yaml"
SP = "families/wgmma/mma_async_sp.yaml"
FAMILY = "families/wgmma/family.yaml"
LAYOUTS = "layouts/wgmma.yaml"
ERRATA = "errata/wgmma.yaml"
TYPES = "types.yaml"
FENCE = "families/wgmma/fence.yaml"
MMA_SP = "families/mma/mma_sp.yaml"


# ---------------------------------------------------------------------------------------------
# helpers


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("base") / "spec"
    shutil.copytree(SPEC, d)
    return d


@pytest.fixture(scope="module")
def base(base_dir):
    return diff.load_side(diff.Side("BASE", str(base_dir), "directory", base_dir))


@pytest.fixture
def head_dir(base_dir, tmp_path):
    d = tmp_path / "head" / "spec"
    shutil.copytree(base_dir, d)
    return d


def edit(tree: Path, rel: str, old: str, new: str, count: int = 1, *, regex: bool = False) -> None:
    path = tree / rel
    text = path.read_text()
    if regex:
        found = len(re.findall(old, text, flags=re.MULTILINE | re.DOTALL))
        assert found >= count, f"{old!r} occurs {found} times in {rel}"
        text = re.sub(old, new, text, count=count, flags=re.MULTILINE | re.DOTALL)
    else:
        assert text.count(old) >= count, f"{old!r} occurs {text.count(old)} times in {rel}"
        text = text.replace(old, new, count)
    path.write_text(text)


def line_of(tree: Path, rel: str, needle: str, after: str | None = None) -> int:
    lines = (tree / rel).read_text().splitlines()
    start = 0
    if after is not None:
        start = next(i for i, line in enumerate(lines) if after in line) + 1
    return next(i for i, line in enumerate(lines[start:], start) if needle in line) + 1


def run(base, head_dir) -> diff.Report:
    return diff.compare(base, diff.load_side(diff.Side("HEAD", str(head_dir), "directory", head_dir)))


def where(side, rel: str) -> str:
    return side.path(str(side.spec_dir / rel))


def classify(report) -> dict:
    """{(rule, severity, file, line): count}"""
    return dict(collections.Counter((c.rule, c.severity, c.file, c.line) for c in report.changes))


def per_instruction(report, rule) -> dict:
    return dict(collections.Counter(c.instruction for c in report.changes if c.rule == rule))


def count(base, **fields) -> int:
    return len([v for v in base.spec.variants if all(getattr(v, k) == val for k, val in fields.items())])


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli(*args, cwd=ROOT):
    """`ptxspec ARGS` in process (the command's own code path, without an interpreter start per call)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(list(args))
    finally:
        os.chdir(here)
    return Result(code, out.getvalue(), err.getvalue())


# ---------------------------------------------------------------------------------------------
# classified reports of known edits


def test_identical_trees_have_no_changes(base, head_dir):
    report = run(base, head_dir)
    assert report.changes == []
    assert report.counts() == {"breaking": 0, "warning": 0, "info": 0, "ignored": 0, "total": 0}


def test_remove_an_n(base, head_dir):
    edit(head_dir, FAMILY, "integer: [8, 16, 24, 32, 48, ", "integer: [8, 16, 24, 32, ")
    report = run(base, head_dir)
    # 4 type pairs x 2 (satfinite) x 2 forms dense and sparse, plus b1 in 2 forms: 16 + 2 + 16
    line = line_of(base.spec_dir, FAMILY, "integer: [")
    assert classify(report) == {("variant.removed", "breaking", where(base, FAMILY), line): 34}
    assert per_instruction(report, "variant.removed") == {"wgmma.mma_async": 18, "wgmma.mma_async.sp": 16}
    assert all(c.side == "base" and c.n == 48 for c in report.changes)


@pytest.mark.full
def test_add_a_type(base, head_dir):
    edit(head_dir, MMA, "{name: bf16, shape: {k: [16]}, types: {use: bf16}}",
         "{name: bf16, shape: {k: [16]}, types: {atype: [bf16], btype: [bf16], dtype: [f32, f16]}}")
    report = run(base, head_dir)
    line = line_of(head_dir, MMA, "dtype: [f32, f16]")
    assert classify(report) == {("variant.added", "info", where(report.head, MMA), line): 64}
    assert {c.n for c in report.changes} == set(range(8, 257, 8))
    assert all(c.subject.endswith((".f16.bf16.bf16:reg", ".f16.bf16.bf16:desc")) for c in report.changes)


def test_move_a_fragment_element(base, head_dir):
    # swap elements 0 and 1 of thread 0 in A of every k16 fragment (still a bijection)
    edit(head_dir, LAYOUTS, 'col: "2*(t%4) + i%2 + 8*(i//4)"',
         'col: "2*(t%4) + ((i%2) ^ ((t == 0) & (i < 2))) + 8*(i//4)"')
    report = run(base, head_dir)
    line = line_of(head_dir, LAYOUTS, "col:", after="wgmma.a.k16:")
    f = where(report.head, LAYOUTS)
    dense_reg = count(base, instruction="wgmma.mma_async", k=16, form="reg")
    sparse_reg = len([v for v in base.spec.variants if v.instruction == "wgmma.mma_async.sp" and v.form == "reg"
                      and v.atype in ("f16", "bf16")])
    assert (dense_reg, sparse_reg) == (96, 96)
    assert classify(report) == {("fragment.moved", "breaking", f, line): 192,
                                ("layout.changed", "warning", f, line): 1}
    moved = [c for c in report.changes if c.rule == "fragment.moved"]
    assert {c.details["operand"] for c in moved} == {"a"}
    assert all(c.details["moved"] == 2 for c in moved)
    ex = moved[0].details["examples"]
    assert [(e["thread"], e["element"], e["before"], e["after"]) for e in ex] == [(0, 0, [0, 0], [0, 1]),
                                                                               (0, 1, [0, 1], [0, 0])]


@pytest.mark.full
def test_sparsity_metadata_changes(base, head_dir):
    # swap neighbouring chunks (0 <-> 1, 2 <-> 3, ...) in every 8-bit metadata nibble: still a bijection
    edit(head_dir, LAYOUTS, r'(wgmma\.sparse\.8bit:.*?chunk_index: )"([^"]*)"', r'\1"(\2) ^ 1"', regex=True)
    edit(head_dir, LAYOUTS, r"(wgmma\.sparse\.16bit:.*?valid_nibbles: \[[^]]*), 0xB\]", r"\1]", regex=True)
    report = run(base, head_dir)
    n = len([v for v in base.spec.variants if v.sparsity is not None and v.sparsity.name == "wgmma.sparse.8bit"])
    assert n == 800
    f = where(report.head, LAYOUTS)
    moved = line_of(head_dir, LAYOUTS, ") ^ 1")
    assert classify(report) == {
        ("sparsity.moved", "breaking", f, moved): n,
        ("layout.changed", "warning", f, moved): 1,
        ("sparsity.nibbles.narrowed", "breaking", f, line_of(head_dir, LAYOUTS, "0x7]", after="sparse.16bit")): 1}
    c = next(c for c in report.changes if c.rule == "sparsity.moved")
    assert c.details == {"moved": 1024, "elements": 1024}  # 128 threads x 8 nibbles, every one moved


@pytest.mark.full
def test_rewritten_layout_formula_with_the_same_map_is_info(base, head_dir):
    edit(head_dir, LAYOUTS, 'row: "16*(t//32) + (t%32)//4 + 8*((i//2)%2)"\n    col: "8*(i//4)',
         'row: "(t//32)*16 + (t%32)//4 + 8*((i//2)%2)"\n    col: "8*(i//4)')
    report = run(base, head_dir)
    line = line_of(head_dir, LAYOUTS, "row:", after="wgmma.d:")
    assert classify(report) == {("layout.rewritten", "info", where(report.head, LAYOUTS), line): 1}


def test_raise_a_ptx_version(base, head_dir):
    edit(head_dir, FAMILY, '{when: {atype: s8, btype: u8}, requires: {ptx: "8.4"}',
         '{when: {atype: s8, btype: u8}, requires: {ptx: "8.5"}')
    report = run(base, head_dir)
    line = line_of(head_dir, FAMILY, 'requires: {ptx: "8.5"}')
    n = count(base, family="wgmma", atype="s8", btype="u8")  # of wgmma.mma_async and wgmma.mma_async.sp
    assert n == 72 + 72
    assert classify(report) == {("requirement.ptx.raised", "breaking", where(report.head, FAMILY), line): n}
    c = report.changes[0]
    assert (c.before, c.after, c.details["targets"]) == ("8.4", "8.5", ["sm_90a"])
    assert c.summary == "first PTX version 8.4 -> 8.5 on sm_90a"


@pytest.mark.full
def test_lower_a_ptx_version_is_info(base, head_dir):
    # mma's own requirement from PTX 7.0 on sm_80 lowered to PTX 6.5 from sm_75 (within mma's
    # introduction, PTX 6.4 on sm_70, so validate takes it): sm_75 newly accepts the variants that
    # take the instruction's requirement, and sm_80 and later still need PTX 7.0, when they came
    edit(head_dir, "families/mma/mma.yaml", '  - {ptx: "7.0", targets: {at_least: sm_80}}',
         '  - {ptx: "6.5", targets: {at_least: sm_75}}')
    report = run(base, head_dir)
    line = line_of(head_dir, "families/mma/mma.yaml", '{ptx: "6.5", targets: {at_least: sm_75}}')
    gained = {v.id for v in report.head.spec.variants if "sm_75" in v.targets} - \
        {v.id for v in base.spec.variants if "sm_75" in v.targets}
    assert gained and {c.subject for c in report.changes} == gained
    assert classify(report) == {("requirement.targets.widened", "info", where(report.head, "families/mma/mma.yaml"),
                                 line): len(gained)}
    assert {tuple(c.details["targets"]) for c in report.changes} == {("sm_75",)}


@pytest.mark.full
def test_widen_targets(base, head_dir):
    edit(head_dir, MMA, "requires: [{use: introduced}]", 'requires: [{ptx: "8.0", targets: {any_of: [sm_90a, sm_100a]}}]')
    report = run(base, head_dir)
    line = line_of(head_dir, MMA, "any_of: [sm_90a, sm_100a]")
    n = count(base, instruction="wgmma.mma_async")
    assert classify(report) == {("requirement.targets.widened", "info", where(report.head, MMA), line): n}
    assert {tuple(c.details["targets"]) for c in report.changes} == {("sm_100a",)}
    assert report.failing("breaking") == [] and report.failing("warning") == []


@pytest.mark.full
def test_narrow_targets_and_raise_together(base, head_dir):
    edit(head_dir, FENCE, "requires: [{use: introduced}]", 'requires: [{ptx: "8.6", targets: sm_100a}]')
    report = run(base, head_dir)
    line = line_of(head_dir, FENCE, "sm_100a")
    f = where(report.head, FENCE)
    assert classify(report) == {("requirement.targets.narrowed", "breaking", f, line): 1,
                                ("requirement.targets.widened", "info", f, line): 1}


@pytest.mark.full
def test_rename_a_qualifier(base, head_dir):
    edit(head_dir, SP, 'opcode: "wgmma.mma_async.sp.sync.aligned.m{m}',
         'opcode: "wgmma.mma_async.sp.aligned.sync.m{m}')
    report = run(base, head_dir)
    n = count(base, instruction="wgmma.mma_async.sp")
    assert n == 1056
    line = line_of(head_dir, SP, "opcode:")
    assert classify(report) == {("variant.renamed", "breaking", where(report.head, SP), line): n}
    c = report.changes[0]
    assert c.before.startswith("wgmma.mma_async.sp.sync.aligned.m64n") and \
        c.after.startswith("wgmma.mma_async.sp.aligned.sync.m64n")


def test_change_an_operands_legal_values(base, head_dir):
    edit(head_dir, FAMILY, "{name: imm_scale_a, kind: immediate, values: [-1, 1], default: 1,",
         "{name: imm_scale_a, kind: immediate, values: [1], default: 1,")
    report = run(base, head_dir)
    n = len([v for v in base.spec.variants if v.family == "wgmma" and v.atype not in ("", "s8", "u8", "b1")])
    assert n == 768 + 768
    line = line_of(head_dir, FAMILY, "values: [1], default: 1,")
    assert classify(report) == {("operand.values.narrowed", "breaking", where(report.head, FAMILY), line): n}
    c = report.changes[0]
    assert (c.before, c.after, c.details["operand"]) == ([-1, 1], [1], "imm_scale_a")


@pytest.mark.full
def test_widen_an_operands_legal_values(base, head_dir):
    edit(head_dir, FAMILY, "{name: imm_trans_b, kind: immediate, values: [0, 1], default: 0,",
         "{name: imm_trans_b, kind: immediate, values: [0, 1, 2], default: 0,")
    report = run(base, head_dir)
    line = line_of(head_dir, FAMILY, "values: [0, 1, 2]")
    assert classify(report) == {("operand.values.widened", "info", where(report.head, FAMILY), line): 192 + 192}


@pytest.mark.full
def test_operand_signature_changes(base, head_dir):
    # the dense integer and b1 variants: scale-d an immediate, imm-scale-a added (their own signature)
    edit(head_dir, MMA, "  mma: [{use: dab}, {use: scales}]\n",
         "  mma: [{use: dab}, {use: scales}]\n  plain: [{use: dab},\n"
         "    {name: scale_d, kind: immediate, io: in, values: [0, 1], default: 1},\n"
         "    {name: imm_scale_a, kind: immediate, values: [-1, 1]}]\n")
    edit(head_dir, MMA, "satfinite: [false, true]}", "satfinite: [false, true], signature: plain}")
    edit(head_dir, MMA, "op: [and.popc]}", "op: [and.popc], signature: plain}")
    # and imm-trans-a gone from every f16 and bf16 variant (in the descriptor form), dense and sparse
    edit(head_dir, FAMILY, "    - {name: imm_trans_a, kind: immediate, values: [0, 1], default: 0, forms: [desc], "
         "when: {atype: [f16, bf16]}}\n", "")
    report = run(base, head_dir)
    n = len([v for v in base.spec.variants if v.instruction == "wgmma.mma_async" and v.atype in ("s8", "u8", "b1")])
    assert n == 324
    f = where(report.head, MMA)
    assert classify(report) == {
        ("operand.changed", "breaking", f, line_of(head_dir, MMA, "name: scale_d, kind: immediate")): n,
        ("operand.values.narrowed", "breaking", f, line_of(head_dir, MMA, "name: scale_d, kind: immediate")): n,
        ("operand.added", "breaking", f, line_of(head_dir, MMA, "imm_scale_a", after="  plain:")): n,
        # a removal points at BASE
        ("operand.removed", "breaking", where(base, FAMILY), line_of(base.spec_dir, FAMILY, "imm_trans_a")): 96 + 96}
    changed = next(c for c in report.changes if c.rule == "operand.changed")
    assert changed.details == {"operand": "scale_d", "fields": ["kind", "reg_type"]}


def test_change_an_erratum(base, head_dir):
    edit(head_dir, ERRATA, "syntax block does list them); the shape table is right.",
         "syntax block does list them); the shape table is right, the syntax block is not.")
    report = run(base, head_dir)
    line = line_of(head_dir, ERRATA, "truth:", after="id: wgmma-integer-n-list")
    assert classify(report) == {("errata.changed", "warning", where(report.head, ERRATA), line): 1}
    assert report.changes[0].details == {"fields": ["truth"]}
    assert report.changes[0].subject == "erratum wgmma-integer-n-list"


@pytest.mark.full
def test_add_and_remove_errata(base, head_dir):
    text = (head_dir / ERRATA).read_text()
    start = text.index("  - id: wgmma-aligned-not-enforced")
    (head_dir / ERRATA).write_text(text[:start] + text[start:].replace(
        "wgmma-aligned-not-enforced", "wgmma-aligned-optional"))
    report = run(base, head_dir)
    assert classify(report) == {
        ("errata.removed", "warning", where(base, ERRATA), line_of(base.spec_dir, ERRATA, "wgmma-aligned-not-enforced")): 1,
        ("errata.added", "info", where(report.head, ERRATA), line_of(head_dir, ERRATA, "wgmma-aligned-optional")): 1}


@pytest.mark.full
def test_change_a_description(base, head_dir):
    edit(head_dir, FENCE, "Orders earlier accesses", "Orders all earlier accesses")
    report = run(base, head_dir)
    line = line_of(head_dir, FENCE, "description:")
    assert classify(report) == {("description.changed", "info", where(report.head, FENCE), line): 1}
    assert report.changes[0].subject == "instruction wgmma.fence"


@pytest.mark.full
def test_change_numerics(base, head_dir):
    edit(head_dir, TYPES, "format: {exponent: 4, mantissa: 3, bias: 7, specials: nan_only}",
         "format: {exponent: 4, mantissa: 3, bias: 8, specials: nan_only}")
    report = run(base, head_dir)
    line = line_of(head_dir, TYPES, "bias: 8")
    assert classify(report) == {("numerics.changed", "breaking", where(report.head, TYPES), line): 1}
    assert report.changes[0].subject == "type e4m3"


@pytest.mark.full
def test_shared_memory_descriptor_and_its_descriptions(base, head_dir):
    edit(head_dir, "smem/wgmma.yaml", r'^swizzle: "([^"]*)"', r'swizzle: "(\1) ^ 0"', regex=True)
    edit(head_dir, "smem/wgmma.yaml", r"(- name: start_address.*?description: )", r"\1Now, ", regex=True)
    report = run(base, head_dir)
    f = where(report.head, "smem/wgmma.yaml")
    assert classify(report) == {
        ("smem.changed", "breaking", f, line_of(head_dir, "smem/wgmma.yaml", ") ^ 0")): 1,
        ("description.changed", "info", f, line_of(head_dir, "smem/wgmma.yaml", "Now, ")): 1}
    assert next(c for c in report.changes if c.rule == "smem.changed").details == {"fields": ["swizzle"]}


@pytest.mark.full
def test_usage_rules_and_targets(base, head_dir):
    edit(head_dir, FENCE, "  - \".aligned: all threads", "  - \".aligned: every thread")
    # a new PTX ISA version changes no variant's requirement (a new target could: `at_least` sets grow)
    edit(head_dir, "isa.yaml", '  - {version: "9.5"}\n', '  - {version: "9.5"}\n  - {version: "9.6"}\n')
    report = run(base, head_dir)
    assert classify(report) == {
        ("instruction.rules.changed", "warning", where(report.head, FENCE), line_of(head_dir, FENCE, "every thread")): 1,
        ("isa.ptx.added", "info", where(report.head, "isa.yaml"), line_of(head_dir, "isa.yaml", '"9.6"')): 1}


@pytest.mark.full
def test_a_collection_the_rules_do_not_know_yet_is_still_reported(base, head_dir):
    """The model grows (a new collection, say): a changed collection without a rule is a warning."""
    head = diff.load_side(diff.Side("HEAD", str(head_dir), "directory", head_dir))
    head.spec.widgets = {"e4m3": {"agreement": 0.999}}
    try:
        report = diff.compare(base, head)
    finally:
        del head.spec.widgets  # the loaded tree is cached for later tests
    assert [(c.rule, c.severity, c.subject) for c in report.changes] == [("definition.changed", "warning",
                                                                          "spec widgets")]
    assert report.changes[0].file == head.shown_spec()


# ---------------------------------------------------------------------------------------------
# formats


@pytest.fixture(scope="module")
def big(base, base_dir, tmp_path_factory):
    """One HEAD with many kinds of edit at once, shared by the format tests."""
    head_dir = tmp_path_factory.mktemp("big") / "spec"
    shutil.copytree(base_dir, head_dir)
    edit(head_dir, SP, 'opcode: "wgmma.mma_async.sp.sync.aligned.m{m}', 'opcode: "wgmma.mma_async.sp.aligned.sync.m{m}')
    edit(head_dir, MMA, "requires: [{use: introduced}]", 'requires: [{ptx: "8.1", targets: {any_of: [sm_90a, sm_100a]}}]')
    edit(head_dir, LAYOUTS, 'col: "2*(t%4) + i%2 + 8*(i//4)"',
         'col: "2*(t%4) + ((i%2) ^ ((t == 0) & (i < 2))) + 8*(i//4)"')
    edit(head_dir, FAMILY, "integer: [8, 16, 24, 32, 48, ", "integer: [8, 16, 24, 32, ")
    edit(head_dir, ERRATA, "the shape table is right.", "the shape table is correct.")
    edit(head_dir, TYPES, "bias: 7, specials: nan_only", "bias: 8, specials: nan_only")
    return run(base, head_dir)


def test_markdown_summarizes_large_groups_and_stays_under_64k(big):
    assert len(big.changes) > 3000
    md = diff.render_markdown(big)
    assert len(md.encode()) < 65536
    assert "32 N values of m64nNk16 .f32.bf16.bf16" in md
    assert "`requirement.ptx.raised` \u00d764 `wgmma.mma_async` 32 N values of m64nNk16 .f32.bf16.bf16" in md
    assert "| \U0001F534 breaking | `variant.renamed` | 1040 |" in md  # 1056 less 16 of N = 48
    small = diff.render_markdown(big, budget=6000)
    assert len(small.encode()) <= 6500 and "left out to stay under GitHub's 64 KB" in small


def test_json_report_validates_against_the_published_schema(base, big):
    doc = json.loads(diff.render_json(big, "breaking"))
    schema = json.loads((ROOT / "schema" / "diff-report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["failed"] is True and doc["counts"]["total"] == len(doc["changes"])
    assert {c["rule"] for c in doc["changes"]} >= {"variant.renamed", "variant.removed", "fragment.moved",
                                                   "requirement.ptx.raised", "requirement.targets.widened",
                                                   "errata.changed", "layout.changed", "numerics.changed"}
    assert set(diff.RULES) == set(schema["$defs"]["change"]["properties"]["rule"]["enum"])
    empty = json.loads(diff.render_json(diff.compare(base, base)))
    jsonschema.Draft202012Validator(schema).validate(empty)
    assert empty["changes"] == [] and empty["failed"] is False


def test_fingerprints_are_stable_and_distinct(base, big):
    again = diff.compare(base, big.head)
    fps = [c.fingerprint for c in big.changes]
    assert fps == [c.fingerprint for c in again.changes] and len(set(fps)) == len(fps)
    c = big.changes[0]
    assert c.fingerprint == hashlib.sha256(f"{c.rule}\n{c.subject}".encode()).hexdigest()


def test_github_annotations(base, big):
    out = diff.render_github(big)
    lines = out.splitlines()
    fam_line = line_of(base.spec_dir, FAMILY, "integer: [")
    removed = [x for x in lines if "title=variant.removed" in x]
    assert len(removed) == 1 and removed[0].startswith(
        f"::error file={where(base, FAMILY)},line={fam_line},col=")
    assert "(BASE)" in removed[0] and "34 breaking changes" in removed[0]
    assert any(x.startswith("::warning ") and "errata.changed" in x for x in lines)
    assert any(x.startswith("::notice ") and "requirement.targets.widened" in x for x in lines)
    assert all(x.startswith("::") for x in lines[:-1]) and len(lines) < 30


# ---------------------------------------------------------------------------------------------
# the command: exit codes, ignore files, broken trees, git revisions


def test_cli_exit_codes_and_ignore_file(base_dir, head_dir, tmp_path):
    edit(head_dir, FAMILY, "integer: [8, 16, 24, 32, 48, ", "integer: [8, 16, 24, 32, ")
    edit(head_dir, ERRATA, "the shape table is right.", "the shape table is correct.")
    p = cli("diff", str(base_dir), str(head_dir), "--format", "json", "--fail-on", "breaking")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    assert doc["counts"] == {"breaking": 34, "warning": 1, "info": 0, "ignored": 0, "total": 35}
    ignore = tmp_path / "approved.txt"
    ignore.write_text("# approved: N = 48 goes\n" + "".join(
        f"{c['fingerprint'][:16]}  {c['subject']}\n" for c in doc["changes"] if c["severity"] == "breaking")
        + "0123456789abcdef  stale entry\n")
    p = cli("diff", str(base_dir), str(head_dir), "--fail-on", "breaking", "--ignore", str(ignore))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ignored breaking: variant.removed") == 34
    assert "0123456789abcdef matches no change" in p.stderr
    p = cli("diff", str(base_dir), str(head_dir), "--fail-on", "warning", "--ignore", str(ignore))
    assert p.returncode == 1 and "errata.changed" in p.stdout
    ignore.write_text("not-a-fingerprint\n")
    p = cli("diff", str(base_dir), str(head_dir), "--ignore", str(ignore))
    assert p.returncode == 2 and f"{ignore}:1:1: error:" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("which", ["base", "head"])
def test_broken_tree_names_file_and_line(base_dir, head_dir, which):
    broken = head_dir
    edit(broken, MMA, "types: {use: bf16}", "types: {atype: [bf17], btype: [bf16], dtype: [f32]}")
    line = line_of(broken, MMA, "bf17")
    args = (str(broken), str(base_dir)) if which == "base" else (str(base_dir), str(broken))
    p = cli("diff", *args, "--format", "github", "--fail-on", "breaking")
    assert p.returncode == 2, p.stdout + p.stderr
    assert "Traceback" not in p.stderr + p.stdout
    assert f"cannot compare: {which.upper()}" in p.stderr
    problem = re.search(rf"^(\S*mma_async\.yaml):{line}:(\d+): error: unknown type 'bf17' \(did you mean 'bf16'\?\)$",
                        p.stderr, re.MULTILINE)
    assert problem, p.stderr
    assert p.stdout.startswith(f"::error file={problem.group(1)},line={line},col={problem.group(2)},")


def test_yaml_syntax_error_in_both(head_dir, tmp_path):
    (head_dir / FENCE).write_text((head_dir / FENCE).read_text().replace("groups:", "groups: [", 1))
    other = tmp_path / "other"
    shutil.copytree(head_dir, other)
    p = cli("diff", str(head_dir), str(other))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "cannot compare: neither BASE nor HEAD can be loaded" in p.stderr
    assert len(re.findall(r"fence\.yaml:\d+:\d+: error: YAML syntax", p.stderr)) == 2, p.stderr


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                    *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.full
def test_git_revisions(base_dir, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(base_dir, repo / "spec")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "spec")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "spec", FAMILY, "integer: [8, 16, 24, 32, 48, ", "integer: [8, 16, 24, 32, ")
    edit(repo / "spec", FENCE, "Orders earlier accesses", "Orders all earlier accesses")
    _git(repo, "commit", "-q", "-am", "head")
    spec = str(repo / "spec")
    p = cli("--spec", spec, "diff", "HEAD~1", "HEAD", "--format", "github", "--fail-on", "breaking", cwd=repo)
    assert p.returncode == 1, p.stderr
    fam_line = line_of(base_dir, FAMILY, "integer: [")
    assert f"::error file=spec/{FAMILY},line={fam_line}," in p.stdout
    assert f"::notice file=spec/{FENCE},line={line_of(repo / 'spec', FENCE, 'description:')}," in p.stdout
    # HEAD left out: the working tree; an uncommitted edit shows up, and a directory BASE works too
    edit(repo / "spec", FENCE, "Orders all earlier accesses", "Orders every earlier access")
    p = cli("--spec", spec, "diff", "HEAD", "--format", "json", cwd=repo)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [c["rule"] for c in doc["changes"]] == ["description.changed"]
    assert doc["base"]["kind"] == "git" and doc["base"]["spec"] == "spec" and len(doc["base"]["commit"]) == 40
    p = cli("--spec", spec, "diff", "no-such-rev", cwd=repo)
    assert p.returncode == 2 and "neither a directory nor a git revision" in p.stderr
    # a broken revision names the file and line as the repository has them
    edit(repo / "spec", FENCE, "name: wgmma.fence", "name: wgmma.fence\nname: again")
    _git(repo, "commit", "-q", "-am", "broken")
    p = cli("--spec", spec, "diff", "HEAD~1", "HEAD", cwd=repo)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert re.search(rf"^spec/{FENCE}:\d+:1: error: duplicate key 'name'", p.stderr, re.MULTILINE), p.stderr


def test_command_line_entry_point(base_dir, tmp_path):
    """The installed entry point end to end: exit code 2 and no traceback for a missing tree."""
    p = subprocess.run([sys.executable, "-m", "ptxspec", "diff", str(tmp_path / "missing"), str(base_dir),
                        "--format", "markdown"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "cannot compare: BASE" in p.stderr and "missing" in p.stderr


# ---------------------------------------------------------------------------------------------
# legal metadata nibbles, the rule registry, severity overrides


@pytest.mark.full
def test_ordering_the_metadata_narrows_the_legal_nibbles(base, base_dir, head_dir):
    """A refinement that makes mma.sp::ordered_metadata take only increasing indices halves the
    legal nibble values (12 -> 6): breaking, like fewer legal values of an immediate operand."""
    edit(head_dir, MMA_SP, "    metadata_order: increasing\n", "")
    unordered = diff.load_side(diff.Side("BASE", str(head_dir), "directory", head_dir))
    ordered = diff.load_side(diff.Side("HEAD", str(base_dir), "directory", base_dir))
    report = diff.compare(unordered, ordered)
    ordered_variants = [v for v in ordered.spec.variants if v.metadata_order == "increasing"]
    # 2:4 sparsity: 12 legal nibbles, 6 of them increasing; tf32's 1:2 nibbles (0x4, 0xE) all are
    assert collections.Counter(len(v.metadata_nibbles) for v in ordered_variants) == {6: 175, 2: 2}
    line = line_of(base_dir, MMA_SP, "metadata_order: increasing")
    assert classify(report) == {("sparsity.metadata.narrowed", "breaking", where(ordered, MMA_SP), line): 175}
    c = report.changes[0]
    # the six nibbles (second index << 2 | first index) whose first index is not below the second
    assert c.before == ["0x4", "0x8", "0xC", "0x1", "0x9", "0xD", "0x2", "0x6", "0xE", "0x3", "0x7", "0xB"]
    assert c.after == ["0x4", "0x8", "0xC", "0x9", "0xD", "0xE"]
    back = diff.compare(ordered, unordered)
    assert {(c.rule, c.severity) for c in back.changes} == {("sparsity.metadata.widened", "info")}
    refinement = line_of(head_dir, MMA_SP, 'when: {spvariant: "sp::ordered_metadata"}')
    assert {(c.side, c.file, c.line) for c in back.changes} == {("head", where(unordered, MMA_SP), refinement)}


def test_list_rules(tmp_path):
    p = cli("diff", "--list-rules", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["id"] for r in rows] == sorted(diff.RULES)
    assert all(set(r) == {"id", "severity", "description"} and r["description"] for r in rows)
    assert {r["id"]: r["severity"] for r in rows}["variant.removed"] == "breaking"
    text = cli("diff", "--list-rules").stdout.splitlines()
    assert len(text) == len(rows) and text[0].split()[:2] == [rows[0]["id"], rows[0]["severity"]]


def test_severity_overrides(base_dir, head_dir, tmp_path):
    edit(head_dir, FAMILY, "integer: [8, 16, 24, 32, 48, ", "integer: [8, 16, 24, 32, ")
    edit(head_dir, ERRATA, "the shape table is right.", "the shape table is correct.")
    overrides = tmp_path / "severities.txt"
    overrides.write_text("# our users pin N\nvariant.* warning\nerrata.changed info  # text only\n"
                         "variant.removed info\n")
    p = cli("diff", str(base_dir), str(head_dir), "--format", "json", "--fail-on", "warning",
            "--severity-overrides", str(overrides))
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(p.stdout)
    assert doc["counts"] == {"breaking": 0, "warning": 0, "info": 35, "ignored": 0, "total": 35}
    p = cli("diff", "--list-rules", "--format", "json", "--severity-overrides", str(overrides))
    severity = {r["id"]: r["severity"] for r in json.loads(p.stdout)}
    assert (severity["variant.removed"], severity["variant.renamed"], severity["errata.changed"],
            severity["fragment.moved"]) == ("info", "warning", "info", "breaking")
    overrides.write_text("variant.removd warning\nvariant.added fatal\nisa.*\n")
    p = cli("diff", str(base_dir), str(head_dir), "--severity-overrides", str(overrides))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert f"{overrides}:1:1: error: no rule 'variant.removd' (did you mean 'variant.removed'?)" in p.stderr
    assert f"{overrides}:2:15: error: severity 'fatal' is not one of breaking, warning, info" in p.stderr
    assert f"{overrides}:3:1: error: expected `RULE SEVERITY`" in p.stderr


def test_a_revision_with_a_link_out_of_the_tree_is_no_crash(base_dir, tmp_path):
    """git archive carries symbolic links; one that points outside spec/ is never followed."""
    repo = tmp_path / "repo"
    shutil.copytree(base_dir, repo / "spec")
    (repo / "spec" / "outside.yaml").symlink_to("/etc/hostname")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "spec")
    _git(repo, "commit", "-q", "-m", "a link")
    p = cli("--spec", str(repo / "spec"), "diff", "HEAD", "HEAD", cwd=repo)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr


def test_a_raised_minimum_is_judged_without_listing_the_values_it_drops():
    """Fuzz seed 35, tree 6015: wgmma.wait_group's N from `min: 0` to 2**63 - 1 made `ptxspec diff` list
    every value below the new minimum (MemoryError, exit 3). The bounds are compared instead; the
    largest minimum validate lets through (2**31 - 1) answers at once, and a lowered one gains."""
    from ptxspec.diff.rules import operand_rules
    assert operand_rules._lost(("min", 0), ("min", 2**31 - 1)) is True
    assert operand_rules._lost(("min", 0), ("min", 2**63 - 1)) is True
    assert operand_rules._lost(("min", 2**31 - 1), ("min", 0)) is False
    assert operand_rules._lost(("set", frozenset({1, 2, 3})), ("min", 2)) == [1]


def test_a_selectors_parts_are_its_legal_values(spec):
    """Fuzz seed 36, tree 3412: mma's scales_2x sel_a byte_id [0, 2] -> [0, 1] changed which selectors six
    variants take, and `ptxspec diff` said 'no change': an operand's braced parts were compared by no
    rule. Their combinations are its legal values now, narrowed or widened like any others."""
    import dataclasses

    from ptxspec.diff.rules import operand_rules
    v = next(v for v in spec.variants if any(o.parts for o in v.operands))
    o = next(o for o in v.operands if o.parts)
    byte_ids = dict(o.parts)["byte_id"]
    moved = (byte_ids[0], max(byte_ids) + 1)  # one byte-id kept, the others traded for one it lacked
    other = dataclasses.replace(o, parts=tuple((name, moved if name == "byte_id" else vals) for name, vals in o.parts))
    before, after = operand_rules._allowed(o), operand_rules._allowed(other)
    assert before != after
    assert operand_rules._lost(before, after) and operand_rules._lost(after, before)  # narrowed and widened
    assert operand_rules._allowed(dataclasses.replace(o)) == before
