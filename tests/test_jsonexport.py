"""generated/json/<family>.json states shared requirements, operands and signatures once: putting
them back into each variant (and each option value) gives every variant's full record, in the record's key order."""
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
        elif key == "options":  # each option value names its requirement too
            out[key] = {axis: [{"value": o["value"], "requires": doc["requirements"][o["requirement"]]["requires"]}
                               for o in values] for axis, values in value.items()}
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
        used = {r["requirement"] for r in doc["variants"]}
        used |= {o["requirement"] for r in doc["variants"] for vals in r.get("options", {}).values() for o in vals}
        assert used == set(range(len(doc["requirements"])))
