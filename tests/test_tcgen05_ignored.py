"""Qualifiers ptxas accepts on tcgen05 instructions and ignores (erratum tcgen05-ignored-type-tokens),
and what ptxas makes of .kind::ti16 (erratum tcgen05-kind-ti16-idesc), against ptxas 13.5 itself:

* the four tokens (.b2 and tcgen05.cp's formats .b8x16, .b4x16_p64, .b6x16_p32) appended to the
  opcode of every tcgen05 variant, on the four arch-specific targets at PTX 9.5: ptxas accepts
  exactly the spellings the spec lists as the variant's option `b2` (the recording tcgen05-tokens,
  tests/ptxas_checks_tcgen05.py; its first version, one version earlier and the other targets:
  tcgen05-options);
* (full tier: ptxas and cuobjdump) the machine code: for one variant of each instruction, each token leaves cuobjdump's SASS of the
  statement unchanged;
* lookup and query: a spelling with a token, anywhere among the qualifiers, names the variant the
  token is an option of, as every other option does;
* (full tier) .kind::ti16: ptxas emits the same UTCHMMA words as for .kind::f16 and .kind::tf32 on sm_107a, so
  the kind never reaches the machine code.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from ptxspec.model import ptx_text as asm
from ptxspec.oracle import ptxas
from ptxspec.model.isa import Version

needs_ptxas = pytest.mark.skipif(not ptxas.available(), reason="ptxas of the nvidia-cuda-nvcc wheel not found")
TOKENS = ("b2", "b8x16", "b4x16_p64", "b6x16_p32")
TARGETS = ("sm_100a", "sm_103a", "sm_107a", "sm_110a")
LATEST = Version(9, 5)


def _with(v, token: str) -> str:
    """The variant's statement with `.token` appended to its opcode."""
    return v.ptx + "." + token + asm.statement(v)[len(v.ptx):]


def _sass(lines: list[str], target: str) -> list[str] | None:
    text, _ = asm.kernel(lines, str(LATEST), target)
    cuobjdump = Path(ptxas.find_ptxas()).with_name("cuobjdump")
    with tempfile.TemporaryDirectory(prefix="ptxspec-") as tmp:
        Path(tmp, "m.ptx").write_text(text)
        proc = subprocess.run([ptxas.find_ptxas(), "-arch", target, "m.ptx", "-o", "m.cubin"], cwd=tmp,
                              capture_output=True, text=True)
        if proc.returncode:
            return None
        out = subprocess.run([str(cuobjdump), "-sass", "m.cubin"], cwd=tmp, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "/*" in line]


@pytest.mark.full
@needs_ptxas
def test_the_tokens_change_no_machine_code(spec):
    if not Path(ptxas.find_ptxas()).with_name("cuobjdump").is_file():
        pytest.skip("no cuobjdump beside ptxas")
    first = {}
    for v in spec.variants:  # one variant of each instruction, on its first target, every token it takes
        if v.family == "tcgen05" and v.instruction not in first:
            first[v.instruction] = (v, next(t for t in TARGETS if v.requirement.valid(spec.targets[t], LATEST)))
    assert len(first) == 17
    compared = 0
    for v, target in first.values():
        base = _sass([asm.statement(v)], target)
        assert base, v.id
        for value, _ in v.options["b2"]:
            if value:
                assert _sass([_with(v, value)], target) == base, (v.id, value)
                compared += 1
    assert compared == 14 * 4 + 1 + 2 * 3  # tcgen05.cp takes .b2 only, the .spcompress loads the formats


def test_lookup_names_the_variant_of_a_spelling_with_a_token(spec):
    v = spec.variant("tcgen05.mma.cta_group::1.kind::f16", form="desc")
    for tok in TOKENS:
        assert spec.variant(f"tcgen05.mma.cta_group::1.kind::f16.{tok}", form="desc").id == v.id
        assert spec.variant(f"tcgen05.mma.{tok}.cta_group::1.kind::f16", form="desc").id == v.id  # any place
    cp = spec.variant("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32")
    assert spec.variant("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32.b2").id == cp.id
    assert spec.variant("tcgen05.cp.cta_group::1.128x256b.b2").id == "tcgen05.cp.cta_group::1.128x256b"
    with pytest.raises(KeyError, match="takes no option .b8x16"):
        spec.variant("tcgen05.cp.cta_group::1.128x256b.b8x16")  # a lone format is an error for ptxas too
    sp = "tcgen05.ld.spcompress.sync.aligned.32x32b.x128.sp::2:4.max.f32.b2"
    assert spec.variant(sp + ".b8x16").id == sp  # its own .b2 is its index type, the extra token an option
    assert spec.variant("tcgen05.wait::st.sync.aligned.b4x16_p64").id == "tcgen05.wait::st.sync.aligned"
    assert "tcgen05-ignored-type-tokens" in {e.id for e in spec.errata}


@pytest.mark.full
@needs_ptxas
def test_kind_ti16_is_the_same_machine_code_as_f16_and_tf32(spec):
    """On sm_107a, tcgen05.mma with .kind::ti16, .kind::f16 and .kind::tf32 assemble to identical
    UTCHMMA words: the element types come from the instruction descriptor at run time."""
    if not Path(ptxas.find_ptxas()).with_name("cuobjdump").is_file():
        pytest.skip("no cuobjdump beside ptxas")
    code = {}
    for kind in ("ti16", "f16", "tf32", "f8f6f4"):
        v = spec.variant(f"tcgen05.mma.cta_group::1.kind::{kind}", form="desc")
        code[kind] = _sass([asm.statement(v, optional=False)], "sm_107a")
        assert code[kind] and any("UTC" in line for line in code[kind]), kind
    assert code["ti16"] == code["f16"] == code["tf32"] != code["f8f6f4"]
    assert any("UTCHMMA" in line for line in code["ti16"]) and any("UTCQMMA" in line for line in code["f8f6f4"])
