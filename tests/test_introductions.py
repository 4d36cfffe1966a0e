"""Each instruction's stated introduction (`introduced:` in its file, from the manual's PTX ISA
Notes and Target ISA Notes) against ptxas 13.5, the independent truth (issue 30, item 7).

What ptxas said is the recording `introductions` (tests/ptxas_checks_intro.py says what it asks):
the quick tier replays it against the spec (tests/test_ptxas_replay.py), the full tier runs ptxas
over it again (tests/test_ptxas_live.py). Here, without ptxas: every instruction states its
introduction, and each check that ptxas cannot make is named with why (ptxas 13.5 knows neither
sm_70/sm_72 nor PTX before 6.3, and a target it knows only from V has no version before V to try),
so that a check that becomes possible (or one that silently stops) fails here.
"""
from __future__ import annotations

import ptxas_checks_intro as I
import pytest

import ptxspec

SPEC = ptxspec.load()
UNCHECKABLE = I.uncheckable(SPEC)


@pytest.mark.parametrize("name", sorted(SPEC.instructions))
def test_each_check_is_made_or_said_why_not(name):
    plan = I.plan(SPEC, name)
    for check in I.CHECKS:
        if check not in plan:
            assert (name, check) in UNCHECKABLE, f"{name}: the {check} check cannot be made; say why in UNCHECKABLE"
        else:
            assert (name, check) not in UNCHECKABLE, f"{name}: the {check} check can be made now; remove it from UNCHECKABLE"
            assert plan[check][2], f"{name}: no variant to try for the {check} check"


def test_every_instruction_states_its_introduction():
    assert all(i.introduced is not None for i in SPEC.instructions.values())


def test_the_recording_covers_every_introduction(spec):
    """Every check made is in the recording's statements (the replay holds the verdicts to the spec)."""
    (check,) = I.checks()
    labels = {c.label for c in check.statements(spec)}
    want = {f"{name} {c}" for name in SPEC.instructions for c in I.plan(SPEC, name)}
    assert want <= labels and len(want) >= len(SPEC.instructions), sorted(want - labels)[:5]
