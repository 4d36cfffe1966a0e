"""From spec documents to the resolved model: one resolver per kind of spec file.

`build_model` runs them in the order their dependencies give, passing each the tables it needs
explicitly (no resolver reads another's state), and raises SpecError listing every problem.
"""
from __future__ import annotations

from ptxspec.core.errors import Problems
from ptxspec.loading.checks import check_model
from ptxspec.loading.context import Context, Origin
from ptxspec.core.paths import default_evidence_dir
from ptxspec.loading.evidence_files import check_against, read_evidence
from ptxspec.loading.introductions import check_introductions
from ptxspec.loading.ptxas_evidence import read_ptxas_evidence
from ptxspec.loading.resolve_descriptors import resolve_descriptors
from ptxspec.loading.resolve_errata import check_unused_layouts, resolve_errata
from ptxspec.loading.resolve_instructions import InstructionResolver, check_when_values
from ptxspec.loading.resolve_numerics import check_rules_used, resolve_numerics
from ptxspec.loading.resolve_tmem import resolve_tmem
from ptxspec.loading.resolve_tables import resolve_families, resolve_isa, resolve_layouts, resolve_smem, resolve_types
from ptxspec.loading.tree import Tree, read_tree
from ptxspec.model.spec import Spec
from ptxspec.semantics.meanings import SEMANTICS

__all__ = ["build_model", "read_model", "Origin"]


def build_model(docs: Tree, evidence_dir=None, *, evidence: bool = True) -> Spec:
    """The model of a spec tree (`source.read_tree`), joined with the evidence in `evidence_dir`
    (default: the `evidence` directory beside the tree, when there is one; none when `evidence`
    is false: a spec diff compares specs, not campaigns)."""
    ctx = Context(Problems())
    isa = resolve_isa(ctx, docs["isa"][0])
    types = resolve_types(ctx, docs["types"][0])
    families = resolve_families(ctx, docs["family"])
    layouts = resolve_layouts(ctx, docs["layouts"], isa.targets)
    smem = resolve_smem(ctx, docs["smem"], families)
    descriptors = resolve_descriptors(ctx, docs["descriptor"], families)
    resolve_tmem(ctx, docs["layouts"], descriptors, families, layouts.sparsities)
    spec = Spec(ptx_versions=isa.ptx_versions, ptxas_versions=isa.ptxas_versions, targets=isa.targets, types=types,
                families=families, layouts=layouts.fragments, sparsities=layouts.sparsities,
                scale_maps=layouts.scale_maps, smem=smem,
                digest=docs.digest, descriptors=descriptors)
    spec.meanings = SEMANTICS
    family_docs = {d.data["name"]: d.data for d in docs["family"]}
    instructions = InstructionResolver(ctx, spec, layouts, family_docs, isa.origins, docs.root)
    for doc in docs["instruction"]:
        instructions.resolve(doc)
    if not ctx.p:
        check_when_values(ctx.p, spec, instructions.whens, instructions.expander.values)
    check_unused_layouts(ctx, spec, docs["layouts"], layouts)
    whole = not ctx.p  # every variant resolved (errata are checked against them, not part of them)
    spec.errata = resolve_errata(ctx, spec, docs["errata"], instructions.failed)
    spec.numerics = resolve_numerics(ctx, docs["numerics"], families)
    if whole:  # the invariants of a whole model (ptxspec.loading.checks); a partial one would mislead
        check_model(ctx.p, spec, docs)
    check_introductions(ctx, spec, docs["instruction"])  # no requirement before the instruction existed
    ctx.p.raise_if_any()
    if evidence:
        where = evidence_dir or default_evidence_dir(docs.root)
        spec.evidence = read_evidence(where, ctx.p)
        check_against(spec.evidence, spec, ctx.p)
        spec.evidence.ptxas = read_ptxas_evidence(where, [v.id for v in spec.variants],
                                                  {v.id: v.ptx for v in spec.variants}, ctx.p)
        ctx.p.raise_if_any()
    check_rules_used(ctx, spec)
    ctx.p.raise_if_any()
    spec.variants.sort(key=lambda v: (v.family, v.instruction, v.id))
    return spec


def read_model(spec_dir=None, evidence_dir=None) -> Spec:
    """The model of the spec tree in `spec_dir` (default: the checkout's or the installed spec/), read,
    checked and resolved, joined with the evidence in `evidence_dir`."""
    return build_model(read_tree(spec_dir), evidence_dir)
