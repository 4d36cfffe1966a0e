"""Problems found in a spec tree, each tied to a file position.

Every check in the loader, the schema pass and the model reports through `SpecError`, so the
CLI can print one `path:line:col: error: message` line per problem and never a traceback.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Pos:
    """A position in a spec file; line and col are 1-based like compilers print them."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{_display(self.path)}:{self.line}:{self.col}"


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else rel


@dataclass(frozen=True)
class Problem:
    pos: Pos
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: error: {self.message}"


class SpecError(Exception):
    """One or more problems in a spec tree."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems), key=lambda p: (p.pos, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))


class Problems:
    """Collects problems; `raise_if_any` turns them into one SpecError.

    Problems given the same `cause` at the same position (one duplicated group defining hundreds
    of variants twice, say) are reported once, with a count of the others."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        self._repeats: dict[tuple, list] = {}  # (pos, cause) -> [index in items, further count]

    def add(self, pos: Pos, message: str, cause=None) -> None:
        if cause is not None:
            seen = self._repeats.get((pos, cause))
            if seen is not None:
                seen[1] += 1
                return
            self._repeats[(pos, cause)] = [len(self.items), 0]
        self.items.append(Problem(pos, " ".join(message.split())))

    def extend(self, other: "Problems | list[Problem]") -> None:
        self.items.extend(other.finished() if isinstance(other, Problems) else other)

    def __bool__(self) -> bool:
        return bool(self.items)

    def finished(self) -> list[Problem]:
        out = list(self.items)
        for index, more in self._repeats.values():
            if more:
                p = out[index]
                out[index] = Problem(p.pos, f"{p.message} (and {more} more like it)")
        return out

    def raise_if_any(self) -> None:
        if self.items:
            raise SpecError(self.finished())


class PosDict(dict):
    """A mapping that knows its own position and each key's position."""

    pos: Pos
    key_pos: dict

    def at(self, key: str) -> Pos:
        return self.key_pos.get(key, self.pos)

    def __reduce__(self):  # pickled (the model cache) as the plain mapping: positions serve the loader only
        return dict, (dict(self),)


class PosList(list):
    """A sequence that knows its own position and each item's position."""

    pos: Pos
    item_pos: list

    def at(self, index: int) -> Pos:
        return self.item_pos[index] if 0 <= index < len(self.item_pos) else self.pos

    def __reduce__(self):  # pickled as the plain list, as PosDict
        return list, (list(self),)


def did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
