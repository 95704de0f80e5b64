"""The name tables of the table outputs: names in the order first met, a code for each (:class:`NameTable`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["NameTable"]


class NameTable:
    """A name table being built while a table is written: names in the order first met, a code for each."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: list[str] = []
        self._of: dict[str, int] = {}
        for n in names:
            self.code(n)

    def __len__(self) -> int:
        return len(self.names)

    def code(self, name: str | None) -> int:
        """The code of ``name`` (given one the first time it is met); -1 for None or the empty name."""
        if name is None or name == "":
            return -1
        got = self._of.get(name)
        if got is None:
            got = self._of[name] = len(self.names)
            self.names.append(name)
        return got

    def codes(self, texts: Sequence[str], codes: np.ndarray) -> np.ndarray:
        """Per-row codes into ``texts`` (-1 absent) as int32 codes into this table (``codes`` itself where
        ``texts`` are this table's first names)."""
        mine = [self.code(t) for t in texts]
        if mine == list(range(len(mine))):
            return codes.astype(np.int32, copy=False)
        remap = np.array([*mine, -1], dtype=np.int32)
        return remap.take(codes)  # (a code of -1 takes the last entry: -1)
