"""The benchmark pages, from the results files of ``docs/benchmarks/results/``: one page per script,
its latest results first, each with its command, date and machine, and an index of them all.

A results file is what ``scripts/bench_results.py`` writes for ``--results DIR``: the command, the date,
the machine and everything the script printed (``output``). Figures of earlier sessions, which could not
be measured again, are files of the same form marked ``transcribed``, holding the text that reported
them (``notes``) and the machine as that text describes it."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from docsite.markdown import cell, docstring, prose, table

PAGES = "benchmarks"


@dataclass(frozen=True)
class Result:
    file: str
    script: str
    command: str
    date: str
    machine: dict
    output: str = ""
    notes: str = ""
    transcribed: bool = False
    date_note: str = ""
    seconds: float | None = None

    @property
    def stem(self) -> str:
        return Path(self.script).stem

    def machine_line(self) -> str:
        m = self.machine
        if "note" in m:
            return f"{m.get('cores', '?')} cores; {m['note']}"
        load = "load average {} at the start, {} at the end".format(
            " / ".join(str(x) for x in m["load_start"]), " / ".join(str(x) for x in m["load_end"])
        )
        return f"{m['cores']} cores ({m['cpu']}), {load}; Python {m['python']}, {m['system']}"


def load(directory: Path) -> list[Result]:
    return [Result(file=path.name, **json.loads(path.read_text())) for path in sorted(directory.glob("*.json"))]


def scripts_with_results(directory: Path) -> list[str]:
    return sorted({result.stem for result in load(directory)})


def summary(scripts: Path, stem: str) -> str:
    """The script's docstring: what it measures and how it is called."""
    source = scripts / f"{stem}.py"
    if not source.exists():
        return ""
    return ast.get_docstring(ast.parse(source.read_text())) or ""


def section(result: Result) -> list[str]:
    heading = f"## {result.date}" + (" (earlier sessions, transcribed)" if result.transcribed else "")
    lines = [heading, "", f"- command: `{result.command}`", f"- machine: {prose(result.machine_line())}"]
    if result.date_note:
        lines.append(f"- date: {prose(result.date_note)}")
    if result.seconds is not None:
        lines.append(f"- took {result.seconds:g} s")
    lines.append(f"- data: [`results/{result.file}`](results/{result.file})")
    lines.append("")
    if result.output:
        lines += ["```text", result.output.rstrip("\n"), "```", ""]
    if result.notes:
        lines += [result.notes.rstrip("\n"), ""]
    return lines


def newest_first(results: list[Result]) -> list[Result]:
    # measured results before transcribed ones of the same date: what was run last is what stands
    return sorted(results, key=lambda r: (r.date, not r.transcribed), reverse=True)


def pages(results_dir: Path, scripts: Path) -> dict[str, str]:
    """``benchmarks/<script>.md`` for each script with results, and ``benchmarks/index.md``."""
    by_script: dict[str, list[Result]] = {}
    for result in load(results_dir):
        by_script.setdefault(result.stem, []).append(result)
    out = {}
    rows = []
    for stem in sorted(by_script):
        ordered = newest_first(by_script[stem])
        doc = summary(scripts, stem)
        text = [f"# {stem}", "", f"`scripts/{stem}.py`: generated from its results files, newest first.", ""]
        if doc:
            text += [docstring(doc), ""]
        for result in ordered:
            text += section(result)
        out[f"{PAGES}/{stem}.md"] = "\n".join(text)
        latest = ordered[0]
        rows.append(
            (
                f"[{stem}]({stem}.md)",
                cell(doc.split("\n\n")[0]) if doc else "",
                latest.date + (" (transcribed)" if latest.transcribed else ""),
                str(len(ordered)),
            )
        )
    out[f"{PAGES}/index.md"] = "\n".join(
        [
            "# Benchmarks",
            "",
            "The figures behind nl2fix's claims, each page made when the site is built from its script's results "
            "files (`docs/benchmarks/results/*.json`), never typed by hand. Every benchmark script under `scripts/` "
            "takes `--results DIR`: it then writes what it prints, with the machine (cores, CPU model, load) and "
            "the date, to `DIR/<script>-<time>.json`. To add a measurement, run the script with "
            "`--results docs/benchmarks/results` and commit the file.",
            "",
            "Figures from earlier sessions that were not measured again are kept as results files marked "
            "*transcribed*: the text that reported them, with the machine as it describes it and the date of the "
            "commit that first recorded them.",
            "",
            table(("script", "what it measures", "latest", "results"), rows),
            "",
        ]
    )
    return out
