"""Finding variants: Spec.variant/Spec.query and `ptxspec query` share one implementation
(ptxspec.model.catalog, the database's SQL), so they answer and fail alike; qualifier orders are judged
by ptxas (the recording `spellings`, tests/ptxas_checks.py)."""
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from ptxspec.model.catalog import LookupFailed
from ptxspec.query.database import QueryError

ROOT = Path(__file__).resolve().parents[1]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "ptxspec", "query", *args], capture_output=True, text=True, cwd=ROOT)


def cli_ids(*args):
    proc = cli(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return [r["id"] for r in json.loads(proc.stdout)]


@pytest.mark.parametrize("kwargs, args", [
    (dict(ptx="9.5"), ["--ptx", "9.5"]),  # the removed .satfinite wmma forms are not valid at 9.5
    (dict(target="sm_90a", ptx="8.0"), ["--target", "sm_90a", "--ptx", "8.0"]),
    (dict(family="wgmma", n=200, atype="e4m3"), ["--family", "wgmma", "n=200", "atype=e4m3"]),
    (dict(family="mma", sparse=True, target="sm_120a"), ["--family", "mma", "sparse=true", "--target", "sm_120a"]),
])
def test_spec_query_answers_as_the_cli(spec, kwargs, args):
    assert [v.id for v in spec.query(**kwargs)] == cli_ids(*args)


def test_spec_query_takes_the_cli_filters(spec):
    got = [v.id for v in spec.query("n>=240", "atype=s8,u8", family="wgmma", form="reg", satfinite=True)]
    assert got == cli_ids("--family", "wgmma", "n>=240", "atype=s8,u8", "form=reg", "satfinite=true") and got


@pytest.mark.parametrize("kwargs, args", [
    (dict(target="sm_91"), ["--target", "sm_91"]), (dict(ptx="abc"), ["--ptx", "abc"]),
    (dict(ptx="99.9"), ["--ptx", "99.9"]), (dict(family="wgmm"), ["--family", "wgmm"]),
    (dict(bogus=1), ["bogus=1"]), (dict(atype="e4m4"), ["atype=e4m4"]), (dict(n="eight"), ["n=eight"]),
])
def test_spec_query_errors_are_the_cli_errors(spec, kwargs, args):
    with pytest.raises(QueryError) as err:
        spec.query(**kwargs)
    proc = cli(*args)
    assert proc.returncode == 2 and proc.stderr == f"ptxspec query: error: {err.value}\n"
    assert "\n" not in str(err.value)


LOOKUPS = [  # (reference, form, what the error must say)
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "reg", "has no form 'reg'"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", None, "has forms desc, reg"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.satfinite", "reg", "no variant combines them"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f61", "reg",
     "did you mean 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16'"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16:reg", "desc", "is the 'reg' form"),
]


@pytest.mark.parametrize("ref, form, needle", LOOKUPS)
def test_variant_errors_are_the_cli_errors(spec, ref, form, needle):
    with pytest.raises(LookupFailed) as err:
        spec.variant(ref, form)
    assert needle in str(err.value) and isinstance(err.value, KeyError)
    proc = cli("--variant", ref, *(["--form", form] if form else []))
    assert proc.returncode == 2 and proc.stderr == f"ptxspec query: error: {err.value}\n"


def test_did_you_mean_never_repeats_the_input_nor_changes_the_instruction(spec):
    """Over many wrong spellings: a suggestion only for a typo, and then the variant the typo came from."""
    rng = random.Random(5)
    tokens = sorted({t for v in spec.variants for t in v.ptx.split(".")[1:]})
    checked = collections.Counter()
    for v in rng.sample(spec.variants, 300):
        parts = v.ptx.split(".")
        i = rng.randrange(1, len(parts))
        typo = parts[:i] + [parts[i][:-1] + "q"] + parts[i + 1:]  # not a token of any variant
        other = parts[:i] + [rng.choice([t for t in tokens if t != parts[i]])] + parts[i + 1:]
        dropped = parts[:i] + parts[i + 1:]
        for wrong, kind in ((typo, "typo"), (other, "other"), (dropped, "dropped")):
            ref = ".".join(wrong)
            try:
                found = spec.variant(ref, v.form or None)
            except LookupFailed as exc:
                msg = str(exc)
                assert f"did you mean {ref!r}" not in msg
                if "did you mean" in msg:
                    checked[kind + " suggested"] += 1
                    assert kind == "typo", (ref, msg)
                    said = msg.split("did you mean '")[1].split("'")[0]
                    # it keeps every other token and replaces only the misspelled one
                    assert collections.Counter(wrong) - collections.Counter(said.split(".")) == \
                        collections.Counter([wrong[i]]), (ref, msg)
                    checked["typo undone"] += said == v.ptx  # e2mq: e2m1 and e2m3 are equally close
                continue
            checked[kind + " found"] += 1  # another real variant (a token swapped for a valid one)
            assert found.ptx != v.ptx or kind == "other"
    assert checked["typo suggested"] > 200 and checked["typo undone"] > 0.8 * checked["typo suggested"], checked


def test_cli_and_api_find_the_same_reordered_spellings(spec):
    for ref, want in (("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite",  # CuTe's spelling
                       "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8:reg"),
                      ("mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e4m3.e4m3.f32",
                       "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32")):
        form = "reg" if ref.startswith("wgmma") else None
        assert spec.variant(ref, form).id == want
        rows = json.loads(cli("--variant", ref, *(["--form", form] if form else []), "--format", "json").stdout)
        assert [r["id"] for r in rows] == [want]  # the answer gives the spec's spelling


# -- qualifier orders ---------------------------------------------------------------------------
# ptxas judges them: the recording `spellings` (tests/ptxas_checks.py) holds, for one variant per
# group and 24 reorderings of its qualifiers, what ptxas said; the quick tier replays it against the
# lookup (ptxas accepts a spelling exactly when the lookup finds a variant valid where ptxas was
# asked), the full tier asks ptxas again.
