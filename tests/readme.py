"""The README's code blocks, for the tests that run them (tests/test_readme.py, tests/smoke_installed.py).

A Python block runs statement by statement; where an expression statement ends in a comment
that is a Python literal (`v.regs  # {'d': 4, ...}`, `bool(...)  # True`), the expression must
equal it. Importing nothing from ptxspec, so the installed-package smoke test can use it too.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(lang: str, text: str | None = None) -> list[str]:
    text = README.read_text(encoding="utf-8") if text is None else text
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def _comments(source: str) -> dict[int, str]:
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _expected(comment: str):
    """The literal a comment starts with (before a ':' explanation), or None."""
    for text in (comment, comment.split(":")[0]):
        try:
            return True, ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            continue
    return False, None


def run_python(source: str, name: str = "README.md") -> int:
    """Run a block; returns how many commented results it checked. Raises AssertionError on a mismatch."""
    tree = ast.parse(source, name)
    comments = _comments(source)
    env: dict = {"__name__": "__readme__"}
    checked = 0
    for stmt in tree.body:
        code = compile(ast.Module([stmt], []), name, "exec")
        has, want = _expected(comments.get(stmt.end_lineno, "")) if isinstance(stmt, ast.Expr) else (False, None)
        if not has:
            exec(code, env)
            continue
        got = eval(compile(ast.Expression(stmt.value), name, "eval"), env)
        assert got == want, f"{name} line {stmt.lineno}: {ast.unparse(stmt.value)} is {got!r}, the README says {want!r}"
        checked += 1
    return checked


def commands(prefix: str = "ptxspec ") -> list[str]:
    """Every command line of the sh blocks that starts with prefix (comments dropped)."""
    out = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith(prefix):
                out.append(line)
    return out
