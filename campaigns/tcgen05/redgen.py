#!/usr/bin/env python3
"""The tcgen05.ld.red device campaign (sm_103a): every variant's registers and its reduction.

    python3 campaigns/tcgen05/redgen.py BUILD          # BUILD/red_kernels.cu
    bash campaigns/tcgen05/run_red.sh BUILD            # on an sm_103a machine: BUILD/red_results.bin
    python3 campaigns/tcgen05/redgen.py BUILD --check  # BUILD/red_report.json, exit 1 on any mismatch

One kernel per tcgen05.ld.red variant of the spec (.32x32b and .16x32bx2, every .num, min/max,
.abs, .NaN, f32/u32/s32; the `.b2` option left out), one warpgroup, each warp on its own 32 lanes.
Every cell first gets a value of its own (lane, column) through .32x32b stores (VALUE below, the
same formula in C and Python; f32 values are small multiples of 1/2 of both signs, with NaNs in
some lanes for the .NaN forms); the variant under test loads. The checker compares each register
with the cell the spec's tcgen05.ld map names (the `tile` fragment map) and the reduction register
with the reduction of the thread's values as the manual words it: the minimum or maximum (signed
for s32, unsigned for u32); .abs compares magnitudes and is taken here to return the magnitude;
.NaN makes a NaN the result (the canonical 0x7fffffff), without it NaNs are not chosen. Nothing here
has run: no sm_103a GPU (see README.md).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tmemgen  # noqa: E402

THREADS = 128
CANONICAL_NAN = 0x7FFFFFFF

C_VALUE = r"""
static __device__ __forceinline__ uint32_t cell_value(uint32_t lane, uint32_t col, int kind, int nan)
{
  const uint32_t h = lane * 2654435761u + col * 40503u + 12345u;
  if (kind == 0) {  // f32
    if (nan && lane % 5 == 1 && col % 2 == 1) return 0x7fc00000u;
    const float x = (float)((int)(h % 61u) - 30) * 0.5f;
    return __float_as_uint(x);
  }
  return h;  // u32, s32
}

__device__ void red_uses_ld32(uint32_t addr, uint32_t* v) { ld32(addr, v); }  // the prelude's; unused here
"""


def cell_value(lane: np.ndarray, col: np.ndarray, kind: int, nan: bool) -> np.ndarray:
    """VALUE in Python (the same formula as the C above): uint32 codes."""
    h = (lane.astype(np.uint64) * 2654435761 + col.astype(np.uint64) * 40503 + 12345) & 0xFFFFFFFF
    if kind:
        return h.astype(np.uint32)
    x = ((h % 61).astype(np.int64) - 30).astype(np.float32) * np.float32(0.5)
    out = x.view(np.uint32).copy()
    if nan:
        out = np.where((lane % 5 == 1) & (col % 2 == 1), np.uint32(0x7FC00000), out)
    return out


def variants(spec) -> list:
    return [v for v in spec.variants if v.instruction == "tcgen05.ld.red"]


def _kind(v) -> int:
    return {"f32": 0, "u32": 1, "s32": 2}[v.dtype]


def _nan(v) -> bool:
    return bool(v.qualifiers.get("red_nan"))


def kernel(kid: int, v) -> str:
    n, cols = tmemgen.regs(v), tmemgen.footprint_cols(v)
    vec = "{" + ", ".join(f"%{j}" for j in range(n)) + "}"
    split = f", {tmemgen.width(v)}" if v.qualifiers["tmem_shape"] == "16x32bx2" else ""
    text = f"{v.ptx} {vec}, %{n}, [%{n + 1}]{split};"
    outs = ", ".join([f'"=r"(r[{j}])' for j in range(n)] + ['"=r"(red)'])
    return "\n".join([
        f"// {v.id}",
        f"__global__ void __launch_bounds__({THREADS}) red_k{kid}(uint32_t* __restrict__ out)", "{",
        "  __shared__ uint32_t slot;", "  const uint32_t slab = tmem_setup(&slot);",
        "  const uint32_t w = threadIdx.x / 32, t = threadIdx.x % 32;",
        f"  uint32_t* o = out + threadIdx.x * {n + 1};", "  uint32_t v[32];", f"  uint32_t r[{n}], red;",
        f"  for (uint32_t c0 = 0; c0 < {cols}; c0 += 32) {{",
        f"    for (uint32_t j = 0; j < 32; ++j) v[j] = cell_value(32 * w + t, c0 + j, {_kind(v)}, {int(_nan(v))});",
        "    st32(slab + c0, v);", "  }",
        '  asm volatile("tcgen05.wait::st.sync.aligned;\\n" ::: "memory");',
        f'  asm volatile("{text}\\n" : {outs} : "r"(slab) : "memory");',
        '  asm volatile("tcgen05.wait::ld.sync.aligned;\\n" ::: "memory");',
        f"  for (uint32_t j = 0; j < {n}; ++j) o[j] = r[j];", f"  o[{n}] = red;",
        "  tmem_teardown(slot);", "}", ""])


def sources(spec, build: Path) -> list[dict]:
    build.mkdir(parents=True, exist_ok=True)
    vs = variants(spec)
    jobs = [{"kernel": i, "variant": v.id, "words": (tmemgen.regs(v) + 1) * THREADS} for i, v in enumerate(vs)]
    parts = [tmemgen._prelude(), C_VALUE] + [kernel(i, v) for i, v in enumerate(vs)]
    parts.append("extern const void* const tmem_kernels[] = {" + ", ".join(f"(const void*)red_k{i}"
                                                                          for i in range(len(vs))) + "};")
    parts.append("extern const uint32_t tmem_words[] = {" + ", ".join(str(j["words"]) for j in jobs) + "};")
    parts.append(f"extern const uint32_t tmem_nkernels = {len(vs)};\n")
    (build / "red_kernels.cu").write_text("\n".join(parts), encoding="utf-8")
    (build / "red_jobs.json").write_text(json.dumps(jobs, indent=1) + "\n", encoding="utf-8")
    return jobs


def _reduce(v, vals: np.ndarray) -> np.ndarray:
    """The reduction of each thread's values (threads, n) as the manual words it (see the docstring)."""
    red = v.qualifiers["red"]
    if v.dtype in ("u32", "s32"):
        x = vals.view(np.int32) if v.dtype == "s32" else vals
        r = x.min(axis=1) if red == "min" else x.max(axis=1)
        return r.astype(x.dtype).view(np.uint32)
    f = vals.view(np.float32)
    nan = np.isnan(f)
    key = np.abs(f) if v.qualifiers.get("red_abs") else f
    key = np.where(nan, np.inf if red == "min" else -np.inf, key)
    pick = key.argmin(axis=1) if red == "min" else key.argmax(axis=1)
    r = np.take_along_axis(np.abs(f) if v.qualifiers.get("red_abs") else f, pick[:, None], axis=1)[:, 0]
    out = r.astype(np.float32).view(np.uint32)
    if _nan(v):
        out = np.where(nan.any(axis=1), np.uint32(CANONICAL_NAN), out)
    return out


def expected(v) -> np.ndarray:
    """(threads, registers + 1): the loaded values through the spec's map, then the reduction."""
    want = tmemgen.expected(v)  # (warps, 32, elements, (row, column))
    w = np.arange(THREADS // 32)[:, None, None]
    row, col = want[..., 0], want[..., 1]
    second = (row >= 16) & (v.qualifiers["tmem_shape"] == "16x32bx2")
    lane, c = row - 16 * second, col + tmemgen.width(v) * second
    vals = cell_value(32 * w + lane, c, _kind(v), _nan(v)).reshape(THREADS, -1)
    return np.concatenate([vals, _reduce(v, vals)[:, None]], axis=1)


def check(spec, results: dict) -> dict:
    report = {}
    for i, v in enumerate(variants(spec)):
        if i not in results:
            report[v.id] = {"ran": False}
            continue
        err, words = results[i]
        if err:
            report[v.id] = {"ran": True, "cuda_error": err}
            continue
        want = expected(v)
        got = words.reshape(THREADS, -1)
        report[v.id] = {"ran": True, "register_mismatches": int((got[:, :-1] != want[:, :-1]).sum()),
                        "reduction_mismatches": int((got[:, -1] != want[:, -1]).sum()),
                        "first": [[int(t), int(got[t, -1]), int(want[t, -1])]
                                  for t in np.flatnonzero(got[:, -1] != want[:, -1])[:4]]}
    return report


def main(argv: list[str]) -> int:
    import ptxspec
    spec = ptxspec.load()
    build = Path(argv[0]) if argv else HERE.parents[1] / "device" / "build" / "tcgen05"
    if "--check" in argv:
        report = check(spec, tmemgen.read_results(build / "red_results.bin"))
        (build / "red_report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        bad = [k for k, r in report.items() if not r.get("ran") or r.get("cuda_error") or r.get("register_mismatches")
               or r.get("reduction_mismatches")]
        print(f"{len(report) - len(bad)} of {len(report)} variants agree")
        return 1 if bad else 0
    jobs = sources(spec, build)
    print(f"{len(jobs)} kernels in {build / 'red_kernels.cu'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
