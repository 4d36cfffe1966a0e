"""Numerics parameters have domains, stated as data beside the models (issue 30, item 6).

ptxspec.semantics.numerics.DOMAINS says what each parameter may be and why (F: the float64 sum
of the truncated terms is exact only while F + 2 bits and their carries fit 53 bits; zero_exp: at
most f32's smallest normal exponent; ...), MODEL_PARAMS which model reads which, MODEL_TYPES the
element types each model's arithmetic can take; blockscale.KIND_DOMAINS the same for KindParams.
The spec's loader refuses a rule outside them (tests/bad_spec_cases.py, cases numerics_*); these
tests hold the data to the schema and to the parameter objects the Python API builds.
"""
from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

import ptxspec
from ptxspec.semantics import blockscale
from ptxspec.semantics import numerics as nm

ROOT = Path(__file__).resolve().parents[1]
SPEC = ptxspec.load()


def test_the_schema_states_the_domains_as_the_models_do():
    schema = json.loads((ROOT / "schema" / "numerics.schema.json").read_text())
    props = schema["properties"]["rules"]["items"]["properties"]["params"]["properties"]
    assert set(props) == set(nm.DOMAINS) == {f.name for f in fields(nm.NumericsParams)} - {"model"}
    for name, dom in nm.DOMAINS.items():
        stated = {k: x for k, x in props[name].items() if k != "description"}
        assert stated == dom.as_schema(), name


def test_every_model_reads_parameters_that_exist():
    assert set(nm.MODEL_PARAMS) == set(nm.MODELS) == set(nm.MODEL_TYPES) | {"none"}
    for reads in nm.MODEL_PARAMS.values():
        assert set(reads) <= set(nm.DOMAINS)


def test_the_spec_rules_are_inside_their_domains():
    for r in SPEC.numerics:
        assert nm.param_problems(r.model, r.params) == [], r.when
    for v in SPEC.variants:
        rule = nm.rule_of(v)
        if rule is not None and rule.model != "none":
            assert nm.variant_problems(nm.NumericsParams(rule.model, **rule.params), v) == [], v.id


@pytest.mark.parametrize("change", [dict(F=-5), dict(F=0), dict(F=100000), dict(round="rq"), dict(keep=99),
                                    dict(via="e4m3"), dict(finite=7), dict(zero_exp=5), dict(group=-1),
                                    dict(split=2), dict(F=True)])
def test_numerics_params_outside_their_domain_are_refused(change):
    good = nm.NumericsParams("fdpa", 16, 25, "rz")
    with pytest.raises(ValueError, match="NumericsParams"):
        replace(good, **change)


def test_a_model_takes_only_its_parameters():
    with pytest.raises(ValueError, match="fmachain takes no 'F'"):
        nm.NumericsParams("fmachain", 4, 25, "rn")
    with pytest.raises(ValueError, match="round = 'rz' must be one of 'rn'"):
        nm.NumericsParams("fmachain", 4, round="rz")  # fmachain rounds to nearest, always
    with pytest.raises(ValueError, match="fdpa needs 'F'|F = 0 must be"):
        nm.NumericsParams("fdpa", 16)
    assert nm.NumericsParams("fmachain", 4, 0, "rn").group == 4


@pytest.mark.parametrize("change", [dict(F=-5), dict(round="rq"), dict(group=0), dict(path="sum"),
                                    dict(zeros="none"), dict(ue4m3_top_bit="maybe"), dict(split=0),
                                    dict(zero_exp=-2000)])
def test_kind_params_outside_their_domain_are_refused(change):
    good = blockscale.kind_params("mxf4", True, "f32")
    with pytest.raises(ValueError, match="KindParams"):
        replace(good, **change)


def test_every_named_alternative_is_inside_the_domains():
    for p in (blockscale.kind_params("mxf4", True, "f32"), blockscale.kind_params("f8f6f4", False, "f32")):
        for name in blockscale.ALTERNATIVES:
            blockscale.with_alternative(p, name)
    assert blockscale.KindParams("products", 25, "rz", zero_exp=None).zero_exp is None
