"""CuTe (CUTLASS): the asm of its MMA and copy atoms with the targets each is enabled on, its traits'
thread-value layouts and its descriptor bit fields.

Atoms live in `cute/arch/*.hpp` (`mma_sm80.hpp`, `mma_sm90_gmma*.hpp`, UMMA in
`mma_sm100_umma.hpp`, ldmatrix/stmatrix in `copy_sm75.hpp`/`copy_sm90.hpp`, tensor-memory loads and
stores in `copy_sm100.hpp`); each asm sits under `#if defined(CUTE_ARCH_..._ENABLED)`, which
`cute/arch/config.hpp` derives from CUTLASS's `cutlass/arch/config.h` and nvcc's predefined macros:
the targets an atom is enabled on are those whose preprocessing keeps it (`cpp`). CuTe states no PTX
version (nvcc emits its own). Layouts (`cute/atom/mma_traits_sm*.hpp`) are compared by `layouts`,
descriptors (`mma_sm90_desc.hpp`, `mma_sm100_desc.hpp`) by `descfields`.
"""
from __future__ import annotations

import bisect
import importlib.metadata
import re
from pathlib import Path

from ptxspec.audit import copylayouts, cpp, descfields, layouts
from ptxspec.audit.findings import AuditError, Binding, Finding, Guard
from ptxspec.audit.peer_asm import Lines, asm_blocks, parse

DIST = "nvidia-cutlass"
CONFIG = ("cutlass/detail/helper_macros.hpp", "cutlass/arch/config.h", "cute/arch/config.hpp")
_STRUCT = re.compile(r"struct\s+(\w+)")  # (a word boundary before it is checked by hand: faster)


def default_root() -> tuple[Path, str]:
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        raise AuditError(f"{DIST} is not installed: pip install '{DIST}' (or pip install -e '.[peers]'), "
                         "or give a CUTLASS checkout as PATH") from None
    for f in dist.files or ():
        if str(f).endswith("include/cute/arch/config.hpp"):
            return Path(str(dist.locate_file(f))).parents[2], dist.version
    raise AuditError(f"{DIST} {dist.version} has no include/cute headers")


def find_root(path: Path) -> Path:
    """The include directory (holding cute/ and cutlass/) of a checkout or wheel."""
    if not path.exists():
        raise AuditError(f"{path}: no such file or directory")
    for cand in (path, path / "include", path / "cutlass_library" / "source" / "include"):
        if (cand / "cute" / "arch").is_dir():
            return cand
    raise AuditError(f"{path}: no include/cute/arch directory of CuTe under it")


def _read(root: Path, rel: str) -> str:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{rel}: cannot read: {exc}") from None


def target_macros(spec, root: Path) -> list[tuple[frozenset[str], cpp.Macros]]:
    """The macros after CuTe's configuration headers, per group of targets that get the same."""
    texts = [(rel, _read(root, rel)) for rel in CONFIG if (root / rel).is_file()]
    groups: dict[tuple, tuple[set[str], cpp.Macros]] = {}
    for name, t in spec.targets.items():
        m = cpp.Macros(cpp.predefined(t))
        for rel, text in texts:
            cpp.run(text, m, (), rel)
        key = tuple(sorted((k, str(v)) for k, v in m.defs.items()))  # nvcc's own macros too: atoms test them
        groups.setdefault(key, (set(), m))[0].add(name)
    return [(frozenset(names), m) for names, m in groups.values()]


def read_atoms(spec, root: Path, scope, groups) -> list[Binding]:
    out = []
    for path in sorted((root / "cute" / "arch").glob("*.hpp")):
        rel = path.relative_to(root).as_posix()
        text = _read(root, rel)
        blocks = [(b, parse(b.template, b.constraints, scope)) for b in asm_blocks(text)]
        blocks = [(b, st) for b, st in blocks if st]
        if not blocks:
            continue
        offsets = [b.offset for b, _ in blocks]
        enabled: list[set[str]] = [set() for _ in blocks]
        directives = cpp.scan(text)
        for names, macros in groups:
            for i, kept in enumerate(cpp.run(text, macros.copy(), offsets, rel, directives)):
                if kept:
                    enabled[i] |= names
        structs = [(m.start(), m.group(1)) for m in _STRUCT.finditer(text)
                   if not m.start() or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")]
        line_of = Lines(text)
        ifs = [(start, f"{'defined(' + rest.strip() + ')' if word == 'ifdef' else ' '.join(rest.split())}")
               for start, word, rest in directives if word in ("if", "ifdef", "elif")]
        for (blk, stmts), targets in zip(blocks, enabled):
            name = _last_before(structs, blk.offset)  # the struct and the #if nearest above the asm
            cond = _last_before(ifs, blk.offset)
            guard = Guard(frozenset(targets), None, f"#if {cond}" if cond else "no preprocessor condition",
                          only_ptx=max(spec.ptx_versions))  # CuTe states no PTX version: nvcc 13.5 emits the newest
            line = line_of(blk.offset)
            out += [Binding("cutlass", rel, line, st.opcode, st.operands, guard, name, text=st.text) for st in stmts]
    return out


def _last_before(marks: list[tuple[int, str]], offset: int) -> str:
    i = bisect.bisect_left(marks, (offset, ""))
    return marks[i - 1][1] if i else ""


def read(spec, path: str | None, scope, matcher) -> tuple[str, str, list[Binding], list[Finding], int, list[str]]:
    """(root shown, version, bindings, layout and descriptor findings, layouts checked, unchecked)."""
    if path:
        root, version = find_root(Path(path)), ""
    else:
        root, version = default_root()
    groups = target_macros(spec, root)
    bindings = read_atoms(spec, root, scope, groups)
    if not bindings:
        raise AuditError(f"{root}: no inline-asm statement of the spec's instructions in cute/arch")
    findings, checked, unchecked = layouts.check(spec, root, bindings, matcher)
    f1, c1, u1 = copylayouts.check(spec, root, bindings, matcher)
    f2, c2, u2 = descfields.check(spec, root)
    findings, checked = findings + f1, checked + c1
    unchecked = unchecked + u1 + u2 + [
        "CuTe states no PTX ISA version: nvcc emits its own, so only targets are compared",
        f"targets are the preprocessing of {', '.join(CONFIG)} with nvcc {cpp.NVCC_VERSION[0]}.{cpp.NVCC_VERSION[1]}'s "
        "predefined macros for each target (not nvcc itself)"]
    return str(root), version, bindings, findings + f2, checked + c2, unchecked
