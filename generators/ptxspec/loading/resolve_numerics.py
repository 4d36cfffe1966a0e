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
from ptxspec.semantics.numerics import (
    MODELS,
    RULE_FIELDS,
    NumericsParams,
    computes_product,
    param_problems,
    rule_matches,
    type_problems,
    variant_problems,
)

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
            if ok:  # each parameter within its domain, and only those the model reads
                for key, why in param_problems(r["model"], dict(r.get("params", {}))):
                    ctx.p.add(r["params"].at(key) if key else pos, f"numerics rule {i + 1}: {why}")
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
            for x in predicates.named(want):
                if key in names and x not in names[key]:
                    known = sorted(map(str, names[key]))
                    ctx.p.add(r.pos, f"numerics rule tests {key} = {x!r}, which is no {key} of the spec"
                              f"{did_you_mean(str(x), known)}")
    for i, r in enumerate(spec.numerics):
        if i not in reached:
            ctx.p.add(r.pos, f"numerics rule {i + 1} ({r.model}) applies to no variant: none matches {r.when}, or "
                      f"earlier rules take them all")
    check_rule_domains(ctx, spec)


def _products_of(spec):
    """Everything a rule gives arithmetic to, with the rule's index: the product variants (the first
    rule that matches), and the products a variant's instruction descriptor selects at run time
    (tcgen05.mma: `Semantics.products`, which matched them)."""
    index = {id(r): i for i, r in enumerate(spec.numerics)}
    for v in spec.variants:
        if computes_product(v):
            i = next((j for j, r in enumerate(spec.numerics) if rule_matches(r.when, v)), None)
            if i is not None:
                yield v, v.id, i
        meaning = spec.meanings.get(v.semantics) if spec.meanings else None
        if meaning is not None and getattr(meaning, "products", None) is not None:
            for label, rule, _, _ in meaning.products(v):
                if rule is not None and id(rule) in index:
                    yield _Reached(v, label), f"{v.id} ({label})", index[id(rule)]


class _Reached:
    """A run-time product (tmem_mma.products' label 'atype*btype->dtype') as variant_problems reads it:
    its types (its K is the descriptor's, not checked here)."""

    def __init__(self, v, label: str):
        self.spec, self.k, self.sparse = v.spec, 0, v.sparse
        a, _, d = label.partition("->")
        self.atype, _, self.btype = a.partition("*")
        self.ctype = self.dtype = d


def check_rule_domains(ctx: Context, spec) -> None:
    """A rule must name types its model's arithmetic can take, with parameters its variants allow
    (a group dividing K, a `keep` the output has, ...): each rule's first few problems, with a
    variant that has them."""
    found: dict[int, dict[str, str]] = {}
    for i, r in enumerate(spec.numerics):  # the types a rule names
        for role in ("atype", "btype", "ctype", "dtype"):
            want = r.when.get(role)
            for x in (want if isinstance(want, list) else [want] if want is not None else []):
                why = type_problems(r.model, role, spec.types[x]) if x in spec.types else None
                if why:
                    found.setdefault(i, {}).setdefault(why, f"the rule names {x}")
    for v, name, i in _products_of(spec):
        r = spec.numerics[i]
        if r.model == "none":
            continue
        for why in variant_problems(NumericsParams(r.model, **r.params), v):
            found.setdefault(i, {}).setdefault(why, name)
    for i, problems in sorted(found.items()):
        for why, name in list(problems.items())[:3]:
            e_g = name if name.startswith("the rule") else f"e.g. {name}"
            ctx.p.add(spec.numerics[i].pos, f"numerics rule {i + 1} ({spec.numerics[i].model}): {why} ({e_g})")
