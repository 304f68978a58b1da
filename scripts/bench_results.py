"""``--results DIR`` for the benchmark scripts: what a script prints, kept as a JSON file with the machine
it ran on and the date, so that the docs' benchmark pages are made from it (``docsite/benchmarks.py``)
and never typed by hand.

A script adds the option with :func:`add_option` and calls :func:`start` with it right after parsing;
everything it then prints still goes to the terminal and is also written, at exit, to
``DIR/<script>-<UTC time>.json``::

    {"script": "bench_view.py", "command": "python3 scripts/bench_view.py --browser",
     "date": "2026-11-28T05:40:00Z", "seconds": 41.2,
     "machine": {"cores": 2, "cpu": "AMD EPYC", "load_start": [..], "load_end": [..], "python": "3.11.7"},
     "output": "...every line printed..."}
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import platform
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        type=Path,
        metavar="DIR",
        help="Also write what this prints, with the machine and the date, to DIR/<script>-<time>.json "
        "(the docs' benchmark pages are generated from docs/benchmarks/results/).",
    )


class _Tee(io.TextIOBase):
    """Standard output that also keeps a copy of everything written to it."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal = terminal
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.terminal.write(text)

    def flush(self) -> None:
        self.terminal.flush()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(load_start: tuple[float, ...]) -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "load_start": [round(x, 2) for x in load_start],
        "load_end": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def start(directory: Path | None, script: str | None = None) -> None:
    """Keep everything printed from now on; at exit, write it with the machine and date into ``directory``
    (nothing when it is None). The file is written at exit, not when ``main`` returns, so that a script's
    last lines are kept whichever way it ends (a return, ``sys.exit``, an error's message)."""
    if directory is None:
        return
    name = Path(script or sys.argv[0]).name
    began = time.time()
    load = os.getloadavg()
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    failed: list[BaseException] = []
    show_error = sys.excepthook

    def note_failure(kind, error, traceback) -> None:
        failed.append(error)
        show_error(kind, error, traceback)

    sys.excepthook = note_failure

    def write() -> None:
        sys.stdout = tee.terminal
        if failed:  # a traceback is not a measurement
            print(f"results: none written, the script failed ({type(failed[0]).__name__})", file=sys.stderr)
            return
        directory.mkdir(parents=True, exist_ok=True)
        stamp = datetime.fromtimestamp(began, timezone.utc)
        record = {
            "script": name,
            "command": shlex.join(["python3", f"scripts/{name}", *sys.argv[1:]]),
            "date": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": round(time.time() - began, 1),
            "machine": machine(load),
            "output": tee.kept.getvalue(),
        }
        base = f"{Path(name).stem}-{stamp.strftime('%Y%m%dT%H%M%S')}"
        # two runs started in the same second (two sets measured side by side) each keep their own file
        for n in range(1, 100):
            path = directory / (f"{base}.json" if n == 1 else f"{base}-{n}.json")
            try:
                with path.open("x", encoding="utf-8") as out:
                    out.write(json.dumps(record, indent=1) + "\n")
                break
            except FileExistsError:
                continue
        print(f"results: {path}", file=sys.stderr)

    atexit.register(write)
