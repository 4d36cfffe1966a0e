"""Queries over generated/ptxspec.sqlite: variants by any column, validity, fragments, errata.

Import-light on purpose (sqlite3; json only to decode a column): `ptxspec query` answers from the committed
database without loading YAML, numpy or jsonschema. Every value reaches SQL as a bound
parameter; column names are checked against the database's own columns before use.
"""
from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import lazy_loader

from ptxspec.query.budget import QueryError, StatementBudget, budgeted

OPERATORS = ("!=", ">=", "<=", "=", ">", "<", "~")  # ~ : SQL LIKE with * as wildcard
_FILTER_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(!=|>=|<=|=|>|<|~)(.*)$", re.S)
BOOLEAN_COLUMNS = ("satfinite", "sparse")
FRAGMENT_FIELDS = ("variant_id", "operand", "thread", "reg", "slot", "row", "col")
SCALE_FIELDS = ("variant_id", "operand", "byte_id", "thread_id", "thread", "byte", "row", "col", "k_block", "k_first",
                "k_last")
if TYPE_CHECKING:
    import difflib
    import json

    from ptxspec.model import catalog
else:
    difflib = lazy_loader.load("difflib")  # "did you mean", only for a word that names nothing
    json = lazy_loader.load("json")  # decoding JSON columns: not for answers SQLite composes as JSON
    catalog = lazy_loader.load("ptxspec.model.catalog", suppress_warning=True)  # opcodes, for --variant only

JSON_COLUMNS = ("targets", "requires", "regs", "selectors", "metadata_nibbles", "rules", "evidence", "format", "legal_values", "params")


#: The layout of the database this module reads. `ptxspec build` stamps it into the file
#: (PRAGMA user_version) with the application id below; bump it whenever a table or column the
#: queries rely on changes, so that an older or newer file is refused with a clear message.
DATABASE_VERSION = 2  # 2: the view variants_json
APPLICATION_ID = 0x50545853  # "PTXS"
#: (table, column) of the runs of members that the view variants_json joins into JSON texts
JSON_TEXT_COLUMNS = (("json_fragments", "json"), ("requirements", "json"), ("requirements", "json_until"),
                     ("signatures", "json"))
#: Bounds on what a query may ask: integers fit SQLite's 64 bits, and the filters stay far below
#: SQLite's expression-depth and bound-parameter limits.
MAX_FILTERS = 64
MAX_VALUES = 1024
INT_RANGE = (-(1 << 63), (1 << 63) - 1)


#: The page cache of a connection, in KiB (PRAGMA cache_size): also how much a sort may hold in memory
#: before it spills to a temporary file. 2 MB (SQLite's default) spilled the 3.5 MB that all of sm_90a
#: as JSON sorts (a quarter of that query's time); pages are only taken as they are used.
CACHE_KIB = 32768

def _close(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _options(db) -> list:
    """(variant id, option value) of every option qualifier; none in a database from before options."""
    try:
        return db.execute("SELECT variant_id, value FROM variant_options", plain=True)
    except QueryError:
        return []


class LoaderQueries:
    """The queries on the movement tables (fragment_loaders), which Database answers too."""

    conn: sqlite3.Connection
    name: str
    execute: Callable[..., list]  # Database.execute: every statement, damaged files as QueryError

    def json_cell(self, text: str, column: str, row_id=None):
        """A JSON column's value; a damaged one is a clear error, never a traceback."""
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise QueryError(f"{self.name}: column {column} of {row_id or 'a row'} "
                             "is not valid JSON: the file is damaged; run `ptxspec build`") from None

    def loaders(self, variant_id: str, operand: str, storage: str | None = None,
                direction: str | None = None) -> list[dict]:
        """How to move a fragment between registers and a row- or column-major tile (the
        fragment_loaders view): every form that does it, fewest runs first, or why none does."""
        have = [r[0] for r in self.execute(
            "SELECT DISTINCT operand FROM fragment_loaders WHERE variant_id = ? ORDER BY operand", (variant_id,),
            plain=True)]
        if operand not in have:
            raise QueryError(f"{variant_id} has no fragment {operand!r} that a movement could load or store"
                             + (f"; it has {', '.join(have)}" if have else " (it computes no product)"))
        clauses, params = ["variant_id = ?", "operand = ?"], [variant_id, operand]
        for name, value, legal in (("storage", storage, ("row", "col")), ("direction", direction, ("load", "store"))):
            if value is not None:
                if value not in legal:
                    raise QueryError(f"{name} is {' or '.join(legal)}, not {value!r}")
                clauses.append(f"{name} = ?")
                params.append(value)
        rows = self.execute("SELECT * FROM fragment_loaders WHERE " + " AND ".join(clauses)
                            + " ORDER BY storage DESC, direction, status DESC, instructions, form", params)
        return [dict(r, variants=self.json_cell(r["variants"], "variants", r["variant_id"])) for r in rows]


class JsonAnswers:
    """The variants as JSON texts, composed by SQLite (the view variants_json), which Database
    answers too."""

    conn: sqlite3.Connection
    name: str
    _json_checked = False  # _check_json_texts passed
    execute: Callable[..., list]  # Database.execute
    _error: Callable[[sqlite3.Error], QueryError]  # Database._error
    _variants_sql: Callable[..., tuple[str, list]]  # Database._variants_sql
    budget: Callable[[], contextlib.AbstractContextManager]  # StatementBudget.budget

    def variants_json(self, filters=(), family=None, target=None, ptx=None) -> list[str]:
        """Each matching variant as JSON text (the view variants_json): the content of json.dumps
        of the `variants` dict (same keys, order and values), without decoding and re-encoding in
        Python."""
        sql, params = self._variants_sql(filters, family, target, ptx, "variants_json")
        self._check_json_texts()
        return [r[0] for r in self.execute("SELECT v.json" + sql, params, plain=True)]

    def variants_json_utf8(self, filters=(), family=None, target=None, ptx=None,
                           size: int = 64) -> Iterator[list[bytes]]:
        """variants_json as UTF-8 bytes, `size` at a time (what `ptxspec query --format json`
        writes as it reads): a bad filter or a damaged text is a QueryError here, before any row."""
        sql, params = self._variants_sql(filters, family, target, ptx, "variants_json")
        self._check_json_texts()
        return self.composed_utf8("SELECT v.json" + sql, params, size)

    def _check_json_texts(self) -> None:
        """QueryError unless the stored runs of members that variants_json joins are valid JSON (a
        damaged file is a clear error, never a malformed answer): about a millisecond, as they
        are stored once for all the variants that share them."""
        if self._json_checked:
            return
        bad = self.execute(" UNION ALL ".join(f"SELECT '{t}' FROM {t} WHERE NOT json_valid('{{' || {c} || '}}')"
                                              for t, c in JSON_TEXT_COLUMNS) + " LIMIT 1", plain=True)
        if bad:
            raise QueryError(f"{self.name}: a json column of table {bad[0][0]} is not valid JSON: the file is "
                             "damaged; run `ptxspec build`")
        self._json_checked = True

    def composed_utf8(self, sql: str, params=(), size: int = 64) -> Iterator[list[bytes]]:
        """The first column of the rows, `size` rows at a time, as UTF-8 bytes, for statements whose
        one column SQLite composes as text (json_object): never a BLOB, never decoded into str only
        to be encoded again, and never all held at once (the fresh memory pages of 3.5 MB of rows
        cost more than writing them). The statement's time budget runs until the last row."""
        factory = self.conn.text_factory
        with self.budget():
            try:
                self.conn.text_factory = bytes
                cursor = self.conn.execute(sql, params)
                while rows := cursor.fetchmany(size):
                    yield [r[0] for r in rows]
            except sqlite3.Error as exc:
                raise self._error(exc) from None
            except (OverflowError, MemoryError) as exc:
                raise QueryError(f"the query is too large for {self.name} ({exc})") from None
            finally:
                self.conn.text_factory = factory


class Database(LoaderQueries, JsonAnswers, StatementBudget):
    def __init__(self, conn: sqlite3.Connection, name: str = "the database"):
        self.conn = conn
        self.conn.row_factory = sqlite3.Row
        self.name = name
        self._columns: dict[str, dict[str, str]] = {}
        self._catalog = None  # ptxspec.model.catalog.Catalog, built on the first lookup

    @classmethod
    def open(cls, path: str | Path) -> "Database":
        """A read-only connection to a ptxspec database file, checked to be one of DATABASE_VERSION."""
        path = Path(path)
        if not path.is_file():
            raise QueryError(f"database {path} not found; run `ptxspec build`")
        # an escaped file: URI, so that '?', '#' or '%' in the path stay part of it; read-only, so a
        # query never creates or changes a file
        uri = path.resolve().as_uri() + "?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True)
        except sqlite3.Error as exc:
            raise QueryError(f"cannot open database {path}: {exc}") from None
        db = cls(conn, str(path))
        db.check(path)
        db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        return db

    def check(self, path: Path | None = None) -> None:
        """QueryError unless this is a whole ptxspec database of the version this module reads."""
        rebuild = "; run `ptxspec build` (or pass --db a database it wrote)"
        try:
            app, version, pages, page_size = (self.conn.execute(f"PRAGMA {p}").fetchone()[0] for p in
                                              ("application_id", "user_version", "page_count", "page_size"))
        except sqlite3.Error as exc:
            raise QueryError(f"{self.name} is not a ptxspec database ({exc}){rebuild}") from None
        if app != APPLICATION_ID:
            raise QueryError(f"{self.name} is not a ptxspec database{rebuild}")
        if version != DATABASE_VERSION:
            raise QueryError(f"{self.name} is a ptxspec database of layout version {version}; this ptxspec "
                             f"reads version {DATABASE_VERSION}{rebuild}")
        if path is not None and path.stat().st_size < pages * page_size:
            raise QueryError(f"{self.name} is truncated ({path.stat().st_size} of {pages * page_size} bytes)"
                             f"{rebuild}")

    @budgeted
    def execute(self, sql: str, params=(), plain: bool = False) -> list:
        """Every statement goes through here (rows as sqlite3.Row, or plain tuples): a damaged file
        is a QueryError, never a crash; one past its time budget is interrupted (StatementBudget)."""
        try:
            cur = self.conn.execute(sql, params)
            if plain:
                cur.row_factory = None  # plain tuples: the fastest rows sqlite3 gives
            rows = cur.fetchall()
            _no_blobs(self.name, cur, rows)
            return rows
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        except (OverflowError, MemoryError) as exc:
            raise QueryError(f"the query is too large for {self.name} ({exc})") from None

    def _error(self, exc: sqlite3.Error) -> QueryError:
        return self.budget_error() or QueryError(f"{self.name} cannot answer ({exc}): it is damaged or not a "
                                                 "ptxspec database; run `ptxspec build`")

    def columns(self, table: str) -> dict[str, str]:
        if table not in self._columns:
            self._columns[table] = {r["name"]: (r["type"] or "").upper()
                                    for r in self.execute(f"PRAGMA table_info({table})")}
            if not self._columns[table]:
                raise QueryError(f"{self.name} has no table {table}: it is not a ptxspec database; "
                                 "run `ptxspec build`")
        return self._columns[table]

    def distinct(self, table: str, column: str, limit: int = 40) -> list:
        return [r[0] for r in self.execute(
            f'SELECT DISTINCT "{column}" FROM {table} ORDER BY "{column}" LIMIT ?', (limit + 1,))]

    # -- filters ------------------------------------------------------------------------------
    def where(self, table: str, filters: list[str], alias: str = "v") -> tuple[list[str], list]:
        cols = self.columns(table)
        clauses, params = [], []
        if len(filters) > MAX_FILTERS:
            raise QueryError(f"{len(filters)} filters; a query takes at most {MAX_FILTERS} (use a,b,c lists)")
        for item in filters:
            m = _FILTER_RE.match(item)
            if not m:
                raise QueryError(f"a filter is FIELD=VALUE (or != < <= > >= ~), not {item!r}; "
                                 f"fields: {', '.join(cols)}")
            field, op, raw = m.groups()
            if field not in cols:
                raise QueryError(f"unknown field {field!r}{_close(field, cols)}; fields: {', '.join(cols)}")
            if field in JSON_COLUMNS:
                if op not in ("~",):
                    raise QueryError(f"{field} holds JSON; match it with {field}~PATTERN (* is a wildcard)")
            values = raw.split(",") if op in ("=", "!=") and "," in raw else [raw]
            if len(params) + len(values) > MAX_VALUES:
                raise QueryError(f"more than {MAX_VALUES} filter values in one query")
            typed = [self._typed(table, field, cols[field], op, v) for v in values]
            if op == "~":
                clauses.append(f"{alias}.\"{field}\" LIKE ? ESCAPE '\\'")
                params.append(typed[0])
            elif len(typed) > 1:
                marks = ",".join("?" * len(typed))
                clauses.append(f"{alias}.\"{field}\" {'NOT ' if op == '!=' else ''}IN ({marks})")
                params += typed
            else:
                clauses.append(f"{alias}.\"{field}\" {op} ?")
                params.append(typed[0])
        return clauses, params

    def _typed(self, table, field, sqltype, op, value):
        if op == "~":
            if len(value) > 256 or value.count("*") > 16:  # SQLite's LIKE backtracks on many wildcards
                raise QueryError(f"{field}~PATTERN: at most 256 characters and 16 wildcards")
            return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_").replace("*", "%")
        if sqltype == "INTEGER":
            low = value.lower()
            if low in ("true", "yes"):
                return 1
            if low in ("false", "no"):
                return 0
            try:
                number = int(value, 0) if len(value) <= 80 else None
            except ValueError:
                number = None
            if number is None:
                raise QueryError(f"{field} is an integer column; {value[:40]!r} is not an integer")
            return bounded(field, number)
        if op in ("=", "!=") and field in ("family", "instruction", "form", "atype", "btype", "ctype", "dtype", "op",
                                           "min_ptx", "name", "kind", "class"):
            known = self.distinct(table, field)
            if value not in known and len(known) <= 40:
                shown = ", ".join(repr(k) for k in known)
                raise QueryError(f"no {field} {value!r}{_close(value, known)}; values: {shown}")
        return value

    # -- queries ------------------------------------------------------------------------------
    def variants(self, filters=(), family=None, target=None, ptx=None, decode=JSON_COLUMNS) -> list[dict]:
        """The matching variants as dicts; JSON columns not in `decode` stay JSON text."""
        sql, params = self._variants_sql(filters, family, target, ptx)
        return [self._decode(r, decode) for r in self.execute("SELECT v.*" + sql, params)]

    def variant_columns(self, columns, filters=(), family=None, target=None, ptx=None) -> list[tuple]:
        """The matching variants as tuples of the given columns, as stored (JSON columns as text)."""
        known = self.columns("variants")
        sql, params = self._variants_sql(filters, family, target, ptx)
        select = ", ".join(f'v."{c}"' for c in columns if c in known)
        return self.execute(f"SELECT {select}" + sql, params, plain=True)

    def _variants_sql(self, filters, family, target, ptx, relation="variants") -> tuple[str, list]:
        """FROM ... WHERE ... ORDER BY of a variants query, and its parameters; `relation` is variants
        or variants_json, whose requirement and position spare it a second lookup of each variant for
        its targets, and the sort (its rows are stored in the order of the answer)."""
        clauses, params = self.where("variants", list(filters))
        if family is not None:
            fams = self.distinct("families", "name")
            if family not in fams:
                raise QueryError(f"unknown family {family!r}{_close(family, fams)}; families: {', '.join(fams)}")
            clauses.append("v.family = ?")
            params.append(family)
        join = ""
        if target is not None:
            targets = [r[0] for r in self.execute("SELECT name FROM targets ORDER BY arch, suffix")]
            if target not in targets:
                raise QueryError(f"unknown target {target!r}{_close(target, targets)}; targets: {', '.join(targets)}")
            if relation == "variants_json" and ptx is None:  # tested before the variant's other lookups
                clauses.append("v.requirement IN (SELECT requirement FROM requirement_targets WHERE target = ?)")
                params.append(target)
            else:
                join = (" JOIN requirement_targets vt ON vt.requirement = v.requirement AND vt.target = ?"
                        if relation == "variants_json" else " JOIN variant_targets vt ON vt.variant_id = v.id AND vt.target = ?")
                params.insert(0, target)
        if ptx is not None:
            versions = self.distinct("ptx_versions", "version", 200)
            if ptx not in versions:
                raise QueryError(f"unknown PTX version {ptx!r}; versions: {', '.join(versions)}")
            col, until = ("vt.min_ptx", "vt.until_ptx") if target is not None else ("v.min_ptx", "v.until_ptx")
            join += f" JOIN ptx_versions pv ON pv.version = {col}"
            clauses.append("pv.ordinal <= (SELECT ordinal FROM ptx_versions WHERE version = ?)")
            clauses.append(f"({until} IS NULL OR (SELECT ordinal FROM ptx_versions WHERE version = {until}) > "
                           "(SELECT ordinal FROM ptx_versions WHERE version = ?))")
            params += [ptx, ptx]
        sql = f" FROM {relation} v{join}" + (" WHERE " + " AND ".join(clauses) if clauses else "")
        order = "v.position" if relation == "variants_json" else "v.family, v.instruction, v.id"  # the same order
        return sql + f" ORDER BY {order}", params

    def resolve_variant(self, ref: str, form: str | None = None) -> str:
        """A variant id from an id, or an opcode in any qualifier order ptxas accepts (plus form when
        the opcode has several): ptxspec.model.catalog, as Spec.variant."""
        if self._catalog is None:
            self._catalog = catalog.Catalog(self.execute("SELECT id, ptx, form FROM variants", plain=True),
                                    [r[0] for r in self.execute("SELECT name FROM types")],
                                    [r[0] for r in self.execute("SELECT name FROM instructions")], _options(self))
        try:
            return self._catalog.resolve(ref, form)
        except catalog.LookupFailed as exc:
            raise QueryError(str(exc)) from None

    def fragment(self, variant_id: str, operand: str, row=None, col=None, thread=None) -> list[dict]:
        sql, params = self._fragment_sql(variant_id, operand, row, col, thread)
        return [dict(r) for r in self.execute("SELECT " + ", ".join(FRAGMENT_FIELDS) + sql, params)]

    def fragment_rows(self, variant_id: str, operand: str, row=None, col=None, thread=None,
                      as_json: bool = False) -> list:
        """fragment() as plain tuples of FRAGMENT_FIELDS, or (as_json) as JSON texts composed by SQLite."""
        sql, params = self._fragment_sql(variant_id, operand, row, col, thread)
        pairs = ", ".join(f"'{f}', {f}" for f in FRAGMENT_FIELDS)
        select = f"json_object({pairs})" if as_json else ", ".join(FRAGMENT_FIELDS)
        rows = self.execute("SELECT " + select + sql, params, plain=True)
        return [r[0] for r in rows] if as_json else rows

    def _fragment_sql(self, variant_id, operand, row, col, thread) -> tuple[str, list]:
        ops = {r[0]: r[1:] for r in self.execute(
            "SELECT o.name, l.rows, l.cols, l.threads FROM operands o JOIN layouts l ON l.id = o.layout_id "
            "WHERE o.variant_id = ? ORDER BY o.position", (variant_id,))}
        if operand not in ops:
            raise QueryError(f"{variant_id} has no register fragment {operand!r}; fragments: {', '.join(ops)}")
        clauses, params = ["variant_id = ?", "operand = ?"], [variant_id, operand]
        for (name, value), size in zip((("row", row), ("col", col), ("thread", thread)), ops[operand]):
            if value is not None and not 0 <= bounded(name, value) < size:  # else an empty answer would look like a real one
                raise QueryError(f"{name} {value} is out of range: {operand} of {variant_id} has {name}s 0 to {size - 1}")
            if value is not None:
                clauses.append(f"{name} = ?")
                params.append(value)
        return " FROM fragment_elements WHERE " + " AND ".join(clauses) + " ORDER BY thread, reg, slot", params

    def operands(self, variant_id: str) -> list[dict]:
        return [self._decode(r) for r in self.execute(
            "SELECT * FROM operands WHERE variant_id = ? ORDER BY position", (variant_id,))]

    def errata(self, family=None) -> list[dict]:
        sql, params = "SELECT * FROM errata", []
        if family:
            sql += " WHERE family = ?"
            params.append(family)
        return [self._decode(r) for r in self.execute(sql + " ORDER BY id", params)]

    def _decode(self, row: sqlite3.Row, decode=JSON_COLUMNS) -> dict:
        out = dict(row)
        for key in decode:
            if isinstance(out.get(key), str):
                out[key] = self.json_cell(out[key], key, out.get("id") or out.get("variant_id"))
        for key in BOOLEAN_COLUMNS:
            if key in out:
                out[key] = bool(out[key])
        return out


def check_form(db: Database, form: str | None) -> None:
    """QueryError unless `form` (when given) is an operand form some variant has: `reg`/`desc`
    (wgmma), `desc`/`tmem` and their `_scaled` kinds (tcgen05.mma), ..."""
    if form is None:
        return
    forms = [r[0] for r in db.execute("SELECT DISTINCT form FROM variants ORDER BY form", plain=True)]
    if form not in forms:
        raise QueryError(f"unknown form {form!r}{_close(form, forms)}; the forms are "
                         f"{', '.join(repr(f) for f in forms)}")


def _no_blobs(name: str, cur, rows) -> None:
    """No ptxspec column holds a BLOB: one is a damaged file, never printed nor fed to code."""
    for row in rows:
        if bytes in map(type, row):
            column = next(d[0] for d, x in zip(cur.description, row) if type(x) is bytes)
            raise QueryError(f"{name}: column {column} of {row[0] if isinstance(row[0], str) else 'a row'} holds "
                             "binary data (a BLOB), which no ptxspec column does: the file is damaged; run "
                             "`ptxspec build`")


def bounded(field: str, number: int) -> int:
    """An integer SQLite can bind (64 bits), or QueryError."""
    if not INT_RANGE[0] <= number <= INT_RANGE[1]:
        raise QueryError(f"{field}: {number if abs(number) < 10 ** 30 else 'the number'} is out of range "
                         "(integers are 64-bit)")
    return number


def scale_rows(db: Database, variant_id: str, operand: str, row=None, col=None, k=None, thread=None, byte=None,
               as_json: bool = False) -> list:
    """The bytes of a block-scale operand (scale_factors), as tuples of SCALE_FIELDS (or JSON
    texts): who holds the factor of A[row][k] (B[k][col]), or what thread's byte covers, for
    every selector value."""
    ops = {r[0]: r[1:] for r in db.execute(
        "SELECT o.name, l.matrix, l.k, v.m, v.n, v.threads FROM operands o JOIN scale_layouts l "
        "ON l.id = o.scale_layout_id JOIN variants v ON v.id = o.variant_id WHERE o.variant_id = ? "
        "ORDER BY o.position", (variant_id,), plain=True)}
    if operand not in ops:
        raise QueryError(f"{variant_id} has no block-scale operand {operand!r}"
                         + (f"; scale operands: {', '.join(ops)}" if ops else " (it is not block-scaled)"))
    matrix, kk, m, n, threads = ops[operand]
    if (row if matrix == "b" else col) is not None:
        raise QueryError(f"{operand} scales {'columns of B: give --col' if matrix == 'b' else 'rows of A: give --row'}")
    clauses, params = ["variant_id = ?", "operand = ?"], [variant_id, operand]
    for name, value, size in (("row", row, m), ("col", col, n), ("thread", thread, threads), ("byte", byte, 4)):
        if value is not None:
            if not 0 <= value < size:
                raise QueryError(f"{name} {value} is out of range: {operand} of {variant_id} has {name}s 0 to {size - 1}")
            clauses.append(f"{name} = ?")
            params.append(value)
    if k is not None:
        if not 0 <= k < kk:
            raise QueryError(f"k {k} is out of range: {variant_id} has k 0 to {kk - 1}")
        clauses.append("k_first <= ? AND ? <= k_last")
        params += [k, k]
    pairs = ", ".join(f"'{f}', {f}" for f in SCALE_FIELDS)
    select = f"json_object({pairs})" if as_json else ", ".join(SCALE_FIELDS)
    rows = db.execute(f"SELECT {select} FROM scale_factors WHERE " + " AND ".join(clauses)
                      + " ORDER BY byte_id, thread_id, thread, byte", params, plain=True)
    return [r[0] for r in rows] if as_json else rows
