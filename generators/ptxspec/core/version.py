"""The release of ptxspec (the wheel's version; `ptxspec --version`; the database's provenance)."""
__version__ = "0.1.0"
