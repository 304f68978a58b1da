"""`nl2fix run`: sample -> validate -> rank -> report with one set of options; re-running resumes.

The sampling options are `nl2fix sample`'s own (its parameters are reused, not copied), the
validation options `nl2fix validate`'s; each stage skips what the run store already holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from nl2fix.cli.report_cmd import format_option, out_option
from nl2fix.cli.sample_cmd import run_dir_for, sample_cmd, sample_run
from nl2fix.cli.terminal import say
from nl2fix.cli.validate_cmd import all_tests_option, validation_value
from nl2fix.core.domain import Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import write_text
from nl2fix.report.data import collect
from nl2fix.report.render import DEFAULT_HTML_NAME, ReportFormat, render
from nl2fix.store.run_store import RunStore
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.stage import validate
from nl2fix.validation.verdict_source import verdict_engine
from ranking.display import describe
from ranking.run import rank_run
from ranking.spec import ranking_info


def _stage(number: int, name: str) -> None:
    say(f"== {number}/4 {name} ==")


@click.command(
    "run",
    help="Sample, validate, rank and report in one go; re-running the same command resumes where it stopped.\n\n"
    "Takes every option of `nl2fix sample` and `nl2fix validate`, plus the ranking embedder and the report format. "
    "The report goes to RUN/report.html (with the text report on standard output) unless --format/--out say otherwise.",
)
@all_tests_option
@click.option(
    "--embedder",
    default="tfidf",
    show_default=True,
    help="Ranking embedder: tfidf (offline), openai:MODEL (uses --base-url), st:MODEL_OR_PATH, minilm.",
)
@format_option(ReportFormat.HTML)
@out_option
@click.option("--no-codebleu", is_flag=True, help="Leave CodeBLEU (Figure 4) out of the report.")
@validation_value  # the validation options come with `nl2fix sample`'s parameters, below
def run_cmd(
    validation: ValidationOptions, embedder: str, fmt: str, out: Path | None, no_codebleu: bool, **sampling
) -> None:
    run_dir = sampling["run_dir"] = run_dir_for(
        sampling["run_dir"],
        sampling["dataset"],
        sampling["strategy"],
        sampling["model"],
        sampling["backend"],
        sampling["temperature"],
    )
    progress = not sampling["quiet"]
    embed_url = sampling["base_url"] if embedder.startswith("openai:") else None
    report_path = out or (run_dir / DEFAULT_HTML_NAME if fmt == ReportFormat.HTML.value else None)

    def started() -> None:
        if report_path is not None:
            say(f"report: {report_path.resolve()} (written when the run ends)")
        _stage(1, "sample")

    # a conversation's rounds judge each candidate as `nl2fix sample` does: --all-tests is the validate stage's
    sample_run(**sampling, validation=replace(validation, all_tests=False), on_start=started)

    _stage(2, "validate")
    summary = validate(run_dir, validation, progress=progress)
    say(str(summary))
    if summary.nothing_judged:
        raise Nl2FixError(
            f"all {summary.by_verdict[Verdict.ERROR]} candidate(s) ended in `error`: the harness failed (the cause is "
            "above), so nothing was judged and there is no report",
            "fix the cause and re-run the same command: the samples are kept and the errors are retried",
        )

    _stage(3, "rank")
    with RunStore(run_dir) as store:
        # no candidate with a verdict (none extracted, say): nothing to prune, and --pruned would refuse
        prunings = (False, True) if verdict_engine(store) else (False,)
    keys = [
        key for pruned in prunings for key in rank_run(run_dir, embedder=embedder, pruned=pruned, base_url=embed_url)
    ]
    with RunStore(run_dir) as store:
        for key in keys:
            info = ranking_info(store, key)
            say(describe(info) if info else key)

    _stage(4, "report")
    data = collect(run_dir, codebleu=not no_codebleu, progress=progress)
    if fmt == ReportFormat.HTML.value:
        assert report_path is not None  # an HTML report always has a path: --out or RUN/report.html
        path = write_text(report_path, render(data, fmt)).resolve()
        say(render(data, ReportFormat.TEXT), nl=False)
        say(f"report: {path}")
    elif report_path is not None:
        say(f"report: {write_text(report_path, render(data, fmt)).resolve()}")
    else:
        say(render(data, fmt), nl=False)


run_cmd.params[:0] = sample_cmd.params  # `nl2fix sample`'s own options (the engine's too), shared rather than copied
