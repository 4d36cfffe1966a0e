"""Full tier: ptxas runs again over every recorded statement (evidence/ptxas/, tests/ptxas_facts.py),
and must say what the recording says; where it does not, the message says which statement, what
each said, and the command that records the check again (if the installed ptxas is the one to
believe). The quick tier (tests/test_ptxas_replay.py) holds the recordings to the spec.
"""
from __future__ import annotations

import json
import shutil

import ptxas_checks
import ptxas_facts as F
import ptxspec
import pytest
from ptxspec.oracle import ptxas

pytestmark = [pytest.mark.full,
              pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")]
CHECKS = {c.name: c for c in ptxas_checks.checks(ptxspec.load())}


@pytest.mark.parametrize("name", list(CHECKS))
def test_ptxas_says_what_was_recorded(spec, name):
    problems = F.live(spec, CHECKS[name])
    assert not problems, "\n".join(problems)


def test_a_recording_ptxas_disagrees_with_fails(spec, tmp_path):
    d = tmp_path / "ptxas"
    shutil.copytree(F.RECORDINGS, d)
    path = d / "fence-spaces.json"
    doc = json.loads(path.read_text())
    doc["subjects"]["fence.proxy.async"][2] = "0-8"  # as if ptxas had accepted every state space
    path.write_text(F.dumps(doc))
    problems = "\n".join(F.live(spec, CHECKS["fence-spaces"], d))
    assert f"fence.proxy.async [space local] at PTX 8.0 on sm_90: ptxas {ptxas.version()} rejected it, the " \
           "recording says accepted" in problems, problems
    assert f"re-record: `{F.command('fence-spaces')}`" in problems, problems
