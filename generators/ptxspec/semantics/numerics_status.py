"""numerics_status: for every variant that computes a product, its arithmetic and what hardware
measured of it (the numerics campaigns under evidence/), or what the model rests on."""
from __future__ import annotations

import json

from ptxspec.semantics.numerics import NO_ARITHMETIC, computes_product, params, rule_of

#: numerics_status of a variant no campaign ran, by the basis of its rule (spec/numerics.yaml `basis`)
UNMEASURED = {"measured": "not run", "published": "modelled (manual + published measurements); not run on hardware",
              "sass": "modelled (ptxas SASS + steps measured on an H100); not run on hardware"}


#: numerics_status of a variant whose products (chosen at run time by a descriptor: its meaning's `products`) take
#: their arithmetic from rules of the same types that rest on campaigns run on other instructions
BORROWED = "modelled (the same types' rules, measured on other instructions); not run on hardware"
#: numerics_status of a variant whose rule (or restated product) names its provenance: a product's
#: `basis` is a rule's basis (a key of UNMEASURED), or that provenance itself (a few words) where no
#: rule of the spec covers the product and the executor restates one
PUBLISHED_AS = "modelled ({}); not run on hardware"


def measured(spec) -> dict[str, dict]:
    """variant id -> {cases, outputs, mismatches, date, campaign} summed over the numerics evidence."""
    out: dict[str, dict] = {}
    for e in spec.evidence.campaigns:
        if e.proves != "numerics":
            continue
        for vid, r in e.results.items():
            m = out.setdefault(vid, {"cases": 0, "outputs": 0, "mismatches": 0, "date": e.date, "campaigns": []})
            m["cases"] += r.cases
            m["outputs"] += r.outputs
            m["mismatches"] += r.mismatches
            m["date"] = max(m["date"], e.date)
            m["campaigns"].append(e.campaign)
    for m in out.values():
        m["campaign"] = ", ".join(m.pop("campaigns"))
    return out


def status_rows(spec) -> list[tuple]:
    """(variant_id, model, parameters, status, cases, outputs, mismatches, agreement, date, campaign,
    rule) for every variant that computes a product: `bit-exact` (every compared output equal),
    `mismatches`, `not run` (a model resting on our campaigns, no hardware record of this variant
    yet), `modelled (manual + published measurements); not run on hardware` (a model resting on
    the manual and published measurements) or `no model`; `rule` is the position (from 1) of the
    spec/numerics.yaml rule that gives the arithmetic, or None."""
    meas = measured(spec)
    rows = []
    for v in spec.variants:
        if _selector(spec, v) is not None:  # measured or not: its products are not the variant's own
            rows.append(_selected_row(spec, v, meas.get(v.id)))
            continue
        if not computes_product(v):
            continue
        rule = rule_of(v)
        try:
            p = params(v)
            model, pj = p.model, json.dumps({k: x for k, x in p.as_data().items() if k != "model"}, sort_keys=True)
        except KeyError:
            model, pj = None, None
        src = spec.numerics.index(rule) + 1 if rule is not None and model else None
        m = meas.get(v.id)
        # no model, measured or not: a campaign's agreement is its rule's, which the spec no longer has
        # (fuzz seed 36, tree 8175: a rule deleted left its measured variants "bit-exact" with no model)
        if m is None or model is None or model == "none":
            status = (NO_ARITHMETIC if model == "none" else _unmeasured(rule) if model and rule is not None
                      else "not run" if model else "no model")
            rows.append((v.id, model, pj, status, None, None, None, None, None, None, src))
            continue
        rows.append((v.id, model, pj, *_measured_cells(m), src))
    return rows


def _unmeasured(rule) -> str:
    """numerics_status of a variant of `rule` that no campaign ran."""
    return PUBLISHED_AS.format(rule.status) if rule.status else UNMEASURED[rule.basis]


def _basis_status(basis: str) -> str:
    """numerics_status of a selected product with this basis (or provenance), not run."""
    return UNMEASURED[basis] if basis in UNMEASURED else PUBLISHED_AS.format(basis)


def _measured_cells(m: dict) -> tuple:
    """(status, cases, outputs, mismatches, agreement, date, campaign) of a measurement record."""
    agree = (m["outputs"] - m["mismatches"]) / m["outputs"] if m["outputs"] else 0.0
    return ("bit-exact" if m["mismatches"] == 0 and m["outputs"] else "mismatches", m["cases"], m["outputs"],
            m["mismatches"], f"{agree:.9f}", m["date"], m["campaign"])


def _selected_row(spec, v, m: dict | None) -> tuple:
    """status_rows' row of a variant whose products a descriptor selects: the models and parameters of
    each product (keyed by its types), the status of the weakest basis among their rules (or, when
    a campaign measured the variant, its result), the rule when one rule covers them all."""
    meaning = spec.meanings[v.semantics]
    found = meaning.products(v)
    if not found:
        why = meaning.why_none(v) if meaning.why_none is not None else ""
        none = f"no model: {why}" if why else "no model"
        return (v.id, None, None, *(_measured_cells(m) if m else (none, None, None, None, None, None, None)), None)
    models = sorted({p.model for _, _, p, _ in found})
    pj = json.dumps({label: p.as_data() for label, _, p, _ in found}, sort_keys=True)
    bases = {basis for *_, basis in found}
    status = _basis_status(next(iter(bases))) if len(bases) == 1 and bases != {"measured"} else BORROWED
    rules = {spec.numerics.index(r) + 1 if r is not None else None for _, r, _, _ in found}
    src = rules.pop() if len(rules) == 1 else None
    cells = _measured_cells(m) if m else (status, None, None, None, None, None, None)
    return (v.id, ", ".join(models), pj, *cells, src)


def _selector(spec, v):
    """The product enumerator of a variant whose products a descriptor selects at run time (its
    meaning's `products`: every product it can compute, with its arithmetic), else None."""
    meaning = spec.meanings.get(v.semantics)
    return None if meaning is None else meaning.products
