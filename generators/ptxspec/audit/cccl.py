"""CCCL's `cuda::ptx` headers: every inline-asm statement of the spec's instructions, with the
PTX-version guard around it and the targets the header states for it.

Each wrapper sits inside `#if __cccl_ptx_isa >= NNN` (the PTX ISA version the compiler emits) and
under a comment that documents it (`// tcgen05.mma.cta_group.kind [...]; // PTX ISA 86, SM_100a,
SM_100f, ...`). Headers of some CCCL versions also check the target in the preprocessor
(`NV_IF_TARGET(NV_PROVIDES_SM_90, ...)`, `NV_HAS_FEATURE_SM_90a`); where a wrapper has such
checks they are its targets, otherwise the documented `SM_...` list is: `SM_90` means sm_90 and
every later target, `SM_90a` / `SM_100f` that target alone.
"""
from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from ptxspec.model.isa import Version
from ptxspec.audit.findings import AuditError, Binding, Guard
from ptxspec.audit.peer_asm import asm_blocks, line_of, parse

DIST = "nvidia-cuda-cccl"
_PTX_IF = re.compile(r"^[ \t]*#[ \t]*if[ \t]+__cccl_ptx_isa[ \t]*>=[ \t]*(\S+)[ \t]*$", re.M)
_ENDIF = re.compile(r"^[ \t]*#[ \t]*endif\b.*$", re.M)
_DOC = re.compile(r"/\*(.*?)\*/", re.S)
_SM = re.compile(r"\bSM_(\d+)([af]?)\b")
_PREPROC_SM = re.compile(r"\bNV_(PROVIDES|HAS_FEATURE)_SM_(\d+)([af]?)\b|_is_not_supported_before_SM_(\d+)([af]?)__")


def default_root() -> tuple[Path, str]:
    """The `cuda/__ptx` directory of the installed nvidia-cuda-cccl wheel, and its version."""
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        raise AuditError(f"{DIST} is not installed: pip install '{DIST}' (or pip install -e '.[peers]'), "
                         "or give a CCCL checkout as PATH") from None
    for f in dist.files or ():
        parts = Path(str(f)).parts
        if parts[-3:-1] == ("cuda", "__ptx") or (len(parts) > 2 and parts[-2:] == ("__ptx", "ptx_dot_variants.h")):
            return Path(str(dist.locate_file(f))).parent, dist.version
    raise AuditError(f"{DIST} {dist.version} has no cuda/__ptx headers")


def find_root(path: Path) -> Path:
    """The cuda/__ptx directory of a checkout or include directory."""
    if not path.exists():
        raise AuditError(f"{path}: no such file or directory")
    for cand in (path, path / "cuda" / "__ptx", path / "include" / "cccl" / "cuda" / "__ptx",
                 path / "libcudacxx" / "include" / "cuda" / "__ptx"):
        if cand.is_dir() and cand.name == "__ptx":
            return cand
    found = sorted(p for p in path.rglob("__ptx") if p.is_dir() and p.parent.name == "cuda")
    if not found:
        raise AuditError(f"{path}: no cuda/__ptx directory of CCCL's headers under it")
    return found[0]


def target_set(spec, tokens) -> tuple[frozenset[str], list[str]]:
    """Target names of `SM_90` (sm_90 and later), `SM_90a` (that target), ...; unknown ones apart."""
    out, unknown = set(), []
    for arch, suffix in tokens:
        name = f"sm_{arch}{suffix}"
        if name not in spec.targets:
            unknown.append(name)
        elif suffix:
            out.add(name)
        else:
            out.update(n for n, t in spec.targets.items() if t.arch >= int(arch))
    return frozenset(out), unknown


def _regions(text: str, rel: str) -> list[tuple[int, int, Version, int]]:
    """(start, end, version, line) of each `#if __cccl_ptx_isa >= NNN` block."""
    out = []
    for m in _PTX_IF.finditer(text):
        raw = m.group(1)
        if not raw.isdigit() or len(raw) != 3:
            raise AuditError(f"{rel}:{line_of(text, m.start())}: cannot read the PTX guard "
                             f"`__cccl_ptx_isa >= {raw}` (three digits expected, e.g. 860)")
        end = _ENDIF.search(text, m.end())
        n = int(raw)
        out.append((m.start(), end.start() if end else len(text), Version(n // 100, n % 100 // 10),
                    line_of(text, m.start())))
    return out


def _doc_targets(doc: str) -> list[tuple[str, str]]:
    """The SM_... tokens of a wrapper's comment: after `PTX ISA NN`, up to its first `// .axis` or
    C++ line (the list may wrap onto lines of its own)."""
    i = doc.find("PTX ISA")
    if i < 0:
        return []
    tail = doc[i:]
    stop = re.search(r"\n\s*(//\s*\.|template|__device__|_CCCL)", tail)
    return _SM.findall(tail[:stop.start()] if stop else tail)


def read_file(spec, path: Path, rel: str, roots, unchecked: list[str]) -> list[Binding]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{rel}: cannot read: {exc}") from None
    blocks = asm_blocks(text)
    if not any(st for b in blocks for st in parse(b.template, b.constraints, roots)):
        return []
    regions = _regions(text, rel)
    docs = [(m.end(), m.group(1)) for m in _DOC.finditer(text)]
    out = []
    for blk in blocks:
        stmts = parse(blk.template, blk.constraints, roots)
        if not stmts:
            continue
        region = next((r for r in reversed(regions) if r[0] <= blk.offset < r[1]), None)
        start = region[0] if region else blk.offset
        doc = next((d for end, d in reversed(docs) if end <= start), "")
        body = text[start:blk.offset]
        pre = [(m.group(2) or m.group(4), m.group(3) or m.group(5) or "") for m in _PREPROC_SM.finditer(body)]
        if pre:
            targets, unknown = target_set(spec, pre)
            source = "preprocessor " + ", ".join(f"SM_{a}{s}" for a, s in pre)
        else:
            tokens = _doc_targets(doc)
            targets, unknown = target_set(spec, tokens) if tokens else (None, [])
            source = ("documented " + ", ".join(f"SM_{a}{s}" for a, s in tokens)) if tokens else "no targets stated"
        for u in unknown:
            note = f"{rel}: the stated target {u} is no target of the spec's ISA (not compared)"
            if note not in unchecked:
                unchecked.append(note)
        guard = Guard(targets, region[2] if region else None,
                      (f"#if __cccl_ptx_isa >= {region[2].major}{region[2].minor}0" if region else "no PTX guard")
                      + f"; {source}")
        line = line_of(text, blk.offset)
        for st in stmts:
            out.append(Binding("cccl", rel, line, st.opcode, st.operands, guard, _function(text, blk.offset)))
    return out


def _function(text: str, offset: int) -> str:
    m = None
    for m in re.finditer(r"_CCCL_DEVICE_API\s+(?:static\s+)?(?:inline\s+)?[\w:<>, ]*?\b(\w+)\s*\(",
                         text[max(0, offset - 4000):offset]):
        pass
    return m.group(1) if m else ""


def read(spec, path: str | None, roots) -> tuple[str, str, list[Binding], list[str]]:
    """(root shown, version, bindings, unchecked notes) of CCCL's headers at `path` (a checkout or
    include directory) or of the installed wheel."""
    if path:
        root, version = find_root(Path(path)), ""
    else:
        root, version = default_root()
    unchecked: list[str] = []
    bindings = []
    for f in sorted(root.rglob("*.h")):
        bindings += read_file(spec, f, f.relative_to(root).as_posix(), roots, unchecked)
    if not bindings:
        raise AuditError(f"{root}: no inline-asm statement of the spec's instructions in CCCL's headers")
    unchecked.append("CCCL states targets in comments, not in code: a wrapper compiles for every target, and "
                     "only ptxas (or the documented list compared here) says where it is valid")
    return str(root), version, bindings, unchecked
