"""NVIDIA's assembler as the oracle: which statements ptxas accepts, and what it said before.

Imports the model (to write a variant's statement) and the core.
"""
