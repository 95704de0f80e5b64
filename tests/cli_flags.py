"""What tests of the command line share: every flag of every command, walked from the parser itself, and the
culling example's readback files as ``capture`` regions (the spec's "GPU culling and work list emission")."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import d3d12wl
from d3d12wl.cli._options import RenamedOption

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
READBACK = EXAMPLES / "readback"
CULLING = EXAMPLES / "culling.json"
#: the culling capture's buffers as NAME=FILE@VA regions of ``d3d12wl capture``
CULLING_REGIONS = [f"dispatch_input={READBACK / 'dispatch_input.bin'}@0x10000",
                   f"primary={READBACK / 'primary.bin'}@0x20000",
                   f"program_table={READBACK / 'program_table.bin'}@0x30000",
                   f"opaque={READBACK / 'secondary_opaque.bin'}@0x40000",
                   f"transparent={READBACK / 'secondary_transparent.bin'}@0x41800",
                   f"shadow={READBACK / 'secondary_shadow.bin'}@0x43000"]


def actions(parser: argparse.ArgumentParser, prefix: str = "") -> Iterator[tuple[str, argparse.Action]]:
    """Every argument of every (sub)command: (the command, ``migrate wl-to-ei``; the action), help and version
    left out, and the old spellings an option keeps for a release (they run the option's own action)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from actions(sub, f"{prefix} {name}".strip())
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction | RenamedOption):
            yield prefix, action


def flag_name(action: argparse.Action) -> str:
    """An argument's longest option string, or a positional's destination."""
    return max(action.option_strings, key=len) if action.option_strings else action.dest
