"""The installable product: the wheel and sdist built from this checkout, and the package they install.

The wheel is built once (hatchling, the project's backend, as `pip wheel` would) and unpacked into
a directory that stands in for site-packages; the CLI then runs from a directory outside the
checkout with only that directory on the path. `.ci/run` does the same with a real virtualenv.
"""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import lazy_loader
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("build")
pytest.importorskip("hatchling")


def _build(kind: str, out: Path, source=ROOT) -> Path:
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", f"--{kind}", "--outdir", str(out),
                           str(source)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ext = ".whl" if kind == "wheel" else ".tar.gz"
    return next(p for p in out.iterdir() if p.name.endswith(ext))


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    wheel = _build("wheel", out / "tree")
    sdist = _build("sdist", out / "sdist")
    unpacked = out / "sdist-tree"
    subprocess.run(["tar", "xzf", str(sdist), "-C", str(out)], check=True)
    unpacked = next(p for p in out.iterdir() if p.is_dir() and p.name.startswith("ptxspec-"))
    from_sdist = _build("wheel", out / "from-sdist", unpacked)
    return wheel, sdist, from_sdist


@pytest.fixture(scope="module")
def site(dists, tmp_path_factory):
    """The wheel unpacked as pip installs it (a pure-Python wheel is its site-packages layout)."""
    site = tmp_path_factory.mktemp("site")
    zipfile.ZipFile(dists[0]).extractall(site)
    return site


def installed(site: Path, cwd: Path, *args, code=None):
    """Run the installed package with only `site` added to the path (the checkout is not on it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PTXSPEC_DEBUG")}
    env["PYTHONPATH"] = str(site)
    argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "ptxspec", *args]
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env)


@pytest.mark.full
def test_wheel_holds_the_packages_and_their_data(dists):
    from ptxspec.core.paths import PACKAGE_DATA
    z = zipfile.ZipFile(dists[0])
    names = z.namelist()
    assert {n.split("/")[0] for n in names} == {"ptxspec", "ptxspec_generated", "ptxspec-0.1.0.dist-info"}
    data = {n[len("ptxspec/data/"):] for n in names if n.startswith("ptxspec/data/")}
    want = {p.relative_to(ROOT).as_posix() for pattern in PACKAGE_DATA for p in ROOT.glob(pattern) if p.is_file()}
    assert data == want
    assert {"spec/isa.yaml", "schema/types.schema.json", "generated/ptxspec.sqlite"} <= data
    assert "ptxspec/py.typed" in names
    tracked = subprocess.run(["git", "ls-files", "generators/ptxspec", "generated/ptxspec_generated"],
                             capture_output=True, text=True, cwd=ROOT).stdout.split()
    shipped = {p.split("/", 1)[1] for p in tracked}  # every file of both packages: modules, templates
    assert shipped and shipped <= set(names), sorted(shipped - set(names))[:5]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    for n in ("generated/ptxspec.sqlite", "generated/datasette.json", "spec/isa.yaml"):
        assert z.read("ptxspec/data/" + n) == (ROOT / n).read_bytes(), n


@pytest.mark.full
def test_wheel_is_small_and_the_sdist_builds_the_same_wheel(dists):
    wheel, sdist, from_sdist = dists
    assert wheel.stat().st_size < 30e6
    assert wheel.read_bytes() == from_sdist.read_bytes()  # reproducible, and the sdist carries every input


@pytest.mark.full
def test_registry_metadata(dists):
    meta = zipfile.ZipFile(dists[0]).read("ptxspec-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: Apache-2.0" in meta and "License-File: LICENSE" in meta
    assert re.search(r"^Classifier: Programming Language :: Python :: 3\.11$", meta, re.M)
    assert re.search(r"^Project-URL: Homepage, https://", meta, re.M)
    assert re.search(r"^Requires-Dist: ml-dtypes", meta, re.M)
    assert "licenses/LICENSE" in " ".join(zipfile.ZipFile(dists[0]).namelist())
    assert "Apache License" in (ROOT / "LICENSE").read_text()


def test_no_build_output_is_tracked():
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    assert not [p for p in tracked if ".egg-info" in p or p.startswith(("build/", "dist/"))]


@pytest.mark.full
def test_installed_cli_outside_the_checkout(site, tmp_path):
    proc = installed(site, tmp_path, "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == "ptxspec 0.1.0"
    proc = installed(site, tmp_path, "query", "--family", "wgmma", "n=200", "atype=e4m3", "btype=e5m2")
    assert proc.returncode == 0 and "(8 rows)" in proc.stdout, proc.stderr
    proc = installed(site, tmp_path, "validate")
    assert proc.returncode == 0 and str(site / "ptxspec" / "data" / "spec") in proc.stdout, proc.stderr
    proc = installed(site, tmp_path, "render", "examples/variants.csv.j2")
    assert proc.returncode == 0 and proc.stdout.count("\n") > 3000, proc.stderr


@pytest.mark.full
def test_installed_build_needs_out_and_builds_what_the_checkout_has(site, tmp_path):
    proc = installed(site, tmp_path, "build")
    assert proc.returncode == 2 and "--out DIR" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (site / "ptxspec" / "data" / "generated" / "README.md").exists()  # wrote nothing
    # the package carries every input of the build: it rebuilds the committed generated/ exactly
    proc = installed(site, tmp_path, "build", "--check", "--out", str(ROOT / "generated"))
    assert proc.returncode == 0, proc.stderr
    proc = installed(site, tmp_path, "build", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0 and (tmp_path / "out" / "ptxspec.sqlite").is_file(), proc.stderr


@pytest.mark.full
def test_installed_api_finds_its_data(site, tmp_path):
    code = ("import ptxspec, ptxspec.core.paths as p; s = ptxspec.load(); "
            "v = s.variant('wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16', form='reg'); "
            "print(p.checkout_root(), p.data_root().relative_to(ptxspec.__path__[0]), v.regs)")
    proc = installed(site, tmp_path, code=code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(None, 2) == ["None", "data", "{'d': 4, 'a': 4, 'b_desc': 1}\n"]


def test_editable_install_is_a_path_entry_a_clone_folder_cannot_shadow(tmp_path):
    """`pip install -e .` must put generators/ on sys.path (a .pth line), not an import hook that
    runs after the path search: with a hook, `import ptxspec` from the directory holding the
    clone found the clone folder, `ptxspec/`, as a namespace package and had no `load`."""
    from build import ProjectBuilder
    wheel = Path(ProjectBuilder(str(ROOT)).build("editable", str(tmp_path / "dist")))
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    parent = tmp_path / "parent"
    (parent / "ptxspec" / "spec").mkdir(parents=True)  # the clone, as seen from its parent directory
    deps = str(Path(lazy_loader.__file__).resolve().parents[1])  # ptxspec's dependencies, no .pth processed
    code = (f"import site, sys; site.addsitedir({str(site)!r}); sys.path.append({deps!r}); import ptxspec; "
            "print(ptxspec.__file__, ptxspec.load.__module__)")
    proc = subprocess.run([sys.executable, "-S", "-E", "-c", code], capture_output=True, text=True, cwd=parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(ROOT / "generators" / "ptxspec" / "__init__.py"), "ptxspec.api"], proc.stdout
    pth = [p for p in site.iterdir() if p.suffix == ".pth"]
    assert [p.read_text().split() for p in pth] == [[str(ROOT / "generated"), str(ROOT / "generators")]]
