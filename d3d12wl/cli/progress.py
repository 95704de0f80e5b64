"""Progress of a long command on standard error, only when standard error is a terminal (``--quiet`` silences
it): a stage line (``loading the capture``, ``executing``) and, while rows are written, how many of how many, at
most a few updates a second, on one line that is cleared when the command ends.  Never on standard output, never
into a file or a pipe.  A few lines of its own: the package depends on no progress library."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress"]

#: seconds between two updates of the line
INTERVAL = 0.25


class Progress:
    """The progress line of command ``command``; inert unless ``stream`` (default: standard error) is a
    terminal and not ``quiet``."""

    def __init__(self, command: str, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = not quiet and callable(isatty) and bool(isatty())
        self.command = command
        self._shown = False
        self._last = 0.0

    def _show(self, text: str) -> None:
        if not self.enabled:
            return
        self.stream.write(f"\r\x1b[K{self.command}: {text}")
        self.stream.flush()
        self._shown = True

    def stage(self, text: str) -> None:
        """A stage of the command begins."""
        self._show(text + " ...")

    def writer(self, total: int, what: str = "executions") -> Callable[[int], None]:
        """A callback for ``done`` of ``total`` rows written (updated at most every :data:`INTERVAL` s)."""
        def tick(done: int) -> None:
            now = time.monotonic()
            if self.enabled and (now - self._last >= INTERVAL or done >= total):
                self._last = now
                pct = f" ({100 * done // total}%)" if total else ""
                self._show(f"writing {what} {done:,}/{total:,}{pct}")
        return tick

    def done(self) -> None:
        """Clear the line (the command's own output on standard error starts on a clean line)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
