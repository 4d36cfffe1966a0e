"""The `ptxspec` command, on top of every other layer: `main` parses and dispatches, one module per
command group does the work."""
