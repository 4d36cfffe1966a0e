"""Build examples/gemm/gemm.cu, check it against torch and time it against cuBLAS, in one run.

    python3 examples/gemm/run.py [--headers generated/c] [--out DIR]

Needs a Hopper GPU (sm_90a), nvcc and PyTorch. For each case, C = A * Bt^T from the example is
compared bit for bit with torch.mm(A, Bt.t(), out_dtype=torch.float32) (cuBLAS's bf16 product
with f32 output) on the same inputs; then, at 4096^3, the example, cuBLAS bf16 (bf16 output, what
torch.mm gives) and cuBLAS with f32 output are timed with CUDA events, in the same process.
Writes gemm.json (environment, cases, timings) to --out and prints a summary.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build(headers: Path, work: Path) -> tuple[Path, str]:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    so = work / "libgemm.so"
    cmd = [nvcc, "-std=c++17", "-O3", "-gencode", "arch=compute_90a,code=sm_90a", "-Xcompiler", "-fPIC", "-shared",
           "-Xptxas", "-v", "-I", str(headers), str(HERE / "gemm.cu"), "-o", str(so)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"nvcc failed:\n{r.stdout}{r.stderr}")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return so, version + "\n" + r.stderr


def sass_summary(so: Path) -> dict:
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    text = subprocess.run([tool, "-sass", str(so)], capture_output=True, text=True).stdout
    ops = [line.split()[1] for line in text.splitlines() if "/*" in line and len(line.split()) > 2]
    return {"HGMMA": sum("HGMMA" in o for o in ops), "UTMALDG": sum(o.startswith("UTMALDG") for o in ops),
            "first_hgmma": next((line.strip().split(";")[0].split("*/")[-1].strip() for line in text.splitlines()
                                 if "HGMMA" in line), "")}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--headers", default=str(HERE.parents[1] / "generated" / "c"))
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--iters", type=int, default=30)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import torch

    so, build_log = build(Path(args.headers), Path("/tmp"))
    lib = ctypes.CDLL(str(so))
    lib.gemm_bf16_f32.restype = ctypes.c_int
    lib.gemm_bf16_f32.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3 + [ctypes.c_void_p]
    stream = torch.cuda.current_stream().cuda_stream

    def ours(a, bt, c):
        rc = lib.gemm_bf16_f32(a.data_ptr(), bt.data_ptr(), c.data_ptr(), a.shape[0], bt.shape[0], a.shape[1], stream)
        if rc:
            raise RuntimeError(f"gemm_bf16_f32 returned {rc}")

    def reference(a, bt):
        return torch.mm(a, bt.t(), out_dtype=torch.float32)

    try:
        reference(torch.ones(128, 64, device="cuda", dtype=torch.bfloat16),
                  torch.ones(256, 64, device="cuda", dtype=torch.bfloat16))
        reference_name = "torch.mm(a, bt.t(), out_dtype=torch.float32)"
    except (TypeError, RuntimeError) as exc:  # an older torch: exact f32 products of the bf16 inputs
        print(f"torch.mm has no out_dtype here ({exc}); reference: f32 matmul without TF32", flush=True)
        torch.backends.cuda.matmul.allow_tf32 = False

        def reference(a, bt):  # noqa: F811
            return torch.mm(a.float(), bt.float().t())
        reference_name = "torch.mm(a.float(), bt.float().t()), TF32 off"

    cases = []
    shapes = [(128, 256, 64), (256, 512, 1024), (1024, 768, 4096), (4096, 4096, 4096), (2048, 2048, 8192)]
    for seed, (m, n, k) in enumerate(shapes):
        for data in ("normal", "integers"):
            g = torch.Generator(device="cuda").manual_seed(1000 + seed)
            if data == "normal":
                a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
                bt = torch.randn(n, k, device="cuda", generator=g).to(torch.bfloat16)
            else:  # small integers: every sum exact, so a misplaced element cannot hide in rounding
                a = torch.randint(-2, 3, (m, k), device="cuda", generator=g).to(torch.bfloat16)
                bt = torch.randint(-2, 3, (n, k), device="cuda", generator=g).to(torch.bfloat16)
            c = torch.full((m, n), float("nan"), device="cuda")
            ours(a, bt, c)
            ref = reference(a, bt)
            torch.cuda.synchronize()
            same = bool(torch.equal(c.view(torch.int32), ref.view(torch.int32)))
            diff = (c - ref).abs()
            cases.append({"m": m, "n": n, "k": k, "data": data, "bit_identical": same,
                          "mismatches": int((c.view(torch.int32) != ref.view(torch.int32)).sum()),
                          "max_abs_diff": float(diff.max()), "nan": bool(torch.isnan(c).any())})
            print(f"{m}x{n}x{k} {data}: {'bit-identical' if same else 'DIFFERS'} "
                  f"({cases[-1]['mismatches']} mismatches, max |diff| {cases[-1]['max_abs_diff']})", flush=True)

    def timed(fn, reps=5):
        for _ in range(5):
            fn()
        best = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(args.iters):
                fn()
            end.record()
            torch.cuda.synchronize()
            best.append(start.elapsed_time(end) / args.iters)
        best.sort()
        return best[len(best) // 2]  # median ms per product

    m = n = k = 4096
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    bt = torch.randn(n, k, device="cuda", generator=g).to(torch.bfloat16)
    c = torch.empty(m, n, device="cuda")
    flop = 2.0 * m * n * k
    timing = {}
    for label, fn in (("example", lambda: ours(a, bt, c)),
                      ("cublas_bf16", lambda: torch.mm(a, bt.t())),
                      ("cublas_bf16_f32out", lambda: reference(a, bt)),
                      ("example_again", lambda: ours(a, bt, c))):
        ms = timed(fn)
        timing[label] = {"ms": ms, "tflops": flop / ms / 1e9}
        print(f"{label}: {ms:.4f} ms, {flop / ms / 1e9:.1f} TFLOP/s", flush=True)
    example = max(timing["example"]["tflops"], timing["example_again"]["tflops"])
    result = {
        "date": datetime.date.today().isoformat(),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
        "nvcc": build_log.splitlines()[0], "ptxas": [x for x in build_log.splitlines() if "registers" in x or "spill" in x],
        "driver": subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True).stdout.strip(),
        "sass": sass_summary(so), "reference": reference_name, "cases": cases, "timing_4096": timing,
        "ratio_vs_cublas_bf16": example / timing["cublas_bf16"]["tflops"],
        "ratio_vs_cublas_f32out": example / timing["cublas_bf16_f32out"]["tflops"],
        "all_bit_identical": all(x["bit_identical"] for x in cases),
    }
    (out / "gemm.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("gpu", "all_bit_identical", "ratio_vs_cublas_bf16", "sass")}))
    return 0 if result["all_bit_identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
