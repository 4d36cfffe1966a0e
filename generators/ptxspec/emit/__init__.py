"""Emitters: each is a pure function from the model to {relative path: bytes}."""
