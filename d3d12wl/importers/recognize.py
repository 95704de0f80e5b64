"""Whether a file is one the capture tools write, by its first bytes, so that a command given one (``exec
frame.json`` on gfxrecon-convert's output, ``check`` over a folder that holds a dump) can say what it is and what
reads it, without parsing a document that may run to gigabytes.

Recognized from what the importers read (:mod:`d3d12wl.importers.gfxr_convert`, :mod:`d3d12wl.importers.gfxr_dump`):
both GFXReconstruct files are a JSON array or JSON lines whose first object is ``{"header": {...}}``; the dump's
header carries the replay's ``dumpResourcesOptions``, the convert JSON's does not.
"""

from __future__ import annotations

import os
import re
import stat

from d3d12wl.importers import json_blocks

__all__ = ["GFXR_CONVERT", "GFXR_DUMP", "SNIFF_BYTES", "tool_file_kind"]

#: what :func:`tool_file_kind` returns
GFXR_CONVERT, GFXR_DUMP = "gfxr-convert", "gfxr-dump"
#: how much of a file is looked at (a header block is a few hundred bytes)
SNIFF_BYTES = 1 << 16

# the first object of the array (or of the lines) is {"header": {...}}
_HEADER = re.compile(rb'\A\s*\[?\s*\{\s*"header"\s*:\s*\{')
_DUMP_OPTIONS = re.compile(rb'"dumpResourcesOptions"\s*:')


def tool_file_kind(source: str | os.PathLike[str]) -> str | None:
    """:data:`GFXR_CONVERT` or :data:`GFXR_DUMP` when ``source`` starts as that file does, else None (also for a
    file that cannot be read: the caller's own load says why)."""
    try:  # (non-blocking, and only a regular file read: a FIFO given as a capture must not wait for a writer)
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, SNIFF_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    match = _HEADER.match(head)
    if match is None:
        return None
    first = json_blocks.first_block(head, os.fspath(source))  # (the header block, where it ends in the head)
    end = first.end if first is not None else len(head)
    return GFXR_DUMP if _DUMP_OPTIONS.search(head, match.end(), end) else GFXR_CONVERT
