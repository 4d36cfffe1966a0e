"""The bad-spec corpus, as one table: every case is one defect, written as exact text replacements
on real spec files (each `old` must occur exactly once) or as a file added or deleted, and the
problems the loader must report, each line named by a marker (the first line containing a string),
so that cases and their expected lines follow spec/ as it changes. tests/test_bad_input.py applies
each case to a copy of spec/ when it runs; nothing of an edited tree is committed.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SPEC = REPO / "spec"

FENCE = "families/wgmma/fence.yaml"
COMMIT = "families/wgmma/commit_group.yaml"
WAIT = "families/wgmma/wait_group.yaml"
FAMILY = "families/wgmma/family.yaml"
DENSE = "families/wgmma/mma_async.yaml"
SP = "families/wgmma/mma_async_sp.yaml"
LAYOUTS = "layouts/wgmma.yaml"
SMEM = "smem/wgmma.yaml"
ERRATA = "errata/wgmma.yaml"
ISA = "isa.yaml"
TYPES = "types.yaml"

CASES = []


def real(rel):
    return (SPEC / rel).read_text(encoding="utf-8")


def edit(text, *pairs):
    for old, new in pairs:
        n = text.count(old)
        assert n == 1, (old, n)
        text = text.replace(old, new)
    return text


def edit_real(rel, *pairs):
    return edit(real(rel), *pairs)


def edit_line(rel, key, new_value, nth=1):
    """The real file with the value of the nth line `key: ...` (any indentation) replaced."""
    lines = real(rel).splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.lstrip().startswith(key + ":")]
    assert len(hits) >= nth, (rel, key, len(hits))
    i = hits[nth - 1]
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    lines[i] = f"{indent}{key}: {new_value}\n"
    return "".join(lines)


# A trimmed copy of the sparse wgmma: its f16 and tf32 groups only (no refinements, whose
# integer variants are gone). The rest of the tree stays valid with it.
SP_MIN = """\
$schema: ../../../schema/instruction.schema.json
kind: instruction
name: wgmma.mma_async.sp
family: wgmma
manual: "PTX ISA 9.7.15.6.3"
description: >
  Trimmed copy of spec/families/wgmma/mma_async_sp.yaml: the f16 and tf32 groups only.
semantics: mma
opcode: "wgmma.mma_async.sp.sync.aligned.m{m}n{n}k{k}{satfinite}.{dtype}.{atype}.{btype}"
introduced: {targets: sm_90a, ptx: "8.2"}
requires:
  - {ptx: "8.2", targets: sm_90a}
signatures:
  transposable:
    - {name: d, kind: fragment, io: inout, matrix: d}
    - {name: a, kind: fragment, io: in, matrix: a, forms: [reg]}
    - {name: a_desc, kind: descriptor, io: in, matrix: a, forms: [desc]}
    - {name: b_desc, kind: descriptor, io: in, matrix: b}
    - {name: sp_meta, kind: metadata, io: in}
    - {name: sp_sel, kind: selector}
    - {name: scale_d, kind: predicate, io: in}
    - {name: imm_scale_a, kind: immediate, values: [-1, 1]}
    - {name: imm_scale_b, kind: immediate, values: [-1, 1]}
    - {name: imm_trans_a, kind: immediate, values: [0, 1], forms: [desc]}
    - {name: imm_trans_b, kind: immediate, values: [0, 1]}
  scalable:
    - {name: d, kind: fragment, io: inout, matrix: d}
    - {name: a, kind: fragment, io: in, matrix: a, forms: [reg]}
    - {name: a_desc, kind: descriptor, io: in, matrix: a, forms: [desc]}
    - {name: b_desc, kind: descriptor, io: in, matrix: b}
    - {name: sp_meta, kind: metadata, io: in}
    - {name: sp_sel, kind: selector}
    - {name: scale_d, kind: predicate, io: in}
    - {name: imm_scale_a, kind: immediate, values: [-1, 1]}
    - {name: imm_scale_b, kind: immediate, values: [-1, 1]}
groups:
  - name: f16
    shape: {m: [64], n: all, k: [32]}
    types: {atype: [f16], btype: [f16], dtype: [f16, f32]}
    forms: [reg, desc]
    signature: transposable
    sparsity: wgmma.sparse.16bit
    fragments:
      a: {layout: wgmma.a.k16, regs: "4"}
      d: {layout: wgmma.d, regs: "N * dbits / 64"}
  - name: tf32
    shape: {m: [64], n: all, k: [16]}
    types: {atype: [tf32], btype: [tf32], dtype: [f32]}
    forms: [reg, desc]
    signature: scalable
    sparsity: wgmma.sparse.tf32
    fragments:
      a: {layout: wgmma.a.k8, regs: "4"}
      d: {layout: wgmma.d, regs: "N / 2"}
"""


def sp_min(*pairs):
    return edit(SP_MIN, *pairs)


def spelled_out(rel, requirement):
    """The real file with its `requires: [{use: introduced}]` (the family's piece) written out as
    one requirement, `requirement` (the text of a flow mapping, a defect in it)."""
    return edit_real(rel, ("requires: [{use: introduced}]", "requires:\n  - " + requirement))


def case(name, description, files, expect, delete=(), xfail=None, isolate=False):
    """files: {rel: text | bytes}; expect: [(rel, at, message)] with `at` a line number or the
    first line containing a marker string (or (marker, nth) for the nth such line)."""
    CASES.append(dict(name=name, description=description, files=files, expect=expect,
                      delete=list(delete), xfail=xfail, isolate=isolate))


def line_of(content, at):
    if isinstance(at, int):
        return at
    marker, nth = at if isinstance(at, tuple) else (at, 1)
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    seen = 0
    for no, line in enumerate(text.splitlines(), 1):
        if marker in line:
            seen += 1
            if seen == nth:
                return no
    raise AssertionError(f"marker {marker!r} not found")


def yaml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# =============================================================================================
# YAML syntax

case("yaml_bad_indentation",
     "A group key indented one space less than its sibling `name`.",
     {WAIT: edit_real(WAIT, ("\n    signature: count", "\n   signature: count"))},
     [(WAIT, "   signature: count", "YAML syntax: expected <block end>")])

case("yaml_unclosed_bracket",
     "A flow mapping in `requires` whose closing brace is missing.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: sm_90a')},
     [(COMMIT, "rules:", "YAML syntax:")])

case("yaml_tab_indent",
     "A tab used for indentation inside the groups list.",
     {FENCE: edit_real(FENCE, ("\n    signature: none", "\n\tsignature: none"))},
     [(FENCE, "\tsignature: none", "YAML syntax:")])

case("yaml_two_documents",
     "A second YAML document after `---` in one spec file.",
     {COMMIT: real(COMMIT) + "---\nkind: instruction\n"},
     [(COMMIT, "---", "YAML syntax:")])

case("yaml_float_tag_on_a_width",
     "`!!float 3` as a bit field's width: JSON Schema counts 3.0 as an integer, the resolver shifted by it (fuzz seed 32, tree 4693).",
     {SMEM: edit_real(SMEM, ("      lsb: 49\n      width: 3\n", "      lsb: 49\n      width: !!float 3\n"))},
     [(SMEM, "width: !!float 3", "3.0 is a float here")])

case("yaml_undefined_alias",
     "An alias whose anchor is never defined.",
     {WAIT: edit_real(WAIT, ("    signature: count", "    signature: *count"))},
     [(WAIT, "*count", "undefined alias")])

case("yaml_control_character",
     "A raw BEL control character (0x07) inside a description on line 7.",
     {FENCE: edit_real(FENCE, ("registers before later", "registers\x07before later"))},
     [(FENCE, "registers\x07before", "unacceptable character")])

case("yaml_deep_nesting",
     "A rule nested 1000 flow sequences deep: the strict loader must report it, not recurse until "
     "Python's stack runs out.",
     {FENCE: edit_real(FENCE, ("  - Every warp of the warpgroup issues it before the first wgmma.mma_async of the warpgroup.",
                                "  - " + "[" * 1000 + "]" * 1000))},
     [(FENCE, "[[[[", "")])

# =============================================================================================
# Duplicate keys

case("duplicate_key_top_level",
     "`opcode` given twice at the top level of an instruction.",
     {COMMIT: edit_real(COMMIT, ('opcode: "wgmma.commit_group.sync.aligned"\n',
                                 'opcode: "wgmma.commit_group.sync.aligned"\nopcode: "wgmma.commit.sync.aligned"\n'))},
     [(COMMIT, "wgmma.commit.sync", "duplicate key 'opcode' (first defined at line 10)", 1)])

case("duplicate_key_nested",
     "`signature` given twice inside one group.",
     {WAIT: edit_real(WAIT, ("    signature: count\n", "    signature: count\n    signature: count\n"))},
     [(WAIT, ("signature: count", 2), "duplicate key 'signature'")])

case("duplicate_key_flow_mapping",
     "`ptx` given twice inside a flow mapping.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: sm_90a, ptx: "8.1"}')},
     [(COMMIT, '{ptx: "8.0", targets: sm_90a, ptx', "duplicate key 'ptx'", 35)])

# =============================================================================================
# Aliases, tags, merge keys

LOL = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
for prev, cur in zip("abcdefgh", "bcdefghi"):
    LOL.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
case("alias_bomb",
     "Billion laughs: nine levels of nine aliases (9**9 values) in an extra file.",
     {"families/wgmma/laughs.yaml": "# billion laughs\n" + "\n".join(LOL) + "\nrules: *i\n"},
     [("families/wgmma/laughs.yaml", 2, "alias bomb")])

case("alias_recursive",
     "A mapping that contains an alias to itself.",
     {FENCE: edit_real(FENCE, ("signatures:\n  none: []", "signatures: &sig\n  none: []\n  self: *sig"))},
     [(FENCE, "signatures: &sig", "recursive alias")])

case("tag_python_object_apply",
     "`!!python/object/apply:os.system` on a sequence (PyYAML's unsafe loader would run it).",
     {COMMIT: edit_real(COMMIT, ("rules:\n", "rules: !!python/object/apply:os.system\n"))},
     [(COMMIT, "rules:", "tag")])

case("tag_python_object_mapping",
     "`!!python/object:...` on a mapping.",
     {FENCE: edit_real(FENCE, ("signatures:\n", "signatures: !!python/object:collections.OrderedDict\n"))},
     [(FENCE, "signatures:", "tag")])

case("tag_python_name_scalar",
     "`!!python/name:os.system` on a (quoted) scalar.",
     {COMMIT: edit_real(COMMIT, ('manual: "PTX ISA 9.7.15.7.2"', 'manual: !!python/name:os.system "PTX ISA 9.7.15.7.2"'))},
     [(COMMIT, "manual:", "tag")])

case("tag_binary_scalar",
     "`!!binary` on a scalar.",
     {COMMIT: edit_real(COMMIT, ('manual: "PTX ISA 9.7.15.7.2"', "manual: !!binary UFRYIElTQSA5LjcuMTUuNy4y"))},
     [(COMMIT, "manual:", "binary")])

case("tag_custom",
     "A custom local tag `!include`.",
     {WAIT: edit_real(WAIT, ('manual: "PTX ISA 9.7.15.7.3"', "manual: !include manual.yaml"))},
     [(WAIT, "manual:", "YAML tag '!include' is not allowed")])

case("merge_key",
     "bf16 written as a YAML merge of the f16 entry.",
     {TYPES: edit_real(TYPES,
                       ("  - {name: f16, register", "  - &f16 {name: f16, register"),
                       ("  - {name: bf16, register: b32, class: float, bits: 16, format: {exponent: 8, mantissa: 7, bias: 127, specials: ieee}}",
                        "  - {<<: *f16, name: bf16, format: {exponent: 8, mantissa: 7, bias: 127, specials: ieee}}"))},
     [(TYPES, "<<: *f16", "merge keys")])

# =============================================================================================
# Non-string surprises

case("bool_off_value",
     "`ptxas: off` - YAML 1.1 reads it as false; the spec wants true/false.",
     {ISA: edit_real(ISA, ('{version: "6.1", ptxas: false}', '{version: "6.1", ptxas: off}'))},
     [(ISA, 'ptxas: off', "ambiguous scalar 'off'")])

case("bool_yes_value",
     "`signed: yes` in a type.",
     {TYPES: edit_real(TYPES, ("{name: s8, register: b32, class: int, bits: 8, signed: true}",
                               "{name: s8, register: b32, class: int, bits: 8, signed: yes}"))},
     [(TYPES, "signed: yes", "ambiguous scalar 'yes'")])

case("bool_on_key",
     "An n_set named `on`: YAML 1.1 reads the key as a boolean.",
     {FAMILY: edit_real(FAMILY, ("  all: {range: [8, 256, 8]}", "  all: {range: [8, 256, 8]}\n  on: [8, 16]"))},
     [(FAMILY, "  on: [8, 16]", "ambiguous scalar 'on'")])

case("unquoted_date",
     "An unquoted date where a string is expected.",
     {COMMIT: edit_real(COMMIT, ('manual: "PTX ISA 9.7.15.7.2"', "manual: 2024-01-01"))},
     [(COMMIT, "manual:", "'2024-01-01' reads as a date")])

case("sexagesimal",
     "`threads: 2:08` - YAML 1.1 reads it as the base-60 number 128.",
     {FAMILY: edit_real(FAMILY, ("threads: 128", "threads: 2:08"))},
     [(FAMILY, "threads:", "ambiguous number '2:08'")])

case("octal_integer",
     "`threads: 0200` - YAML 1.1 reads it as octal 128.",
     {FAMILY: edit_real(FAMILY, ("threads: 128", "threads: 0200"))},
     [(FAMILY, "threads:", "ambiguous number '0200'")])

case("float_version",
     "`ptx: 8.0` unquoted is the float 8.0, not the version string.",
     {COMMIT: spelled_out(COMMIT, "{ptx: 8.0, targets: sm_90a}")},
     [(COMMIT, "ptx: 8.0", "is a number here; quote it")])

case("float_inf",
     "`threads: .inf`.",
     {FAMILY: edit_real(FAMILY, ("threads: 128", "threads: .inf"))},
     [(FAMILY, "threads:", "'.inf' is not allowed")])

case("null_description",
     "An empty value where prose is required.",
     {COMMIT: edit_real(COMMIT, ("description: >\n  Creates a new wgmma-group per warpgroup holding every earlier wgmma.mma_async of the executing\n  warp not yet committed (an empty group when there is none).\n",
                                 "description:\n"))},
     [(COMMIT, "description:", "None is not of type 'string'")])

# =============================================================================================
# Schema: unknown keys, missing keys, wrong types and enums, kind, $schema

case("unknown_key_fragmnets",
     "`fragmnets` for `fragments` in a group.",
     {SP: sp_min(("    sparsity: wgmma.sparse.tf32\n    fragments:", "    sparsity: wgmma.sparse.tf32\n    fragmnets:"))},
     [(SP, "fragmnets:", "unknown key 'fragmnets' (did you mean 'fragments'?)")])

case("unknown_key_descripton",
     "`descripton` for the required top-level `description`.",
     {COMMIT: edit_real(COMMIT, ("description: >", "descripton: >"))},
     [(COMMIT, "descripton:", "unknown key 'descripton' (did you mean 'description'?)"),
      (COMMIT, 1, "'description' is required")])

case("unknown_key_operand",
     "`matrx` for `matrix` in an operand of a signature.",
     {SP: sp_min(("  scalable:\n    - {name: d, kind: fragment, io: inout, matrix: d}",
                  "  scalable:\n    - {name: d, kind: fragment, io: inout, matrx: d}"))},
     [(SP, "matrx: d", "unknown key 'matrx' (did you mean 'matrix'?)")])

case("missing_required_top_level",
     "A family without `threads`.",
     {FAMILY: edit_real(FAMILY, ("threads: 128\n", ""))},
     [(FAMILY, 1, "'threads' is required")])

case("missing_required_nested",
     "A group without `signature`.",
     {FENCE: edit_real(FENCE, ("  - name: fence\n    signature: none", "  - name: fence"))},
     [(FENCE, "  - name: fence", "'signature' is required")])

case("wrong_type_list_expected",
     "`m: 64` where a list of M is expected.",
     {SP: sp_min(("shape: {m: [64], n: all, k: [16]}", "shape: {m: 64, n: all, k: [16]}"))},
     [(SP, "shape: {m: 64", "64 is not of type 'array'")])

case("wrong_type_string_for_int",
     "`threads: \"128\"` quoted.",
     {FAMILY: edit_real(FAMILY, ("threads: 128", 'threads: "128"'))},
     [(FAMILY, "threads:", "is not of type 'integer'")])

case("wrong_enum_operand_kind",
     "An operand kind that does not exist.",
     {WAIT: edit_real(WAIT, ("{name: n, kind: immediate,", "{name: n, kind: constant,"))},
     [(WAIT, "kind: constant", "'constant' is not one of 'fragment', 'descriptor'")])

case("wrong_enum_target_suffix",
     "A target suffix other than '', a, f.",
     {ISA: edit_real(ISA, ("{name: sm_90a, arch: 90, suffix: a,", "{name: sm_90a, arch: 90, suffix: x,"))},
     [(ISA, "suffix: x", "'x' is not one of '', 'a', 'f'")])

case("wrong_pattern_target_name",
     "A target name that is not sm_<digits>[af].",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: sm90a}')},
     [(COMMIT, "targets: sm90a", "'sm90a' does not match: A compilation target")])

case("unknown_kind",
     "`kind: instrucion` (typo).",
     {FENCE: edit_real(FENCE, ("kind: instruction", "kind: instrucion"))},
     [(FENCE, "kind:", "kind must be one of isa, types, family, instruction, layouts, smem, descriptor, errata, "
                       "numerics; got 'instrucion' (did you mean 'instruction'?)")])

case("missing_kind",
     "No `kind` at all.",
     {FENCE: edit_real(FENCE, ("kind: instruction\n", ""))},
     [(FENCE, 1, "kind must be one of")])

case("schema_names_wrong_schema",
     "An instruction file whose $schema names the family schema.",
     {FENCE: edit_real(FENCE, ("$schema: ../../../schema/instruction.schema.json", "$schema: ../../../schema/family.schema.json"))},
     [(FENCE, "$schema:", "$schema should name instruction.schema.json for kind 'instruction'")])

# =============================================================================================
# Whole-file problems

case("empty_file",
     "An instruction file with no bytes.",
     {COMMIT: ""},
     [(COMMIT, 1, "empty file")])

case("comments_only_file",
     "A spec file holding only comments.",
     {COMMIT: "# wgmma.commit_group: moved elsewhere\n# (nothing here)\n"},
     [(COMMIT, 1, "empty file")])

case("not_utf8",
     "A Latin-1 byte (0xE9) in a description on line 7.",
     {FENCE: edit_real(FENCE, ("Orders earlier accesses", "Orders earlier acc\x00esses")).encode("utf-8").replace(b"\x00", b"\xe9")},
     [(FENCE, "Orders earlier acc", "not UTF-8")])

case("file_is_a_list",
     "A spec file whose document is a list.",
     {COMMIT: "- kind: instruction\n- name: wgmma.commit_group\n"},
     [(COMMIT, 1, "a spec file must be a mapping")])

case("file_is_a_scalar",
     "A spec file whose document is a plain string.",
     {COMMIT: "wgmma.commit_group.sync.aligned\n"},
     [(COMMIT, 1, "a spec file must be a mapping")])

case("non_string_key",
     "An integer mapping key.",
     {FAMILY: edit_real(FAMILY, ("  all: {range: [8, 256, 8]}", "  all: {range: [8, 256, 8]}\n  64: [64]"))},
     [(FAMILY, "  64: [64]", "mapping key '64' must be a string")])

case("second_isa_file",
     "A second file of kind isa.",
     {"isa2.yaml": real(ISA)},
     [("isa2.yaml", "kind: isa", "an isa file does not belong at isa2.yaml: isa files go at isa.yaml")])

case("missing_types_file",
     "The tree has no file of kind types.",
     {}, [(".", 1, "no file of kind 'types'")], delete=[TYPES])

# =============================================================================================
# Dangling references

case("unknown_type",
     "A group names an element type that types.yaml does not define.",
     {SP: sp_min(("types: {atype: [f16], btype: [f16], dtype: [f16, f32]}", "types: {atype: [f16], btype: [f61], dtype: [f16, f32]}"))},
     [(SP, "btype: [f61]", "unknown type 'f61' (did you mean")])

case("unknown_layout",
     "A fragment names a layout that does not exist.",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', 'a: {layout: wgmma.a.k9, regs: "4"}'))},
     [(SP, "wgmma.a.k9", "unknown layout 'wgmma.a.k9' (did you mean")])

case("unknown_sparsity",
     "A group names a sparsity that does not exist.",
     {SP: sp_min(("sparsity: wgmma.sparse.16bit", "sparsity: wgmma.sparse.16bits"))},
     [(SP, "wgmma.sparse.16bits", "unknown sparsity 'wgmma.sparse.16bits' (did you mean 'wgmma.sparse.16bit'?)")])

case("unknown_signature",
     "A group names a signature the instruction does not define.",
     {FENCE: edit_real(FENCE, ("    signature: none", "    signature: nothing"))},
     [(FENCE, "signature: nothing", "unknown signature 'nothing'")])

case("unknown_n_set",
     "A shape names an n_set the family does not define.",
     {SP: sp_min(("shape: {m: [64], n: all, k: [16]}", "shape: {m: [64], n: alll, k: [16]}"))},
     [(SP, "n: alll", "unknown n_set 'alll' (did you mean 'all'?)")])

case("unknown_family",
     "An instruction names a family that does not exist.",
     {FENCE: edit_real(FENCE, ("family: wgmma", "family: wgmmma"))},
     [(FENCE, "family:", "unknown family 'wgmmma' (did you mean 'wgmma'?)")])

case("family_not_a_string",
     "An instruction's `family` a YAML list (`!!seq []`): read before the schema pass to find the family's "
     "pieces, it was hashed as a name (an internal error; fuzz seed 33, tree 1717).",
     {FENCE: edit_real(FENCE, ("family: wgmma", "family: !!seq []"))},
     [(FENCE, "family: !!seq []", "family: [] is not of type 'string'")])

case("unknown_target_in_requires",
     "`requires` names a target isa.yaml does not list.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: sm_91a}')},
     [(COMMIT, "targets: sm_91a", "unknown target 'sm_91a' (did you mean 'sm_90a'?)")])

case("unknown_target_in_refinement",
     "A refinement's `at_least` names an unknown target.",
     {SP: sp_min(('requires:\n  - {ptx: "8.2", targets: sm_90a}\n',
                  'requires:\n  - {ptx: "8.2", targets: sm_90a}\nrefinements:\n'
                  '  - when: {atype: tf32}\n    requires: {targets: {at_least: sm_95}}\n'
                  '    why: "A made-up restriction."\n'))},
     [(SP, "at_least: sm_95", "unknown target 'sm_95'")])

case("unknown_ptx_version",
     "`requires` names a PTX version isa.yaml does not list.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.9", targets: sm_90a}')},
     [(COMMIT, 'ptx: "8.9"', "unknown PTX version 8.9")])

case("unknown_ptx_version_of_target",
     "A target whose first PTX version is not in ptx_versions.",
     {ISA: edit_real(ISA, ('{name: sm_70, arch: 70, suffix: "", ptx: "6.0", ptxas: false}',
                           '{name: sm_70, arch: 70, suffix: "", ptx: "5.0", ptxas: false}'))},
     [(ISA, 'ptx: "5.0"', "unknown PTX version 5.0")])

case("errata_unknown_family",
     "An errata file for a family that does not exist.",
     {ERRATA: edit_real(ERRATA, ("family: wgmma", "family: wgmmma"))},
     [(ERRATA, "family: wgmmma", "unknown family 'wgmmma'")])

case("layouts_unknown_family",
     "A layouts file for a family that does not exist.",
     {LAYOUTS: edit_real(LAYOUTS, ("family: wgmma", "family: wgmmx"))},
     [(LAYOUTS, "family: wgmmx", "unknown family 'wgmmx' (did you mean 'wgmma'?)")])

case("layouts_family_a_mapping",
     "A layouts file's `family` a mapping: no name (fuzz seed 33, tree 1717, in another kind of file).",
     {LAYOUTS: edit_real(LAYOUTS, ("family: wgmma", "family: {name: wgmma}"))},
     [(LAYOUTS, "family: {name: wgmma}", "family: {'name': 'wgmma'} is not of type 'string'")])

case("smem_unknown_family",
     "A shared-memory file for a family that does not exist.",
     {SMEM: edit_real(SMEM, ("family: wgmma", "family: wgmm"))},
     [(SMEM, "family: wgmm", "unknown family 'wgmm'")])

# =============================================================================================
# Fragment maps, sparsity, registers

case("fragment_two_elements_one_cell",
     "wgmma.a.k8 without the column step: elements i and i+2 of a thread land on one cell.",
     {LAYOUTS: edit_real(LAYOUTS, ('col: "t%4 + 4*(i//2)"', 'col: "t%4"'))},
     [(LAYOUTS, "  wgmma.a.k8:", "is not a bijection")])

case("fragment_element_out_of_range",
     "wgmma.a.k8 shifted one column right: the last column falls outside the matrix.",
     {LAYOUTS: edit_real(LAYOUTS, ('col: "t%4 + 4*(i//2)"', 'col: "t%4 + 4*(i//2) + 1"'))},
     [(LAYOUTS, "  wgmma.a.k8:", "outside the 64x8 matrix")])

case("fragment_wrong_element_count",
     "wgmma.a.k8 with 3 elements per thread: 384 elements for 512 cells.",
     {LAYOUTS: edit_real(LAYOUTS, ("    cols: 8\n    elements: 4\n", "    cols: 8\n    elements: 3\n"))},
     [(LAYOUTS, "  wgmma.a.k8:", "maps 384 elements onto a 64x8 matrix")])

case("sparse_a_layout_too_big",
     "Sparse f16 A given the layout of the full K=32 operand instead of the packed K/2 half.",
     {SP: sp_min(('a: {layout: wgmma.a.k16, regs: "4"}', 'a: {layout: wgmma.a.k32, regs: "4"}'))},
     [(SP, "wgmma.a.k32", "covers a 64x32 matrix but A of m64n8k32 is 64x16 (packed sparse A)")])

case("sparsity_chunk_twice",
     "wgmma.sparse.16bit metadata whose nibbles describe chunks 0-3 twice and 4-7 never.",
     {LAYOUTS: edit_real(LAYOUTS, ('    chunk_index: "4*(t%2) + n%4"\n    valid_nibbles: [0x4, 0x8',
                                   '    chunk_index: "n%4"\n    valid_nibbles: [0x4, 0x8'))},
     [(LAYOUTS, "  wgmma.sparse.16bit:", "chunk (0, 0) is described 2 times")])

case("regs_formula_wrong_d",
     "D of f16/f32 accumulators given N/2 registers: wrong for 16-bit D.",
     {SP: sp_min(('d: {layout: wgmma.d, regs: "N * dbits / 64"}', 'd: {layout: wgmma.d, regs: "N / 2"}'))},
     [(SP, 'd: {layout: wgmma.d, regs: "N / 2"}', "regs says 4 registers for D of m64n8k32")])

case("regs_formula_wrong_a",
     "A of sparse tf32 given 2 registers for 4 32-bit elements.",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', 'a: {layout: wgmma.a.k8, regs: "2"}'))},
     [(SP, "wgmma.a.k8", "regs says 2 registers for A of m64n8k16")])

case("fragment_operand_without_layout",
     "A signature with a D fragment used by a group that gives no layout for D.",
     {SP: sp_min(('      a: {layout: wgmma.a.k8, regs: "4"}\n      d: {layout: wgmma.d, regs: "N / 2"}\n',
                  '      a: {layout: wgmma.a.k8, regs: "4"}\n'))},
     [(SP, ("signature: scalable", 1), "operand 'd' is a fragment of matrix 'd' but group 'tf32' gives no fragment layout")])

case("metadata_without_sparsity",
     "A sparse signature (metadata, selector) used by a group that names no sparsity.",
     {SP: sp_min(("    sparsity: wgmma.sparse.tf32\n", ""))},
     [(SP, ("signature: scalable", 1), "operand 'sp_meta' needs the group to name a sparsity")])

case("operand_listed_twice",
     "A signature that lists operand `n` twice.",
     {WAIT: edit_real(WAIT, ("    - {name: n, kind: immediate, values: {min: 0}}",
                             "    - {name: n, kind: immediate, values: {min: 0}}\n    - {name: n, kind: immediate, values: [0, 1]}"))},
     [(WAIT, "values: [0, 1]", "operand 'n' listed twice")])

case("fragments_without_types",
     "A group with a fragment layout but no `types`: there is no element type to size it.",
     {FENCE: edit_real(FENCE, ("    signature: none", "    signature: none\n    fragments:\n      d: {layout: wgmma.d, regs: \"N / 2\"}"))},
     [(FENCE, "  - name: fence", "")])

case("sparse_group_without_shape",
     "A sparse group with fragments but no `shape`: there is no K to halve.",
     {SP: sp_min(("    shape: {m: [64], n: all, k: [16]}\n", ""))},
     [(SP, "  - name: tf32", "")])

case("dense_group_without_shape",
     "A dense group that leaves out its shape: the defaults give M and N, and nothing gives K.",
     {DENSE: edit_real(DENSE, ("  - {name: tf32, shape: {k: [8]}, types:", "  - {name: tf32, types:"))},
     [(DENSE, "  - {name: tf32", "shape")])

case("empty_n_range",
     "An n_set range whose first value exceeds its last: the group using it expands to nothing.",
     {FAMILY: edit_real(FAMILY, ("  all: {range: [8, 256, 8]}", "  all: {range: [8, 256, 8]}\n  none: {range: [256, 8, 8]}")),
      SP: sp_min(("shape: {m: [64], n: all, k: [16]}", "shape: {m: [64], n: none, k: [16]}"))},
     [(FAMILY, "none: {range", "empty")])

# =============================================================================================
# Duplicates

case("duplicate_variant_two_groups",
     "Two groups of one instruction expanding to the same opcode.",
     {FENCE: real(FENCE) + "  - name: fence_again\n    signature: none\n"},
     [(FENCE, "name: fence_again", "variant wgmma.fence.sync.aligned defined twice (also group 'fence' at line ")])

case("duplicate_instruction_file",
     "Two instruction files define the same instruction name.",
     {"families/wgmma/fence_copy.yaml": real(FENCE)},
     [("families/wgmma/fence_copy.yaml", "name: wgmma.fence", "instruction wgmma.fence defined twice")])

case("duplicate_variant_across_files",
     "A second instruction (another name) whose opcode equals wgmma.fence's.",
     {"families/wgmma/fence2.yaml": edit_real(FENCE, ("name: wgmma.fence\n", "name: wgmma.fence2\n"))},
     [("families/wgmma/fence2.yaml", "  - name: fence", "variant wgmma.fence.sync.aligned defined twice")])

case("duplicate_variant_across_files_names_file",
     "As duplicate_variant_across_files: the message must say in which file the other group is.",
     {"families/wgmma/fence2.yaml": edit_real(FENCE, ("name: wgmma.fence\n", "name: wgmma.fence2\n"))},
     [("families/wgmma/fence2.yaml", "  - name: fence", "fence.yaml")])

case("duplicate_ptx_version",
     "PTX 8.0 listed twice.",
     {ISA: edit_real(ISA, ('  - {version: "9.5"}\n', '  - {version: "9.5"}\n  - {version: "8.0"}\n'))},
     [(ISA, ('{version: "8.0"}', 2), "PTX version 8.0 listed twice (first at line %d)" % line_of(real(ISA), '{version: "8.0"}'))])

case("ptx_version_out_of_order",
     "PTX 9.6 listed before 9.5.",
     {ISA: edit_real(ISA, ('  - {version: "9.5"}\n', '  - {version: "9.6"}\n  - {version: "9.5"}\n'))},
     [(ISA, '{version: "9.5"}', "PTX version 9.5 is out of order")])

case("duplicate_target",
     "sm_90a listed twice.",
     {ISA: edit_real(ISA, ('  - {name: sm_100, arch: 100,', '  - {name: sm_90a, arch: 90, suffix: a, ptx: "8.0"}\n  - {name: sm_100, arch: 100,'))},
     [(ISA, ("name: sm_90a", 2), "target sm_90a listed twice")])

case("target_name_mismatch",
     "sm_86 declared with arch 87.",
     {ISA: edit_real(ISA, ('{name: sm_86, arch: 86,', '{name: sm_86, arch: 87,'))},
     [(ISA, "name: sm_86", "target name sm_86 does not match arch 87 and suffix ''")])

case("duplicate_type",
     "Element type f16 defined twice.",
     {TYPES: real(TYPES) + "  - {name: f16, register: b32, class: int, bits: 16}\n"},
     [(TYPES, ("name: f16", 2), "type f16 listed twice")])

case("float_type_without_format",
     "A float type without its format.",
     {TYPES: real(TYPES) + "  - {name: f8, register: b32, class: float, bits: 8}\n"},
     [(TYPES, "name: f8,", "float type f8 needs a format")])

case("duplicate_family",
     "A second family.yaml defining wgmma.",
     {"families/wgmma2/family.yaml": real(FAMILY)},
     [("families/wgmma2/family.yaml", "name: wgmma", "family wgmma defined twice")])

case("duplicate_layout",
     "An extra layouts file (read after layouts/wgmma.yaml) defines wgmma.d again.",
     {"layouts/wgmma_extra.yaml": "$schema: ../../schema/layouts.schema.json\nkind: layouts\nfamily: wgmma\n"
                            "description: A second definition of wgmma.d.\nfragments:\n"
                            "  wgmma.d:\n    description: D again.\n    rows: 64\n    cols: N\n"
                            "    elements: N/2\n    row: \"16*(t//32) + (t%32)//4 + 8*((i//2)%2)\"\n"
                            "    col: \"8*(i//4) + 2*(t%4) + i%2\"\n"},
     [("layouts/wgmma_extra.yaml", "  wgmma.d:", "layout 'wgmma.d' defined twice")])

case("duplicate_erratum",
     "Two errata with the same id.",
     {ERRATA: edit_real(ERRATA, ("  - id: wgmma-aligned-not-enforced", "  - id: wgmma-satfinite-position"))},
     [(ERRATA, ("id: wgmma-satfinite-position", 2), "erratum wgmma-satfinite-position listed twice")])

# =============================================================================================
# Formulas

case("formula_import",
     "A register formula that tries __import__('os').system(...).",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', "a: {layout: wgmma.a.k8, regs: \"__import__('os').system('x')\"}"))},
     [(SP, "__import__", "regs: Call is not allowed")])

case("formula_attribute",
     "A descriptor encode formula with attribute access.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', '      width: 3\n      encode: "x.bit_length"'))},
     [(SMEM, "x.bit_length", "encode: Attribute is not allowed")])

case("formula_lambda",
     "The swizzle formula written as a lambda.",
     {SMEM: edit_line(SMEM, "swizzle", '"lambda a, b: a"')},
     [(SMEM, "swizzle: \"lambda", "swizzle: Lambda is not allowed")])

case("formula_call_open",
     "A canonical layout offset that calls open().",
     {SMEM: edit_line(SMEM, "bit_offset", "\"open('f')\"", nth=2)},
     [(SMEM, "open(", "bit_offset: Call is not allowed")])

case("formula_string_constant",
     "An encode formula that is a string literal.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', "      width: 3\n      encode: \"'x'\""))},
     [(SMEM, "encode: \"'x'\"", "encode: constant 'x' is not an integer")])

case("formula_pow_variable_exponent",
     "`2**N`: exponents must be constants.",
     {SP: sp_min(('d: {layout: wgmma.d, regs: "N / 2"}', 'd: {layout: wgmma.d, regs: "2**N"}'))},
     [(SP, "2**N", "regs: '**' needs a constant exponent")])

case("formula_unknown_name",
     "A register formula using a name that is not defined there.",
     {SP: sp_min(('d: {layout: wgmma.d, regs: "N * dbits / 64"}', 'd: {layout: wgmma.d, regs: "N * ebits / 64"}'))},
     [(SP, "ebits", "regs: unknown name 'ebits'")])

case("formula_unknown_name_in_layout",
     "A layout formula using a name that is not defined there.",
     {LAYOUTS: edit_real(LAYOUTS, ('    row: "16*(t//32) + (t%32)//4 + 8*(i%2)"', '    row: "16*(t//32) + (t%32)//4 + 8*(j%2)"'))},
     [(LAYOUTS, "8*(j%2)", "row: unknown name 'j'")])

case("formula_syntax_error",
     "A register formula that does not parse.",
     {SP: sp_min(('d: {layout: wgmma.d, regs: "N / 2"}', 'd: {layout: wgmma.d, regs: "N /"}'))},
     [(SP, 'regs: "N /"', "regs: formula syntax")])

case("formula_too_long",
     "A 401-character formula.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', '      width: 3\n      encode: "x' + " + 0" * 100 + '"'))},
     [(SMEM, "x + 0 + 0", "encode: formula longer than 400 characters")])

case("formula_constant_too_large",
     "A constant above 2**40.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', '      width: 3\n      encode: "x & 0x1FFFFFFFFFFFF"'))},
     [(SMEM, "0x1FFFFFFFFFFFF", "encode: constant 562949953421311 is too large")])

case("formula_boolean_operator",
     "`and` is not an integer operator.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', '      width: 3\n      encode: "x and 7"'))},
     [(SMEM, "x and 7", "encode: BoolOp is not allowed")])

case("formula_division_by_zero_in_layout",
     "A layout whose element count divides by K - K.",
     {LAYOUTS: edit_real(LAYOUTS, ("    cols: 8\n    elements: 4\n", '    cols: 8\n    elements: "4 + 0 // (K - K)"\n'))},
     [(LAYOUTS, "  wgmma.a.k8:", "division by zero")])

case("formula_division_by_zero_in_regs",
     "A register formula dividing by K - 16, zero for sparse tf32.",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', 'a: {layout: wgmma.a.k8, regs: "4 + 0 // (K - 16)"}'))},
     [(SP, "K - 16", "division by zero")])

case("formula_division_by_zero_per_thread",
     "A layout column formula with a per-thread division by zero hidden behind 0*: numpy floor "
     "division by zero yields 0 with a warning instead of an error.",
     {LAYOUTS: edit_real(LAYOUTS, ('col: "t%4 + 4*(i//2)"', 'col: "t%4 + 4*(i//2) + 0*(t // (K - K))"'))},
     [(LAYOUTS, "  wgmma.a.k8:", "division by zero")])

case("formula_division_by_zero_never_evaluated",
     "A descriptor encode formula that always divides by zero.",
     {SMEM: edit_real(SMEM, ('      width: 3\n      encode: "x"', '      width: 3\n      encode: "x // 0"'))},
     [(SMEM, "x // 0", "division by zero")])

case("formula_negative_shift",
     "A register formula with a negative shift count.",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', 'a: {layout: wgmma.a.k8, regs: "4 >> (K - 17)"}'))},
     [(SP, "K - 17", "")])

case("formula_int_overflow_in_layout",
     "A layout formula whose constant overflows int64 when applied to the thread index array.",
     {LAYOUTS: edit_real(LAYOUTS, ('col: "t%4 + 4*(i//2)"', 'col: "t%4 + 4*(i//2) + 0*(t * 2**64)"'))},
     [(LAYOUTS, "  wgmma.a.k8:", "")])

case("formula_negative_element_count",
     "A layout with -1 elements per thread.",
     {LAYOUTS: edit_real(LAYOUTS, ("    cols: 8\n    elements: 4\n", "    cols: 8\n    elements: -1\n"))},
     [(LAYOUTS, "  wgmma.a.k8:", "")])

case("formula_huge_element_count",
     "A layout with 2**40 elements per thread.",
     {LAYOUTS: edit_real(LAYOUTS, ("    cols: 8\n    elements: 4\n", '    cols: 8\n    elements: "2**40"\n'))},
     [(LAYOUTS, "  wgmma.a.k8:", "")], isolate=True)

case("formula_power_tower",
     "A 38-character register formula that evaluates to a 2**(40*64**5)-sized integer.",
     {SP: sp_min(('a: {layout: wgmma.a.k8, regs: "4"}', 'a: {layout: wgmma.a.k8, regs: "((((((2**40)**64)**64)**64)**64)**64)"}'))},
     [(SP, "2**40", "")],
     isolate=True)

case("sparsity_division_by_zero",
     "A sparsity `contributes` formula that divides by K - 32 (zero for f16 m64nNk32).",
     {LAYOUTS: edit_real(LAYOUTS, ('    contributes: "(t%4)//2 == sel"\n    row: "16*(t//32) + (t%32)//4 + 8*(n//4)"\n    chunk_index: "4*(t%2) + n%4"\n    valid_nibbles: [0x4, 0x8',
                                   '    contributes: "(t%4)//2 == sel // (K - 32)"\n    row: "16*(t//32) + (t%32)//4 + 8*(n//4)"\n    chunk_index: "4*(t%2) + n%4"\n    valid_nibbles: [0x4, 0x8'))},
     [(LAYOUTS, "  wgmma.sparse.16bit:", "division by zero")])

# =============================================================================================
# Opcode templates, refinements, errata, smem, target sets

case("opcode_unknown_placeholder",
     "An opcode template with a misspelt placeholder.",
     {FENCE: edit_real(FENCE, ('opcode: "wgmma.fence.sync.aligned"', 'opcode: "wgmma.fence.sync.aligned{satfinte}"'))},
     [(FENCE, "opcode:", "unknown opcode placeholder {satfinte} (did you mean 'satfinite'?)")])

case("opcode_unbalanced_brace",
     "An opcode template with an unclosed `{`.",
     {FENCE: edit_real(FENCE, ('opcode: "wgmma.fence.sync.aligned"', 'opcode: "wgmma.fence.sync.aligned{m"'))},
     [(FENCE, "opcode:", "malformed placeholder in opcode template")])

case("refinement_matches_nothing",
     "A refinement whose `when` matches no variant of the instruction.",
     {SP: sp_min(('requires:\n  - {ptx: "8.2", targets: sm_90a}\n',
                  'requires:\n  - {ptx: "8.2", targets: sm_90a}\nrefinements:\n'
                  '  - when: {atype: tf32, k: 8}\n    requires: {ptx: "8.4"}\n'
                  '    why: "tf32 at K=8 is dense only."\n'))},
     [(SP, "  - when: {atype: tf32, k: 8}", "refinement matches no variant")])

case("refinement_cascade_after_unknown_type",
     "An unknown type in the integer group: the one real problem must not make the group's "
     "refinements report that they match nothing.",
     {SP: edit_real(SP, ("types: {use: s8u8}", "types: {atype: [s8, u8], btype: [s8, u8], dtype: [s33]}"))},
     [(SP, "dtype: [s33]", "unknown type 's33' (did you mean 's32'?)")])

case("errata_cascade_after_bad_group",
     "An unknown layout in dense f16: the one real problem must not also fail the errata that "
     "cite dense f16 opcodes.",
     {DENSE: edit_real(DENSE, ("  - {name: f16, shape: {k: [16]}, types: {use: f16}}",
                               "  - {name: f16, shape: {k: [16]}, types: {use: f16}, fragments: {a: wgmma.a.k61}}"))},
     [(DENSE, "wgmma.a.k61", "unknown layout 'wgmma.a.k61'")])

case("erratum_present_not_in_database",
     "An erratum lists as present an opcode the database does not have.",
     {ERRATA: edit_real(ERRATA, ("        - wgmma.mma_async.sync.aligned.m64n240k32.s32.s8.s8",
                                 "        - wgmma.mma_async.sync.aligned.m64n264k32.s32.s8.s8"))},
     [(ERRATA, "m64n264k32", "erratum wgmma-integer-n-list: wgmma.mma_async.sync.aligned.m64n264k32.s32.s8.s8 is not a variant")])

case("erratum_absent_in_database",
     "An erratum lists as absent an opcode the database has.",
     {ERRATA: edit_real(ERRATA, ("        - wgmma.mma_async.sync.aligned.m648176k16.f32.f16.f16",
                                 "        - wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16"))},
     [(ERRATA, ("- wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16", 2),
       "is a variant of the spec, but the evidence lists it as absent")])

case("descriptor_fields_overlap",
     "base_offset moved to bit 45, inside stride_byte_offset (bits 32-45).",
     {SMEM: edit_real(SMEM, ("      lsb: 49\n", "      lsb: 45\n"))},
     [(SMEM, "    - name: base_offset", "field base_offset overlaps another field")])

case("descriptor_field_past_bit_63",
     "The swizzle field widened to 4 bits at bit 62.",
     {SMEM: edit_real(SMEM, ("      lsb: 62\n      width: 2\n", "      lsb: 62\n      width: 4\n"))},
     [(SMEM, "    - name: swizzle", "field swizzle runs past bit 63")])

case("swizzle_codes_shared",
     "Two swizzle modes with code 1.",
     {SMEM: edit_real(SMEM, ("{name: 64B, code: 2,", "{name: 64B, code: 1,"))},
     [(SMEM, "swizzle_modes:", "two swizzle modes share a code")])

case("target_set_empty",
     "`requires` whose target set is an empty intersection.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: {all_of: [sm_90a, sm_100a]}}')},
     [(COMMIT, "all_of", "target set is empty")])


# =============================================================================================
# Warp-level mma: batches, ptxas-only variants, containers, pair-wise sparsity

MMA = "families/mma/mma.yaml"
MMA_SP = "families/mma/mma_sp.yaml"
MMA_LAYOUTS = "layouts/mma.yaml"
MMA_FAMILY = "families/mma/family.yaml"

case("ptxas_only_unknown_erratum",
     "A group beyond the manual names an erratum that does not exist.",
     {MMA: edit_real(MMA, ("{name: bf16_m8n8k4, ptxas_only: mma-m8n8k4-bf16-tf32-beyond-manual,",
                           "{name: bf16_m8n8k4, ptxas_only: mma-m8n8k4-bf16-beyond-manual,"))},
     [(MMA, "  - {name: bf16_m8n8k4", "ptxas_only names unknown erratum 'mma-m8n8k4-bf16-beyond-manual' "
                                      "(did you mean 'mma-m8n8k4-bf16-tf32-beyond-manual'?)")])

case("batch_mismatches_layout",
     "m8n8k4 .f16 with batch 2: the quad-pair layouts cover four stacked products.",
     {MMA: edit_real(MMA, ("{name: f16_m8n8k4_f16, requires: {use: from_sm70}, batch: 4,",
                           "{name: f16_m8n8k4_f16, requires: {use: from_sm70}, batch: 2,"))},
     [(MMA, 'quad_pairs: {a: "mma.m8n8k4.qp.a.{alayout}"',
       "layout mma.m8n8k4.qp.a.row covers a 32x4 matrix but A of m8n8k4 is 16x4 (2 stacked products)")])

case("container_shift_outside_container",
     "e2m1 placed at bit 6 of its 8-bit container: the element no longer fits.",
     {TYPES: edit_real(TYPES, ("    container_shift: 2\n    format:", "    container_shift: 6\n    format:"))},
     [(TYPES, "  - name: e2m1", "type e2m1: a 4-bit element at bit 6 does not fit its 8-bit container")])

case("pairwise_sparsity_wrong_unit_elements",
     "The 4-bit k64 sparsity with one element per unit: its chunks no longer tile the rows of A.",
     {MMA_LAYOUTS: edit_real(MMA_LAYOUTS, ("    unit_bits: 8\n    unit_elements: 2\n    element_units: 1\n    chunk: 4\n    kept: 2\n    selectors: [0, 1]\n",
                                           "    unit_bits: 8\n    unit_elements: 1\n    element_units: 1\n    chunk: 4\n    kept: 2\n    selectors: [0, 1]\n"))},
     [(MMA_LAYOUTS, "  mma.sparse.4bit.k64:",
       "sparsity mma.sparse.4bit.k64 for m16n8k64: selector 0: 16 threads x 8 nibbles describe 128 chunks, "
       "but A has 16 rows x 16 chunks")])


# =============================================================================================
# Several problems at once: every one is reported, not just the first

case("several_files_read_level",
     "A tab in one file, an ambiguous boolean in a second and an unknown key in a third.",
     {FENCE: edit_real(FENCE, ("\n    signature: none", "\n\tsignature: none")),
      TYPES: edit_real(TYPES, ("{name: s8, register: b32, class: int, bits: 8, signed: true}",
                               "{name: s8, register: b32, class: int, bits: 8, signed: yes}")),
      COMMIT: edit_real(COMMIT, ("groups:\n  - name: commit_group\n", "groups:\n  - name: commit_group\n    descripton: x\n"))},
     [(FENCE, "\tsignature: none", "YAML syntax:"),
      (TYPES, "signed: yes", "ambiguous scalar 'yes'"),
      (COMMIT, "descripton: x", "unknown key 'descripton' (did you mean 'description'?)")])

case("several_files_model_level",
     "An unknown target, overlapping descriptor fields and a missing erratum opcode, in three files.",
     {COMMIT: spelled_out(COMMIT, '{ptx: "8.0", targets: sm_91a}'),
      SMEM: edit_real(SMEM, ("      lsb: 49\n", "      lsb: 45\n")),
      ERRATA: edit_real(ERRATA, ("        - wgmma.mma_async.sync.aligned.m64n240k32.s32.s8.s8",
                                 "        - wgmma.mma_async.sync.aligned.m64n264k32.s32.s8.s8"))},
     [(COMMIT, "targets: sm_91a", "unknown target 'sm_91a'"),
      (SMEM, "    - name: base_offset", "field base_offset overlaps another field"),
      (ERRATA, "m64n264k32", "is not a variant of the spec")])

# =============================================================================================
# Issue 18: inputs that crashed the tools or vanished silently

LOAD_A = "families/wmma/load_a.yaml"

case("yaml_nesting_30000",
     "30,000 nested flow sequences in isa.yaml: libyaml's composer recursed in C and the process died "
     "by a signal; the depth is now bounded before any composer runs.",
     {ISA: real(ISA) + "x: " + "[" * 30000 + "]" * 30000 + "\n"},
     [(ISA, "x: [[[", "nesting deeper than 64 levels")], isolate=True)

case("integer_of_4301_digits",
     "An integer literal of 4,301 digits (beyond Python's int() limit) as a family's thread count.",
     {FAMILY: edit_real(FAMILY, ("threads: 128", "threads: " + "1" * 4301))},
     [(FAMILY, "threads: 111", "integer 111111111111...11111111 (4301 characters) is out of range: "
                               "spec integers fit in 64 bits")])

case("integer_beyond_64_bits",
     "2**64 written out as a shape's k.",
     {WAIT: edit_real(WAIT, ("values: {min: 0}", "values: {min: 18446744073709551616}"))},
     [(WAIT, "values: {min: 1844", "integer 18446744073709551616 is out of range")])

case("formula_2_pow_64_in_layout",
     "`2**64` added to a fragment row formula: numpy overflowed converting it.",
     {LAYOUTS: edit_real(LAYOUTS, ('    elements: 8\n    row: "16*(t//32) + (t%32)//4 + 8*((i//2)%2)"',
                                   '    elements: 8\n    row: "2**64 + 16*(t//32) + (t%32)//4 + 8*((i//2)%2)"'))},
     [(LAYOUTS, "  wgmma.a.k16:", "can reach 18446744073709551616: formula values must stay within +-2**62")])

case("range_of_a_quarter_billion",
     "The upper end of wgmma's N range raised to 2**31 (fuzz seed 23, tree 373): the set was expanded "
     "into a list before the shape bounds could refuse it, and validate died of MemoryError.",
     {FAMILY: edit_real(FAMILY, ("all: {range: [8, 256, 8]}", "all: {range: [8, 2147483648, 8]}"))},
     [(FAMILY, "all: {range: [8, 2147483648", "has 268,435,456 members; a spec set holds at most 4,096")])

case("numerics_rule_value_no_variant_has",
     "A carriage return inside a numerics rule's flow list (fuzz seed 23, tree 6064) folded 's8' into 's 8': "
     "the rule no longer matched the s8 variants and validate accepted it.",
     {"numerics.yaml": edit_real("numerics.yaml", ("atype: [s8, u8, s4, u4]", "atype: [s\r8, u8, s4, u4]"))},
     [("numerics.yaml", "- when: {atype: [s", "numerics rule tests atype = 's 8', which is no atype of the spec (did you mean 's8'?)")])

case("registers_beyond_a_thread",
     "A register count formula replaced by 2**62 (fuzz seed 23, tree 3177): validate accepted it and the "
     "build died of a MemoryError sizing the operand.",
     {"families/tcgen05/ld_red_spcompress.yaml": edit_real("families/tcgen05/ld_red_spcompress.yaml",
                                                          ('kept_index: {regs: "(N + 31) // 32"}', 'kept_index: {regs: "2**62"}'))},
     [("families/tcgen05/ld_red_spcompress.yaml", 'kept_index: {regs: "2**62"}',
       "is 4611686018427387904; a thread has at most 255 registers")])

_MASK = "descriptors/tcgen05_zero_column_mask.yaml"
case("descriptor_legal_value_beyond_formulas",
     "A legal value of a descriptor field raised to 2**63-1 (fuzz seed 23, tree 22159): encoding it "
     "raised the formula range error outside any check, and validate ended in an internal error.",
     {_MASK: edit_real(_MASK, ('encode: "x", legal: [0, 1], description: "First span of sub-mask 2."',
                               'encode: "x", legal: [0x7fffffffffffffff, 1], description: "First span of sub-mask 2."'))},
     [(_MASK, "legal: [0x7fffffffffffffff", "field fs2: legal input 9223372036854775807: 'x' is 9223372036854775807 "
       "here: formula values must stay within +-2**62")])

case("descriptor_selector_misspelt",
     "A zero-column-mask layout's selector misspelt 'ctagroup::1' (fuzz seed 23, tree 37981): the field "
     "whose legal values are given per selector read the whole map as one set, and validate died (KeyError).",
     {_MASK: edit_real(_MASK, ('kinds: ["cta_group::1"]', 'kinds: ["ctagroup::1"]'))},
     [(_MASK, 'kinds: ["ctagroup::1"]', "'ctagroup::1' is not a value of axis cta_group"),
      (_MASK, 'legal: {"cta_group::1": {range: [0, 32, 1]}}', "legal: cta_group::1 is not a selector value of this layout")])

case("range_beyond_machine_sizes",
     "A legal range of a descriptor field up to 2**63-1 (fuzz seed 23, tree 39038): counting its members "
     "overflowed (OverflowError) before the bound on a set's size could refuse it.",
     {_MASK: edit_real(_MASK, ('legal: {"cta_group::1": {range: [0, 32, 1]}}',
                               'legal: {"cta_group::1": {range: [0, 0x7fffffffffffffff, 1]}}'))},
     [(_MASK, "range: [0, 0x7fffffffffffffff, 1]", "has 9,223,372,036,854,775,808 members; a spec set holds at most 4,096")])

_IDESC = "descriptors/tcgen05.yaml"
_TMEM = "layouts/tcgen05.yaml"  # tcgen05's tensor-memory placements and sparsity (`tmem:`, `sparsity:`)
case("tmem_layout_dividing_by_zero",
     "Layout G's lane formula dividing N by 1,000,000 (fuzz seed 23, tree 84399): validate accepted it "
     "and the build died drawing the layout (ExprError: division by zero).",
     {_TMEM: edit_real(_TMEM, ('lane: "m + 32 * (n // (N // 4))"', 'lane: "m + 32 * (n // (N // 1000000))"'))},
     [(_TMEM, 'lane: "m + 32 * (n // (N // 1000000))"',
       "tmem layout G: division by zero in 'm + 32 * (n // (N // 1000000))' (N = 64)")])

case("tmem_layout_outside_lanes",
     "Layout E putting the second half of N 128 lanes down: D would lie past the 128 lanes of tensor memory.",
     {_TMEM: edit_real(_TMEM, ('lane: "m + 64 * (n // (N // 2))", column: "n % (N // 2)",\n',
                               'lane: "m + 128 * (n // (N // 2))", column: "n % (N // 2)",\n'))},
     [(_TMEM, 'lane: "m + 128 * (n // (N // 2))"', "tmem layout E: D lands in lane 191, outside 0-127 (N = 64)")])

case("tmem_layout_two_elements_in_a_cell",
     "Layout G's column formula folding N by an eighth instead of a quarter: two elements of D share each cell.",
     {_TMEM: edit_real(_TMEM, ('column: "n % (N // 4)"', 'column: "n % (N // 8)"'))},
     [(_TMEM, "    - {id: G", "tmem layout G: two elements of D land in one cell (N = 64)")])

case("scale_factors_in_one_byte",
     "The block-scale factors of A all placed in byte `id` of the cell (s dropped): four factors per byte.",
     {_TMEM: edit_real(_TMEM, ('column: "r // 32", byte: "id + s",\n       description: "Row r',
                               'column: "r // 32", byte: "id",\n       description: "Row r'))},
     [(_TMEM, 'byte: "id",', "scale-factor layout sf_a: two factors land in one byte (row 0 factor 0 copy 0 and "
                             "row 0 factor 1 copy 0")])

case("tmem_shape_wider_than_tensor_memory",
     "A .ws shape allowing N = 100,000,000: checking the data-path layouts at that N would have "
     "allocated 95 GiB (found in review of the layout check, before it landed in a release).",
     {_IDESC: edit_real(_IDESC, ("m: [32, 64, 128], n: [64, 128, 256]", "m: [32, 64, 128], n: [64, 128, 100000000]"))},
     [(_IDESC, "n: [64, 128, 100000000]", "n: N = 100000000 is no shape of layout dense: field n: 100000000 cannot be "
                                          "encoded in 6 bits")],
     isolate=True)

case("descriptor_shape_n_zero",
     "An N of 0 (written -0) among kind::i8's N values (fuzz seed 23, tree 109978): the tensor-memory "
     "layout check met an empty D and validate died (ValueError).",
     {_IDESC: edit_real(_IDESC, ("144, 160, 176", "144, -0, 176"))},
     [(_IDESC, "144, -0, 176", "n: N = 0 is not a size (at least 1)")])

case("descriptor_combination_unknown_field",
     "A Table 39 type combination of the idesc naming a field the layout has not (dtpe): it would never "
     "apply, and kind::f16 would again encode bf16 inputs into an f16 D.",
     {_IDESC: edit_real(_IDESC, ("when: {dtype: [f16]}", "when: {dtpe: [f16]}"))},
     [(_IDESC, "when: {dtpe: [f16]}",
       "combination when: 'dtpe' is no code field of this layout (atype, btype, dtype, max_shift, sparse)")])

case("descriptor_combination_value_of_no_kind",
     "A Table 39 type combination requiring an A type that kind::f16 cannot hold (e4m3, a code of "
     "kind::f8f6f4 only): every f16 D would be refused.",
     {_IDESC: edit_real(_IDESC, ("then: {atype: [f16], btype: [f16]}", "then: {atype: [e4m3], btype: [f16]}"))},
     [(_IDESC, "then: {atype: [e4m3], btype: [f16]}",
       "combination then: atype 'e4m3' is a value of none of kind::f16 (they have bf16, f16)")])

case("descriptor_combination_kind_of_another_layout",
     "A type combination of the dense idesc layout given for kind::mxf4, whose descriptor has another "
     "layout (Table 44).",
     {_IDESC: edit_real(_IDESC, ('      - kinds: ["kind::f16"]\n        when:', '      - kinds: ["kind::mxf4"]\n        when:'))},
     [(_IDESC, '- kinds: ["kind::mxf4"]',
       "combination: kind::mxf4 does not use this layout (kind::f16, kind::tf32, kind::f8f6f4, kind::i8)")])

case("smem_descriptor_twice",
     "A copy of smem/tcgen05.yaml beside it (fuzz seed 23, tree 135574, found by the review of accepted "
     "trees): validate accepted it and the later file silently replaced the first, so an edited copy "
     "would have changed the descriptor unseen.",
     {"smem/tcgen05_copy.yaml": real("smem/tcgen05.yaml")},
     [("smem/tcgen05_copy.yaml", "family: tcgen05",
       "the shared-memory descriptor of family tcgen05 is defined twice (also ")])

_I8_SHAPES = '  - {kinds: ["kind::i8"], cta_group: "cta_group::1", ws: false, m: [64, 128], n: [8, 16, 24'
case("descriptor_shapes_twice",
     "kind::i8's cta_group::1 shapes given twice (fuzz seed 23, tree 156077): validate accepted it, "
     "descriptors.shapes read only the first, and the build died on the database's key (IntegrityError).",
     {_IDESC: edit_real(_IDESC, (_I8_SHAPES, '  - {kinds: ["kind::i8"], cta_group: "cta_group::1", ws: false, '
                                             'm: [64], n: [8]}\n' + _I8_SHAPES))},
     [(_IDESC, _I8_SHAPES, "the shapes of kind::i8, cta_group::1 is given twice (first at line")])

_UNSTATED = "  kind::ti16: >"
case("descriptor_unstated_kind_with_a_layout",
     "A kind listed as unstated (no layout known, with the reason numerics_status shows) that has a layout: "
     "the spec would say both.",
     {_IDESC: edit_real(_IDESC, (_UNSTATED, '  kind::f16: "no layout"\n' + _UNSTATED))},
     [(_IDESC, 'kind::f16: "no layout"', "unstated: 'kind::f16' has a layout (dense)")])
case("descriptor_unstated_unknown_kind",
     "An unstated selector value that is no value of the selector axis (a typo of kind::ti16).",
     {_IDESC: edit_real(_IDESC, (_UNSTATED, "  kind::t16: >"))},
     [(_IDESC, "kind::t16: >", "unstated: 'kind::t16' is not a value of axis kind")])

# Names the artifacts key their rows by, given twice: validate accepted each, and the build ended in
# exit 3 (an IntegrityError on the database's key, or two figures under one name) or silently kept one.
_SMEM = "smem/wgmma.yaml"
case("smem_swizzle_mode_twice",
     "wgmma's 64B swizzle mode renamed 128B: the build died drawing two figures under one name.",
     {_SMEM: edit_real(_SMEM, ("{name: 64B, code: 2", "{name: 128B, code: 2"))},
     [(_SMEM, "{name: 128B, code: 2", "swizzle mode 128B is given twice (first at line")])
case("smem_major_twice",
     "wgmma's MN major renamed K: two K majors with different transposes, and the build kept one.",
     {_SMEM: edit_real(_SMEM, ("{name: MN, trans: 1", "{name: K, trans: 1"))},
     [(_SMEM, "{name: K, trans: 1", "major K is given twice (first at line")])
case("smem_descriptor_field_twice",
     "wgmma's stride_byte_offset field renamed leading_byte_offset: the build died on descriptor_fields' key.",
     {_SMEM: edit_real(_SMEM, ("- name: stride_byte_offset", "- name: leading_byte_offset"))},
     [(_SMEM, ("- name: leading_byte_offset", 2), "descriptor field leading_byte_offset is given twice")])
case("smem_canonical_layout_twice",
     "wgmma's MN-major interleaved canonical layout relabelled K-major: two K-major unswizzled layouts.",
     {_SMEM: edit_real(_SMEM, ("  - major: MN\n    swizzled: false", "  - major: K\n    swizzled: false"))},
     [(_SMEM, ("  - major: K", 3), "canonical layout K, not swizzled is given twice (first at line")])
# advance_k against the layout it moves in (fuzz seed 36, tree 5612): validate evaluated each
# formula alone, so a bit_offset its own advance_k contradicts loaded.
case("smem_advance_k_contradicts_bit_offset",
     "wgmma's MN-major interleaved bit_offset takes k % 15 where its advance_k steps by k % 8 (fuzz tree 5612).",
     {_SMEM: edit_real(_SMEM, ('(k%8)*128 + (k//8)*LBO*8"', '(k%0o17)*128 + (k//8)*LBO*8"'))},
     [(_SMEM, ('advance_k: {bytes: "(k % 8) * 16', 1), "advance_k at k=8 (none, 16-bit elements, K=16): moves 8192 "
                                                       "bytes, but bit_offset(0, 8) is 66560 bits")])
case("smem_advance_k_legal_too_wide",
     "wgmma's K-major swizzled advance_k also allows moves whose K columns run 128 bits past the swizzle row.",
     {_SMEM: edit_real(_SMEM, ("((k * bits) % (W * 8) + K * bits <= W * 8))", "((k * bits) % (W * 8) + K * bits <= W * 8 + 128))"))},
     [(_SMEM, "K * bits <= W * 8 + 128", "advance_k: legal at k=952 (128B, 16-bit elements, K=16), but "
                                         "bit_offset(0, 964) != bit_offset(0, 12) + bit_offset(0, 952)")])
case("idesc_field_twice",
     "The idesc's negate_b field renamed negate_a: the build died on bit_descriptor_fields' key.",
     {_IDESC: edit_real(_IDESC, ('{name: negate_b, lsb: 14, width: 1, encode: "x", legal: {kind::i8',
                                 '{name: negate_a, lsb: 14, width: 1, encode: "x", legal: {kind::i8'))},
     [(_IDESC, '{name: negate_a, lsb: 14, width: 1, encode: "x", legal: {kind::i8', "layout dense: field negate_a is given twice (first at line")])
case("scale_factors_placed_twice",
     "Layout D listed twice among A's scale-factor data paths: the build died on tmem_scale_layouts' key.",
     {_TMEM: edit_real(_TMEM, ("datapaths: [A, B, D]", "datapaths: [A, B, D, D]"))},
     [(_TMEM, "datapaths: [A, B, D, D]", "the scale-factor placement of scale_a under layout D is given twice")])
case("metadata_layout_twice",
     "kind::f16's sparsity metadata also placed by the 8-bit layout: two placements for one kind and data path.",
     {_TMEM: edit_real(_TMEM, ('kinds: ["kind::f8f6f4", "kind::mxf8f6f4", "kind::i8", "kind::mxf4", "kind::mxf4nvf4"]',
                               'kinds: ["kind::f16", "kind::mxf8f6f4", "kind::i8", "kind::mxf4", "kind::mxf4nvf4"]'))},
     [(_TMEM, 'kinds: ["kind::f16", "kind::mxf8f6f4"', "the metadata layout of kind::f16 under layout A is given twice")])
case("metadata_fields_overlap",
     "The 8-bit metadata layout's bit formula loses its factor 4: chunks share 4-bit fields.",
     {_TMEM: edit_real(_TMEM, ('bit: "4 * (c % 8)"', 'bit: "c % 8"'))},
     [(_TMEM, 'bit: "c % 8"', "metadata layout meta_f8f6f4: a 4-bit field starts at bit 1, not a multiple of 4")])
case("metadata_outside_the_cell",
     "The f16 metadata layout's fields moved 20 bits up: the high rows' fields leave the 32-bit cell.",
     {_TMEM: edit_real(_TMEM, ('bit: "16 * ((r // 8) % 2) + 4 * (c % 4)"', 'bit: "16 * ((r // 8) % 2) + 4 * (c % 4) + 20"'))},
     [(_TMEM, 'bit: "16 * ((r // 8) % 2) + 4 * (c % 4) + 20"', "metadata layout meta_f16: a 4-bit field at bit 32 does not fit")])
case("sparsity_code_keeps_too_few",
     "tcgen05's 1:2 sparsity keeping one of the four index units of its chunk: half of each chunk must be kept.",
     {_TMEM: edit_real(_TMEM, ("element_units: 2, chunk: 4, kept: 2,", "element_units: 2, chunk: 4, kept: 1,"))},
     [(_TMEM, "kept: 1,", "sparsity tcgen05.sparse.1of2: a chunk of 4 units keeps half of them, not 1")])
case("sparsity_code_keeps_a_unit_twice",
     "A 2:4 metadata code (0b1010) that names index unit 2 twice: a chunk keeps two different units.",
     {_TMEM: edit_real(_TMEM, ("&ordered [0x4, 0x8, 0xC", "&ordered [0x4, 0xA, 0xC"))},
     [(_TMEM, "&ordered [0x4, 0xA, 0xC", "sparsity tcgen05.sparse.2of4: valid nibble 0xA keeps unit 2 twice")])
case("tmem_sparsity_in_registers",
     "kind::f16's sparse A described by the warp-level m16n8k16 sparsity, whose metadata sits in registers: "
     "in tensor memory the metadata placements say where it lies.",
     {_TMEM: edit_real(_TMEM, ("kind::f16: tcgen05.sparse.2of4", "kind::f16: mma.sparse.16bit.k16"))},
     [(_TMEM, "kind::f16: mma.sparse.16bit.k16", "sparsity mma.sparse.16bit.k16 maps its metadata to registers")])
case("tmem_sparsity_unknown",
     "A kind's sparsity named with a typo.",
     {_TMEM: edit_real(_TMEM, ("kind::tf32: tcgen05.sparse.1of2", "kind::tf32: tcgen05.sparse.1of3"))},
     [(_TMEM, "kind::tf32: tcgen05.sparse.1of3",
       "unknown sparsity 'tcgen05.sparse.1of3' (did you mean 'tcgen05.sparse.1of2'?)")])
case("metadata_layout_unknown_datapath",
     "The f16 metadata layout names data path X, which no tmem layout has.",
     {_TMEM: edit_real(_TMEM, ('kinds: ["kind::f16"], datapaths: [A, D]', 'kinds: ["kind::f16"], datapaths: [A, X]'))},
     [(_TMEM, "datapaths: [A, X]", "'X' is no tmem layout")])
case("group_sparsity_without_a_register_map",
     "mma.sp's f16 m16n8k16 group given tcgen05's 2:4 sparsity, whose metadata lies in tensor memory: a "
     "warp-level group needs the map of its metadata registers.",
     {"families/mma/mma_sp.yaml": edit_real("families/mma/mma_sp.yaml", (
         "types: {use: f16}, sparsity: mma.sparse.16bit.k16", "types: {use: f16}, sparsity: tcgen05.sparse.2of4"))},
     [("families/mma/mma_sp.yaml", "sparsity: tcgen05.sparse.2of4", "sparsity 'tcgen05.sparse.2of4' maps no metadata "
       "to registers (selectors, contributes, row, chunk_index): a group's sparse A needs that map")])
case("tmem_placements_in_the_descriptor",
     "A copy of the spec written before issue 29 moved the placements: tmem_layouts in the descriptor file. "
     "validate names where they live now (ptxspec diff reads such a tree as today's).",
     {_IDESC: real(_IDESC) + "tmem_layouts: []\n"},
     [(_IDESC, "tmem_layouts: []", "unknown key 'tmem_layouts': it moved to the family's layouts file "
                                   "(`tmem: datapaths`)")])

# Issue 30, items 1-5: descriptor shapes against their encodings and data paths, code tables one to
# one, scale-factor placements for every legal id, copy and row, A's lanes, K per kind. Each validated
# before (fuzz.py kept them out of its edits until validate refused them).
_F16_CTA1 = 'cta_group: "cta_group::1", ws: false, m: [64, 128], n: {range: [8, 256, 8]}'
case("idesc_shape_m_not_encodable",
     "cta_group::1's M = 64 of the dense kinds changed to 72: the idesc holds M in units of 16.",
     {_IDESC: edit_real(_IDESC, (_F16_CTA1, _F16_CTA1.replace("m: [64, 128]", "m: [72, 128]")))},
     [(_IDESC, "m: [72, 128]", "m: M = 72 is no shape of layout dense: field m: 72 cannot be encoded in 5 bits")])
case("idesc_shape_n_step_4",
     "cta_group::1's N range of the dense kinds in steps of 4: the idesc holds N in units of 8.",
     {_IDESC: edit_real(_IDESC, (_F16_CTA1, _F16_CTA1.replace("[8, 256, 8]", "[8, 256, 4]")))},
     [(_IDESC, "[8, 256, 4]", "n: N = 12 is no shape of layout dense: field n: 12 cannot be encoded in 6 bits")])
case("idesc_shape_m_1024",
     "An M of 1024: the dense layout's 5-bit M field holds at most 496.",
     {_IDESC: edit_real(_IDESC, (_F16_CTA1, _F16_CTA1.replace("m: [64, 128]", "m: [1024]")))},
     [(_IDESC, "m: [1024]", "m: M = 1024 is no shape of layout dense: field m: 1024 cannot be encoded in 5 bits")])
case("idesc_shape_m_sparse_512",
     "The block-scaled kinds' sparse M with two CTAs changed to 512: their 2-bit M field (units of 128) stops at 384.",
     {_IDESC: edit_real(_IDESC, ("m_sparse: [256]", "m_sparse: [512]"))},
     [(_IDESC, "m_sparse: [512]", "m_sparse: M = 512 is no shape of layout mxf8f6f4: field m: 512 cannot be encoded")])
case("idesc_shape_n_sparse_100",
     "The sparse .ws N values given as 64 and 100: N is a multiple of 8.",
     {_IDESC: edit_real(_IDESC, ("n_sparse: [64, 128]", "n_sparse: [64, 100]"))},
     [(_IDESC, "n_sparse: [64, 100]", "n_sparse: N = 100 is no shape of layout dense: field n: 100 cannot be encoded")])
case("idesc_shape_without_datapath",
     "cta_group::1's M = 64 (not .ws) changed to 32: the idesc encodes it, but no data-path layout places "
     "M = 32 without .ws, so the executor could not run it.",
     {_IDESC: edit_real(_IDESC, (_F16_CTA1, _F16_CTA1.replace("m: [64, 128]", "m: [32, 128]")))},
     [(_IDESC, "m: [32, 128]", "m: no TMEM data-path layout for M = 32, cta_group::1, dense (no tmem layout places it)")])
case("idesc_codes_share_a_code",
     "kind::f16's D types f16 and f32 both given code 1: decoding could not tell them apart.",
     {_IDESC: edit_real(_IDESC, ("kind::f16: {f16: 0, f32: 1}", "kind::f16: {f16: 1, f32: 1}"))},
     [(_IDESC, "kind::f16: {f16: 1, f32: 1}", "field dtype: 'f32' has code 1, as 'f16' has for kind::f16: a code "
                                             "names one value")])
case("idesc_codes_share_a_code_in_a_shared_table",
     "kind::f8f6f4's e4m3 and e5m2 both code 0, in the table atype and btype share (a YAML anchor).",
     {_IDESC: edit_real(_IDESC, ("kind::f8f6f4: {e4m3: 0, e5m2: 1,", "kind::f8f6f4: {e4m3: 0, e5m2: 0,"))},
     [(_IDESC, "{e4m3: 0, e5m2: 0,", "field atype: 'e5m2' has code 0, as 'e4m3' has for kind::f8f6f4")])
case("idesc_max_shift_code_twice",
     "max_shift's 8 and 16 columns both given code 1.",
     {_IDESC: edit_real(_IDESC, ('"16": 2, "32": 3}', '"16": 1, "32": 3}'))},
     [(_IDESC, '"16": 1, "32": 3}', "field max_shift: '16' has code 1, as '8' has: a code names one value")])
case("tmem_scale_byte_past_the_cell",
     "A's scale factors from byte 2 * id + s: id = 2, which kind::mxf4's idesc allows, puts its two factors in "
     "bytes 4 and 5, past the 32-bit cell.",
     {_TMEM: edit_real(_TMEM, ('column: "r // 32", byte: "id + s",\n       description: "Row r',
                               'column: "r // 32", byte: "2 * id + s",\n       description: "Row r'))},
     [(_TMEM, 'byte: "2 * id + s"', "scale-factor layout sf_a: 2 factors from byte 2 do not fit in a 32-bit cell "
                                    "(those of row 0 land in bytes 4 to 5) (kind::mxf4")])
case("tmem_scale_copies_in_one_cell",
     "A's scale factors placed by lane r % 32 alone (and B's, which share the formula): the four copies, one per "
     "32-lane partition, fall in one cell.",
     {_TMEM: edit_real(_TMEM, ('lane: &by_row "r % 32 + 32 * q"', 'lane: &by_row "r % 32"'))},
     [(_TMEM, 'lane: &by_row "r % 32"', "scale-factor layout sf_a: two factors land in one byte (row 0 factor 0 "
                                        "copy 0 and row 0 factor 0 copy 1"),
      (_TMEM, "lane: *by_row", "scale-factor layout sf_b: two factors land in one byte")])  # B's rows share it
case("tmem_scale_b_columns_fold",
     "B's scale factors in column (r % 128) // 32: columns r and r + 128 of B (N = 256) share their cells.",
     {_TMEM: edit_real(_TMEM, ('lane: *by_row, column: "r // 32"', 'lane: *by_row, column: "(r % 128) // 32"'))},
     [(_TMEM, 'column: "(r % 128) // 32"', "scale-factor layout sf_b: two factors land in one byte (row 0 factor 0 "
                                           "copy 0 and row 128 factor 0 copy 0")])
case("tmem_a_lanes_two_rows_in_a_lane",
     "Layout A holding row m of A in lane m // 2: rows 0 and 1 in one lane (only its range was checked).",
     {_TMEM: edit_real(_TMEM, ('ws: false}], a_lanes: ["m"],', 'ws: false}], a_lanes: ["m // 2"],'))},
     [(_TMEM, 'a_lanes: ["m // 2"]', "tmem layout A: rows 0 and 1 of A (copies 0, 0) land in lane 0: a row of A "
                                     "takes a lane of its own")])
case("idesc_k_not_the_element_width",
     "kind::f16's K given as 17: a row of A gives the instruction 256 bits, 16 f16 elements.",
     {_IDESC: edit_real(_IDESC, ("kind::f16: 16", "kind::f16: 17"))},
     [(_IDESC, "kind::f16: 17", "k: kind::f16 is 17, but a row of A gives the instruction 256 bits (Table 39): K = 16 "
                                "for its 16-bit elements")])

_WS = "families/tcgen05/mma_ws.yaml"
case("refinement_leaves_variant_nowhere",
     "tcgen05.mma.ws's sm_100f alternative deleted (fuzz seed 23, tree 104355): kind::ti16's refinement to "
     "the sm_107f family then left its variants valid on no target; validate accepted them and the build "
     "died drawing their requirement table (min() of nothing).",
     {_WS: edit_real(_WS, ('requires: {use: targets}', 'requires:\n  - {ptx: "8.6", targets: sm_100a}\n'
                                                             '  - {ptx: "9.0", targets: {family: sm_110f}}'))},
     [(_WS, '  - when: {kind: "kind::ti16"}',
       "this refinement leaves tcgen05.mma.ws.cta_group::1.kind::ti16 valid on no target")])

case("refinement_leaves_option_nowhere",
     "A refinement restricting one collector option of tcgen05.mma.ws to sm_120a, which the instruction "
     "never requires: the option would have vanished from every variant without a word.",
     {_WS: edit_real(_WS, ('    why: ".kind::i8 only on sm_100a and sm_110a."\n',
                           '    why: ".kind::i8 only on sm_100a and sm_110a."\n'
                           '  - when: {collector_b: "collector::b0::fill"}\n'
                           '    requires: {targets: sm_120a}\n'
                           '    why: "wrong on purpose."\n'))},
     [(_WS, '  - when: {collector_b: "collector::b0::fill"}',
       "this refinement leaves option .collector::b0::fill valid on no target")])

case("smem_encode_not_a_bit_routing",
     "wgmma's descriptor start_address encoded by the constant 1 (fuzz seed 23, tree 89532): validate "
     "accepted it, and the C++ bindings died inverting it (ValueError).",
     {"smem/wgmma.yaml": edit_real("smem/wgmma.yaml", ('encode: "(x & 0x3FFFF) >> 4"\n      description: Shared',
                                                       'encode: "1"\n      description: Shared'))},
     [("smem/wgmma.yaml", 'encode: "1"',
       "encode: descriptor field start_address: bits 0 and 1 both land on field bit 0")])

_LD_RED = "families/tcgen05/ld_red.yaml"
case("regs_of_a_group_sharing_a_layout",
     "A wrong register count in a group whose layout another group had checked at the same shape "
     "(fuzz seed 23, tree 8913): the check was remembered per layout and shape, so this group's own "
     "formula was never evaluated and validate accepted it.",
     {_LD_RED: edit_real(_LD_RED, ('fragments: {tile: "tcgen05.{tmem_shape}"}',
                                   'fragments: {tile: {layout: "tcgen05.{tmem_shape}", regs: "N * K * M // 16"}}'))},
     [(_LD_RED, 'regs: "N * K * M // 16"', "regs says 4 registers for TILE of m32n2k1 in group 'red'")])

case("target_family_not_its_arch",
     "sm_107f stated to be of family 7, in the key that spec revisions before the family was derived "
     "state (fuzz seed 23; with 2**63-1, tree 3042, the build died): its `f` code would have run on Volta.",
     {"isa.yaml": edit_real("isa.yaml", ('{name: sm_107f, arch: 107, suffix: f,',
                                         '{name: sm_107f, arch: 107, suffix: f, family: 7,'))},
     [("isa.yaml", "{name: sm_107f,", "target sm_107f has family 7; sm_107 is of family 10")])

case("formula_constant_beyond_range",
     "A canonical layout's bit offset replaced by the constant 2**64: nothing evaluated it with arrays, "
     "so it validated.",
     {SMEM: edit_real(SMEM, ('    bit_offset: "(mn%8)*128 + (mn//8)*SBO*8 + (k*bits)%128 + ((k*bits)//128)*LBO*8"',
                             '    bit_offset: "2**64"'))},
     [(SMEM, 'bit_offset: "2**64"', "'2**64' is 18446744073709551616 here")])

case("formula_wraps_in_int64",
     "A row formula whose product wraps around in numpy's 64-bit integers (t * 2**40 * 2**30).",
     {LAYOUTS: edit_real(LAYOUTS, ('    elements: 8\n    row: "16*(t//32) + (t%32)//4 + 8*((i//2)%2)"',
                                   '    elements: 8\n    row: "t * 2**40 * 2**30 + 16*(t//32) + (t%32)//4 + 8*((i//2)%2)"'))},
     [(LAYOUTS, "  wgmma.a.k16:", "formula values must stay within +-2**62")])

case("group_types_without_dtype",
     "A group whose `types` lacks dtype while it maps D (KeyError: '').",
     {DENSE: edit_real(DENSE, ("types: {use: f16}}", "types: {atype: [f16], btype: [f16]}}"))},
     [(DENSE, "defaults: {use: mma_group, fragments: {a:",
       "group 'f16' maps a fragment of D but its types give D no type (dtype)")])

for name, body in (("dashes", "---\n"), ("tilde", "~\n"), ("null", "null\n")):
    case(f"empty_document_{name}",
         f"An instruction file holding only {body.strip()!r}: the instruction vanished silently.",
         {WAIT: body}, [(WAIT, 1, "the document is empty (null)")])

case("extension_uppercase",
     "load_a.yaml renamed load_a.YAML: its 124 variants vanished silently.",
     {LOAD_A.replace(".yaml", ".YAML"): real(LOAD_A)},
     [(LOAD_A.replace(".yaml", ".YAML"), 1, "spec files end in exactly '.yaml'")], delete=[LOAD_A])

case("extension_yml",
     "An errata file spelled .yml.",
     {"errata/wgmma.yml": real(ERRATA)},
     [("errata/wgmma.yml", 1, "spec files end in exactly '.yaml'")], delete=[ERRATA])

case("editor_backup_file",
     "An editor's backup copy (fence.yaml~) beside the real file.",
     {FENCE + "~": real(FENCE)},
     [(FENCE + "~", 1, "spec files end in exactly '.yaml'")])

case("not_a_spec_file",
     "A README in the spec tree.",
     {"families/README.md": "# families\n"},
     [("families/README.md", 1, "not a spec file")])

case("file_in_unexpected_place",
     "The wgmma errata moved into layouts/.",
     {"layouts/wgmma_errata.yaml": real(ERRATA)},
     [("layouts/wgmma_errata.yaml", "kind: errata",
       "an errata file does not belong at layouts/wgmma_errata.yaml: errata files go at errata/*.yaml")],
     delete=[ERRATA])

case("instruction_at_top_level",
     "An instruction file at the top of the spec tree.",
     {"wait_group.yaml": real(WAIT)},
     [("wait_group.yaml", "kind: instruction", "instruction files go at families/{family}/*.yaml")], delete=[WAIT])

case("duplicated_instruction_file_renamed",
     "mma_async.yaml copied under another instruction name: 1,092 'defined twice' lines before, now "
     "one per group with a count.",
     {"families/wgmma/mma_async2.yaml": edit_real(DENSE, ("name: wgmma.mma_async\n", "name: wgmma.mma_async2\n"))},
     [("families/wgmma/mma_async2.yaml", "  - {name: f16,", "(and 127 more like it)"),
      ("families/wgmma/mma_async2.yaml", "  - {name: bf16,", "(and 63 more like it)"),
      ("families/wgmma/mma_async2.yaml", "  - {name: tf32,", "(and 63 more like it)"),
      ("families/wgmma/mma_async2.yaml", "  - {name: fp8,", "(and 511 more like it)"),
      ("families/wgmma/mma_async2.yaml", "  - {name: integer,", "(and 287 more like it)"),
      ("families/wgmma/mma_async2.yaml", "  - {name: b1,", "(and 35 more like it)")])

# =============================================================================================
# Issue 18: trees that validated but made no sense (the invariants of ptxspec.loading.checks)

WMMA_FAMILY = "families/wmma/family.yaml"

case("shape_k_negative",
     "k: [-1] in a group: variants named m64n8k-1 appeared in query.",
     {DENSE: edit_real(DENSE, ("{name: f16, shape: {k: [16]}", "{name: f16, shape: {k: [-1]}"))},
     [(DENSE, "k: [-1]", "-1 is less than the minimum of 1")])

case("shape_m_10_pow_30",
     "m of 10**30 in a group (validate passed, build died).",
     {DENSE: edit_real(DENSE, ("{name: f16, shape: {k: [16]}",
                               "{name: f16, shape: {m: [1000000000000000000000000000000], k: [16]}"))},
     [(DENSE, "m: [1000000", "integer 100000000000...00000000 (31 characters) is out of range")])

case("n_set_beyond_256",
     "wgmma's n_set `all` running to N = 416.",
     {FAMILY: edit_real(FAMILY, ("  all: {range: [8, 256, 8]}", "  all: {range: [8, 416, 8]}"))},
     [(FAMILY, "  all: {range", "N = 264 is outside the ISA's bounds for wgmma (8 to 256 in multiples of 8, "
                                 "family.yaml shape_bounds) (and 19 more like it)")])

case("group_n_416",
     "A group listing N = 416 (wgmma's N stops at 256).",
     {DENSE: edit_real(DENSE, ("{name: tf32, shape: {k: [8]}", "{name: tf32, shape: {n: [8, 416], k: [8]}"))},
     [(DENSE, "n: [8, 416]", "N = 416 is outside the ISA's bounds for wgmma")])

case("family_without_shape_bounds",
     "wmma's family.yaml without its shape bounds.",
     {WMMA_FAMILY: edit_real(WMMA_FAMILY, ("shape_bounds:\n  m: {min: 8, max: 32, multiple_of: 8}\n"
                                           "  n: {min: 8, max: 32, multiple_of: 8}\n  k: {min: 4, max: 128, multiple_of: 4}\n",
                                           ""))},
     [(WMMA_FAMILY, "$schema", "family wmma has shapes but states no shape_bounds")])

case("shape_bounds_without_k",
     "wmma's shape_bounds without k (only a family whose shapes have no K, as ldmatrix's, may leave it out).",
     {WMMA_FAMILY: edit_real(WMMA_FAMILY, ("  k: {min: 4, max: 128, multiple_of: 4}\n", ""))},
     [(WMMA_FAMILY, "shape_bounds:", "family wmma has shapes with K but its shape_bounds state no bound for K")])

case("qualifier_left_empty",
     "A group of mma.sp without a value of spvariant ('' made a value of the axis): its opcodes read mma..sync.",
     {MMA_FAMILY: edit_real(MMA_FAMILY, ('values: [sp, "sp::ordered_metadata"]', 'values: ["", sp, "sp::ordered_metadata"]')),
      MMA_SP: edit_real(MMA_SP, ("{name: f16_k16, shape: {k: [16]},", '{name: f16_k16, qualifiers: {spvariant: [""]}, shape: {k: [16]},'))},
     [(MMA_SP, "opcode:", "an empty qualifier, a placeholder whose value the group does not give"),
      (MMA_SP, "opcode:", "which does not begin with its instruction's name 'mma.sp'")])

case("opcode_of_another_name",
     "`opcode: \"foo\"` for wgmma.wait_group.",
     {WAIT: edit_real(WAIT, ('opcode: "wgmma.wait_group.sync.aligned"', 'opcode: "foo"'))},
     [(WAIT, 'opcode: "foo"', "the opcode template gives 'foo' (group 'wait_group'), which does not begin with "
                              "its instruction's name 'wgmma.wait_group'")])

case("nibble_keeps_a_unit_twice",
     "A valid metadata nibble 0x5 (unit 1 kept twice) added to the 16-bit wgmma sparsity.",
     {LAYOUTS: edit_real(LAYOUTS, ("    valid_nibbles: [0x4, 0x8, 0xC, 0x1, 0x9, 0xD, 0x2, 0x6, 0xE, 0x3, 0x7, 0xB]\n"
                                   "  wgmma.sparse.tf32:",
                                   "    valid_nibbles: [0x5, 0x4, 0x8, 0xC, 0x1, 0x9, 0xD, 0x2, 0x6, 0xE, 0x3, 0x7, 0xB]\n"
                                   "  wgmma.sparse.tf32:"))},
     [(LAYOUTS, "[0x5,", "sparsity wgmma.sparse.16bit: valid nibble 0x5 keeps unit 1 twice")])

case("nibble_splits_an_element",
     "tf32 sparsity (two index units per element) listing 0x9: units 1 and 2, halves of two elements.",
     {LAYOUTS: edit_real(LAYOUTS, ("    valid_nibbles: [0x4, 0xE]\n", "    valid_nibbles: [0x4, 0xE, 0x9]\n"))},
     [(LAYOUTS, "[0x4, 0xE, 0x9]", "valid nibble 0x9 keeps units 1 and 2, which are not one whole 2-unit element")])

case("ordered_metadata_without_valid_nibble",
     "The m16n8k16 f16 sparsity with only decreasing nibbles: mma.sp::ordered_metadata keeps none.",
     {MMA_LAYOUTS: edit_real(MMA_LAYOUTS, ("valid_nibbles: {use: two_of_four}}\n  mma.sparse.16bit.k32:",
                                           "valid_nibbles: [0x1, 0x2, 0x6, 0x3, 0x7, 0xB]}\n  mma.sparse.16bit.k32:"))},
     [(MMA_SP, "  - {name: f16_k16", "group 'f16_k16': ordered metadata leaves no valid nibble of sparsity "
                                      "mma.sparse.16bit.k16"),
      (MMA_SP, "  - {name: bf16_k16", "group 'bf16_k16': ordered metadata leaves no valid nibble")])

case("requirement_below_the_targets_ptx",
     "wgmma.mma_async required from PTX 7.0 on sm_90a, which needs 8.0 (query --ptx 7.8 listed 948 variants).",
     {DENSE: spelled_out(DENSE, '{ptx: "7.0", targets: sm_90a}')},
     [(DENSE, '{ptx: "7.0"', "requires PTX 7.0 on sm_90a, but it exists before PTX 8.0 (isa.yaml); state PTX 8.0 "
                             "or later")])

case("format_wider_than_its_type",
     "f64 with a 43-bit exponent: 1 + 43 + 52 bits in a 64-bit type.",
     {TYPES: edit_real(TYPES, ("{name: f64, register: f64, class: float, bits: 64, format: {exponent: 11,",
                               "{name: f64, register: f64, class: float, bits: 64, format: {exponent: 43,"))},
     [(TYPES, "name: f64", "type f64: its format's fields (1 sign + 43 exponent + 52 mantissa bits) fill 96 bits, "
                           "but the type has 64")])

case("format_narrower_than_its_type",
     "tf32 without its 13 ignored low bits: 19 bits of format in a 32-bit type.",
     {TYPES: edit_real(TYPES, ("specials: ieee, ignored_low_bits: 13}", "specials: ieee}"))},
     [(TYPES, "format: {exponent: 8, mantissa: 10", "type tf32: its format's fields (1 sign + 8 exponent + 10 "
                                                    "mantissa bits) fill 19 bits, but the type has 32")])

case("format_bias_beyond_its_exponent",
     "ue4m3's bias 65 for a 4-bit exponent field (stored 0 to 15): no code is 1.0 or above (fuzz seed 33, tree 9057).",
     {TYPES: edit_real(TYPES, ("signed: false\n    format: {exponent: 4, mantissa: 3, bias: 7,",
                               "signed: false\n    format: {exponent: 4, mantissa: 3, bias: 65,"))},
     [(TYPES, "bias: 65", "type ue4m3: bias 65 is outside 0 to 15, the domain of its 4-bit exponent field")])

case("format_bias_negative",
     "f16 with bias -1: every code 2 or above, no 1.0 (the schema's minimum).",
     {TYPES: edit_real(TYPES, ("format: {exponent: 5, mantissa: 10, bias: 15,", "format: {exponent: 5, mantissa: 10, bias: -1,"))},
     [(TYPES, "bias: -1", "bias: -1 is less than the minimum of 0")])

case("immediate_minimum_beyond_an_int",
     "wgmma.wait_group's N at least 2**63 - 1 (fuzz seed 35, tree 6015): validated, the header's static_assert held "
     "for no int, and `ptxspec diff` listed the 2**63 values lost until memory ran out.",
     {WAIT: edit_real(WAIT, ("values: {min: 0}", "values: {min: 9223372036854775807}"))},
     [(WAIT, "values: {min: 9223372036854775807}", "operand n: legal value 9223372036854775807 is outside "
                                                  "-2147483648..2147483647: an immediate is a 32-bit integer")])

case("descriptor_kind_without_codes",
     "kind::f8f6f4's row deleted from the idesc's A and B type codes (fuzz seed 35, tree 1952): the layout still "
     "names the kind, and no f8f6f4 descriptor could be encoded.",
     {"descriptors/tcgen05.yaml": edit_real("descriptors/tcgen05.yaml",
                                            ("          kind::f8f6f4: {e4m3: 0, e5m2: 1, e2m3: 3, e3m2: 4, e2m1: 5}\n", ""))},
     [("descriptors/tcgen05.yaml", "codes: &dense_types", "field atype: no codes for kind::f8f6f4, which the layout "
                                                          "names"),
      ("descriptors/tcgen05.yaml", "name: btype", "field btype: no codes for kind::f8f6f4, which the layout names")])

case("descriptor_legal_set_empty",
     "The zero-column mask's column_shift legal range written backwards, [0, -8, 1] (fuzz seed 36, tree 1421): no "
     "mask could be encoded, and the executor refused even the zero mask.",
     {_MASK: edit_real(_MASK, ('legal: {"cta_group::1": {range: [0, 32, 1]}}', 'legal: {"cta_group::1": {range: [0, -8, 1]}}'))},
     [(_MASK, "range: [0, -8, 1]", "field column_shift: no legal value for cta_group::1 (an empty set)")])

case("descriptor_shape_set_empty",
     "A tcgen05.mma shape's N range written backwards, [256, 8, 8]: the kinds would have no N.",
     {_IDESC: edit_real(_IDESC, ('cta_group: "cta_group::1", ws: false, m: [64, 128], n: {range: [8, 256, 8]}}',
                                 'cta_group: "cta_group::1", ws: false, m: [64, 128], n: {range: [256, 8, 8]}}'))},
     [(_IDESC, "n: {range: [256, 8, 8]}", "n: no N at all (an empty set)")])

case("descriptor_code_names_no_type",
     "kind::mxf4nvf4's scale_type code 0 named 'ueam3' (fuzz seed 36, tree 4958): validated, and the executor died on "
     "the name (KeyError).",
     {_IDESC: edit_real(_IDESC, ("kind::mxf4nvf4: {ue4m3: 0, ue8m0: 1}", "kind::mxf4nvf4: {ueam3: 0, ue8m0: 1}"))},
     [(_IDESC, "kind::mxf4nvf4: {ueam3: 0", "field scale_type: 'ueam3' is no type of types.yaml")])

case("fragment_without_a_map_too_small",
     "tcgen05.ld.red.spcompress's kept values in one register per thread (fuzz seed 36, tree 10560): the matrix is "
     "2 to 64 f32 a lane, and the bindings took `float (&r)[1]`.",
     {"families/tcgen05/ld_red_spcompress.yaml": edit_real("families/tcgen05/ld_red_spcompress.yaml",
                                                           ('kept: {regs: "N // 2"}', 'kept: {regs: "1"}'))},
     [("families/tcgen05/ld_red_spcompress.yaml", "- name: f32", "group 'f32': fragment kept (operand r) of "
       "tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.sp::2:4.min.f32.b2: 1 f32 register(s) in each of 32 threads "
       "hold 1024 bits, but matrix kept is 32 x 2 f32 (2048 bits)")])

case("swizzle_constant",
     "The swizzle formula replaced by 0: every byte to address 0.",
     {SMEM: edit_line(SMEM, "swizzle", '"0"')},
     [(SMEM, 'swizzle: "0"', "swizzle (none): not a permutation of the 128-byte block at byte 0")])

case("swizzle_leaves_its_pattern",
     "A swizzle that moves every byte 16 further: out of its repeating pattern.",
     {SMEM: edit_line(SMEM, "swizzle", '"a + 16"')},
     [(SMEM, 'swizzle: "a + 16"', "swizzle (none): not a permutation of the 128-byte block at byte 0")])

case("instruction_in_another_familys_folder",
     "wgmma.fence declared in family mma but kept in families/wgmma/.",
     {FENCE: edit_real(FENCE, ("family: wgmma", "family: mma"))},
     [(FENCE, "family: mma", "the instruction file of family 'mma' sits in families/wgmma/; mma's files go in "
                             "families/mma/")])

TMEM = "layouts/tcgen05.yaml"

case("tmem_layout_unknown_name",
     "A lane formula of A in tensor memory names q, which only scale-factor placements know.",
     {TMEM: edit_real(TMEM, ('a_lanes: ["m", "m + 64"]', 'a_lanes: ["m", "m + q"]'))},
     [(TMEM, 'a_lanes: ["m", "m + q"]', "a_lane: unknown name 'q' (allowed here: L, N, m, n)")])

case("tmem_scale_layout_unknown_datapath",
     "A scale-factor placement names a data-path layout Z that the data paths do not define.",
     {TMEM: edit_real(TMEM, ("matrix: scale_b, datapaths: [A, D]", "matrix: scale_b, datapaths: [A, Z]"))},
     [(TMEM, "datapaths: [A, Z]", "'Z' is no tmem layout (they are A, B, C, D, E, F, G)")])

case("tmem_layout_case_twice",
     "Layout F claims M = 128 with one CTA, which is layout D's.",
     {TMEM: edit_real(TMEM, ('cases: [{m: 64, cta_group: "cta_group::1", sparse: [false, true], ws: false}]',
                             'cases: [{m: 128, cta_group: "cta_group::1", sparse: [false, true], ws: false}]'))},
     [(TMEM, ('cases: [{m: 128, cta_group: "cta_group::1", sparse: [false, true], ws: false}]', 1),
       "M = 128, cta_group::1, sparse False, ws False is already layout D's")])

case("operand_default_not_legal",
     "imm_trans_b's legal values changed to [65, 1] while its default stays 0.",
     {FAMILY: edit_real(FAMILY, ("{name: imm_trans_b, kind: immediate, values: [0, 1]",
                                 "{name: imm_trans_b, kind: immediate, values: [65, 1]"))},
     [(FAMILY, "values: [65, 1]", "operand imm_trans_b: default 0 is not one of its legal values (65, 1)")])

TC_FAMILY, TC_SP = "families/tcgen05/family.yaml", "families/tcgen05/mma_sp.yaml"
_SID_INT = ('values: {range: [0, 15, 1]}, default: 0, forms: [desc_scaled, tmem_scaled], when: {kind: ["kind::i8", '
            '"kind::ti16"]}')
case("operand_default_outside_the_manuals_range",
     "tcgen05.mma(.sp)'s scale_input_d with an integer kind defaulted to 1000000 (fuzz seed 31, tree 5391: it "
     "validated while that immediate stated no legal values; it states the manual's 0-15 now).",
     {TC_FAMILY: edit_real(TC_FAMILY, (_SID_INT, _SID_INT.replace("default: 0", "default: 1000000")))},
     [(TC_FAMILY, "default: 1000000", "operand scale_input_d: default 1000000 is not one of its legal values (0, 1, 2, "
       "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)")])
case("predicate_default_neither_0_nor_1",
     "enable_input_d (a predicate) defaulted to 5: a predicate's default is checked as the API checks a value.",
     {TC_FAMILY: edit_real(TC_FAMILY, ("kind: predicate, io: in, default: 1}", "kind: predicate, io: in, default: 5}"))},
     [(TC_FAMILY, "default: 5}", "operand enable_input_d: default 5 is no value the operand takes (enable_input_d = 5 "
       "is a predicate: 0 or 1)")])
case("lane_mask_default_wider_than_its_registers",
     "disable_output_lane (a vector of 32-bit registers) defaulted to 2**40.",
     {TC_SP: edit_real(TC_SP, (
         'regs: 4, optional: true, default: 0, when: {cta_group: "cta_group::1", kind: ["kind::f16"',
         'regs: 4, optional: true, default: 1099511627776, when: {cta_group: "cta_group::1", kind: ["kind::f16"'))},
     [(TC_SP, "default: 1099511627776", "operand disable_output_lane: default 1099511627776 is no value "
       "the operand takes (operand 'disable_output_lane' (lane_mask) holds 32-bit words")])

case("signature_without_d",
     "The D operand deleted from wgmma.mma_async's signature (it validated before): its groups take the "
     "signature from the family's mma_group, where it is reported.",
     {DENSE: edit_real(DENSE, ("  mma: [{use: dab}, {use: scales}]",
                               "  mma: [{name: a, kind: fragment, io: in, matrix: a, forms: [reg]},\n"
                               "        {name: a_desc, kind: descriptor, io: in, matrix: a, forms: [desc]},\n"
                               "        {name: b_desc, kind: descriptor, io: in, matrix: b}, {use: scales}]"))},
     [(FAMILY, "  mma_group:", "signature 'mma' in form 'reg' lacks what mma needs: a result fragment of D")])

case("sparse_signature_without_metadata",
     "The metadata operand deleted from a sparse wgmma signature.",
     {SP: edit_real(SP, ("{name: sp_meta, kind: metadata, io: in}, ", ""))},
     [(FAMILY, "  mma_group:", "lacks what mma needs: a metadata operand (the group is sparse)")])


# =============================================================================================
# Issue 30: every numerics parameter against its domain (ptxspec.semantics.numerics.DOMAINS, the
# schema where it can say it), the domains that depend on a variant (a group dividing K, a `keep`
# its output has, a split of its K), the parameters a model reads, and the element types a model's
# arithmetic takes (MODEL_TYPES). Each edit validated before.

NUM = "numerics.yaml"
TF32_STEP = "params: {group: 4, F: 25, round: rz}"  # wmma m16n16k8 .tf32: two HMMA.1684 steps of k4
TF32_RULE = "- when: {family: wmma, m: 16, n: 16, k: 8, atype: [tf32]"
FP8_KEEP = "params: {F: 13, round: rz, keep: 13}"  # wgmma fp8 with an f32 D
FP8EMU = "params: {group: 16, F: 25, round: rz, split: 2}"  # mma fp8 f32, sm_90's emulation
VIA = "params: {F: 25, round: rz, via: f32}"  # wmma .f16 D with .f32 C
SATF = "params: {group: 8, F: 25, round: rn, finite: 1}"


def numerics_case(name, old, new, expect):
    case(f"numerics_{name}", f"spec/numerics.yaml: {old!r} -> {new!r} validated (issue 30, reproducer 6).",
         {NUM: edit_real(NUM, (old, new))}, expect)


for _name, _new, _msg in (
        ("F_negative", "params: {group: 4, F: -5, round: rz}", "params/F: -5 is less than the minimum of 1"),
        ("F_zero", "params: {group: 4, F: 0, round: rz}", "params/F: 0 is less than the minimum of 1"),
        ("F_huge", "params: {group: 4, F: 100000, round: rz}", "params/F: 100000 is greater than the maximum of 48"),
        ("group_zero", "params: {group: 0, F: 25, round: rz}", "params/group: 0 is less than the minimum of 1"),
        ("round_unknown", "params: {group: 4, F: 25, round: rq}", "params/round: 'rq' is not one of")):
    numerics_case(_name, TF32_STEP, _new, [(NUM, _new, _msg)])

numerics_case("group_dividing_no_K", TF32_STEP, "params: {group: 3, F: 25, round: rz}",
              [(NUM, TF32_RULE, "numerics rule 5 (fdpa): group = 3 does not divide K = 8")])
numerics_case("keep_beyond_any_format", FP8_KEEP, "params: {F: 13, round: rz, keep: 99}",
              [(NUM, "keep: 99", "params/keep: 99 is greater than the maximum of 52")])
numerics_case("keep_beyond_the_output", FP8_KEEP, "params: {F: 13, round: rz, keep: 30}",
              [(NUM, ("- when: {family: wgmma, atype: [e4m3, e5m2], dtype: f32", 1),
                "(fdpa): keep = 30: f32 has 23 fraction bits")])
numerics_case("split_of_no_K", FP8EMU, "params: {group: 16, F: 25, round: rz, split: 3}",
              [(NUM, "- when: {family: mma, kind: \"\", atype: [e4m3, e5m2], dtype: f32, sparse: false",
                "(fp8emu): split = 3: K = 16 is no whole number of 2 x 3 k")])
numerics_case("split_on_a_model_without_it", TF32_STEP, "params: {group: 4, F: 25, round: rz, split: 2}",
              [(NUM, "round: rz, split: 2}", "numerics rule 5: model fdpa takes no 'split'")])
numerics_case("via_a_type_no_step_rounds_to", VIA, "params: {F: 25, round: rz, via: e4m3}",
              [(NUM, "via: e4m3", "params/via: 'e4m3' is not one of")])
numerics_case("finite_not_a_flag", SATF, "params: {group: 8, F: 25, round: rn, finite: 7}",
              [(NUM, "finite: 7", "params/finite: 7 is not one of")])
numerics_case("integer_rule_with_float_inputs", "atype: [s8, u8, s4, u4], dtype: s32}",
              "atype: [s8, u8, s4, u4, f16], dtype: s32}",
              [(NUM, "- when: {atype: [s8, u8, s4, u4, f16]", "numerics rule 3 (integer): integer takes integers of "
                "at most 8 bits as A and B, not atype f16")])
numerics_case("fmachain_rounding_toward_zero", "params: {group: 4, round: rn}", "params: {group: 4, round: rz}",
              [(NUM, "params: {group: 4, round: rz}", "round = 'rz' must be one of 'rn' (fmachain rounds every "
                "operation to nearest")])
_GROUPS = 'scale_vec::2X"]}\n    model: fdpa_groups\n    params: {group: 16, F: 35, round: rz}'
numerics_case("groups_without_F", _GROUPS, _GROUPS.replace("F: 35, ", ""),
              [(NUM, ("- when: {family: mma, sparse: false, kind: [\"kind::mxf4\"", 1),
                "numerics rule 8: model fdpa_groups needs 'F'")])


# =============================================================================================
# Issue 30: requirements before the instruction existed. Each instruction file states its
# introduction (`introduced:`, from the manual's PTX ISA Notes / Target ISA Notes); a requirement
# clause or a refinement that reaches back before it is refused (reproducer 7; each validated).

LDM = "families/ldmatrix/ldmatrix.yaml"
TC_MMA = "families/tcgen05/mma.yaml"
MMA_SP = "families/mma/mma_sp.yaml"

case("introduction_ldmatrix_ptx_too_early", "ldmatrix required from PTX 6.3, before its introduction in 6.5.",
     {LDM: edit_real(LDM, ('  - {ptx: "6.5", targets: {at_least: sm_75}}', '  - {ptx: "6.3", targets: {at_least: sm_75}}'))},
     [(LDM, '  - {ptx: "6.3"', "a requirement from PTX 6.3: ldmatrix was introduced in PTX 6.5 on sm_75")])
case("introduction_ldmatrix_target_too_early", "ldmatrix required on sm_70 and later, before its sm_75.",
     {LDM: edit_real(LDM, ('  - {ptx: "6.5", targets: {at_least: sm_75}}', '  - {ptx: "6.5", targets: {at_least: sm_70}}'))},
     [(LDM, "at_least: sm_70", "a requirement on sm_70, sm_72: ldmatrix was introduced in PTX 6.5 on sm_75")])
case("introduction_tcgen05_mma_on_hopper", "tcgen05.mma required on sm_90a, a generation before sm_100a.",
     {TC_MMA: edit_real(TC_MMA, ('requires: {use: targets}',
                                 'requires:\n  - {use: targets}\n  - {ptx: "8.6", targets: sm_90a}'))},
     [(TC_MMA, '  - {ptx: "8.6", targets: sm_90a}', "a requirement on sm_90a: tcgen05.mma was introduced in PTX 8.6 "
       "on sm_100a")])
case("introduction_refinement_too_early", "mma.sp::ordered_metadata refined to PTX 6.0, before mma.sp's 7.1.",
     {MMA_SP: edit_real(MMA_SP, ('    requires: {ptx: "8.5"}\n    metadata_order', '    requires: {ptx: "6.0"}\n    metadata_order'))},
     [(MMA_SP, 'requires: {ptx: "6.0"}', "a requirement from PTX 6.0: mma.sp was introduced in PTX 7.1")])
case("introduction_missing", "An instruction file without its introduction.",
     {LDM: edit_real(LDM, ('introduced: {targets: {at_least: sm_75}, ptx: "6.5"}\n', ''))},
     [(LDM, 1, "'introduced' is required")])


# =============================================================================================
# Applying a case


def expected(c) -> list[dict]:
    """The problems a case expects: {file, line, message} (and col), lines resolved from markers."""
    out = []
    for exp in c["expect"]:
        rel, at, msg = exp[:3]
        content = c["files"].get(rel) if rel != "." else None
        line = at if rel == "." else line_of(content if content is not None else real(rel), at)
        e = {"file": rel, "line": line, "message": msg}
        if len(exp) > 3:
            e["col"] = exp[3]
        out.append(e)
    return out


def apply(c, root: Path) -> None:
    """Make the spec tree at root (a copy of spec/) the case's: its files written, its deletions made."""
    import shutil
    for rel in c["delete"]:
        target = root / rel
        assert target.exists(), f"{c['name']}: delete names {rel}, which the real spec does not have"
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    for rel, content in c["files"].items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# The spec language (ptxspec.loading.compose, model.predicates): pieces used by reference, their
# overrides, `when` predicates, and rules that exclude or set options.
_T = "families/tcgen05/"
_TFAM = _T + "family.yaml"
case("piece_unknown",
     "A piece used by a name no piece has (a misspelt `targets`).",
     {_T + "mma.yaml": edit_real(_T + "mma.yaml", ("requires: {use: targets}", "requires: {use: target}"))},
     [(_T + "mma.yaml", "requires: {use: target}", "unknown piece 'target' (did you mean 'targets'?)")])
case("piece_cycle",
     "Two pieces that use each other: expanding either never ends.",
     {_TFAM: edit_real(_TFAM, ("  idesc: {name: idesc, kind: idesc, io: in}",
                               "  idesc: {use: idesc_again}\n  idesc_again: {use: idesc}"))},
     [(_TFAM, "idesc_again: {use: idesc}", "pieces use each other in a cycle: idesc -> idesc_again -> idesc")])
case("piece_override_of_missing_key",
     "An override of a key the piece lacks (`optinal`): a misspelt key is an error, not an addition.",
     {_T + "mma_ws.yaml": edit_real(_T + "mma_ws.yaml", ("    - {use: zero_column_mask}",
                                                         "    - {use: zero_column_mask, optinal: false}"))},
     [(_T + "mma_ws.yaml", "optinal: false", "override of 'optinal', which piece 'zero_column_mask' does not have "
       "(did you mean 'optional'?) (its keys: name, kind, io, optional)")])
case("piece_of_the_family_unused",
     "A piece of the wgmma family that none of the instruction files of its folder uses.",
     {FAMILY: edit_real(FAMILY, ("pieces:\n", "pieces:\n  spare: {ptx: \"8.0\"}\n"))},
     [(FAMILY, "  spare:", "piece 'spare' of the family is used by none of its instruction files")])
case("predicate_unknown_field",
     "A rule's `when` tests a field no variant of the family has (a misspelt axis).",
     {_T + "commit.yaml": edit_real(_T + "commit.yaml", ('  - when: {multicast: "multicast::cluster::32b"}',
                                                         '  - when: {multicst: "multicast::cluster::32b"}'))},
     [(_T + "commit.yaml", "multicst", "'multicst' is neither an opcode field nor an axis of family tcgen05 "
       "(did you mean 'multicast'?)")])
case("rule_excludes_every_variant",
     "An exclusion rule that leaves a group no variant at all.",
     {_T + "dealloc.yaml": edit_real(_T + "dealloc.yaml", ("refinements:\n", 'refinements:\n  - when: {exclusive: ["", '
                                                          'exclusive]}\n    exclude: true\n    why: "wrong on purpose."\n'))},
     [(_T + "dealloc.yaml", "  - name: dealloc", "the rules (refinements with `exclude`) exclude every variant of group "
       "'dealloc': drop the group, or the rule")])
case("rules_contradict",
     "Two rules that give the same variants different option values (the family's says kind::i8 takes no B "
     "collector; this one says it takes fill).",
     {_T + "mma.yaml": edit_real(_T + "mma.yaml", ("refinements:\n  - {use: mma_rules}\n",
                                                   'refinements:\n  - {use: mma_rules}\n  - when: {kind: "kind::i8"}\n'
                                                   '    options: {collector_b: ["", "collector::b::fill"]}\n'
                                                   '    why: "wrong on purpose."\n'))},
     [(_T + "mma.yaml", '  - when: {kind: "kind::i8"}', "two rules set options.collector_b of "
       "tcgen05.mma.cta_group::1.kind::i8 differently: this one and the one at ")])


case("layout_shared_broken_no_echo",
     "wgmma.d, the layout of D in both wgmma instructions, dividing by zero: reported once, for the first; "
     "the second's groups stopped at the layout without a problem of their own, and the family's mixed-sign "
     "refinements, matching none of its variants, were reported as matching no variant.",
     {LAYOUTS: edit_real(LAYOUTS, ("    rows: 64\n    cols: N\n    elements: N/2\n",
                                   '    rows: 64\n    cols: "N // 0"\n    elements: N/2\n'))},
     [(LAYOUTS, "  wgmma.d:", "layout wgmma.d for m64n8k16: division by zero in 'N // 0'")])


# The size of every matrix a variant takes (ptxspec.loading.matrix_sizes): a matrix no fragment layout
# maps (tcgen05's, in tensor memory) had its formulas parsed and never evaluated (fuzz seed 33, tree 528).
_LUT = 'lut: {description: "The lookup table of .decompress::lut::b in TMEM (B\'s codes index it).", rows: "K", cols: "N"'
case("matrix_rows_past_every_bound",
     "tcgen05's lookup table with 2**64 rows: only tcgen05.mma's .decompress::lut::b takes it, sized at the "
     "shapes its instruction descriptor allows (fuzz seed 33, tree 528).",
     {_TFAM: edit_real(_TFAM, (_LUT, _LUT.replace('rows: "K"', 'rows: "2**64"')))},
     [(_TFAM, "  lut: {", "matrix lut: rows for tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::b")])
case("matrix_rows_negative",
     "tcgen05's lookup table with -K rows.",
     {_TFAM: edit_real(_TFAM, (_LUT, _LUT.replace('rows: "K"', 'rows: "-K"')))},
     [(_TFAM, "  lut: {", "matrix lut: rows '-K' is -32 for tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::b "
       "(M = 32, N = 64, K = 32, a shape its instruction descriptor allows): a matrix has 1 to 4096 rows")])
case("matrix_cols_divide_by_zero",
     "tcgen05's lookup table with 1 // 0 columns.",
     {_TFAM: edit_real(_TFAM, (_LUT, _LUT.replace('cols: "N"', 'cols: "1 // 0"')))},
     [(_TFAM, "  lut: {", "division by zero in '1 // 0'")])
case("matrix_cols_empty_for_a_shape",
     "The values tcgen05.ld.spcompress keeps, N*K/4 - 16 of them: none, or fewer, for the smaller shapes "
     "(a matrix of the opcode's shape that no fragment layout maps).",
     {_TFAM: edit_real(_TFAM, ('    cols: "N * K // 2"\n    type: dtype', '    cols: "N * K // 4 - 16"\n    type: dtype'))},
     [(_TFAM, 'cols: "N * K // 4 - 16"', "matrix kept: cols 'N * K // 4 - 16' is -15 for "
       "tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.sp::2:4.min.f32.b2 (m32n4k1): a matrix has 1 to 4096 cols")])
case("matrix_rows_past_max_dim",
     "wgmma's B (in shared memory: no fragment layout maps it) with 256*K + 1 rows: 4097 at K = 16, one past "
     "the bound of every matrix (model.fragments.MAX_DIM).",
     {FAMILY: edit_real(FAMILY, ('"The multiplicand B, K x N (always in shared memory).", rows: "K"',
                                 '"The multiplicand B, K x N (always in shared memory).", rows: "256 * K + 1"'))},
     [(FAMILY, 'rows: "256 * K + 1"', "matrix b: rows '256 * K + 1' is 4097 for wgmma.mma_async.sync.aligned.m64n8k16"
       ".f16.f16.f16 (m64n8k16): a matrix has 1 to 4096 rows")])



# A `when` value no variant of the family can have: the clause silently matched nothing (fuzz seed
# 36, trees 7943 and 10730), where a typo should be refused.
case("when_value_not_of_the_axis",
     "A misspelt axis value in an operand's `when`: tcgen05.mma.sp's 8-register lane mask lost its variants.",
     {TC_SP: edit_real(TC_SP, ('regs: 8, optional: true, default: 0, when: {cta_group: "cta_group::2", kind: ["kind::f16"',
                               'regs: 8, optional: true, default: 0, when: {cta_group: "cta_group::2_", kind: ["kind::f16"'))},
     [(TC_SP, '"cta_group::2_"', "when cta_group: 'cta_group::2_' is no value cta_group has in family tcgen05 "
                                 "(its values: '', 'cta_group::1', 'cta_group::2') (did you mean 'cta_group::2'?)")])
case("when_value_no_group_gives",
     "A shape no wmma group has in a rule's `when` (a piece of the family): m8n32k16 lost its PTX 6.1.",
     {WMMA_FAMILY: edit_real(WMMA_FAMILY, ("- when: {m: [8, 32], k: 16}", "- when: {m: [0x7fffffffffffffff, 32], k: 16}"))},
     [(WMMA_FAMILY, "0x7fffffffffffffff", "when m: 9223372036854775807 is no value m has in family wmma "
                                           "(its values: '8', '16', '32')")])
# A storage width no register or memory has (fuzz seed 37, tree 9925: ue4m3's container line blanked).
case("type_stored_seven_bits_wide",
     "ue4m3 (7 bits) loses its byte container: elements stored 7 bits wide.",
     {TYPES: edit_real(TYPES, ("    bits: 7\n    container_bits: 8\n", "    bits: 7\n\n"))},
     [(TYPES, "- name: ue4m3", "type ue4m3: elements are stored 7 bits wide, but registers and memory hold "
                               "elements of 1, 2, 4, 8, 16, 32, 64 bits: give a container (container_bits)")])
case("type_container_narrower_than_the_type",
     "e3m2 (6 bits) in a 4-bit container.",
     {TYPES: edit_real(TYPES, ("    bits: 6\n    container_bits: 8\n    format: {exponent: 3",
                               "    bits: 6\n    container_bits: 4\n    format: {exponent: 3"))},
     [(TYPES, "- name: e3m2", "type e3m2: a 6-bit element does not fit a 4-bit container")])

# A lane mask shorter than the lanes it masks (fuzz seed 37, tree 3950): the header bound one
# register, the executor demanded eight.
case("lane_mask_short_of_the_lanes",
     "tcgen05.mma.sp's .cta_group::2 disable-output-lane mask stated as 1 register instead of 8.",
     {TC_SP: edit_real(TC_SP, ('{name: disable_output_lane, kind: lane_mask, regs: 8, optional: true, default: 0, when: '
                               '{cta_group: "cta_group::2", kind: ["kind::f16"',
                               '{name: disable_output_lane, kind: lane_mask, regs: 1, optional: true, default: 0, when: '
                               '{cta_group: "cta_group::2", kind: ["kind::f16"'))},
     [(TC_SP, "lane_mask, regs: 1,", "operand disable_output_lane: 1 register, but a lane mask holds one bit per "
                                     "tensor-memory lane of D: 8 registers of 32 bits with 2 CTAs")])

# tcgen05.mma's kind::i8 with .cta_group::2 left without shapes (fuzz seed 37, tree 895): no M and N
# would be legal for the variants that take it.
_TC_DESC = "descriptors/tcgen05.yaml"
case("descriptor_shapes_leave_a_variant_none",
     "The idesc's shape row for kind::i8 with .cta_group::2 blanked.",
     {_TC_DESC: edit_real(_TC_DESC, ('  - {kinds: ["kind::i8"], cta_group: "cta_group::2", ws: false, m: [128, 256], n: {range: [32, 256, 32]}}\n',
                                     "\n"))},
     [(TC_FAMILY, "kind: idesc", "operand idesc: the tcgen05 idesc's shapes have no row for kind::i8 with "
                                 "cta_group::2: no M and N would be legal")])
# A family's execution scope outside thread, warp and warpgroup (fuzz seed 37, tree 8821).
_FENCE_FAMILY = "families/fence/family.yaml"
case("threads_no_execution_scope",
     "The proxy fence executed by 3 threads together.",
     {_FENCE_FAMILY: edit_real(_FENCE_FAMILY, ("threads: 1\n", "threads: 3\n"))},
     [(_FENCE_FAMILY, "threads: 3", "threads: 3: one instruction is executed by one thread (1), a warp (32), or a "
                                    "warpgroup (128)")])

# The shared-memory majors and layouts (fuzz seed 37, trees 9155, 3507, 2600).
_TC_SMEM = "smem/tcgen05.yaml"
case("smem_layout_two_elements_one_address",
     "tcgen05's K-major interleaved bit_offset with SBO * 0: rows 8.. land on rows 0.. (tree 9155).",
     {_TC_SMEM: edit_real(_TC_SMEM, ('bit_offset: "(mn%8)*128 + (mn//8)*SBO*8 + (k*bits)%128',
                                     'bit_offset: "(mn%8)*128 + (mn//8)*SBO*0 + (k*bits)%128'))},
     [(_TC_SMEM, "(mn//8)*SBO*0", "bit_offset puts elements (mn=0, k=0) and (mn=8, k=0) at one address (none, "
                                  "8-bit elements, LBO=131072, SBO=4096)")])
case("smem_major_trans_not_a_bit",
     "tcgen05's K major selected by transpose value 3 (tree 3507).",
     {_TC_SMEM: edit_real(_TC_SMEM, ("{name: K, trans: 0,", "{name: K, trans: 3,"))},
     [(_TC_SMEM, "{name: K, trans: 3,", "major K: trans 3 is no value of the one-bit transpose that selects it (0 or 1)")])
case("smem_layout_of_no_major",
     "wgmma's K major deleted while its K-major canonical layouts stay (tree 2600).",
     {_SMEM: edit_real(_SMEM, ('  - {name: K, trans: 0, description: "K-major: the K elements of a row of A (a column of B) '
                               'are contiguous."}\n', ""))},
     [(_SMEM, ("  - major: K", n), "canonical layout of major 'K', which is none of the majors (MN)") for n in (1, 2)])

# A tensor-memory column count no allocation has (fuzz seed 37, trees 4462, 6122, 9053, ...).
_TC_DEALLOC = "families/tcgen05/dealloc.yaml"
case("column_count_not_an_allocation",
     "tcgen05.dealloc's legal column counts with 65 for 128.",
     {_TC_DEALLOC: edit_real(_TC_DEALLOC, ("kind: column_count, values: [32, 64, 128, 256, 512]",
                                           "kind: column_count, values: [32, 64, 65, 256, 512]"))},
     [(_TC_DEALLOC, "values: [32, 64, 65, 256, 512]", "operand ncols: legal value 65 columns: a count is a power of "
                                                       "two from 32 to 512")])
case("swizzle_moves_bytes_of_mode_none",
     "wgmma's swizzle as a ^ 16: still a permutation, but mode none (b = 0) now moves bytes (fuzz seeds 36-37).",
     {_SMEM: edit_real(_SMEM, ('swizzle: "a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4)"', 'swizzle: "a ^ 16"'))},
     [(_SMEM, 'swizzle: "a ^ 16"', "swizzle (none): a mode of b = 0 (no bits swizzled) must leave every address as "
                                   "it is, but byte 0 moves to 16")])


BY_NAME = {}
for _c in CASES:
    assert _c["name"] not in BY_NAME, f"case {_c['name']} defined twice"
    BY_NAME[_c["name"]] = _c
