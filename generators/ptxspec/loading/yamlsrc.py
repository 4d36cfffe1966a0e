"""Strict YAML reading with a position for every value.

PyYAML alone is too forgiving for a specification: it keeps the last of two duplicate keys,
reads `on`/`yes` as booleans and `2024-01-01` as dates, expands aliases without limit and
honours `!!python/...` tags. We compose the node graph with PyYAML's parser and convert it
ourselves, so that each of these is a reported problem with its file, line and column.

Mappings become `PosDict`, sequences `PosList`; both remember where they and their entries
stand, so later passes (schema, model) can point at the exact line of a bad value.
"""
from __future__ import annotations

import re
from typing import Any

import yaml

from ptxspec.core.errors import Pos, PosDict, PosList, Problems
from ptxspec.core.files import read_regular

#: Upper bound on values built from one file; a spec file has a few thousand at most, so this
#: only stops alias bombs ("billion laughs").
MAX_NODES = 200_000
#: Deepest nesting of mappings and sequences; spec files nest a handful of levels.
MAX_DEPTH = 64
#: Integers are bounded at load: every count, width and code of a spec fits in 64 bits, and a
#: bound here keeps huge literals (thousands of digits) away from int() and from numpy.
INT_BITS = 63
#: The only YAML tags a spec file may carry (explicitly or by resolution).
CORE_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")}

_INT_RE = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
_BIN_RE = re.compile(r"^0b[01]+$")
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_NULL = {"", "~", "null", "Null", "NULL"}


def _pos(path: str, node: yaml.Node) -> Pos:
    m = node.start_mark
    return Pos(path, m.line + 1, m.column + 1)


class _Converter:
    def __init__(self, path: str, problems: Problems):
        self.path = path
        self.problems = problems
        self.count = 0
        self.blown = False
        self.active: set[int] = set()
        self.depth = 0

    def convert(self, node: yaml.Node) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            if not self.blown:
                self.problems.add(_pos(self.path, node), f"document expands to more than {MAX_NODES} values "
                                  "(alias bomb?); spec files must stay small and explicit")
                self.blown = True
            return None
        if self.blown:
            return None
        if id(node) in self.active:
            self.problems.add(_pos(self.path, node), "recursive alias")
            return None
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if self.depth >= MAX_DEPTH:
            self.problems.add(_pos(self.path, node), f"nesting deeper than {MAX_DEPTH} levels")
            self.blown = True
            return None
        self.active.add(id(node))
        self.depth += 1
        try:
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node)
            assert isinstance(node, yaml.SequenceNode)  # the third kind of YAML node
            return self.sequence(node)
        finally:
            self.depth -= 1
            self.active.discard(id(node))

    def _check_tag(self, node: yaml.Node) -> bool:
        tag = node.tag or ""
        if tag in CORE_TAGS or tag in ("!", "?"):
            return True
        shown = tag.replace("tag:yaml.org,2002:", "!!")
        self.problems.add(_pos(self.path, node), f"YAML tag {shown!r} is not allowed in spec files")
        return False

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if not self._check_tag(node):
            return None
        value = node.value
        if node.style and node.style in "'\"|>":  # (libyaml gives plain scalars the style '')
            return value  # quoted or block scalars are always strings
        tag = node.tag
        pos = _pos(self.path, node)
        if tag.endswith(":str"):
            return value
        if tag.endswith(":null") or value in _NULL:
            return None
        if tag.endswith(":bool"):
            if value in _TRUE:
                return True
            if value in _FALSE:
                return False
            self.problems.add(pos, f"ambiguous scalar {value!r}: YAML 1.1 reads it as a boolean; "
                              "write true/false, or quote it for a string")
            return value
        if tag.endswith(":int"):
            if _INT_RE.match(value) or _HEX_RE.match(value) or _BIN_RE.match(value):
                return self.integer(value, pos)
            self.problems.add(pos, f"ambiguous number {_short(value)!r}: write a plain decimal, 0x or 0b "
                              "integer, or quote it for a string")
            return value
        if tag.endswith(":float"):
            if re.match(r"^[-+]?(\.inf|\.nan)$", value, re.I):
                self.problems.add(pos, f"{value!r} is not allowed; quote it for a string")
                return value
            try:
                return float(value)
            except ValueError:
                self.problems.add(pos, f"ambiguous number {value!r}; quote it for a string")
                return value
        if tag.endswith(":timestamp"):
            self.problems.add(pos, f"{value!r} reads as a date in YAML; quote it for a string")
            return value
        self.problems.add(pos, f"unsupported scalar type {tag!r}")
        return value

    def integer(self, value: str, pos: Pos) -> int | str:
        digits = value.lstrip("+-")
        # the length first: int() refuses literals of thousands of digits (and is slow on them)
        longest = {"0x": 2 + INT_BITS // 4 + 1, "0b": 2 + INT_BITS + 1}.get(digits[:2], 19)
        number = int(value, 0 if digits[:2] in ("0x", "0b") else 10) if len(digits) <= longest else None
        if number is None or not -(1 << INT_BITS) <= number < (1 << INT_BITS):
            self.problems.add(pos, f"integer {_short(value)} is out of range: spec integers fit in 64 bits")
            return value
        return number

    def mapping(self, node: yaml.MappingNode) -> PosDict:
        out = PosDict()
        out.pos = _pos(self.path, node)
        out.key_pos = {}
        if not self._check_tag(node):
            return out
        for key_node, value_node in node.value:
            kpos = _pos(self.path, key_node)
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.problems.add(kpos, "YAML merge keys ('<<') are not allowed; write the entries out")
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problems.add(kpos, "mapping keys must be plain strings")
                continue
            key = self.scalar(key_node)
            if not isinstance(key, str):
                self.problems.add(kpos, f"mapping key {key_node.value!r} must be a string; quote it")
                key = str(key_node.value)
            if key in out.key_pos:
                first = out.key_pos[key]
                self.problems.add(kpos, f"duplicate key {key!r} (first defined at line {first.line})")
                continue
            out.key_pos[key] = kpos
            out[key] = self.convert(value_node)
        return out

    def sequence(self, node: yaml.SequenceNode) -> PosList:
        out = PosList()
        out.pos = _pos(self.path, node)
        out.item_pos = []
        if not self._check_tag(node):
            return out
        for item in node.value:
            out.item_pos.append(_pos(self.path, item))
            out.append(self.convert(item))
        return out


def _short(value: str) -> str:
    return value if len(value) <= 24 else f"{value[:12]}...{value[-8:]} ({len(value)} characters)"


_FAST = getattr(yaml, "CSafeLoader", None)


def load_text(text: str, path: str, problems: Problems) -> Any:
    """Parse one YAML document; problems are added, never raised. Returns None on failure."""
    node = None
    if _FAST is not None:  # libyaml composes several times faster; on any trouble the pure-Python
        try:               # parser below reads the file again and says what is wrong, in its words
            too_deep = _too_deep(text, path, _FAST)
            if too_deep is not None:  # libyaml's composer recurses in C: deep nesting would crash
                problems.add(too_deep, f"nesting deeper than {MAX_DEPTH} levels")  # the process
                return None
            node = yaml.compose(text, Loader=_FAST)
        except Exception:  # noqa: BLE001 - whatever it is, the slow path reports it
            node = None
    try:
        if node is None:
            too_deep = _too_deep(text, path, yaml.SafeLoader)
            if too_deep is not None:
                problems.add(too_deep, f"nesting deeper than {MAX_DEPTH} levels")
                return None
            node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:  # (the scan above prevents it; kept as a last guard)
        problems.add(Pos(path), f"nesting deeper than {MAX_DEPTH} levels")
        return None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        problems.add(Pos(path, line, col), f"YAML: unacceptable character {char!r} (#x{ord(char):04x})")
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Pos(path, mark.line + 1, mark.column + 1) if mark else Pos(path)
        problems.add(pos, f"YAML syntax: {exc.problem or exc.context}")
        return None
    except yaml.YAMLError as exc:  # e.g. "expected a single document"
        problems.add(Pos(path), f"YAML: {exc}")
        return None
    if node is None:
        problems.add(Pos(path), "empty file")
        return None
    return _Converter(path, problems).convert(node)


_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _too_deep(text: str, path: str, loader) -> Pos | None:
    """Where nesting first passes MAX_DEPTH, or None. YAML's event parsers (libyaml's and PyYAML's)
    keep explicit stacks, so this scan is safe on any input; the composers recurse. Syntax errors
    propagate: the caller reports them."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        cls = type(event)
        if cls in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                return Pos(path, event.start_mark.line + 1, event.start_mark.column + 1)
        elif cls in _CLOSE:
            depth -= 1
    return None


def load_file(path: str, problems: Problems, raw: bytes | None = None) -> Any:
    """Parse one spec file (raw: its bytes, when the caller has read them already)."""
    if raw is None:
        try:
            raw = read_regular(path)
        except OSError as exc:
            problems.add(Pos(path), f"cannot read: {exc.strerror or exc}")
            return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        problems.add(Pos(path, line, col), f"not UTF-8 text (byte 0x{raw[exc.start]:02x})")
        return None
    return load_text(text, path, problems)
