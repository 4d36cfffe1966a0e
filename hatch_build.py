"""Build hook: the wheel carries the package data (`ptxspec.core.paths.PACKAGE_DATA`) as `ptxspec/data/`.

The files stay where the checkout keeps them (spec/, schema/, generated/...); this hook maps each
into the package at build time, so the repository holds one copy and an installed package finds
them through importlib.resources. The sdist gets them at their checkout paths (a wheel built from
it is the same). Editable installs get nothing copied: they read the checkout.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _paths_module(root: Path):
    spec = importlib.util.spec_from_file_location("_ptxspec_paths", root / "generators" / "ptxspec" / "core" / "paths.py")
    assert spec is not None and spec.loader is not None  # a .py file always has a spec and a loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def package_data(root: Path, prefix: str) -> dict[str, str]:
    """{source path: prefix + its path relative to root} for every file of PACKAGE_DATA."""
    paths = _paths_module(root)
    out = {}
    for pattern in paths.PACKAGE_DATA:
        found = sorted(p for p in root.glob(pattern) if p.is_file() and "__pycache__" not in p.parts)
        if not found:
            raise FileNotFoundError(f"package data {pattern!r} matches no file under {root}")
        for p in found:
            rel = p.relative_to(root).as_posix()
            out[str(p)] = prefix + rel
    return out


class PackageDataHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":
            return
        root = Path(self.root)
        if self.target_name == "wheel":  # into the package
            prefix = f"ptxspec/{_paths_module(root).DATA_PACKAGE_DIR}/"
        else:  # the sdist keeps them where the checkout has them, to build the same wheel
            prefix = ""
        build_data["force_include"].update(package_data(root, prefix))
