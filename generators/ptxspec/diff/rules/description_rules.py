"""Descriptions, titles and manual references: text for readers, nothing a program relies on."""
from __future__ import annotations

import os

from ptxspec.diff.plain import plain
from ptxspec.diff.positions import first_description_diff, pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.instruction_rules import entries
from ptxspec.diff.rules.named_definitions import definitions, first_of
from ptxspec.diff.rules.smem_rules import changed_parts


def _described(subject: str, pos, fields: list[str], before: dict, after: dict) -> Finding:
    return Finding(subject, f"{subject}: {', '.join(fields)} changed", pos, before=first_of(fields, before),
                   after=first_of(fields, after), details={"fields": fields})


def _definitions(d):
    for area in ("layout", "type"):
        defs = definitions(d, area)
        for name, bo, ho, bent, hent in defs.common():
            if type(bo) is not type(ho):
                continue
            pb, ph = plain(bo), plain(ho)
            if pb.get("description") != ph.get("description"):
                yield _described(defs.label(name), pos_in(hent, bent, ["description"]), ["description"], pb, ph)
    defs = definitions(d, "family")
    for name, bo, ho, bent, hent in defs.common():
        yield from _attributes(defs.label(name), bo, ho, bent, hent, ("title", "description", "manual"))
    for name in sorted(set(d.b.spec.instructions) & set(d.h.spec.instructions)):
        bent, hent = entries(d, name)
        yield from _attributes(f"instruction {name}", d.b.spec.instructions[name], d.h.spec.instructions[name],
                               bent, hent, ("description", "manual"))


def _attributes(subject, bo, ho, bent, hent, names):
    fields = [f for f in names if getattr(bo, f) != getattr(ho, f)]
    if fields:
        yield _described(subject, pos_in(hent, bent, fields), fields, {f: getattr(bo, f) for f in fields},
                         {f: getattr(ho, f) for f in fields})


def _smem(d):
    for name, bo, ho, bent, hent in definitions(d, "smem").common():
        _, texts = changed_parts(name, bo, ho)
        if texts:
            where = first_description_diff(hent[0], bent[0]) if hent and bent else None
            yield Finding(f"smem {name}", f"smem {name}: descriptions changed ({', '.join(texts)})",
                          where or (hent[1] if hent else None), details={"fields": texts})


def _files(d):
    """The `description` of a whole file (isa, types, layouts, errata) lives outside the model."""
    brel = {os.path.relpath(p, d.b.spec_dir): x for p, x in d.b.index.files.items()}
    for path, x in sorted(d.h.index.files.items()):
        if x.get("kind") in ("instruction", "family", "smem"):
            continue  # their descriptions are compared with their definitions
        rel = os.path.relpath(path, d.h.spec_dir)
        old = brel.get(rel)
        if old is not None and x.get("description") != old.get("description"):
            yield _described(f"file {rel}", x.at("description"), ["description"], old, x)


@rule("description.changed", "info", "a description, title or manual reference changed")
def changed(d):
    yield from _definitions(d)
    yield from _smem(d)
    yield from _files(d)
