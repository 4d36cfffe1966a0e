"""Review the trees a fuzz campaign saw `validate` accept: a seeded sample of them, each rebuilt
from its case number and compared with the repository's spec by `ptxspec diff`.

    python3 tests/fuzz_review.py LOG.jsonl [LOG2.jsonl ...] --seed 23 --sample 50 [--pick 1] [--jobs 8]
    python3 tests/fuzz_review.py LOG.jsonl --seed 23 --summary   # cases, outcomes per class, time

For each sampled tree it prints the mutations, and the changes `ptxspec diff` reports (rule id,
severity, count) or "no change of meaning" when the spec model is the same. A person then judges
each one: harmless (no change of meaning, or a change `diff` reports to the reviewer of a spec
change), or a fact validate should have refused. Nothing is judged here.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz  # noqa: E402


def accepted(logs: list[Path]) -> list[dict]:
    out = []
    for log in logs:
        for line in log.read_text().splitlines():
            r = json.loads(line)
            if r["case"].startswith("tree:") and r.get("validate") == ["exit", 0]:
                out.append(r)
    return sorted(out, key=lambda r: int(r["case"].split(":")[1]))


def rebuild(pristine: dict[str, bytes], seed: int, case: int, root: Path) -> list[str]:
    """The tree of case `case` (fuzz.Campaign.tree_case's mutations, same seed), written at root."""
    tree, mutations, _ = fuzz.mutated_tree(pristine, seed, case)
    tree.write(root)
    return mutations


def changes(root: Path) -> list[tuple[str, str, int]]:
    """(rule, severity, count) of what `ptxspec diff` reports between the repository's spec and root."""
    proc = subprocess.run([sys.executable, "-m", "ptxspec", "diff", str(fuzz.SPEC), str(root), "--format", "json"],
                          capture_output=True, text=True, cwd=fuzz.ROOT)
    if proc.returncode not in (0, 1):
        return [("diff failed", proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "", 0)]
    report = json.loads(proc.stdout)
    counts: dict[tuple[str, str], int] = {}
    for c in report.get("changes", []):
        key = (c.get("rule", "?"), c.get("severity", "?"))
        counts[key] = counts.get(key, 0) + 1
    return [(r, s, n) for (r, s), n in sorted(counts.items())]


def summary(logs: list[Path], seed: int) -> str:
    """Cases of each kind, outcomes per class (status and exit code; API calls by verdict), the
    failures (an exit status other than 0, 1, 2; a signal; a hang; an API crash or wrong answer)
    and the longest case of each kind."""
    counts: dict[tuple[str, str], int] = {}
    longest: dict[str, float] = {}
    failures = []
    for log in logs:
        for line in log.read_text().splitlines():
            r = json.loads(line)
            kind = r["case"].split(":")[0]
            longest[kind] = max(longest.get(kind, 0.0), r.get("seconds", 0.0))
            for key in ("validate", "build", "query", "render", "api"):
                got = r.get(key)
                if not isinstance(got, list):
                    continue
                status, code = got
                label = f"{kind} {key} {status} {code}"
                counts[(kind, label)] = counts.get((kind, label), 0) + 1
                bad = status != "exit" or code not in ((0, 1) if key == "api" else (0, 1, 2))
                if bad:
                    failures.append(f"{r['case']}: {key} {status} {code}: {r.get('first_line', '')[:200]}")
    kinds = sorted({k for k, _ in counts})
    out = [f"fuzz campaign, seed {seed}"]
    for kind in kinds:
        total = sum(n for (k, label), n in counts.items() if k == kind and label.split()[1] != "build")
        out.append(f"{kind}: {total} cases, longest {longest.get(kind, 0):.1f} s")
        out += [f"  {label}: {n}" for (k, label), n in sorted(counts.items()) if k == kind]
    out.append(f"failures: {len(failures)}")
    out += [f"  {f}" for f in failures[:200]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", type=Path)
    ap.add_argument("--seed", type=int, required=True, help="the campaign's seed")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--pick", type=int, default=1, help="seed of the sample")
    ap.add_argument("--summary", action="store_true", help="count the cases and outcomes instead")
    ap.add_argument("--jobs", type=int, default=1, help="trees reviewed at once")
    args = ap.parse_args(argv)
    if args.summary:
        print(summary(args.logs, args.seed))
        return 0
    pool = accepted(args.logs)
    sample = sorted(random.Random(args.pick).sample(pool, min(args.sample, len(pool))),
                    key=lambda r: int(r["case"].split(":")[1]))
    print(f"{len(pool)} accepted trees; {len(sample)} sampled (pick {args.pick})")
    pristine = fuzz.pristine_files()

    def review(r) -> str:
        case = int(r["case"].split(":")[1])
        with tempfile.TemporaryDirectory(prefix=f"review{case}-") as tmp:
            mutations = rebuild(pristine, args.seed, case, Path(tmp) / "spec")
            assert mutations == r["mutations"], (case, mutations, r["mutations"])
            found = changes(Path(tmp) / "spec")
        what = "; ".join(f"{rule} ({sev}) x{n}" for rule, sev, n in found) or "no change of meaning"
        return f"- tree:{case}: {'; '.join(mutations)}\n    diff: {what}"

    # each review is a `ptxspec diff` process: --jobs of them at once, printed in case order
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for line in pool.map(review, sample):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
