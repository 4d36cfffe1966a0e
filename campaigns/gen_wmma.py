"""Generate the wmma device campaign: one kernel per measurement, from the ptxas survey (not the spec).

    python3 campaigns/gen_wmma.py        # writes campaigns/build/wmma/ (kernels + kernels.json)
    python3 campaigns/gen_wmma.py --cubins   # also assembles them here with the wheel's nvcc/ptxas
                                                # (build/wmma/cubins/), which run_wmma.sh runs as well
    bash campaigns/run_wmma.sh           # on the GPU machine: build, run wmma_device.py, write $OUT
    python3 campaigns/check_wmma.py RESULTS --record evidence/records/wmma-2026-11-22.json

The manual leaves wmma fragments unspecified, so the campaign *measures* them without assuming
any map: the kernels come from the opcodes ptxas 13.5 accepts (campaigns/survey/warp-mma-ptxas-13.5.json,
every one of them runs on sm_90a), not from the spec, and what they return is compared with the
spec afterwards by check_wmma.py.

Kernels (one uniform signature, see wmma_host.cu):
  load   one per (wmma.load opcode, with or without the stride operand): copies the buffer into
         shared memory first for the .shared spaces, loads the fragment, writes every register.
  store  one per (wmma.store.d opcode, stride or not): registers from the input, the buffer
         (through shared memory for .shared) back to the host.
  mma    one per wmma.mma opcode: A, B, C registers in, D registers out.
  chain  one per wmma.mma opcode whose operands wmma.load can produce: wmma.load A, B, C from
         memory (generic addresses, default strides), wmma.mma, then every register of A, B, C and D
         out, so the D map is checked on fragments the hardware itself laid out.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SURVEY = ROOT / "campaigns" / "survey" / "warp-mma-ptxas-13.5.json"
BUILD = HERE / "build" / "wmma"
TARGET = "sm_90a"
PARTS = 16
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
        "b1": 1}
SIG = ("const unsigned* in0, const unsigned* in1, const unsigned* in2, unsigned* buf, unsigned stride, "
       "unsigned nbytes, unsigned* out")
SMEM_WORDS = 4096


def shape_of(q: str) -> tuple[int, int, int]:
    m, rest = q[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def dims(matrix: str, m: int, n: int, k: int) -> tuple[int, int]:
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[matrix]


def reg_list(start: int, count: int) -> str:
    return "{" + ", ".join(f"%{start + j}" for j in range(count)) + "}"


def asm_block(body: list[str], outs: list[str], ins: list[str]) -> str:
    text = "\\n\\t".join(body)
    return f'  asm volatile("{{\\n\\t{text}\\n\\t}}" : {", ".join(outs)} : {", ".join(ins)} : "memory");'


def load_kernel(name: str, op: dict, frag: dict, with_stride: bool) -> str:
    space = op["qualifiers"].get("ss") or ""
    nregs, wide = frag["regs"], frag["wide"]
    ctype, con = ("unsigned long long", "l") if wide else ("unsigned", "r")
    lines = [f'extern "C" __global__ void {name}({SIG})', "{",
             "  const void* src = buf;"]
    if space.startswith("shared"):
        lines += [f"  __shared__ __align__(256) unsigned smem[{SMEM_WORDS}];","  for (unsigned i = threadIdx.x; i < nbytes / 4; i += 32) smem[i] = buf[i];",
                  "  __syncthreads();", "  src = smem;"]
    lines.append(f"  {ctype} " + ", ".join(f"r{j}" for j in range(nregs)) + ";")
    cvta = {"": "mov.u64 addr, %{p};", "global": "cvta.to.global.u64 addr, %{p};",
            "shared": "cvta.to.shared.u64 addr, %{p};", "shared::cta": "cvta.to.shared.u64 addr, %{p};"}[space]
    p = nregs
    stmt = f"{op['opcode']} {reg_list(0, nregs)}, [addr]" + (f", %{p + 1};" if with_stride else ";")
    lines.append(asm_block([".reg .u64 addr;", cvta.format(p=p), stmt],
                           [f'"={con}"(r{j})' for j in range(nregs)],
                           ['"l"(src)', '"r"(stride)']))
    words = nregs * (2 if wide else 1)
    lines.append(f"  unsigned* o = out + threadIdx.x * {words};")
    for j in range(nregs):
        if wide:
            lines.append(f"  o[{2 * j}] = (unsigned)r{j}; o[{2 * j + 1}] = (unsigned)(r{j} >> 32);")
        else:
            lines.append(f"  o[{j}] = r{j};")
    lines.append("}")
    return "\n".join(lines)


def store_kernel(name: str, op: dict, frag: dict, with_stride: bool) -> str:
    space = op["qualifiers"].get("ss") or ""
    nregs, wide = frag["regs"], frag["wide"]
    ctype, con = ("unsigned long long", "l") if wide else ("unsigned", "r")
    words = nregs * (2 if wide else 1)
    lines = [f'extern "C" __global__ void {name}({SIG})', "{",
             "  void* dst = buf;",
             f"  const unsigned* q = in0 + threadIdx.x * {words};"]
    for j in range(nregs):
        if wide:
            lines.append(f"  {ctype} r{j} = (unsigned long long)q[{2 * j}] | ((unsigned long long)q[{2 * j + 1}] << 32);")
        else:
            lines.append(f"  {ctype} r{j} = q[{j}];")
    shared = space.startswith("shared")
    if shared:
        lines += [f"  __shared__ __align__(256) unsigned smem[{SMEM_WORDS}];",
                  "  for (unsigned i = threadIdx.x; i < nbytes / 4; i += 32) smem[i] = buf[i];",
                  "  __syncthreads();", "  dst = smem;"]
    cvta = {"": "mov.u64 addr, %0;", "global": "cvta.to.global.u64 addr, %0;",
            "shared": "cvta.to.shared.u64 addr, %0;", "shared::cta": "cvta.to.shared.u64 addr, %0;"}[space]
    stmt = f"{op['opcode']} [addr], {reg_list(1, nregs)}" + (f", %{nregs + 1};" if with_stride else ";")
    lines.append(asm_block([".reg .u64 addr;", cvta, stmt], [],
                           ['"l"(dst)'] + [f'"{con}"(r{j})' for j in range(nregs)] + ['"r"(stride)']))
    if shared:
        lines += ["  __syncthreads();", "  for (unsigned i = threadIdx.x; i < nbytes / 4; i += 32) buf[i] = smem[i];"]
    lines.append("}")
    return "\n".join(lines)


def mma_kernel(name: str, op: dict, frags: dict, loads: dict | None) -> str:
    """loads None: registers from in0/in1/in2. Else {matrix: load opcode}: wmma.load from them."""
    lines = [f'extern "C" __global__ void {name}({SIG})', "{"]
    order = ["d", "a", "b", "c"]
    words = {x: frags[x]["regs"] * (2 if frags[x]["wide"] else 1) for x in order}
    src = {"a": "in0", "b": "in1", "c": "in2"}
    for x in order:
        f = frags[x]
        ctype = "unsigned long long" if f["wide"] else "unsigned"
        lines.append(f"  {ctype} " + ", ".join(f"{x}{j}" for j in range(f["regs"])) + ";")
        if x != "d" and loads is None:
            lines.append(f"  {{ const unsigned* q = {src[x]} + threadIdx.x * {words[x]};")
            for j in range(f["regs"]):
                if f["wide"]:
                    lines.append(f"    {x}{j} = (unsigned long long)q[{2 * j}] | ((unsigned long long)q[{2 * j + 1}] << 32);")
                else:
                    lines.append(f"    {x}{j} = q[{j}];")
            lines.append("  }")
    if loads is not None:
        for x in ("a", "b", "c"):
            f = frags[x]
            con = "l" if f["wide"] else "r"
            n = f["regs"]
            lines.append(asm_block([f"{loads[x]} {reg_list(0, n)}, [%{n}];"],
                                   [f'"={con}"({x}{j})' for j in range(n)], [f'"l"({src[x]})']))
    outs, ins, pos = [], [], 0
    regtext = {}
    for x in order:
        n = frags[x]["regs"]
        regtext[x] = reg_list(pos, n)
        pos += n
    con = {x: ("l" if frags[x]["wide"] else "r") for x in order}
    outs = [f'"={con["d"]}"(d{j})' for j in range(frags["d"]["regs"])]
    ins = [f'"{con[x]}"({x}{j})' for x in ("a", "b", "c") for j in range(frags[x]["regs"])]
    stmt = f"{op['opcode']} {regtext['d']}, {regtext['a']}, {regtext['b']}, {regtext['c']};"
    lines.append(asm_block([stmt], outs, ins))
    off = 0
    sections = ("a", "b", "c", "d") if loads is not None else ("d",)
    for x in sections:
        f = frags[x]
        lines.append(f"  {{ unsigned* o = out + {off} + threadIdx.x * {words[x]};")
        for j in range(f["regs"]):
            if f["wide"]:
                lines.append(f"    o[{2 * j}] = (unsigned){x}{j}; o[{2 * j + 1}] = (unsigned)({x}{j} >> 32);")
            else:
                lines.append(f"    o[{j}] = {x}{j};")
        lines.append("  }")
        off += 32 * words[x]
    lines.append("}")
    return "\n".join(lines)


def frag_info(form: dict) -> dict:
    return {"regs": form["regs"], "wide": bool(set(form["types"]) & {"f64", "b64"})}


def plan(survey: dict) -> list[dict]:
    ops = [o for o in survey["opcodes"] if o["family"] == "wmma" and TARGET in survey["target_maps"][o["first_ptx"]]]
    forms = survey["operand_forms"]
    by_opcode = {o["opcode"]: o for o in ops}
    kernels = []
    for o in sorted(ops, key=lambda o: o["opcode"]):
        q = o["qualifiers"]
        inst = o["instruction"]
        m, n, k = shape_of(q["shape"])
        if inst.startswith("wmma.load") or inst == "wmma.store.d":
            matrix = inst[-1]
            form = [f for f in forms[o["operands"]] if f["kind"] == "vector"][0]
            rows, cols = dims(matrix, m, n, k)
            for with_stride in (False, True):
                kernels.append({"kind": "load" if inst != "wmma.store.d" else "store", "opcode": o["opcode"],
                                "instruction": inst, "matrix": matrix, "shape": [m, n, k], "layout": q["layout"],
                                "type": q["type"], "bits": BITS[q["type"]], "space": q.get("ss") or "",
                                "stride": with_stride, "rows": rows, "cols": cols, **frag_info(form)})
        else:
            fs = {f["name"]: frag_info(f) for f in forms[o["operands"]]}
            types = {x: q[f"{x}type"] for x in "abcd"}
            for x in "ab":  # the two-type form: A and B are f16
                if types[x] == "(implicit)":
                    types[x] = "f16"
            base = {"opcode": o["opcode"], "instruction": inst, "shape": [m, n, k], "alayout": q["alayout"],
                    "blayout": q["blayout"], "types": types, "rnd": q.get("rnd", ""), "satfinite": bool(q.get("satfinite")),
                    "op": q.get("op", ""), "frags": fs}
            kernels.append({"kind": "mma", **base})
            loads = {}
            for x, lay in (("a", q["alayout"]), ("b", q["blayout"]), ("c", "row")):
                name = f"wmma.load.{x}.sync.aligned.{lay}.{q['shape']}.{types[x]}"
                if name in by_opcode:
                    loads[x] = name
            if len(loads) == 3:
                kernels.append({"kind": "chain", **base, "loads": loads})
    for i, kern in enumerate(kernels):
        kern["index"] = i
        kern["name"] = f"wk{i}"
    return kernels


def source(kern: dict) -> str:
    if kern["kind"] == "load":
        return load_kernel(kern["name"], {"opcode": kern["opcode"], "qualifiers": {"ss": kern["space"]}}, kern,
                           kern["stride"])
    if kern["kind"] == "store":
        return store_kernel(kern["name"], {"opcode": kern["opcode"], "qualifiers": {"ss": kern["space"]}}, kern,
                            kern["stride"])
    return mma_kernel(kern["name"], kern, kern["frags"], kern.get("loads"))


def cubins(jobs: int = 2) -> None:
    """Assemble every part with the nvcc and ptxas of the nvidia-cuda-nvcc wheel (the test oracle)."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor
    sys.path.insert(0, str(ROOT / "generators"))
    from ptxspec.oracle.ptxas import find_ptxas
    bindir = Path(find_ptxas()).parent
    out = BUILD / "cubins"
    out.mkdir(exist_ok=True)
    env = {**__import__("os").environ, "PATH": f"{bindir}:{__import__('os').environ['PATH']}"}
    def one(p):
        subprocess.run([str(bindir / "nvcc"), "-cubin", "-gencode", "arch=compute_90a,code=sm_90a", "-O2",
                        str(BUILD / f"wmma_kernels_{p}.cu"), "-o", str(out / f"wmma_kernels_{p}.cubin")],
                       check=True, env=env, capture_output=True)
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, range(PARTS)))
    version = subprocess.run([find_ptxas(), "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    (out / "ptxas.txt").write_text("cubins assembled by " + " / ".join(version[-2:]) + "\n")


def main(argv=None) -> int:
    survey = json.loads(SURVEY.read_text())
    kernels = plan(survey)
    BUILD.mkdir(parents=True, exist_ok=True)
    for old in BUILD.glob("wmma_kernels_*.cu"):
        old.unlink()
    head = "// generated by campaigns/gen_wmma.py -- do not edit\n"
    for p in range(PARTS):
        part = [kk for kk in kernels if kk["index"] % PARTS == p]
        body = [head] + [source(kk) + "\n" for kk in part]
        body.append(f'extern "C" const void* const wmma_part{p}[] = {{'
                    + ", ".join(f"(const void*){kk['name']}" for kk in part) + "};\n")
        (BUILD / f"wmma_kernels_{p}.cu").write_text("\n".join(body))
    table = [head, f"#define WMMA_KERNELS {len(kernels)}", f"#define WMMA_PARTS {PARTS}"]
    table += [f'extern "C" const void* const wmma_part{p}[];' for p in range(PARTS)]
    table.append("static const void* const* const wmma_parts[WMMA_PARTS] = {"
                 + ", ".join(f"wmma_part{p}" for p in range(PARTS)) + "};")
    (BUILD / "wmma_table.h").write_text("\n".join(table) + "\n")
    (BUILD / "kernels.json").write_text(json.dumps({"target": TARGET, "parts": PARTS, "kernels": kernels},
                                                   indent=0, sort_keys=True) + "\n")
    counts = {}
    for kk in kernels:
        counts[kk["kind"]] = counts.get(kk["kind"], 0) + 1
    print(f"{len(kernels)} kernels {counts} -> {BUILD.relative_to(ROOT)}")
    if "--cubins" in (argv if argv is not None else sys.argv[1:]):
        cubins()
        print(f"cubins -> {(BUILD / 'cubins').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
