"""The model: the resolved specification as plain data, one module per kind of object.

`spec` (Spec), `variant` (Variant, Operand), `family` (Family, Instruction, Axis, MatrixDims),
`elements` (ElementType), `isa` (versions, targets, requirements), `fragments` (register maps),
`smem`, `descriptors` and `tmem` (shared memory, run-time descriptors, tensor memory), `errata`,
`arithmetic` (the numerics rules as data), `evidence` (what hardware and ptxas proved), `kinds`
(operand kinds), `ptx_text` (how a variant is written), `catalog` (finding a variant by its
spelling) and `fragment_loaders` (which ldmatrix form moves which fragment, derived from the maps).

The model imports only `ptxspec.core`: what it computes, it computes from its own data. What a
variant means when executed is attached by the loader (`Spec.meanings`); how `Spec.query` answers
is attached by `ptxspec.load` (`Spec.searcher`).
"""
