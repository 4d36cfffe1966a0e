"""Small rooms: no class or function in generators/ is over 250 lines (issue 16)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 250
#: (path under generators/, qualified name) -> why it may be longer for now. An entry that is no
#: longer over the limit fails the test: remove it.
EXEMPT: dict[tuple[str, str], str] = {}


def definitions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield name, node.end_lineno - start + 1
            yield from definitions(node, name + ".")
        else:
            yield from definitions(node, prefix)


def test_no_class_or_function_over_the_limit():
    found = {}
    for path in sorted((ROOT / "generators").rglob("*.py")):
        rel = path.relative_to(ROOT / "generators").as_posix()
        for name, lines in definitions(ast.parse(path.read_text(encoding="utf-8"))):
            if lines > LIMIT:
                found[(rel, name)] = lines
    over = {k: n for k, n in found.items() if k not in EXEMPT}
    assert not over, "over %d lines (split them): %s" % (LIMIT, ", ".join(f"{p}:{n} ({c})" for (p, n), c in over.items()))
    stale = set(EXEMPT) - set(found)
    assert not stale, f"exempt but no longer over {LIMIT} lines (remove from EXEMPT): {sorted(stale)}"


def test_the_check_sees_long_definitions():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    tree = ast.parse(f"class C:\n    def f(self):\n{body.replace('    ', '        ')}\n")
    assert dict(definitions(tree)) == {"C": LIMIT + 2, "C.f": LIMIT + 1}
