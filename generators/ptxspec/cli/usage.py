"""What every command shares: the usage error (exit 2) and the model of the spec a command names."""
from __future__ import annotations

import ptxspec


class UsageError(Exception):
    """A command used wrongly: one line on standard error, exit 2."""


def load_spec(args):
    """The model of `--spec DIR`, or of the checkout's (installed) spec/; loaded through the package's
    face, which imports the loader on first use."""
    return ptxspec.load(args.spec)
