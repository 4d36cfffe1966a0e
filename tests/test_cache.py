"""The model cache (ptxspec.loading.cache): an unchanged spec loads from it, a changed one never does,
and a damaged or foreign cache file is ignored and rebuilt, never trusted."""
from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

import ptxspec
from ptxspec.core.errors import SpecError
from ptxspec.loading import cache
from ptxspec.query.populate import rows

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV, str(where))
    return where


def _models(where: Path) -> list[Path]:
    return sorted(where.glob("model-*.pickle"))


@pytest.fixture(scope="module")
def fresh():
    """The model resolved from the YAML, with no cache involved."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cache.ENV, "off")
        return ptxspec.load()


def test_a_cached_model_is_the_model(cache_dir, fresh):
    first = ptxspec.load()
    assert len(_models(cache_dir)) == 1
    again = ptxspec.load()
    assert again is not first and len(_models(cache_dir)) == 1
    # every table of the database, built from each: the same rows
    assert rows(again) == rows(fresh)
    assert [v.as_record() for v in again.variants] == [v.as_record() for v in fresh.variants]
    # what the model does, not only what it says: executors, maps, lookups, queries
    v = again.variant("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    w = fresh.variant(v.id)
    rng = np.random.default_rng(1)
    ops = {o.name: rng.integers(0, 1 << 16, (32, o.regs), dtype=np.uint32) for o in v.operands if o.regs}
    assert np.array_equal(v.execute(**ops), w.execute(**ops))
    assert np.array_equal(v.fragment("d"), w.fragment("d"))
    assert [x.id for x in again.query(family="wgmma", n=200, atype="e4m3")] == \
        [x.id for x in fresh.query(family="wgmma", n=200, atype="e4m3")]
    o = again.variant("tcgen05.mma.cta_group::1.kind::f16", form="tmem")
    assert o.sources["opcode"][0].pos.line > 0  # where each fact is written survives the cache


@pytest.fixture(scope="module")
def filed(tmp_path_factory) -> Path:
    """A cache file as ptxspec.load() writes it for the checkout's spec (one resolution for the module)."""
    where = tmp_path_factory.mktemp("filed")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cache.ENV, str(where))
        ptxspec.load()
    (path,) = _models(where)
    return path


def _one_model(cache_dir, filed: Path) -> Path:
    """The cache holding the checkout's model, as a load leaves it."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / filed.name
    shutil.copy(filed, path)
    assert ptxspec.load() is not None and _models(cache_dir) == [path]  # read from the cache, not resolved
    return path


@pytest.mark.parametrize("damage", ["flip", *(pytest.param(d, marks=pytest.mark.full)  # quick tier: one damage
                                               for d in ("truncate", "empty", "header"))])
def test_a_damaged_cache_file_is_ignored_and_rebuilt(cache_dir, damage, fresh, filed):
    path = _one_model(cache_dir, filed)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x40
    elif damage == "truncate":
        del data[len(data) // 3:]
    elif damage == "empty":
        data.clear()
    else:
        data[:5] = b"XXXXX"
    path.write_bytes(bytes(data))
    spec = ptxspec.load()
    assert rows(spec) == rows(fresh)
    rebuilt = path.read_bytes()
    assert rebuilt != bytes(data) and cache._decode(rebuilt, path_key(rebuilt)) is not None


def path_key(data: bytes) -> str:
    return data.split(b" ")[1].decode()


class _Exploit:
    """A pickle that would run a command when unpickled."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_a_foreign_pickle_with_a_valid_header_is_refused(cache_dir, tmp_path, fresh, filed):
    path = _one_model(cache_dir, filed)
    k = path.read_bytes().split(b" ")[1].decode()
    marker = tmp_path / "ran"
    payload = pickle.dumps(_Exploit(marker))
    import hashlib
    header = cache.FORMAT + b" " + k.encode() + b" " + hashlib.sha256(payload).hexdigest().encode()
    path.write_bytes(header + b"\n\n" + payload)
    assert cache._decode(path.read_bytes(), k) is None
    spec = ptxspec.load()
    assert not marker.exists(), "the cache ran code it read"
    assert rows(spec) == rows(fresh)


def test_another_keys_file_is_not_read(cache_dir, tmp_path, filed):
    path = _one_model(cache_dir, filed)
    k = path.read_bytes().split(b" ")[1].decode()
    other = "0" * 64
    shutil.copy(path, cache_dir / f"model-{other[:40]}.pickle")
    assert cache.read(other) is None  # its header names the other key
    assert cache.read(k) is not None


def test_a_changed_spec_is_resolved_not_read(cache_dir, tmp_path):
    spec_dir = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec_dir)
    ptxspec.load(spec_dir, ROOT / "evidence")
    assert len(_models(cache_dir)) == 1
    f = spec_dir / "families" / "wgmma" / "fence.yaml"
    f.write_text(f.read_text().replace("kind: instruction", "kind: instructoin"))
    with pytest.raises(SpecError):
        ptxspec.load(spec_dir, ROOT / "evidence")
    (spec_dir / "stray.txt").write_text("a file that is no spec file\n")  # also a change: a new file
    f.write_text(f.read_text().replace("kind: instructoin", "kind: instruction"))
    with pytest.raises(SpecError, match="not a spec file"):
        ptxspec.load(spec_dir, ROOT / "evidence")


@pytest.mark.full
def test_without_a_writable_cache_it_loads_as_before(tmp_path, monkeypatch, fresh):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be\n")
    monkeypatch.setenv(cache.ENV, str(blocked / "cache"))
    assert rows(ptxspec.load()) == rows(fresh)
    monkeypatch.setenv(cache.ENV, "off")
    assert cache.directory() is None
    assert rows(ptxspec.load()) == rows(fresh)


@pytest.mark.full
def test_the_cache_keeps_the_models_used_last(cache_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 2)
    trees = []
    for i in range(3):
        d = tmp_path / f"tree{i}" / "spec"
        shutil.copytree(ROOT / "spec", d)
        trees.append(d)
        ptxspec.load(d, ROOT / "evidence")
    assert len(_models(cache_dir)) == 2


def test_a_warm_load_imports_no_numpy_yaml_or_jsonschema(cache_dir):
    """What makes a warm load fast (issue 28): the model comes from the pickle, and the modules that
    compute with arrays take numpy on first use (ptxspec.core.lazy). A question about the model
    imports it then; numpy's version is in the key all the same (read from its files)."""
    import subprocess
    import sys
    ptxspec.load()  # the cache warm
    probe = ("import sys, ptxspec; s = ptxspec.load(); heavy = ('numpy', 'yaml', 'jsonschema', 'sqlite_utils'); "
             "loaded = lambda m: m in sys.modules and type(sys.modules[m]).__name__ != '_LazyModule'; "
             "print(sorted(m for m in heavy if loaded(m))); "
             "v = s.variant('mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32'); print(v.fragment('d').shape); "
             "print(loaded('numpy'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, cache.ENV: str(cache_dir)}).stdout.split("\n")
    assert out[0] == "[]", out
    assert out[1] == str(np.zeros((32, 4, 2)).shape) and out[2] == "True"
    assert np.__version__.encode() in cache._numpy_version()
