"""The generated C/C++ bindings (generated/c/) compile, assemble and say what the spec says.

- every binding is called from a generated kernel and compiled by nvcc 13.5 (the wheel's) to PTX
  with `-Wall -Werror` (host compiler and nvcc), for a set of targets that covers every variant;
  ptxas 13.5 assembles the PTX; each variant's opcode appears in it exactly as the spec writes it;
- every requirement guard is true exactly on the targets where the spec says the variant is valid
  (checked in the device pass of nvcc for every target ptxas knows), and a binding used on a
  target it does not support is a compile error;
- the constexpr fragment maps, sparsity metadata maps, descriptor fields, swizzle and canonical
  layouts, compiled by g++ and run, reproduce the model's maps for every thread and element.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import ptxspec
import pytest
from ptxspec.emit import cbind
from ptxspec.model import smem
from ptxspec.model.isa import Version
from ptxspec.oracle.ptxas import PtxasNotFound, find_ptxas

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "campaigns" / "bindings"))
import instantiate  # noqa: E402

NVCC_PTX = Version(9, 5)  # the PTX ISA version nvcc 13.5 writes
FLAGS = ["-std=c++17", "-Xcompiler", "-Wall,-Wextra,-Werror", "-Werror", "all-warnings"]
JOBS = max(2, min(4, os.cpu_count() or 2))


def _nvcc() -> str:
    try:
        ptxas = Path(find_ptxas())
    except PtxasNotFound:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed")
    nvcc = ptxas.parent / "nvcc"
    if not nvcc.is_file():
        pytest.skip(f"no nvcc beside {ptxas}")
    return str(nvcc)


@pytest.fixture(scope="module")
def spec():
    return ptxspec.load()


@pytest.fixture(scope="module")
def headers(spec, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cbind")
    for rel, data in cbind.build(spec).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return d / "c"


#: a hang guard, not a speed limit: a compile this long is stuck, however busy the machine
HANG_GUARD = 1800


def _run(cmd, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD)


# ---------------------------------------------------------------------------------------------
# Names and kinds


def test_names_are_unique_valid_identifiers(spec):
    names = [cbind.name(v) for v in spec.variants]
    assert len(set(names)) == len(names)
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    assert not bad
    # the rule, by hand: every run of non-identifier characters -> "_", the form after "__"
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    assert cbind.name(v) == "wgmma_mma_async_sync_aligned_m64n8k16_f32_f16_f16__reg"
    v = spec.variant("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32")
    assert cbind.name(v) == "mma_sp_ordered_metadata_sync_aligned_m16n8k32_row_col_f32_f16_f16_f32"


def test_unknown_operand_kind_is_an_error(spec):
    v = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    odd = dataclasses.replace(v.operands[1], kind="tensor_map")
    broken = dataclasses.replace(v, operands=(v.operands[0], odd) + v.operands[2:])
    with pytest.raises(cbind.BindingError, match="kind 'tensor_map'"):
        cbind.binding(spec, broken)


def test_operand_counts_and_constraints(spec, headers):
    """Each wrapper's asm has one %N per register and immediate, numbered densely, and one
    constraint per %N, whose letter matches the register type the spec gives."""
    text = "".join(p.read_text() for p in sorted(headers.glob("ptxspec_*.h")))
    letters = {"f32": "f", "f64": "d", "b32": "r", "s32": "r", "u32": "r", "b64": "l"}
    for v in spec.variants:
        b = cbind.binding(spec, v)
        stmt = b["lines"][-2] if b["lines"][0] == "{" else b["lines"][-1]
        nums = [int(x) for x in re.findall(r"%(\d+)", stmt)]
        want = sum(o.regs for o in v.operands if o.kind != "predicate") + \
            sum(1 for o in v.operands if o.kind in ("immediate", "selector")) + \
            sum(len(o.parts) for o in v.operands if o.kind == "scale_selector")
        assert len(nums) == want, v.id
        cons = b["outputs"] + b["inputs"]
        assert sorted(set(nums + [int(x) for x in re.findall(r"%(\d+)", " ".join(b["lines"][:-2]))])) == \
            list(range(len(cons))), v.id
        for o in v.operands:
            if o.kind == "fragment":
                mod = {"in": "", "out": "=", "inout": "+"}[o.io]
                for r in range(o.regs):
                    assert f'"{mod}{letters[o.reg_type]}"({o.name}[{r}])' in cons, (v.id, o.name, r)
        assert f'({cbind.name(v)}, "{v.ptx}", ' in text


# ---------------------------------------------------------------------------------------------
# nvcc + ptxas


def _cover_targets(spec, variants) -> list[str]:
    """Targets (lowest first) such that every variant is valid on one of them at nvcc's PTX."""
    known = [t for t in spec.sort_targets(spec.targets) if spec.targets[t].ptxas]
    left = set(v.id for v in variants)
    chosen = []
    while left:
        best = max(known, key=lambda t: (sum(1 for v in variants if v.id in left and v.valid(t, NVCC_PTX)),
                                         -known.index(t)))
        got = {v.id for v in variants if v.id in left and v.valid(best, NVCC_PTX)}
        assert got, f"no target nvcc 13.5 knows runs {sorted(left)[:3]}"
        chosen.append(best)
        left -= got
    return sorted(chosen, key=spec.target_order)


def _guard_tu(spec, target: str) -> str:
    """`#error` unless every guard macro is true exactly where the spec says (device pass)."""
    guards = {}
    for v in spec.variants:
        macro, _ = cbind.requirement_macro(spec, v)
        want = int(v.valid(target, NVCC_PTX))
        assert guards.setdefault(macro, want) == want, f"{macro} covers variants that disagree on {target}"
    want_ptx = NVCC_PTX.major * 10 + NVCC_PTX.minor
    lines = ['#include "ptxspec_common.h"', "#if defined(__CUDA_ARCH__)",
             f"#if PTXSPEC_PTX_VERSION != {want_ptx}", f'#error "PTXSPEC_PTX_VERSION should be {want_ptx}"', "#endif"]
    for macro, want in sorted(guards.items()):
        lines += [f"#if ({macro}) != {want}", f'#error "{macro} should be {want} on {target}"', "#endif"]
    lines += ["#endif", "__global__ void guard_probe() {}", ""]
    return "\n".join(lines)


def _no_codegen(v) -> bool:
    """ptxas 13.5 fails to generate sm_107a code for .kind::ti16 with scale-input-d (it accepts them)."""
    return v.ptxas_only == "tcgen05-scale-input-d-integer-kinds" and v.qualifiers.get("kind") == "kind::ti16"


@pytest.mark.full
def test_bindings_compile_and_assemble(spec, headers, tmp_path):
    nvcc = _nvcc()
    ptxas = find_ptxas()
    t0 = time.monotonic()
    inc = ["-I", str(headers)]
    jobs = []  # (label, nvcc command, ptx path or None, expected opcodes, target for ptxas)

    known = [t for t in spec.targets if spec.targets[t].ptxas]
    # variants nvcc 13.5 cannot emit: PTX 9.5 no longer accepts them (`until`: wmma f16 .satfinite,
    # up to PTX 6.5) or only targets it lacks run them; their guards are still checked (false on
    # every target below)
    unbuildable = [v for v in spec.variants if not any(v.valid(t, NVCC_PTX) for t in known)]
    for v in unbuildable:
        assert all((getattr(c, "until", None) is not None and c.until <= NVCC_PTX)
                   or not any(spec.targets[t].ptxas for t in c.targets) for c in v.requirement.clauses), v.id
    buildable = [v for v in spec.variants if v not in unbuildable]
    wg = [v for v in buildable if v.family == "wgmma"]
    others = [v for v in buildable if v.family != "wgmma"]
    # wgmma: sm_90a only; split so that the two cores share the work
    wg_targets = _cover_targets(spec, wg)
    assert wg_targets == ["sm_90a"]
    # (ptxas generates machine code for the first part; the others it parses and checks, as the
    # ptxas oracle does: -arch compute_90a, a third of the time)
    chunks = 3
    for c in range(chunks):
        part = wg[c::chunks]
        src = tmp_path / f"wgmma_{c}.cu"
        src.write_text(instantiate.translation_unit(part, f"k{c}_", generic_every=2))
        ptx = tmp_path / f"wgmma_{c}.ptx"
        jobs.append((f"wgmma part {c}", [nvcc, "-arch", "compute_90a", "-ptx", *FLAGS, *inc, str(src), "-o", str(ptx)],
                     ptx, part, "sm_90a" if c == 0 else "compute_90a"))
    done: set[str] = set()
    for target in _cover_targets(spec, others):  # each variant once, on the first target that runs it
        part = [v for v in others if v.valid(target, NVCC_PTX) and v.id not in done]
        done.update(v.id for v in part)
        # ptxas 13.5 accepts these but cannot generate code for them (fatal C7301, "Unexpected
        # intrinsic param number"; erratum tcgen05-scale-input-d-integer-kinds): parse and check only
        for name, vs, check in (("", [v for v in part if not _no_codegen(v)], target),
                                ("_nocodegen", [v for v in part if _no_codegen(v)], target.replace("sm_", "compute_"))):
            if not vs:
                continue
            src = tmp_path / f"warp_{target}{name}.cu"
            src.write_text(instantiate.translation_unit(vs, "k_", generic_every=2))
            ptx = tmp_path / f"warp_{target}{name}.ptx"
            arch = target.replace("sm_", "compute_")
            jobs.append((f"warp-level on {target}{name}", [nvcc, "-arch", arch, "-ptx", *FLAGS, *inc, str(src),
                                                         "-o", str(ptx)], ptx, vs, check))
    # every guard on every target ptxas knows
    for target in (t for t in spec.sort_targets(spec.targets) if spec.targets[t].ptxas):
        src = tmp_path / f"guard_{target}.cu"
        src.write_text(_guard_tu(spec, target))
        arch = target.replace("sm_", "compute_")
        jobs.append((f"guards on {target}", [nvcc, "-arch", arch, "-ptx", *FLAGS, *inc, str(src),
                                             "-o", str(tmp_path / f"guard_{target}.ptx")], None, [], None))
    # the host pass: a full compile (host g++ with -Wall -Werror) of a TU that includes everything
    host = tmp_path / "host.cu"
    sample = [wg[0], wg[-1]] + [next(v for v in others if v.valid("sm_90a", NVCC_PTX))]  # compiled for sm_90a
    host.write_text(instantiate.translation_unit(sample, "h_"))
    jobs.append(("host pass", [nvcc, "-c", "-gencode", "arch=compute_90a,code=compute_90a", *FLAGS, *inc, str(host),
                               "-o", str(tmp_path / "host.o")], None, [], None))

    def run(job):
        label, cmd, ptx, part, target = job
        t1 = time.monotonic()
        r = _run(cmd, tmp_path)
        timing[label] = time.monotonic() - t1
        problems = []
        if r.returncode != 0:
            return label, [f"nvcc failed ({' '.join(cmd[1:4])}):\n{(r.stderr + r.stdout)[-3000:]}"]
        if ptx is None:
            return label, []
        text = ptx.read_text()
        if f".version {NVCC_PTX}" not in text:  # what PTXSPEC_PTX_VERSION assumes of this nvcc
            problems.append(f"the PTX is not .version {NVCC_PTX}")
        for v in part:
            if not re.search(re.escape(v.ptx) + r"[ ;]", text):
                problems.append(f"{v.id}: opcode not in the PTX")
        # ptxas 13.5 assembles the module: machine code for sm_XX, parse-and-check for compute_XX
        t1 = time.monotonic()
        a = _run([ptxas, "-arch", target, str(ptx), "-o", str(ptx.with_suffix(".cubin"))], tmp_path)
        timing[label + " ptxas"] = time.monotonic() - t1
        if a.returncode != 0:
            problems.append(f"ptxas -arch {target} failed:\n{a.stderr[-3000:]}")
        return label, problems

    timing: dict[str, float] = {}
    with ThreadPoolExecutor(JOBS) as pool:
        results = list(pool.map(run, jobs))
    failures = [f"{label}: {p}" for label, ps in results for p in ps]
    assert not failures, "\n".join(failures[:20])
    elapsed = time.monotonic() - t0
    print(f"\n{len(jobs)} compiles ({len(buildable)} bindings; {len(unbuildable)} that nvcc 13.5 cannot emit "
          f"left out) in {elapsed:.1f} s; slowest: "
          + ", ".join(f"{k} {t:.1f} s" for k, t in sorted(timing.items(), key=lambda x: -x[1])[:8]))


@pytest.mark.full
def test_binding_on_an_unsupported_target_is_a_compile_error(spec, headers, tmp_path):
    nvcc = _nvcc()
    v = spec.variant("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", form="reg")
    src = tmp_path / "bad.cu"
    src.write_text(instantiate.translation_unit([v], "bad_"))
    r = _run([nvcc, "-arch", "compute_90", "-ptx", *FLAGS, "-I", str(headers), str(src), "-o", "bad.ptx"], tmp_path)
    assert r.returncode != 0
    assert "deleted function" in r.stderr + r.stdout and cbind.name(v) in r.stderr + r.stdout


# ---------------------------------------------------------------------------------------------
# constexpr maps, run on the host


def _digest(rows: np.ndarray, cols: np.ndarray) -> int:
    """sum over (t, i) of (row * 4099 + col + 1) * (t * 1031 + i + 7), modulo 2^64 (as the C code)."""
    t = np.arange(rows.shape[0], dtype=np.uint64)[:, None]
    i = np.arange(rows.shape[1], dtype=np.uint64)[None, :]
    rows, cols = np.asarray(rows, dtype=np.int64).view(np.uint64), np.asarray(cols, dtype=np.int64).view(np.uint64)
    w = (rows * np.uint64(4099) + cols + np.uint64(1)) * \
        (t * np.uint64(1031) + i + np.uint64(7))
    return int(w.sum(dtype=np.uint64))


HOST_PRELUDE = r"""
#include <cstdio>
#include <cstdint>
#include "ptxspec.h"
template <class F> static uint64_t digest(int threads, int elements, F rc) {
  uint64_t s = 0;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < elements; ++i) {
      int r = 0, c = 0;
      rc(t, i, r, c);
      s += (uint64_t(r) * 4099u + uint64_t(c) + 1u) * (uint64_t(t) * 1031u + uint64_t(i) + 7u);
    }
  return s;
}
"""


@pytest.mark.full
def test_constexpr_maps_match_the_model(spec, headers, tmp_path):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    lines = [HOST_PRELUDE, "int main() {"]
    expected = []
    # fragment maps: every operand, through the traits of one variant per (layout, shape, bits)
    seen = set()
    for v in spec.variants:
        f = f"ptxspec::frag::{cbind.name(v)}"
        for o in v.operands:
            if o.kind != "fragment" or o.matrix not in v.fragment_layouts:  # wmma.mma: opaque fragments
                continue
            fm = v.fragment_map(o.matrix)
            key = (o.layout, fm.rows, fm.cols, fm.bits, v.m, v.n, v.k)
            if key in seen:
                continue
            seen.add(key)
            g = f"{f}::{o.name}"
            lines.append(f'  std::printf("%llu\\n", (unsigned long long)digest({v.threads}, {g}::elements, '
                         f"[](int t, int i, int& r, int& c) {{ r = {g}::row(t, i); c = {g}::col(t, i); "
                         f"if ({g}::reg(i) * {g}::per_reg + {g}::slot(i) != i || {g}::regs != {o.regs} "
                         f"|| {g}::rows != {fm.rows} || {g}::cols != {fm.cols}) r = -1; }}));")
            expected.append(_digest(fm.row, fm.col))
    # sparsity metadata maps, every selector; and the packed metadata register of a fixed pattern
    from ptxspec.semantics import sparse
    for v in spec.variants:
        if v.sparsity is None or v.form == "desc" or (v.sparsity.name, v.m, v.k) in seen:
            continue
        seen.add((v.sparsity.name, v.m, v.k))
        f = f"ptxspec::frag::{cbind.name(v)}"
        for sel in v.selectors:
            mask, row, chunk = v.sparsity.metadata_map(v.threads, v.m, v.n, v.k, sel)
            lines.append(f'  std::printf("%llu\\n", (unsigned long long)digest({v.threads}, 8, '
                         f"[](int t, int n, int& r, int& c) {{ bool on = {f}::meta::contributes(t, {sel}); "
                         f"r = on ? {f}::meta::row(t, n) : -1; c = on ? {f}::meta::chunk(t, n) : -1; }}));")
            expected.append(_digest(np.where(mask[:, None], row, -1), np.where(mask[:, None], chunk, -1)))
            # kept(row, chunk): first = (row + chunk) % 3, second = 3 (a valid 2:4 pattern for every chunk)
            g = sparse.geometry(v)
            rr, cc = np.meshgrid(np.arange(g["rows"]), np.arange(g["chunks_per_row"]), indexing="ij")
            kept = np.stack([(rr + cc) % 3, np.full_like(rr, 3)], axis=-1)
            if v.sparsity.element_units == 1 and v.sparsity.chunk == 4:
                regs = sparse.pack_metadata(v, kept, sel=sel)
                for t in (0, 1, 2, 3, 5, v.threads - 1):
                    lines.append(f'  std::printf("%llu\\n", (unsigned long long){f}::meta::metadata({t}, {sel}, '
                                 f"[](int r, int c) {{ return {f}::meta::field((r + c) % 3, 3); }}));")
                    expected.append(int(regs[t]))
    # descriptors, swizzle, canonical layouts: every family's (tcgen05 adds fixed and defaulted
    # fields, a swizzle of 32-byte units and atoms of R rows)
    rng = np.random.default_rng(5)
    for fam, sm in sorted(spec.smem.items()):
        W = f"ptxspec::smem_{fam}::"
        fields = smem.descriptor_fields(spec, fam)
        for _ in range(50):
            start, lbo, sbo = (int(x) * 16 for x in rng.integers(0, 1 << 14, 3))
            mode = sm.swizzle_modes[int(rng.integers(len(sm.swizzle_modes)))]
            base = int(rng.integers(0, 8))
            more = {n: int(rng.integers(0, 2)) for n, f in fields.items() if f.default is not None}
            want = smem.encode_descriptor(spec, start=start, lbo=lbo, sbo=sbo, swizzle=mode.name, base_offset=base,
                                         family=fam, **more)
            given = {"start_address": f"ptxspec::SmemAddress({start})", "leading_byte_offset": lbo,
                     "stride_byte_offset": sbo, "base_offset": base, "swizzle": f"{W}swizzle_{cbind.ident(mode.name)}",
                     **more}
            args = ", ".join(str(given[n]) for n, f in fields.items() if f.fixed is None)
            lines.append(f'  std::printf("%llu\\n", (unsigned long long){W}make_descriptor({args}));')
            expected.append(want)
        for m in sm.swizzle_modes:
            for a in (0, 16, 0x2000 + 7 * 16, 0x2390, 0x3FF0):
                for o in (0, 3):
                    lines.append(f'  std::printf("%llu\\n", (unsigned long long){W}swizzle_address({a}u, '
                                 f"{W}swizzle_{cbind.ident(m.name)}, {o}));")
                    expected.append(int(sm.swizzle(a=a, b=m.b, o=o, u=m.unit)) & 0xFFFFFFFF)
        for c in sm.canonical_layouts:
            fn = f"{W}bit_offset_{c['major']}_major_{'swizzled' if c['swizzled'] else 'interleaved'}"
            uses_r = "R" in c["bit_offset"].names
            for mn, k, bits, w, r in ((0, 0, 16, 128, 8), (13, 21, 16, 64, 8), (63, 31, 8, 32, 8), (5, 200, 1, 128, 4),
                                      (40, 7, 32, 16, 8)):
                rarg = f"{r}, " if uses_r else ""
                lines.append(f'  std::printf("%llu\\n", (unsigned long long){fn}({mn}, {k}, {bits}, {w}, {rarg}256, 1024));')
                expected.append(int(c["bit_offset"](mn=mn, k=k, bits=bits, W=w, R=r, LBO=256, SBO=1024)))
    lines += ["  return 0;", "}", ""]
    src = tmp_path / "maps.cpp"
    src.write_text("\n".join(lines))
    exe = tmp_path / "maps"
    r = _run([gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", str(headers), str(src), "-o", str(exe)],
             tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    got = [int(x) for x in _run([str(exe)], tmp_path).stdout.split()]
    assert len(got) == len(expected)
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    assert not bad, f"{len(bad)} of {len(expected)} values differ; first at output {bad[0]}"


# ---------------------------------------------------------------------------------------------
# The H100 campaign's record, replayed without a GPU


RECORD = Path(__file__).resolve().parents[1] / "evidence" / "records" / "bindings-2026-11-22.json"


def test_h100_bindings_record_replays(spec):
    """A sample of the kernels the H100 ran through the bindings (every instruction and family):
    the D the current spec predicts has the digest of the D the hardware produced."""
    if not RECORD.is_file():
        pytest.skip("no bindings record yet")
    import gen_bindings as G
    lines = RECORD.read_text().splitlines()
    items = [json.loads(x) for x in lines[1:]]
    by_ins: dict[str, list[dict]] = {}
    for it in items:
        if not it["undefined"]:
            by_ins.setdefault(it["variant"].split(".sync")[0], []).append(it)
    sample = [it for group in by_ins.values() for it in group[:: max(1, len(group) // 12)]]
    assert len(sample) >= 50
    bad = []
    for it in sample:
        if "chain" in it:
            roles = dict(zip("abcd", (spec._by_id[c] if c else None for c in it["chain"])))
            mv = None if it["variant"] == it["chain"][2] and roles["a"] is None else spec._by_id[it["variant"]]
            chain = {"mma": mv, **roles, "stride": dict(zip("abcd", it["stride"]))}
            exp = G.wmma_plan(spec, chain, it["kernel"])["expected"]
        else:
            exp = G.plan(spec, spec._by_id[it["variant"]], it["kernel"])["expected"].reshape(-1)
        if G.digest(exp) != it["hw_digest"]:
            bad.append(it["variant"])
    assert not bad, f"{len(bad)} of {len(sample)} recorded kernels no longer match: {bad[:5]}"


@pytest.mark.full
def test_plain_c_variant_table(spec, headers, tmp_path):
    """ptxspec_variants.h is C89: a C program prints the table, and it is the model's."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    src = tmp_path / "table.c"
    src.write_text('#include <stdio.h>\n#include "ptxspec_variants.h"\nint main(void) {\n  int i;\n'
                   "  for (i = 0; i < PTXSPEC_VARIANT_COUNT; ++i)\n"
                   '    printf("%s|%s|%s|%d|%d|%d|%d|%s\\n", ptxspec_variants[i].id, ptxspec_variants[i].function,\n'
                   "           ptxspec_variants[i].form, ptxspec_variants[i].m, ptxspec_variants[i].n, "
                   "ptxspec_variants[i].k,\n           ptxspec_variants[i].min_ptx, ptxspec_variants[i].operands);\n"
                   "  return 0;\n}\n")
    exe = tmp_path / "table"
    r = _run([gcc, "-std=c89", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wno-overlength-strings",
              "-I", str(headers), str(src), "-o", str(exe)], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [line.split("|") for line in _run([str(exe)], tmp_path).stdout.splitlines()]
    assert len(rows) == len(spec.variants)
    for row, v in zip(rows, spec.variants):
        mv = v.requirement.min_ptx
        ops = " ".join(f"{o.name}:{o.kind}:{o.io}:{o.regs}:{o.reg_type or '-'}" for o in v.operands)
        assert row == [v.id, cbind.name(v), v.form, str(v.m or 0), str(v.n or 0), str(v.k or 0),
                       str(mv.major * 10 + mv.minor), ops], v.id
