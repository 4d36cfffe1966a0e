"""Trees written before a fact moved between spec files, read as today's (for `ptxspec diff`).

A diff compares two revisions with today's schemas and model, so a revision from before a move
would not load. `upgrade` moves such facts, in the parsed documents, to where they live now,
keeping every node's position (a finding still points at the line that wrote it). Only the diff
asks for it: `validate` and `build` refuse a fact in its old home, naming the new one (`MOVED`).

Issue 29, one home per concept: a descriptor's tensor-memory placements (`tmem_layouts`,
`scale_factor_layouts`, `metadata_layouts`) and its `sparsity` rules (chunk and sub-chunk in
elements, `codes` with the kept sub-chunks) moved to its family's layouts file: `tmem:`
(`descriptor`, `datapaths`, `scale_factors`, `metadata`, each kind's sparsity by name) and
`sparsity:` (the vocabulary of every sparsity: index units, valid nibbles), one entry per rule,
named `<family>.sparse.<kept>of<chunk>` (in elements).
"""
from __future__ import annotations

from ptxspec.core.errors import PosDict, PosList

__all__ = ["upgrade", "MOVED"]

_TMEM = {"tmem_layouts": "datapaths", "scale_factor_layouts": "scale_factors", "metadata_layouts": "metadata"}

#: (kind, key) -> where that key's facts live now
MOVED = {("descriptor", old): f"the family's layouts file (`tmem: {new}`)" for old, new in _TMEM.items()} | {
    ("descriptor", "sparsity"): "the family's layouts file (`sparsity:`, named per kind in `tmem: sparsity`)"}


def _dict(pairs, pos, key_pos=None) -> PosDict:
    out = PosDict(pairs)
    out.pos, out.key_pos = pos, dict(key_pos or {})
    return out


def _list(items, pos, item_pos) -> PosList:
    out = PosList(items)
    out.pos, out.item_pos = pos, list(item_pos)
    return out


def _sparsity(family: str, rule) -> tuple[str, PosDict] | None:
    """An old rule in today's vocabulary: 2-bit indices of index units, two kept of four."""
    try:
        chunk, unit, codes = int(rule["chunk"]), int(rule["unit"]), rule["codes"]
        subs = chunk // unit
        units = {4: {"unit_elements": unit}, 2: {"element_units": 2}}[subs] if subs * unit == chunk else None
        nibbles = [int(code, 2) for code in codes]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if units is None or (subs == 2 and unit != 1) or not isinstance(codes, PosDict):  # (codes: {nibble: ...})
        return None
    at = rule.at
    body = [("manual", rule.get("manual", ""))] + list(units.items()) + [("chunk", 4), ("kept", 2)]
    if "description" in rule:
        body.append(("description", rule["description"]))
    body.append(("valid_nibbles", _list(nibbles, at("codes"), [codes.at(c) for c in codes])))
    pos = {k: at({"unit_elements": "unit", "element_units": "unit", "valid_nibbles": "codes"}.get(k, k))
           for k, _ in body}
    return f"{family}.sparse.{chunk // 2}of{chunk}", _dict(body, rule.pos, pos)


def _name(value) -> str | None:
    return value if isinstance(value, str) else None


def upgrade(parsed: list[tuple]) -> list[tuple]:
    """(path, kind, data, misplaced) documents, with moved facts where they live now."""
    # before the schema pass: a `family` that is no string (a list, a mapping) names no file (fuzz seed 33, tree 1717)
    layouts = {_name(d.get("family")): d for _, kind, d, _ in parsed if kind == "layouts"}
    layouts.pop(None, None)
    for _, kind, d, _ in parsed:
        if kind != "descriptor" or not any(k in d for k in (*_TMEM, "sparsity")):
            continue
        target = layouts.get(_name(d.get("family")))
        if target is None or "tmem" in target:
            continue  # nowhere to move them: the schema reports them where they are
        rules = d.get("sparsity", [])
        if not isinstance(rules, list):
            continue  # not yet schema-checked: the schema pass reports it where it is
        named = [_sparsity(str(d.get("family")), r) if isinstance(r, PosDict) else None for r in rules]
        if None in named:
            continue
        tmem = [("descriptor", d.get("name"))]
        kinds = {k: name for (name, _), r in zip(named, rules) for k in r.get("kinds", [])  # type: ignore[misc]
                 if isinstance(k, str)}  # (anything else: the schema reports it)
        if kinds:
            tmem.append(("sparsity", _dict(kinds.items(), d.at("sparsity"), {k: d.at("sparsity") for k in kinds})))
        tmem += [(new, d[old]) for old, new in _TMEM.items() if old in d]
        first = next(k for k in (*_TMEM, "sparsity") if k in d)
        old_key = {new: old for old, new in _TMEM.items()} | {"sparsity": "sparsity", "descriptor": first}
        target["tmem"] = _dict(tmem, d.at(first), {k: d.at(old_key[k]) for k, _ in tmem})
        target.key_pos["tmem"] = d.at(first)
        if named:
            if "sparsity" not in target:
                target["sparsity"], target.key_pos["sparsity"] = _dict((), d.at("sparsity")), d.at("sparsity")
            entries = target["sparsity"]
            for name, body in named:  # type: ignore[misc]
                entries[name] = body
                entries.key_pos[name] = body.pos
        for k in (*_TMEM, "sparsity"):
            d.pop(k, None)
    return parsed
