"""Where the repository's directories are (kept import-light: the query CLI starts here)."""
from pathlib import Path


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def schema_dir() -> Path:
    return repo_root() / "schema"


def default_spec_dir() -> Path:
    return repo_root() / "spec"


def default_database() -> Path:
    return repo_root() / "generated" / "ptxspec.sqlite"
