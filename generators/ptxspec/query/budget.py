"""The time budget of every statement of a query (a hang guard: see QUERY_SECONDS), and the error
of a query: bad input, a file that is no usable database, a statement past its budget."""
from __future__ import annotations

import contextlib
import functools
import math
import os
import sqlite3
import time


#: A hang guard on every statement, not a speed limit: a crafted file (a view that recurses without
#: end in place of `variants`, its application id kept) is stopped and reported instead of running
#: forever. The environment variable raises (or lowers) it; every real query takes milliseconds.
QUERY_SECONDS = 60.0
QUERY_SECONDS_ENV = "PTXSPEC_QUERY_SECONDS"
PROGRESS_STEPS = 10_000  # SQLite virtual-machine instructions between two looks at the clock


def query_seconds() -> float:
    """The time budget of one statement: PTXSPEC_QUERY_SECONDS, else QUERY_SECONDS."""
    raw = os.environ.get(QUERY_SECONDS_ENV)
    if raw is None or not raw.strip():
        return QUERY_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise QueryError(f"{QUERY_SECONDS_ENV} is a number of seconds (0 or more), not {raw[:40]!r}")
    return seconds


class QueryError(ValueError):
    """Bad query input, or a file that is no usable database: the message names what is valid."""


class StatementBudget:
    """A time budget per statement, through SQLite's progress handler: past it, the statement is
    interrupted and `budget_error` says so (a hang guard: see QUERY_SECONDS). `seconds` (default:
    query_seconds()) may be set on the object."""

    name: str
    conn: sqlite3.Connection
    seconds: float | None = None
    _deadline = math.inf
    _interrupted = False
    _watched: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def budget(self):
        """Arm the budget for one statement (the progress handler is installed on first use)."""
        if self._watched is not self.conn:
            self.conn.set_progress_handler(self._progress, PROGRESS_STEPS)
            self._watched = self.conn
        if self.seconds is None:
            self.seconds = query_seconds()
        self._deadline, self._interrupted = time.monotonic() + self.seconds, False
        try:
            yield
        finally:
            self._deadline = math.inf

    def _progress(self) -> int:
        """Nonzero interrupts the statement (past its time budget)."""
        if time.monotonic() >= self._deadline:
            self._interrupted = True
            return 1
        return 0

    def budget_error(self) -> QueryError | None:
        if not self._interrupted:
            return None
        return QueryError(f"{self.name}: a statement ran past its time budget of {self.seconds:g} s and was stopped (a "
                          f"real query takes milliseconds: the file may be crafted or damaged; run `ptxspec build`, "
                          f"or raise the budget with {QUERY_SECONDS_ENV}=SECONDS)")


def budgeted(execute):
    """Database.execute under its statement's time budget (StatementBudget)."""
    @functools.wraps(execute)
    def run(self, *args, **kwargs):
        with self.budget():
            return execute(self, *args, **kwargs)
    return run
