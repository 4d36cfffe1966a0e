"""Resolving spec/numerics.yaml: the arithmetic rules, checked against the models ptxspec.semantics.numerics
implements and the fields a rule may test."""
from __future__ import annotations

import dataclasses

from ptxspec.core.errors import did_you_mean
from ptxspec.model import predicates
from ptxspec.loading.context import Context
from ptxspec.loading.tree import Document
from ptxspec.model.arithmetic import NumericsRule
from ptxspec.model.family import Family
from ptxspec.semantics.numerics import MODELS, RULE_FIELDS, NumericsParams, computes_product, rule_matches

_PARAMS = tuple(f.name for f in dataclasses.fields(NumericsParams) if f.name != "model")


def resolve_numerics(ctx: Context, docs: list[Document], families: dict[str, Family]) -> list[NumericsRule]:
    rules: list[NumericsRule] = []
    axes = {a for f in families.values() for a in f.axes}
    fields = RULE_FIELDS + tuple(sorted(axes))
    for doc in docs:
        for i, r in enumerate(doc.data["rules"]):
            pos, ok = doc.data["rules"].at(i), True
            for key, test in r["when"].items():
                if (why := predicates.problem(test)) is not None:
                    ctx.p.add(r["when"].at(key), f"when {key}: {why}")
                if key not in fields:
                    ctx.p.add(r["when"].at(key), f"a rule cannot test {key!r}{did_you_mean(key, fields)}")
                    ok = False
            if r["model"] not in MODELS:
                ctx.p.add(r.at("model"), f"unknown arithmetic model {r['model']!r}{did_you_mean(r['model'], MODELS)}"
                          f" (ptxspec.semantics.numerics implements {', '.join(MODELS)})")
                ok = False
            for key in r.get("params", {}):
                if key not in _PARAMS:
                    ctx.p.add(r["params"].at(key), f"{key!r} is no parameter of the models{did_you_mean(key, _PARAMS)}")
                    ok = False
            if ok:
                rules.append(NumericsRule(when={k: (list(v) if isinstance(v, list) else v) for k, v in r["when"].items()},
                                          model=r["model"], params=dict(r.get("params", {})),
                                          source=" ".join(r["source"].split()), pos=pos,
                                          basis=r.get("basis", "measured"),
                                          status=" ".join(r.get("status", "").split())))
    return rules


def check_rules_used(ctx: Context, spec) -> None:
    """A rule that no variant reaches (none matches, or earlier rules take them all) is a mistake."""
    reached = set()
    for v in spec.variants:
        if computes_product(v):
            hit = next((i for i, r in enumerate(spec.numerics) if rule_matches(r.when, v)), None)
            reached.add(hit)
    # the names a rule may test: a value outside them is a typo (a stray line break made 's8' 's 8')
    names = {k: set(spec.types) for k in ("atype", "btype", "ctype", "dtype")}
    names.update(family=set(spec.families), instruction=set(spec.instructions))
    for f in spec.families.values():
        for a in f.axes.values():
            names.setdefault(a.name, {""}).update(a.values)
    for r in spec.numerics:
        for key, want in r.when.items():
            if isinstance(want, dict):  # {not: ...}: the values it names; bounds name none
                want = want.get("not", [])
            for x in (want if isinstance(want, list) else [want]):
                if key in names and x not in names[key]:
                    known = sorted(map(str, names[key]))
                    ctx.p.add(r.pos, f"numerics rule tests {key} = {x!r}, which is no {key} of the spec"
                              f"{did_you_mean(str(x), known)}")
    for i, r in enumerate(spec.numerics):
        if i not in reached:
            ctx.p.add(r.pos, f"numerics rule {i + 1} ({r.model}) applies to no variant: none matches {r.when}, or "
                      f"earlier rules take them all")
