"""generated/ptxspec.sqlite: the model's database (ptxspec.query.populate), serialized: same model,
same bytes."""
from __future__ import annotations

from ptxspec.model.spec import Spec
from ptxspec.query.populate import connect, rows


def build(spec: Spec) -> dict[str, bytes]:
    conn = connect(spec, rows(spec))
    data = bytes(conn.serialize())
    conn.close()
    return {"ptxspec.sqlite": data}
