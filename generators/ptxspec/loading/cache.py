"""The resolved model on disk: `ptxspec.load()` on an unchanged spec reads it back instead of
resolving it again.

A cached model is the pickle of a Spec that loaded without a problem, filed under a key that
digests everything its loading read or ran: every file of the spec tree, of the schemas and of
the evidence directory (where they lie, their paths and bytes; the digest of each record they
name, against which the loader checks their results, and whether each notes file they name
exists), every file of the ptxspec package itself (code and
templates), and the Python and numpy versions (the pickle's, and `Formula`'s marshalled code; the
resolver computes with numpy). numpy's version is read from its installed files: reading a cached
model imports no numpy.
Change any of them and the key changes: the spec is resolved and checked in full, and the new
model is filed under the new key. A changed spec is never read from the cache.

The cache is never trusted blindly. A file starts with a header naming the format, the key it
was written for and the SHA-256 of its payload; a file whose header or digest does not match,
that does not unpickle, or whose pickle names anything but the model's own classes and numpy's
(a restricted unpickler), is ignored, removed and rebuilt. Where the cache cannot be written (a
read-only home, a full disk) ptxspec loads as if there were none.

The directory is the platform's user cache directory (platformdirs: ~/.cache/ptxspec on Linux),
or `PTXSPEC_CACHE_DIR`; `PTXSPEC_CACHE_DIR=off` turns the cache off.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib.machinery
import io
import os
import pickle
import sys
import tempfile
from pathlib import Path

import platformdirs

from ptxspec.core.paths import EVIDENCE_FILES, PTXAS_EVIDENCE_FILES, schema_dir
from ptxspec.core.version import __version__
from ptxspec.loading.evidence_checks import referenced
from ptxspec.model.spec import Spec

FORMAT = b"ptxspec-model-1"
ENV = "PTXSPEC_CACHE_DIR"
PACKAGE = Path(__file__).resolve().parents[1]  # generators/ptxspec, or the installed package
#: what a cached model may name besides ptxspec's own classes: numpy's arrays and scalars, and the
#: builtins and library types dataclasses and sets are made of
ALLOWED = {"builtins": {"dict", "list", "tuple", "set", "frozenset", "slice", "complex", "bytearray", "range"},
           "collections": {"OrderedDict", "defaultdict", "Counter"},
           "copyreg": {"_reconstructor"}, "functools": {"partial"}, "_codecs": {"encode"}}
ALLOWED_PREFIXES = ("ptxspec.", "numpy", "ml_dtypes")
KEEP = 8  # models kept, the most recently used: one per spec tree a user works on, not one per edit


def directory() -> Path | None:
    """Where cached models live; None when the cache is off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "none") else Path(chosen)
    return platformdirs.user_cache_path("ptxspec")


def _digest_tree(hasher, root: Path, skip: tuple[str, ...] = (), pattern: str = "**/*") -> None:
    """Every entry under root that `pattern` matches into hasher, in path order: its relative path,
    and a file's bytes (any other entry by its kind: a stray link or device is a change too)."""
    if not root.is_dir():
        hasher.update(b"none\0")
        return
    for path in sorted(p for p in root.glob(pattern) if not any(part in skip for part in p.parts)):
        rel = path.relative_to(root).as_posix().encode()
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            hasher.update(rel + b"\0other\0" + os.fsencode(os.readlink(path) if path.is_symlink() else "") + b"\0")
        elif path.is_file():
            hasher.update(rel + b"\0file\0" + path.read_bytes() + b"\0")
        else:
            hasher.update(rel + b"\0dir\0")


def _numpy_version() -> bytes:
    """The installed numpy's version file (`numpy/version.py`: its version and git revision), found as
    `import numpy` would find it, without importing it (sys.modules may hold ptxspec.core.lazy's
    placeholder, which any attribute read would load)."""
    found = importlib.machinery.PathFinder.find_spec("numpy")
    if found is None or not found.submodule_search_locations:
        return b"no numpy"
    for where in found.submodule_search_locations:
        with contextlib.suppress(OSError):
            return (Path(where) / "version.py").read_bytes()
    return b"numpy without version.py"


def key(spec_dir: Path, evidence_dir: Path | None) -> str:
    """The digest of everything loading `spec_dir` (with `evidence_dir`) reads or runs."""
    h = hashlib.sha256(FORMAT + b"\0" + __version__.encode() + b"\0" + sys.version.encode() + b"\0"
                       + _numpy_version() + b"\0")
    h.update("\0".join(referenced(evidence_dir)).encode() + b"\0")  # the records and notes evidence names
    for label, root, skip, pattern in (("spec", spec_dir, (), "**/*"), ("schema", schema_dir(), (), "**/*"),
                                       ("evidence", evidence_dir, (), EVIDENCE_FILES),
                                       ("ptxas evidence", evidence_dir, (), PTXAS_EVIDENCE_FILES),
                                       ("ptxspec", PACKAGE, ("__pycache__", "data"), "**/*")):
        h.update(label.encode() + b"\0")
        if root is None:
            h.update(b"none\0")
        else:  # where it lies too: the model's positions name its files
            h.update(str(Path(root).resolve()).encode() + b"\0")
            _digest_tree(h, Path(root), skip, pattern)
    return h.hexdigest()


class _Unpickler(pickle.Unpickler):
    """Only the model's own classes (ptxspec.*), numpy's, and a few builtins may be named."""

    def find_class(self, module: str, name: str):
        if module.startswith(ALLOWED_PREFIXES) or name in ALLOWED.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a cached model may not name {module}.{name}")


def _path(where: Path, k: str) -> Path:
    return where / f"model-{k[:40]}.pickle"


def read(k: str) -> Spec | None:
    """The model cached under key k, or None (no cache, no file, or a file that is not what it claims)."""
    where = directory()
    if where is None:
        return None
    path = _path(where, k)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    spec = _decode(data, k)
    with contextlib.suppress(OSError):
        if spec is None:  # damaged or foreign: gone, so that the next load writes a good one
            path.unlink()
        else:  # used: the last to go
            os.utime(path)
    return spec


def _decode(data: bytes, k: str) -> Spec | None:
    header, sep, payload = data.partition(b"\n\n")
    want = FORMAT + b" " + k.encode() + b" " + hashlib.sha256(payload).hexdigest().encode()
    if not sep or header != want:
        return None
    collecting = gc.isenabled()
    gc.disable()  # the model's tens of thousands of new containers would set off full collections: none is garbage
    try:
        spec = _Unpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - whatever a damaged pickle raises, the cache is ignored
        return None
    finally:
        if collecting:
            gc.enable()
    return spec if isinstance(spec, Spec) else None


def write(k: str, spec: Spec) -> None:
    """File the model under key k (atomically); a cache that cannot be written is no error."""
    where = directory()
    if where is None:
        return
    payload = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
    data = FORMAT + b" " + k.encode() + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n\n" + payload
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".model-", dir=where)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, _path(where, k))
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(tmp)
        return
    _evict(where)


def _evict(where: Path) -> None:
    """Keep the KEEP models used last; a cache of every spec ever loaded would only grow."""
    with contextlib.suppress(OSError):
        models = sorted(where.glob("model-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in models[KEEP:]:
            old.unlink()
