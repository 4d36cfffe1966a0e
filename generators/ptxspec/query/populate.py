"""The database of a model: every table and view of generated/ptxspec.sqlite, filled from the model.

`ptxspec.emit.sqlite` serializes it into the committed file; `Spec.query` asks the same tables
(ptxspec.query.search), so the Python API and `ptxspec query` answer alike. The tables, views, columns, keys and descriptions come from schema/database.schema.json; this
module only produces the rows. Variants share most of what describes them, so the database stores
each shared thing once and the views users read join it back (the views keep the columns the
tables had): a requirement (`requirements`, its clauses and targets) once per distinct requirement,
an operand signature (`signatures`, `signature_operands`, `operand_defs`) once per distinct
signature, numerics results and evidence results once per distinct row, and each evaluated
fragment layout as a tile of elements repeated along the matrix (`layout_tiling`, `tile_elements`:
the wgmma accumulator of every N is one 4-element tile). Built in memory with sqlite-utils, then
serialized: same model, same bytes.
"""
from __future__ import annotations

import json
import operator
import re
import sqlite3
from functools import lru_cache

from ptxspec.core.lazy import np
import sqlite_utils

from ptxspec.core.files import tree_digest
from ptxspec.core.paths import schema_dir
from ptxspec.core.version import __version__
from ptxspec.model.isa import Requirement
from ptxspec.model.spec import Spec
from ptxspec.model.variant import Variant
from ptxspec.query.database import APPLICATION_ID, DATABASE_VERSION
from ptxspec.query.json_parts import VARIANT_PARTS, Members, json_parts, json_source
from ptxspec.semantics.numerics_status import status_rows  # the executors' arithmetic and its measured status

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
    """The database's tables and views (schema/database.schema.json `$defs`), with a column in
    `variants` (and `variant_rows`) for every qualifier axis a family declares that the schema does
    not list (after the listed ones)."""
    defs = dict(database_schema()["$defs"])
    for name, table in defs.items():
        props = table["properties"]
        listed = [c for c, p in props.items() if p.get("x-axis")]
        if not listed:
            continue
        extra = {a.name: {"type": "string", "x-axis": True,
                          "description": f"{' '.join(a.description.split())} ('' when the opcode has none)"}
                 for a in spec.axes.values() if a.name not in props}
        if extra:
            cols = list(props.items())
            at = max(i for i, (c, _) in enumerate(cols) if c in listed) + 1
            defs[name] = {**table, "properties": dict(cols[:at] + list(extra.items()) + cols[at:]),
                          "required": table["required"] + list(extra)}
    for name, table in defs.items():  # a view with the columns of another first (variants_json)
        if "x-extends" in table:
            base = defs[table["x-extends"]]
            own = {c: ({**p, "x-source": json_source(defs, table["x-extends"])} if p.get("x-source") == "x-json" else p)
                   for c, p in table["properties"].items()}
            defs[name] = {**table, "properties": {**base["properties"], **own},
                          "required": base["required"] + table["required"]}
    return defs


def axis_columns(spec: Spec) -> list[str]:
    return [c for c, p in tables(spec)["variants"]["properties"].items() if p.get("x-axis")]


def view_sql(table: dict) -> str:
    """SELECT of a view: each column's x-source (default: the x-columns-from alias's column)."""
    alias = table["x-columns-from"]
    cols = []
    for c, p in table["properties"].items():
        src = p.get("x-source", f"{alias}.{c}")
        plain = re.fullmatch(rf"(\w+)\.{c}", src)  # a column of the same name: no alias needed
        cols.append(f'{plain.group(1)}."{c}"' if plain else f'{src} AS "{c}"')  # quoted: an axis may be a keyword
    return f"SELECT {', '.join(cols)} FROM {table['x-from']}"


def create_tables(db: sqlite_utils.Database, defs: dict[str, dict]) -> None:
    for name, table in defs.items():
        if "x-from" not in table:
            _create_table(db, name, table)
    for name, table in defs.items():
        if "x-from" in table:
            db.create_view(name, view_sql(table))


def _create_table(db: sqlite_utils.Database, name: str, table: dict) -> None:
    props = table["properties"]
    fks = [(col, *p["x-references"].split(".")) for col, p in props.items() if "x-references" in p]
    if table.get("x-without-rowid") or "x-rowid-order" in table:  # sqlite-utils cannot declare these (WITHOUT
        # ROWID; a table that references tables created after it)
        cols = ", ".join(f'"{c}" {SQL_DECL[_base_type(p)]}' + ("" if _nullable(p) else " NOT NULL")
                         + (f" REFERENCES {p['x-references'].replace('.', '(')})" if "x-references" in p else "")
                         for c, p in props.items())
        db.execute(f"CREATE TABLE {name} ({cols}, PRIMARY KEY ({', '.join(table['x-primary-key'])}))"
                   + (" WITHOUT ROWID" if table.get("x-without-rowid") else ""))
    else:
        pk = table["x-primary-key"]
        db.create_table(name, {c: SQL_TYPES[_base_type(p)] for c, p in props.items()},
                        pk=pk[0] if len(pk) == 1 else tuple(pk),
                        not_null={c for c, p in props.items() if not _nullable(p)},
                        foreign_keys=fks)
    for cols in table.get("x-indexes", []):
        db.table(name).create_index(cols, index_name=f"{name}_{'_'.join(cols)}")


def description_rows(defs: dict[str, dict]) -> list[tuple]:
    rows = []
    for name, table in defs.items():
        rows.append((name, "", table["description"]))
        rows += [(name, c, p["description"]) for c, p in table["properties"].items()]
    return rows


def _getter(columns: tuple[str, ...]):
    """The values of these keys of a dict, as a tuple (operator.itemgetter, one key included)."""
    get = operator.itemgetter(*columns)
    return get if len(columns) > 1 else lambda row: (get(row),)


def _opt(version) -> str | None:
    return None if version is None else str(version)


def _j(value) -> str:
    return json.dumps(value, sort_keys=True)


class _Shared:
    """Rows stored once: the id (from 1, in order of first use) of each distinct key."""

    def __init__(self):
        self.ids: dict = {}

    def id(self, key, add) -> int:
        """The key's id; `add(id)` stores its rows the first time the key is seen."""
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.ids) + 1
            add(i)
        return i


def rows(spec: Spec) -> dict[str, list[tuple]]:
    """Every table's rows, in column order of the schema."""
    defs = tables(spec)
    out: dict[str, list[tuple]] = {name: [] for name, t in defs.items() if "x-from" not in t}
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
    _variant_rows(spec, defs, out)
    _sparsity_rows(spec, out)
    out["errata"] = [(e.id, e.family, e.title, e.manual, e.manual_says, e.truth, _j(e.evidence)) for e in spec.errata]
    for fam, sm in sorted(spec.smem.items()):
        out["descriptor_fields"] += [(fam, f["name"], f["lsb"], f["width"], f["encode"].source, f["description"])
                                     for f in sm.fields]
        out["swizzle_modes"] += [(fam, m.name, m.code, m.width, m.b, m.repeat, m.description, m.unit, json.dumps(list(m.majors)))
                                 for m in sm.swizzle_modes]
        out["canonical_layouts"] += [(fam, c["major"], int(c["swizzled"]), c["cute"], c["bit_offset"].source)
                                     for c in sm.canonical_layouts]
    _descriptor_rows(spec, out)
    out["descriptions"] = description_rows(defs)
    return out


def _descriptor_rows(spec: Spec, out: dict[str, list[tuple]]) -> None:
    """bit_descriptor_fields, _codes, _combinations and _shapes: the run-time descriptors (tcgen05's idesc)."""
    for (fam, name), d in sorted(spec.descriptors.items()):
        for lay in d.layouts:
            for f in lay.fields:
                legal = json.dumps({k: list(v) for k, v in f.legal.items()}) if f.legal else None
                out["bit_descriptor_fields"].append((fam, name, lay.name, json.dumps(list(lay.selectors)), f.name, f.lsb,
                                                     f.width, f.what, f.encode.source if f.encode else None, legal,
                                                     f.reserved, f.description))
                out["bit_descriptor_codes"] += [(fam, name, lay.name, f.name, sel, value, code)
                                                for sel, table in f.codes.items() for value, code in table.items()]
            out["bit_descriptor_combinations"] += [
                (fam, name, lay.name, sel, i, json.dumps({f: list(v) for f, v in c.when}),
                 json.dumps({f: list(v) for f, v in c.then}), c.manual, " ".join(c.description.split()))
                for i, c in enumerate(lay.combinations) for sel in c.selectors]
        for sh in d.shapes:
            for sel in sh.selectors:
                k = d.k.get(sel)
                for sparse in (0, 1):
                    m = sh.m_sparse if sparse and sh.m_sparse else sh.m
                    n = sh.n_sparse if sparse and sh.n_sparse else sh.n
                    out["bit_descriptor_shapes"].append((fam, name, sel, sh.cta_group, int(sh.ws), sparse, json.dumps(m),
                                                         json.dumps(n), k * (1 + sparse) if k else None))
        for t in d.tmem_layouts:
            a_lanes = json.dumps([f.source for f in t.a_lanes]) if t.a_lanes else None
            out["tmem_layouts"] += [(fam, name, t.id, m, cta, int(sp), int(ws), t.organization, t.rows,
                                     json.dumps(list(t.alignments)), t.lane.source, t.column.source, a_lanes, t.manual,
                                     " ".join(t.description.split()))
                                    for m, cta, sparse, ws in t.cases for sp in sparse]
        out["tmem_scale_layouts"] += [(fam, name, s.name, s.matrix, p, s.copies, s.lane.source, s.column.source,
                                       s.byte.source, s.manual, " ".join(s.description.split()))
                                      for s in d.scale_factor_layouts for p in s.datapaths]
        out["tmem_metadata_layouts"] += [(fam, name, m.name, k, p, json.dumps(list(m.ids)), m.lane.source,
                                          m.column.source, m.bit.source, m.manual, " ".join(m.description.split()))
                                         for m in d.metadata_layouts for k in m.kinds for p in m.datapaths]
        out["sparsity_codes"] += [(fam, name, k, r.chunk_elements, r.subchunk_elements, code, json.dumps(list(kept)),
                                   r.manual) for k, r in d.sparsity.items() for code, kept in r.codes]


def _variant_rows(spec: Spec, defs: dict[str, dict], out: dict[str, list[tuple]]) -> None:
    """variant_rows and the rows they share: requirements, signatures, layouts, numerics, evidence, ptxas."""
    order = spec.target_order
    columns = list(defs["variant_rows"]["properties"])
    axes = [c for c, p in defs["variant_rows"]["properties"].items() if p.get("x-axis")]
    requirements, signatures, operands, fragments = _Shared(), _Shared(), _Shared(), _Shared()
    members = Members()  # the JSON text of each run of variants_json that variants share
    parts = {part: tuple(cols) for part, cols in json_parts(list(defs["variants"]["properties"]), axes)}
    layouts = _Layouts(out)
    scale_layouts = _Shared()

    runs = {part: (parts[part], _getter(parts[part])) for part in VARIANT_PARTS}

    def fragment(part: str, values: dict) -> int:
        """The id in json_fragments of the text of this run of the variant's JSON."""
        columns, values_of = runs[part]
        text = members(columns, values_of(values))
        return fragments.id(text, lambda i: out["json_fragments"].append((i, text)))

    def add_requirement(i: int, req: Requirement) -> None:
        targets = spec.sort_targets(req.targets)
        row = (str(req.min_ptx), json.dumps(targets), json.dumps(req.as_data(order)))
        until = _opt(req.until_ptx)
        out["requirements"].append((i, *row, until, members(parts["requirement"], row), members(parts["until"], (until,))))
        for ci, clause in enumerate(req.clauses):
            out["requirement_clause_rows"] += [(i, ci, str(clause.ptx), t, _opt(clause.until))
                                               for t in sorted(clause.targets, key=order)]
        out["requirement_targets"] += [(i, t, str(req.first_ptx(spec.targets[t])), _opt(req.until(spec.targets[t])))
                                       for t in targets]

    numerics = _numerics(spec, out)
    at = list(defs["numerics_results"]["properties"]).index("status")
    status = {r[0]: r[at] for r in out["numerics_results"]}
    evidence = _evidence(spec, out)
    ptxas = _ptxas(spec, out)
    for v in spec.variants:
        rec = v.as_record()
        defs_ids = []
        for o in v.operands:
            lid = per_reg = None
            if o.kind == "fragment" and o.matrix in v.fragment_layouts:  # else: register count only, no map
                lid, per_reg = layouts.id(v, o.matrix)
            sid = _scale_layout(out, scale_layouts, v, o) if o.scale_map else None
            row = (o.name, o.kind, o.io, o.matrix, o.regs, o.reg_type, o.element_type, lid, per_reg,
                   _j(list(o.values)) if o.values is not None else None, o.min_value, int(o.optional), sid,
                   o.vectors or None)
            defs_ids.append(operands.id(row, lambda i, row=row: out["operand_defs"].append((i, *row))))
        sig_key = (json.dumps(rec["regs"]), tuple(defs_ids))

        def add_signature(i: int, key=sig_key) -> None:
            out["signatures"].append((i, key[0], members(parts["signature"], (key[0],))))
            out["signature_operands"] += [(i, pos, d) for pos, d in enumerate(key[1])]

        values = {
            "id": v.id, "family": v.family, "instruction": v.instruction, "ptx": v.ptx, "form": v.form,
            "m": v.m, "n": v.n, "k": v.k, "atype": v.atype, "btype": v.btype, "ctype": v.ctype, "dtype": v.dtype,
            "satfinite": int(v.satfinite), "op": v.op, "sparse": int(v.sparse),
            **{q: v.qualifiers.get(q, "") for q in axes},
            "requirement": requirements.id(v.requirement, lambda i, r=v.requirement: add_requirement(i, r)),
            "signature": signatures.id(sig_key, add_signature),
            "selectors": json.dumps(rec["selectors"]), "metadata_nibbles": json.dumps(rec["metadata_nibbles"]),
            "threads": v.threads, "grp": v.group, "batch": v.batch, "ptxas_only": v.ptxas_only,
            "hardware": v.hardware, "numerics": status.get(numerics.get(v.id), ""), "evidence": evidence.get(v.id),
            "ptxas": ptxas.get(v.id),
        }  # numerics as the view variants shows it (its status), for the JSON runs; then as stored
        values.update({f"json_{part}": fragment(part, values) for part in VARIANT_PARTS}, numerics=numerics.get(v.id))
        out["variant_rows"].append(tuple(values[c] for c in columns))
        out["variant_option_rows"] += [
            (v.id, axis, value, v.opcode(**{axis: value}), requirements.id(req, lambda i, r=req: add_requirement(i, r)))
            for axis, vals in v.options.items() for value, req in vals if value]
    out["movement_forms"] = [(m.form, m.instruction, json.dumps(list(m.variants)), m.hardware) for m in spec.loaders.forms]
    for (lname, skey, etype), r in spec.loaders.keyed_rows():  # per distinct fragment; the view joins the variants
        out["loaders"].append((layouts.ids[(lname, skey)], etype, r.storage, r.direction, r.status, r.form,
                               r.instructions, r.row, r.col, r.reason))
    layouts.finish()


class _Layouts:
    """Each evaluated fragment layout once (`layouts`), its elements as a tile repeated along the
    matrix (`layout_tiling`), each distinct tile once (`tile_elements`)."""

    def __init__(self, out: dict[str, list[tuple]]):
        self.out = out
        self.ids: dict[tuple, int] = {}
        self.tiles: dict[tuple, int] = {}
        self.elements: list[np.ndarray] = []

    def id(self, v: Variant, matrix: str) -> tuple[int, int]:
        """(layout id, elements per register) of a fragment of the variant."""
        layout, _, shape = v.fragment_layouts[matrix]
        key = (layout.name, layout.shape_key(*shape))
        fm = v.fragment_map(matrix)
        lid = self.ids.get(key)
        if lid is None:
            lid = self.ids[key] = len(self.ids) + 1
            self.out["layouts"].append((lid, layout.name, _j(dict(key[1])), fm.rows, fm.cols, fm.threads,
                                        fm.elements, layout.replicas, layout.observed_on))
            self._tile(lid, np.asarray(fm.row).reshape(fm.threads, fm.elements),
                       np.asarray(fm.col).reshape(fm.threads, fm.elements))
        return lid, fm.per_reg

    def _tile(self, lid: int, row: np.ndarray, col: np.ndarray) -> None:
        width, row_step, col_step = tiling(row, col)
        t, head_r, head_c = row.shape[0], row[:, :width], col[:, :width]
        key = (t, width, head_r.tobytes(), head_c.tobytes())
        tile = self.tiles.get(key)
        if tile is None:
            tile = self.tiles[key] = len(self.tiles) + 1
            th = np.repeat(np.arange(t), width)
            e = np.tile(np.arange(width), t)
            self.elements.append(np.stack([np.full(th.size, tile), th, e, head_r.ravel(), head_c.ravel()], axis=1))
        self.out["layout_tiling"].append((lid, tile, width, row.shape[1] // width, row_step, col_step))

    def finish(self) -> None:
        self.out["tile_elements"] = np.concatenate(self.elements).tolist() if self.elements else []
        most = max((r[3] for r in self.out["layout_tiling"]), default=0)
        self.out["integers"] = [(n,) for n in range(most)]


def tiling(row: np.ndarray, col: np.ndarray) -> tuple[int, int, int]:
    """(width, row step, col step): the fewest leading elements per thread whose copies, each moved by
    (row step, col step) from the one before, are every thread's elements in order."""
    threads, elements = row.shape
    for width in range(1, elements + 1):
        if elements % width:
            continue
        reps = elements // width
        if reps == 1:
            return width, 0, 0
        step = np.arange(reps)[None, :, None]
        dr, dc = int(row[0, width] - row[0, 0]), int(col[0, width] - col[0, 0])
        if (row.reshape(threads, reps, width) == row[:, None, :width] + step * dr).all() and \
                (col.reshape(threads, reps, width) == col[:, None, :width] + step * dc).all():
            return width, dr, dc
    raise AssertionError("unreachable: one copy of every element is a tiling")


def _scale_layout(out: dict[str, list[tuple]], shared: _Shared, v: Variant, o) -> int:
    """scale_layouts and scale_elements: a scale operand's evaluated map, once per map, scale count
    and shape, every legal selector value."""
    key = (o.scale_map, o.vectors, v.m, v.n, v.k)

    def add(i: int) -> None:
        sm = v.spec.scale_maps[o.scale_map]
        out["scale_layouts"].append((i, o.scale_map, sm.matrix, o.vectors, v.k, v.k // o.vectors))
        sel = next(s for s in v.operands if s.kind == "scale_selector" and s.matrix == o.matrix)
        parts = dict(sel.parts)
        for b in parts["byte_id"]:
            for t in parts["thread_id"]:
                m = v.scale_map(o.name, b, t)
                for lane, byte in zip(*np.nonzero(m[..., 0] >= 0)):
                    out["scale_elements"].append((i, b, t, int(lane), int(byte), int(m[lane, byte, 0]),
                                                  int(m[lane, byte, 1])))
    return shared.id(key, add)


def _numerics(spec: Spec, out: dict[str, list[tuple]]) -> dict[str, int]:
    """numerics_results; variant id -> its result."""
    out["numerics_rules"] = [(i + 1, _j(r.when), r.model, _j(r.params), r.basis, r.source)
                             for i, r in enumerate(spec.numerics)]
    results, ids = _Shared(), {}
    for vid, *rest in status_rows(spec):
        ids[vid] = results.id(tuple(rest), lambda i, rest=rest: out["numerics_results"].append((i, *rest)))
    return ids


def _evidence(spec: Spec, out: dict[str, list[tuple]]) -> dict[str, int]:
    """evidence (the campaigns), evidence_results and evidence_sets; variant id -> its set."""
    results, sets = _Shared(), _Shared()
    per_variant: dict[str, list[int]] = {}
    for e in spec.evidence.campaigns:
        out["evidence"].append((e.campaign, e.date, e.hardware, e.target, e.device, e.toolchain, e.proves, e.method,
                                e.notes, json.dumps(list(e.records))))
        for vid, r in e.results.items():
            row = (e.campaign, e.proves, r.cases, r.outputs, r.mismatches)
            per_variant.setdefault(vid, []).append(
                results.id(row, lambda i, row=row: out["evidence_results"].append((i, *row))))
    return _variant_sets(per_variant, sets, out["evidence_sets"])


def _variant_sets(per_variant: dict[str, list[int]], sets: _Shared, rows: list[tuple]) -> dict[str, int]:
    """variant id -> the id of its set of result rows, each distinct set once in `rows` as (set, result)."""
    ids = {}
    for vid, found in per_variant.items():
        key = tuple(sorted(found))
        ids[vid] = sets.id(key, lambda i, key=key: rows.extend((i, r) for r in key))
    return ids


def _ptxas(spec: Spec, out: dict[str, list[tuple]]) -> dict[str, int]:
    """ptxas_recordings, ptxas_results and ptxas_sets; variant id -> its set."""
    results, sets = _Shared(), _Shared()
    per_variant: dict[str, list[int]] = {}
    for r in spec.evidence.ptxas:
        out["ptxas_recordings"].append((r.check, r.method, r.about, r.ptxas, r.date, r.command, r.statements,
                                        r.accepted))
        for vid, (n, accepted) in r.variants.items():
            row = (r.check, n, accepted)
            per_variant.setdefault(vid, []).append(
                results.id(row, lambda i, row=row: out["ptxas_results"].append((i, *row))))
    return _variant_sets(per_variant, sets, out["ptxas_sets"])


def _sparsity_rows(spec: Spec, out: dict[str, list[tuple]]) -> None:
    seen = set()
    for v in spec.variants:
        sp = v.sparsity
        if sp is None or (sp.name, v.m, v.k) in seen:
            continue
        assert v.m is not None and v.n is not None and v.k is not None  # a sparse group has a shape
        seen.add((sp.name, v.m, v.k))
        for sel in sp.selectors:
            mask, row, chunk = sp.metadata_map(v.threads, v.m, v.n, v.k, sel)
            for t in np.nonzero(mask)[0].tolist():
                out["sparsity_metadata"] += [(sp.name, v.m, v.k, sel, t, n, int(row[t, n]), int(chunk[t, n]))
                                             for n in range(8)]


def connect(spec: Spec, table_rows: dict[str, list[tuple]] | None = None) -> sqlite3.Connection:
    """An in-memory database of the spec."""
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA page_size = 4096")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # what `ptxspec query` checks before use
    conn.execute(f"PRAGMA user_version = {DATABASE_VERSION}")
    db = sqlite_utils.Database(conn)
    defs = tables(spec)
    create_tables(db, defs)
    for name, data in (table_rows if table_rows is not None else rows(spec)).items():
        if "x-rowid-order" in defs[name]:  # rowids in this order: a query in this order reads them unsorted
            at = [list(defs[name]["properties"]).index(c) for c in defs[name]["x-rowid-order"]]
            data = sorted(data, key=lambda row: [row[i] for i in at])
        if data:
            conn.executemany(f"INSERT INTO {name} VALUES ({','.join('?' * len(data[0]))})", data)
    conn.commit()
    return conn
