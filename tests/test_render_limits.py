"""`ptxspec render` bounds what a template may take (issue 30, item 11): loop iterations, the size of
any value it builds, its output and its wall time, each a one-line located error that names the
limit and how to raise it. Hang guards, not speed tests: the limits tested here are counts, or a
time budget set to nothing against work that has no end, so no outcome depends on the machine.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import ptxspec
from ptxspec.emit.template_limits import Limits
from ptxspec.emit.user_template import RenderError, render

ROOT = Path(__file__).resolve().parents[1]
SPEC = ptxspec.load()
ENDLESS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}done"


def _render(tmp_path, body, limits=None):
    t = tmp_path / "t.j2"
    t.write_text("first line\n" + body + "\n")
    with pytest.raises(RenderError) as info:
        render(SPEC, t, limits)
    msg = str(info.value)
    assert re.fullmatch(rf"{re.escape(str(t))}:2:1: error: .*", msg), msg
    return msg


def test_loops_that_print_nothing_stop_at_the_iteration_limit(tmp_path):
    msg = _render(tmp_path, ENDLESS, Limits(iterations=10_000))
    assert "10,000 iterations" in msg and "--max-iterations" in msg


def test_the_iteration_limit_counts_every_loop_and_can_be_raised(tmp_path):
    t = tmp_path / "t.j2"
    t.write_text("{% for i in range(50) %}{% for j in range(100) %}{% endfor %}{% endfor %}{{ 'ok' }}")
    assert render(SPEC, t, Limits(iterations=5050)) == "ok"  # 50 + 50 * 100
    with pytest.raises(RenderError, match="--max-iterations"):
        render(SPEC, t, Limits(iterations=5049))


def test_every_limit_is_on_by_default():
    lim = Limits()
    assert 0 < lim.seconds < float("inf") and 0 < lim.iterations < 10 ** 9 and 0 < lim.size < 1 << 31 \
        and 0 < lim.output < 1 << 31


def test_wall_time_is_bounded(tmp_path):
    """A time budget of nothing, against loops that would run for hours: stopped at the first step."""
    msg = _render(tmp_path, ENDLESS, Limits(seconds=0, iterations=10 ** 15))
    assert "ran too long" in msg and "--max-seconds" in msg


@pytest.mark.parametrize("body", [
    "{{ lipsum(100000000) }}",
    "{{ 'a'|center(2000000000) }}",
    "{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
    "{% set ns = namespace(s='ab') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "{% set ns = namespace(s='ab') %}{% for i in range(100) %}{% set ns.s %}{{ ns.s }}{{ ns.s }}{% endset %}"
    "{% endfor %}",
    "{{ '%2000000000d'|format(1) }}",
    "{{ '%*d' % (2000000000, 1) }}",
    "{{ '{:>2000000000}'.format(1) }}",
    "{{ 'a'.ljust(2000000000) }}",
    "{{ ('a' * 16000000)|replace('a', 'aaaaaaaaaaaaaaaaa') }}",
    "{{ 'x'|indent(2000000000, true) }}",
    "{{ [1]|batch(2000000000, 0)|list }}",
])
def test_values_past_the_size_limit_are_refused_before_they_are_built(tmp_path, body):
    msg = _render(tmp_path, body)
    assert "--max-size" in msg and "16,777,216" in msg, msg


def test_output_past_the_output_limit_is_refused(tmp_path):
    msg = _render(tmp_path, "{% for i in range(1000) %}{{ 'x' * 100 }}{% endfor %}", Limits(output=10_000))
    assert "--max-output" in msg


def test_the_command_line_sets_the_limits(tmp_path):
    t = tmp_path / "t.j2"
    t.write_text(ENDLESS + "\n")
    for opt, val in (("--max-iterations", "1000"), ("--max-seconds", "1e-9")):
        args = [opt, val] + (["--max-iterations", "1000000000000"] if opt == "--max-seconds" else [])
        proc = subprocess.run([sys.executable, "-m", "ptxspec", "render", str(t), *args, "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, cwd=ROOT, timeout=600)
        assert proc.returncode == 1, proc.stderr
        assert re.fullmatch(rf"{re.escape(str(t))}:1:1: error: .*{opt}.*\n", proc.stderr), proc.stderr
        assert not (tmp_path / "o").exists()


def test_a_range_too_long_to_count_is_refused_by_the_sandbox(tmp_path):
    msg = _render(tmp_path, "{% for i in range(2**63) %}{% endfor %}")
    assert "beyond the sandbox's limit" in msg and "OverflowError" not in msg
