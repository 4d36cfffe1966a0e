"""Reading a spec tree: every YAML file, checked against the JSON Schema of its `kind`.

This is the only module that reads `spec/`. It returns the parsed documents, grouped by kind,
with positions intact, or raises SpecError listing every problem found in every file.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
import jsonschema.validators
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from referencing import Registry, Resource

from ptxspec.core.errors import Pos, PosDict, PosList, Problems, SpecError, did_you_mean
from ptxspec.core.paths import default_spec_dir, repo_root, schema_dir  # noqa: F401 (re-exported)
from ptxspec.loading.compose import compose
from ptxspec.loading.upgrade import MOVED
from ptxspec.loading.upgrade import upgrade as upgrade_tree
from ptxspec.core.files import read_regular
from ptxspec.loading.yamlsrc import load_file

KINDS = ("isa", "types", "family", "instruction", "layouts", "smem", "descriptor", "errata", "numerics")
SCHEMA_BASE = "https://ptxspec.dev/schema/"


@lru_cache(maxsize=1)
def _validators() -> dict[str, Validator]:
    schemas = {}
    for path in sorted(schema_dir().glob("*.schema.json")):
        if path.name == "database.schema.json":
            continue
        schemas[path.name] = json.loads(path.read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        (SCHEMA_BASE + name, Resource.from_contents(body)) for name, body in schemas.items())
    return {kind: _StrictValidator(schemas[f"{kind}.schema.json"], registry=registry) for kind in KINDS}


# JSON Schema calls 1.0 an integer; a spec's integer is an int (`!!float 3` is no bit width: it
# reached `1 << 3.0` in the resolver, fuzz seed 32, tree 4693)
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool)))


def schema_of(kind: str) -> dict:
    schema = _validators()[kind].schema
    assert isinstance(schema, dict)  # every schema file is an object
    return schema


class Tree(dict):
    """Documents grouped by kind, plus a digest of the tree's files (relative paths and bytes)."""

    digest: str = ""
    root: str = ""


@dataclass
class Document:
    path: str
    kind: str
    data: PosDict


def locate(doc: Any, path) -> Pos | None:
    """The position of the value at a JSON path inside a positioned document."""
    node, pos = doc, getattr(doc, "pos", None)
    for part in path:
        if isinstance(node, PosDict) and part in node:
            pos, node = node.at(part), node[part]
        elif isinstance(node, PosList) and isinstance(part, int) and part < len(node):
            pos, node = node.at(part), node[part]
        else:
            break
        pos = getattr(node, "pos", pos)
    return pos


def _key_pos(doc: Any, path, key: str) -> Pos | None:
    node = doc
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node.at(key) if isinstance(node, PosDict) else None


def _schema_problems(doc: Document, problems: Problems) -> None:
    validator = _validators()[doc.kind]
    for error in validator.iter_errors(doc.data):
        while error.context:  # oneOf/anyOf: report the branch that fits the value's type best
            specific = [e for e in error.context if e.validator != "type"]
            error = best_match(specific or error.context) or error
            if not error.context:
                break
        path = list(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            for key in error.instance:
                if key not in allowed:
                    pos = _key_pos(doc.data, path, key) or locate(doc.data, path) or Pos(doc.path)
                    moved = MOVED.get((doc.kind, key))
                    problems.add(pos, f"unknown key {key!r}" + (f": it moved to {moved}" if moved
                                                                 else did_you_mean(key, allowed)))
            continue
        pos = locate(doc.data, path) or Pos(doc.path)
        where = "/".join(str(p) for p in path) or "document"
        problems.add(pos, f"{where}: {_message(error)}")


def _message(error) -> str:
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {', '.join(map(repr, error.validator_value))}"
    if error.validator == "pattern":
        desc = error.schema.get("description", f"pattern {error.validator_value}")
        return f"{error.instance!r} does not match: {desc}"
    if error.validator == "type" and isinstance(error.instance, float):
        if "integer" in (error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]):
            return f"{error.instance!r} is a float here (a `!!float` tag?); this is a whole number"
        return f"{error.instance!r} is a number here; quote it (e.g. \"8.0\") for a version string"
    if error.validator == "const":
        return f"{error.instance!r} should be {error.validator_value!r}"
    return error.message


#: Where each kind of spec file lives, relative to the spec directory ("{family}": the family the
#: file names). A kind missing here may live anywhere; a file elsewhere is an error, not ignored.
PLACES = {
    "isa": ("isa.yaml",),
    "types": ("types.yaml",),
    "numerics": ("numerics.yaml",),
    "family": ("families/{family}/family.yaml",),
    "instruction": ("families/{family}/*.yaml",),
    "layouts": ("layouts/*.yaml",),
    "smem": ("smem/*.yaml",),
    "errata": ("errata/*.yaml",),
}
SPEC_SUFFIX = ".yaml"


def spec_files(root: Path, problems: Problems) -> list[tuple[Path, bytes]]:
    """Every spec file under root with its bytes, in path order. Only directories and regular files
    (or links to regular files) belong in a spec tree: special files, links to directories, broken
    or looping links, unreadable entries and files not named *.yaml are reported, never skipped."""
    found: list[tuple[Path, bytes]] = []
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.add(Pos(str(directory)), f"cannot read directory: {exc.strerror or exc}")
            continue
        subdirs = []
        for entry in entries:
            path = Path(entry.path)
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(path)
                    continue
                if entry.is_symlink() and os.path.isdir(path):
                    problems.add(Pos(str(path)), "a symbolic link to a directory: spec trees hold real "
                                 "directories (links are not followed)")
                    continue
            except OSError as exc:
                problems.add(Pos(str(path)), f"cannot read: {exc.strerror or exc}")
                continue
            if not entry.name.endswith(SPEC_SUFFIX):
                problems.add(Pos(str(path)), _not_a_spec_name(entry.name))
                continue
            try:
                found.append((path, read_regular(str(path))))
            except OSError as exc:
                broken = exc.errno == errno.ENOENT and entry.is_symlink()
                problems.add(Pos(str(path)), f"a broken symbolic link (to {os.readlink(path)})" if broken
                             else f"cannot read: {exc.strerror or exc}")
        stack.extend(reversed(subdirs))
    return sorted(found)


def _not_a_spec_name(name: str) -> str:
    low = name.lower()
    if low.endswith((".yaml", ".yml")) or ".yaml" in low or ".yml" in low:
        return (f"spec files end in exactly {SPEC_SUFFIX!r}: rename this one, or move it out of the spec "
                "directory (it would be ignored)")
    return f"not a spec file: a spec directory holds only *{SPEC_SUFFIX} files (move this one out of it)"


def _place_problem(rel: str, kind: str) -> str | None:
    """Why a file of this kind may not stand at rel (relative to the spec directory), or None.
    ("{family}" matches any folder here; that it is the file's own family is checked with the model.)"""
    places = PLACES.get(kind)
    if places is None:
        return None
    here = PurePosixPath(rel)
    for place in places:
        pattern = PurePosixPath(place.replace("{family}", "*"))
        if len(here.parts) == len(pattern.parts) and here.match(str(pattern)):
            if kind == "instruction" and here.name == "family.yaml":
                return "family.yaml is the family's own file; name the instruction file after the instruction"
            return None
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} file does not belong at {rel}: {kind} files go at {' or '.join(places)}"


def read_tree(spec_dir: str | os.PathLike | None = None, *, upgrade: bool = False) -> Tree:
    """Parse and schema-check every `*.yaml` under spec_dir, grouped by kind. With `upgrade`, facts
    an older tree keeps where they used to live are moved where they live now (ptxspec diff)."""
    root = Path(spec_dir) if spec_dir is not None else default_spec_dir()
    problems = Problems()
    if not root.is_dir():
        problems.add(Pos(str(root)), "spec directory not found")
        problems.raise_if_any()
    files = spec_files(root, problems)
    if not files and not problems:
        problems.add(Pos(str(root)), "no .yaml files in spec directory")
    docs = Tree({k: [] for k in KINDS})
    hasher = hashlib.sha256()
    parsed: list[tuple[str, str, PosDict, bool]] = []  # (path, kind, data, misplaced)
    for path, raw in files:
        rel = path.relative_to(root).as_posix()
        hasher.update(rel.encode() + b"\0" + raw + b"\0")
        before = len(problems.items)
        data = load_file(str(path), problems, raw)
        if len(problems.items) > before:
            continue
        if data is None:  # "---", "~" or "null" alone: a document with nothing in it
            problems.add(Pos(str(path)), "the document is empty (null); a spec file is a mapping with a `kind`")
            continue
        if not isinstance(data, PosDict):
            problems.add(getattr(data, "pos", Pos(str(path))), "a spec file must be a mapping")
            continue
        kind = data.get("kind")
        if kind not in KINDS:
            problems.add(data.at("kind"), f"kind must be one of {', '.join(KINDS)}; got {kind!r}"
                         + (did_you_mean(kind, KINDS) if isinstance(kind, str) else ""))
            continue
        misplaced = _place_problem(rel, kind)
        if misplaced:
            problems.add(data.at("kind"), misplaced)
        schema_ref = data.get("$schema")
        if isinstance(schema_ref, str) and os.path.basename(schema_ref) != f"{kind}.schema.json":
            problems.add(data.at("$schema"), f"$schema should name {kind}.schema.json for kind {kind!r}")
        parsed.append((str(path), kind, data, bool(misplaced)))
    unread = {str(path) for path, _ in files} - {path for path, *_ in parsed}  # reported already
    for path, kind, data, misplaced in _composed(upgrade_tree(parsed) if upgrade else parsed, problems, unread):
        doc = Document(path, kind, data)
        _schema_problems(doc, problems)
        if not misplaced:
            docs[kind].append(doc)
    for kind in ("isa", "types", "numerics"):
        if len(docs[kind]) > 1:
            for extra in docs[kind][1:]:
                problems.add(extra.data.pos, f"a second {kind!r} file (first: {docs[kind][0].path})")
        elif not docs[kind] and not problems and kind != "numerics":  # no rules: no arithmetic model
            problems.add(Pos(str(root)), f"no file of kind {kind!r}")
    problems.raise_if_any()
    docs.digest = hasher.hexdigest()
    docs.root = str(root)
    return docs


def _composed(parsed, problems: Problems, unread: set[str]):
    """The documents with their pieces and defaults composed (ptxspec.loading.compose): a family's
    pieces serve the instruction files of its folder (a file elsewhere: those of the family it
    names), and each must be used by one of them. Where the folder's family.yaml did not load, a
    piece its files cannot find is no problem of theirs: their documents are left out, unreported."""
    by_folder, by_name = {}, {}
    for path, kind, data, _ in parsed:
        if kind == "family" and isinstance(data.get("pieces"), dict):
            by_folder[os.path.dirname(path)] = data["pieces"]
            if isinstance(data.get("name"), str):
                by_name[data["name"]] = data["pieces"]
    broken = {os.path.dirname(p) for p in unread if os.path.basename(p) == "family.yaml"}
    users = {os.path.dirname(path) for path, kind, *_ in parsed if kind == "instruction"}
    used: set = set()
    out = []
    for path, kind, data, misplaced in parsed:
        folder, scope, sink = os.path.dirname(path), None, problems
        if kind == "instruction":  # `family` is not checked yet (the schema pass comes after): a list or a
            # mapping there is no name to look up (fuzz seed 33, tree 1717: `family: !!seq []` was hashed)
            scope = by_folder[folder] if folder in by_folder else by_name.get(_text(data.get("family")))
            sink = Problems() if folder in broken else problems
        before = len(sink.items)
        composed = compose(data, scope, sink, used, own_used_here=kind != "family")
        if len(sink.items) == before:  # a document that did not compose is not checked further:
            out.append((path, kind, composed, misplaced))  # its schema errors would be echoes
    if problems.items:  # a piece in error, or its user, is not used either: say nothing of unused pieces
        return out
    for folder, pieces in by_folder.items():
        for name in pieces if folder in users else ():  # (a folder without instruction files: nothing uses them)
            if (id(pieces), name) not in used:
                problems.add(pieces.at(name), f"piece {name!r} of the family is used by none of its instruction files")
    return out


def _text(value: Any) -> str | None:
    """A document's field read before the schema pass: the string it is, or None (never hashed as it is)."""
    return value if isinstance(value, str) else None


__all__ = ["read_tree", "Document", "SpecError", "locate", "default_spec_dir", "schema_of"]
