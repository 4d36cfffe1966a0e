"""`ptxspec diff`: what changed for users between two spec trees.

Not a YAML text diff: both trees are loaded and resolved into the model, and the report compares
what users see - the variants, their requirements (first PTX version per target), operand
signatures, per-thread fragment maps (which elements moved), sparsity metadata maps, element
types and their numerics, layouts, shared-memory descriptors, errata and descriptions.

Every change has a stable rule id (`RULES`), a severity (`breaking`, `warning`, `info`), the
file:line of its cause (in HEAD, or in BASE for removals) and a fingerprint (sha256 of the rule
id and the subject) that an ignore file can list to approve it.

BASE and HEAD are spec directories or git revisions; a revision's spec/ is read straight from git
(`git archive`) into a temporary directory and checked against the working tree's schema/.

Exit codes of `cmd_diff`: 0 nothing fails, 1 changes of the `--fail-on` severity (or worse) found,
2 could not compare (a broken tree, an unknown revision, a bad ignore file).
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import Pos, SpecError

SEVERITIES = ("breaking", "warning", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}

#: rule id -> (severity, what it means). The severity of `layout.changed` is raised to `warning`
#: when the new formulas move an element of some variant (the variants get `fragment.moved`).
RULES: dict[str, tuple[str, str]] = {
    "variant.added": ("info", "a variant (opcode and operand form) is new"),
    "variant.removed": ("breaking", "a variant is gone"),
    "variant.renamed": ("breaking", "a variant is spelled differently (the old opcode is gone)"),
    "variant.changed": ("warning", "another field of the variant's record changed"),
    "requirement.ptx.raised": ("breaking", "a target needs a later PTX ISA version"),
    "requirement.ptx.lowered": ("info", "a target accepts an earlier PTX ISA version"),
    "requirement.targets.narrowed": ("breaking", "a target no longer accepts the variant"),
    "requirement.targets.widened": ("info", "a target newly accepts the variant"),
    "operand.added": ("breaking", "the operand signature has a new operand"),
    "operand.removed": ("breaking", "the operand signature lost an operand"),
    "operand.changed": ("breaking", "an operand's kind, direction, matrix, register count or type changed"),
    "operand.values.narrowed": ("breaking", "an immediate operand lost legal values"),
    "operand.values.widened": ("info", "an immediate operand gained legal values"),
    "fragment.moved": ("breaking", "elements of a fragment sit in other threads, registers or slots"),
    "fragment.reshaped": ("breaking", "a fragment covers another matrix shape or holds another element count"),
    "fragment.layout.renamed": ("info", "a fragment uses another layout that evaluates to the same map"),
    "sparsity.moved": ("breaking", "sparsity metadata nibbles describe other chunks, or other threads supply them"),
    "sparsity.nibbles.narrowed": ("breaking", "a metadata nibble value is no longer valid"),
    "sparsity.nibbles.widened": ("info", "a metadata nibble value is newly valid"),
    "layout.added": ("info", "a fragment or sparsity layout is new"),
    "layout.removed": ("info", "a fragment or sparsity layout is gone (its variants are reported)"),
    "layout.changed": ("info", "a layout's formulas changed (warning when they move elements)"),
    "type.added": ("info", "an element type is new"),
    "type.removed": ("warning", "an element type is gone"),
    "type.changed": ("breaking", "an element type's width, class, signedness or register type changed"),
    "numerics.changed": ("breaking", "an element type's number format changed"),
    "errata.added": ("info", "an erratum is new"),
    "errata.removed": ("warning", "an erratum is gone"),
    "errata.changed": ("warning", "an erratum's claim or evidence changed"),
    "isa.ptx.added": ("info", "a PTX ISA version is new"),
    "isa.ptx.removed": ("warning", "a PTX ISA version is gone"),
    "isa.ptx.changed": ("info", "whether ptxas knows a PTX ISA version changed"),
    "isa.target.added": ("info", "a target is new"),
    "isa.target.removed": ("warning", "a target is gone"),
    "isa.target.changed": ("warning", "a target's definition changed"),
    "instruction.rules.changed": ("warning", "an instruction's usage rules changed"),
    "family.added": ("info", "an instruction family is new"),
    "family.removed": ("warning", "an instruction family is gone (its variants are reported)"),
    "family.changed": ("breaking", "a family's thread count changed"),
    "smem.added": ("info", "a shared-memory description is new"),
    "smem.removed": ("warning", "a shared-memory description is gone"),
    "smem.changed": ("breaking", "the matrix descriptor, a swizzle mode or a canonical layout changed"),
    "description.changed": ("info", "a description, title or manual reference changed"),
    "definition.changed": ("warning", "another part of the model changed, one no rule above covers"),
}

#: Spec attributes the rules compare (or that are derived, private or a digest of the inputs).
_KNOWN_SPEC_ATTRS = frozenset({"ptx_versions", "ptxas_versions", "targets", "types", "families", "instructions",
                               "layouts", "sparsities", "smem", "errata", "variants", "digest"})

EXIT_OK, EXIT_FAIL, EXIT_CANNOT = 0, 1, 2
MARKDOWN_BUDGET = 60_000  # bytes; GitHub comments stop at 65,536
FORMAT_VERSION = 1


class CompareError(Exception):
    """The trees could not be compared; `lines` are printed one per line."""

    def __init__(self, headline: str, lines: list[str] = (), annotations: list[tuple] = ()):
        self.headline = headline
        self.lines = list(lines)
        self.annotations = list(annotations)  # (file, line, col, message, "BASE" or "HEAD")
        super().__init__(headline)


# ---------------------------------------------------------------------------------------------
# Changes


@dataclass
class Change:
    rule: str
    severity: str
    subject: str
    message: str
    side: str  # "head" or "base": where `file`/`line` point
    file: str
    line: int
    col: int
    summary: str  # the part of the message shared by every member of a group
    instruction: str = ""
    pattern: str = ""  # the variant's opcode with N written as N ("") for non-variant changes
    n: int | None = None
    form: str = ""
    before: Any = None
    after: Any = None
    details: dict = field(default_factory=dict)
    ignored: bool = False

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.rule, self.subject)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def as_data(self) -> dict:
        d = {"rule": self.rule, "severity": self.severity, "subject": self.subject,
             "fingerprint": self.fingerprint, "message": self.message, "summary": self.summary,
             "side": self.side, "file": self.file, "line": self.line, "col": self.col,
             "ignored": self.ignored, "before": self.before, "after": self.after}
        if self.instruction:
            d["instruction"] = self.instruction
        if self.pattern:
            d["group"] = self.pattern
        if self.n is not None:
            d["n"] = self.n
        if self.form:
            d["form"] = self.form
        if self.details:
            d["details"] = self.details
        return d


def fingerprint(rule: str, subject: str) -> str:
    return hashlib.sha256(f"{rule}\n{subject}".encode()).hexdigest()


@dataclass
class Report:
    base: "Side"
    head: "Side"
    changes: list[Change]

    def active(self) -> list[Change]:
        return [c for c in self.changes if not c.ignored]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for c in self.active():
            out[c.severity] += 1
        out["ignored"] = sum(c.ignored for c in self.changes)
        out["total"] = len(self.changes)
        return out

    def failing(self, fail_on: str | None) -> list[Change]:
        if not fail_on:
            return []
        return [c for c in self.active() if _RANK[c.severity] <= _RANK[fail_on]]


# ---------------------------------------------------------------------------------------------
# Trees: directories or git revisions


@dataclass
class Side:
    label: str  # "BASE" or "HEAD"
    ref: str  # as given on the command line
    kind: str  # "directory" or "git"
    spec_dir: Path  # on disk
    shown_root: Path | None = None  # git: the extraction root, so paths print repo-relative
    sha: str = ""
    docs: dict = field(default_factory=dict, repr=False)
    spec: Any = field(default=None, repr=False)
    index: "_Index" = field(default=None, repr=False)

    def path(self, p: str) -> str:
        cache = self.__dict__.setdefault("_paths", {})
        if p not in cache:
            cache[p] = self._path(p)
        return cache[p]

    def _path(self, p: str) -> str:
        if self.shown_root is not None:
            try:
                return Path(p).resolve().relative_to(self.shown_root).as_posix()
            except ValueError:
                return p
        try:
            rel = os.path.relpath(p)
        except ValueError:
            return p
        return p if rel.startswith("..") else Path(rel).as_posix()

    def shown_spec(self) -> str:
        return self.path(str(self.spec_dir))

    def describe(self) -> str:
        if self.kind == "git":
            return f"{self.ref} ({self.sha[:12]}:{self.shown_spec()})" if self.sha else self.ref
        return self.shown_spec()

    def scrub(self, text: str) -> str:
        """Messages may name files of a temporary checkout; name them as in the repository."""
        if self.shown_root is None:
            return text
        return text.replace(str(self.shown_root) + os.sep, "").replace(str(self.shown_root), ".")


def _git(args: list[str], cwd: Path, binary: bool = False):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=not binary, check=False)


def _git_context(spec_dir: Path) -> tuple[Path, str] | None:
    """(repository top, spec dir relative to it) for the git checkout holding spec_dir."""
    probe = spec_dir if spec_dir.is_dir() else spec_dir.parent
    for cand in (probe, Path.cwd()):
        if not cand.is_dir():
            continue
        try:
            proc = _git(["rev-parse", "--show-toplevel"], cand)
        except OSError:  # no git at all
            return None
        if proc.returncode == 0:
            top = Path(proc.stdout.strip()).resolve()
            try:
                rel = spec_dir.resolve().relative_to(top).as_posix()
            except ValueError:
                rel = "spec"
            return top, rel
    return None


def open_side(arg: str, label: str, default_spec: Path, stack: contextlib.ExitStack) -> Side:
    """A directory (a spec dir, or a checkout holding spec/) or a git revision."""
    path = Path(arg)
    if path.is_dir():
        if not any(path.glob("*.yaml")) and (path / "spec").is_dir():
            path = path / "spec"
        return Side(label, arg, "directory", path)
    ctx = _git_context(default_spec)
    if ctx is None:
        raise CompareError(f"{label} {arg!r} is not a directory, and {default_spec} is not in a git "
                           "checkout to read a revision from")
    top, rel = ctx
    proc = _git(["rev-parse", "--verify", "--quiet", f"{arg}^{{commit}}"], top)
    if proc.returncode != 0:
        raise CompareError(f"{label} {arg!r} is neither a directory nor a git revision of {top}")
    sha = proc.stdout.strip()
    listed = _git(["ls-tree", "--name-only", sha, "--", rel], top)
    if listed.returncode != 0 or not listed.stdout.strip():
        raise CompareError(f"{label} {arg!r} ({sha[:12]}) has no {rel}/ to compare")
    archive = _git(["archive", "--format=tar", sha, "--", rel], top, binary=True)
    if archive.returncode != 0:
        msg = archive.stderr.decode(errors="replace").strip().splitlines()
        raise CompareError(f"{label} {arg!r}: git archive failed: {msg[-1] if msg else 'no output'}")
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"ptxspec-diff-{label.lower()}-"))).resolve()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            tar.extractall(tmp)  # noqa: S202 - our own repository's tree
    return Side(label, arg, "git", tmp / rel, shown_root=tmp, sha=sha)


_LOADED: "collections.OrderedDict[tuple, tuple]" = collections.OrderedDict()  # a few recent trees


def _tree_key(spec_dir: Path) -> tuple | None:
    """Where the tree is and what is in it: the same key means the same documents and positions."""
    try:
        h = hashlib.sha256()
        for path in sorted(spec_dir.rglob("*")):
            if path.suffix in (".yaml", ".yml") and path.is_file():
                h.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        return (str(spec_dir), str(spec_dir.resolve()), os.getcwd(), h.hexdigest())
    except OSError:
        return None


def load_side(side: Side) -> Side:
    """Read and resolve the side's tree (a tree loaded before in this process, unchanged, is reused)."""
    from .resolve import build_model
    from .source import read_tree
    key = _tree_key(side.spec_dir)
    if key is not None and key in _LOADED:
        _LOADED.move_to_end(key)
        side.docs, side.spec, side.index = _LOADED[key]
        return side
    try:
        side.docs = read_tree(side.spec_dir)
        side.spec = build_model(side.docs)
    except SpecError as exc:
        lines, notes = [], []
        for p in exc.problems:
            where = side.path(p.pos.path)
            msg = side.scrub(p.message)
            lines.append(f"{where}:{p.pos.line}:{p.pos.col}: error: {msg}")
            notes.append((where, p.pos.line, p.pos.col, msg, side.label))
        raise CompareError(f"{side.label} ({side.describe()}) is not a valid spec "
                           f"({len(exc.problems)} problem{'s' * (len(exc.problems) != 1)}):", lines, notes) from None
    except Exception as exc:  # never a traceback for input we cannot read
        raise CompareError(f"{side.label} ({side.describe()}) could not be loaded: "
                           f"{type(exc).__name__}: {side.scrub(str(exc))}") from None
    side.index = _Index(side.docs)
    if key is not None:
        _LOADED[key] = (side.docs, side.spec, side.index)
        while len(_LOADED) > 4:
            _LOADED.popitem(last=False)
    return side


# ---------------------------------------------------------------------------------------------
# Positions: where in the YAML a change comes from


class _Index:
    """The positioned YAML of one tree, by the names the model uses."""

    def __init__(self, docs: dict):
        self.inst, self.groups, self.families, self.smem = {}, {}, {}, {}
        self.layouts, self.types, self.targets, self.ptx, self.errata = {}, {}, {}, {}, {}
        self.isa = self.types_doc = None
        self.files: dict[str, Any] = {}
        for kind, items in docs.items():
            for doc in items:
                d = doc.data
                self.files[doc.path] = d
                if kind == "instruction":
                    self.inst.setdefault(d.get("name"), d)
                    for i, g in enumerate(d.get("groups") or []):
                        if isinstance(g, dict):
                            self.groups.setdefault((d.get("name"), g.get("name")), g)
                elif kind == "family":
                    self.families.setdefault(d.get("name"), d)
                elif kind == "smem":
                    self.smem.setdefault(d.get("family"), d)
                elif kind == "layouts":
                    for section in ("fragments", "sparsity"):
                        entries = d.get(section) or {}
                        for name, body in entries.items():
                            self.layouts.setdefault(name, (body, entries.at(name)))
                elif kind == "types":
                    self.types_doc = d
                    for i, t in enumerate(d.get("types") or []):
                        self.types.setdefault(t.get("name"), (t, d["types"].at(i)))
                elif kind == "isa":
                    self.isa = d
                    for i, t in enumerate(d.get("targets") or []):
                        self.targets.setdefault(t.get("name"), (t, d["targets"].at(i)))
                    for i, v in enumerate(d.get("ptx_versions") or []):
                        self.ptx.setdefault(str(v.get("version")), (v, d["ptx_versions"].at(i)))
                elif kind == "errata":
                    for i, e in enumerate(d.get("errata") or []):
                        self.errata.setdefault(e.get("id"), (e, d["errata"].at(i)))


def first_diff(a, b) -> Pos | None:
    """Position, inside `a`, of the first value that differs from `b`; None when equal."""
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict) and hasattr(a, "at"):
        for key in a:
            if key not in b:
                return a.at(key)
            if a[key] != b[key]:
                return first_diff(a[key], b[key]) or a.at(key)
        return a.pos  # a key of b is missing from a
    if isinstance(a, list) and isinstance(b, list) and hasattr(a, "at"):
        for i, item in enumerate(a):
            if i >= len(b):
                return a.at(i)
            if item != b[i]:
                return first_diff(item, b[i]) or a.at(i)
        return a.pos  # a is shorter
    return None  # scalars: the caller knows the key's position


def _strip_descriptions(x):
    if isinstance(x, dict):
        return {k: _strip_descriptions(v) for k, v in x.items() if k != "description"}
    if isinstance(x, list):
        return [_strip_descriptions(v) for v in x]
    return x


class _Stripped:
    """A positioned YAML node seen without its `description` keys (for first_diff)."""

    def __new__(cls, node):
        if isinstance(node, dict) and hasattr(node, "at"):
            out = type(node)({k: cls(v) for k, v in node.items() if k != "description"})
            out.pos, out.key_pos = node.pos, node.key_pos
            return out
        if isinstance(node, list) and hasattr(node, "at"):
            out = type(node)(cls(v) for v in node)
            out.pos, out.item_pos = node.pos, node.item_pos
            return out
        return node


def _first_description_diff(a, b) -> Pos | None:
    """Position in `a` of the first `description` whose text differs from `b`'s."""
    if isinstance(a, dict) and isinstance(b, dict) and hasattr(a, "at"):
        for key in a:
            if key == "description":
                if a[key] != b.get(key):
                    return a.at(key)
            elif key in b:
                p = _first_description_diff(a[key], b[key])
                if p:
                    return p
    elif isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            p = _first_description_diff(x, y)
            if p:
                return p
    return None


def _diff_key(a, b, key) -> Pos | None:
    """Position inside mapping `a` of what differs at `key` from mapping `b`."""
    if not isinstance(a, dict) or key not in a:
        return None
    if not isinstance(b, dict) or key not in b:
        return a.at(key)
    if a[key] == b[key]:
        return None
    return first_diff(a[key], b[key]) or a.at(key)


def _entry_diff(this: tuple | None, other: tuple | None) -> Pos | None:
    """Entries are (body, pos): the first difference of body, or pos when other lacks it."""
    if this is None:
        return None
    body, pos = this
    if other is None:
        return pos
    return first_diff(body, other[0]) if body != other[0] else None


_MEMBERSHIP_KEYS = ("shape", "types", "satfinite", "op", "forms", "qualifiers", "sparsity")


def _matches(when: dict, fields: dict) -> bool:
    return all(str(fields.get(key)) == str(val) for key, val in (when or {}).items())


def _fields(v) -> dict:
    return dict(m=v.m, n=v.n, k=v.k, atype=v.atype, btype=v.btype, ctype=v.ctype, dtype=v.dtype,
                satfinite=v.satfinite, op=v.op, form=v.form, **_qualifiers(v))


def _qualifiers(v) -> dict:
    """Qualifier axes besides shape and types (layouts, kind, scale_vec, ...), where the model has them."""
    return dict(getattr(v, "qualifiers", None) or {})


# ---------------------------------------------------------------------------------------------
# Plain data of model objects, for comparing definitions


def _plain(x):
    if hasattr(x, "source") and hasattr(x, "names"):  # a compiled Formula
        return str(x.source)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name not in ("pos", "spec")}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(_plain(v) for v in x)
    if isinstance(x, Pos) or callable(x):
        return None
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


def _changed_fields(a: dict, b: dict, skip=()) -> list[str]:
    return [k for k in sorted(set(a) | set(b)) if k not in skip and a.get(k) != b.get(k)]


def _short(value, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# ---------------------------------------------------------------------------------------------
# The comparison


_IDENTITY_RECORD_KEYS = frozenset({
    "id", "family", "instruction", "ptx", "form", "m", "n", "k", "atype", "btype", "ctype", "dtype",
    "satfinite", "op", "sparse", "min_ptx", "targets", "requires", "regs", "operands", "selectors"})
_OPERAND_FIELDS = ("kind", "io", "matrix", "regs", "reg_type", "element_type")
_TYPE_NUMERIC_FIELDS = ("format",)


def _shape_pattern(v) -> str:
    if v.m is not None and v.n is not None and v.k is not None:
        token = f"m{v.m}n{v.n}k{v.k}"
        if token in v.ptx:
            return v.ptx.replace(token, f"m{v.m}nNk{v.k}", 1)
    return v.ptx


class _Comparer:
    def __init__(self, base: Side, head: Side):
        self.b, self.h = base, head
        self.changes: list[Change] = []
        self._req_cache: dict = {}
        self._frag_cache: dict = {}
        self._sp_cache: dict = {}
        self.moved_layouts: set[str] = set()  # head layouts whose new formulas moved something
        self.same_targets = _plain(base.spec.targets) == _plain(head.spec.targets)
        self._extra_keys: dict = {}  # instruction -> record fields beyond those compared by the rules

    # -- recording -----------------------------------------------------------------------------
    def add(self, rule: str, subject: str, message: str, side: Side, pos: Pos | None, *, summary: str = "",
            variant=None, before=None, after=None, details: dict | None = None, severity: str | None = None):
        pos = pos or Pos(str(side.spec_dir))
        c = Change(rule, severity or RULES[rule][0], subject, message, "base" if side is self.b else "head",
                   side.path(pos.path), pos.line, pos.col, summary or message,
                   before=before, after=after, details=details or {})
        if variant is not None:
            c.instruction, c.pattern, c.n, c.form = variant.instruction, _shape_pattern(variant), variant.n, variant.form
        self.changes.append(c)
        return c

    # -- driver --------------------------------------------------------------------------------
    def run(self) -> list[Change]:
        self.variants()
        self.layouts()
        self.types()
        self.isa()
        self.errata()
        self.instructions()
        self.families()
        self.smem()
        self.file_descriptions()
        self.other_definitions()
        order = {s: i for i, s in enumerate(SEVERITIES)}
        self.changes.sort(key=lambda c: (order[c.severity], c.rule, c.instruction, c.pattern, c.file, c.line,
                                         c.n if c.n is not None else -1, c.form, c.subject))
        return self.changes

    # -- variants ------------------------------------------------------------------------------
    def variants(self):
        bmap = {v.id: v for v in self.b.spec.variants}
        hmap = {v.id: v for v in self.h.spec.variants}
        removed = [bmap[i] for i in bmap if i not in hmap]
        added = [hmap[i] for i in hmap if i not in bmap]
        key = lambda v: (v.instruction, v.form, v.m, v.n, v.k, v.atype, v.btype, v.ctype, v.dtype, v.satfinite,
                         v.op, bool(getattr(v, "sparse", False)), tuple(sorted(_qualifiers(v).items())))
        by_key: dict = {}
        for v in removed:
            by_key.setdefault(key(v), []).append(v)
        renamed = []
        for hv in added:
            cands = by_key.get(key(hv))
            if cands and len(cands) == 1:
                renamed.append((cands.pop(), hv))
        paired_b = {id(bv) for bv, _ in renamed}
        paired_h = {id(hv) for _, hv in renamed}
        for bv in removed:
            if id(bv) not in paired_b:
                self.add("variant.removed", bv.id, f"{bv.id} removed", self.b, self.where_membership(self.b, self.h, bv),
                         summary="removed", variant=bv, before=bv.ptx)
        for hv in added:
            if id(hv) not in paired_h:
                self.add("variant.added", hv.id, f"{hv.id} added", self.h, self.where_membership(self.h, self.b, hv),
                         summary="added", variant=hv, after=hv.ptx)
        for bv, hv in renamed:
            self.add("variant.renamed", f"{bv.id} -> {hv.id}", f"{bv.ptx} is now spelled {hv.ptx}", self.h,
                     self.where_renamed(hv, bv),
                     summary=f"renamed from `{_shape_pattern(bv)}` to `{_shape_pattern(hv)}`", variant=hv,
                     before=bv.ptx, after=hv.ptx)
        common = [(bmap[i], hmap[i]) for i in bmap if i in hmap] + renamed
        for bv, hv in common:
            self.requirement(bv, hv)
            self.operands(bv, hv)
            self.fragments(bv, hv)
            self.sparsity(bv, hv)
            self.record(bv, hv)

    def where_membership(self, this: Side, other: Side, v) -> Pos:
        ti, oi = this.index, other.index
        inst, oinst = ti.inst.get(v.instruction), oi.inst.get(v.instruction)
        if inst is None:
            return v.pos
        if oinst is None:
            return inst.at("name")
        g, og = ti.groups.get((v.instruction, v.group)), oi.groups.get((v.instruction, v.group))
        if g is None or og is None:
            return v.pos
        for key in _MEMBERSHIP_KEYS:
            p = _diff_key(g, og, key)
            if p:
                return p
        shape = g.get("shape")
        if isinstance(shape, dict) and isinstance(shape.get("n"), str):
            fam, ofam = ti.families.get(v.family), oi.families.get(v.family)
            if fam is not None and ofam is not None:
                p = _diff_key(fam.get("n_sets") or {}, ofam.get("n_sets") or {}, shape["n"])
                if p:
                    return p
        return _diff_key(inst, oinst, "opcode") or first_diff(g, og) or v.pos

    def where_renamed(self, hv, bv) -> Pos:
        hi, bi = self.h.index, self.b.index
        inst, oinst = hi.inst.get(hv.instruction), bi.inst.get(bv.instruction)
        if inst is None or oinst is None:
            return hv.pos
        g, og = hi.groups.get((hv.instruction, hv.group)), bi.groups.get((bv.instruction, bv.group))
        return _diff_key(inst, oinst, "opcode") or (first_diff(g, og) if g is not None and og is not None else None) \
            or hv.pos

    def _group_pair(self, hv, bv):
        return (self.h.index.groups.get((hv.instruction, hv.group)), self.b.index.groups.get((bv.instruction, bv.group)))

    # -- requirements --------------------------------------------------------------------------
    def _profile(self, side: Side, req) -> dict:
        key = (id(side), req)
        if key not in self._req_cache:
            prof = {}
            for t in req.targets:
                target = side.spec.targets.get(t)
                if target is not None:
                    first = req.first_ptx(target)
                    if first is not None:
                        prof[t] = first
            self._req_cache[key] = prof
        return self._req_cache[key]

    def requirement(self, bv, hv):
        if self.same_targets and bv.requirement == hv.requirement:
            return
        pb, ph = self._profile(self.b, bv.requirement), self._profile(self.h, hv.requirement)
        if pb == ph:
            return
        order = lambda names: sorted(names, key=lambda t: (self.h.spec.targets.get(t) or self.b.spec.targets.get(t)).sort_key)
        lost = order(set(pb) - set(ph))
        gained = order(set(ph) - set(pb))
        moves: dict = {}
        for t in order(set(pb) & set(ph)):
            if pb[t] != ph[t]:
                moves.setdefault((pb[t], ph[t]), []).append(t)
        before_t, after_t = order(pb), order(ph)
        pos = None
        if lost:
            pos = pos or self.where_requirement(hv, bv, lost)
            self.add("requirement.targets.narrowed", hv.id, f"{hv.id}: no longer valid on {', '.join(lost)}",
                     self.h, pos, summary=f"no longer valid on {', '.join(lost)}", variant=hv,
                     before=before_t, after=after_t, details={"targets": lost})
        if gained:
            pos = pos or self.where_requirement(hv, bv, gained)
            self.add("requirement.targets.widened", hv.id, f"{hv.id}: newly valid on {', '.join(gained)}",
                     self.h, pos, summary=f"newly valid on {', '.join(gained)}", variant=hv,
                     before=before_t, after=after_t, details={"targets": gained})
        for rule, up in (("requirement.ptx.raised", True), ("requirement.ptx.lowered", False)):
            parts = [(old, new, ts) for (old, new), ts in moves.items() if (new > old) == up]
            if not parts:
                continue
            parts.sort(key=lambda p: (p[0], p[1]))
            text = "; ".join(f"{old} -> {new} on {', '.join(ts)}" for old, new, ts in parts)
            targets = [t for _, _, ts in parts for t in ts]
            pos = pos or self.where_requirement(hv, bv, targets)
            self.add(rule, hv.id, f"{hv.id}: first PTX version {text}", self.h, pos,
                     summary=f"first PTX version {text}", variant=hv,
                     before=str(min(old for old, _, _ in parts)), after=str(min(new for _, new, _ in parts)),
                     details={"targets": targets})

    def where_requirement(self, hv, bv, targets) -> Pos:
        hi, bi = self.h.index, self.b.index
        inst, oinst = hi.inst.get(hv.instruction), bi.inst.get(bv.instruction)
        if inst is None or oinst is None:
            return hv.pos
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None and ("requires" in g or "requires" in og):
            p = _diff_key(g, og, "requires") or (g.at("requires") if "requires" in g else None)
            if p and g.get("requires") != og.get("requires"):
                return p
        if g is None or "requires" not in g:
            p = _diff_key(inst, oinst, "requires")
            if p:
                return p
        hf, bf = _fields(hv), _fields(bv)
        hrefs = inst.get("refinements") or []
        brefs = oinst.get("refinements") or []
        b_match = [r for r in brefs if _matches(r.get("when"), bf)]
        h_match = [r for r in hrefs if _matches(r.get("when"), hf)]
        for i, r in enumerate(hrefs):
            if r in h_match and r not in b_match:
                twin = next((o for o in brefs if o.get("when") == r.get("when")), None)
                return (first_diff(r, twin) if twin is not None else None) or hrefs.at(i)
        if any(r not in h_match for r in b_match):
            return inst.at("refinements") if "refinements" in inst else inst.at("requires")
        for t in targets:
            p = _entry_diff(hi.targets.get(t), bi.targets.get(t))
            if p:
                return p
        if g is not None and og is not None:
            p = first_diff(g, og)
            if p:
                return p
        if hi.isa is not None and bi.isa is not None:
            p = _diff_key(hi.isa, bi.isa, "targets") or _diff_key(hi.isa, bi.isa, "ptx_versions")
            if p:
                return p
        return hv.pos

    # -- operands ------------------------------------------------------------------------------
    @staticmethod
    def _allowed(o):
        if o.values is not None:
            return ("set", frozenset(o.values))
        if o.min_value is not None:
            return ("min", o.min_value)
        return ("any", None)

    @staticmethod
    def _show_allowed(a) -> Any:
        kind, val = a
        if kind == "set":
            return sorted(val)
        if kind == "min":
            return f">= {val}"
        return "any"

    @staticmethod
    def _lost(a, b) -> list | bool:
        """Values allowed by a and not by b: a list when finite, True when unbounded, [] when none."""
        (ka, va), (kb, vb) = a, b
        if kb == "any":
            return []
        if ka == "set":
            return sorted(x for x in va if (x not in vb if kb == "set" else x < vb))
        if ka == "min" and kb == "min":
            return list(range(va, vb)) if vb > va else []
        return True  # unbounded (min or any) into bounded

    def operands(self, bv, hv):
        if bv.operands == hv.operands:
            return
        bops = {o.name: (i, o) for i, o in enumerate(bv.operands)}
        hops = {o.name: (i, o) for i, o in enumerate(hv.operands)}
        for name, (i, o) in bops.items():
            if name not in hops:
                self.add("operand.removed", f"{hv.id} operand {name}", f"{hv.id}: operand {name} ({o.kind}) removed",
                         self.b, self.where_operand(bv, hv, name, self.b, self.h),
                         summary=f"operand {name} ({o.kind}) removed", variant=hv, before=name,
                         details={"operand": name})
        for name, (i, o) in hops.items():
            if name not in bops:
                self.add("operand.added", f"{hv.id} operand {name}", f"{hv.id}: new operand {name} ({o.kind})",
                         self.h, self.where_operand(hv, bv, name, self.h, self.b),
                         summary=f"new operand {name} ({o.kind})", variant=hv, after=name, details={"operand": name})
        common_b = [n for n in bops if n in hops]
        common_h = [n for n in hops if n in bops]
        for name in common_h:
            bo, ho = bops[name][1], hops[name][1]
            changed = [f for f in _OPERAND_FIELDS if getattr(bo, f, None) != getattr(ho, f, None)]
            if common_b.index(name) != common_h.index(name):
                changed.append("position")
            if changed:
                parts = []
                for f in changed:
                    if f == "position":
                        parts.append(f"position {common_b.index(name)} -> {common_h.index(name)}")
                    else:
                        parts.append(f"{f} {getattr(bo, f, None)} -> {getattr(ho, f, None)}")
                text = ", ".join(parts)
                self.add("operand.changed", f"{hv.id} operand {name}", f"{hv.id}: operand {name}: {text}", self.h,
                         self.where_operand(hv, bv, name, self.h, self.b, fields=changed),
                         summary=f"operand {name}: {text}", variant=hv, details={"operand": name, "fields": changed})
            ab, ah = self._allowed(bo), self._allowed(ho)
            if ab == ah:
                continue
            lost, gained = self._lost(ab, ah), self._lost(ah, ab)
            show_b, show_h = self._show_allowed(ab), self._show_allowed(ah)
            text = f"legal values {_short(show_b)} -> {_short(show_h)}"
            if lost:
                rule = "operand.values.narrowed"
            elif gained:
                rule = "operand.values.widened"
            else:
                continue
            self.add(rule, f"{hv.id} operand {name}", f"{hv.id}: operand {name}: {text}", self.h,
                     self.where_operand(hv, bv, name, self.h, self.b, fields=["values"]),
                     summary=f"operand {name}: {text}", variant=hv, before=show_b, after=show_h,
                     details={"operand": name})

    def where_operand(self, v, ov, name, this: Side, other: Side, fields=()) -> Pos:
        ti, oi = this.index, other.index
        inst, oinst = ti.inst.get(v.instruction), oi.inst.get(ov.instruction)
        g, og = ti.groups.get((v.instruction, v.group)), oi.groups.get((ov.instruction, ov.group))
        if inst is None or g is None:
            return v.pos
        sig = g.get("signature")
        sigs = inst.get("signatures") or {}
        entries = sigs.get(sig) or []
        idx = next((i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("name") == name), None)
        oentry = None
        if oinst is not None and og is not None:
            oentries = (oinst.get("signatures") or {}).get(og.get("signature")) or []
            oentry = next((e for e in oentries if isinstance(e, dict) and e.get("name") == name), None)
        if idx is not None:
            entry = entries[idx]
            if oentry is None:
                return entries.at(idx)
            if entry != oentry:
                return first_diff(entry, oentry) or entries.at(idx)
        if og is not None and og.get("signature") != sig:
            return g.at("signature")
        if oinst is not None and idx is None:  # the operand left this signature, or the form filter changed
            p = _diff_key(sigs, oinst.get("signatures") or {}, sig)
            if p:
                return p
        # Derived properties: register counts and types come from fragments, layouts and types.
        if og is not None:
            for key in ("fragments", "sparsity", "forms"):
                p = _diff_key(g, og, key)
                if p:
                    return p
        try:
            o = v.operand(name)
        except KeyError:
            o = None
        if o is not None:
            if o.layout:
                p = _entry_diff(ti.layouts.get(o.layout), oi.layouts.get(o.layout))
                if p:
                    return p
            if o.element_type:
                p = _entry_diff(ti.types.get(o.element_type), oi.types.get(o.element_type))
                if p:
                    return p
            if o.kind == "selector" and v.sparsity is not None:
                p = _entry_diff(ti.layouts.get(v.sparsity.name), oi.layouts.get(v.sparsity.name))
                if p:
                    return p
        return entries.at(idx) if idx is not None else (sigs.at(sig) if sig in sigs else v.pos)

    # -- fragment maps -------------------------------------------------------------------------
    def _frag_diff(self, bm, hm) -> dict | None:
        key = (id(bm), id(hm))
        if key in self._frag_cache:
            return self._frag_cache[key]
        out = None
        if bm.row.shape != hm.row.shape or (bm.rows, bm.cols) != (hm.rows, hm.cols):
            out = {"kind": "reshaped",
                   "before": f"{bm.rows}x{bm.cols}, {bm.elements} elements per thread x {bm.threads} threads",
                   "after": f"{hm.rows}x{hm.cols}, {hm.elements} elements per thread x {hm.threads} threads"}
        elif bm.bits != hm.bits and (bm.per_reg != hm.per_reg):
            out = {"kind": "reshaped", "before": f"{bm.bits}-bit elements", "after": f"{hm.bits}-bit elements"}
        else:
            moved = (bm.row != hm.row) | (bm.col != hm.col)
            count = int(moved.sum())
            if count:
                ts, es = np.nonzero(moved)
                examples = []
                for t, e in list(zip(ts.tolist(), es.tolist()))[:3]:
                    per = hm.per_reg
                    examples.append({"thread": t, "element": e, "reg": e // per, "slot": e % per,
                                     "before": [int(bm.row[t, e]), int(bm.col[t, e])],
                                     "after": [int(hm.row[t, e]), int(hm.col[t, e])]})
                out = {"kind": "moved", "moved": count, "elements": int(moved.size), "examples": examples}
        self._frag_cache[key] = out
        return out

    def _same_definition(self, name: str) -> bool:
        """The layout (or sparsity) `name` has the same formulas in both trees."""
        key = ("def", name)
        if key not in self._frag_cache:
            b = self.b.spec.layouts.get(name) or getattr(self.b.spec, "sparsities", {}).get(name)
            h = self.h.spec.layouts.get(name) or getattr(self.h.spec, "sparsities", {}).get(name)
            self._frag_cache[key] = b is not None and h is not None and _plain(b) == _plain(h)
        return self._frag_cache[key]

    def _same_fragment(self, bv, hv, bo, ho) -> bool:
        try:
            bl, bbits, bshape = bv.fragment_layouts[bo.matrix or bo.name][:3]
            hl, hbits, hshape = hv.fragment_layouts[ho.matrix or ho.name][:3]
        except (AttributeError, KeyError, TypeError, ValueError):
            return False
        return (bl.name == hl.name and bbits == hbits and tuple(bshape) == tuple(hshape)
                and bv.threads == hv.threads and self._same_definition(bl.name))

    def fragments(self, bv, hv):
        bops = {o.name: o for o in bv.operands if o.kind == "fragment"}
        for ho in hv.operands:
            if ho.kind != "fragment" or ho.name not in bops:
                continue
            bo = bops[ho.name]
            if self._same_fragment(bv, hv, bo, ho):
                continue
            try:
                bm = bv.fragment_map(bo.matrix or bo.name)
                hm = hv.fragment_map(ho.matrix or ho.name)
            except Exception:  # noqa: BLE001 - a map the model cannot evaluate was reported when loading
                continue
            d = self._frag_diff(bm, hm)
            name = ho.name
            subject = f"{hv.id} fragment {name}"
            if d is None:
                if bo.layout != ho.layout:
                    self.add("fragment.layout.renamed", subject,
                             f"{hv.id}: fragment {name} uses layout {ho.layout} (was {bo.layout}); same map",
                             self.h, self.where_fragment(hv, bv, ho),
                             summary=f"fragment {name} uses layout {ho.layout} (was {bo.layout}); same map",
                             variant=hv, before=bo.layout, after=ho.layout, details={"operand": name})
                continue
            if ho.layout:
                self.moved_layouts.add(ho.layout)
            if d["kind"] == "reshaped":
                self.add("fragment.reshaped", subject, f"{hv.id}: fragment {name}: {d['before']} -> {d['after']}",
                         self.h, self.where_fragment(hv, bv, ho),
                         summary=f"fragment {name}: {d['before']} -> {d['after']}", variant=hv,
                         before=d["before"], after=d["after"], details={"operand": name})
            else:
                ex = d["examples"][0]
                eg = (f"thread {ex['thread']} element {ex['element']} (reg {ex['reg']} slot {ex['slot']}): "
                      f"({ex['before'][0]}, {ex['before'][1]}) -> ({ex['after'][0]}, {ex['after'][1]})")
                self.add("fragment.moved", subject,
                         f"{hv.id}: fragment {name}: {d['moved']} of {d['elements']} elements moved, e.g. {eg}",
                         self.h, self.where_fragment(hv, bv, ho),
                         summary=f"fragment {name} (layout {ho.layout}): elements moved", variant=hv,
                         details={"operand": name, "moved": d["moved"], "elements": d["elements"],
                                  "examples": d["examples"]})

    def where_fragment(self, hv, bv, ho) -> Pos:
        hi, bi = self.h.index, self.b.index
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None:
            frag, ofrag = g.get("fragments") or {}, og.get("fragments") or {}
            p = _diff_key(frag, ofrag, ho.matrix or ho.name)
            if p:
                return p
        if ho.layout:
            p = _entry_diff(hi.layouts.get(ho.layout), bi.layouts.get(ho.layout))
            if p:
                return p
        if ho.element_type:
            p = _entry_diff(hi.types.get(ho.element_type), bi.types.get(ho.element_type))
            if p:
                return p
        if g is not None and og is not None:
            p = first_diff(g, og)
            if p:
                return p
        if ho.layout and ho.layout in hi.layouts:
            return hi.layouts[ho.layout][1]
        return hv.pos

    # -- sparsity metadata ---------------------------------------------------------------------
    def sparsity(self, bv, hv):
        bs, hs = getattr(bv, "sparsity", None), getattr(hv, "sparsity", None)
        if bs is None or hs is None:
            return
        if (bs.name == hs.name and bv.threads == hv.threads and (bv.m, bv.n, bv.k) == (hv.m, hv.n, hv.k)
                and self._same_definition(bs.name)):
            return
        key = (id(bs), id(hs), bv.threads, hv.threads, bv.m, bv.n, bv.k, hv.m, hv.n, hv.k)
        if key not in self._sp_cache:
            moved, total = 0, 0
            try:
                for sel in sorted(set(bs.selectors) & set(hs.selectors)):
                    bc, br, bk = bs.metadata_map(bv.threads, bv.m, bv.n, bv.k, sel)
                    hc, hr, hk = hs.metadata_map(hv.threads, hv.m, hv.n, hv.k, sel)
                    if bc.shape != hc.shape or br.shape != hr.shape:
                        moved, total = -1, 0
                        break
                    both = bc & hc
                    total += int((bc | hc).sum()) * br.shape[1]
                    moved += int((bc ^ hc).sum()) * br.shape[1]
                    moved += int(((br != hr) | (bk != hk))[both].sum())
            except Exception:  # noqa: BLE001 - reported when loading
                moved, total = 0, 0
            self._sp_cache[key] = (moved, total)
        moved, total = self._sp_cache[key]
        if not moved:
            return
        self.moved_layouts.add(hs.name)
        text = "metadata map changed shape" if moved < 0 else f"{moved} of {total} metadata nibbles moved"
        self.add("sparsity.moved", f"{hv.id} sparsity", f"{hv.id}: sparsity {hs.name}: {text}", self.h,
                 self.where_sparsity(hv, bv), summary=f"sparsity {hs.name}: metadata nibbles moved", variant=hv,
                 details={"moved": max(moved, 0), "elements": total})

    def where_sparsity(self, hv, bv) -> Pos:
        g, og = self._group_pair(hv, bv)
        if g is not None and og is not None:
            p = _diff_key(g, og, "sparsity")
            if p:
                return p
        name = hv.sparsity.name
        return _entry_diff(self.h.index.layouts.get(name), self.b.index.layouts.get(name)) or hv.pos

    # -- anything else in the record -----------------------------------------------------------
    def record(self, bv, hv):
        """Fields of the query record that no rule above covers (the model grows): variant.changed."""
        key = (bv.instruction, hv.instruction)
        if key not in self._extra_keys:  # records are costly: look at one pair per instruction first
            try:
                sample_b, sample_h = bv.as_record(), hv.as_record()
            except Exception:  # noqa: BLE001
                sample_b = sample_h = {}
            identity = _IDENTITY_RECORD_KEYS | set(_qualifiers(bv)) | set(_qualifiers(hv))
            self._extra_keys[key] = bool((set(sample_b) | set(sample_h)) - identity)
        if not self._extra_keys[key]:
            return
        try:
            rb, rh = bv.as_record(), hv.as_record()
        except Exception:  # noqa: BLE001
            return
        identity = _IDENTITY_RECORD_KEYS | set(_qualifiers(bv)) | set(_qualifiers(hv))
        if bv.sparsity is not None and hv.sparsity is not None and \
                bv.sparsity.valid_nibbles != hv.sparsity.valid_nibbles:
            identity = identity | {"metadata_nibbles"}  # reported once per sparsity as sparsity.nibbles.*
        if bv.hardware_note == hv.hardware_note:
            identity = identity | {"hardware"}  # derived from the targets, which requirement.* report
        keys = [k for k in sorted(set(rb) | set(rh)) if k not in identity and rb.get(k) != rh.get(k)]
        if not keys:
            return
        text = ", ".join(f"{k} {_short(rb.get(k), 40)} -> {_short(rh.get(k), 40)}" for k in keys)
        g, og = self._group_pair(hv, bv)
        pos = (first_diff(g, og) if g is not None and og is not None else None) or hv.pos
        self.add("variant.changed", f"{hv.id} record", f"{hv.id}: {text}", self.h, pos,
                 summary=f"changed: {', '.join(keys)}", variant=hv, details={"fields": keys})

    # -- definitions ---------------------------------------------------------------------------
    def _definitions(self, kind: str, bdefs: dict, hdefs: dict, bidx: dict, hidx: dict, *, added: str,
                     removed: str, compare, label=None):
        label = label or (lambda name: f"{kind} {name}")
        for name in sorted(set(bdefs) - set(hdefs), key=str):
            entry = bidx.get(name)
            self.add(removed, label(name), f"{label(name)} removed", self.b, entry[1] if entry else None,
                     summary=f"{label(name)} removed", before=str(name))
        for name in sorted(set(hdefs) - set(bdefs), key=str):
            entry = hidx.get(name)
            self.add(added, label(name), f"{label(name)} added", self.h, entry[1] if entry else None,
                     summary=f"{label(name)} added", after=str(name))
        for name in sorted(set(hdefs) & set(bdefs), key=str):
            compare(name, bdefs[name], hdefs[name], bidx.get(name), hidx.get(name))

    def _pos_in(self, this: tuple | None, other: tuple | None, keys=()) -> Pos | None:
        """Position in entry `this` of the first difference among `keys` (all keys when empty)."""
        if this is None:
            return None
        body, pos = this
        if other is None:
            return pos
        for key in keys:
            p = _diff_key(body, other[0], key)
            if p:
                return p
        return first_diff(body, other[0]) or pos

    def _describe(self, subject: str, side_pos: Pos | None, fields: list[str], before: dict, after: dict):
        self.add("description.changed", subject, f"{subject}: {', '.join(fields)} changed", self.h, side_pos,
                 before=_short(before.get(fields[0]), 200) if len(fields) == 1 else None,
                 after=_short(after.get(fields[0]), 200) if len(fields) == 1 else None, details={"fields": fields})

    def layouts(self):
        bl = {**self.b.spec.layouts, **getattr(self.b.spec, "sparsities", {})}
        hl = {**self.h.spec.layouts, **getattr(self.h.spec, "sparsities", {})}

        def compare(name, bo, ho, bent, hent):
            pb, ph = _plain(bo), _plain(ho)
            if type(bo) is not type(ho):
                self.add("layout.changed", f"layout {name}", f"layout {name} changed kind", self.h,
                         hent[1] if hent else None, severity="warning")
                return
            desc = [f for f in ("description",) if pb.get(f) != ph.get(f)]
            if desc:
                self._describe(f"layout {name}", self._pos_in(hent, bent, desc), desc, pb, ph)
            if "valid_nibbles" in pb:
                lost = sorted(set(pb["valid_nibbles"]) - set(ph["valid_nibbles"]))
                gained = sorted(set(ph["valid_nibbles"]) - set(pb["valid_nibbles"]))
                hexes = lambda xs: ", ".join(f"0x{x:X}" for x in xs)
                where = self._pos_in(hent, bent, ["valid_nibbles"])
                if lost:
                    self.add("sparsity.nibbles.narrowed", f"layout {name} nibbles",
                             f"sparsity {name}: nibbles {hexes(lost)} no longer valid", self.h, where,
                             before=[f"0x{x:X}" for x in pb["valid_nibbles"]],
                             after=[f"0x{x:X}" for x in ph["valid_nibbles"]])
                elif gained:
                    self.add("sparsity.nibbles.widened", f"layout {name} nibbles",
                             f"sparsity {name}: nibbles {hexes(gained)} newly valid", self.h, where,
                             before=[f"0x{x:X}" for x in pb["valid_nibbles"]],
                             after=[f"0x{x:X}" for x in ph["valid_nibbles"]])
            fields = _changed_fields(pb, ph, skip=("description", "name", "valid_nibbles"))
            if fields:
                text = ", ".join(f"{f}: {_short(pb.get(f), 60)} -> {_short(ph.get(f), 60)}" for f in fields)
                changed[name] = self.add(
                    "layout.changed", f"layout {name}", f"layout {name}: {text}", self.h,
                    self._pos_in(hent, bent, fields), details={"fields": fields},
                    before=_short(pb.get(fields[0]), 200) if len(fields) == 1 else None,
                    after=_short(ph.get(fields[0]), 200) if len(fields) == 1 else None)

        changed: dict[str, Change] = {}
        self._definitions("layout", bl, hl, self.b.index.layouts, self.h.index.layouts, added="layout.added",
                          removed="layout.removed", compare=compare)
        for name, c in changed.items():
            if name in self.moved_layouts:
                c.severity = "warning"
                c.message += " (moves elements of variants: see fragment.moved / sparsity.moved)"
            else:
                c.message += " (every evaluated map is unchanged)"

    def types(self):
        def compare(name, bo, ho, bent, hent):
            pb, ph = _plain(bo), _plain(ho)
            desc = [f for f in ("description",) if pb.get(f) != ph.get(f)]
            if desc:
                self._describe(f"type {name}", self._pos_in(hent, bent, desc), desc, pb, ph)
            num = [f for f in _TYPE_NUMERIC_FIELDS if pb.get(f) != ph.get(f)]
            if num:
                self.add("numerics.changed", f"type {name}",
                         f"type {name}: format {_short(pb.get('format'))} -> {_short(ph.get('format'))}", self.h,
                         self._pos_in(hent, bent, num), before=_short(pb.get("format"), 200),
                         after=_short(ph.get("format"), 200), details={"fields": num})
            other = _changed_fields(pb, ph, skip=("description", "name", *_TYPE_NUMERIC_FIELDS))
            if other:
                text = ", ".join(f"{f} {pb.get(f)} -> {ph.get(f)}" for f in other)
                self.add("type.changed", f"type {name}", f"type {name}: {text}", self.h,
                         self._pos_in(hent, bent, other), details={"fields": other})

        self._definitions("type", self.b.spec.types, self.h.spec.types, self.b.index.types, self.h.index.types,
                          added="type.added", removed="type.removed", compare=compare)

    def isa(self):
        bv = {str(v): v for v in self.b.spec.ptx_versions}
        hv = {str(v): v for v in self.h.spec.ptx_versions}
        bk = {str(v) for v in getattr(self.b.spec, "ptxas_versions", ())}
        hk = {str(v) for v in getattr(self.h.spec, "ptxas_versions", ())}

        def compare_ptx(name, bo, ho, bent, hent):
            if (name in bk) != (name in hk):
                self.add("isa.ptx.changed", f"PTX ISA {name}",
                         f"PTX ISA {name}: {'now' if name in hk else 'no longer'} assembled by ptxas", self.h,
                         self._pos_in(hent, bent, ["ptxas"]), before=name in bk, after=name in hk)

        self._definitions("PTX", bv, hv, self.b.index.ptx, self.h.index.ptx, added="isa.ptx.added",
                          removed="isa.ptx.removed", compare=compare_ptx, label=lambda n: f"PTX ISA {n}")

        def compare(name, bo, ho, bent, hent):
            pb, ph = _plain(bo), _plain(ho)
            fields = _changed_fields(pb, ph, skip=("name",))
            if fields:
                text = ", ".join(f"{f} {pb.get(f)!r} -> {ph.get(f)!r}" for f in fields)
                self.add("isa.target.changed", f"target {name}", f"target {name}: {text}", self.h,
                         self._pos_in(hent, bent, fields), details={"fields": fields})

        self._definitions("target", self.b.spec.targets, self.h.spec.targets, self.b.index.targets,
                          self.h.index.targets, added="isa.target.added", removed="isa.target.removed",
                          compare=compare)

    def errata(self):
        be = {e.id: e for e in self.b.spec.errata}
        he = {e.id: e for e in self.h.spec.errata}

        def compare(name, bo, ho, bent, hent):
            pb, ph = _plain(bo), _plain(ho)
            fields = _changed_fields(pb, ph, skip=("id",))
            if fields:
                self.add("errata.changed", f"erratum {name}", f"erratum {name}: {', '.join(fields)} changed", self.h,
                         self._pos_in(hent, bent, fields), details={"fields": fields},
                         before=_short(pb.get(fields[0]), 200) if len(fields) == 1 else None,
                         after=_short(ph.get(fields[0]), 200) if len(fields) == 1 else None)

        self._definitions("erratum", be, he, self.b.index.errata, self.h.index.errata, added="errata.added",
                          removed="errata.removed", compare=compare)

    def instructions(self):
        for name in sorted(set(self.b.spec.instructions) & set(self.h.spec.instructions)):
            bo, ho = self.b.spec.instructions[name], self.h.spec.instructions[name]
            bd, hd = self.b.index.inst.get(name), self.h.index.inst.get(name)
            bent = (bd, bd.pos) if bd is not None else None
            hent = (hd, hd.pos) if hd is not None else None
            desc = [f for f in ("description", "manual") if getattr(bo, f, None) != getattr(ho, f, None)]
            if desc:
                self._describe(f"instruction {name}", self._pos_in(hent, bent, desc), desc,
                               {f: getattr(bo, f) for f in desc}, {f: getattr(ho, f) for f in desc})
            if list(getattr(bo, "rules", [])) != list(getattr(ho, "rules", [])):
                self.add("instruction.rules.changed", f"instruction {name} rules",
                         f"instruction {name}: usage rules changed", self.h, self._pos_in(hent, bent, ["rules"]),
                         before=len(bo.rules), after=len(ho.rules))

    def families(self):
        bidx = {k: (d, d.at("name")) for k, d in self.b.index.families.items()}
        hidx = {k: (d, d.at("name")) for k, d in self.h.index.families.items()}
        self._definitions("family", self.b.spec.families, self.h.spec.families, bidx, hidx, added="family.added",
                          removed="family.removed", compare=self._family)

    def _family(self, name, bo, ho, bent, hent):
        desc = [f for f in ("title", "description", "manual") if getattr(bo, f, None) != getattr(ho, f, None)]
        if desc:
            self._describe(f"family {name}", self._pos_in(hent, bent, desc), desc,
                           {f: getattr(bo, f) for f in desc}, {f: getattr(ho, f) for f in desc})
        if bo.threads != ho.threads:
            self.add("family.changed", f"family {name}", f"family {name}: threads {bo.threads} -> {ho.threads}",
                     self.h, self._pos_in(hent, bent, ["threads"]), before=bo.threads, after=ho.threads)

    def smem(self):
        def compare(name, bo, ho, bent, hent):
            pb, ph = _plain(bo), _plain(ho)
            sb, sh = _strip_descriptions(pb), _strip_descriptions(ph)
            hraw, braw = (hent[0] if hent else None), (bent[0] if bent else None)
            fields = _changed_fields(sb, sh, skip=("family",))
            if fields:
                where = None
                if hraw is not None and braw is not None:
                    where = first_diff(_Stripped(hraw), _Stripped(braw))
                self.add("smem.changed", f"smem {name}", f"shared memory of {name}: {', '.join(fields)} changed",
                         self.h, where or (hent[1] if hent else None), details={"fields": fields})
            texts = [f for f in _changed_fields(pb, ph, skip=("family",)) if f == "description" or f not in fields]
            if texts:
                where = _first_description_diff(hraw, braw) if hraw is not None and braw is not None else None
                self.add("description.changed", f"smem {name}",
                         f"smem {name}: descriptions changed ({', '.join(texts)})", self.h,
                         where or (hent[1] if hent else None), details={"fields": texts})

        bidx = {k: (d, d.pos) for k, d in self.b.index.smem.items()}
        hidx = {k: (d, d.pos) for k, d in self.h.index.smem.items()}
        self._definitions("smem", self.b.spec.smem, self.h.spec.smem, bidx, hidx, added="smem.added",
                          removed="smem.removed", compare=compare, label=lambda n: f"smem {n}")

    def file_descriptions(self):
        """The `description` of a whole file (isa, types, layouts, errata) lives outside the model."""
        brel = {os.path.relpath(p, self.b.spec_dir): d for p, d in self.b.index.files.items()}
        for path, d in sorted(self.h.index.files.items()):
            if d.get("kind") in ("instruction", "family", "smem"):
                continue  # their descriptions are compared above
            od = brel.get(os.path.relpath(path, self.h.spec_dir))
            if od is None or d.get("description") == od.get("description"):
                continue
            self._describe(f"file {os.path.relpath(path, self.h.spec_dir)}", d.at("description"), ["description"],
                           od, d)


    def other_definitions(self):
        """Collections the model may grow (numerics, say) before this module has a rule for them."""
        names = {k for k in vars(self.b.spec) if not k.startswith("_")} | \
            {k for k in vars(self.h.spec) if not k.startswith("_")}
        for name in sorted(names - _KNOWN_SPEC_ATTRS):
            pb, ph = _plain(getattr(self.b.spec, name, None)), _plain(getattr(self.h.spec, name, None))
            if pb == ph:
                continue
            rule = "numerics.changed" if "numer" in name else "definition.changed"
            if isinstance(pb, dict) and isinstance(ph, dict):
                keys = _changed_fields(pb, ph)
                text = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
            else:
                keys, text = [], "changed"
            self.add(rule, f"spec {name}", f"{name}: {text}", self.h, None, severity="warning",
                     details={"fields": keys} if keys else None)


def compare(base: Side, head: Side) -> Report:
    """Compare two loaded sides."""
    return Report(base, head, _Comparer(base, head).run())


def diff_trees(base: str | os.PathLike, head: str | os.PathLike, ignore: str | None = None) -> Report:
    """Load and compare two spec directories (or git revisions of this checkout); raises CompareError."""
    from .source import default_spec_dir
    with contextlib.ExitStack() as stack:
        b = load_side(open_side(str(base), "BASE", default_spec_dir(), stack))
        h = load_side(open_side(str(head), "HEAD", default_spec_dir(), stack))
        report = compare(b, h)
    if ignore:
        apply_ignore(report, read_ignore(ignore))
    return report


# ---------------------------------------------------------------------------------------------
# Ignore files: fingerprints of approved changes


_FP_RE = re.compile(r"^[0-9a-f]{12,64}$")


def read_ignore(path: str) -> list[tuple[str, int]]:
    """(fingerprint prefix, line) per entry. `#` starts a comment; text after the fingerprint is free."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompareError(f"cannot read ignore file {path}: {exc.strerror if isinstance(exc, OSError) else exc}")
    entries, bad = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        token = body.split()[0].lower()
        if token.startswith("sha256:"):
            token = token[7:]
        if not _FP_RE.match(token):
            bad.append(f"{path}:{lineno}:1: error: expected a change fingerprint (12 to 64 hex digits), "
                       f"got {_short(body.split()[0], 40)!r}")
            continue
        entries.append((token, lineno))
    if bad:
        raise CompareError(f"ignore file {path} is malformed:", bad)
    return entries


def apply_ignore(report: Report, entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Mark matching changes ignored; returns the entries that matched nothing."""
    used = set()
    for c in report.changes:
        fp = c.fingerprint
        for prefix, lineno in entries:
            if fp.startswith(prefix):
                c.ignored = True
                used.add(lineno)
    return [(p, n) for p, n in entries if n not in used]


# ---------------------------------------------------------------------------------------------
# Grouping for summaries


@dataclass
class Group:
    key: tuple
    changes: list[Change]

    @property
    def first(self) -> Change:
        return self.changes[0]

    def text(self) -> str:
        """What the group says: its members and what happened to them."""
        c = self.first
        if not c.instruction:
            return c.message
        return f"{self.describe()}: {c.summary}"

    def describe(self) -> str:
        """'32 N values of m64nNk16 .f32.bf16.bf16 (forms reg, desc)' or the single subject."""
        c = self.first
        if not c.instruction:
            return c.subject
        forms = sorted({x.form for x in self.changes if x.form}, key=lambda f: (f != "reg", f))
        ns = sorted({x.n for x in self.changes if x.n is not None})
        shape, rest = _split_pattern(c.pattern, c.instruction)
        form_text = f" (form{'s' * (len(forms) > 1)} {', '.join(forms)})" if forms else ""
        if len(self.changes) == 1:
            return f"{c.subject.split(' ', 1)[0]}" if c.rule != "variant.renamed" else c.subject.split(" -> ")[-1]
        if "nN" in shape and ns:
            if len(ns) == 1:
                label = f"{shape.replace('nN', f'n{ns[0]}')} {rest}".strip()
                return f"`{c.instruction}` {label}{form_text}"
            nlist = ", ".join(map(str, ns)) if len(ns) <= 6 else f"{ns[0]}..{ns[-1]}"
            return f"`{c.instruction}` {len(ns)} N values of {shape} {rest}".rstrip() + f" (N = {nlist})" + form_text
        return f"`{c.instruction}` {shape} {rest}".rstrip() + form_text


def _split_pattern(pattern: str, instruction: str) -> tuple[str, str]:
    """'wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16' -> ('m64nNk16', '.f32.bf16.bf16').

    Qualifiers between the instruction name and the shape, other than .sync and .aligned, stay in
    front of the shape ('.kind::f8f6f4 m16n8k32'), so that groups never print alike."""
    m = re.search(r"m\d+n(?:N|\d+)k\d+", pattern)
    if not m:
        return pattern, ""
    prefix = pattern[:m.start()].rstrip(".")
    quals = []
    if prefix.startswith(instruction):
        quals = [q for q in prefix[len(instruction):].split(".") if q and q not in ("sync", "aligned")]
    lead = "".join(f".{q}" for q in quals)
    return (f"{lead} {m.group(0)}" if lead else m.group(0)), pattern[m.end():]


def group_changes(changes: list[Change]) -> list[Group]:
    groups: dict[tuple, Group] = {}
    for c in changes:
        if c.instruction:
            key = (c.ignored, _RANK[c.severity], c.rule, c.instruction, c.pattern, c.summary, c.file, c.line, c.side)
        else:
            key = (c.ignored, _RANK[c.severity], c.rule, "", c.subject, c.summary, c.file, c.line, c.side)
        groups.setdefault(key, Group(key, [])).changes.append(c)
    return sorted(groups.values(), key=lambda g: (g.key[:4] + (g.first.pattern, g.first.file, g.first.line,
                                                                g.first.subject)))


# ---------------------------------------------------------------------------------------------
# Output formats


def _counts_line(report: Report) -> str:
    n = report.counts()
    line = f"{n['breaking']} breaking, {n['warning']} warning, {n['info']} info"
    if n["ignored"]:
        line += f", {n['ignored']} ignored"
    return line


def render_text(report: Report, fail_on: str | None = None) -> str:
    out = [f"ptxspec diff: BASE {report.base.describe()} -> HEAD {report.head.describe()}"]
    for c in report.changes:
        sev = f"ignored {c.severity}" if c.ignored else c.severity
        where = f"{c.file}:{c.line}:{c.col}"
        side = " (BASE)" if c.side == "base" else ""
        out.append(f"{where}{side}: {sev}: {c.rule}: {c.message} [{c.fingerprint[:16]}]")
    nb, nh = len(report.base.spec.variants), len(report.head.spec.variants)
    out.append(f"{len(report.changes)} change{'s' * (len(report.changes) != 1)}: {_counts_line(report)} "
               f"({nb} -> {nh} variants)")
    failing = report.failing(fail_on)
    if fail_on:
        out.append(f"--fail-on {fail_on}: {len(failing)} failing change{'s' * (len(failing) != 1)}")
    return "\n".join(out) + "\n"


def render_json(report: Report, fail_on: str | None = None) -> str:
    def tree(s: Side) -> dict:
        d = {"label": s.label, "ref": s.ref, "kind": s.kind, "spec": s.shown_spec(),
             "variants": len(s.spec.variants)}
        if s.sha:
            d["commit"] = s.sha
        return d

    failing = report.failing(fail_on)
    doc = {"format_version": FORMAT_VERSION, "base": tree(report.base), "head": tree(report.head),
           "fail_on": fail_on, "failed": bool(failing), "counts": report.counts(),
           "changes": [c.as_data() for c in report.changes]}
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


_SEV_ICON = {"breaking": "\U0001F534", "warning": "\U0001F7E1", "info": "\U0001F535"}
_SEV_TITLE = {"breaking": "Breaking", "warning": "Warnings", "info": "Info"}


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def _link(report: Report, c: Change) -> str:
    side = report.base if c.side == "base" else report.head
    label = f"{c.file}:{c.line}" + (" (BASE)" if c.side == "base" else "")
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if side.kind == "git" and side.sha and server and repo:
        return f"[`{label}`]({server}/{repo}/blob/{side.sha}/{c.file}#L{c.line})"
    return f"`{label}`"


def render_markdown(report: Report, fail_on: str | None = None, budget: int = MARKDOWN_BUDGET) -> str:
    counts = report.counts()
    nb, nh = len(report.base.spec.variants), len(report.head.spec.variants)
    head = [f"### ptxspec diff: `{report.base.describe()}` \u2192 `{report.head.describe()}`", ""]
    if not report.changes:
        head.append(f"No semantic changes ({nh} variants).")
        return "\n".join(head) + "\n"
    bits = [f"**{counts[s]} {s}**" if counts[s] and s != "info" else f"{counts[s]} {s}" for s in SEVERITIES]
    if counts["ignored"]:
        bits.append(f"{counts['ignored']} ignored (approved)")
    head.append(" \u00b7 ".join(bits) + f" \u2014 {nb} \u2192 {nh} variants")
    failing = report.failing(fail_on)
    if fail_on:
        head.append("")
        head.append(f"`--fail-on {fail_on}`: **{len(failing)} failing change{'s' * (len(failing) != 1)}**"
                    if failing else f"`--fail-on {fail_on}`: nothing fails")
    # Table: rule x counts
    table: dict[tuple, list[int]] = {}
    for c in report.changes:
        row = table.setdefault((c.ignored, _RANK[c.severity], c.rule), [0, set()])
        row[0] += 1
        row[1].add(c.instruction or "-")
    head += ["", "| severity | rule | changes | instructions |", "|---|---|---:|---|"]
    for (ign, rank, rule), (n, insts) in sorted(table.items()):
        sev = SEVERITIES[rank]
        label = f"{_SEV_ICON[sev]} {sev}" + (" (ignored)" if ign else "")
        head.append(f"| {label} | `{rule}` | {n} | {', '.join(sorted(insts))} |")
    head.append("")
    out = "\n".join(head) + "\n"
    groups = group_changes(report.changes)
    sections: list[tuple[str, list[Group]]] = []
    for sev in SEVERITIES:
        gs = [g for g in groups if not g.first.ignored and g.first.severity == sev]
        if gs:
            sections.append((f"#### {_SEV_ICON[sev]} {_SEV_TITLE[sev]}", gs))
    ign = [g for g in groups if g.first.ignored]
    if ign:
        sections.append(("#### Ignored (approved in the ignore file)", ign))
    footer = ("\n<sub>Every change with its fingerprint: `ptxspec diff BASE HEAD --format text` (or `json`). "
              "Approve a breaking change by adding its fingerprint to the `--ignore` file.</sub>\n")
    size = len(out.encode()) + len(footer.encode()) + 200
    omitted = 0
    body: list[str] = []
    for title, gs in sections:
        chunk = [f"\n{title}\n"]
        size += len(title) + 3
        for line in _markdown_lines(report, gs):
            cost = len(line.encode()) + 1
            if size + cost > budget:
                omitted += 1
                continue
            chunk.append(line)
            size += cost
        fps = [c for g in gs for c in g.changes if c.severity != "info" and not c.ignored]
        if fps and len(chunk) > 1 and len(fps) <= 200:
            listing = "\n".join(f"{c.fingerprint}  {c.rule} {c.subject}" for c in fps)
            block = (f"\n<details><summary>{len(fps)} fingerprint{'s' * (len(fps) != 1)} "
                     f"(to approve in an ignore file)</summary>\n\n```\n{listing}\n```\n</details>")
            if size + len(block.encode()) <= budget:
                chunk.append(block)
                size += len(block.encode())
        if len(chunk) > 1:
            body.append("\n".join(chunk))
    out += "\n".join(body) + "\n"
    if omitted:
        out += (f"\n_{omitted} more group{'s' * (omitted != 1)} left out to stay under GitHub's 64 KB; "
                "run `ptxspec diff BASE HEAD --format text` for the full list._\n")
    return out + footer


def _markdown_lines(report: Report, groups: list[Group]) -> list[str]:
    """One line per group; a run of more than 5 lone definition changes of one rule and file is one line."""
    lines, i = [], 0
    while i < len(groups):
        g = groups[i]
        c = g.first
        if not c.instruction:
            j = i
            while (j < len(groups) and not groups[j].first.instruction and groups[j].first.rule == c.rule
                   and groups[j].first.file == c.file and groups[j].first.ignored == c.ignored):
                j += 1
            if j - i > 5:
                run = [x.first for x in groups[i:j]]
                names = ", ".join(x.subject for x in run)
                lines.append(f"- `{c.rule}` \u00d7{len(run)} in `{c.file}` (lines {run[0].line}-{run[-1].line}"
                             f"{', BASE' if c.side == 'base' else ''}): {_md_escape(_short(names, 600))}")
                i = j
                continue
        n = len(g.changes)
        count = f" \u00d7{n}" if n > 1 else ""
        line = f"- `{c.rule}`{count} {_md_escape_desc(g.text())} \u2014 {_link(report, c)}"
        if c.rule == "fragment.moved":
            line += f" ({_md_escape(c.message.split(': ', 2)[-1])} at n={c.n} {c.form})"
        lines.append(line)
        i += 1
    return lines


def _md_escape_desc(text: str) -> str:
    # keep the code spans of describe() intact, escape the rest
    parts = text.split("`")
    return "`".join(p if i % 2 else _md_escape(p) for i, p in enumerate(parts))


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


_GH_LEVEL = {"breaking": "error", "warning": "warning", "info": "notice"}


def render_github(report: Report, fail_on: str | None = None) -> str:
    """Workflow commands: one annotation per rule and cause location (GitHub shows a few per step)."""
    buckets: dict[tuple, list[Group]] = {}
    for g in group_changes(report.changes):
        c = g.first
        buckets.setdefault((c.ignored, _RANK[c.severity], c.rule, c.file, c.line), []).append(g)
    lines = []
    for (ignored, rank, rule, file, line), gs in sorted(buckets.items(), key=lambda kv: kv[0]):
        sev = SEVERITIES[rank]
        level = "notice" if ignored else _GH_LEVEL[sev]
        n = sum(len(g.changes) for g in gs)
        col = gs[0].first.col
        side = " (BASE)" if gs[0].first.side == "base" else ""
        title = f"{rule}: {n} {sev} change{'s' * (n != 1)}{' (ignored)' if ignored else ''}{side}"
        parts = [g.text().replace("`", "") for g in gs]
        msg, used = "", 0
        for i, p in enumerate(parts):
            if len(msg) + len(p) > 3000:
                msg += f"\n... and {len(parts) - i} more"
                break
            msg += ("\n" if msg else "") + p
        lines.append(f"::{level} file={_gh_prop(file)},line={line},col={col},title={_gh_prop(title)}::{_gh_data(msg)}")
    counts = _counts_line(report)
    failing = report.failing(fail_on)
    summary = f"ptxspec diff {report.base.describe()} -> {report.head.describe()}: {counts}"
    if fail_on:
        summary += f"; --fail-on {fail_on}: {len(failing)} failing"
    lines.append(summary)
    return "\n".join(lines) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "github": render_github}


# ---------------------------------------------------------------------------------------------
# The command


def cmd_diff(args) -> int:
    from .source import default_spec_dir
    fmt = getattr(args, "format", None) or "text"
    fail_on = getattr(args, "fail_on", None)
    default = Path(args.spec) if getattr(args, "spec", None) else default_spec_dir()
    try:
        with contextlib.ExitStack() as stack:
            entries = read_ignore(args.ignore) if getattr(args, "ignore", None) else None
            base = open_side(args.base, "BASE", default, stack)
            head = open_side(args.head, "HEAD", default, stack) if args.head else Side("HEAD", str(default),
                                                                                        "directory", default)
            errors = []
            for side in (base, head):  # both, so that one run names every problem of either tree
                try:
                    load_side(side)
                except CompareError as exc:
                    errors.append(exc)
            if len(errors) == 1:
                raise errors[0]
            if errors:
                raise CompareError("neither BASE nor HEAD can be loaded:",
                                   [line for e in errors for line in (e.headline, *e.lines)],
                                   [a for e in errors for a in e.annotations])
            report = compare(base, head)
            unused = apply_ignore(report, entries) if entries is not None else []
            text = RENDERERS[fmt](report, fail_on)
    except CompareError as exc:
        print(f"ptxspec diff: cannot compare: {exc.headline}", file=sys.stderr)
        for line in exc.lines:
            print(line, file=sys.stderr)
        if fmt == "github":
            for file, line, col, msg, label in exc.annotations:
                title = _gh_prop(f"ptxspec diff: {label} is not a valid spec")
                print(f"::error file={_gh_prop(file)},line={line},col={col},title={title}::{_gh_data(msg)}")
            if not exc.annotations:
                print(f"::error title=ptxspec diff%3A cannot compare::{_gh_data(exc.headline)}")
        return EXIT_CANNOT
    for prefix, lineno in unused:
        print(f"{args.ignore}:{lineno}:1: warning: fingerprint {prefix} matches no change", file=sys.stderr)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return EXIT_FAIL if report.failing(fail_on) else EXIT_OK
