"""generated/ptxspec.sqlite: the variants, their operands and every fragment element.

Fragment maps are shared by many variants (every m64nNk16 f32 variant has the same D map), so
elements are stored once per evaluated layout (`layout_elements`) and `fragment_elements` is a
view that joins them to the variants. Built in memory, then serialized: same model, same bytes.
"""
from __future__ import annotations

import json
import sqlite3

import numpy as np

from ..model import Spec

TABLES: dict[str, tuple[str, dict[str, tuple[str, str]]]] = {
    "ptx_versions": ("PTX ISA versions in release order.", {
        "version": ("TEXT PRIMARY KEY", "Version, e.g. '8.0'."),
        "ordinal": ("INTEGER NOT NULL", "Position in release order, from 0."),
        "ptxas": ("INTEGER NOT NULL", "1 when ptxas 13.5 can assemble some target at this version."),
    }),
    "targets": ("Compilation targets (.target sm_XX).", {
        "name": ("TEXT PRIMARY KEY", "Target name, e.g. 'sm_90a'."),
        "arch": ("INTEGER NOT NULL", "Architecture number, e.g. 90."),
        "suffix": ("TEXT NOT NULL", "'' portable, 'a' architecture-specific, 'f' family-specific."),
        "family": ("INTEGER NOT NULL", "Family number shared by targets that run the same f features."),
        "min_ptx": ("TEXT NOT NULL REFERENCES ptx_versions(version)", "First PTX version accepting the target."),
        "ptxas": ("INTEGER NOT NULL", "1 when ptxas 13.5 knows the target."),
    }),
    "types": ("Element types of matrix operands.", {
        "name": ("TEXT PRIMARY KEY", "Type name as in PTX qualifiers, e.g. 'e4m3'."),
        "class": ("TEXT NOT NULL", "'float', 'int' or 'bit'."),
        "bits": ("INTEGER NOT NULL", "Element width in bits."),
        "register": ("TEXT NOT NULL", "PTX register type that holds a full register of such elements."),
        "signed": ("INTEGER NOT NULL", "1 for signed integer and float types."),
        "format": ("TEXT", "Floating format as JSON (exponent, mantissa, bias, specials), or NULL."),
        "description": ("TEXT NOT NULL", "Notes on the type."),
    }),
    "instructions": ("PTX instructions.", {
        "name": ("TEXT PRIMARY KEY", "Instruction name, e.g. 'wgmma.mma_async.sp'."),
        "family": ("TEXT NOT NULL", "Instruction family, e.g. 'wgmma'."),
        "manual": ("TEXT NOT NULL", "PTX ISA manual section."),
        "opcode_template": ("TEXT NOT NULL", "Opcode template with {m} {n} {k} {atype} ... placeholders."),
        "description": ("TEXT NOT NULL", "What the instruction does."),
        "rules": ("TEXT NOT NULL", "Usage rules as a JSON list of sentences."),
    }),
    "variants": ("Every valid variant: one opcode in one operand form.", {
        "id": ("TEXT PRIMARY KEY", "Stable id: the opcode, plus ':reg' or ':desc' for wgmma operand forms."),
        "family": ("TEXT NOT NULL", "Instruction family."),
        "instruction": ("TEXT NOT NULL REFERENCES instructions(name)", "Instruction name."),
        "ptx": ("TEXT NOT NULL", "Full opcode with every qualifier, as PTX code writes it."),
        "form": ("TEXT NOT NULL", "'reg' or 'desc': how wgmma takes A; '' otherwise."),
        "m": ("INTEGER", "Rows of A and D."),
        "n": ("INTEGER", "Columns of B and D."),
        "k": ("INTEGER", "Columns of A, rows of B (before sparse packing)."),
        "atype": ("TEXT NOT NULL", "Element type of A ('' when none)."),
        "btype": ("TEXT NOT NULL", "Element type of B."),
        "ctype": ("TEXT NOT NULL", "Element type of C (for wgmma, D is also C)."),
        "dtype": ("TEXT NOT NULL", "Element type of D."),
        "satfinite": ("INTEGER NOT NULL", "1 when the opcode carries .satfinite."),
        "op": ("TEXT NOT NULL", "Single-bit operation, e.g. 'and.popc', or ''."),
        "sparse": ("INTEGER NOT NULL", "1 for structured-sparse A."),
        "min_ptx": ("TEXT NOT NULL", "First PTX ISA version on any target."),
        "targets": ("TEXT NOT NULL", "JSON list of the targets on which it is valid."),
        "requires": ("TEXT NOT NULL", "JSON list of alternatives {ptx, targets}: valid where any holds."),
        "regs": ("TEXT NOT NULL", "JSON object: register operand -> registers per thread."),
        "selectors": ("TEXT NOT NULL", "JSON list of valid sparsity selector values."),
        "threads": ("INTEGER NOT NULL", "Threads that execute the instruction together."),
        "grp": ("TEXT NOT NULL", "Spec group the variant was expanded from."),
    }),
    "variant_targets": ("Each (variant, target) pair with the first PTX version valid there.", {
        "variant_id": ("TEXT NOT NULL REFERENCES variants(id)", "Variant."),
        "target": ("TEXT NOT NULL REFERENCES targets(name)", "Target."),
        "min_ptx": ("TEXT NOT NULL REFERENCES ptx_versions(version)", "First PTX version for this target."),
    }),
    "operands": ("Operands of each variant in PTX order.", {
        "variant_id": ("TEXT NOT NULL REFERENCES variants(id)", "Variant."),
        "position": ("INTEGER NOT NULL", "Operand position, from 0."),
        "name": ("TEXT NOT NULL", "Operand name (a, d, a_desc, b_desc, sp_meta, sp_sel, scale_d, imm_scale_a, ...)."),
        "kind": ("TEXT NOT NULL", "fragment, descriptor, metadata, selector, predicate or immediate."),
        "io": ("TEXT NOT NULL", "in, out or inout."),
        "matrix": ("TEXT", "Matrix the operand carries (a, b, c, d), or NULL."),
        "regs": ("INTEGER NOT NULL", "Registers per thread (0 for immediates and predicates)."),
        "reg_type": ("TEXT NOT NULL", "PTX register type ('' for immediates)."),
        "element_type": ("TEXT", "Element type of a fragment."),
        "layout_id": ("INTEGER REFERENCES layouts(id)", "Evaluated fragment layout, for fragments."),
        "per_reg": ("INTEGER", "Elements per 32-bit register, for fragments (1 for 32- and 64-bit elements)."),
        "legal_values": ("TEXT", "JSON list of legal immediate values, or NULL."),
        "min_value": ("INTEGER", "Smallest legal immediate value when no list is given."),
    }),
    "layouts": ("Fragment layouts evaluated for the shape parameters they depend on.", {
        "id": ("INTEGER PRIMARY KEY", "Layout instance id."),
        "name": ("TEXT NOT NULL", "Layout name in spec/layouts, e.g. 'wgmma.d'."),
        "params": ("TEXT NOT NULL", "JSON object of the shape parameters the map depends on, e.g. {\"N\": 64}."),
        "rows": ("INTEGER NOT NULL", "Rows of the matrix the fragment covers."),
        "cols": ("INTEGER NOT NULL", "Columns of that matrix."),
        "threads": ("INTEGER NOT NULL", "Threads holding the fragment."),
        "elements": ("INTEGER NOT NULL", "Elements per thread."),
    }),
    "layout_elements": ("Every element of every evaluated layout.", {
        "layout_id": ("INTEGER NOT NULL REFERENCES layouts(id)", "Layout instance; the key is (layout_id, thread, element)."),
        "thread": ("INTEGER NOT NULL", "Thread index within the warp or warpgroup."),
        "element": ("INTEGER NOT NULL", "Element index within the thread, low to high through its registers."),
        "row": ("INTEGER NOT NULL", "Matrix row."),
        "col": ("INTEGER NOT NULL", "Matrix column."),
    }),
    "sparsity_metadata": ("Metadata nibble map of sparse variants: which chunk of A each nibble describes.", {
        "sparsity": ("TEXT NOT NULL", "Sparsity name in spec/layouts."),
        "m": ("INTEGER NOT NULL", "M of the shape."),
        "k": ("INTEGER NOT NULL", "K of the shape."),
        "selector": ("INTEGER NOT NULL", "Sparsity selector value."),
        "thread": ("INTEGER NOT NULL", "Contributing thread."),
        "nibble": ("INTEGER NOT NULL", "Nibble index n: bits 4n..4n+3 of the metadata register."),
        "row": ("INTEGER NOT NULL", "Row of A."),
        "chunk": ("INTEGER NOT NULL", "Chunk index along the row (chunk units of `unit_bits` each)."),
    }),
    "errata": ("Where the PTX ISA manual is wrong or inconsistent, with evidence.", {
        "id": ("TEXT PRIMARY KEY", "Erratum id."),
        "family": ("TEXT NOT NULL", "Instruction family."),
        "title": ("TEXT NOT NULL", "One-line summary."),
        "manual": ("TEXT NOT NULL", "Manual section."),
        "manual_says": ("TEXT NOT NULL", "What the manual says."),
        "truth": ("TEXT NOT NULL", "What is true."),
        "evidence": ("TEXT NOT NULL", "Evidence as JSON (ptxas, hardware, opcodes present/absent)."),
    }),
    "descriptor_fields": ("Bit fields of the 64-bit wgmma matrix descriptor.", {
        "family": ("TEXT NOT NULL", "Instruction family."),
        "name": ("TEXT NOT NULL", "Field name."),
        "lsb": ("INTEGER NOT NULL", "Lowest bit."),
        "width": ("INTEGER NOT NULL", "Width in bits."),
        "encode": ("TEXT NOT NULL", "Formula from the value x to the field contents."),
        "description": ("TEXT NOT NULL", "Meaning."),
    }),
    "swizzle_modes": ("Shared-memory swizzle modes of the matrix descriptor.", {
        "family": ("TEXT NOT NULL", "Instruction family."),
        "name": ("TEXT NOT NULL", "Mode name: none, 32B, 64B, 128B."),
        "code": ("INTEGER NOT NULL", "Value of the descriptor's swizzle field."),
        "width": ("INTEGER NOT NULL", "Row width in bytes."),
        "b": ("INTEGER NOT NULL", "B of Swizzle<B,4,3>: address bits [4,4+B) ^= bits [7,7+B)."),
        "repeat": ("INTEGER NOT NULL", "Bytes after which the pattern repeats."),
        "description": ("TEXT NOT NULL", "Meaning."),
    }),
}

VIEWS = {
    "fragment_elements": ("Every element of every register operand of every variant.", {
        "variant_id": "Variant.", "operand": "Operand name.", "thread": "Thread.",
        "reg": "Register index within the operand.",
        "slot": "Element position inside its 32-bit register, low to high.",
        "row": "Matrix row.", "col": "Matrix column.",
    }, """SELECT o.variant_id, o.name AS operand, e.thread, e.element / o.per_reg AS reg,
       e.element % o.per_reg AS slot, e.row, e.col
FROM operands o JOIN layout_elements e ON e.layout_id = o.layout_id"""),
}

WITHOUT_ROWID = {"layout_elements": ", PRIMARY KEY (layout_id, thread, element)"}

INDEXES = [
    "CREATE INDEX variants_family ON variants(family, instruction)",
    "CREATE INDEX variants_shape ON variants(m, n, k)",
    "CREATE INDEX variants_types ON variants(atype, btype, dtype)",
    "CREATE INDEX variant_targets_target ON variant_targets(target, min_ptx)",
    "CREATE INDEX operands_variant ON operands(variant_id, position)",
]


def build(spec: Spec) -> bytes:
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA page_size = 4096")
    for name, (_, cols) in TABLES.items():
        extra = WITHOUT_ROWID.get(name, "")
        db.execute(f"CREATE TABLE {name} (" + ", ".join(f"{c} {t}" for c, (t, _) in cols.items()) + extra + ")"
                   + (" WITHOUT ROWID" if extra else ""))
    db.execute("CREATE TABLE descriptions (object TEXT NOT NULL, column_name TEXT NOT NULL, description TEXT NOT NULL,"
               " PRIMARY KEY (object, column_name))")
    for name, (_, cols, sql) in VIEWS.items():
        db.execute(f"CREATE VIEW {name} ({', '.join(cols)}) AS {sql}")
    desc_rows = [("descriptions", "", "Description of every table, view and column; column_name '' is the object."),
                 ("descriptions", "object", "Table or view name."), ("descriptions", "column_name", "Column name."),
                 ("descriptions", "description", "What it holds.")]
    for name, (text, cols) in TABLES.items():
        desc_rows.append((name, "", text))
        desc_rows += [(name, c, d) for c, (_, d) in cols.items()]
    for name, (text, cols, _) in VIEWS.items():
        desc_rows.append((name, "", text))
        desc_rows += [(name, c, d) for c, d in cols.items()]
    db.executemany("INSERT INTO descriptions VALUES (?,?,?)", desc_rows)

    db.executemany("INSERT INTO ptx_versions VALUES (?,?,?)",
                   [(str(v), i, int(v in spec.ptxas_versions)) for i, v in enumerate(spec.ptx_versions)])
    db.executemany("INSERT INTO targets VALUES (?,?,?,?,?,?)",
                   [(t.name, t.arch, t.suffix, t.family, str(t.ptx), int(t.ptxas)) for t in spec.targets.values()])
    db.executemany("INSERT INTO types VALUES (?,?,?,?,?,?,?)",
                   [(t.name, t.cls, t.bits, t.register, int(t.signed), json.dumps(t.format, sort_keys=True) if t.format else None,
                     t.description) for t in spec.types.values()])
    db.executemany("INSERT INTO instructions VALUES (?,?,?,?,?,?)",
                   [(i.name, i.family, i.manual, i.opcode, i.description, json.dumps(i.rules))
                    for i in sorted(spec.instructions.values(), key=lambda i: i.name)])

    layout_ids: dict[tuple, int] = {}
    layout_rows, element_rows, operand_rows, variant_rows, vt_rows = [], [], [], [], []
    for v in spec.variants:
        rec = v.as_record()
        variant_rows.append((v.id, v.family, v.instruction, v.ptx, v.form, v.m, v.n, v.k, v.atype, v.btype,
                             v.ctype, v.dtype, int(v.satfinite), v.op, int(v.sparse), rec["min_ptx"],
                             json.dumps(rec["targets"]), json.dumps(rec["requires"]), json.dumps(rec["regs"]),
                             json.dumps(rec["selectors"]), v.threads, v.group))
        for t in rec["targets"]:
            vt_rows.append((v.id, t, str(v.requirement.first_ptx(spec.targets[t]))))
        for pos, o in enumerate(v.operands):
            lid = per_reg = None
            if o.kind == "fragment":
                layout, _, shape = v.fragment_layouts[o.matrix]
                key = (layout.name, layout.shape_key(*shape))
                fm = v.fragment_map(o.matrix)
                per_reg = fm.per_reg
                lid = layout_ids.get(key)
                if lid is None:
                    lid = layout_ids[key] = len(layout_ids) + 1
                    layout_rows.append((lid, layout.name, json.dumps(dict(key[1])), fm.rows, fm.cols, fm.threads,
                                        fm.elements))
                    t = np.repeat(np.arange(fm.threads), fm.elements)
                    e = np.tile(np.arange(fm.elements), fm.threads)
                    element_rows.extend(zip([lid] * t.size, t.tolist(), e.tolist(), fm.row.ravel().tolist(),
                                            fm.col.ravel().tolist()))
            operand_rows.append((v.id, pos, o.name, o.kind, o.io, o.matrix, o.regs, o.reg_type, o.element_type, lid, per_reg,
                                 json.dumps(list(o.values)) if o.values is not None else None, o.min_value))
    db.executemany(f"INSERT INTO variants VALUES ({','.join('?' * 22)})", variant_rows)
    db.executemany("INSERT INTO variant_targets VALUES (?,?,?)", vt_rows)
    db.executemany("INSERT INTO layouts VALUES (?,?,?,?,?,?,?)", layout_rows)
    db.executemany("INSERT INTO layout_elements VALUES (?,?,?,?,?)", element_rows)
    db.executemany("INSERT INTO operands VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", operand_rows)

    meta_rows, seen = [], set()
    for v in spec.variants:
        sp = v.sparsity
        if sp is None or (sp.name, v.m, v.k) in seen:
            continue
        seen.add((sp.name, v.m, v.k))
        for sel in sp.selectors:
            mask, row, chunk = sp.metadata_map(v.threads, v.m, v.n, v.k, sel)
            for t in range(v.threads):
                if mask[t]:
                    meta_rows += [(sp.name, v.m, v.k, sel, t, n, int(row[t, n]), int(chunk[t, n])) for n in range(8)]
    db.executemany("INSERT INTO sparsity_metadata VALUES (?,?,?,?,?,?,?,?)", meta_rows)
    db.executemany("INSERT INTO errata VALUES (?,?,?,?,?,?,?)",
                   [(e.id, e.family, e.title, e.manual, e.manual_says, e.truth, json.dumps(e.evidence, sort_keys=True))
                    for e in spec.errata])
    for fam, sm in sorted(spec.smem.items()):
        db.executemany("INSERT INTO descriptor_fields VALUES (?,?,?,?,?,?)",
                       [(fam, f["name"], f["lsb"], f["width"], f["encode"].source, f["description"]) for f in sm.fields])
        db.executemany("INSERT INTO swizzle_modes VALUES (?,?,?,?,?,?,?)",
                       [(fam, m.name, m.code, m.width, m.b, m.repeat, m.description) for m in sm.swizzle_modes])
    for stmt in INDEXES:
        db.execute(stmt)
    db.commit()
    data = db.serialize()
    db.close()
    return bytes(data)
