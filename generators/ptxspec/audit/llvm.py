"""LLVM's NVPTX back end: every instruction record of `NVPTXIntrinsics.td` for the spec's
instructions, evaluated as TableGen builds it (`tablegen`, `tgeval`), with its PTX string and its
predicates (PTX version, SM architecture).

`IntrinsicsNVVM.td` is read first (its classes and lists drive the MMA records: the fragments,
`NVVM_MMA_OPS`, the `*_SUPPORTED` filters). The instruction classes of `NVPTXInstrInfo.td` are not
read: their rule for the asm string is applied here (`NVPTXInst` takes it as written;
`BasicNVPTXInst`/`BasicFlagsNVPTXInst` append a tab, the outputs joined by `|`, the inputs, `ADDR`
inputs in brackets, and `;`). Operands print as registers of their register class (`B1` a
predicate, `B16`/`B32`/`B64` registers of that width, `ADDR` a 64-bit address), immediates
(`i32imm`, `i64imm`, ...) as a constant; `${ptx:aligned}` prints `.aligned`, which LLVM emits from
PTX 6.3 on (below it, its wmma/mma spellings lack `.aligned`, and those versions are not compared).

Predicates: `hasPTX<N>` (PTX N/10 and later), `hasSM<N>` (sm_N and every later architecture), and
the architecture records of `NVPTX.td`'s lattice: `SM<N>` (sm_N and every later architecture),
`SM<N>f` (later members of its family with an `f` or `a` suffix), `SM<N>a` (that target alone),
`hasSM<N>a`. Predicates decided in C++ (`callSubtarget<"...">`, `hasClusters`, ...) are not
evaluated: a guard holding one is compared only for what its known part forbids.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from ptxspec.model.isa import Version
from ptxspec.audit import tablegen, tgeval
from ptxspec.audit.findings import AuditError, Binding, Guard
from ptxspec.audit.peer_asm import parse
from ptxspec.audit.tgeval import Computed, Dag, EvalError, Evaluator, Lazy, Rec, to_str

PATTERNS = "llvm/lib/Target/NVPTX/NVPTXIntrinsics.td"
INTRINSICS = "llvm/include/llvm/IR/IntrinsicsNVVM.td"
_PREFIX = {"B1": "p", "B16": "h", "B32": "r", "B64": "rd", "ADDR": "rd"}
_PLACEHOLDER = re.compile(r"\$\{(\w+)(?::(\w+))?\}|\$(\w+)")
_FAMILY_NAME = re.compile(r"(?i)wmma|(?:^|_)mma|matrix|wgmma|tcgen05|fence_proxy")
_OPCODE = re.compile(r"[A-Za-z][\w.:]*")
_INTRINSIC = re.compile(r"int_nvvm_(wgmma|wmma|mma|tcgen05|ldmatrix|stmatrix|movmatrix)")
ALIGNED_FROM = Version(6, 3)


def _arg(ev: Evaluator, x) -> Any:
    return ev.force(x) if isinstance(x, Lazy) else x


def _nvptx_inst(ev, rec, args, named) -> None:
    for field, val in zip(("OutOperandList", "InOperandList", "AsmString", "Pattern"), args):
        rec.fields[field] = val


def _basic_asm(ev, asm, outs, ins) -> str:
    asm, outs, ins = _arg(ev, asm), _arg(ev, outs), _arg(ev, ins)
    if not outs.args and not ins.args:
        return f"{asm};"
    out = "|".join(f"${n}" for _, n in outs.args)
    inp = ", ".join(f"[${n}]" if to_str(v) == "ADDR" else f"${n}" for v, n in ins.args)
    return f"{asm} \t{out}{', ' if out and inp else ''}{inp};"


def _basic_flags(ev, rec, args, named, flags: bool = True) -> None:
    outs, ins = args[0], args[1]
    fl = args[2] if flags else Dag(tgeval.Sym("ins"), ())
    asm = args[3 if flags else 2]
    rec.fields["OutOperandList"] = outs
    rec.fields["InOperandList"] = Computed(lambda: Dag(_arg(ev, ins).op, _arg(ev, ins).args + _arg(ev, fl).args))
    rec.fields["AsmString"] = Computed(lambda: _basic_asm(ev, asm, outs, ins))


def _basic(ev, rec, args, named) -> None:
    _basic_flags(ev, rec, args, named, flags=False)


def _requires(ev, rec, args, named) -> None:
    rec.fields["Predicates"] = args[0]


NATIVE = {"NVPTXInst": _nvptx_inst, "BasicNVPTXInst": _basic, "BasicFlagsNVPTXInst": _basic_flags,
          "Requires": _requires}


def find(path: Path, rel: str) -> Path | None:
    for cand in (path / rel, path / Path(rel).name):
        if cand.is_file():
            return cand
    return None


def _targets(spec, name: str) -> frozenset[str] | None:
    """The spec's targets an architecture predicate holds on, None when it is no such predicate."""
    m = re.fullmatch(r"(?:has)?SM(\d+)([af]?)", name)
    if not m:
        return None
    arch, suffix = int(m.group(1)), m.group(2)
    out = set()
    for n, t in spec.targets.items():
        if suffix == "a":
            ok = t.arch == arch and t.suffix == "a"
        elif suffix == "f":
            ok = t.arch // 10 == arch // 10 and t.arch >= arch and t.suffix in ("f", "a")
        else:
            ok = t.arch >= arch
        if ok:
            out.add(n)
    return frozenset(out)


def pred_text(ev: Evaluator, p) -> str:
    """A predicate as the file writes it: `SM90a`, `hasPTX<86>`, `callSubtarget<"m">`."""
    if isinstance(p, Rec) and p.name.startswith("anonymous_") and p.classes:
        cls = p.classes[-1]
        args = ", ".join(f'"{a}"' if isinstance(a, str) else to_str(a)
                         for a in (_arg(ev, x) for x in p.targs.get(cls, ())))
        return f"{cls}<{args}>"
    return to_str(p)


def predicates(spec, ev: Evaluator, preds) -> tuple[frozenset[str] | None, Version | None, list[str]]:
    """(targets, first PTX version, predicates decided in C++) of an evaluated predicate list."""
    targets: frozenset[str] | None = None
    ptx, unknown = None, []
    for p in preds:
        targs = p.targs if isinstance(p, Rec) else {}
        if "hasPTX" in targs:
            n = int(_arg(ev, targs["hasPTX"][0]))
            ptx = max(ptx, Version(n // 10, n % 10)) if ptx else Version(n // 10, n % 10)
            continue
        names = _targets(spec, f"SM{int(_arg(ev, targs['hasSM'][0]))}") if "hasSM" in targs else \
            None if "callSubtarget" in targs else _targets(spec, to_str(p))
        if names is None:
            unknown.append(pred_text(ev, p))
        else:
            targets = names if targets is None else targets & names
    return targets, ptx, unknown


def render(ev: Evaluator, asm: str, outs: Dag, ins: Dag) -> tuple[str, bool]:
    """The record's PTX statement with registers of its operands' classes; whether it printed
    `${ptx:aligned}`."""
    kinds = {n: to_str(v) for v, n in outs.args + ins.args if n}
    counts: Counter = Counter()
    aligned = False

    def sub(m) -> str:
        nonlocal aligned
        name, mod = m.group(1) or m.group(3), m.group(2)
        kind = kinds.get(name, "")
        if kind == "MmaCode":
            aligned = aligned or mod == "aligned"
            return ".aligned" if mod == "aligned" else ""
        if kind in _PREFIX:
            p = _PREFIX[kind]
            counts[p] += 1
            return f"%{p}{counts[p]}"
        if kind.endswith("imm") or kind.startswith("i") and kind[1:].isdigit():
            return "1"
        counts["x"] += 1
        return f"%x{counts['x']}"  # a register of a class this reader does not know: any width

    text = _PLACEHOLDER.sub(sub, asm)
    text = text.replace("{{", "{").replace("}}", "}").replace("\\{", "{").replace("\\}", "}")
    return " ".join(text.split()), aligned


def evaluate(root: Path) -> tuple[Evaluator, str, Path]:
    pat = find(root, PATTERNS)
    if pat is None:
        raise AuditError(f"{root}: no {PATTERNS} (nor NVPTXIntrinsics.td) under it")
    rel = PATTERNS if (root / PATTERNS).is_file() else pat.name
    ev = Evaluator(NATIVE)
    intr = find(root, INTRINSICS)
    files = ([(intr, INTRINSICS if (root / INTRINSICS).is_file() else intr.name)] if intr else []) + [(pat, rel)]
    for path, name in files:
        try:
            text = path.read_text(encoding="utf-8")
            ev.run(tablegen.parse(text, name), name)
        except (OSError, UnicodeDecodeError) as exc:
            raise AuditError(f"{name}: cannot read: {exc}") from None
        except tablegen.TableGenError as exc:
            raise AuditError(str(exc)) from None
    return ev, rel, pat


def read(spec, path: str, scope) -> tuple[str, str, list[Binding], list[str]]:
    root = Path(path)
    if not root.exists():
        raise AuditError(f"{root}: no such file or directory")
    ev, rel, _ = evaluate(root)
    bindings, failed, unknown_preds = [], Counter(), Counter()
    instructions = 0
    for rec in ev.records:
        if rec.file != rel or "AsmString" not in rec.fields:
            continue
        instructions += 1
        try:
            asm = ev.field(rec, "AsmString")
            first = _OPCODE.search(asm)
            if first is None or not scope(first.group(0)):
                continue
            text, aligned = render(ev, asm, ev.field(rec, "OutOperandList"), ev.field(rec, "InOperandList"))
            preds = ev.field(rec, "Predicates") if "Predicates" in rec.fields else ()
            targets, ptx, unknown = predicates(spec, ev, preds)
        except (EvalError, RecursionError, TypeError, AttributeError) as exc:
            if _FAMILY_NAME.search(rec.name + " " + " ".join(rec.classes)):
                failed[f"{rec.name}: {exc}"] += 1
            continue
        unknown_preds.update(set(unknown))  # a record counts once per predicate
        names = ", ".join(dict.fromkeys(pred_text(ev, p) for p in preds))
        guard = Guard(targets, ptx, f"Predicates = [{names}]" if names else "no predicates",
                      compare_from=ALIGNED_FROM if aligned else None, upper_only=bool(unknown))
        for st in parse(text, (), scope):
            bindings.append(Binding("llvm", rel, rec.line, st.opcode, st.operands, guard, rec.name))
    if not bindings:
        raise AuditError(f"{rel}: no instruction record of the spec's instructions")
    return str(root), "", bindings, _notes(ev, rel, instructions, failed, unknown_preds)


def _notes(ev: Evaluator, rel: str, instructions: int, failed: Counter, unknown: Counter) -> list[str]:
    notes = [f"{rel}: {instructions} instruction records evaluated as TableGen builds them; the asm-string "
             "rule of NVPTXInstrInfo.td's instruction classes is applied by the reader, not read"]
    if failed:
        notes.append(f"{rel}: {sum(failed.values())} records of these families could not be evaluated: "
                     + "; ".join(sorted(failed)[:5]))
    stmts = [f for f in ev.failures if f[0] == rel]
    if stmts:
        named = sum(1 for _, _, why in stmts if _FAMILY_NAME.search(why))
        notes.append(f"{rel}: {len(stmts)} statements not evaluated ({named} of them mention these families): "
                     + "; ".join(f"line {line}: {why}" for _, line, why in stmts[:3]))
    if unknown:
        notes.append(f"{rel}: predicates decided in C++, not evaluated (a guard holding one is compared only "
                     f"for what it forbids): " + ", ".join(f"{p} ({n} records)" for p, n in sorted(unknown.items())))
    notes.append(f"{rel}: below PTX 6.3 LLVM prints wmma spellings without .aligned; those versions are "
                 "not compared")
    intrinsics = sum(1 for r in ev.records if _INTRINSIC.match(r.name))
    if intrinsics:
        notes.append(f"{INTRINSICS}: {intrinsics} intrinsics of these families; they are matched through the "
                     "instruction records above, not by name")
    return notes
