"""Reading a file the user names (a spec file, an evidence file, a record): a regular file of
bounded size, never a FIFO that blocks or a device that never ends. Here, below the loader, so
that a warm `ptxspec.load()` (which digests the evidence records) imports no YAML parser."""
from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "read_regular", "tree_digest"]

#: Largest spec file read; the biggest real one is under 30 KB.
MAX_FILE_BYTES = 1 << 20


def read_regular(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file (a symbolic link to one is followed), never blocking on a FIFO
    or reading a device; OSError for anything else, with a message fit for a located error."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"not a regular file ({_file_type(st.st_mode)})")
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"file of {st.st_size} bytes; spec files stay under {limit} bytes")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while we read it
                raise OSError(errno.EFBIG, f"file larger than {limit} bytes; spec files stay smaller")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def tree_digest(directory: Path, pattern: str, exclude: tuple[str, ...] = ()) -> str:
    """SHA-256 of the files `pattern` matches in directory (names and bytes, in name order): the
    database's provenance of the schemas it was built against."""
    hasher = hashlib.sha256()
    for path in sorted(p for p in directory.glob(pattern) if p.name not in exclude):
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()
