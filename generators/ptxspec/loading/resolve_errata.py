"""Resolving errata files, and the checks that need every variant: errata evidence that names
opcodes, variants beyond the manual naming their erratum, and layouts no variant uses."""
from __future__ import annotations

from ptxspec.core.errors import did_you_mean
from ptxspec.core.expr import ExprError
from ptxspec.loading.context import Context
from ptxspec.loading.resolve_tables import Layouts
from ptxspec.loading.tree import Document
from ptxspec.model.errata import Erratum
from ptxspec.model.spec import Spec


def resolve_errata(ctx: Context, spec: Spec, docs: list[Document], failed: set[str]) -> list[Erratum]:
    """The errata; `failed` names instructions that had problems (opcodes missing because their
    instruction failed are not the erratum's fault)."""
    errata: list[Erratum] = []
    ids = {}
    opcodes = {p for p, _ in spec._by_key}
    opcodes |= {v.opcode(**{axis: value}) for v in spec.variants for axis, values in v.options.items()
                for value, _ in values if value}  # an opcode with one option

    def checkable(op: str) -> bool:
        owner = max((n for n in spec.instructions if op.startswith(n + ".")), key=len, default=None)
        return owner not in failed

    for doc in docs:
        d = doc.data
        ctx.known(d, "family", spec.families, "family")
        for i, e in enumerate(d["errata"]):
            pos = d["errata"].at(i)
            if e["id"] in ids:
                ctx.p.add(pos, f"erratum {e['id']} listed twice")
                continue
            ids[e["id"]] = pos
            for key in ("present", "absent"):
                for j, op in enumerate(e["evidence"].get(key, [])):
                    if not checkable(op):
                        continue
                    exists = " ".join(op.split()) in opcodes
                    if exists != (key == "present"):
                        ctx.p.add(e["evidence"][key].at(j),
                                  f"erratum {e['id']}: {op} is {'not ' if key == 'present' else ''}a variant "
                                  f"of the spec, but the evidence lists it as {key}")
            errata.append(Erratum(id=e["id"], family=d["family"], title=e["title"], manual=e["manual"],
                                  manual_says=e["manual_says"], truth=e["truth"], evidence=dict(e["evidence"]), pos=pos))
    reported = set()
    for v in spec.variants:  # a variant beyond the manual must name the erratum that says so
        if v.ptxas_only and v.ptxas_only not in ids and (v.ptxas_only, v.group) not in reported:
            reported.add((v.ptxas_only, v.group))
            ctx.p.add(v.pos, f"group {v.group!r}: ptxas_only names unknown erratum {v.ptxas_only!r}"
                      f"{did_you_mean(v.ptxas_only, ids)}")
    return errata


def check_unused_layouts(ctx: Context, spec: Spec, docs: list[Document], layouts: Layouts) -> None:
    """Layouts no variant uses yet are still checked, where their size needs no shape parameter."""
    used = {lay.name for v in spec.variants for lay, _, _ in v.fragment_layouts.values()}
    for doc in docs:
        fam = spec.families.get(doc.data["family"])
        if fam is None:
            ctx.known(doc.data, "family", spec.families, "family")
            continue
        for name in doc.data.get("fragments", {}):
            lay = layouts.fragments.get(name)
            if lay is None or name in used or name in layouts.broken or lay.shape_names:
                continue
            try:
                problem = lay.evaluate(fam.threads, 32, 0, 0, 0).bijection_problem()
            except ExprError as exc:
                problem = str(exc)
            if problem:
                ctx.p.add(lay.pos, f"layout {name} is not a bijection: {problem}")
