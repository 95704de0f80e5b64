"""The fuzz engine of the surfaces the JSON mutations of ``engine.py`` do not reach: whole command lines.

A case (:func:`case`, drawn from a seed) is one ``d3d12wl`` command line whose paths are drawn from a pool of
hostile ones -- a directory, a FIFO, ``/dev/zero``, ``/dev/full``, a sparse gigabyte of holes, a pseudo-file of
``/proc`` whose size reads 0, a name of 5,000 characters, a name that is not UTF-8, a symlink loop, a dangling
symlink, a path through a regular file, a folder that does not exist -- beside the bundled examples, with

* a standard input stream: none, a document, NUL bytes, binary bytes, or an endless stream;
* an environment: ``D3D12WL_DIRECTX_HEADERS`` and ``D3D12WL_CLANG`` naming nothing, a folder, an incomplete
  folder, a name too long;
* an OS fault: a file-size limit (``RLIMIT_FSIZE``: a full disk), an interrupt (``SIGINT``, as
  ``KeyboardInterrupt``) a few milliseconds into the run, and standard output on ``/dev/full`` or a pipe whose
  reader is gone;
* rarely, a compiler bomb for ``abi check --header/--hlsl`` (a macro that doubles itself, a self-including file, a
  struct of 10^6 fields), under small tool limits;
* (issue 42) a saved trace for ``diff`` (``exec --json`` of a bundled capture, or one with a member of the wrong
  kind), and now and then -- always, for the ``clash`` kind of a campaign -- one thing named twice: an output named
  as a file the command reads (as given, or spelt another way) or as its other output, or a flag given twice with
  two values; such a case must end in exit 2 (or 130, interrupted).

:func:`exercise` runs a case in a forked child (so that limits, signals, the environment and the working folder of
one case touch no other; an endless stream is read against a cap of :data:`STREAM_CAP` bytes there, not 1 GiB)
and checks what a user is promised: exit 0, 1, 2 or 130 (interrupted), never 3 or a traceback; no input the case
reads from the pool is written over; a file that was there before a failed run is left as it was, and so is one an interrupted run had not yet committed (an interrupt
after the commit leaves the new file, whole); no temporary file is left behind; a FIFO stays a FIFO
and a symlink a symlink.  It returns ``(outcome, why, cpu seconds, wall seconds, peak RSS MiB)``, ``outcome``
``ok`` or ``error`` (exit 0/1 and exit 2/130: the good endings) or ``crash``.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import d3d12wl

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
#: the most bytes a stream (stdin, a pseudo-file) is read to in a case, instead of 1 GiB: an endless one costs
#: a moment, and the cap logic is the same
STREAM_CAP = 8 << 20
#: what an output file holds before a case (a failed or interrupted run must leave it so)
OLD = b'{"old": true}\n'
#: seconds a case may take before it counts as a hang (the campaign's own time limit is usually lower)
HANG_SECONDS = 120

DESCRIPTIONS = ("culling.json", "execute_indirect.json", "tier2_chain.json", "gpu_resident_diagram.json")
CAPTURES = ("culling_capture.json", "execute_indirect_capture.json", "tier2_chain_capture.json",
            "validation_chain_capture.json")
#: hostile input paths, by name (made by :func:`_make_pool`); ``ex:NAME`` is a copy of a bundled example
HOSTILE_INPUTS = ("dir", "fifo", "/dev/zero", "/dev/null", "sparse", "empty", "nuls", "proc", "long", "nonutf8",
                  "loop", "dangling", "through-file", "missing", "binary", "link-to-example", "quote\"name.json",
                  "-")
#: hostile output targets (made fresh for each case): what was there before
HOSTILE_OUTPUTS = ("new", "existing", "fifo", "/dev/null", "/dev/full", "symlink", "dangling", "loop", "dir",
                   "missing-folder", "long", "nonutf8", "through-file", "-")


@dataclass
class Case:
    """One generated command line and what surrounds its run."""

    seed: int
    argv: list[str]
    stdin: str = "none"  # none | document | nul | binary | endless
    document: str | None = None  # an example whose text is the document on stdin
    env: dict[str, str] = field(default_factory=dict)
    fsize: int | None = None  # RLIMIT_FSIZE in bytes (a full disk)
    sigint_ms: float | None = None  # SIGINT this long into the run
    stdout: str = "null"  # null (/dev/null) | full (/dev/full: every write fails) | closed (a pipe no one reads)
    outputs: list[str] = field(default_factory=list)  # output targets (names in the case's folder)
    refused: bool = False  # issue 42: the case names one thing twice, which must be exit 2 (130 if interrupted)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def allowed_seconds(self) -> float:
        """CPU seconds the case may take beyond a campaign's per-input limit, for work it asks for: the compiler
        runs of an ``abi check`` case (clang or glslc two or three times under ``--tool-cpu 1``), and a ``capture``
        that writes the pool's sparse GiB region inline (its output a device, a FIFO or standard output: 2 GiB of
        hex lines, about 20 s; seed 10035354) or binds a program table over it (33 M slots read and matched).  What
        such a case must not do, hold the GiB or more, is still held to the campaign's memory limit."""
        if self.argv[:1] == ["abi"]:
            return 5.0
        if self.argv[:1] == ["capture"] and "-o" in self.argv and any("=sparse" in a for a in self.argv):
            target = self.argv[self.argv.index("-o") + 1]
            if target in ("-", "/dev/null", "/dev/full") or f"fifo:{target}" in self.outputs:
                return 60.0
            table = self.argv[self.argv.index("--program-table") + 1] if "--program-table" in self.argv else None
            if table is not None and any(a.startswith(f"{table}=sparse") for a in self.argv):
                return 5.0  # every slot of a GiB table read and matched: about 2 s (seeds 40020262, 40056642)
        return 0.0


# --- the pool of paths ---------------------------------------------------------------------------------------


def _make_pool(root: Path) -> None:
    """The hostile inputs and copies of the examples, made once per folder."""
    (root / "dir").mkdir(exist_ok=True)
    if not (root / "fifo").exists():
        os.mkfifo(root / "fifo")
    with open(root / "sparse", "wb") as f:
        f.truncate(1 << 30)
    (root / "empty").write_bytes(b"")
    (root / "nuls").write_bytes(bytes(4096))
    (root / "binary").write_bytes(bytes(range(256)) * 64)
    (root / "file").write_bytes(b"{}")
    for name in (*DESCRIPTIONS, *CAPTURES):
        shutil.copy(EXAMPLES / name, root / f"ex-{name}")
    shutil.copytree(EXAMPLES / "readback", root / "readback", dirs_exist_ok=True)
    shutil.copytree(EXAMPLES / "culling_ei", root / "culling_ei", dirs_exist_ok=True)
    for name in ("culling_records.h", "culling_records.hlsl"):
        shutil.copy(EXAMPLES / name, root / name)
    for link, target in (("loop", "loop"), ("dangling", "no-such-target"), ("link-to-example", "ex-culling.json")):
        if not os.path.lexists(root / link):
            os.symlink(target, root / link)
    (root / "quote\"name.json").write_bytes((EXAMPLES / "culling.json").read_bytes())
    (root / "incomplete" / "directx").mkdir(parents=True, exist_ok=True)
    (root / "incomplete" / "wsl").mkdir(exist_ok=True)
    (root / "incomplete" / "directx" / "d3d12.h").write_text("")
    (root / "incomplete" / "wsl" / "winadapter.h").write_text("")
    lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 33)]
    (root / "bomb.h").write_text("\n".join(lines) + "\nint v[] = {A32};\n")
    (root / "self.h").write_text('#include "self.h"\nstruct S { int a; };\n')
    (root / "self.hlsl").write_text('#include "self.hlsl"\nstruct SecondaryRecord { uint a; };\n')
    (root / "vamap.csv").write_text("0x0,0x100000000,0x200000000\n")  # every example region moves up 8 GiB
    (root / "fifo.h").write_text('#include "fifo"\nstruct S { int a; };\n')  # clang would wait on it
    (root / "macro-fifo.h").write_text('#define F "fifo"\n#include F\nstruct S { int a; };\n')  # (the walk
    # cannot follow a macro: the wall-clock limit stops clang)
    (root / "fields.h").write_text("struct Big {\n" + "".join(f"  int f{i};\n" for i in range(1_000_000)) + "};\n")
    _save_traces(root)


def _save_traces(root: Path) -> None:
    """The saved traces of :data:`TRACE_FILES`: ``exec --json`` of each bundled capture, and the culling one with a
    member of the wrong kind."""
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor import Limits, execute

    traces = {}
    for name in CAPTURES:
        traces[name] = execute(load_capture(EXAMPLES / name), Limits(max_executions=1024)).to_dict()
        (root / f"trace-{name}").write_text(json.dumps(traces[name]), encoding="utf-8")
    bad = traces["culling_capture.json"]
    for file, change in (("trace-bad-executions.json", {"executions": 1}),
                         ("trace-bad-trigger.json", {"executions": [dict(bad["executions"][0], trigger="x")]}),
                         ("trace-bad-root-arguments.json",
                          {"executions": [dict(bad["executions"][0], root_arguments=5)]})):
        (root / file).write_text(json.dumps({**bad, **change}), encoding="utf-8")


def _input_path(rng: random.Random, kind: str) -> str:
    """A path to read: usually an example of ``kind`` (description, capture, readback, header), else a hostile
    one."""
    if rng.random() < 0.55:
        if kind == "description":
            return f"ex-{rng.choice(DESCRIPTIONS)}"
        if kind == "capture":
            return f"ex-{rng.choice(CAPTURES)}"
        if kind == "map":
            return "vamap.csv"
        if kind == "readback":
            return f"readback/{rng.choice(['primary.bin', 'program_table.bin', 'dispatch_input.bin'])}"
        return rng.choice(["culling_records.h", "bomb.h", "self.h", "fields.h", "fifo.h", "macro-fifo.h"])
    name = rng.choice(HOSTILE_INPUTS)
    return {"proc": "/proc/self/status", "long": "x" * 5000, "nonutf8": os.fsdecode(b"bad\xff\xfe.json"),
            "through-file": "file/inside.json", "missing": "no-such-folder/x.json"}.get(name, name)


def _output_path(rng: random.Random, case: Case, suffix: str = ".json") -> str:
    kind = rng.choice(HOSTILE_OUTPUTS)
    name = {"new": f"out{suffix}", "existing": f"out{suffix}", "fifo": "out-fifo", "symlink": f"link{suffix}",
            "dangling": "dangling-out", "loop": "loop-out", "dir": "out-dir", "missing-folder": "nowhere/out",
            "long": "y" * 5000, "nonutf8": os.fsdecode(b"out\xff" + suffix.encode()), "through-file": "file/out",
            }.get(kind, kind)
    if not name.startswith("/") and name != "-" and f"{kind}:{name}" not in case.outputs:  # (one target, two flags)
        case.outputs.append(f"{kind}:{name}")
    return name


def _prepare_outputs(folder: Path, case: Case) -> None:
    """What each output target is before the run."""
    for item in case.outputs:
        kind, name = item.split(":", 1)
        path = folder / name
        if kind == "existing":
            path.write_bytes(OLD)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink":
            (folder / "store").mkdir(exist_ok=True)
            (folder / "store" / "real.json").write_bytes(OLD)
            os.symlink("store/real.json", path)
        elif kind == "dangling":
            os.symlink("store2/none.json", path)
        elif kind == "loop":
            os.symlink(name, path)
        elif kind == "dir":
            path.mkdir()


# --- cases -----------------------------------------------------------------------------------------------------


def _region(rng: random.Random) -> str:
    va = rng.choice(["0x10000", "0x20000", "0x100000000", "\uff11\uff12\uff13", "0x" + "f" * 40, "1" * 60])
    source = rng.choice(["hex:00112233", "zeros:4096", f"zeros:{rng.choice([1 << 33, 1 << 40, 1 << 63])}",
                         "base64:AAEC", "-", "readback/primary.bin", "dir", "fifo", "/dev/zero", "x" * 5000,
                         "sparse", "empty", "/proc/self/status", "loop", "readback/primary.bin,offset=99999999"])
    return f"r{rng.randrange(3)}={source}{rng.choice(['', '', ',writable'])}@{va}"


def case(seed: int, *, clash: bool = False) -> Case:
    """The case of ``seed`` (a campaign reproduces a case from its seed alone); ``clash``: always one that names
    one thing twice (:func:`_clash`), the ``clash`` kind of a campaign."""
    rng = random.Random(seed)
    c = Case(seed, [])
    command = rng.choices(["validate", "layout", "codegen", "decode", "capture", "dump", "exec", "diff",
                           "migrate-wl", "migrate-ei", "migrate-scene", "junit", "abi", "patch-list", "remap"],
                          weights=[10, 6, 6, 12, 20, 10, 10, 4, 8, 6, 2, 1, 2, 5, 5])[0]
    if command in ("validate", "layout"):
        c.argv = [command, _input_path(rng, "description")]
    elif command == "codegen":
        c.argv = ["codegen", _input_path(rng, "description"), "--lang", rng.choice(["c", "hlsl", "renderdoc"])]
        c.argv += rng.choice([[], [], ["--capture", _input_path(rng, "capture")],
                              ["--stride", rng.choice(["PCS.secondary=64", "PCS.secondary=\uff16\uff14", "x=1"])]])
    elif command == "decode":
        what = rng.choice(["PCS.primary", "PCS.secondary", "PCS.program_table", "D3D12_DISPATCH_LIST_INPUT",
                           "EI.command"])
        if rng.random() < 0.3:  # the records as a capture's call reads them
            c.argv = ["decode", "--capture", _input_path(rng, "capture"), what]
        else:
            c.argv = ["decode", _input_path(rng, "description"), what, _input_path(rng, "readback")]
            c.argv += rng.choice([[], ["--va", rng.choice(["0x1000", "\uff11", "9" * 60])], ["--count", "3"]])
        c.argv += ["--format", rng.choice(["text", "csv", "json"])]
    elif command == "capture":
        c.argv = ["capture", _input_path(rng, "description")] + [_region(rng) for _ in range(rng.randint(1, 3))]
        c.argv += ["-o", _output_path(rng, c), "--dispatch-list", rng.choice(["r0", "r1", "0x10000"])]
        if rng.random() < 0.3:
            c.argv += ["--program-table", rng.choice(["r0", "r1", "r2"])]
        if rng.random() < 0.2:
            c.argv += ["--state", _input_path(rng, "capture")]
    elif command in ("dump", "exec"):
        c.argv = [command, _input_path(rng, "capture")]
        if command == "dump" and rng.random() < 0.3:
            c.argv += rng.choice([["--hex"], ["--info-queue"], ["--primary", rng.choice(["0:2", "\uff10:1", "9:"])],
                                  ["--limit", "1"], ["--json"]])
        if command == "exec":
            c.argv += rng.choice([[], ["--format", rng.choice(["json", "jsonl", "csv"])],
                                  ["--max-executions", rng.choice(["10", "\uff11\uff10", "auto"])],
                                  ["--validators", rng.choice(["x" * 5000 + ".py:V", "dir/v.py:V", "fifo:V"])]])
            if rng.random() < 0.5:  # a file output of every format (issue 23's writers: atomic, the verdict beside)
                fmt = rng.choice(["text", "json", "jsonl", "csv", "npz", "parquet"])
                c.argv += ["--format", fmt, "-o", _output_path(rng, c, "." + fmt)]
                if fmt in ("csv", "parquet") and rng.random() < 0.3:
                    c.argv += ["--findings", _output_path(rng, c, ".findings." + fmt)]
                c.argv += rng.choice([[], [], ["--limit", rng.choice(["1", "\uff11", "0"])], ["--program", "Opaque"],
                                      ["--primary", rng.choice(["0:2", "9:", "x"])], ["--kind", "unmapped-va"]])
        elif rng.random() < 0.3:
            c.argv += ["-o", _output_path(rng, c, ".txt")]
    elif command == "patch-list":
        c.argv = ["patch-list", _input_path(rng, "capture"), "--format", rng.choice(["csv", "jsonl", "npz"])]
        c.argv += rng.choice([[], ["-o", _output_path(rng, c, rng.choice([".csv", ".npz"]))]])
    elif command == "remap":
        c.argv = ["remap", _input_path(rng, "capture"), "--va-map", _input_path(rng, "map"), "-o",
                  _output_path(rng, c)] + rng.choice([[], ["--keep-unmapped"], ["--verify"]])
    elif command == "diff":
        c.argv = ["diff", _input_path(rng, "capture"), _input_path(rng, "capture")]
    elif command == "migrate-wl":
        c.argv = ["migrate", "wl-to-ei", _input_path(rng, "capture"), "-o", _output_path(rng, c, "")]
    elif command == "migrate-ei":
        source = rng.choice(["culling_ei/calls.json", _input_path(rng, "capture"),
                             f"P={_input_path(rng, 'capture')}"])
        c.argv = ["migrate", "ei-to-wl", source, "-o", _output_path(rng, c)]
    elif command == "migrate-scene":
        c.argv = ["migrate", "scene", "-o", _output_path(rng, c, ""), "--draws", rng.choice(["100", "\uff11"]),
                  "--psos", "4"]
    elif command == "junit":
        c.argv = ["messages", "check", "--junit", _output_path(rng, c, ".xml")]
    else:  # a compiler bomb, or the environment of one, under small limits
        c.argv = ["abi", "check", "--tool-memory", "300", "--tool-cpu", "1"]
        c.argv += rng.choice([["--header", _input_path(rng, "header"), "--prelude", "none"],
                              ["--hlsl", rng.choice(["self.hlsl", "culling_records.hlsl"]), "--description",
                               "ex-culling.json", "--record-struct", "PCS.secondary=SecondaryRecord"]])
        c.env = rng.choice([{}, {"D3D12WL_DIRECTX_HEADERS": rng.choice(["incomplete", "x" * 5000, "dir"])},
                            {"D3D12WL_CLANG": rng.choice(["dir", "missing-clang", "x" * 5000, "empty"])}])
    if "-" in c.argv or rng.random() < 0.1:
        c.stdin = rng.choice(["document", "nul", "binary", "endless", "none"])
        c.document = rng.choice([*DESCRIPTIONS, *CAPTURES])
    if c.outputs and rng.random() < 0.25:
        c.fsize = rng.choice([0, 1, 100, 4096, 100_000])
    if rng.random() < 0.15:
        c.sigint_ms = rng.uniform(0.5, 60)
    if rng.random() < 0.1:  # (drawn last: every earlier draw of a seed, and so its case, is what it was before)
        c.stdout = rng.choice(["full", "closed"])
    if c.argv[0] == "exec" and rng.random() < 0.3:  # (after it, for the same reason) the JSON versions
        c.argv += ["--json-version", rng.choice(["1", "2", "3", "\uff12", "-1"])]
    # (after those, for the same reason) issue 42: a saved trace for diff; an output named as an input or as another
    # output, a flag given twice with two values (always, for a campaign of ``clash`` cases)
    if c.argv[0] == "diff" and rng.random() < 0.5:
        c.argv[rng.choice((1, 2))] = rng.choice(TRACE_FILES)
    if clash or rng.random() < 0.15:
        _clash(rng, c)
    return c


#: the saved traces in the pool (``exec --json`` of each bundled capture) and three of the wrong shape (issue 42,
#: class 2: a member of the wrong type)
TRACE_FILES = (*(f"trace-{name}" for name in CAPTURES), "trace-bad-executions.json", "trace-bad-trigger.json",
               "trace-bad-root-arguments.json")
#: the output flags of each command
_OUTPUT_FLAGS = ("-o", "--findings", "--junit")
#: flags of one value to give twice, by command, with two values each
_ONE_VALUE = {"exec": ("--format", "json", "csv"), "dump": ("--limit", "1", "2"),
              "decode": ("--format", "csv", "json"), "codegen": ("--lang", "c", "hlsl"),
              "capture": ("--max-inputs", "3", "4"), "remap": ("-o", "a.json", "b.json"),
              "patch-list": ("--format", "csv", "jsonl"), "validate": ("--tier", "1", "2"),
              "diff": ("--key", "call", "program"), "messages": ("--timeout", "1", "2"),
              "abi": ("--tool-memory", "300", "301")}
#: keyed flags to give twice, naming one thing with two values
_KEYED = {"capture": ("--descriptor-heap", "SAMPLER=0xe0000000,16,32", "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER=0x0,16,32"),
          "exec": ("--reading", "render_pass=selected", "render_pass=bound"),
          "dump": ("--reading", "render_pass=bound", "render_pass=selected"),
          "codegen": ("--stride", "PCS.secondary=24", "PCS.secondary=32")}


def _input_files(argv: list[str]) -> list[str]:
    """The paths of argv that name a regular file of the pool the command reads (an example, a readback, a map)."""
    found = []
    for word in argv:
        path = word.partition("=")[2].rpartition("@")[0].split(",")[0] if "@" in word and "=" in word else word
        path = path.partition("=")[2] if path.startswith("P=") else path
        if path.startswith(("ex-", "readback/", "culling_ei/", "trace-")) or path in ("vamap.csv", "culling_records.h"):
            found.append(path)
    return found


def _clash(rng: random.Random, c: Case) -> None:
    """Make ``c`` name one thing twice: an output as an input the command reads or as its other output, or a flag
    given twice with two values; every one is exit 2 (:attr:`Case.refused`)."""
    command = c.argv[0] if c.argv[0] != "migrate" else f"migrate {c.argv[1]}"
    outputs = [i for i, word in enumerate(c.argv) if word in _OUTPUT_FLAGS and i + 1 < len(c.argv)]
    reads = _input_files(c.argv)
    choice = rng.random()
    if outputs and reads and command not in ("migrate wl-to-ei", "migrate scene") and choice < 0.5:
        c.argv[rng.choice(outputs) + 1] = rng.choice((lambda p: p, lambda p: f"./{p}", lambda p: f"dir/../{p}"))(
            rng.choice(reads))
    elif command == "exec" and choice < 0.7:
        target = rng.choice(("P.csv", "out.csv", "./out.csv", "-"))
        c.argv += ["--format", "csv", "-o", target, "--findings", target]
    elif c.argv[0] in _KEYED and choice < 0.85:
        flag, first, second = _KEYED[c.argv[0]]
        c.argv += [flag, first, flag, second]
    elif c.argv[0] in _ONE_VALUE:
        flag, first, second = _ONE_VALUE[c.argv[0]]
        c.argv += [flag, first, flag, second]
    else:  # (layout, migrate: -o given twice, which layout does not take at all)
        c.argv += ["-o", "one.json", "-o", "two.json"]
    c.refused = True


# --- running a case ------------------------------------------------------------------------------------------


def _cap_streams() -> None:
    from d3d12wl import inputs

    for fn in (inputs.read_text, inputs.read_bytes, inputs.load_json, inputs.map_bytes):
        kw = dict(fn.__kwdefaults__ or {})
        kw["limit"] = STREAM_CAP
        fn.__kwdefaults__ = kw


def _feed_stdin(c: Case, folder: Path) -> None:
    """Standard input of the child: fd 0 as the case says (a pipe fed by a thread for the streams)."""
    if c.stdin == "none":
        fd = os.open(os.devnull, os.O_RDONLY)
    else:
        read, write = os.pipe()
        if c.stdin == "document":
            data = (EXAMPLES / (c.document or "culling.json")).read_bytes()
        elif c.stdin == "nul":
            data = bytes(1 << 20)
        elif c.stdin == "binary":
            data = bytes(range(256)) * 4096
        else:
            data = b" " * (1 << 20)

        def feed() -> None:
            try:
                while True:
                    os.write(write, data)
                    if c.stdin != "endless":
                        break
            except OSError:  # the reader stopped reading (refused at the cap): the stream ends
                pass
            finally:
                os.close(write)

        threading.Thread(target=feed, daemon=True).start()
        fd = read
    os.dup2(fd, 0)
    os.close(fd)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the child's stdin for its one run


def _drain_fifos(folder: Path) -> None:
    """A reader for every FIFO output (a write to a FIFO without one waits, as it does for any program)."""
    for path in folder.iterdir():
        if path.name.startswith("out-fifo") and stat.S_ISFIFO(os.lstat(path).st_mode):
            def drain(p: Path = path) -> None:
                with open(p, "rb") as f:
                    while f.read(1 << 16):
                        pass

            threading.Thread(target=drain, daemon=True).start()


def _stdout(c: Case) -> Any:
    """The child's standard output for its one run: /dev/null, /dev/full, or a pipe whose reader is gone (a write
    raises BrokenPipeError: Python ignores SIGPIPE)."""
    if c.stdout == "closed":
        read, write = os.pipe()
        os.close(read)
        return os.fdopen(write, "w", encoding="utf-8")
    return open("/dev/full" if c.stdout == "full" else os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def _child(c: Case, folder: Path, pool: Path, report: int) -> None:
    """In the forked child: set the case up, run ``d3d12wl.cli.main``, report its exit status and stderr."""
    import io

    from d3d12wl.cli import main

    os.chdir(folder)
    for name in os.listdir(pool):  # the pool's paths, seen from the case's folder
        if name == "fifo":
            os.mkfifo(name)
        elif name in ("loop", "dangling"):
            os.symlink(os.readlink(pool / name), name)
        else:
            os.symlink(pool / name, name)
    _prepare_outputs(folder, c)
    _drain_fifos(folder)
    _cap_streams()
    os.environ.update(c.env)
    _feed_stdin(c, folder)
    err = io.StringIO()
    sys.stderr = err
    sys.stdout = _stdout(c)
    if c.fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (c.fsize, resource.RLIM_INFINITY))
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        try:
            if c.sigint_ms is not None:
                signal.signal(signal.SIGALRM, interrupt)
                signal.setitimer(signal.ITIMER_REAL, c.sigint_ms / 1000)
            code = main(list(c.argv))
        finally:  # (one shot: once it fired, nothing re-arms it)
            signal.setitimer(signal.ITIMER_REAL, 0)
    except KeyboardInterrupt:  # (arrived outside main's own handler: just before or after the command)
        code = 130
    except SystemExit as exc:  # argparse: a usage error
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:  # noqa: BLE001 - what the campaign looks for
        code, err = -1, io.StringIO(f"{type(exc).__name__}: {exc}")
    os.write(report, json.dumps({"code": code, "stderr": err.getvalue()[-4000:]}).encode("utf-8",
                                                                                        "backslashreplace"))


def _leftovers(folder: Path) -> list[str]:
    bad = []
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            if name.endswith(".tmp"):
                bad.append(os.path.join(dirpath, name))
    return bad


def _pool_digests(pool: Path) -> dict[str, str]:
    """The content of every input the cases read from the pool (an example, a readback, a map, a saved trace): a
    command that wrote over one of its inputs would change it."""
    import hashlib

    out = {}
    for path in sorted(pool.rglob("*")):
        rel = str(path.relative_to(pool))
        if rel.startswith(("ex-", "readback/", "culling_ei/", "trace-")) or rel in ("vamap.csv", "culling_records.h"):
            if path.is_file() and not path.is_symlink():
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _check(c: Case, folder: Path, code: int, stderr: str) -> str:
    """What was promised and is not so (empty when all is well)."""
    if code not in (0, 1, 2, 130):
        return f"exit {code}: {stderr.strip().splitlines()[-1] if stderr.strip() else '(no message)'}"
    if "internal error" in stderr or "Traceback" in stderr:
        return f"exit {code} with: {stderr.strip()[-500:]}"
    if c.refused and code not in (2, 130):
        return f"exit {code} where one thing is named twice (an output as an input or another output, a flag " \
               f"given two values): {stderr.strip()[-300:]}"
    left = _leftovers(folder)
    if left:
        return f"temporary files left: {left[:3]}"
    for item in c.outputs:
        kind, name = item.split(":", 1)
        path = folder / name
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if kind == "fifo" and not stat.S_ISFIFO(st.st_mode):
            return f"the FIFO {name} was replaced"
        if kind in ("symlink", "dangling", "loop") and not stat.S_ISLNK(st.st_mode):
            return f"the symlink {name} was replaced"
        target = folder / "store" / "real.json" if kind == "symlink" else path
        if kind not in ("existing", "symlink", "new") or not target.is_file():
            continue
        data = target.read_bytes()
        if code == 2 and (kind == "new" or data != OLD):
            return f"exit {code} left {name} {'written' if kind == 'new' else 'changed'} ({len(data)} bytes)"
        # an interrupt leaves the old file or none, unless it came once the output was committed (the summary
        # printed after it): then the new one, whole (seed 10005268: remap interrupted after its rename)
        if code in (0, 1, 130) and name.endswith(".json") and data != OLD:
            try:  # a whole file: what was written parses
                json.loads(data)
            except ValueError:
                return f"exit {code} left {name} torn ({len(data)} bytes that are not JSON)"
    return ""


def exercise(c: Case, pool: Path) -> tuple[str, str, float, float, float]:
    """Run ``c`` in a forked child over ``pool`` (made by :func:`make_pool`); see the module docstring."""
    folder = Path(tempfile.mkdtemp(prefix="case-", dir=pool.parent))
    inputs_before = _pool_digests(pool)
    read, write = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            _child(c, folder, pool, write)
        finally:
            os._exit(0)
    os.close(write)
    chunks: list[bytes] = []
    done = threading.Event()

    def collect() -> None:
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
        done.set()

    threading.Thread(target=collect, daemon=True).start()
    if not done.wait(HANG_SECONDS):
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    done.wait(5)
    os.close(read)
    wall = time.perf_counter() - start
    cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
    try:
        if not chunks:
            why = "hung" if wall >= HANG_SECONDS else f"the child died ({os.waitstatus_to_exitcode(status)})"
            return "crash", why, cpu, wall, rss
        result = json.loads(b"".join(chunks))
        why = _check(c, folder, int(result["code"]), str(result["stderr"]))
        changed = [name for name, digest in _pool_digests(pool).items() if inputs_before.get(name) != digest]
        if changed:
            why = f"{why}; " * bool(why) + f"inputs written over: {changed[:3]}"
            _make_pool(pool)  # (put them back for the cases after it)
        if why:
            return "crash", why, cpu, wall, rss
        return ("ok" if result["code"] in (0, 1) else "error"), "", cpu, wall, rss
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def preload() -> None:
    """Import every module a command imports on first use, before the children fork (each child would import them
    again: most of a case's time)."""
    import importlib
    import pkgutil

    from d3d12wl.cli import ALL, build_parser

    build_parser(ALL)
    for info in pkgutil.walk_packages(d3d12wl.__path__, "d3d12wl."):
        if not info.name.startswith(("d3d12wl.examples", "d3d12wl.vulkan")) and not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def make_pool(root: Path) -> Path:
    """The shared hostile inputs under ``root`` (made once; cases run in folders beside it)."""
    pool = root / "pool"
    pool.mkdir(parents=True, exist_ok=True)
    _make_pool(pool)
    return pool
