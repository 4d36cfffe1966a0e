"""generated/json/<family>.json states shared requirements, operands and signatures once: putting
them back into each variant gives every variant's full record, in the record's key order."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def expand(doc: dict, record: dict) -> dict:
    out = {}
    for key, value in record.items():
        if key == "requirement":
            out.update(doc["requirements"][value])
        elif key == "signature":
            sig = doc["signatures"][value]
            out["regs"] = sig["regs"]
            out["operands"] = [doc["operands"][i] for i in sig["operands"]]
        else:
            out[key] = value
    return out


def test_every_record_comes_back(spec):
    families = sorted({v.family for v in spec.variants})
    assert sorted(p.stem for p in (ROOT / "generated" / "json").glob("*.json")) == families
    for family in families:
        doc = json.loads((ROOT / "generated" / "json" / f"{family}.json").read_text())
        assert doc["family"] == family
        want = [v.as_record() for v in spec.variants if v.family == family]
        got = [expand(doc, r) for r in doc["variants"]]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert list(g.items()) == list(w.items()), w["id"]
        # each shared entry is stated once and used
        for part in ("requirements", "operands", "signatures"):
            texts = [json.dumps(x, sort_keys=True) for x in doc[part]]
            assert len(set(texts)) == len(texts), (family, part)
        assert {r["signature"] for r in doc["variants"]} == set(range(len(doc["signatures"])))
        assert {r["requirement"] for r in doc["variants"]} == set(range(len(doc["requirements"])))
