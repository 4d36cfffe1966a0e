"""Re-validate the trees a fuzz campaign's log says validate accepted, on the current code, as the
campaign did (tests/fuzz.py tree_case: the tree written with its evidence beside it, then `ptxspec
--spec ROOT validate`), in-process on two cores; write the log again with each tree's new outcome.
The pool a fixed validator leaves, for a fresh review sample (tests/fuzz_review.py NEW_LOG ...):

    python3 tests/fuzz_revalidate.py LOG.jsonl SEED NEW_LOG.jsonl

Seed 36's 2,098 accepted trees took 28 minutes on the 2-core dev machine.
"""
import contextlib
import io
import json
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["PTXSPEC_CACHE_DIR"] = "off"  # every tree is new: nothing to cache

import fuzz  # noqa: E402

from ptxspec.cli.main import main as cli  # noqa: E402

SEED = 0

PRISTINE = None

def check(case: int):
    global PRISTINE
    if PRISTINE is None:
        PRISTINE = fuzz.pristine_files()
    tree, mutations, _ = fuzz.mutated_tree(PRISTINE, SEED, case)
    with tempfile.TemporaryDirectory(prefix=f"rv{case}-") as tmp:
        root = Path(tmp) / "spec"
        tree.write(root)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = cli(["--spec", str(root), "validate", "-q"])
        except BaseException as exc:  # noqa
            code = f"crash {type(exc).__name__}: {exc}"
    return case, code, out.getvalue().strip().splitlines()[:1]

if __name__ == "__main__":
    log, SEED, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]  # (forked workers see SEED)
    rows = [json.loads(line) for line in open(log)]
    accepted = [int(r["case"].split(":")[1]) for r in rows if r["case"].startswith("tree:") and r.get("validate") == ["exit", 0]]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = {}
        for n, (case, code, first) in enumerate(pool.imap_unordered(check, accepted, chunksize=4), 1):
            results[case] = (code, first)
            if code != 0:
                print(case, code, first, flush=True)
            if n % 100 == 0:
                print(f"{n}/{len(accepted)}", flush=True)
    with open(out_path, "w") as f:
        for r in rows:
            if r["case"].startswith("tree:") and int(r["case"].split(":")[1]) in results:
                code, first = results[int(r["case"].split(":")[1])]
                if code != 0:
                    r = dict(r, validate=["exit", code if isinstance(code, int) else 3], note=f"on the final code: {first}")
            f.write(json.dumps(r) + "\n")
    print("done", sum(1 for c, _ in results.values() if c == 0), "still accepted of", len(results))
