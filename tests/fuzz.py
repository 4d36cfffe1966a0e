"""A seeded, time-boxed mutation fuzzer of `ptxspec validate`, `build` and `query`.

    python3 tests/fuzz.py --trees 12 --queries 12 --api 24 --renders 6   # what tests/test_fuzz.py runs (full tier)
    nice python3 tests/fuzz.py --trees 2000 --queries 400 --seed 7 --log fuzz.jsonl --build-all
    python3 tests/fuzz.py --seed 7 --replay tree:123 --keep /tmp/case   # one case again, kept on disk

Each tree case copies the real spec/ and evidence/*.json (the records and campaign notes they
name are linked in, as a checkout has them) and applies one to three random mutations (line and key
deletions, duplicates and swaps, typos, hostile numbers and formulas, deep nesting, unicode and
invalid bytes, YAML tags and alias bombs, empty documents, renamed, moved, duplicated or deleted
files, FIFOs, links to devices and loops, unreadable files, semantic edits of bounds, nibbles,
requirements, formats and swizzles; descriptor shapes, code tables and placements, numerics
parameters, introductions, evidence counts, dates, paths and GPUs), then runs
`ptxspec --spec TREE validate`; a tree it accepts
is sometimes (with --build-all: whenever its documents differ from every tree built before) built
with `build --out DIR`. Each query case runs
`ptxspec query` with hostile arguments, on the real database or a damaged, foreign or crafted one
(views that recurse without end: the query's time budget must stop them). API cases call the
Python API with hostile arrays and render cases run `ptxspec render` on hostile templates
(tests/fuzz_surfaces.py).

A case fails on an exit status other than 0, 1 or 2, a signal, a hang (past its time limit), a
problem line not of the form `path:line:col: error: message` (validate, build and render), a file
written under the output directory by a failed build or render, a database file changed by a
query, or an API call that crashed, answered a hostile value, or answered an equivalent one
unlike its baseline.
Case i of seed S draws from random.Random(f"S:kind:i"): any case replays alone. The exit status
is 0 when no case failed, 1 otherwise; the summary and every failure go to standard error.

Commands run in forked children of this process (the modules stay imported, so a case costs its
own work only), each with an address-space limit, its output in files, and a time limit.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy: fork-safe
    os.environ.setdefault(_var, "1")
os.environ.setdefault("PTXSPEC_QUERY_SECONDS", "5")  # a crafted database is stopped well inside LIMITS["query"]

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import stat  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "generators"), str(ROOT / "generated")]

import ptxspec  # noqa: E402
from ptxspec.cli import main as cli  # noqa: E402
from ptxspec.emit import artifacts as _build  # noqa: E402,F401 (imported once, before forking)
from ptxspec.query import database as _query  # noqa: E402 (imported once, before forking; its layout version)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_surfaces as surfaces  # noqa: E402

SPEC = ROOT / "spec"
EVIDENCE = ROOT / "evidence"
EV = "@evidence/"  # tree paths of the evidence files: written beside spec/, not in it
DATABASE = ROOT / "generated" / "ptxspec.sqlite"
LOCATED = re.compile(r"^[^\n]+:\d+:\d+: error: \S[^\n]*$")
MEMORY = surfaces.MEMORY  # the address-space limit of every forked case (fuzz_surfaces.forked)
#: per-case time limits, seconds: hang guards, not speed limits (a case reaches them only when stuck, on
#: any machine however busy; a case that eats memory meets MEMORY, the address-space limit, first)
LIMITS = {"validate": 600, "build": 1800, "query": 300, "render": 600}

# -- running a command in a forked child -------------------------------------------------------


class Outcome:
    def __init__(self, status: str, code: int | None, out: str, err: str, seconds: float):
        self.status, self.code, self.out, self.err, self.seconds = status, code, out, err, seconds


def run_cli(argv: list[str], limit: float, cwd: Path) -> Outcome:
    """`ptxspec ARGV` in a forked child: status 'exit', 'signal' or 'hang'."""
    def child() -> int:  # pragma: no cover - the child
        os.chdir(cwd)
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # noqa: BLE001 - escaped main(): a bug, reported as 99
            import traceback
            traceback.print_exc()
            print(f"fuzz: exception escaped main: {type(exc).__name__}", file=sys.stderr)
            code = 99
        return code if isinstance(code, int) else 99

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        status, code, seconds = surfaces.forked(child, limit, out=out, err=err)
        out.seek(0)
        err.seek(0)
        return Outcome(status, code, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                       seconds)


def problems_in(outcome: Outcome, command: str) -> list[str]:
    """Why an outcome is a failure ([] when it is not)."""
    if outcome.status == "signal":
        return [f"{command} ended by signal {outcome.code}"]
    if outcome.status == "hang":
        return [f"{command} still running after {outcome.seconds:.0f}s"]
    if outcome.code not in (0, 1, 2):
        return [f"{command} exited {outcome.code}: {outcome.err.strip()[-600:]}"]
    if command in ("validate", "build", "render") and outcome.code == 1:
        bad = [line for line in outcome.err.splitlines() if line and not LOCATED.match(line)]
        if bad:
            return [f"{command}: lines not of the form path:line:col: error: message: {bad[:3]!r}"]
    return []


def snapshot(directory: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[p.relative_to(directory).as_posix()] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


# -- tree mutations ------------------------------------------------------------------------------

HOSTILE_NUMBERS = ["0", "-1", "1", "3", "7", "-8", "65", "257", "416", "4096", "1000000", "2147483648",
                   "9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775809",
                   "1" * 40, "9" * 4301, "0x7fffffffffffffff", "0xffffffffffffffffff", "0b" + "1" * 70, "1e400",
                   "-0", ".inf", ".nan", "1.5", "0o17", "1_000", "08"]
HOSTILE_FORMULAS = ["0", "1", "-1", "t", "i", "2**64", "2**62", "t * 2**62", "t * 2**40 * 2**30", "1 // 0", "1 / 0",
                    "t % 0", "t << 64", "t << 65", "t >> -1", "N // (K - K)", "(" * 150 + "t" + ")" * 150,
                    "-" * 300 + "t", "t" + " + t" * 200, "__import__('os').system('true')", "t.real", "[t]",
                    "'a'", "t if t else 1 // 0", "M * N * K * 2**40", "1 if t < 0 else 2**63", "a ^ 0", "a + 16",
                    "~t", "t ** 64", "(t + 1) ** 64", "x", "a * 0", "o", "1.5", "t ** -1", "lambda: 0"]
UNICODE = ["\u00e9", "\u202e", "\ufeff", "\U0001f600", "\x00", "\x07", "\u2028", "\x85", "\ud7ff", "\t", "\r",
           "\r\n", "\\", "\"", "'", "&", "*", "!", "%", "@", "`", "|", ">", "{", "}", "[", "]", ",", "#", ":"]
TAGS = ["!!python/object/apply:os.system ['true']", "!!binary aGVsbG8=", "!include x.yaml", "!!set {a, b}",
        "!!omap [{a: 1}]", "!!timestamp 2001-12-14", "!!float 1", "!!int '12'", "!!str", "!!map {}", "!!seq []"]
FORMULA_KEYS = ("row", "col", "rows", "cols", "elements", "regs", "swizzle", "encode", "bit_offset",
                "contributes", "chunk_index")
SEMANTIC = [  # (file, old, new): edits that keep the tree well formed but may make it mean nonsense
    ("families/wgmma/family.yaml", "{range: [8, 256, 8]}", "{range: [8, 416, 8]}"),
    ("families/wgmma/family.yaml", "{range: [8, 256, 8]}", "{range: [16, 256, 8]}"),
    ("families/wgmma/family.yaml", "max: 256, multiple_of: 8}\n  k", "max: 512, multiple_of: 8}\n  k"),
    ("families/wgmma/family.yaml", "threads: 128", "threads: 32"),
    ("families/mma/family.yaml", "n: {min: 8, max: 8}", "n: {min: 8, max: 16}"),
    ("types.yaml", "bits: 64, format: {exponent: 11", "bits: 64, format: {exponent: 43"),
    ("types.yaml", "ignored_low_bits: 13", "ignored_low_bits: 12"),
    ("types.yaml", "{name: f16, register: b32, class: float, bits: 16", "{name: f16, register: b32, class: float, bits: 8"),
    ("layouts/wgmma.yaml", "valid_nibbles: [0x4, 0xE]", "valid_nibbles: [0x4, 0xE, 0x5]"),
    ("layouts/wgmma.yaml", "valid_nibbles: [0x4, 0xE]", "valid_nibbles: [0x4]"),
    ("layouts/mma.yaml", "valid_nibbles: [0x4, 0xE]", "valid_nibbles: [0x1, 0xB]"),
    ("families/wgmma/mma_async.yaml", "requires: [{use: introduced}]", 'requires: [{ptx: "7.0", targets: sm_90a}]'),
    ("families/wgmma/mma_async.yaml", "requires: [{use: introduced}]", 'requires: [{ptx: "8.0", targets: sm_80}]'),
    ("families/wgmma/family.yaml", 'introduced: {targets: sm_90a, ptx: "8.0"}', 'introduced: {targets: sm_80, ptx: "8.0"}'),
    ("families/wgmma/family.yaml", "    - {name: d, kind: fragment, io: inout, matrix: d}\n", ""),
    ("families/wgmma/family.yaml", "when: {atype: [f16, bf16]}}", "when: {atype: [f16]}}"),
    ("families/wgmma/mma_async.yaml", "k: [16]", "k: [-1]"),
    ("families/wgmma/mma_async.yaml", "{name: fp8, shape: {k: [32]}", "{name: fp8, shape: {}"),
    ("families/wgmma/family.yaml", "m: [64]", "m: [128]"),
    ("families/wgmma/mma_async_sp.yaml", "{name: sp_meta, kind: metadata, io: in}, ", ""),
    ("families/wgmma/wait_group.yaml", 'opcode: "wgmma.wait_group.sync.aligned"', 'opcode: "foo"'),
    ("families/mma/mma_sp.yaml", 'spvariant: [sp, "sp::ordered_metadata"], ', ""),
    ("families/mma/mma.yaml", "alayout: [row], ", ""),
    ("smem/wgmma.yaml", 'swizzle: "a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4)"', 'swizzle: "0"'),
    ("smem/wgmma.yaml", 'swizzle: "a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4)"', 'swizzle: "a ^ 16"'),
    ("smem/wgmma.yaml", "repeat: 1024", "repeat: 1000"),
    ("isa.yaml", '{name: sm_90a, arch: 90, suffix: a, ptx: "8.0"}',
     '{name: sm_90a, arch: 90, suffix: a, ptx: "9.5"}'),
    # issue 30: the frontier surfaces (the descriptor file's shapes, codes and K, and tcgen05's
    # tensor-memory placements, which validate refuses since items 1-5 were done; numerics;
    # introductions; evidence)
    ("descriptors/tcgen05.yaml", "m: [64, 128]", "m: [72, 128]"),
    ("descriptors/tcgen05.yaml", "m: [64, 128]", "m: [1024]"),
    ("descriptors/tcgen05.yaml", "m: [64, 128]", "m: [32, 128]"),
    ("descriptors/tcgen05.yaml", "n: {range: [8, 256, 8]}", "n: {range: [8, 256, 4]}"),
    ("descriptors/tcgen05.yaml", "m_sparse: [256]", "m_sparse: [512]"),
    ("descriptors/tcgen05.yaml", "n_sparse: [64, 128]", "n_sparse: [64, 100]"),
    ("descriptors/tcgen05.yaml", "f16: 0", "f16: 1"),
    ("descriptors/tcgen05.yaml", "e5m2: 1", "e5m2: 0"),
    ("descriptors/tcgen05.yaml", '"16": 2', '"16": 1'),
    ("descriptors/tcgen05.yaml", "kind::f16: 16", "kind::f16: 17"),
    ("layouts/tcgen05.yaml", 'a_lanes: ["m"]', 'a_lanes: ["m // 2"]'),
    ("layouts/tcgen05.yaml", 'byte: "id + s"', 'byte: "2 * id + s"'),
    ("layouts/tcgen05.yaml", '"r % 32 + 32 * q"', '"r % 32"'),
    ("layouts/tcgen05.yaml", 'lane: *by_row, column: "r // 32"', 'lane: *by_row, column: "(r % 128) // 32"'),
    ("numerics.yaml", "params: {group: 4, F: 25, round: rz}", "params: {group: 4, F: -5, round: rz}"),
    ("numerics.yaml", "params: {group: 4, F: 25, round: rz}", "params: {group: 3, F: 25, round: rz}"),
    ("numerics.yaml", "params: {group: 4, F: 25, round: rz}", "params: {group: 4, F: 25, round: rq}"),
    ("numerics.yaml", "params: {F: 13, round: rz, keep: 13}", "params: {F: 13, round: rz, keep: 99}"),
    ("numerics.yaml", "params: {F: 13, round: rz, keep: 13}", "params: {F: 13, round: rz, keep: 14}"),
    ("numerics.yaml", "round: rz, split: 2}", "round: rz, split: 3}"),
    ("numerics.yaml", "round: rz, via: f32}", "round: rz, via: e4m3}"),
    ("numerics.yaml", "finite: 1}", "finite: 7}"),
    ("numerics.yaml", "atype: [s8, u8, s4, u4], dtype: s32}", "atype: [s8, u8, s4, u4, f16], dtype: s32}"),
    ("numerics.yaml", "params: {F: 25, round: rz}", "params: {F: 24, round: rz}"),
    ("families/ldmatrix/ldmatrix.yaml", '  - {ptx: "6.5", targets: {at_least: sm_75}}',
     '  - {ptx: "6.3", targets: {at_least: sm_75}}'),
    ("families/ldmatrix/ldmatrix.yaml", '  - {ptx: "6.5", targets: {at_least: sm_75}}',
     '  - {ptx: "6.5", targets: {at_least: sm_70}}'),
    ("families/tcgen05/family.yaml", '    - {ptx: "8.6", targets: sm_100a}', '    - {ptx: "8.6", targets: sm_90a}'),
    ("families/mma/mma.yaml", 'introduced: {targets: {at_least: sm_70}, ptx: "6.4"}',
     'introduced: {targets: {at_least: sm_70}, ptx: "7.0"}'),
    (EV + "mma-2026-11-22.json", ": [10, 1280, 0]", ": [6, 384, 999]"),
    (EV + "mma-2026-11-22.json", ": [10, 1280, 0]", ": [6, 0, 5]"),
    (EV + "mma-2026-11-22.json", '"date": "2026-11-22"', '"date": "2026-13-45"'),
    (EV + "mma-2026-11-22.json", '"hardware": "H100"', '"hardware": "B200"'),
    (EV + "mma-2026-11-22.json", '"campaign": "mma-2026-11-22"', '"campaign": "mma-2026-11-21"'),
    (EV + "mma-2026-11-22.json", '"records/mma-2026-11-22.json"', '"records/mma-2026-11-21.json"'),
    (EV + "mma-2026-11-22.json", '"notes": "campaigns/notes/2026-11-22-mma.md"', '"notes": "campaigns/notes/x.md"'),
    (EV + "wgmma-2026-11-22.json", '"date": "2026-11-22",', '"date": "2026-11-22",\n  "date": "2026-11-23",'),
    (EV + "numerics-2026-11-22.json", '"proves": "numerics"', '"proves": "maps"'),
    (EV + "mma-2026-11-22.json", ": [10, 1280, 0]", ": [10, 1280, 1]"),  # possible, but not what the records say
    (EV + "mma-sp-2026-11-22.json", '"records/mma-sp-int4-2026-11-22.json"', '"records/mma-sp-2026-11-22.json"'),
    # operand defaults: outside an immediate's legal values, a predicate that is not 0 or 1
    ("families/tcgen05/family.yaml", 'default: 0, forms: [desc_scaled, tmem_scaled], when: {kind: ["kind::i8"',
     'default: 1000000, forms: [desc_scaled, tmem_scaled], when: {kind: ["kind::i8"'),
    ("families/tcgen05/family.yaml", "kind: predicate, io: in, default: 1}", "kind: predicate, io: in, default: 5}"),
]


class Tree:
    """A mutable copy of the spec tree: {relative path: bytes}, written out at the end."""

    def __init__(self, files: dict[str, bytes]):
        self.files = dict(files)
        self.special: list[tuple[str, str]] = []  # (relative path, what): FIFOs, links, modes

    def pick(self, rng) -> str:
        return rng.choice(sorted(self.files))

    def lines(self, rel):
        return self.files[rel].split(b"\n")

    def set_lines(self, rel, lines):
        self.files[rel] = b"\n".join(lines)

    def write(self, root: Path) -> None:
        """The tree at root (spec/), its evidence beside it with the checkout's records and campaign
        notes linked in (read only)."""
        evidence = root.parent / "evidence"
        evidence.mkdir(parents=True, exist_ok=True)
        for link, target in ((evidence / "records", EVIDENCE / "records"), (root.parent / "campaigns", ROOT / "campaigns")):
            if not link.exists():
                link.symlink_to(target)
        for rel, data in self.files.items():
            p = evidence / rel[len(EV):] if rel.startswith(EV) else root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        for rel, what in self.special:
            p = evidence / rel[len(EV):] if rel.startswith(EV) else root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if p.exists() or p.is_symlink():
                p.unlink()
            if what == "fifo":
                os.mkfifo(p)
            elif what.startswith("link:"):
                p.symlink_to(what[5:])
            elif what == "unreadable":
                p.write_bytes(b"kind: isa\n")
                p.chmod(0)
            elif what == "dir-loop":
                p.symlink_to(root)


def _line_edit(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    lines = tree.lines(rel)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    how = rng.choice(["delete", "duplicate", "swap", "indent", "dedent", "blank"])
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    elif how == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif how == "indent":
        lines[i] = b"  " + lines[i]
    elif how == "dedent":
        lines[i] = lines[i][2:] if lines[i].startswith(b"  ") else lines[i]
    else:
        lines[i] = b""
    tree.set_lines(rel, lines)
    return f"{how} line {i + 1} of {rel}"


def _key_delete(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    lines = tree.lines(rel)
    keyed = [i for i, line in enumerate(lines) if re.match(rb"^\s*-?\s*[A-Za-z_$][\w$]*:", line)]
    if not keyed:
        return _line_edit(tree, rng)
    i = rng.choice(keyed)
    indent = len(lines[i]) - len(lines[i].lstrip())
    end = i + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    del lines[i:end]
    tree.set_lines(rel, lines)
    return f"delete key at line {i + 1} of {rel} ({end - i} lines)"


def _typo(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    data = bytearray(tree.files[rel])
    if not data:
        return "typo in an empty file"
    k = rng.randrange(len(data))
    how = rng.choice(["replace", "delete", "insert"])
    char = rng.choice(b"abcxyz019_.-:{}[],'\" \t\n#&*!|>%@`")
    if how == "replace":
        data[k] = char
    elif how == "delete":
        del data[k]
    else:
        data.insert(k, char)
    tree.files[rel] = bytes(data)
    return f"typo ({how} {chr(char)!r}) at byte {k} of {rel}"


def _sub_token(tree: Tree, rng, pattern: bytes, choices, what: str) -> str:
    rel = tree.pick(rng)
    text = tree.files[rel]
    hits = list(re.finditer(pattern, text))
    if not hits:
        return f"no {what} in {rel}"
    m = rng.choice(hits)
    new = rng.choice(choices)
    tree.files[rel] = text[:m.start(1)] + new.encode() + text[m.end(1):]
    return f"{what} {m.group(1)[:30]!r} -> {new[:30]!r} in {rel}"


def _number(tree: Tree, rng) -> str:
    return _sub_token(tree, rng, rb"(?<![\w.\"'])(-?\d+)(?![\w.\"'])", HOSTILE_NUMBERS, "number")


def _formula(tree: Tree, rng) -> str:
    keys = b"|".join(k.encode() for k in FORMULA_KEYS)
    return _sub_token(tree, rng, rb"\b(?:" + keys + rb'):\s*"([^"\n]*)"', HOSTILE_FORMULAS, "formula")


def _nesting(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    depth = rng.choice([10, 63, 64, 65, 100, 1000, 30000])
    opener, closer = rng.choice([("[", "]"), ("{a: ", "}"), ("- ", "")])
    if opener == "- ":
        body = "".join("  " * d + "-\n" for d in range(min(depth, 3000)))
    else:
        body = "x: " + opener * depth + "1" * (opener == "[") + closer * depth + "\n"
    tree.files[rel] += ("\n" + body).encode()
    return f"nesting {opener.strip()!r} x{depth} appended to {rel}"


def _unicode(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    data = tree.files[rel]
    k = rng.randrange(len(data) + 1)
    if rng.random() < 0.3:
        junk = bytes(rng.choice([0xff, 0xfe, 0xc3, 0x80, 0xed, 0xa0, 0x00]) for _ in range(rng.randint(1, 4)))
    else:
        junk = "".join(rng.choice(UNICODE) for _ in range(rng.randint(1, 5))).encode("utf-8", "surrogatepass")
    tree.files[rel] = data[:k] + junk + data[k:]
    return f"{junk!r} inserted at byte {k} of {rel}"


def _yaml_trick(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    how = rng.choice(["tag", "bomb", "alias", "merge", "document", "empty", "truncate"])
    data = tree.files[rel]
    if how == "tag":
        lines = tree.lines(rel)
        i = rng.randrange(len(lines))
        if b": " in lines[i]:
            key, _, _ = lines[i].partition(b": ")
            lines[i] = key + b": " + rng.choice(TAGS).encode()
        tree.set_lines(rel, lines)
    elif how == "bomb":
        lol = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
        for prev, cur in zip("abcdefgh", "bcdefghi"):
            lol.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
        tree.files[rel] = data + ("\n" + "\n".join(lol) + "\nrules: *i\n").encode()
    elif how == "alias":
        tree.files[rel] = data.replace(b"signatures:\n", b"signatures: &s\n  self: *s\n", 1)
    elif how == "merge":
        tree.files[rel] = data + b"\nextra: {<<: {a: 1}}\n"
    elif how == "document":
        tree.files[rel] = data + b"\n---\nkind: isa\n"
    elif how == "empty":
        tree.files[rel] = rng.choice([b"", b"---\n", b"~\n", b"null\n", b"# nothing\n", b"[]\n", b"'x'\n", b"1\n"])
    else:
        tree.files[rel] = data[:rng.randrange(len(data) + 1)]
    return f"YAML {how} in {rel}"


def _file_op(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    how = rng.choice(["rename", "move", "copy", "delete", "stray"])
    if how == "rename":
        new = rel.rsplit(".", 1)[0] + rng.choice([".YAML", ".yml", ".Yaml", ".yaml~", ".yaml.bak", "", ".json",
                                                  ".JSON", ".json~"])
        tree.files[new] = tree.files.pop(rel)
        return f"rename {rel} -> {new}"
    if how == "move":
        new = rng.choice(["", "families/", "layouts/", "errata/", "smem/", "families/wgmma/", "families/mma/",
                          "extra/deeper/"]) + Path(rel).name
        if new != rel:
            tree.files[new] = tree.files.pop(rel)
        return f"move {rel} -> {new}"
    if how == "copy":
        new = rel.rsplit(".", 1)[0] + ("_copy.json" if rel.startswith(EV) else "_copy.yaml")
        tree.files[new] = tree.files[rel]
        return f"copy {rel} -> {new}"
    if how == "delete":
        del tree.files[rel]
        return f"delete {rel}"
    name = rng.choice(["README.md", ".hidden.yaml", "notes.txt", "x.yaml", "families/empty.yaml", "bin.yaml",
                       EV + "stray.json", EV + ".hidden.json"])
    tree.files[name] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    return f"stray file {name}"


def _special(tree: Tree, rng) -> str:
    rel = tree.pick(rng)
    how = rng.choice(["fifo", "link:/dev/zero", "link:/dev/null", "link:loop", "link:nowhere.yaml", "dir-loop",
                      "unreadable", "link:/etc/hostname", "link:../../../../../../../../etc/passwd"])
    if how == "link:loop":
        how = f"link:{Path(rel).name}"
    if how == "dir-loop":
        rel = str(Path(rel).parent / "loopdir")
    else:
        tree.files.pop(rel, None)
    tree.special.append((rel, how))
    return f"{how} at {rel}"


def _semantic(tree: Tree, rng) -> str:
    rel, old, new = rng.choice(SEMANTIC)
    if rel not in tree.files or old.encode() not in tree.files[rel]:
        return f"semantic edit of {rel} not applicable"
    tree.files[rel] = tree.files[rel].replace(old.encode(), new.encode(), 1)
    return f"semantic: {old[:40]!r} -> {new[:40]!r} in {rel}"


MUTATIONS = [(_line_edit, 5), (_key_delete, 4), (_typo, 4), (_number, 4), (_formula, 3), (_nesting, 1),
             (_unicode, 2), (_yaml_trick, 2), (_file_op, 2), (_special, 1), (_semantic, 4)]


def mutate(tree: Tree, rng) -> list[str]:
    funcs, weights = zip(*MUTATIONS)
    return [rng.choices(funcs, weights)[0](tree, rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]


# -- query cases ---------------------------------------------------------------------------------

FIELDS = ["n", "m", "k", "atype", "btype", "dtype", "family", "form", "min_ptx", "id", "ptx", "targets", "regs",
          "sparse", "satfinite", "batch", "threads", "nosuch", "N", "_", "a" * 300]
VALUES = ["8", "-1", "0", "256", "9999999999999999999", "-9223372036854775809", "1" * 5000, "0x10", "0b1", "1e3",
          "f16", "e4m3", "true", "no", "", ",", "8,16,24", ",".join(map(str, range(3000))), "*", "%", "_", "\\",
          "'", '"', "\x00", "\u202e", "\U0001f600", "m64n*", "*" * 40, "*a" * 150, "8.0", "sm_90a", "reg"]
OPS = ["=", "!=", "<", "<=", ">", ">=", "~", "==", "=~", ""]


def query_args(rng, databases: dict[str, Path]) -> list[str]:
    args = ["query"]
    if rng.random() < 0.35:
        args += ["--db", str(databases[rng.choice(sorted(databases))])]
    for opt, pool in (("--family", ["wgmma", "mma", "wmma", "x", ""]), ("--target", ["sm_90a", "sm_80", "sm_9", ""]),
                      ("--ptx", ["8.0", "7.8", "9.5", "99.9", "8", ""]),
                      ("--format", ["table", "json", "csv"])):
        if rng.random() < 0.3:
            args += [opt, rng.choice(pool)]
    if rng.random() < 0.1:
        args.append("--errata")
    if rng.random() < 0.2:
        args += ["--variant", rng.choice(["wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "mma", "",
                                          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "%", "x" * 500])]
        if rng.random() < 0.5:
            args += ["--form", rng.choice(["reg", "desc"])]
    if rng.random() < 0.2:
        args += ["--fragment", rng.choice(["a", "b", "c", "d", "e", "sp_meta", ""])]
        for opt in ("--row", "--col", "--thread"):
            if rng.random() < 0.4:
                args += [opt, rng.choice(["0", "5", "-1", "127", "4096", str(1 << 63), str(1 << 70), "x"])]
    if rng.random() < 0.1:
        args.append("--operands")
    count = rng.choice([0, 1, 1, 2, 3, 5, 65, 300])
    for _ in range(count):
        args.append(rng.choice(FIELDS) + rng.choice(OPS) + rng.choice(VALUES))
    return args


def damaged_databases(work: Path) -> dict[str, Path]:
    """The real database, and damaged or foreign copies of it, each once per campaign."""
    good = work / "ptxspec.sqlite"
    shutil.copyfile(DATABASE, good)
    out = {"good": good}
    data = good.read_bytes()

    def put(name: str, content: bytes) -> Path:
        p = work / name
        p.write_bytes(content)
        out[name] = p
        return p

    put("truncated_half.sqlite", data[: len(data) // 2])
    put("truncated_header.sqlite", data[:100])
    put("empty.sqlite", b"")
    put("text.sqlite", b"SQLite format 3\x00 but not really\n")
    garbled = bytearray(data)
    for off in range(4096, len(garbled), 32768):
        garbled[off:off + 64] = b"\xde\xad\xbe\xef" * 16
    put("garbled.sqlite", bytes(garbled))
    header = bytearray(data)
    header[16:18] = b"\x00\x03"  # an impossible page size
    put("bad_page_size.sqlite", bytes(header))
    for name, sql in (("bad_json", "UPDATE signatures SET regs = '{not json'; UPDATE requirements SET targets = '[[[['; "
                                   "UPDATE json_fragments SET json = '\"op\":[[[['"),
                      ("deep_json", "UPDATE requirements SET requires = '" + "[" * 50000 + "'"),
                      ("no_table", "DROP VIEW fragment_elements; DROP TABLE variant_rows"),
                      ("newer", f"PRAGMA user_version = {_query.DATABASE_VERSION + 1}"),
                      ("foreign_app", "PRAGMA application_id = 7"),
                      ("huge_ints", "UPDATE variant_rows SET n = 9223372036854775807, m = -9223372036854775808"),
                      ("text_ints", "UPDATE variant_rows SET n = 'x', k = X'00ff'")):
        p = work / f"{name}.sqlite"
        shutil.copyfile(good, p)
        conn = sqlite3.connect(p)
        try:  # the database's own tables (variants and others are views over them)
            conn.executescript(sql)
            conn.commit()
        except sqlite3.Error as exc:
            print(f"fuzz: cannot make the {name} database ({exc}); the layout changed: update fuzz.py", file=sys.stderr)
            raise
        finally:
            conn.close()
        out[name] = p
    for name, view, endless in (("endless_variants", "variants", True), ("endless_fragments", "fragment_elements", True),
                                ("huge_variants", "variants", False)):
        p = work / f"{name}.sqlite"
        shutil.copyfile(good, p)
        conn = sqlite3.connect(p)
        try:  # a view replaced by one that recurses without end (or joins 4,167^3 rows), application id kept
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", (view,)).fetchone()[0]
            body = ("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT v.* FROM real_view v "
                    "JOIN r ON r.x < 0") if endless else \
                "SELECT v.* FROM real_view v, real_view w, real_view z WHERE w.n + z.n < 0 OR 1"
            conn.executescript(f"DROP VIEW {view}; " + sql.replace(f'VIEW "{view}"', "VIEW real_view", 1) + "; "
                               f"CREATE VIEW {view} AS {body};")
            conn.commit()
        finally:
            conn.close()
        out[name] = p
    foreign = work / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE variants (id TEXT, n INTEGER)")
    conn.commit()
    conn.close()
    out["foreign"] = foreign
    odd = work / "we#ird?name%20.sqlite"
    shutil.copyfile(good, odd)
    out["odd_name"] = odd
    fifo = work / "fifo.sqlite"
    os.mkfifo(fifo)
    out["fifo"] = fifo
    out["missing"] = work / "missing.sqlite"
    out["directory"] = work
    return out


# -- the campaign --------------------------------------------------------------------------------

def pristine_files() -> dict[str, bytes]:
    """The repository's spec files, by path relative to spec/, and its evidence files (EV + name):
    what every tree case mutates."""
    files = {p.relative_to(SPEC).as_posix(): p.read_bytes() for p in sorted(SPEC.rglob("*.yaml"))}
    files.update({EV + p.name: p.read_bytes() for p in sorted(EVIDENCE.glob("*.json"))})
    return files


def mutated_tree(pristine: dict[str, bytes], seed: int, i: int):
    """Tree case i of a campaign with this seed: (the tree, its mutations, the case's random stream
    after mutating, which goes on to decide whether the tree is built)."""
    rng = random.Random(f"{seed}:tree:{i}")
    tree = Tree(pristine)
    return tree, mutate(tree, rng), rng


class SurfaceCases:
    """The API and render cases of a campaign (tests/fuzz_surfaces.py), as Campaign methods."""

    seed: int
    work: Path
    keep: Path | None
    count: Any
    record: Any
    fail: Any

    def api_case(self, i: int) -> None:
        if getattr(self, "api", None) is None:
            self.api = surfaces.spec_and_parts()
        spec, bases, helpers = self.api
        rng = random.Random(f"{self.seed}:api:{i}")
        what, func = surfaces.api_case(spec, bases, helpers, rng)
        status, code, err, seconds = surfaces.run_call(func)
        verdicts = {0: "answered", 1: "refused", 3: "crashed", 4: "answered wrongly"}
        verdict = verdicts.get(code, f"exit {code}") if status == "exit" and code is not None else status
        self.count(f"api {verdict}")
        self.record({"case": f"api:{i}", "call": what, "api": [status, code], "seconds": round(seconds, 3),
                     "first_line": err.strip().splitlines()[-1][:300] if err.strip() else ""})
        if status != "exit" or code in (3, 4) or code not in (0, 1):
            self.fail(f"api:{i}", [f"{what}: {verdict}: {err.strip()[-600:]}"], [what])

    def render_case(self, i: int) -> None:
        rng = random.Random(f"{self.seed}:render:{i}")
        case_dir = Path(tempfile.mkdtemp(prefix=f"render{i}-", dir=self.work))
        path, out = case_dir / "t.j2", case_dir / "out.txt"
        path.write_bytes(surfaces.template(rng))
        args = surfaces.render_args(rng, path, out)
        outcome = run_cli(args, LIMITS["render"], case_dir)
        why = problems_in(outcome, "render")
        if outcome.status == "exit" and outcome.code == 1 and out.exists():
            why.append("a failed render wrote its --out file")
        self.count(f"render {outcome.status} {outcome.code}")
        self.record({"case": f"render:{i}", "template": path.read_bytes()[:200].decode("utf-8", "replace"),
                     "render": [outcome.status, outcome.code], "seconds": round(outcome.seconds, 2),
                     "first_line": outcome.err.strip().splitlines()[0][:300] if outcome.err.strip() else ""})
        if why:
            self.fail(f"render:{i}", why, [path.read_bytes()[:200].decode("utf-8", "replace")])
            if self.keep:
                shutil.copytree(case_dir, self.keep / f"render{i}", dirs_exist_ok=True)
        _remove(case_dir)


class Campaign(SurfaceCases):
    def __init__(self, seed: int, work: Path, log, build_rate: float, keep: Path | None):
        self.seed, self.work, self.log, self.build_rate, self.keep = seed, work, log, build_rate, keep
        self.pristine = pristine_files()
        self.counts: dict[str, int] = {}
        self.failures: list[str] = []
        self.databases: dict[str, Path] | None = None
        self.built: dict[str, str] = {}  # content key of each tree built -> its case

    def count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def record(self, entry: dict) -> None:
        if self.log:
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()

    def fail(self, case: str, why: list[str], mutations) -> None:
        self.count("failures")
        text = f"FAIL {case} (seed {self.seed}): {'; '.join(why)}; mutations: {mutations}"
        self.failures.append(text)
        print(text, file=sys.stderr, flush=True)

    def tree_case(self, i: int) -> None:
        tree, mutations, rng = mutated_tree(self.pristine, self.seed, i)
        case_dir = Path(tempfile.mkdtemp(prefix=f"tree{i}-", dir=self.work))
        root = case_dir / "spec"
        tree.write(root)
        outcome = run_cli(["--spec", str(root), "validate"], LIMITS["validate"], case_dir)
        why = problems_in(outcome, "validate")
        self.count(f"tree validate {outcome.status} {outcome.code}")
        entry = {"case": f"tree:{i}", "mutations": mutations, "validate": [outcome.status, outcome.code],
                 "seconds": round(outcome.seconds, 2), "first_line": outcome.err.splitlines()[0][:300]
                 if outcome.err else outcome.out.strip()[:300]}
        if not why and outcome.code == 0 and (rng.random() < self.build_rate):
            key = _content_key(root)
            if key in self.built:  # the same documents as a tree built before: the same build
                entry["build"] = "same as " + self.built[key]
                self.count("tree build skipped: same documents as one built")
            else:
                self.built[key] = f"tree:{i}"
                why = self.build(root, case_dir, entry)
        self.record(entry)
        if why:
            self.fail(f"tree:{i}", why, mutations)
            if self.keep:
                shutil.copytree(root, self.keep / f"tree{i}", symlinks=True, dirs_exist_ok=True)
        _remove(case_dir)

    def build(self, root: Path, case_dir: Path, entry: dict) -> list[str]:
        out = case_dir / "out"
        out.mkdir()
        (out / "keep.txt").write_text("must survive a failed build\n")
        before = snapshot(out)
        outcome = run_cli(["--spec", str(root), "build", "--out", str(out)], LIMITS["build"], case_dir)
        self.count(f"tree build {outcome.status} {outcome.code}")
        entry["build"] = [outcome.status, outcome.code]
        why = problems_in(outcome, "build")
        if outcome.status == "exit" and outcome.code != 0 and snapshot(out) != before:
            why.append("a failed build changed its output directory")
        if outcome.status == "exit" and outcome.code == 0 and not (out / "ptxspec.sqlite").is_file():
            why.append("build exited 0 without writing ptxspec.sqlite")
        return why

    def query_case(self, i: int) -> None:
        if self.databases is None:
            self.databases = damaged_databases(Path(tempfile.mkdtemp(prefix="dbs-", dir=self.work)))
            self.db_state = {name: _state(p) for name, p in self.databases.items()}
            self.db_dir = snapshot(self.databases["good"].parent)
        rng = random.Random(f"{self.seed}:query:{i}")
        args = query_args(rng, self.databases)
        outcome = run_cli(args, LIMITS["query"], self.work)
        why = problems_in(outcome, "query")
        self.count(f"query {outcome.status} {outcome.code}")
        if snapshot(self.databases["good"].parent) != self.db_dir:
            why.append("a query changed the database directory")
            self.db_dir = snapshot(self.databases["good"].parent)
        self.record({"case": f"query:{i}", "args": [a[:80] for a in args[:12]] + (["..."] if len(args) > 12 else []),
                     "query": [outcome.status, outcome.code], "seconds": round(outcome.seconds, 2),
                     "first_line": (outcome.err or outcome.out).strip().splitlines()[0][:300]
                     if (outcome.err or outcome.out).strip() else ""})
        if why:
            self.fail(f"query:{i}", why, [a[:80] for a in args[:12]])


def _content_key(root: Path) -> str:
    """What a tree's documents (and its evidence files) say, whatever their comments and layout: the
    parsed files, as JSON."""
    import hashlib

    import yaml
    h = hashlib.sha256()
    evidence = sorted(p for p in (root.parent / "evidence").glob("*") if not p.is_symlink())
    for p in sorted(root.rglob("*")) + evidence:
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            try:
                data = json.dumps(yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)),
                                  sort_keys=True, default=str).encode()
            except Exception:  # noqa: BLE001 - not YAML after all: its bytes then
                pass
            h.update(p.relative_to(root.parent).as_posix().encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _state(p: Path):
    try:
        st = p.lstat()
        return (st.st_mode, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def _remove(path: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(path):  # unreadable files and directories: make them ours
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                try:
                    p.chmod(stat.S_IRWXU)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--seconds", type=float, default=None, help="stop starting cases after this long")
    ap.add_argument("--trees", type=int, default=None, help="tree cases (default: unbounded, or until --seconds)")
    ap.add_argument("--queries", type=int, default=None, help="query cases")
    ap.add_argument("--api", type=int, default=None, help="API calls with hostile arrays (tests/fuzz_surfaces.py)")
    ap.add_argument("--renders", type=int, default=None, help="render cases on hostile templates")
    ap.add_argument("--start", type=int, default=0, help="first case number (to run a campaign in chunks)")
    ap.add_argument("--build-all", action="store_true", help="build every tree validate accepts")
    ap.add_argument("--build-rate", type=float, default=0.05, help="share of accepted trees built")
    ap.add_argument("--log", type=Path, help="JSON lines, one per case")
    ap.add_argument("--keep", type=Path, help="copy each failing tree here")
    ap.add_argument("--replay", metavar="KIND:I", help="run one case (tree:I, query:I, api:I or render:I)")
    args = ap.parse_args(argv)
    wanted = {"tree": args.trees, "query": args.queries, "api": args.api, "render": args.renders}
    if args.seconds is None and all(n is None for n in wanted.values()) and not args.replay:
        ap.error("give --seconds, --trees/--queries/--api/--renders or --replay")
    ptxspec.load(SPEC)  # imports, schema validators and compiled formulas, warm in every child
    work = Path(tempfile.mkdtemp(prefix="ptxspec-fuzz-"))
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    campaign = Campaign(args.seed, work, log, 1.0 if args.build_all else args.build_rate, args.keep)
    run = {"tree": campaign.tree_case, "query": campaign.query_case, "api": campaign.api_case,
           "render": campaign.render_case}
    start = time.monotonic()
    try:
        if args.replay:
            kind, _, i = args.replay.partition(":")
            run[kind](int(i))
        else:
            # with no count given, every kind runs until --seconds, in these proportions; with some
            # counts given, only those kinds, each up to its count
            if all(n is None for n in wanted.values()):
                targets = {k: None for k in wanted}
            else:
                targets = {k: n for k, n in wanted.items() if n is not None}
            weight = {"tree": 4, "query": 1, "api": 3, "render": 1}
            done = dict.fromkeys(targets, 0)
            while args.seconds is None or time.monotonic() - start < args.seconds:
                open_kinds = [k for k, n in targets.items() if n is None or done[k] < n]
                if not open_kinds:
                    break
                kind = min(open_kinds, key=lambda k: (done[k] / weight[k], k))
                run[kind](args.start + done[kind])
                done[kind] += 1
    finally:
        if log:
            log.close()
        _remove(work)
    seconds = time.monotonic() - start
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(campaign.counts.items()))
    print(f"fuzz seed {args.seed}: {seconds:.0f}s; {summary}", file=sys.stderr)
    return 1 if campaign.failures else 0


if __name__ == "__main__":
    sys.exit(main())
