"""CuTe's traits structs as its headers write them: `struct MMA_Traits<OP> : MMA_Traits<BASE> {...}`
and `struct Copy_Traits<OP> {...}`, each with its `using NAME = TYPE;` members.

A member is looked up as C++ finds it: in the struct, then in its base; a member written as
another traits' member (`typename Copy_Traits<SM75_U32x4_LDSM_N>::DstLayout`, or through an alias
of the struct, `using UnderlyingTraits = MMA_Traits<...>; using ALayout = typename
UnderlyingTraits::ALayout;`) is that one's text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ptxspec.audit.layout_algebra import Types
from ptxspec.audit.peer_asm import Lines

_STRUCT = {kind: re.compile(rf"struct\s+{kind}\s*<\s*([\w:]+)\s*(?:<[^{{;]*?>)?\s*>\s*"
                            rf"(?::\s*{kind}\s*<\s*([\w:]+))?") for kind in ("MMA_Traits", "Copy_Traits")}
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_USING = re.compile(r"using\s+(\w+)\s*=\s*([^;]+);")
_REF = re.compile(r"(?:typename\s+)?(.+?)::(\w+)")
_TRAITS_OF = re.compile(r"(?:MMA|Copy)_Traits\s*<\s*([\w:]+)")


@dataclass
class Traits:
    name: str
    file: str
    line: int
    base: str  # the traits it derives from ('' when none)
    members: dict[str, str]


def _body(text: str, start: int) -> str:
    """A traits struct's body: from its brace to the first `};` (traits hold no nested braces)."""
    i = text.find("{", start)
    j = text.find("};", i)
    return _COMMENT.sub(" ", text[i:j + 2 if j >= 0 else len(text)])


def read(root: Path, kind: str, files: list[Path], types: Types) -> dict[str, Traits]:
    """The `kind` traits of `files`, by the last name of their op; every file's aliases into `types`."""
    out: dict[str, Traits] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        types.add_file(text)
        rel = path.relative_to(root).as_posix()
        line_of = Lines(text)
        for m in _STRUCT[kind].finditer(text):
            members = {k: " ".join(v.split()) for k, v in _USING.findall(_body(text, m.end()))}
            name = m.group(1).split("::")[-1]
            base = (m.group(2) or "").split("::")[-1]
            out.setdefault(name, Traits(name, rel, line_of(m.start()), base, members))
    return out


def member(traits: dict[str, Traits], name: str, key: str, depth: int = 0) -> str | None:
    """The text of member `key` of traits `name` (from its base, or the traits it names)."""
    t = traits.get(name)
    if t is None or depth > 8:
        return None
    text = t.members.get(key)
    if text is None:
        return member(traits, t.base, key, depth + 1) if t.base else None
    ref = _REF.fullmatch(text)
    if ref and (ref.group(1) in t.members or _TRAITS_OF.match(ref.group(1))):
        target = _TRAITS_OF.match(t.members.get(ref.group(1), ref.group(1)).replace("typename ", ""))
        if target:
            return member(traits, target.group(1).split("::")[-1], ref.group(2), depth + 1)
    return text


def atom(types: Types, name: str, structs) -> str:
    """The arch struct an op name (or its alias) stands for."""
    seen = 0
    while name not in structs and name in types.heads and seen < 5:
        name = types.heads[name]
        seen += 1
    return name
