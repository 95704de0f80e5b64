"""The md5 of every output the command line writes of the benchmark frames and the bundled examples: what a change
to the output stage must keep byte for byte (issue 39), or name as a fix in its commit.

Each output is made by the command line in a fresh process (``python -m d3d12wl ...``), as a user gets it:

* the 1 M-draw culling frame of ``tools/bench_executor.py`` (``--draws``; hybrid records, 16 a primary record) and
  an ExecuteIndirect frame of as many commands: ``exec`` in every format (text, json and jsonl in both versions,
  csv and parquet with their verdict tables, npz), ``dump`` and ``dump --json``, ``patch-list`` in every format;
* every bundled ``d3d12wl/examples/*_capture.json``: the same, ``dump --hex`` too, and a selection (``--limit 3``,
  ``--list 0 --primary 1:3``) in every exec format; the validation chain with its bundled validators;
* ``decode`` of the bundled readback and of the examples' captures (``--capture``) in every format.

An npz is a zip whose members carry the time they were written: its digest is of its members' names and bytes.
Every other digest is of the file's bytes.  ``--python-path DIR`` runs the command line of another checkout
(``DIR`` first on ``PYTHONPATH``), so two codes are compared on the same inputs:

    python tools/output_digests.py --json > after.json
    python tools/output_digests.py --json --python-path /tmp/base > before.json
    python tools/output_digests.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
EXAMPLES = TOOLS.parent / "d3d12wl" / "examples"
sys.path.insert(0, str(TOOLS))

#: exec's outputs: name -> flags
EXEC_OUTPUTS: dict[str, list[str]] = {
    **{fmt: ["--format", fmt] for fmt in ("text", "json", "jsonl", "csv", "npz", "parquet")},
    **{f"{fmt} v1": ["--format", fmt, "--json-version", "1"] for fmt in ("json", "jsonl")},
}
#: selections measured on the examples (the list one on work lists only: an ExecuteIndirect call has no lists, and
#: exec refuses the selection, exit 2)
SELECTIONS = {"limit3": ["--limit", "3"], "list0-primary1:3": ["--list", "0", "--primary", "1:3"]}
WORK_LIST_ONLY = {"list0-primary1:3"}
PATCH_FORMATS = ("csv", "jsonl", "npz", "parquet")
DECODE_FORMATS = ("text", "csv", "json")


def digest(path: Path) -> str:
    """The md5 of ``path``: of an npz's members (names and bytes, in order), else of its bytes."""
    md5 = hashlib.md5()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                md5.update(info.filename.encode() + b"\0")
                with z.open(info) as member:
                    while chunk := member.read(1 << 20):
                        md5.update(chunk)
        return md5.hexdigest()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            md5.update(chunk)
    return md5.hexdigest()


class Runner:
    def __init__(self, tmp: Path, python_path: str | None) -> None:
        self.tmp = tmp
        self.env = dict(os.environ)
        if python_path:
            self.env["PYTHONPATH"] = os.pathsep.join([python_path, *filter(None, [self.env.get("PYTHONPATH")])])
        self.digests: dict[str, str] = {}

    def run(self, name: str, argv: list[str], outputs: dict[str, Path] | None = None, stdout: bool = False) -> None:
        """``d3d12wl argv``; the digest of each of ``outputs`` (suffix -> path) or of its standard output."""
        out = self.tmp / "stdout"
        with out.open("wb") as f:
            done = subprocess.run([sys.executable, "-m", "d3d12wl", *argv], stdout=f, stderr=subprocess.PIPE,
                                  env=self.env, cwd=self.tmp, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{name}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
        self.digests[f"{name} exit"] = str(done.returncode)
        if stdout:
            self.digests[name] = digest(out)
        for suffix, path in (outputs or {}).items():
            self.digests[f"{name}{suffix}"] = digest(path) if path.exists() else "missing"
            path.unlink(missing_ok=True)

    def exec_all(self, label: str, capture: Path, extra: list[str] = (), selections: bool = False) -> None:
        ei = selections and _execute_indirect(capture)  # (only examples are selected: frames are named relative)
        chosen = [(n, s) for n, s in SELECTIONS.items() if selections and not (ei and n in WORK_LIST_ONLY)]
        for sel_name, sel in [("", []), *chosen]:
            for out_name, flags in EXEC_OUTPUTS.items():
                fmt = flags[1]
                path = self.tmp / f"out.{fmt}"
                outputs = {"": path}
                if fmt in ("csv", "parquet"):
                    outputs[" findings"] = self.tmp / f"out.findings.{fmt}"
                name = f"{label} exec {out_name}" + (f" {sel_name}" if sel_name else "")
                self.run(name, ["exec", str(capture), *extra, *sel, *flags, "-o", str(path)], outputs)

    def dump_all(self, label: str, capture: Path, extra: list[str] = (), hex_: bool = True) -> None:
        for name, flags in (("dump", []), ("dump --json", ["--json"]), *((("dump --hex", ["--hex"]),) if hex_
                                                                          else ())):
            path = self.tmp / "out.txt"
            self.run(f"{label} {name}", ["dump", str(capture), *extra, *flags, "-o", str(path)], {"": path})

    def patch_all(self, label: str, capture: Path) -> None:
        for fmt in PATCH_FORMATS:
            path = self.tmp / f"patch.{fmt}"
            self.run(f"{label} patch-list {fmt}", ["patch-list", str(capture), "--format", fmt, "-o", str(path)],
                     {"": path})


def frames(tmp: Path, draws: int) -> dict[str, Path]:
    from bench_executor import culling_capture, execute_indirect_capture

    from d3d12wl.capture.file import save_capture

    out = {}
    for name, capture in (("frame", culling_capture(draws, 16)), ("ei-frame", execute_indirect_capture(draws))):
        folder = tmp / name
        folder.mkdir()
        save_capture(capture, folder / "capture.json")
        out[name] = Path(name) / "capture.json"  # (relative to the folder the commands run in: dump names it)
    return out


def collect(python_path: str | None, draws: int, only: str | None) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="d3d12wl-digests-") as t:
        tmp = Path(t)
        r = Runner(tmp, python_path)
        inputs = frames(tmp, draws) if draws else {}
        inputs.update({p.stem: p for p in sorted(EXAMPLES.glob("*_capture.json"))})
        validators = ["--validators", "d3d12wl.examples.validators:VALIDATORS"]
        for label, capture in inputs.items():
            if only and only not in label:
                continue
            example = not label.endswith("frame")
            extra = validators if label.startswith("validation") else []
            r.exec_all(label, capture, extra, selections=example)
            r.dump_all(label, capture, extra, hex_=example)
            r.patch_all(label, capture)
            if example:
                for what in _capture_records(capture):
                    for fmt in DECODE_FORMATS:
                        r.run(f"{label} decode {what} {fmt}", ["decode", "--capture", str(capture), what, "--format",
                                                               fmt], stdout=True)
        if not only or "readback" in only:
            desc = EXAMPLES / "culling.json"
            for what, file in (("PCS.primary", "primary.bin"), ("PCS.secondary", "secondary_opaque.bin"),
                               ("Opaque.program_table", "program_table.bin"),
                               ("D3D12_DISPATCH_LIST_INPUT", "dispatch_input.bin")):
                for fmt in DECODE_FORMATS:
                    r.run(f"readback decode {what} {fmt}", ["decode", str(desc), what,
                                                            str(EXAMPLES / "readback" / file), "--format", fmt],
                          stdout=True)
        return r.digests


def _execute_indirect(capture: Path) -> dict | None:
    """The ExecuteIndirect call of ``capture`` (None: a work list)."""
    return json.loads(capture.read_text(encoding="utf-8")).get("call", {}).get("ExecuteIndirect")


def _capture_records(capture: Path) -> list[str]:
    """What ``decode --capture`` decodes of a bundled capture: its call's command signature's commands, or its
    PCSes' primary and secondary records."""
    doc = json.loads(capture.read_text(encoding="utf-8"))
    ei = _execute_indirect(capture)
    whats = [f"{ei['pCommandSignature']}.command"] if ei else []
    if not whats:
        for n, pcs in doc.get("program_command_signatures", {}).items():
            whats.append(f"{n}.primary")
            if pcs.get("SecondaryRecordByteStride"):
                whats.append(f"{n}.secondary")
    return whats


def compare(before: dict[str, str], after: dict[str, str]) -> int:
    changed = [k for k in before if k in after and before[k] != after[k]]
    missing = [k for k in before if k not in after]
    added = [k for k in after if k not in before]
    for k in changed:
        print(f"changed  {k}: {before[k]} -> {after[k]}")
    for k in missing:
        print(f"missing  {k}")
    for k in added:
        print(f"added    {k}: {after[k]}")
    same = len(before) - len(changed) - len(missing)
    print(f"{same} of {len(before)} the same, {len(changed)} changed, {len(missing)} missing, {len(added)} added")
    return 1 if changed or missing else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draws", type=int, default=1 << 20, help="draws of each frame (0: the examples only)")
    ap.add_argument("--python-path", default=None, help="a checkout whose d3d12wl the command line runs")
    ap.add_argument("--only", default=None, help="only the inputs whose label holds this text")
    ap.add_argument("--json", action="store_true", help="print the digests as JSON")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two --json outputs")
    args = ap.parse_args(argv)
    if args.compare:
        before, after = (json.loads(Path(p).read_text(encoding="utf-8")) for p in args.compare)
        return compare(before, after)
    digests = collect(args.python_path, args.draws, args.only)
    if args.json:
        json.dump(digests, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for k, v in digests.items():
            print(f"{v}  {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
