"""The spec core: schemas, loading, variant expansion, CLI contract, build determinism."""
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from ptxspec.emit import artifacts as build_mod

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "ptxspec", *args], capture_output=True, text=True, cwd=ROOT)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("path", sorted((ROOT / "schema").glob("*.schema.json")), ids=lambda p: p.name)
def test_schema_is_valid_2020_12(path):
    schema = json.loads(path.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def _walk_objects(node):
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            yield node
        for v in node.values():
            yield from _walk_objects(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk_objects(v)


@pytest.mark.parametrize("path", sorted((ROOT / "schema").glob("*.schema.json")), ids=lambda p: p.name)
def test_schema_objects_are_closed(path):
    for obj in _walk_objects(json.loads(path.read_text())):
        assert obj.get("additionalProperties") is False, sorted(obj["properties"])


def test_every_spec_file_names_its_schema():
    for path in sorted((ROOT / "spec").rglob("*.yaml")):
        head = path.read_text().splitlines()[0]
        assert head.startswith("$schema: ") and head.endswith(".schema.json"), path


def _manual_wgmma_count():
    """Variant count from the manual's tables (9.7.15.2, 9.7.15.5.2, 9.7.15.6.3), independent of spec/."""
    n_all, n_int = 32, 18  # N = 8..256 step 8; integer/b1: 8,16,24,32 then 48..256 step 16
    forms = 2  # A from registers or from a descriptor
    dense = (2 * n_all        # f16 with f16 or f32 accumulator
             + n_all          # bf16
             + n_all          # tf32
             + 4 * 2 * n_all  # e4m3/e5m2 x e4m3/e5m2, f16 or f32 accumulator
             + 4 * 2 * n_int  # s8/u8 x s8/u8, with and without .satfinite
             + n_int)         # b1 .and.popc
    sparse = 2 * n_all + n_all + n_all + 4 * 2 * n_all + 4 * 2 * n_int  # no sparse b1
    return forms * (dense + sparse) + 3  # fence, commit_group, wait_group


def test_wgmma_variant_count_matches_manual_tables(spec):
    got = [v for v in spec.variants if v.family == "wgmma"]
    assert len(got) == _manual_wgmma_count()


def test_variant_lookup_and_contract_fields(spec):
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n208k32.s32.s8.u8", form="desc")
    assert v.min_ptx == "8.4" and v.targets == ["sm_90a"]
    assert v.regs == {"d": 104, "a_desc": 1, "b_desc": 1}
    assert v.valid("sm_90a", "8.4") and not v.valid("sm_90a", "8.3") and not v.valid("sm_100a", "9.5")
    with pytest.raises(KeyError, match="no variant"):
        spec.variant("wgmma.mma_async.sync.aligned.m64n200k32.s32.s8.u8")
    with pytest.raises(KeyError, match="forms"):
        spec.variant("wgmma.mma_async.sync.aligned.m64n208k32.s32.s8.u8")


def test_manual_register_counts(spec):
    """The manual's register-count tables: D has N/4 (.f16) or N/2 (.f32/.s32) registers; A four."""
    for v in spec.variants:
        if v.instruction.startswith("wgmma.mma_async"):
            assert v.regs["d"] == (v.n // 4 if v.dtype == "f16" else v.n // 2), v.id
            if v.form == "reg":
                assert v.regs["a"] == 4, v.id


def test_pack_unpack_roundtrip_with_batch(spec):
    rng = np.random.default_rng(1)
    for ptx, form in [("wgmma.mma_async.sync.aligned.m64n24k16.f16.f16.f16", "reg"),
                      ("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc", "reg"),
                      ("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8", "reg")]:
        v = spec.variant(ptx, form)
        for op, bits in (("a", {"f16": 16, "b1": 1, "s8": 8}[v.atype]), ("d", 32 if v.dtype != "f16" else 16)):
            fm = v.fragment_map(op)
            mat = rng.integers(0, 1 << bits, size=(3, fm.rows, fm.cols), dtype=np.uint64)
            regs = v.pack(op, mat)
            assert regs.shape == (3, v.threads, v.regs[op]) and regs.dtype == np.uint32
            assert np.array_equal(v.unpack(op, regs), mat)


def test_fragment_d_first_elements_follow_manual_figure(spec):
    """Figure 149: thread 0 holds D[0][0], D[0][1], D[8][0], D[8][1]; warp w starts at row 16w."""
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "desc")
    f = v.fragment("d")
    assert f[0].tolist() == [[0, 0], [0, 1], [8, 0], [8, 1]]
    assert f[5].tolist() == [[1, 2], [1, 3], [9, 2], [9, 3]]
    assert f[32][0].tolist() == [16, 0] and f[127][3].tolist() == [63, 7]


def test_cli_validate_and_query_json_contract():
    assert "ok" in run_cli("validate").stdout
    rows = json.loads(run_cli("query", "--family", "wgmma", "--target", "sm_90a", "--ptx", "8.2",
                              "n=256", "atype=tf32", "--format", "json").stdout)
    assert {r["instruction"] for r in rows} == {"wgmma.mma_async", "wgmma.mma_async.sp"}
    assert len(rows) == 4
    for r in rows:
        for key in ("id", "family", "ptx", "form", "m", "n", "k", "atype", "btype", "ctype", "dtype", "min_ptx",
                    "targets", "regs"):
            assert key in r
    rows = json.loads(run_cli("query", "--family", "wgmma", "--target", "sm_90a", "--ptx", "8.1", "atype=tf32",
                              "--format", "json").stdout)
    assert rows and not any(r["sparse"] for r in rows)  # sparse wgmma starts at PTX 8.2
    assert json.loads(run_cli("query", "--family", "wgmma", "--target", "sm_100a", "--format", "json").stdout) == []


def test_cli_query_errors_are_one_line():
    for args, needle in ((("query", "nn=8"), "did you mean 'n'"), (("query", "n=x"), "integer"),
                         (("query", "--target", "sm_91"), "unknown target"), (("query", "--ptx", "8.9"), "unknown PTX")):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_errata_listing():
    rows = json.loads(run_cli("query", "--errata", "--format", "json").stdout)
    assert "wgmma-integer-n-list" in {r["id"] for r in rows}


@pytest.fixture(scope="module")
def cli_build(tmp_path_factory):
    """generated/ as `ptxspec build` writes it in a process of its own (string hashing seed 1)."""
    out = tmp_path_factory.mktemp("cli") / "gen"
    subprocess.run([sys.executable, "-m", "ptxspec", "build", "--out", str(out)], check=True, cwd=ROOT,
                   capture_output=True, env=dict(os.environ, PYTHONHASHSEED="1"))
    return out


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.full
def test_build_is_deterministic_and_check_detects_staleness(tmp_path, spec, cli_build):
    """A build in this process (after others in it: test_committed_generated_is_fresh builds
    too) is the CLI's in another, byte for byte; `build --check` names a changed and an extra file."""
    import shutil
    assert build_mod.stale(cli_build, build_mod.artifacts(spec)) == []
    out = tmp_path / "gen"
    shutil.copytree(cli_build, out)
    (out / "json" / "wgmma.json").write_text("{}")
    (out / "extra.txt").write_text("x")
    proc = run_cli("build", "--out", str(out), "--check", check=False)
    assert proc.returncode == 1 and "wgmma.json" in proc.stderr and "extra.txt" in proc.stderr


def test_committed_generated_is_fresh(spec):
    assert build_mod.stale(ROOT / "generated", build_mod.artifacts(spec)) == []


@pytest.mark.full
def test_builds_are_byte_identical_across_hash_seeds(tmp_path, cli_build):
    """Two builds in processes with different string hashing give the same bytes (no set order leaks)."""
    out = tmp_path / "gen5"
    subprocess.run([sys.executable, "-m", "ptxspec", "build", "--out", str(out)], check=True, cwd=ROOT,
                   capture_output=True, env=dict(os.environ, PYTHONHASHSEED="5"))
    first, second = _files(cli_build), _files(out)
    assert first.keys() == second.keys()
    differ = [k for k in first if first[k] != second[k]]
    assert not differ, differ


def test_metadata_nibbles_follow_the_manual(spec):
    """PTX ISA 9.7.14.6.1: 0b0000, 0b0101, 0b1010, 0b1111 are invalid metadata; for
    mma.sp::ordered_metadata only 0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110 are meaningful;
    for .tf32 only 0b1110 and 0b0100."""
    unordered = set(range(16)) - {0b0000, 0b0101, 0b1010, 0b1111}
    ordered = {0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110}
    for v in spec.variants:
        if not v.sparse:
            assert v.metadata_nibbles == (), v.id
        elif v.atype == "tf32":
            assert set(v.metadata_nibbles) == {0b1110, 0b0100}, v.id
        elif v.qualifiers.get("spvariant") == "sp::ordered_metadata":
            assert set(v.metadata_nibbles) == ordered, v.id
        else:
            assert set(v.metadata_nibbles) == unordered, v.id
