"""What executing an instruction means: the arithmetic of the products and the executors.

`meanings` is the one table that says, for every `semantics:` an instruction file may name, which
operands it needs and which executor runs it; the other modules are those executors and the
arithmetic they share. Imports `ptxspec.model` and `ptxspec.core` only.
"""
