"""generated/ptxspec.sqlite.

The tables, columns, keys and descriptions come from schema/database.schema.json; this module
only produces the rows. Fragment maps are shared by many variants, so elements are stored once
per evaluated layout (`layout_elements`) and `fragment_elements` is a view joining them to the
variants' operands. Built in memory with sqlite-utils, then serialized: same model, same bytes.
"""
from __future__ import annotations

import json
import sqlite3
from functools import lru_cache

import numpy as np
import sqlite_utils

from .. import __version__
from ..model import Spec
from ..paths import schema_dir
from ..source import tree_digest

SQL_TYPES = {"integer": int, "string": str}
SQL_DECL = {"integer": "INTEGER", "string": "TEXT"}  # declared types with the right affinity ("STRING" is NUMERIC)


@lru_cache(maxsize=1)
def database_schema() -> dict:
    return json.loads((schema_dir() / "database.schema.json").read_text(encoding="utf-8"))


def _base_type(prop: dict) -> str:
    t = prop["type"]
    return next(x for x in t if x != "null") if isinstance(t, list) else t


def _nullable(prop: dict) -> bool:
    return isinstance(prop["type"], list) and "null" in prop["type"]


def tables(spec: Spec) -> dict[str, dict]:
    """The database's tables (schema/database.schema.json `$defs`), with a column in `variants` for
    every qualifier axis a family declares that the schema does not list (after the listed ones)."""
    defs = dict(database_schema()["$defs"])
    props = defs["variants"]["properties"]
    listed = [c for c, p in props.items() if p.get("x-axis")]
    extra = {a.name: {"type": "string", "x-axis": True,
                      "description": f"{' '.join(a.description.split())} ('' when the opcode has none)"}
             for a in spec.axes.values() if a.name not in props}
    if extra:
        cols = list(props.items())
        at = max(i for i, (c, _) in enumerate(cols) if c in listed) + 1
        defs["variants"] = {**defs["variants"], "properties": dict(cols[:at] + list(extra.items()) + cols[at:]),
                            "required": defs["variants"]["required"] + list(extra)}
    return defs


def axis_columns(spec: Spec) -> list[str]:
    return [c for c, p in tables(spec)["variants"]["properties"].items() if p.get("x-axis")]


def create_tables(db: sqlite_utils.Database, defs: dict[str, dict]) -> None:
    for name, table in defs.items():
        props = table["properties"]
        if "x-view" in table:
            db.create_view(name, f"SELECT * FROM ({table['x-view']})")
            continue
        fks = [(col, *p["x-references"].split(".")) for col, p in props.items() if "x-references" in p]
        if table.get("x-without-rowid"):  # sqlite-utils cannot declare WITHOUT ROWID tables
            cols = ", ".join(f"{c} {SQL_DECL[_base_type(p)]}{'' if _nullable(p) else ' NOT NULL'}"
                             + (f" REFERENCES {p['x-references'].replace('.', '(')})" if "x-references" in p else "")
                             for c, p in props.items())
            db.execute(f"CREATE TABLE {name} ({cols}, PRIMARY KEY ({', '.join(table['x-primary-key'])})) WITHOUT ROWID")
        else:
            pk = table["x-primary-key"]
            db.create_table(name, {c: SQL_TYPES[_base_type(p)] for c, p in props.items()},
                            pk=pk[0] if len(pk) == 1 else tuple(pk),
                            not_null={c for c, p in props.items() if not _nullable(p)},
                            foreign_keys=fks)
        for i, cols in enumerate(table.get("x-indexes", [])):
            db[name].create_index(cols, index_name=f"{name}_{'_'.join(cols)}")


def description_rows(defs: dict[str, dict]) -> list[tuple]:
    rows = []
    for name, table in defs.items():
        rows.append((name, "", table["description"]))
        rows += [(name, c, p["description"]) for c, p in table["properties"].items()]
    return rows


def _opt(version) -> str | None:
    return None if version is None else str(version)


def _j(value) -> str:
    return json.dumps(value, sort_keys=True)


def rows(spec: Spec) -> dict[str, list[tuple]]:
    """Every table's rows, in column order of the schema."""
    order = spec.target_order
    defs = tables(spec)
    axes = axis_columns(spec)
    out: dict[str, list[tuple]] = {name: [] for name, t in defs.items() if "x-view" not in t}
    out["provenance"] = [("generator", f"ptxspec {__version__}"),
                         ("schema_sha256", tree_digest(schema_dir(), "*.json", exclude=("diff-report.schema.json",))),
                         ("spec_sha256", spec.digest)]
    out["ptx_versions"] = [(str(v), i, int(v in spec.ptxas_versions)) for i, v in enumerate(spec.ptx_versions)]
    out["targets"] = [(t.name, t.arch, t.suffix, t.family, str(t.ptx), int(t.ptxas)) for t in spec.targets.values()]
    out["types"] = [(t.name, t.cls, t.bits, t.register, int(t.signed), _j(t.format) if t.format else None, t.description)
                    for t in spec.types.values()]
    out["families"] = [(f.name, f.title, f.manual, f.threads, f.description)
                       for f in sorted(spec.families.values(), key=lambda f: f.name)]
    out["instructions"] = [(i.name, i.family, i.manual, i.opcode, i.description, json.dumps(i.rules))
                           for i in sorted(spec.instructions.values(), key=lambda i: i.name)]
    layout_ids: dict[tuple, int] = {}
    elements = []
    for v in spec.variants:
        rec = v.as_record()
        out["variants"].append((v.id, v.family, v.instruction, v.ptx, v.form, v.m, v.n, v.k, v.atype, v.btype, v.ctype,
                                v.dtype, int(v.satfinite), v.op, int(v.sparse),
                                *(v.qualifiers.get(q, "") for q in axes), rec["min_ptx"], json.dumps(rec["targets"]),
                                json.dumps(rec["requires"]), json.dumps(rec["regs"]), json.dumps(rec["selectors"]),
                                json.dumps(rec["metadata_nibbles"]),
                                v.threads, v.group, v.batch, v.ptxas_only, v.hardware,
                                _opt(v.requirement.until_ptx)))
        for ci, clause in enumerate(v.requirement.clauses):
            out["requirement_clauses"] += [(v.id, ci, str(clause.ptx), t, _opt(clause.until))
                                           for t in sorted(clause.targets, key=order)]
        out["variant_targets"] += [(v.id, t, str(v.requirement.first_ptx(spec.targets[t])),
                                    _opt(v.requirement.until(spec.targets[t]))) for t in rec["targets"]]
        for pos, o in enumerate(v.operands):
            lid = per_reg = None
            if o.kind == "fragment" and o.matrix in v.fragment_layouts:  # else: register count only, no map
                layout, _, shape = v.fragment_layouts[o.matrix]
                key = (layout.name, layout.shape_key(*shape))
                fm = v.fragment_map(o.matrix)
                per_reg = fm.per_reg
                lid = layout_ids.get(key)
                if lid is None:
                    lid = layout_ids[key] = len(layout_ids) + 1
                    out["layouts"].append((lid, layout.name, _j(dict(key[1])), fm.rows, fm.cols, fm.threads,
                                           fm.elements, layout.replicas, layout.observed_on))
                    t = np.repeat(np.arange(fm.threads), fm.elements)
                    e = np.tile(np.arange(fm.elements), fm.threads)
                    elements.append(np.stack([np.full(t.size, lid), t, e, fm.row.ravel(), fm.col.ravel()], axis=1))
            out["operands"].append((v.id, pos, o.name, o.kind, o.io, o.matrix, o.regs, o.reg_type, o.element_type, lid,
                                    per_reg, _j(list(o.values)) if o.values is not None else None, o.min_value,
                                    int(o.optional)))
    out["layout_elements"] = np.concatenate(elements).tolist() if elements else []  # rows as lists: no copies
    seen = set()
    for v in spec.variants:
        sp = v.sparsity
        if sp is None or (sp.name, v.m, v.k) in seen:
            continue
        seen.add((sp.name, v.m, v.k))
        for sel in sp.selectors:
            mask, row, chunk = sp.metadata_map(v.threads, v.m, v.n, v.k, sel)
            for t in np.nonzero(mask)[0].tolist():
                out["sparsity_metadata"] += [(sp.name, v.m, v.k, sel, t, n, int(row[t, n]), int(chunk[t, n]))
                                             for n in range(8)]
    out["errata"] = [(e.id, e.family, e.title, e.manual, e.manual_says, e.truth, _j(e.evidence)) for e in spec.errata]
    for e in spec.evidence.campaigns:
        out["evidence"].append((e.campaign, e.date, e.hardware, e.target, e.device, e.toolchain, e.proves, e.method,
                                e.notes, json.dumps(list(e.records))))
        out["variant_evidence"] += [(vid, e.campaign, e.proves, r.cases, r.outputs, r.mismatches)
                                    for vid, r in e.results.items()]
    for fam, sm in sorted(spec.smem.items()):
        out["descriptor_fields"] += [(fam, f["name"], f["lsb"], f["width"], f["encode"].source, f["description"])
                                     for f in sm.fields]
        out["swizzle_modes"] += [(fam, m.name, m.code, m.width, m.b, m.repeat, m.description) for m in sm.swizzle_modes]
        out["canonical_layouts"] += [(fam, c["major"], int(c["swizzled"]), c["cute"], c["bit_offset"].source)
                                     for c in sm.canonical_layouts]
    from ..numerics import status_rows  # the executors' arithmetic and its measured status
    out["numerics_status"] = status_rows(spec)
    out["descriptions"] = description_rows(defs)
    return out


def connect(spec: Spec, table_rows: dict[str, list[tuple]] | None = None) -> sqlite3.Connection:
    """An in-memory database of the spec."""
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA page_size = 4096")
    db = sqlite_utils.Database(conn)
    create_tables(db, tables(spec))
    for name, data in (table_rows if table_rows is not None else rows(spec)).items():
        if data:
            conn.executemany(f"INSERT INTO {name} VALUES ({','.join('?' * len(data[0]))})", data)
    conn.commit()
    return conn


def build(spec: Spec) -> dict[str, bytes]:
    table_rows = rows(spec)
    conn = connect(spec, table_rows)
    data = bytes(conn.serialize())
    conn.close()
    return {"ptxspec.sqlite": data}
