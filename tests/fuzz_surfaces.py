"""The fuzzer's cases beyond the command line's spec trees and queries (tests/fuzz.py runs them):
the Python API with hostile arrays, and user templates.

API cases (`api:I`) start from a valid call (a baseline: an executor with operands it runs on, a
tensor-memory helper, a descriptor decoder, pack/unpack) and change it in one of three ways:

  hostile     a value that is no such operand (floats, NaN, booleans, strings, negative or too wide
              integers, an empty batch, a wrong shape, an address past the image, an origin below
              0, an unknown operand name): the call must raise TypeError/ValueError (or LookupError,
              NotImplementedError); returning is answering wrong;
  equivalent  the same values in another integer dtype, as Python lists, or in a batch of one: the
              call must answer exactly what the baseline answered;
  any         a value that may or may not be valid (a random descriptor word, a random size): the
              call may answer or refuse, never crash.

Template cases (`render:I`) put together hostile Jinja snippets (endless loops, huge repetitions,
paddings and formats, doubling in a namespace, recursion, sandbox escapes, syntax errors, the
model) and run `ptxspec render` on them: exit 0, or 1 with one located line, never anything else.
Every case runs in a forked child with an address-space limit and a time limit.
"""
from __future__ import annotations

import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import ptxspec
from ptxspec.model import descriptors as D
from ptxspec.model import smem as S
from ptxspec.model import tmem

REFUSALS = (TypeError, ValueError, LookupError, NotImplementedError)
API_LIMIT = 60  # seconds: a hang guard (a call here takes milliseconds)
MEMORY = 4 << 30


# -- running a call in a forked child ----------------------------------------------------------

def forked(child, limit: float, out=None, err=None) -> tuple[str, int | None, float]:
    """child() in a forked process of its own group, under the memory limit, with stdout/stderr
    sent to the files `out`/`err` (where given): (status 'exit' | 'signal' | 'hang', code, seconds).
    child() returns the exit code; a child still running after `limit` seconds (a hang guard) is
    killed with its group."""
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 99
        try:
            os.setsid()
            for file, fd in ((out, 1), (err, 2)):
                if file is not None:
                    os.dup2(file.fileno(), fd)
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            code = child()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 99)
    status, code = "hang", None
    while True:
        done, wstatus = os.waitpid(pid, os.WNOHANG)
        if done:
            status, code = ("signal", os.WTERMSIG(wstatus)) if os.WIFSIGNALED(wstatus) else \
                ("exit", os.WEXITSTATUS(wstatus))
            break
        if time.monotonic() - start > limit:
            for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    kill()
                    break
                except (ProcessLookupError, PermissionError):
                    continue
            os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    return status, code, time.monotonic() - start


def run_call(func, limit: float = API_LIMIT) -> tuple[str, int | None, str, float]:
    """func() in a forked child: (status 'exit' | 'signal' | 'hang', code, stderr text, seconds).
    Exit 0: it returned; 1: refused (REFUSALS); 3: another exception; 4: an expectation failed."""
    def child() -> int:  # pragma: no cover - the child
        try:
            func()
            return 0
        except Expectation as exc:
            print(f"expectation failed: {exc}", file=sys.stderr)
            return 4
        except REFUSALS as exc:
            print(f"refused: {type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr)
            return 1
        except BaseException as exc:  # noqa: BLE001 - any other exception is a finding
            traceback.print_exc()
            print(f"crash: {type(exc).__name__}", file=sys.stderr)
            return 3

    with tempfile.TemporaryFile() as err:
        status, code, seconds = forked(child, limit, err=err)
        err.seek(0)
        return status, code, err.read().decode("utf-8", "replace"), seconds


class Expectation(Exception):
    """A call that returned where it had to refuse, or answered unlike its baseline."""


# -- baselines: valid calls ----------------------------------------------------------------------

@dataclass
class Baseline:
    name: str
    variant: object | None
    ops: dict
    call: Any  # (ops) -> result
    registers: tuple[str, ...] = ()  # operand names that are register fragments / words arrays
    images: tuple[str, ...] = ()  # memory images (uint8)
    addresses: tuple[str, ...] = ()  # per-lane address arrays
    scalars: tuple[str, ...] = ()  # one integer each
    origins: tuple[str, ...] = ()
    result: object = field(default=None, repr=False)


def _zeros(v, name, dtype=np.uint32):
    o = v.operand(name)
    return np.zeros((v.threads, o.regs), np.uint64 if o.reg_type.endswith("64") else dtype)


def _mma_baseline(v) -> Baseline:
    ops, regs, scalars = {}, [], []
    for o in v.operands:
        if o.kind == "fragment" and o.io != "out":
            ops[o.name] = _zeros(v, o.name)
            regs.append(o.name)
        elif o.kind == "metadata":
            nib = v.metadata_nibbles[0]
            word = sum(nib << (4 * i) for i in range(8))
            ops[o.name] = np.full(v.threads, word, np.uint32)
            regs.append(o.name)
        elif o.kind == "scale":
            ops[o.name] = np.full((v.threads, 1), 0x7F7F7F7F, np.uint32)  # ue8m0 127: scale 1
            regs.append(o.name)
        elif o.kind == "scale_selector":
            ops[o.name] = tuple(vals[0] for _, vals in o.parts)
        elif o.kind == "selector":
            ops[o.name] = o.values[0]
            scalars.append(o.name)
    return Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), tuple(regs), (), (), tuple(scalars))


def _wgmma_baseline(v) -> Baseline:
    b = _mma_baseline(v)
    buf = bytearray(1 << 17)
    for o in v.operands:
        if o.kind == "descriptor":
            start = 0x1000 if o.matrix == "a" else 0x9000
            lay = S.write_matrix(buf, v, o.matrix, "K", "128B", start, 16, 1024,
                                 np.zeros(S.operand_shape(v, o.matrix), np.uint64))
            assert lay is not None
            b.ops[o.name] = S.descriptor_for(v, start, 16, 1024, "128B")
    b.ops["smem"] = np.frombuffer(bytes(buf), np.uint8)
    b.images, b.scalars = ("smem",), tuple(o.name for o in v.operands if o.kind == "descriptor")
    return b


def _movement_baselines(spec) -> list[Baseline]:
    out = []
    for prefix in ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x1.shared.b16",
                   "stmatrix.sync.aligned.m8n8.x2.shared.b16", "movmatrix.sync.aligned.m8n8.trans.b16"):
        v = spec.variant(prefix)
        if v.semantics == "load_matrix":
            ops = dict(mem=np.arange(4096, dtype=np.uint64).astype(np.uint8), p=np.arange(32, dtype=np.uint64) * 16)
            out.append(Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), (), ("mem",), ("p",)))
        elif v.semantics == "store_matrix":
            ops = dict(mem=np.zeros(4096, np.uint8), p=np.arange(32, dtype=np.uint64) * 16,
                       r=np.arange(32 * 2, dtype=np.uint32).reshape(32, 2))
            out.append(Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), ("r",), ("mem",), ("p",)))
        else:
            ops = dict(a=np.arange(32, dtype=np.uint32).reshape(32, 1))
            out.append(Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), ("a",)))
    for v in spec.variants:
        if v.semantics in ("fragment_load", "fragment_store") and v.qualifiers.get("layout") == "row" \
                and v.atype in ("f16", "") and len(out) < 7:
            ops = dict(mem=np.zeros(1 << 16, np.uint8), p=0x100, stride=64)
            regs: tuple[str, ...] = ()
            if v.semantics == "fragment_store":
                ops["r"], regs = _zeros(v, "r"), ("r",)
            out.append(Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), regs, ("mem",), (), ("p", "stride"),
                                ("mem_origin",)))
    return out


def _tcgen05_baseline(spec) -> Baseline:
    v = next(x for x in spec.variants if x.instruction == "tcgen05.mma" and x.form == "desc"
             and x.qualifiers.get("cta_group") == "cta_group::1" and x.qualifiers.get("kind") == "kind::f16"
             and not x.qualifiers.get("ashift") and not x.qualifiers.get("decompress")
             and any(o.name == "disable_output_lane" for o in x.operands))
    desc = S.encode_descriptor(spec, start=0x400, lbo=2048, sbo=128, swizzle="none", family="tcgen05")
    ops = dict(tmem=np.zeros((128, 512), np.uint32), smem=np.zeros(1 << 15, np.uint8), smem_origin=0x400, d=0,
               a_desc=desc, b_desc=desc, enable_input_d=1, disable_output_lane=np.zeros(4, np.uint32),
               idesc=D.encode(spec, "kind::f16", m=128, n=16, atype="f16", btype="f16", dtype="f32"))
    return Baseline(v.id, v, ops, lambda ops, v=v: v.execute(**ops), ("tmem", "disable_output_lane"), ("smem",), (),
                    ("d", "a_desc", "b_desc", "idesc"), ("smem_origin",))


def baselines(spec) -> list[Baseline]:
    """Valid calls, each run once here (a baseline that does not run is left out, and said)."""
    found: list[Baseline] = []
    picks = ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
             "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"]
    cands = [spec.variant(p) for p in picks]
    cands += [next(v for v in spec.variants if v.family == "mma" and v.sparse and v.atype == "f16")]
    cands += [next(v for v in spec.variants if v.family == "mma" and v.qualifiers.get("block_scale") and not v.sparse)]
    for v in cands:
        found.append(_mma_baseline(v))
    for form in ("reg", "desc"):
        v = next(x for x in spec.variants if x.family == "wgmma" and x.form == form and x.m and x.n == 16
                 and x.atype == "f16" and x.dtype == "f32" and not x.sparse)
        found.append(_wgmma_baseline(v))
    found += _movement_baselines(spec)
    found.append(_tcgen05_baseline(spec))
    good = []
    for b in found:
        try:
            b.result = b.call(b.ops)
            good.append(b)
        except Exception as exc:  # noqa: BLE001 - a baseline that does not run is left out
            print(f"fuzz: baseline {b.name} does not run ({type(exc).__name__}: {exc}); left out", file=sys.stderr)
    return good


# -- changing a call -------------------------------------------------------------------------------

def _hostile_array(rng, a):
    a = np.asarray(a)
    choices = [
        ("floats", lambda: a.astype(np.float64) + 0.5), ("nan", lambda: np.full(a.shape, np.nan)),
        ("negative", lambda: -1 - a.astype(np.int64)), ("wide", lambda: a.astype(object) + (1 << 64)),
        ("booleans", lambda: a.astype(bool)), ("strings", lambda: a.astype(str)),
        ("objects", lambda: np.full(a.shape, None, dtype=object)), ("complex", lambda: a.astype(np.complex128)),
    ]
    name, make = rng.choice(choices)
    return name, make()


def _shape_hostile(rng, a, cells: bool = False):
    """A shape no operand of this kind has. A tensor-memory image (`cells`) may hold fewer columns
    than a CTA's 512, so there the short side is its lanes."""
    a = np.asarray(a)
    short = ("fewer lanes", lambda: a[:-1]) if cells else ("short", lambda: a[..., :-1])
    name, make = rng.choice([short, ("long", lambda: np.concatenate([a, a[..., :1]], -1)),
                             ("empty batch", lambda: np.zeros((0,) + a.shape, a.dtype)),
                             ("scalar", lambda: np.uint32(0)), ("deep", lambda: a[None, None])])
    return name, make()


def _hostile_scalar(rng, x):
    return rng.choice([("float", float(int(x)) + 0.5), ("string", str(int(x))), ("huge", int(x) + (1 << 70)),
                       ("none", None), ("list", [int(x), int(x)]), ("complex", complex(int(x), 1))])


def change(rng, b: Baseline):
    """(how, expectation 'refuse' | 'same' | 'any', changed ops)."""
    ops = dict(b.ops)
    kinds = (["register"] * 4 * bool(b.registers) + ["shape"] * 2 * bool(b.registers) + ["image"] * bool(b.images)
             + ["address"] * 2 * bool(b.addresses) + ["scalar"] * 2 * bool(b.scalars) + ["origin"] * bool(b.origins)
             + ["unknown", "equivalent", "equivalent"])
    kind = rng.choice(kinds)
    if kind == "register":
        name = rng.choice(b.registers)
        how, ops[name] = _hostile_array(rng, ops[name])
        return f"{name}: {how}", "refuse", ops
    if kind == "shape":
        name = rng.choice(b.registers)
        how, ops[name] = _shape_hostile(rng, ops[name], cells=name == "tmem")
        return f"{name}: {how}", "refuse", ops
    if kind == "image":
        name = rng.choice(b.images)
        how, ops[name] = rng.choice([("float image", np.asarray(ops[name]).astype(np.float64)),
                                      ("int16 image", np.asarray(ops[name]).astype(np.int16)),
                                      ("3-d image", np.asarray(ops[name])[None, None]),
                                      ("empty batch image", np.zeros((0, 16), np.uint8))])
        return f"{name}: {how}", "refuse", ops
    if kind == "address":
        name = rng.choice(b.addresses)
        p = np.asarray(ops[name]).astype(object)
        how, ops[name] = rng.choice([("past the image", p + (1 << 62)), ("2**64", p + (1 << 64)),
                                      ("negative", p - 4096 * 4), ("half", p.astype(float) + 0.5),
                                      ("near 2**63", p + (1 << 63) - 16)])
        return f"{name}: {how}", "refuse", ops
    if kind == "scalar":
        name = rng.choice(b.scalars)
        how, ops[name] = _hostile_scalar(rng, ops[name])
        return f"{name}: {how}", "refuse", ops
    if kind == "origin":
        name = rng.choice(b.origins)
        how, ops[name] = rng.choice([("negative", -1), ("2**70", 1 << 70), ("half", 0.5), ("string", "0")])
        return f"{name}: {how}", "refuse", ops
    if kind == "unknown":
        ops[rng.choice(["x", "aa", "mem_orign", "smem_orgin", "pp", "d2"])] = 0
        return "unknown operand", "refuse", ops
    names = list(b.registers) + list(b.addresses)
    if not names:
        return "nothing changed", "same", ops
    name = rng.choice(names)
    a = np.asarray(ops[name])
    how, ops[name] = rng.choice([("int64", a.astype(np.int64)), ("uint64", a.astype(np.uint64)),
                                  ("list", a.tolist()), ("int32 where it fits", a.astype(np.int64) if a.size and
                                                         int(a.max()) >= 1 << 31 else a.astype(np.int32))])
    return f"{name}: {how}", "same", ops


def _helper_cases(spec):
    """(name, call of one hostile or valid argument, expectation) of the tensor-memory helpers,
    the descriptor decoders and pack/unpack."""
    lay = tmem.datapath(spec, 128, "cta_group::1", False, False)
    sf = tmem.scale_layout(spec, "scale_a", lay.id)
    ml = tmem.metadata_layout(spec, "kind::f16", lay.id)
    v = spec.variant("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    bad_ints = [0, -1, 10 ** 9, 2 ** 70, 2.5, "8", True, None]
    return [
        ("d_cells n", lambda n: tmem.d_cells(lay, n=n), bad_ints, [8, 64, 256]),
        ("a_cells bits", lambda bits: tmem.a_cells(lay, 16, bits), [0, -8, 3, 64, 2.0, 10 ** 9], [8, 16, 32]),
        ("a_cells k", lambda k: tmem.a_cells(lay, k, 16), bad_ints, [16, 32]),
        ("scale_cells extent", lambda e: tmem.scale_cells(sf, e, 4, 0), bad_ints, [128]),
        ("scale_cells factors", lambda f: tmem.scale_cells(sf, 128, f, 0), bad_ints, [1, 2]),
        ("metadata_cells chunks", lambda c: tmem.metadata_cells(ml, 128, c, 0), [0, -1, 1000, 10 ** 9, 1.5], [4, 8]),
        ("metadata_cells rows", lambda r: tmem.metadata_cells(ml, r, 4, 0), [0, 129, 10 ** 9, 2 ** 70], [128]),
        ("idesc decode", lambda w: D.decode(spec, "kind::f16", w), [-1, 1 << 32, 1 << 40, 1.5, "1"], None),
        ("smem descriptor decode", lambda w: S.decode_descriptor(spec, w, "tcgen05"), [-1, 1 << 64, 2.5], None),
        ("unpack", lambda r: v.unpack("a", r), [np.full((32, 4), 0.5), np.full((32, 4), -1), np.full((32, 4), 2 ** 40),
                                                np.zeros((0, 32, 4), np.uint32)], [np.zeros((32, 4), np.uint32)]),
        ("pack", lambda m: v.pack("a", m), [np.zeros((16, 16)), np.full((16, 16), 1 << 20, np.uint32),
                                            np.full((16, 16), -1, np.int64)], [np.zeros((16, 16), np.uint16)]),
    ]


def api_case(spec, bases: list[Baseline], helpers, rng) -> tuple[str, object]:
    """(description, the function a child runs) of one API case."""
    if rng.random() < 0.3:
        name, call, bad, good = rng.choice(helpers)
        if good is None or rng.random() < 0.6:
            if good is None and rng.random() < 0.5:
                arg = rng.randrange(1 << 64) if "smem" in name else rng.randrange(1 << 32)
                return f"{name}({arg:#x}): any", lambda: call(arg)
            arg = rng.choice(bad)

            def hostile():
                call(arg)
                raise Expectation(f"{name} answered for {arg!r:.80}")
            return f"{name}({arg!r:.40}): refuse", hostile
        arg = rng.choice(good)
        return f"{name}({arg!r:.40}): answer", lambda: call(arg)
    b = rng.choice(bases)
    how, expect, ops = change(rng, b)

    def run():
        got = b.call(ops)
        if expect == "refuse":
            raise Expectation(f"{b.name} answered although {how}")
        if expect == "same" and not np.array_equal(np.asarray(got), np.asarray(b.result)):
            raise Expectation(f"{b.name}: {how} changed the answer")
    return f"{b.name}: {how}: {expect}", run


# -- templates ---------------------------------------------------------------------------------------

def _n(rng):
    return rng.choice([1, 10, 1000, 100000, 10 ** 8, 2 * 10 ** 9, 2 ** 63])


SNIPPETS = [
    lambda r: f"{{% for i in range({_n(r)}) %}}{{% for j in range({_n(r)}) %}}{{% endfor %}}{{% endfor %}}",
    lambda r: f"{{{{ lipsum({_n(r)}) }}}}",
    lambda r: f"{{{{ 'a'|center({_n(r)}) }}}}",
    lambda r: f"{{{{ 'x\\ny'|indent({_n(r)}, true) }}}}",
    lambda r: f"{{{{ '%{_n(r)}d'|format(1) }}}}",
    lambda r: f"{{{{ '%*d' % ({_n(r)}, 1) }}}}",
    lambda r: f"{{{{ '{{:>{_n(r)}}}'.format(1) }}}}",
    lambda r: f"{{{{ 'a'.ljust({_n(r)}) }}}}",
    lambda r: f"{{{{ ('a' * {r.choice([10, 10 ** 6, 16 * 10 ** 6])})|replace('a', 'aaaaaaaaaaaaaaaa') }}}}",
    lambda r: f"{{{{ [1]|batch({_n(r)}, 0)|list|length }}}}",
    lambda r: f"{{{{ range(10)|list|tojson(indent={_n(r)}) }}}}",
    lambda r: f"{{% set ns = namespace(l=[1]) %}}{{% for i in range({r.choice([5, 30, 100])}) %}}"
              "{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}",
    lambda r: f"{{% set ns = namespace(s='ab') %}}{{% for i in range({r.choice([5, 30, 100])}) %}}"
              "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
    lambda r: f"{{% set ns = namespace(s='ab') %}}{{% for i in range({r.choice([5, 30, 100])}) %}}"
              "{% set ns.s %}{{ ns.s }}{{ ns.s }}{% endset %}{% endfor %}{{ ns.s|length }}",
    lambda r: "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
    lambda r: "{% for v in variants %}{{ v.id }},{{ v.regs }}{% endfor %}",
    lambda r: "{{ variants|length }} {{ spec.variant('mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32').fragment('d')|length }}",
    lambda r: r.choice(["{{ ''.__class__.__mro__ }}", "{{ cycler.__init__.__globals__ }}", "{{ spec.variants.clear() }}",
                        "{{ 'x' * 10**10 }}", "{{ 10 ** 100000 }}", "{{ 1 // 0 }}", "{{ undefined_name }}",
                        "{% for %}", "{{ unclosed", "{{ spec.variant('x') }}", "{% include 't.j2' %}",
                        "{{ '%s' % (1,) * 3 }}", "{{ range(10**9) }}", "{{ types.pop('f16') }}"]),
    lambda r: "\u202e\x00" if r.random() < 0.5 else "{{ '\U0001f600' * 3 }}",
]


def template(rng) -> bytes:
    body = "\n".join(rng.choice(SNIPPETS)(rng) for _ in range(rng.choice([1, 1, 2, 3, 4])))
    data = body.encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        data = b"\xff\xfe" + data
    return data


def render_args(rng, path: Path, out: Path) -> list[str]:
    args = ["render", str(path), "--out", str(out), "--max-seconds", str(rng.choice([1, 5, 20]))]
    if rng.random() < 0.3:
        args += ["--max-iterations", str(rng.choice([1, 1000, 10 ** 7]))]
    if rng.random() < 0.2:
        args += ["--max-size", str(rng.choice([1, 100, 10 ** 6]))]
    if rng.random() < 0.2:
        args += ["--max-output", str(rng.choice([1, 100, 10 ** 6]))]
    return args


def spec_and_parts():
    """What the API cases work on: the model, its baselines, the helper cases (made once, before
    the campaign forks)."""
    spec = ptxspec.load()
    return spec, baselines(spec), _helper_cases(spec)
