"""The ptxas oracle: which lines of a PTX module does NVIDIA's assembler accept?

ptxas reports every bad line of a module with its line number, so one call judges thousands
of statements. We use the ptxas of the `nvidia-cuda-nvcc` wheel (13.5: PTX ISA up to 9.5,
targets sm_75 to sm_121f). With `-arch compute_XX` ptxas parses and checks the module without
generating code, which is what validity means here and takes milliseconds.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ptxspec.model.ptx_text import kernel

_LINE_RE = re.compile(r"^ptxas [^,]*, line (\d+); (error|warning)\s*:\s*(.*)$")


class PtxasNotFound(RuntimeError):
    pass


@lru_cache(maxsize=1)
def find_ptxas() -> str:
    """The wheel's ptxas (preferred: it knows PTX 9.5), else $PTXAS, else none."""
    env = os.environ.get("PTXAS")
    if env:
        return env
    try:
        import nvidia  # namespace package of the NVIDIA wheels
        for base in nvidia.__path__:
            for cand in sorted(Path(base).glob("cu*/bin/ptxas")) + [Path(base, "cuda_nvcc", "bin", "ptxas")]:
                if cand.is_file():
                    return str(cand)
    except ImportError:
        pass
    raise PtxasNotFound("ptxas from the nvidia-cuda-nvcc wheel not found; pip install -e '.[test]'")


@lru_cache(maxsize=1)
def version() -> str:
    out = subprocess.run([find_ptxas(), "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"release ([0-9.]+), V([0-9.]+)", out)
    return m.group(2) if m else out.strip().splitlines()[-1]


@dataclass
class Result:
    returncode: int
    errors: dict[int, list[str]]  # line -> messages
    fatal: list[str]  # messages without a line

    def line_ok(self, line: int) -> bool:
        return self.returncode == 0 or (line not in self.errors and not self.fatal_file)

    @property
    def fatal_file(self) -> bool:
        """True when ptxas rejected the module as a whole (e.g. an unknown .target)."""
        return self.returncode != 0 and not self.errors


def assemble(text: str, arch: str, codegen: bool = False) -> Result:
    """Run ptxas on PTX text. arch is a target name (sm_90a); without codegen it is checked as
    compute_90a (parse and semantic checks only)."""
    gpu = arch if codegen else arch.replace("sm_", "compute_")
    with tempfile.TemporaryDirectory(prefix="ptxspec-") as tmp:
        src = Path(tmp, "m.ptx")
        src.write_text(text)
        proc = subprocess.run([find_ptxas(), "-arch", gpu, str(src), "-o", os.devnull],
                              capture_output=True, text=True)
    errors: dict[int, list[str]] = {}
    fatal = []
    for line in (proc.stdout + proc.stderr).splitlines():
        m = _LINE_RE.match(line)
        if m and m.group(2) == "error":
            errors.setdefault(int(m.group(1)), []).append(m.group(3).strip())
        elif "fatal" in line and "aborted due to errors" not in line:
            fatal.append(line.strip())
    return Result(proc.returncode, errors, fatal)


def judge(lines: list[str], version: str, target: str, codegen: bool = False,
          prelude: tuple[str, ...] = ()) -> tuple[list[bool], Result]:
    """Accepted-or-not for each statement, assembled together in as few modules as possible.

    ptxas reports every syntax-level error with its line, but some semantic checks run in a later
    pass whose errors stop after the first error of the module: a bad line after another bad line
    can look accepted. So lines that look accepted but come after the module's first error are
    judged again on their own, until no error precedes them. A module that ptxas rejects without
    naming a statement (a crash, an error in its built-in code) is split in halves. `prelude`
    lines (extra register declarations, say) open every module and must be accepted."""
    prelude = tuple(prelude)
    text, first = kernel(list(prelude) + lines, version, target)
    first += len(prelude)
    res = assemble(text, target, codegen)
    if any(line < first for line in res.errors):
        return [False] * len(lines), res  # the module itself was rejected (e.g. .target unknown at .version)
    named = {line - first for line in res.errors if first <= line < first + len(lines)}
    if res.returncode != 0 and not named:
        if len(lines) == 1:
            return [False], res
        half = len(lines) // 2
        a, _ = judge(lines[:half], version, target, codegen, prelude)
        b, _ = judge(lines[half:], version, target, codegen, prelude)
        return a + b, res
    ok = [i not in named for i in range(len(lines))]
    if named:
        suspects = [i for i in range(min(named) + 1, len(lines)) if ok[i]]
        if suspects:
            again, _ = judge([lines[i] for i in suspects], version, target, codegen, prelude)
            for i, verdict in zip(suspects, again):
                ok[i] = verdict
    return ok, res


def available() -> bool:
    try:
        find_ptxas()
        return shutil.which(find_ptxas()) is not None or Path(find_ptxas()).is_file()
    except PtxasNotFound:
        return False
