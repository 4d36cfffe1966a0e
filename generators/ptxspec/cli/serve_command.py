"""`ptxspec serve`: the database in Datasette (the `web` extra), on 127.0.0.1 only."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from ptxspec.cli.usage import UsageError
from ptxspec.core.paths import datasette_metadata, default_database
from ptxspec.query.database import Database, QueryError


def cmd_serve(args) -> int:
    """Datasette on 127.0.0.1 only, with the generated metadata (descriptions, canned queries, facets).

    It runs in this process (uvicorn, as `datasette serve` runs it): SIGINT and SIGTERM stop the
    server and the command, and no child process is left behind."""
    try:  # the optional `web` extra: imported only by the command that needs it
        import uvicorn
        from datasette.app import Datasette
    except ImportError:
        raise UsageError("Datasette is not installed; pip install 'ptxspec[web]'") from None
    db = Path(args.db) if args.db else default_database()
    meta = datasette_metadata()
    if not db.is_file() or not meta.is_file():
        raise UsageError(f"{db if not db.is_file() else meta} not found; run `ptxspec build`")
    try:  # a damaged or foreign file is one clear line here, not an error page per request
        Database.open(db).conn.close()
    except QueryError as exc:
        raise UsageError(str(exc)) from None
    settings = {"default_page_size": 50, "sql_time_limit_ms": 2000, "max_returned_rows": 20000}
    ds = Datasette([], immutables=[str(db)], metadata=json.loads(meta.read_text(encoding="utf-8")),
                   settings=settings)  # the database is named after the file's stem
    asyncio.run(ds.invoke_startup())
    print(f"ptxspec: serving {db} on http://127.0.0.1:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(ds.app(), host="127.0.0.1", port=args.port, log_level="warning", lifespan="on", workers=1)
    return 0
