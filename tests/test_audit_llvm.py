"""ptxspec audit llvm on small files written here in the formats of LLVM's NVPTX TableGen files (no
LLVM text is committed): instruction classes whose asm string the reader computes
(`BasicNVPTXInst`: the opcode alone), class-computed strings, multiclasses, `foreach`, `defset`,
`if`, `let ... in`, the predicates (`hasPTX<N>`, `hasSM<N>`, the `SM<N>[af]` records,
`callSubtarget<"...">` decided in C++); the command's exit codes and its JSON against
schema/audit-report.schema.json. The expectations are the manual's, stated beside each record."""
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from ptxspec.audit import AuditError, audit

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = "llvm/lib/Target/NVPTX/NVPTXIntrinsics.td"
INTRINSICS = "llvm/include/llvm/IR/IntrinsicsNVVM.td"

# the intrinsics file: a class the patterns use (the register count of an ldmatrix fragment), and
# intrinsics built by a foreach
INTRINSICS_TEXT = """\
class LDM_FRAG<string num> {
  int regs = !cond(!eq(num, "x1") : 1, !eq(num, "x2") : 2, true : 4);
}
def int_nvvm_wgmma_fence_sync_aligned : Intrinsic<[], [], [IntrNoMem]>;
foreach num = ["x1", "x2", "x4"] in
  def int_nvvm_ldmatrix_sync_aligned_m8n8_ # num # _b16 : Intrinsic<[], [llvm_ptr_ty], []>;
"""

PATTERNS_TEXT = """\
class NullaryOp<string op> : BasicNVPTXInst<(outs), (ins), op>;

let isConvergent = true, Predicates = [SM90a, hasPTX<80>] in {
  def WG_FENCE : NullaryOp<"wgmma.fence.sync.aligned">;
  def WG_WAIT : BasicNVPTXInst<(outs), (ins i64imm:$n), "wgmma.wait_group.sync.aligned">;
}
def WG_COMMIT : NullaryOp<"wgmma.commit_group.sync.aligned">, Requires<[hasSM<90>, hasPTX<80>]>;
def MOVM : BasicNVPTXInst<(outs B32:$d), (ins B32:$s), "movmatrix.sync.aligned.m8n8.trans.b16">,
  Requires<[SM75, hasPTX<78>]>;
def WG_BAD : NullaryOp<"wgmma.fence.sync.aligned.x2">, Requires<[SM90a, hasPTX<80>]>;

class LDM<string num, bit trans> : NVPTXInst<(outs), (ins), "", []> {
  int n = LDM_FRAG<num>.regs;
  let OutOperandList = !dag(outs, !listsplat(B32, n), !foreach(i, !range(n), "d" # i));
  let InOperandList = (ins ADDR:$src);
  let AsmString = "ldmatrix.sync.aligned.m8n8." # num # !if(trans, ".trans", "") # ".shared.b16 \\t{{"
                  # !interleave(!foreach(i, !range(n), "$d" # i), ", ") # "}}, [$src];";
}
multiclass LDMS<string num> {
  def _n : LDM<num, 0>;
  def _t : LDM<num, 1>;
}
defset list<LDM> LDMs = {
  let Predicates = [SM75, hasPTX<65>] in
  foreach num = ["x1", "x2", "x3", "x4"] in {
    if !ne(num, "x3") then
      defm LDMATRIX_ # num : LDMS<num>;
  }
}

def MMA_BF16 : NVPTXInst<(outs B32:$d0, B32:$d1, B32:$d2, B32:$d3),
    (ins B32:$a0, B32:$a1, B32:$b0, B32:$c0, B32:$c1, B32:$c2, B32:$c3, MmaCode:$ptx),
    "mma.sync${ptx:aligned}.m16n8k8.row.col.f32.bf16.bf16.f32\\n\\t\\t"
    # "{{$d0, $d1, $d2, $d3}},\\n\\t\\t{{$a0, $a1}},\\n\\t\\t{{$b0}},\\n\\t\\t{{$c0, $c1, $c2, $c3}};", []>,
  Requires<[SM75, hasPTX<65>]>;

def TC_ALLOC : BasicNVPTXInst<(outs), (ins ADDR:$dst, B32:$n),
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32">,
  Requires<[callSubtarget<"hasTcgen05InstSupport">]>;
def TC_DEALLOC : BasicNVPTXInst<(outs), (ins B32:$taddr, B32:$n), "tcgen05.dealloc.cta_group::1.sync.aligned.b32">,
  Requires<[callSubtarget<"hasTcgen05InstSupport">, hasPTX<88>]>;

def WGMMA_BROKEN : NullaryOp<"wgmma.fence.sync.aligned" # NotInTheseFiles.Suffix>;
foreach ty = [F16RT] in
  def FMA_ # ty.PtxType : BasicNVPTXInst<(outs B16:$d), (ins B16:$a), "fma.rn.oob">;
"""


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def checkout(tmp_path: Path, patterns: str = PATTERNS_TEXT) -> Path:
    for rel, text in ((PATTERNS, patterns), (INTRINSICS, INTRINSICS_TEXT)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


@pytest.fixture(scope="module")
def report(spec, tmp_path_factory):
    return audit(spec, "llvm", str(checkout(tmp_path_factory.mktemp("llvm"))))


def test_spellings_as_tablegen_builds_them(report):
    # 2 wgmma fences/waits + commit + movmatrix + the bad fence + 6 ldmatrix (x3 filtered by `if`)
    # + mma + 2 tcgen05; the broken record is not one of them
    c = report.counts()
    assert (c["spellings"], c["matched"]) == (14, 13)
    ops = {b.opcode: b for b in report.bindings}
    assert {o for o in ops if o.startswith("ldmatrix")} == {
        f"ldmatrix.sync.aligned.m8n8.{n}{t}.shared.b16" for n in ("x1", "x2", "x4") for t in ("", ".trans")}
    # BasicNVPTXInst: its ADDR operand in brackets; an immediate operand; the ldmatrix fragment sized
    # by the intrinsics file's class (x2: two 32-bit registers)
    assert [o.what for o in ops["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"].operands] == ["addr", "reg"]
    assert [o.what for o in ops["wgmma.wait_group.sync.aligned"].operands] == ["imm"]
    assert [(o.what, o.count) for o in ops["ldmatrix.sync.aligned.m8n8.x2.shared.b16"].operands] == [
        ("vec", 2), ("addr", 1)]
    # `${ptx:aligned}` prints .aligned
    assert "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32" in ops
    # each spelling at the line of the def (or defm) that made it
    assert ops["wgmma.fence.sync.aligned.x2"].line == line_of(PATTERNS_TEXT, "def WG_BAD")
    assert ops["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"].line == line_of(PATTERNS_TEXT, "defm LDMATRIX_")


def test_findings_against_the_manual(report):
    by = {(f.kind, f.subject): f for f in report.findings}
    assert report.counts()["by_kind"] == {"spelling": 1, "guard": 3, "layout": 0}
    assert ("spelling", "wgmma.fence.sync.aligned.x2") in by
    # wgmma.commit_group is sm_90a only; hasSM<90> lets it onto sm_90 and every later target
    g = by[("guard", "wgmma.commit_group.sync.aligned")]
    assert g.evidence["direction"] == "allows" and {"sm_90", "sm_100a"} <= set(g.evidence["targets"])
    assert g.line == line_of(PATTERNS_TEXT, "def WG_COMMIT")
    # mma .bf16 needs sm_80 (PTX 7.0, where sm_80 begins); [SM75, hasPTX<65>] allows it on sm_75
    g = by[("guard", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32")]
    assert g.evidence["direction"] == "allows" and set(g.evidence["targets"]) == {"sm_75"}
    # tcgen05.dealloc: PTX 8.6 on sm_100a; hasPTX<88> forbids 8.6 and 8.7 there, whatever the C++
    # predicate allows (only what a guard forbids is compared when it holds one)
    g = by[("guard", "tcgen05.dealloc.cta_group::1.sync.aligned.b32")]
    assert g.evidence["direction"] == "forbids" and g.evidence["targets"]["sm_100a"] == ["8.6", "8.7"]
    assert not any(f.subject.startswith("tcgen05.alloc") for f in report.findings)
    # SM90a and the SM75 lattice: no finding on wgmma.fence, wait_group, movmatrix, ldmatrix
    assert not any(f.subject.startswith(("wgmma.fence.sync.aligned", "wgmma.wait", "movmatrix", "ldmatrix"))
                   for f in report.findings if f.kind == "guard")


def test_counts_what_it_cannot_evaluate(report):
    notes = "\n".join(report.unchecked)
    assert 'callSubtarget<"hasTcgen05InstSupport"> (2 records)' in notes
    assert "1 records of these families could not be evaluated: WGMMA_BROKEN" in notes
    assert f"line {line_of(PATTERNS_TEXT, 'def FMA_')}: 'F16RT'" in notes
    assert "4 intrinsics of these families" in notes


def test_each_alteration_is_reported(spec, tmp_path):
    """One asm string and one guard altered: each is a finding of its own kind at its line."""
    text = PATTERNS_TEXT.replace('"movmatrix.sync.aligned.m8n8.trans.b16"', '"movmatrix.sync.aligned.m8n8.trans.b32"')
    r = audit(spec, "llvm", str(checkout(tmp_path / "asm", text)))
    (f,) = [f for f in r.findings if f.subject.startswith("movmatrix")]
    assert f.kind == "spelling" and f.line == line_of(text, "def MOVM")
    text = PATTERNS_TEXT.replace("Requires<[SM75, hasPTX<78>]>", "Requires<[SM75, hasPTX<70>]>")
    r = audit(spec, "llvm", str(checkout(tmp_path / "guard", text)))
    (f,) = [f for f in r.findings if f.subject.startswith("movmatrix")]
    assert f.kind == "guard" and f.evidence["direction"] == "allows" and f.evidence["targets"]["sm_75"][0] == "7.0"


@pytest.mark.full
def test_ptxas_adjudicates_both_claims(spec, tmp_path):
    r = audit(spec, "llvm", str(checkout(tmp_path)), ptxas=True)
    by = {f.subject: f for f in r.findings}
    assert by["wgmma.fence.sync.aligned.x2"].status == "confirmed"
    g = by["wgmma.commit_group.sync.aligned"]
    assert g.status == "confirmed" and g.evidence["ptxas"]["sm_90 PTX 9.5"] == "rejects"
    g = by["tcgen05.dealloc.cta_group::1.sync.aligned.b32"]
    assert g.status == "confirmed" and g.evidence["ptxas"]["sm_100a PTX 8.7"] == "accepts"
    assert all(f.status == "confirmed" and f.judge.startswith("ptxas") for f in r.findings)


@pytest.mark.full
def test_a_cpp_guard_leaves_a_rejected_spelling_unadjudicated(spec, tmp_path):
    """ptxas rejects the spelling on every target it knows, but the C++ predicate may name one it
    does not know: not confirmed."""
    text = PATTERNS_TEXT.replace("tcgen05.alloc.cta_group::1.sync", "tcgen05.alloc.cta_group::4.sync")
    r = audit(spec, "llvm", str(checkout(tmp_path, text)), ptxas=True)
    (f,) = [f for f in r.findings if f.subject.startswith("tcgen05.alloc")]
    assert f.kind == "spelling" and f.status == "unadjudicated" and "sm_100a PTX 9.5" in f.evidence["ptxas"]
    assert set(f.evidence["ptxas"].values()) == {"rejects"} and "cannot evaluate" in f.verdict


def test_cli_exit_codes_and_json_schema(tmp_path):
    root = checkout(tmp_path / "c")
    run = lambda *a: subprocess.run([sys.executable, "-m", "ptxspec", "audit", *a], capture_output=True, text=True)
    p = run("llvm", str(root), "--format", "json")
    assert p.returncode == 1
    schema = json.loads((ROOT / "schema" / "audit-report.schema.json").read_text())
    jsonschema.validate(json.loads(p.stdout), schema)
    ok = checkout(tmp_path / "ok", PATTERNS_TEXT.split("def WG_COMMIT")[0])
    assert run("llvm", str(ok)).returncode == 0
    assert run("llvm").returncode == 2  # no checkout: bad usage
    bad = run("llvm", str(tmp_path / "missing"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "missing" in bad.stderr


def test_unreadable_peer_is_one_error_naming_the_file(spec, tmp_path):
    root = checkout(tmp_path)
    (root / PATTERNS).write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(AuditError, match="NVPTXIntrinsics.td"):
        audit(spec, "llvm", str(root))


def test_a_construct_it_cannot_parse_names_file_and_line(spec, tmp_path):
    text = PATTERNS_TEXT + "def X : NullaryOp<\"wgmma.fence.sync.aligned\"> @@ ;\n"
    with pytest.raises(AuditError, match=rf"NVPTXIntrinsics.td:{text.count(chr(10))}: "):
        audit(spec, "llvm", str(checkout(tmp_path, text)))
