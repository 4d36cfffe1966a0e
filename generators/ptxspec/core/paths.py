"""Where the spec, the schemas and the built database are (import-light: the query CLI starts here).

Two layouts hold the same files under the same relative paths (`spec/`, `schema/`,
`generated/ptxspec.sqlite`, ...):

- an installed wheel carries them as package data, `ptxspec/data/` beside the package's modules
  (the build backend's hook, `hatch_build.py`, copies `PACKAGE_DATA` there). They are found from
  the package's own directory: SQLite opens only real files, so a zipped install cannot work, and
  `importlib.resources` (a third of the query command's imports) would add nothing;
- a source checkout (editable install, or `PYTHONPATH=generators:generated`) is itself that
  root: the package's data directory is absent, and the checkout is recognised by its
  `pyproject.toml` and `spec/isa.yaml` two levels above the package.

`data_root()` returns whichever applies; every other path derives from it. Only a checkout is
writable by `ptxspec build` without `--out` (`checkout_root()` is None for an installed package).
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

#: The files an installed package needs, as globs relative to the root (the checkout): what `load`,
#: `validate`, `build --out`, `query`, `render`, `execute` and `serve` read. The wheel's build hook
#: copies exactly these into `ptxspec/data/`; nothing is committed twice.
PACKAGE_DATA = (
    "spec/**/*.yaml",
    "schema/*.schema.json",
    "generated/ptxspec.sqlite",
    "generated/datasette.json",
    "evidence/*.json",  # the hardware campaigns the model joins (not their raw records)
    "evidence/ptxas/*.json",  # the ptxas recordings the model joins (which release proved each variant)
    "examples/*.j2",
)
DATA_PACKAGE_DIR = "data"  # inside the `ptxspec` package
#: the directory of the package whose data directory holds the files (this module lives in ptxspec.core)
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


class DataNotFound(Exception):
    """Neither package data nor a checkout: a broken install."""


@lru_cache(maxsize=1)
def checkout_root() -> Path | None:
    """The source checkout this package runs from, or None when it is installed from a wheel."""
    if (_PACKAGE_DIR / DATA_PACKAGE_DIR).is_dir():
        return None
    root = _PACKAGE_DIR.parents[1]  # generators/ptxspec/core/paths.py -> the checkout
    if (root / "pyproject.toml").is_file() and (root / "spec" / "isa.yaml").is_file():
        return root
    return None


@lru_cache(maxsize=1)
def data_root() -> Path:
    """The directory holding spec/, schema/, generated/... (package data, or the checkout)."""
    packaged = _PACKAGE_DIR / DATA_PACKAGE_DIR
    if packaged.is_dir():
        return packaged
    root = checkout_root()
    if root is None:
        if not _PACKAGE_DIR.is_dir():  # imported from a zip file: package data must be real files here
            raise DataNotFound(f"ptxspec's package data is not on the file system ({packaged}); "
                               "install the wheel unzipped (pip does)")
        raise DataNotFound(f"ptxspec's package data ({packaged}) is missing and {_PACKAGE_DIR} "
                           "is not in a source checkout; reinstall ptxspec")
    return root


def repo_root() -> Path:  # the former name: the data root is the checkout root in a checkout
    return data_root()


def schema_dir() -> Path:
    return data_root() / "schema"


def default_spec_dir() -> Path:
    return data_root() / "spec"


def default_database() -> Path:
    return data_root() / "generated" / "ptxspec.sqlite"


def datasette_metadata() -> Path:
    return data_root() / "generated" / "datasette.json"


def evidence_dir() -> Path:
    return data_root() / "evidence"


def examples_dir() -> Path:
    return data_root() / "examples"


def default_build_dir() -> Path | None:
    """Where `ptxspec build` writes without --out: the checkout's generated/ (None when installed)."""
    root = checkout_root()
    return None if root is None else root / "generated"


#: the files of an evidence directory the loader reads (the records under records/ are the tests')
EVIDENCE_FILES = "*.json"
#: the ptxas recordings of an evidence directory (ptxspec.loading.ptxas_evidence reads them)
PTXAS_EVIDENCE_FILES = "ptxas/*.json"


def default_evidence_dir(spec_dir: str | os.PathLike) -> Path:
    """The evidence that goes with a spec tree: the `evidence` directory beside it."""
    return Path(spec_dir).resolve().parent / "evidence"
