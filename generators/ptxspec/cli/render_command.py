"""`ptxspec render TEMPLATE`: a user's Jinja2 template over the model (ptxspec.emit.user_template)."""
from __future__ import annotations

import sys
from pathlib import Path

from ptxspec.cli.usage import load_spec
from ptxspec.core.paths import data_root
from ptxspec.emit.artifacts import write_file
from ptxspec.emit.template_limits import Limits
from ptxspec.emit.user_template import RenderError, render


def _template(name: str) -> str:
    """A template file; `examples/NAME` falls back to the example installed with the package."""
    path = Path(name)
    if not path.is_file() and path.parts[:1] == ("examples",):
        packaged = data_root() / path
        if packaged.is_file():
            return str(packaged)
    return name


def cmd_render(args) -> int:
    given = {"seconds": args.max_seconds, "iterations": args.max_iterations, "size": args.max_size,
             "output": args.max_output}
    limits = Limits(**{k: x for k, x in given.items() if x is not None})
    try:
        text = render(load_spec(args), _template(args.template), limits)
    except RenderError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.out:
        write_file(Path(args.out), text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0
