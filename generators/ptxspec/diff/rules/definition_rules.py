"""Whatever the other rules do not cover: the model grows before the rules do."""
from __future__ import annotations

from ptxspec.diff.plain import changed_fields, plain
from ptxspec.diff.registry import Finding, rule

#: Spec attributes the other rules compare (or that are derived, or a digest of the inputs).
KNOWN_SPEC_ATTRS = frozenset({"ptx_versions", "ptxas_versions", "targets", "types", "families", "instructions",
                              "layouts", "sparsities", "smem", "errata", "variants", "digest",
                              "numerics",  # arithmetic.changed compares what each variant gets
                              "evidence"})  # campaigns, not spec: a spec diff leaves them out


def _collections(d):
    """Collections of the model that no rule knows (numerics, say, before a rule for it exists)."""
    names = {k for k in vars(d.b.spec) if not k.startswith("_")} | {k for k in vars(d.h.spec) if not k.startswith("_")}
    for name in sorted(names - KNOWN_SPEC_ATTRS):
        pb, ph = plain(getattr(d.b.spec, name, None)), plain(getattr(d.h.spec, name, None))
        if pb == ph:
            continue
        if isinstance(pb, dict) and isinstance(ph, dict):
            keys = changed_fields(pb, ph)
            text = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
        else:
            keys, text = [], "changed"
        yield Finding(f"spec {name}", f"{name}: {text}", None, details={"fields": keys} if keys else None)


def _unused_n_sets(d):
    """Named N sets that no group of either tree uses (a used one changes variants instead)."""
    used = d.b.index.n_sets_used() | d.h.index.n_sets_used()
    for fam in sorted(set(d.b.spec.families) & set(d.h.spec.families)):
        bsets, hsets = d.b.spec.families[fam].n_sets, d.h.spec.families[fam].n_sets
        for name in sorted(set(bsets) | set(hsets)):
            if (fam, name) in used or bsets.get(name) == hsets.get(name):
                continue
            verb = "added" if name not in bsets else "removed" if name not in hsets else "changed"
            side = d.b if verb == "removed" else d.h
            doc = side.index.families[fam]
            yield Finding(f"family {fam} n_set {name}", f"family {fam}: N set {name} {verb} (no group uses it)",
                          doc["n_sets"].at(name), side="base" if verb == "removed" else "head",
                          before=bsets.get(name), after=hsets.get(name))


@rule("definition.changed", "warning",
      "another part of the model changed, one no other rule covers (a new collection, an N set no group uses)")
def changed(d):
    yield from _collections(d)
    yield from _unused_n_sets(d)
