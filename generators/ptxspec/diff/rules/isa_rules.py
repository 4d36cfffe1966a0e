"""PTX ISA versions and compilation targets."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain
from ptxspec.diff.positions import pos_in
from ptxspec.diff.registry import Finding, rule
from ptxspec.diff.rules.named_definitions import definitions


@rule("isa.ptx.added", "info", "a PTX ISA version is new")
def ptx_added(d):
    return definitions(d, "ptx").added()


@rule("isa.ptx.removed", "warning", "a PTX ISA version is gone")
def ptx_removed(d):
    return definitions(d, "ptx").removed()


@rule("isa.ptx.changed", "info", "whether ptxas knows a PTX ISA version changed")
def ptx_changed(d):
    bk, hk = {str(v) for v in d.b.spec.ptxas_versions}, {str(v) for v in d.h.spec.ptxas_versions}
    for name, _, _, bent, hent in definitions(d, "ptx").common():
        if (name in bk) != (name in hk):
            yield Finding(f"PTX ISA {name}", f"PTX ISA {name}: {'now' if name in hk else 'no longer'} assembled by ptxas",
                          pos_in(hent, bent, ["ptxas"]), before=name in bk, after=name in hk)


@rule("isa.target.added", "info", "a target is new")
def target_added(d):
    return definitions(d, "target").added()


@rule("isa.target.removed", "warning", "a target is gone")
def target_removed(d):
    return definitions(d, "target").removed()


@rule("isa.target.changed", "warning", "a target's definition changed")
def target_changed(d):
    for name, bo, ho, bent, hent in definitions(d, "target").common():
        pb, ph = plain(bo), plain(ho)
        fields = changed_fields(pb, ph, skip=("name",))
        if fields:
            text = ", ".join(f"{f} {pb.get(f)!r} -> {ph.get(f)!r}" for f in fields)
            yield Finding(f"target {name}", f"target {name}: {text}", pos_in(hent, bent, fields),
                          details={"fields": fields})
