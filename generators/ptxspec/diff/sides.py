"""The two sides of a comparison: a spec directory or a git revision, opened and loaded.

A revision's spec/ is read straight from git (`git archive`) into a temporary directory and
checked against the working tree's schema/; its files are named as the repository has them.
"""
from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptxspec.core.errors import PosDict, SpecError
from ptxspec.loading.resolve import build_model
from ptxspec.loading.tree import read_tree


class CompareError(Exception):
    """The trees could not be compared; `lines` are printed one per line."""

    def __init__(self, headline: str, lines: Sequence[str] = (), annotations: Sequence[tuple] = ()):
        self.headline = headline
        self.lines = list(lines)
        self.annotations = list(annotations)  # (file, line, col, message, "BASE" or "HEAD")
        super().__init__(headline)


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
    index: Index = field(default_factory=lambda: Index(), repr=False)

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


# ---------------------------------------------------------------------------------------------
# Opening: a directory or a git revision


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
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:  # pragma: no cover - Python without extraction filters
                tar.extractall(tmp)
    except (tarfile.TarError, OSError) as exc:  # a link out of the tree, say: never followed
        raise CompareError(f"{label} {arg!r} ({sha[:12]}): cannot read its {rel}/: "
                           f"{type(exc).__name__}: {exc}") from None
    return Side(label, arg, "git", tmp / rel, shown_root=tmp, sha=sha)


# ---------------------------------------------------------------------------------------------
# Loading: the positioned documents, the model and an index of the documents by name


_LOADED: collections.OrderedDict[tuple, tuple] = collections.OrderedDict()  # a few recent trees


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
    key = _tree_key(side.spec_dir)
    if key is not None and key in _LOADED:
        _LOADED.move_to_end(key)
        side.docs, side.spec, side.index = _LOADED[key]
        return side
    try:
        side.docs = tree = read_tree(side.spec_dir, upgrade=True)  # a revision from before a fact moved
        side.spec = build_model(tree, evidence=False)  # a spec diff compares specs, not campaigns
    except SpecError as exc:
        lines, notes = [], []
        for p in exc.problems:
            where = side.path(p.pos.path)
            msg = side.scrub(p.message)
            lines.append(f"{where}:{p.pos.line}:{p.pos.col}: error: {msg}")
            notes.append((where, p.pos.line, p.pos.col, msg, side.label))
        raise CompareError(f"{side.label} ({side.describe()}) is not a valid spec "
                           f"({len(exc.problems)} problem{'s' * (len(exc.problems) != 1)}):", lines, notes) from None
    except Exception as exc:  # noqa: BLE001 - never a traceback for input we cannot read
        raise CompareError(f"{side.label} ({side.describe()}) could not be loaded: "
                           f"{type(exc).__name__}: {side.scrub(str(exc))}") from None
    side.index = Index(side.docs)
    if key is not None:
        _LOADED[key] = (side.docs, side.spec, side.index)
        while len(_LOADED) > 4:
            _LOADED.popitem(last=False)
    return side


class Index:
    """The positioned YAML of one tree, by the names the model uses: where each definition stands."""

    def __init__(self, docs: dict | None = None):
        self.inst, self.groups, self.families, self.smem, self.descriptors = {}, {}, {}, {}, {}
        self.layouts, self.types, self.targets, self.ptx, self.errata = {}, {}, {}, {}, {}
        self.tmem: dict = {}  # (family, descriptor) -> the `tmem:` of a layouts file that places it
        self.files: dict[str, Any] = {}
        for kind, items in (docs or {}).items():
            for doc in items:
                self.files[doc.path] = doc.data
                getattr(self, f"_{kind}", self._other)(doc.data)

    def _other(self, d) -> None:
        pass

    def _instruction(self, d) -> None:
        self.inst.setdefault(d.get("name"), d)
        for g in d.get("groups") or []:
            if isinstance(g, dict):
                self.groups.setdefault((d.get("name"), g.get("name")), g)

    def _family(self, d) -> None:
        self.families.setdefault(d.get("name"), d)

    def _smem(self, d) -> None:
        self.smem.setdefault(d.get("family"), d)

    def _descriptor(self, d) -> None:
        self.descriptors.setdefault((d.get("family"), d.get("name")), d)

    def _layouts(self, d) -> None:
        t = d.get("tmem")
        if isinstance(t, PosDict):
            self.tmem.setdefault((d.get("family"), t.get("descriptor")), t)
        for section in ("fragments", "sparsity"):
            entries = d.get(section)
            if isinstance(entries, PosDict):
                for name, body in entries.items():
                    self.layouts.setdefault(name, (body, entries.at(name)))

    def _types(self, d) -> None:
        for i, t in enumerate(d.get("types") or []):
            self.types.setdefault(t.get("name"), (t, d["types"].at(i)))

    def _isa(self, d) -> None:
        for i, t in enumerate(d.get("targets") or []):
            self.targets.setdefault(t.get("name"), (t, d["targets"].at(i)))
        for i, v in enumerate(d.get("ptx_versions") or []):
            self.ptx.setdefault(str(v.get("version")), (v, d["ptx_versions"].at(i)))

    def _errata(self, d) -> None:
        for i, e in enumerate(d.get("errata") or []):
            self.errata.setdefault(e.get("id"), (e, d["errata"].at(i)))

    def n_sets_used(self) -> set[tuple[str, str]]:
        """(family, n_set name) of every N set some group of this tree names."""
        fam_of = {name: d.get("family") for name, d in self.inst.items()}
        used = set()
        for (inst, _), g in self.groups.items():
            shape = g.get("shape")
            for one in shape if isinstance(shape, list) else [shape]:  # a shape, or a list of shapes
                if isinstance(one, dict) and isinstance(one.get("n"), str):
                    used.add((fam_of.get(inst), one["n"]))
        return used
