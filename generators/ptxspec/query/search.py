"""`Spec.query`: the SQL of `ptxspec query` over the database of the same spec, so that the Python
API and the command line find the same variants with the same errors and did-you-mean."""
from __future__ import annotations

from ptxspec.core.paths import DataNotFound, default_database
from ptxspec.query.database import Database, QueryError
from ptxspec.query.populate import connect


def database(spec):
    """The database of this spec: the committed (or installed) one when it was built from the same
    spec tree, else one built in memory (once per Spec)."""
    db = spec.__dict__.get("_database")
    if db is None:
        try:
            db = Database.open(default_database())
            row = db.conn.execute("SELECT value FROM provenance WHERE key = 'spec_sha256'").fetchone()
            if row is None or row[0] != spec.digest or not spec.digest:
                db = None
        except (QueryError, DataNotFound):
            db = None
        if db is None:
            db = Database(connect(spec))
        spec.__dict__["_database"] = db
    return db


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(_text(v) for v in value)
    return str(value)


def search(spec, filters, family, target, ptx, fields) -> list[str]:
    """Variant ids, as `ptxspec query` answers: FIELD=VALUE filters plus keyword fields."""
    items = [str(f) for f in filters] + [f"{k}={_text(v)}" for k, v in fields.items()]
    ptx = None if ptx is None else str(ptx)
    return [r[0] for r in database(spec).variant_columns(("id",), items, family, target, ptx)]
