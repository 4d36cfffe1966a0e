"""What ptxas makes of the forms no H100 can measure: the evidence behind spec/numerics.yaml's
`basis: sass` rules, read from the SASS of ptxas 13.5 (cuobjdump), written here from the manual's
syntax and not from the spec.

- mma m8n8k4 .bf16/.tf32 and wmma .f64 m16n16k16/m16n16k8 (accepted by ptxas, undefined by the
  manual): no target ptxas knows gets a single arithmetic instruction; D is a constant. Control
  kernels of the defined neighbours (m8n8k4 .f16, wmma .f64 m8n8k4) in the same modules do compute.
- the floating-point wmma `.satfinite` forms (PTX ISA 6.0 to 6.4, sm_70 to sm_75): on sm_75 each
  16x8 tile is two HMMA.1688 steps of k8, the second (only) saturating; for sm_80 and later ptxas
  drops the saturation.
"""
from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptxspec.oracle import ptxas
from ptxspec.semantics import numerics as nm
from ptxspec.semantics import numerics_status

pytestmark = pytest.mark.skipif(not ptxas.available(), reason="ptxas wheel not installed")

#: one target of each architecture family ptxas 13.5 generates code for, from sm_80 on
TARGETS = ("sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_103a", "sm_110a", "sm_120a", "sm_121a")
#: opcodes that compute (tensor-core steps, float and integer multiply-adds, conversions that round)
ARITHMETIC = re.compile(r"\b(HMMA|DMMA|IMMA|QMMA|OMMA|HGMMA|UTC\w*MMA|FFMA|DFMA|FMUL|DMUL|FADD|DADD|HFMA2|HMUL2|"
                        r"HADD2|F2FP|F2F)\b")
LAYOUTS = ("row", "col")


def _tool(name: str) -> str:
    return str(Path(ptxas.find_ptxas()).with_name(name))


def _module(version: str, target: str, kernels: dict[str, list[str]]) -> str:
    """Each kernel loads its inputs from the pointer it is given and stores D there: nothing the
    instruction reads is a constant ptxas could fold."""
    out = [f".version {version}", f".target {target}", ".address_size 64", ""]
    for name, body in kernels.items():
        out += [f".visible .entry {name}(.param .u64 p)", "{", "  .reg .b32 r<40>;", "  .reg .f32 f<40>;",
                "  .reg .f64 x<40>;", "  .reg .b64 rd;", "  ld.param.u64 rd, [p];", *body, "  ret;", "}", ""]
    return "\n".join(out)


def _loads(prefix: str, typ: str, n: int, at: int) -> list[str]:
    size = 8 if typ == "f64" else 4
    return [f"  ld.global.{typ} {prefix}{i}, [rd+{(at + i) * size}];" for i in range(n)]


def _regs(prefix: str, lo: int, n: int) -> str:
    return "{" + ", ".join(f"{prefix}{lo + i}" for i in range(n)) + "}"


def _mma_m8n8k4(atype: str, al: str, bl: str) -> list[str]:
    """mma.m8n8k4 with f32 C and D: A and B take 2 registers (.f16 pairs, .bf16 pairs) or 4 (.tf32)."""
    ab = 4 if atype == "tf32" else 2
    body = _loads("r", "b32", 2 * ab, 0) + _loads("f", "f32", 8, 8)
    body.append(f"  mma.sync.aligned.m8n8k4.{al}.{bl}.f32.{atype}.{atype}.f32 {_regs('f', 20, 8)}, "
                f"{_regs('r', 0, ab)}, {_regs('r', ab, ab)}, {_regs('f', 8, 8)};")
    return body + [f"  st.global.f32 [rd+{4 * i}], f{20 + i};" for i in range(8)]


def _wmma_f64(shape: str, al: str, bl: str, rnd: str) -> list[str]:
    """wmma.mma .f64: m8n8k4 takes 1/1/2/2 registers; m16n16k16 8/8/8/8; m16n16k8 4/4/8/8."""
    na, nc = {"m8n8k4": (1, 2), "m16n16k16": (8, 8), "m16n16k8": (4, 8)}[shape]
    body = _loads("x", "f64", 2 * na + nc, 0)
    body.append(f"  wmma.mma.sync.aligned.{al}.{bl}.{shape}{rnd}.f64.f64.f64.f64 {_regs('x', 30, nc)}, "
                f"{_regs('x', 0, na)}, {_regs('x', na, na)}, {_regs('x', 2 * na, nc)};")
    return body + [f"  st.global.f64 [rd+{8 * i}], x{30 + i};" for i in range(nc)]


def _undefined_kernels() -> tuple[dict[str, list[str]], set[str]]:
    kernels, controls = {}, set()
    for atype, al, bl in itertools.product(("bf16", "tf32", "f16"), LAYOUTS, LAYOUTS):
        kernels[f"mma_{atype}_{al}_{bl}"] = _mma_m8n8k4(atype, al, bl)
        if atype == "f16":
            controls.add(f"mma_{atype}_{al}_{bl}")
    for shape, al, bl, rnd in itertools.product(("m16n16k16", "m16n16k8", "m8n8k4"), LAYOUTS, LAYOUTS,
                                                ("", ".rn", ".rz", ".rm", ".rp")):
        name = f"wmma_{shape}_{al}_{bl}{rnd.replace('.', '_')}"
        kernels[name] = _wmma_f64(shape, al, bl, rnd)
        if shape == "m8n8k4":
            controls.add(name)
    return kernels, controls


def _sass(text: str, target: str, tmp: Path) -> dict[str, list[str]]:
    """kernel name -> its SASS instructions (opcode and operands), from cuobjdump."""
    src, obj = tmp / f"{target}.ptx", tmp / f"{target}.cubin"
    src.write_text(text)
    subprocess.run([ptxas.find_ptxas(), "-arch", target, str(src), "-o", str(obj)], check=True,
                   capture_output=True, text=True)
    dump = subprocess.run([_tool("cuobjdump"), "-sass", str(obj)], check=True, capture_output=True, text=True).stdout
    out: dict[str, list[str]] = {}
    name = None
    for line in dump.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m and name:
            out[name].append(m.group(1))
    return out


@pytest.mark.full
@pytest.mark.parametrize("target", TARGETS)
def test_forms_beyond_the_manual_compute_nothing_on_any_target(target, tmp_path):
    kernels, controls = _undefined_kernels()
    sass = _sass(_module("9.0", target, kernels), target, tmp_path)
    assert set(sass) == set(kernels)
    for name, code in sass.items():
        ops = [i for i in code if ARITHMETIC.search(i)]
        if name in controls:
            assert ops, f"{target} {name}: the control computes nothing: the probe is blind"
        else:
            assert not ops, f"{target} {name}: {ops}"
    assert len(kernels) - len(controls) == 8 + 40


def test_the_spec_gives_those_forms_no_arithmetic(spec):
    """Exactly the 48 forms above (8 mma, 40 wmma) meet a `model: none` rule, whose status says so."""
    rows = {r[0]: r for r in numerics_status.status_rows(spec)}
    none = {v.id for v in spec.variants if nm.computes_product(v) and (nm.rule_of(v) or None)
            and nm.rule_of(v).model == "none"}
    got = sorted((v.family, v.m, v.n, v.k, v.atype) for v in spec.variants if v.id in none)
    assert got == sorted([("mma", 8, 8, 4, t) for t in ("bf16", "tf32") for _ in range(4)]
                         + [("wmma", 16, 16, k, "f64") for k in (16, 8) for _ in range(20)])
    assert {rows[i][3] for i in none} == {nm.NO_ARITHMETIC}
    assert {nm.rule_of(v).basis for v in spec.variants if v.id in none} == {"sass"}


def _satfinite_kernels() -> dict[str, list[str]]:
    """wmma.mma f16 with .satfinite, every shape, D and C type and layout (8 A and 8 B registers of
    f16 pairs; C/D 4 registers of f16 pairs or 8 of f32)."""
    kernels = {}
    for shape, (d, c), al, bl in itertools.product(("m16n16k16", "m32n8k16", "m8n32k16"),
                                                  itertools.product(("f16", "f32"), repeat=2), LAYOUTS, LAYOUTS):
        nd, nc = (4 if d == "f16" else 8), (4 if c == "f16" else 8)
        body = _loads("r", "b32", 16 + nc, 0)
        body.append(f"  wmma.mma.sync.aligned.{al}.{bl}.{shape}.{d}.{c}.satfinite {_regs('r', 30 - nd + 8, nd)}, "
                    f"{_regs('r', 0, 8)}, {_regs('r', 8, 8)}, {_regs('r', 16, nc)};")
        body += [f"  st.global.b32 [rd+{4 * i}], r{38 - nd + i};" for i in range(nd)]
        kernels[f"wmma_{shape}_{d}_{c}_{al}_{bl}"] = body
    return kernels


_R = r"(R\d+)(?:\.reuse)?"
_HMMA = re.compile(rf"HMMA\.1688\.(F16|F32)(\.SATFINITE)?\s+{_R}, {_R}, {_R}, {_R}")


@pytest.mark.full
def test_satfinite_wmma_is_two_k8_steps_the_second_saturating_on_sm_75(tmp_path):
    kernels = _satfinite_kernels()
    sass = _sass(_module("6.4", "sm_75", kernels), "sm_75", tmp_path)
    assert len(sass) == len(kernels) == 48
    for name, code in sass.items():
        steps = [_HMMA.search(i) for i in code if "HMMA" in i]
        assert all(steps), (name, code)
        plain = [s for s in steps if not s.group(2)]
        sat = [s for s in steps if s.group(2)]
        f32 = "f32" in name.split("_")[2:4]  # HMMA.F32 when D or C is f32
        assert {s.group(1) for s in steps} == {"F32" if f32 else "F16"}, name
        # a 16x16 (or 32x8, 8x32) f16 tile is 2 (f16 D) or 4 (f32 D) HMMA.1688 outputs of 16x8; each
        # gets one plain step of k8 then one saturating step that accumulates onto it
        assert len(plain) == len(sat) >= 2, name
        written = {s.group(3) for s in plain}
        assert all(s.group(6) in written for s in sat), name
        first_sat = next(i for i, s in enumerate(steps) if s.group(2))
        assert all(not s.group(2) for s in steps[:first_sat]) and all(s.group(2) for s in steps[first_sat:]), name


@pytest.mark.full
def test_sm_80_and_later_drop_the_saturation(tmp_path):
    """The same PTX (sm_75 target, PTX 6.4) compiled for later GPUs, as a driver would JIT it: one
    HMMA.16816 step per tile and no SATFINITE, which is why the rule models sm_75's code only."""
    kernels = _satfinite_kernels()
    for target in ("sm_80", "sm_90a"):
        sass = _sass(_module("6.4", "sm_75", kernels), target, tmp_path)
        hmma = [i for code in sass.values() for i in code if "HMMA" in i]
        assert hmma and all("16816" in i and "SATFINITE" not in i for i in hmma), target


# -- the satfinite model against arithmetic done here (numpy), not against the model's own output

def _satfinite_forms(spec):
    return [v for v in spec.variants if v.family == "wmma" and v.satfinite and v.atype == "f16"]


def _codes(values, typ):
    return np.asarray(values, {"f16": np.float16, "f32": np.float32}[typ]).view(
        {"f16": np.uint16, "f32": np.uint32}[typ]).astype(np.uint64)


def _run(v, a, b, c):
    from ptxspec.semantics.execute import compute
    return compute(v, _codes(a, "f16"), _codes(b, "f16"), _codes(c, v.ctype), {})


def _values(codes, typ):
    return np.asarray(codes).astype({"f16": np.uint16, "f32": np.uint32}[typ]).view(
        {"f16": np.float16, "f32": np.float32}[typ])


def test_satfinite_forms_compute_small_integer_products_exactly(spec):
    rng = np.random.default_rng(7)
    forms = _satfinite_forms(spec)
    assert len(forms) == 48
    for v in forms:
        a = rng.integers(-4, 5, (v.m, v.k))
        b = rng.integers(-4, 5, (v.k, v.n))
        c = rng.integers(-64, 65, (v.m, v.n))
        d = _values(_run(v, a, b, c), v.dtype)
        assert np.array_equal(d.astype(np.int64), a @ b + c), v.id
        assert nm.params(v).group == 8 and nm.params(v).finite == 1, v.id


def test_satfinite_turns_infinite_results_into_the_largest_finite_value(spec):
    for v in _satfinite_forms(spec):
        a = np.full((v.m, v.k), 255.0)
        b = np.full((v.k, v.n), 255.0)
        c = np.zeros((v.m, v.n))
        d = _run(v, a, b, c)
        total = 255.0 * 255.0 * v.k  # 1,040,400: beyond f16, well inside f32
        if v.dtype == "f32":
            assert np.all(_values(d, "f32") == total), v.id
        elif v.ctype == "f16":  # f16 steps: the second step's Inf saturates to 65504
            assert np.all(np.asarray(d) == 0x7BFF), v.id
        else:  # f32 steps saturate in f32; the f16 conversion after them (HADD2) overflows to +Inf
            assert np.all(np.asarray(d) == 0x7C00), v.id
        inf = np.full((v.m, v.n), -np.inf)  # C = -Inf: the sum is -Inf, saturated
        d = _run(v, np.ones((v.m, v.k)), np.ones((v.k, v.n)), inf)
        want = 0xFBFF if v.dtype == "f16" and v.ctype == "f16" else 0xFF7FFFFF if v.dtype == "f32" else 0xFC00
        assert np.all(np.asarray(d) == want), (v.id, hex(int(np.asarray(d).flat[0])))
        nan = np.full((v.m, v.n), np.nan)
        d = _values(_run(v, np.ones((v.m, v.k)), np.ones((v.k, v.n)), nan), v.dtype)
        assert np.all(np.isnan(d)), v.id


def test_no_arithmetic_forms_are_refused_with_the_reason(spec):
    v = next(v for v in spec.variants if v.family == "mma" and v.k == 4 and v.atype == "bf16")
    z = {n: np.zeros((32, v.operand(n).regs), np.uint32) for n in ("a", "b", "c")}
    with pytest.raises(NotImplementedError, match="no arithmetic: ptxas emits no product .* sm_121a"):
        v.execute(**z)
