"""`ptxspec validate` and `ptxspec build`: the spec checked, and every artifact built from it."""
from __future__ import annotations

import sys
from pathlib import Path

from ptxspec.cli.usage import UsageError, load_spec
from ptxspec.core.paths import default_build_dir, default_spec_dir
from ptxspec.emit import artifacts as build_mod


def cmd_validate(args) -> int:
    spec = load_spec(args)
    print(f"{args.spec or default_spec_dir()}: ok: {len(spec.variants)} variants, {len(spec.instructions)} "
          f"instructions, {len(spec.errata)} errata", file=sys.stderr if args.quiet else sys.stdout)
    return 0


def cmd_build(args) -> int:
    out = Path(args.out) if args.out else default_output(args.spec)
    if out is None:  # an installed package: its data is read-only, and not the whole of generated/
        raise UsageError("this ptxspec is installed from a wheel, not run from a source checkout, so there is no "
                         "generated/ to write; pass --out DIR to build every artifact into DIR")
    spec = load_spec(args)
    files = build_mod.artifacts(spec)
    if args.check:
        stale = build_mod.stale(out, files)
        if stale:
            for rel in stale:
                print(f"{out / rel.split(' ')[0]}: stale{'' if ' ' not in rel else ' ' + rel.split(' ', 1)[1]}; "
                      "run `ptxspec build`", file=sys.stderr)
            return 1
        print(f"{out}: up to date ({len(files)} files)")
        return 0
    try:
        changed = build_mod.write(out, files)
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"{out}: {len(files)} files, {len(changed)} changed")
    return 0


def default_output(spec: str | None) -> Path | None:
    """Where build writes without --out: for `--spec DIR`, generated/ beside DIR (never the
    checkout's, which belongs to its own spec); otherwise the checkout's generated/ (None when
    installed from a wheel)."""
    return Path(spec).resolve().parent / "generated" if spec else default_build_dir()
