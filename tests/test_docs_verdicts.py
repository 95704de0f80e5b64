"""The CI configurations of docs/check.md: their ``d3d12wl check`` lines (the ``yaml`` blocks) parse as the command
line parses them, their shard variables set.  (The page's console examples run with every page's, in
tests/test_doc_console.py; its Python examples in tests/test_doc_examples.py.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from d3d12wl.cli import build_parser
from d3d12wl.verdicts.discover import parse_shard

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "docs" / "check.md", ROOT / "docs" / "report.md"]
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(path: Path, lang: str) -> list[str]:
    return [body for kind, body in _BLOCK.findall(path.read_text(encoding="utf-8")) if kind == lang]


def test_the_ci_configurations_give_check_what_it_reads() -> None:
    """GitLab's $CI_NODE_INDEX/$CI_NODE_TOTAL and a GitHub matrix's shard make a --shard I/N; every flag exists."""
    lines = [line.strip().removeprefix("- ").removeprefix("run: ") for body in _blocks(PAGES[0], "yaml")
             for line in body.splitlines() if "d3d12wl check" in line]
    assert len(lines) == 2
    parser = build_parser()
    for line in lines:
        for index in (1, 4):
            text = (line.replace("$CI_NODE_INDEX", str(index)).replace("$CI_NODE_TOTAL", "4")
                    .replace("${{ matrix.shard }}", str(index)))
            args = parser.parse_args(shlex.split(text)[1:])
            assert args.command == "check" and parse_shard(args.shard).index == index
            assert args.junit == f"junit-{index}.xml" and args.output_dir == "pages" and args.baseline
