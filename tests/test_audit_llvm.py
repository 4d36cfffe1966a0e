"""ptxspec audit llvm on small files written here in LLVM's TableGen formats (no LLVM text is
committed), the command's exit codes and its JSON against schema/audit-report.schema.json."""
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from ptxspec.audit import AuditError, audit

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = """\
let Predicates = [hasPTX<80>, hasSM90a] in {
def INT_WGMMA_FENCE : NVPTXInst<(outs), (ins), "wgmma.fence.sync.aligned;", [(int_nvvm_wgmma_fence_sync_aligned)]>;
}
def INT_WGMMA_COMMIT : NVPTXInst<(outs), (ins), "wgmma.commit_group.sync.aligned;",
  [(int_nvvm_wgmma_commit_group_sync_aligned)]>, Requires<[hasPTX<78>, hasSM<90>]>;
def LDMATRIX_X4 : NVPTXInst<(outs B32:$a, B32:$b, B32:$c, B32:$d), (ins ADDR:$src),
  "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{$a, $b, $c, $d}}, [$src];", []>, Requires<[hasPTX<65>, hasSM<75>]>;
def TCGEN05_ALLOC : NVPTXInst<(outs), (ins ADDR:$dst, B32:$n),
  "tcgen05.alloc.cta_group::1.sync.aligned.b32 [$dst], $n;", []>, Requires<[hasTcgen05Instructions, hasPTX<86>]>;
def BAD : NVPTXInst<(outs), (ins), "wgmma.fence.sync.aligned.x2;", []>, Requires<[hasPTX<80>, hasSM90a]>;
foreach n = ["1", "2"] in
  def TCGEN05_SHIFT # n : NVPTXInst<(outs), (ins B32:$t), "tcgen05.shift.cta_group::" # n # ".down [$t];", []>;
"""
INTRINSICS = "def int_nvvm_wgmma_fence_sync_aligned : Intrinsic<[], [], [IntrNoMem]>;\n"


def checkout(tmp_path: Path, patterns: str = PATTERNS) -> Path:
    for rel, text in (("llvm/lib/Target/NVPTX/NVPTXIntrinsics.td", patterns),
                      ("llvm/include/llvm/IR/IntrinsicsNVVM.td", INTRINSICS)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_reads_literal_patterns_and_predicates(spec, tmp_path):
    r = audit(spec, "llvm", str(checkout(tmp_path)))
    c = r.counts()
    assert (c["spellings"], c["matched"]) == (5, 4)
    assert c["by_kind"] == {"spelling": 1, "guard": 1, "layout": 0}
    (spelling,) = [f for f in r.findings if f.kind == "spelling"]
    assert spelling.subject == "wgmma.fence.sync.aligned.x2" and spelling.line == 10
    (guard,) = [f for f in r.findings if f.kind == "guard"]
    # hasSM<90> lets wgmma.commit_group onto sm_90 and every later target; the manual: sm_90a only
    assert guard.line == 4 and guard.evidence["direction"] == "allows" and "sm_90" in guard.evidence["targets"]
    assert any("hasTcgen05Instructions" in u for u in r.unchecked)  # a C++ predicate: not compared
    assert any("1 records" in u for u in r.unchecked)  # the foreach record: counted, not evaluated


@pytest.mark.full
def test_ptxas_adjudicates_both_claims(spec, tmp_path):
    r = audit(spec, "llvm", str(checkout(tmp_path)), ptxas=True)
    by = {f.subject: f for f in r.findings}
    assert by["wgmma.fence.sync.aligned.x2"].status == "confirmed"
    g = by["wgmma.commit_group.sync.aligned"]
    assert g.status == "confirmed" and g.evidence["ptxas"]["sm_90 PTX 9.5"] == "rejects"
    assert all(f.status == "confirmed" and f.judge.startswith("ptxas") for f in r.findings)


def test_each_alteration_is_reported(spec, tmp_path):
    """One asm string and one guard altered: each is a finding of its own kind."""
    text = PATTERNS.replace("m8n8.x4.shared.b16", "m8n8.x4.shared.b32").replace(
        "Requires<[hasPTX<65>, hasSM<75>]>", "Requires<[hasPTX<60>, hasSM<75>]>")
    r = audit(spec, "llvm", str(checkout(tmp_path, text)))
    assert any(f.kind == "spelling" and "b32" in f.subject for f in r.findings)
    text = PATTERNS.replace("Requires<[hasPTX<65>, hasSM<75>]>", "Requires<[hasPTX<60>, hasSM<75>]>")
    r = audit(spec, "llvm", str(checkout(tmp_path, text)))
    assert any(f.kind == "guard" and f.subject.startswith("ldmatrix") and f.evidence["direction"] == "allows"
               for f in r.findings)


def test_cli_exit_codes_and_json_schema(tmp_path):
    root = checkout(tmp_path / "c")
    run = lambda *a: subprocess.run([sys.executable, "-m", "ptxspec", "audit", *a], capture_output=True, text=True)
    p = run("llvm", str(root), "--format", "json")
    assert p.returncode == 1
    schema = json.loads((ROOT / "schema" / "audit-report.schema.json").read_text())
    jsonschema.validate(json.loads(p.stdout), schema)
    ok = checkout(tmp_path / "ok", PATTERNS.split("def INT_WGMMA_COMMIT")[0])
    assert run("llvm", str(ok)).returncode == 0
    assert run("llvm").returncode == 2  # no checkout: bad usage
    bad = run("llvm", str(tmp_path / "missing"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "missing" in bad.stderr


def test_unreadable_peer_is_one_error_naming_the_file(spec, tmp_path):
    root = checkout(tmp_path)
    (root / "llvm/lib/Target/NVPTX/NVPTXIntrinsics.td").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(AuditError, match="NVPTXIntrinsics.td"):
        audit(spec, "llvm", str(root))
