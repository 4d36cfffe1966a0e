"""Issue 29's measures of a spec that states each fact once: at most 4,000 lines in spec/, and no
line of substance (40 characters or more, not a comment, not a `$schema` header) written more than
three times. A line that repeats is a fact written twice: make it a piece, a default or a rule
(AUTHORING.md). Three copies are allowed for lines that only look alike (one operand row in
three unrelated instructions)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

SPEC = Path(__file__).resolve().parents[1] / "spec"
MAX_LINES = 4000
MAX_COPIES = 3
SUBSTANTIAL = 40


def spec_lines():
    for path in sorted(SPEC.rglob("*.yaml")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield path.relative_to(SPEC), number, line


def test_the_spec_fits_its_line_budget():
    total = sum(1 for _ in spec_lines())
    assert total <= MAX_LINES, f"spec/ has {total} lines, more than {MAX_LINES}"


def test_no_line_of_substance_is_written_more_than_three_times():
    where = defaultdict(list)
    for rel, number, line in spec_lines():
        text = line.strip()
        if len(text) >= SUBSTANTIAL and not text.startswith(("#", "$schema")):
            where[text].append(f"{rel}:{number}")
    repeated = {text: at for text, at in where.items() if len(at) > MAX_COPIES}
    assert not repeated, "\n".join(f"{len(at)} times ({', '.join(at[:4])}, ...): {text}"
                                   for text, at in sorted(repeated.items(), key=lambda kv: -len(kv[1])))
