"""generated/datasette.json: Datasette metadata for `ptxspec serve`.

Table and column descriptions come from schema/database.schema.json (the same text as the
database's `descriptions` table); the canned queries answer the common questions.
"""
from __future__ import annotations

import json

from ptxspec.query.populate import tables as database_tables

CANNED = {
    "which_thread_holds": {
        "title": "Which thread and register hold an element?",
        "description": "For one variant and register operand, the thread, register and slot of element [row][col].",
        "sql": "SELECT thread, reg, slot FROM fragment_elements WHERE variant_id = :variant_id AND operand = :operand "
               "AND row = CAST(:row AS INTEGER) AND col = CAST(:col AS INTEGER)",
    },
    "thread_holds": {
        "title": "What does a thread hold?",
        "description": "Every element of one register operand held by one thread, register by register.",
        "sql": "SELECT reg, slot, row, col FROM fragment_elements WHERE variant_id = :variant_id AND operand = :operand "
               "AND thread = CAST(:thread AS INTEGER) ORDER BY reg, slot",
    },
    "valid_on_target": {
        "title": "Which variants are valid on a target at a PTX version?",
        "description": "Variants whose requirement holds on the target at that PTX ISA version.",
        "sql": "SELECT v.id, v.ptx, v.form, vt.min_ptx FROM variants v JOIN variant_targets vt ON vt.variant_id = v.id "
               "WHERE vt.target = :target AND (SELECT ordinal FROM ptx_versions WHERE version = vt.min_ptx) <= "
               "(SELECT ordinal FROM ptx_versions WHERE version = :ptx) ORDER BY v.id",
    },
    "requirements_of_opcode": {
        "title": "From which PTX version and on which targets is an opcode valid?",
        "description": "Each operand form of the opcode with its first PTX version per target.",
        "sql": "SELECT v.id, v.form, vt.target, vt.min_ptx FROM variants v JOIN variant_targets vt ON vt.variant_id = v.id "
               "WHERE v.ptx = :ptx ORDER BY v.form, vt.target",
    },
    "register_signature": {
        "title": "What are the operands of a variant, and how many registers each?",
        "description": "Operands in PTX order with their kind, register count, register type and legal values.",
        "sql": "SELECT position, name, kind, io, regs, reg_type, element_type, legal_values, min_value FROM operands "
               "WHERE variant_id = :variant_id ORDER BY position",
    },
    "metadata_nibble": {
        "title": "Which metadata nibble describes a chunk of sparse A?",
        "description": "For a sparsity kind, shape and selector: the thread and nibble that describe chunk (row, chunk).",
        "sql": "SELECT thread, nibble FROM sparsity_metadata WHERE sparsity = :sparsity AND m = CAST(:m AS INTEGER) AND "
               "k = CAST(:k AS INTEGER) AND selector = CAST(:selector AS INTEGER) AND row = CAST(:row AS INTEGER) "
               "AND chunk = CAST(:chunk AS INTEGER)",
    },
    "scale_holder": {
        "title": "Which thread and byte hold a block-scale factor?",
        "description": "For a block-scaled variant: who holds the scale factor of A[row][k] (operand scale_a) or "
                       "B[k][col] (scale_b, give the column as :index), for every selector value.",
        "sql": "SELECT byte_id, thread_id, thread, byte, k_block, k_first, k_last FROM scale_factors "
               "WHERE variant_id = :variant_id AND operand = :operand AND COALESCE(row, col) = CAST(:index AS INTEGER) "
               "AND k_first <= CAST(:k AS INTEGER) AND CAST(:k AS INTEGER) <= k_last ORDER BY byte_id, thread_id",
    },
    "errata_list": {
        "title": "Where is the manual wrong?",
        "description": "Every erratum: what the manual says, what is true, and the evidence.",
        "sql": "SELECT id, family, title, manual_says, truth, evidence FROM errata ORDER BY id",
    },
}

FACETS = {
    "variants": ["family", "instruction", "form", "atype", "btype", "dtype", "min_ptx", "sparse"],
    "operands": ["kind", "name"],
    "errata": ["family"],
}


def metadata(spec) -> dict:
    tables = {}
    for name, table in database_tables(spec).items():
        entry = {"description": table["description"],
                 "columns": {c: p["description"] for c, p in table["properties"].items()}}
        if name in FACETS:
            entry["facets"] = FACETS[name]
        if table.get("x-internal"):  # rows shared between variants: users read them through the views
            entry["hidden"] = True
        tables[name] = entry
    return {
        "title": "ptxspec",
        "description": "The machine-checked specification database of NVIDIA PTX matrix instructions.",
        "databases": {"ptxspec": {
            "description": "Every variant of the PTX matrix instructions with its first PTX version, targets, "
                           "operands and per-thread fragment maps. Start with a question below; the table "
                           "fragment_elements says which thread, register and slot hold each matrix element, and "
                           "descriptions explains every table and column.",
            "tables": tables, "queries": CANNED}},
    }


def build(spec) -> dict[str, bytes]:
    return {"datasette.json": (json.dumps(metadata(spec), indent=2) + "\n").encode()}
