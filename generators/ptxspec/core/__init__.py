"""The ground floor: what every layer above uses and that knows nothing of instructions.

Positions and problems (`errors`), integer formulas (`expr`), where the data lives (`paths`), and
element codes as values (`values`, `formats`). Nothing here imports another layer of ptxspec.
"""
