"""LLVM's NVPTX back end: the PTX strings of its selection patterns (`NVPTXIntrinsics.td`) for the
spec's instructions, with their predicates (`hasPTX<86>`, `hasSM<100>`, `hasSM90a`, ...), and the
intrinsics of these families declared in `IntrinsicsNVVM.td`.

This reads the part of TableGen the literal patterns are written in: `def`/`defm` records whose
asm string is string literals joined by `#` or `!strconcat`, inside `let Predicates = [...] in {}`
blocks or with `Requires<[...]>`. Records whose string is computed (a `foreach` variable, a class
field, `!if`) are counted, not evaluated: LLVM builds most wmma/mma records that way, and the
report says how many it skipped. Operands are `$name`s whose width the pattern's register class
gives; they fit any register width here.
"""
from __future__ import annotations

import re
from pathlib import Path

from ptxspec.model.isa import Version
from ptxspec.audit.findings import AuditError, Binding, Guard
from ptxspec.audit.peer_asm import Lines, parse, unescape

PATTERNS = "llvm/lib/Target/NVPTX/NVPTXIntrinsics.td"
INTRINSICS = "llvm/include/llvm/IR/IntrinsicsNVVM.td"
_RECORD = re.compile(r"^[ \t]*(def|defm)\b", re.M)
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_LET = re.compile(r"let\s+Predicates\s*=\s*\[([^\]]*)\]\s*in\s*\{")
_REQUIRES = re.compile(r"Requires<\s*\[([^\]]*)\]\s*>")
_INTRINSIC = re.compile(r"\bdef\s+(int_nvvm_(?:wgmma|wmma|mma|tcgen05|ldmatrix|stmatrix|movmatrix)\w*)")


def find(path: Path, rel: str) -> Path | None:
    for cand in (path / rel, path / Path(rel).name):
        if cand.is_file():
            return cand
    return None


def predicates(spec, text: str) -> tuple[frozenset[str] | None, Version | None, list[str]]:
    """(targets, first PTX version, predicates not understood) of a predicate list."""
    targets: frozenset[str] | None = None
    ptx, unknown = None, []
    for p in (x.strip() for x in text.split(",") if x.strip()):
        m = re.fullmatch(r"hasPTX<(\d+)>", p)
        if m:
            n = int(m.group(1))
            ptx = Version(n // 10, n % 10)
            continue
        m = re.fullmatch(r"(?:hasSM<(\d+)>|SM(\d+)|hasSM(\d+)([af]))", p)
        if m:
            arch = int(m.group(1) or m.group(2) or m.group(3))
            suffix = m.group(4) or ""
            if suffix:  # hasSM90a: that target alone
                names = {n for n, t in spec.targets.items() if t.arch == arch and t.suffix == suffix}
            else:  # hasSM<90>, SM90: sm_90 and every later target
                names = {n for n, t in spec.targets.items() if t.arch >= arch}
            targets = frozenset(names) if targets is None else targets & frozenset(names)
            continue
        unknown.append(p)
    return targets, ptx, unknown


def _statement(text: str, start: int) -> str:
    """A record from `def` to its `;` (or to the end of its `{...}` body) at depth 0."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            i = n if j < 0 else j
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
            if depth == 0 and c == "}":
                return text[start:i + 1]
        elif c == ";" and depth <= 0:
            return text[start:i + 1]
        i += 1
    return text[start:]


def _asm(record: str) -> str | None:
    """The record's asm string when it is literals joined by # or !strconcat, else None."""
    for m in re.finditer(r'(?:!strconcat\(\s*)?"(?:[^"\\\n]|\\.)*"(?:\s*(?:#|,)\s*"(?:[^"\\\n]|\\.)*")*', record):
        s = m.group(0)
        after = record[m.end():m.end() + 3].lstrip()
        if after.startswith("#") or (s.startswith("!strconcat") and not after.startswith(")")):
            return None  # joined with something computed
        text = "".join(unescape(x) for x in _STRING.findall(s))
        if re.match(r"\s*[a-z][\w.:]*", text):
            return text.replace("{{", "{").replace("}}", "}")
    return None


def read(spec, path: str, scope) -> tuple[str, str, list[Binding], list[str]]:
    root = Path(path)
    if not root.exists():
        raise AuditError(f"{root}: no such file or directory")
    pat = find(root, PATTERNS)
    if pat is None:
        raise AuditError(f"{root}: no {PATTERNS} (nor NVPTXIntrinsics.td) under it")
    try:
        text = pat.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{pat}: cannot read: {exc}") from None
    rel = PATTERNS if (root / PATTERNS).is_file() else pat.name
    lines = Lines(text)
    lets = [(m.start(), _statement(text, m.start()), m.group(1)) for m in _LET.finditer(text)]
    bindings, skipped, unknown_preds = [], 0, set()
    for m in _RECORD.finditer(text):
        record = _statement(text, m.start())
        if not any(scope(w) for w in re.findall(r'"\s*([a-z][\w.:]*)', record)):
            continue
        asm = _asm(record)
        stmts = parse(asm, (), scope) if asm else []
        if not stmts:
            skipped += 1
            continue
        preds = ",".join([p for start, body, p in lets if start < m.start() < start + len(body)] +
                         _REQUIRES.findall(record))
        targets, ptx, unknown = predicates(spec, preds)
        unknown_preds.update(unknown)
        source = f"Requires<[{', '.join(x.strip() for x in preds.split(',') if x.strip())}]>" if preds else "none"
        guard = Guard(None if unknown and targets is None else targets, ptx, source)
        name = re.match(r"\s*defm?\s+(\w*)", record)
        for st in stmts:
            bindings.append(Binding("llvm", rel, lines(m.start()), st.opcode, st.operands, guard,
                                    name.group(1) if name else ""))
    notes = []
    if skipped:
        notes.append(f"{rel}: {skipped} records of these instructions build their asm string in TableGen "
                     "(foreach, class fields, !if): not evaluated")
    if unknown_preds:
        notes.append(f"{rel}: predicates whose targets live in C++ (not compared): {', '.join(sorted(unknown_preds))}")
    intr = find(root, INTRINSICS)
    if intr is not None:
        names = _INTRINSIC.findall(intr.read_text(encoding="utf-8", errors="replace"))
        notes.append(f"{INTRINSICS}: {len(names)} literal intrinsic records of these families; intrinsics are "
                     "matched through the patterns above, not by name")
    if not bindings:
        raise AuditError(f"{pat}: no selection pattern of the spec's instructions with a literal PTX string")
    return str(root), "", bindings, notes
