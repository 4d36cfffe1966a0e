"""The house: the package's layers import downward only, and nothing ties a knot.

Read from the source with `ast`, nothing imported. Every module of generators/ptxspec belongs to a
layer (its subpackage); an import of another layer must go down, imports make no cycle, no module
takes a private name of another, imports sit at module top (a few optional dependencies aside),
module names are unique and modules small.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "generators" / "ptxspec"

#: layer -> rank: an import may go from a layer to one of lower rank, or stay inside its layer
RANKS = {"core": 0, "model": 1, "semantics": 2, "oracle": 2, "loading": 3, "query": 4, "emit": 5, "diff": 6,
         "audit": 6, "api": 7, "cli": 8, "main": 9}
#: modules an import inside a function may name: optional dependencies, needed only by one command
OPTIONAL = {"datasette", "uvicorn", "nvidia"}
MAX_INNER_IMPORTS = 5
MAX_LINES = 500


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {m: ast.parse(p.read_text(encoding="utf-8"), str(p)) for m, p in MODULES.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    if module in ("ptxspec", "ptxspec.api"):
        return "api"  # the face resolves its public names from ptxspec.api
    if module == "ptxspec.__main__":
        return "main"
    return parts[1]


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not MODULES[module].name == "__init__.py":
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _lazy_load(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and ast.unparse(node.func) == "lazy_loader.load" and node.args
            and isinstance(node.args[0], ast.Constant))


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(module: str):
    """(target module, names, node, inside a function, under TYPE_CHECKING) of each ptxspec import."""
    out = []

    def visit(node, in_function: bool, typing_only: bool):
        for child in ast.iter_child_nodes(node):
            fn = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            tc = typing_only or _type_checking(child)
            if isinstance(child, ast.ImportFrom):
                base = _absolute(module, child)
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    target = full if full in MODULES else base
                    out.append((target, alias.name, child, fn, tc))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    out.append((alias.name, None, child, fn, tc))
            elif _lazy_load(child):  # lazy_loader.load("module"): an import that runs on first use
                out.append((child.args[0].value, None, child, fn, tc))
            visit(child, fn, tc)
    visit(TREES[module], False, False)
    return out


def _package_edges(module: str):
    for target, name, node, inner, typing_only in imports(module):
        if target == "ptxspec" or target.startswith("ptxspec."):
            yield target, name, node, inner, typing_only


def _face_edges():
    """The face's lazy table (ptxspec/__init__.py): its `__all__`, given by ptxspec.api."""
    for node in TREES["ptxspec"].body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return {"ptxspec.api": [n for n in ast.literal_eval(node.value) if n != "__version__"]}
    raise AssertionError("ptxspec/__init__.py has no __all__")


def graph() -> dict[str, set[str]]:
    """Runtime edges between modules (TYPE_CHECKING imports do not run)."""
    g: dict[str, set[str]] = defaultdict(set)
    for m in MODULES:
        for target, _, _, _, typing_only in _package_edges(m):
            if not typing_only and target in MODULES and target != m:
                g[m].add(target)
    g["ptxspec"] |= set(_face_edges())
    return g


def test_every_module_has_a_layer():
    unknown = sorted(m for m in MODULES if layer(m) not in RANKS)
    assert not unknown, f"modules outside every layer (add the subpackage to RANKS): {unknown}"


def test_imports_go_down():
    up = []
    for m in MODULES:
        for target, name, node, _, _ in _package_edges(m):
            if target not in MODULES:
                continue
            a, b = layer(m), layer(target)
            if a != b and RANKS[b] >= RANKS[a]:
                up.append(f"{MODULES[m].relative_to(PACKAGE.parent)}:{node.lineno}: {m} ({a}) imports {target} ({b})")
    assert not up, "imports that do not go down a layer:\n" + "\n".join(up)


def test_no_import_cycle():
    g = graph()
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def strong(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(MODULES):
        if v not in index:
            strong(v)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_names_across_modules():
    taken = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{node.lineno}: {name} from {target}"
             for m in MODULES for target, name, node, _, _ in _package_edges(m)
             if name and name.startswith("_") and not name.startswith("__") and target != m]
    assert not taken, "private names imported from other modules:\n" + "\n".join(taken)


def test_imports_sit_at_module_top():
    inner = [(m, target, node) for m in MODULES for target, _, node, fn, _ in imports(m) if fn]
    listed = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{node.lineno}: {target}" for m, target, node in inner]
    assert all(target.split(".")[0] in OPTIONAL for _, target, _ in inner), \
        "imports inside functions other than optional dependencies:\n" + "\n".join(listed)
    assert len(inner) <= MAX_INNER_IMPORTS, listed
    for m, _, node in inner:  # each says why, on its line or just above
        lines = MODULES[m].read_text(encoding="utf-8").splitlines()[max(0, node.lineno - 3):node.lineno]
        assert any("#" in line for line in lines), f"{m}:{node.lineno}: say why this import waits"


def test_module_names_are_unique_and_modules_small():
    by_name = defaultdict(list)
    for m, p in MODULES.items():
        if p.name != "__init__.py":
            by_name[p.name].append(m)
    assert not {n: ms for n, ms in by_name.items() if len(ms) > 1}
    big = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines: {big}"


def test_the_face_names_what_type_checkers_see():
    public = {n for names in _face_edges().values() for n in names}
    checked = {alias.asname or alias.name for node in ast.walk(TREES["ptxspec"]) if isinstance(node, ast.ImportFrom)
               and node.module == "ptxspec.api" for alias in node.names}
    assert public == checked


# -- the checks above can fail ---------------------------------------------------------------------

@pytest.mark.parametrize("source, layer_of", [("from ptxspec.emit import sqlite\n", "model"),
                                              ("from ptxspec.cli.main import run\n", "query")])
def test_an_upward_import_is_seen(source, layer_of):
    module = f"ptxspec.{layer_of}.probe"
    MODULES[module] = PACKAGE / layer_of / "probe.py"
    TREES[module] = ast.parse(source)
    try:
        with pytest.raises(AssertionError, match="do not go down"):
            test_imports_go_down()
    finally:
        del MODULES[module], TREES[module]


def test_a_cycle_is_seen():
    a, b = "ptxspec.model.probe_a", "ptxspec.model.probe_b"
    MODULES[a], MODULES[b] = PACKAGE / "model" / "probe_a.py", PACKAGE / "model" / "probe_b.py"
    TREES[a], TREES[b] = ast.parse("from ptxspec.model import probe_b\n"), ast.parse("from ptxspec.model import probe_a\n")
    try:
        with pytest.raises(AssertionError, match="import cycles"):
            test_no_import_cycle()
    finally:
        for m in (a, b):
            del MODULES[m], TREES[m]
