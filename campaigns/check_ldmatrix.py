#!/usr/bin/env python3
"""Reads the ldmatrix campaign's results: what each lane received (ldmatrix, movmatrix), where
each register half went (stmatrix), and the end-to-end samples; compares them with the manual's
description and writes the records.

    python3 campaigns/check_ldmatrix.py BUILD RESULTS_DIR [--record FILE]

Movement forms: the observed map is read off the raw values alone (ldmatrix_harness.py), then
compared with the manual's text (PTX ISA 9.7.14.5.15-17): "lanes 8j..8j+7 give the row
addresses of matrix j; each group of four lanes receives one row, lane 0 the first two
elements" and, with .trans, the same of the transposed matrix (`manual_source` below).

End-to-end samples: the registers ldmatrix loaded must equal the mma's fragments of the stored
matrices (`variant.pack`, the spec's H100-proven maps), D must equal the spec's executor on them
(bit-exact on the H100), and what stmatrix stored must be D laid out as the sample says.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ldmatrix_e2e as e2e  # noqa: E402
from ldmatrix_harness import SENTINEL, digest, forms, load_image, mov_codes, read_results, row_offsets, store_codes  # noqa: E402


# ---------------------------------------------------------------------------------------------
# The manual's maps, as stated in its text (not the spec): for m8n8 .b16,
#   lane t, register j, half h  <-  matrix j, row t // 4,        element 2 (t % 4) + h
#   with .trans                 <-  matrix j, row 2 (t % 4) + h, element t // 4
# and matrix j's row i is the one whose address lane 8 j + i gives. stmatrix is the inverse;
# movmatrix transposes one 8 x 8 matrix held as ldmatrix (without .trans) would hold it.
def manual_source(trans: bool, t: int, j: int, h: int) -> tuple[int, int]:
    """(address lane, element in that row) of lane t's register j, half h."""
    if trans:
        return 8 * j + 2 * (t % 4) + h, t // 4
    return 8 * j + t // 4, 2 * (t % 4) + h


def expected_ldmatrix(form, case: int) -> np.ndarray:
    offs = row_offsets(form, case)
    slots = load_image().view(np.uint16)
    out = np.zeros((32, form.regs), np.uint32)
    for t in range(32):
        for j in range(form.regs):
            for h in range(2):
                lane, e = manual_source(form.trans, t, j, h)
                out[t, j] |= np.uint32(int(slots[offs[lane] // 2 + e]) << (16 * h))
    return out


def expected_stmatrix(form, case: int) -> np.ndarray:
    offs = row_offsets(form, case)
    codes = store_codes(form, case)
    window = np.full(16384 // 2, SENTINEL, np.uint16)
    for t in range(32):
        for j in range(form.regs):
            for h in range(2):
                lane, e = manual_source(form.trans, t, j, h)
                window[offs[lane] // 2 + e] = (int(codes[t, j]) >> (16 * h)) & 0xFFFF
    return window.view(np.uint8)


def expected_movmatrix(case: int) -> np.ndarray:
    src = mov_codes(case)[:, 0]
    out = np.zeros(32, np.uint32)
    for t in range(32):
        for h in range(2):
            r, c = t // 4, 2 * (t % 4) + h       # element (r, c) of the result is (c, r) of the
            st, sh = 4 * c + r // 2, r % 2       # source, which lane 4c + r//2 holds in half r%2
            out[t] |= np.uint32(((int(src[st]) >> (16 * sh)) & 0xFFFF) << (16 * h))
    return out[:, None]


# ---------------------------------------------------------------------------------------------
# Reading the map off the raw values, without the manual.
def observed_ldmatrix(form, case: int, words: np.ndarray) -> list:
    """Per (lane, register, half): [address lane, element] the value came from."""
    offs = row_offsets(form, case)
    row_lane = {int(o): L for L, o in enumerate(offs)}
    w = words.reshape(32, form.regs)
    out = []
    for t in range(32):
        for j in range(form.regs):
            for h in range(2):
                byte = 2 * ((int(w[t, j]) >> (16 * h)) & 0xFFFF)
                out.append([row_lane.get(byte & ~15, -1), (byte & 15) // 2])
    return out


def observed_stmatrix(form, case: int, smem: np.ndarray) -> tuple[list, int]:
    """Per (lane, register, half): [address lane, element] it was stored to; and how many slots
    changed that no register half explains."""
    offs = row_offsets(form, case)
    row_lane = {int(o): L for L, o in enumerate(offs)}
    slots = smem.view(np.uint16)
    where = {}
    stray = 0
    for s in np.nonzero(slots != SENTINEL)[0]:
        v = int(slots[s])
        t, j, h = (v >> 3) & 31, (v >> 1) & 3, v & 1
        if (v >> 9) - 1 != case or j >= form.regs or (t, j, h) in where:
            stray += 1
            continue
        where[(t, j, h)] = [row_lane.get((2 * int(s)) & ~15, -1), ((2 * int(s)) & 15) // 2]
    out = [where.get((t, j, h), [-1, -1]) for t in range(32) for j in range(form.regs) for h in range(2)]
    return out, stray


def expected_map(form) -> list:
    return [list(manual_source(form.trans, t, j, h)) for t in range(32) for j in range(form.regs) for h in range(2)]


#: what a wgmma kernel issues around the product (each case runs them once)
WGMMA_SYNC = ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned")


# ---------------------------------------------------------------------------------------------
def check_movement(jobs: list[dict], results: list[dict]) -> tuple[dict, list]:
    by_form = {f.name: f for f in forms()}
    rec: dict = {}
    rows = []
    for job, res in zip(jobs, results):
        if "form" not in job:
            continue
        f = by_form[job["form"]]
        c = job["case"]
        entry = rec.setdefault(f.name, {"opcode": f.opcode, "cases": []})
        ok_status = res["status"] == 0
        if f.instr == "ldmatrix":
            got = res["words"].reshape(32, f.regs)
            want = expected_ldmatrix(f, c)
            obs = observed_ldmatrix(f, c, res["words"])
            agree = ok_status and np.array_equal(got, want)
            entry["cases"].append({"case": c, "digest": digest(got), "manual": bool(agree)})
            entry.setdefault("observed", obs)
            entry["map_stable"] = entry.get("map_stable", True) and obs == entry["observed"]
        elif f.instr == "stmatrix":
            want = expected_stmatrix(f, c)
            obs, stray = observed_stmatrix(f, c, res["smem"])
            agree = ok_status and np.array_equal(res["smem"], want)
            entry["cases"].append({"case": c, "digest": digest(res["smem"].view(np.uint32)), "manual": bool(agree),
                                   "stray_slots": stray})
            entry.setdefault("observed", obs)
            entry["map_stable"] = entry.get("map_stable", True) and obs == entry["observed"]
        else:
            got = res["words"].reshape(32, 1)
            want = expected_movmatrix(c)
            agree = ok_status and np.array_equal(got, want)
            entry["cases"].append({"case": c, "digest": digest(got), "manual": bool(agree)})
        rows.append((f.name, c, agree))
    for name, e in rec.items():
        f = by_form[name]
        if "observed" in e:
            e["observed_is_manual"] = e["observed"] == expected_map(f)
            e["observed"] = encode_map(e["observed"])
    return rec, rows


DIGITS = "0123456789abcdefghijklmnopqrstuv"


def encode_map(pairs: list) -> str:
    """A map as text, two characters per (lane, register, half) in that order: the address lane
    in base 32 and the element; "--" where nothing was seen."""
    return "".join("--" if L < 0 else DIGITS[L] + str(e) for L, e in pairs)


def decode_map(text: str) -> list:
    return [[-1, -1] if text[i] == "-" else [DIGITS.index(text[i]), int(text[i + 1])]
            for i in range(0, len(text), 2)]


def check_e2e(spec, jobs: list[dict], results: list[dict], target: int) -> tuple[dict, list]:
    samples = {s.name: s for s in e2e.SAMPLES}
    rec: dict = {}
    rows = []
    for job, res in zip(jobs, results):
        if "sample" not in job:
            continue
        s = samples[job["sample"]]
        c = job["case"]
        r = e2e.expected(spec, s, c, target)
        v = r["variant"]
        T = s.threads
        na, nb, nd = s.a.count, (s.b.count if s.b else 0), v.regs["d"]
        w = res["words"]
        got_a = w[:T * na].reshape(T, na)
        got_b = w[T * na:T * (na + nb)].reshape(T, nb)
        got_d = w[T * (na + nb):].reshape(T, nd)
        ok = {"status": res["status"] == 0,
              "a_is_fragment": np.array_equal(got_a, r["a"]),
              "b_is_fragment": s.b is None or np.array_equal(got_b, r["b"]),
              "d_is_executor": np.array_equal(got_d, r["d"])}
        if s.d is not None:
            ok["stored_d"] = np.array_equal(res["smem"], r["window_after"])
        chain = [s.a.form("ldmatrix")] + ([s.b.form("ldmatrix")] if s.b else []) + [v.id] \
            + ([s.d.form("stmatrix")] if s.d else []) + (list(WGMMA_SYNC) if s.form == "reg" else [])
        entry = rec.setdefault(s.name, {"variant": s.variant, "form": s.form, "chain": chain, "cases": []})
        entry["cases"].append({"case": c, "digest": digest(w),
                               **({"smem_digest": digest(res["smem"].view(np.uint32))} if s.d is not None else {}),
                               **{k: bool(x) for k, x in ok.items()}})
        rows.append((s.name, c, all(ok.values()), ok))
    return rec, rows


def check_table(spec, jobs: list[dict], results: list[dict], target: int) -> tuple[dict, list]:
    """The second campaign: loaders taken from the model's table (ldmatrix_table.py)."""
    import ldmatrix_table as table
    samples = {s.name: s for s in table.SAMPLES}
    rec: dict = {}
    rows = []
    for job, res in zip(jobs, results):
        if "tsample" not in job:
            continue
        s = samples[job["tsample"]]
        c = job["case"]
        r = table.expected(spec, s, c, target)
        v = r["variant"]
        T, w, pos, ok = s.threads, res["words"], 0, {"status": res["status"] == 0}
        for op in s.loads:
            n = T * r["frags"][op].shape[1]
            ok[f"{op}_is_fragment"] = np.array_equal(w[pos:pos + n], r["frags"][op].ravel())
            pos += n
        ok["d_is_executor"] = np.array_equal(w[pos:], r["d"].ravel())
        if s.stores:
            ok["stored_d"] = np.array_equal(res["smem"], r["window_after"])
        entry = rec.setdefault(s.name, {"variant": s.variant, "form": s.form, "chain": table.chain(v, s),
                                        "loads": {op: [mv.storage, mv.ld, mv.runs] for op, mv in s.loads.items()},
                                        "stores": {op: [mv.storage, mv.ld, mv.runs] for op, mv in s.stores.items()},
                                        "cases": []})
        entry["cases"].append({"case": c, "digest": digest(w),
                               **({"smem_digest": digest(res["smem"].view(np.uint32))} if s.stores else {}),
                               **{k: bool(x) for k, x in ok.items()}})
        rows.append((s.name, c, all(ok.values()), ok))
    return rec, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", type=Path)
    ap.add_argument("results", type=Path)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    meta = json.loads((args.build / "jobs.json").read_text())
    raw = args.results / "results.bin.gz"
    tmp = args.results / "results.bin"
    if raw.exists():
        tmp = Path("/tmp/ldmatrix-results.bin")
        tmp.write_bytes(gzip.decompress(raw.read_bytes()))
    results = read_results(tmp)
    jobs = meta["jobs"]
    assert len(results) == len(jobs), f"{len(results)} results for {len(jobs)} jobs"
    mv, mrows = check_movement(jobs, results)
    bad = [r for r in mrows if not r[2]]
    print(f"movement: {len(mrows)} cases of {len(mv)} forms, {len(mrows) - len(bad)} as the manual says")
    for r in bad[:20]:
        print("  differs:", r[0], "case", r[1])
    for name, e in mv.items():
        if "observed_is_manual" in e and not e["observed_is_manual"]:
            print("  observed map differs from the manual:", name)
    import ptxspec
    spec = ptxspec.load()
    ee, erows = check_e2e(spec, jobs, results, meta["target"])
    te, trows = check_table(spec, jobs, results, meta["target"])
    ee.update(te)
    erows += trows
    ebad = [r for r in erows if not r[2]]
    print(f"end to end: {len(erows)} cases of {len(ee)} samples, {len(erows) - len(ebad)} agree")
    for r in ebad:
        print("  differs:", r[0], "case", r[1], r[3])
    if args.record:
        env = (args.results / "env.txt").read_text() if (args.results / "env.txt").exists() else ""
        doc = {"campaign": "ldmatrix" if mv else "ldmatrix-table", "env": env.strip().splitlines(), "target": meta["target"],
               "movement": mv, "e2e": ee}
        args.record.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print("wrote", args.record)
    return 0 if not bad and not ebad else 1


if __name__ == "__main__":
    sys.exit(main())
