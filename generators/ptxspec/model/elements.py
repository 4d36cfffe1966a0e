"""Element types (spec/types.yaml): widths, classes, registers and number formats."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ElementType:
    name: str
    cls: str
    bits: int
    register: str
    signed: bool
    format: dict | None
    description: str
    container_bits: int | None = None
    container_shift: int = 0  # lowest bit of the element inside its container
    # in memory: every `packed_elements` elements fill `bits` each of a `packed_bits`-bit unit, the
    # rest of the unit padding (the 4/6-bit formats ldmatrix unpacks); 0 when stored back to back
    packed_elements: int = 0
    packed_bits: int = 0

    def memory_bit(self, element):
        """Bit offset of element `element` (an index along a stored row) from the row's start."""
        if self.packed_elements:
            return (element // self.packed_elements) * self.packed_bits + (element % self.packed_elements) * self.bits
        return element * (self.container_bits or self.bits)
