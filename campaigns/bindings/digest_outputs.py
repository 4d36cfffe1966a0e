"""On the GPU machine: digest every kernel's D words (as gen_bindings.digest), keep the words of
kernels whose digest is not the one the spec predicts. The verdict is made by check_bindings.py."""
import gzip
import json
import sys
from pathlib import Path

import numpy as np


def digest(w):
    w = np.asarray(w, dtype=np.uint64)
    j = np.arange(w.size, dtype=np.uint64)
    return int(((w + np.uint64(1)) * (j * np.uint64(2654435761) + np.uint64(1))).sum(dtype=np.uint64))


def main(build, out):
    build, out = Path(build), Path(out)
    table = json.loads((build / "kernels.json").read_text())
    words = np.fromfile(build / "out.bin", dtype="<u4")
    digests, bad = {}, []
    for k in table["kernels"]:
        w = words[k["out"]:k["out"] + k["out_words"]]
        digests[k["kernel"]] = digest(w)
        if digests[k["kernel"]] != k["digest"]:
            bad.append((k["kernel"], w))
    (out / "digests.json").write_text(json.dumps({"digests": digests}))
    keep, size = [], 0
    for kid, w in bad:
        if size + w.size > 3_000_000:
            break
        keep.append({"kernel": kid, "offset": size, "words": int(w.size)})
        size += w.size
    with gzip.open(out / "mismatch.bin.gz", "wb") as f:
        for kid, w in bad[:len(keep)]:
            f.write(w.astype("<u4").tobytes())
    (out / "mismatch.json").write_text(json.dumps(keep))
    print(f"{len(table['kernels'])} kernels, {len(bad)} digests differ from the prediction")


if __name__ == "__main__":
    main(*sys.argv[1:3])
