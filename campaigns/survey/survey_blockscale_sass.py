#!/usr/bin/env python3
"""What ptxas makes of the `.kind::*` mma forms: one native tensor instruction, or an emulation?

For every variant with a `.kind` qualifier (dense and sparse, with and without `.block_scale`)
and every target of the requested set that the variant is valid on, this writes one kernel
that loads every input register from global memory, runs the instruction once and stores
every destination register; all kernels of a target go into one PTX module, which the
`nvidia-cuda-nvcc` wheel's ptxas compiles (`-arch sm_XXX`, code generation on), and
`cuobjdump -sass` disassembles. Per kernel we keep the SASS opcodes other than the loads,
stores, address arithmetic and the exit: for a native lowering that is one tensor instruction
(`OMMA`, `QMMA`, ... with its modifiers); anything else is listed as it stands.

Block-scaled variants are compiled at every legal selector value of A and B as well (the
defaults, {0, 0}, everywhere else), to see whether the selectors reach the SASS as immediates.

Writes blockscale-sass-<ptxas version>.json next to this file. No GPU is needed.
Usage: python3 campaigns/survey/survey_blockscale_sass.py [--targets sm_120a,sm_100a]
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "generators"))

import ptxspec  # noqa: E402
from ptxspec.oracle.ptxas import find_ptxas  # noqa: E402
from ptxspec.oracle.ptxas import version as ptxas_version  # noqa: E402

# Opcodes that only move the operands in and out (not part of the instruction's lowering).
PLUMBING = re.compile(r"^(LDG|STG|LDC|ULDC|LDCU|IMAD|IADD|MOV|UMOV|EXIT|BRA|NOP|S2R|S2UR|"
                      r"CS2R|LEA|SHF|IADD3|ISETP|ULEA|UIADD3|UIMAD|R2UR|IMAD\.WIDE|LOP3|SEL)\b")
_SASS_LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)([^;]*);")
_FUNC = re.compile(r"Function : (\S+)")


def operands_ptx(v, sel: dict[str, tuple[int, int]]):
    """(declarations, loads, the statement's operand list, stores) with fresh registers."""
    loads, stores, texts = [], [], []
    n = Counter()
    off = 0
    for o in v.operands:
        if o.kind == "scale_selector":
            b, t = sel.get(o.name, tuple(vals[0] for _, vals in o.parts))
            texts.append(f"{{{b}, {t}}}")
            continue
        if o.kind in ("selector", "immediate"):
            texts.append(str(o.values[0] if o.values else 0))
            continue
        names = []
        for _ in range(o.regs):
            p = "f" if o.reg_type == "f32" else "r"
            names.append(f"%{p}{n[p]}")
            n[p] += 1
        for r in names:
            if o.io == "out":
                stores.append(f"  st.global.{o.reg_type} [%rd1+{off}], {r};")
            else:
                loads.append(f"  ld.global.{o.reg_type} {r}, [%rd1+{off}];")
            off += 4
        texts.append("{" + ", ".join(names) + "}" if o.kind == "fragment" else names[0])
    decl = [f"  .reg .f32 %f<{max(n['f'], 1)}>;", f"  .reg .b32 %r<{max(n['r'], 1)}>;", "  .reg .b64 %rd<2>;"]
    return decl, loads, ", ".join(texts), stores


def kernel(name: str, v, sel) -> str:
    decl, loads, ops, stores = operands_ptx(v, sel)
    body = [f".visible .entry {name}(.param .u64 p)", "{", *decl, "  ld.param.u64 %rd0, [p];",
            "  cvta.to.global.u64 %rd1, %rd0;", *loads, f"  {v.ptx} {ops};", *stores, "  ret;", "}", ""]
    return "\n".join(body)


def selector_cases(v):
    """{} (the defaults) and, for block-scaled variants, every legal (byte, thread) of A and of B."""
    cases = [{}]
    for o in v.operands:
        if o.kind == "scale_selector":
            parts = dict(o.parts)
            for b, t in itertools.product(parts["byte_id"], parts["thread_id"]):
                if (b, t) != (parts["byte_id"][0], parts["thread_id"][0]):
                    cases.append({o.name: (b, t)})
    return cases


def sass_by_function(cubin: Path) -> dict[str, list[str]]:
    tool = Path(find_ptxas()).with_name("cuobjdump")
    out = subprocess.run([str(tool), "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    funcs: dict[str, list[str]] = {}
    cur = None
    for line in out.splitlines():
        m = _FUNC.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = _SASS_LINE.search(line)
        if m and cur is not None:
            cur.append((m.group(1) + " " + m.group(2).strip()).strip())
    return funcs


def survey(targets: list[str]) -> dict:
    spec = ptxspec.load()
    kinds = [v for v in spec.variants if v.qualifiers.get("kind")]
    result = {"ptxas": ptxas_version(), "targets": {}, "variants": {}}
    for target in targets:
        jobs = []
        for v in kinds:
            if target not in v.targets:
                continue
            for j, sel in enumerate(selector_cases(v)):
                jobs.append((f"k{len(jobs)}", v, sel))
        ptx = [".version 9.5", f".target {target}", ".address_size 64", ""]
        ptx += [kernel(name, v, sel) for name, v, sel in jobs]
        with tempfile.TemporaryDirectory(prefix="ptxspec-sass-") as tmp:
            src, cubin = Path(tmp, "m.ptx"), Path(tmp, "m.cubin")
            src.write_text("\n".join(ptx))
            proc = subprocess.run([find_ptxas(), "-arch", target, str(src), "-o", str(cubin)],
                                  capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(f"ptxas failed on {target}:\n{proc.stderr[:4000]}")
            funcs = sass_by_function(cubin)
        result["targets"][target] = len(jobs)
        for name, v, sel in jobs:
            ops = [x for x in funcs[name] if not PLUMBING.match(x.split()[0])]
            rec = result["variants"].setdefault(v.id, {})
            if not sel:
                rec[target] = ops
            else:  # every selector value: the distinct SASS texts seen (the defaults' included)
                forms = rec.setdefault(f"{target} selectors", [" ; ".join(rec[target])])
                if " ; ".join(ops) not in forms:
                    forms.append(" ; ".join(ops))
    return result


def summarize(result: dict) -> dict:
    """lowering per variant and target: 'native OPCODE' when one instruction remains, else 'emulated'."""
    summary = Counter()
    for vid, rec in result["variants"].items():
        for key, ops in rec.items():
            if " " in key:  # the selector forms
                continue
            stems = sorted({re.sub(r"\.(F32|F16|E\w+|UE\w+|\dX)\b.*", "", op.split()[0]) for op in ops})
            kind = (f"native {stems[0]}" if len(ops) == 1 else
                    f"emulated: {len(ops)} instructions ({', '.join(stems)})")
            summary[(key, kind)] += 1
    return {f"{t}: {k}": c for (t, k), c in sorted(summary.items())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="sm_120a,sm_121a,sm_100a,sm_103a,sm_107a,sm_110a")
    args = ap.parse_args()
    result = survey(args.targets.split(","))
    result["summary"] = summarize(result)
    out = HERE / f"blockscale-sass-{result['ptxas']}.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(json.dumps(result["summary"], indent=1))
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
