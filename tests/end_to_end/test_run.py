"""`nl2fix run` end to end on the bundled example benchmark, through the real engines.

Sampling (mutation backend, or the real openai client against a local OpenAI-compatible server),
validation (the fast engine: javac + JUnit, confined), ranking and the report all run for real;
the tests then recount the report's numbers from the verdicts in the run store.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import normalise
from nl2fix.report.data import collect
from nl2fix.store.run_store import RunStore
from tests.helpers.report_run import ParsedPage, human_eval_estimator

pytestmark = pytest.mark.slow

BUGS = ["Textkit-1", "Rangekit-2", "Textkit-4"]
"""A bug the mutation backend can fix, one it fixes with a flipped operator, and one whose ground truth
does not compile when spliced alone (its fix needs a new helper), so it must be shown apart."""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    cache = tmp_path_factory.mktemp("e2e-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NL2FIX_CACHE_DIR", str(cache / "cache"))
        mp.setenv("NL2FIX_DATA_DIR", str(cache / "data"))
        mp.delenv("OPENAI_API_KEY", raising=False)
        mp.delenv("OPENAI_BASE_URL", raising=False)
        yield


def _nl2fix(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


def _selection() -> list[str]:
    return [arg for bug in BUGS for arg in ("--bug", bug)]


def recount(run_dir) -> dict:
    """The headline numbers straight from the store's samples and fast verdicts, with human-eval's estimator."""
    with RunStore(run_dir) as store:
        records = {(v.bug_id, v.hash): v for v in store.validations(engine="fast")}
        counts = {}
        for bug in store.bugs():
            samples = store.samples(bug.id)
            plausible = sum(
                (bug.id, s.candidate_hash) in records
                and records[(bug.id, s.candidate_hash)].verdict is Verdict.PLAUSIBLE
                for s in samples
            )
            fixed = records[(bug.id, "fixed")]
            # the ground truth validates when it compiles and passes its trigger tests
            valid = fixed.verdict is Verdict.PLAUSIBLE or (
                fixed.verdict is Verdict.WRONG and not set(fixed.failing_tests) & set(bug.trigger_tests)
            )
            counts[bug.id] = (len(samples), plausible, valid)
    scored = {b: (n, c) for b, (n, c, valid) in counts.items() if valid}
    least = min(n for n, _ in scored.values())
    return {
        "scored": sorted(scored),
        "broken": sorted(b for b, (_, _, valid) in counts.items() if not valid),
        "pass_at_k": {
            k: float(np.mean([human_eval_estimator(n, c, k) for n, c in scored.values()]))
            for k in (1, 5, 10, 20, 100)
            if k <= least
        },
        "fixed": sorted(b for b, (_, c) in scored.items() if c),
    }


def _ranked_pass_at_1(run_dir, key: str, bug_ids: list[str]) -> float:
    with RunStore(run_dir) as store:
        plausible = {(v.bug_id, v.hash) for v in store.validations(engine="fast") if v.verdict is Verdict.PLAUSIBLE}
        tops = [store.ranking(b, key)[:1] for b in bug_ids]
    return sum(bool(top) and (top[0].bug_id, top[0].hash) in plausible for top in tops) / len(bug_ids)


def _check_html(path) -> str:
    page = ParsedPage(path.read_text(encoding="utf-8"))
    assert page.tags["table"] >= 7 and page.tags["svg"] >= 3
    return page.text


@pytest.fixture(scope="module")
def mutation_run(env, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("e2e") / "run"
    args = [
        "run",
        "--dataset",
        "example",
        *_selection(),
        "--backend",
        "mutation",
        "-n",
        "6",
        "--engine",
        "fast",
        "--workers",
        "2",
        "--run",
        str(run_dir),
        "--quiet",
    ]
    return run_dir, args, _nl2fix(*args)


def test_mutation_run_report_follows_from_the_store(mutation_run):
    run_dir, _, output = mutation_run
    lines = output.strip().splitlines()
    html = run_dir / "report.html"
    assert lines[0] == f"report: {html.resolve()} (written when the run ends)"
    assert lines[1] == "== 1/4 sample =="
    assert lines[-1] == f"report: {html.resolve()}"

    expected = recount(run_dir)
    data = collect(run_dir)
    assert data.run.engine == "fast"
    assert expected["broken"] == ["Textkit-4"] and [b.bug_id for b in data.broken_bugs] == ["Textkit-4"]
    assert sorted(b.bug_id for b in data.scored_bugs) == expected["scored"]
    assert set(data.pass_at_k) == set(expected["pass_at_k"])
    for k, value in expected["pass_at_k"].items():
        assert data.pass_at_k[k] == pytest.approx(value)
    assert data.bug_counts.fixed == len(expected["fixed"])
    assert expected["fixed"], "the mutation backend fixes Rangekit-2 (flip < to <=) or Textkit-1"
    for key in ("paper:tfidf:median", "paper:tfidf:median:pruned"):
        assert data.ranked_pass_at_k[key][1] == pytest.approx(_ranked_pass_at_1(run_dir, key, expected["scored"]))
    assert f"pass@1  {100 * expected['pass_at_k'][1]:.1f}%" in re.sub(r" +", "  ", output)

    text = _check_html(html)
    assert "Ground truth does not validate" in text and "Textkit-4" in text and "cannot find symbol" in text


def test_rerun_resumes_without_repeating_work(mutation_run):
    run_dir, args, _ = mutation_run
    before = collect(run_dir, codebleu=False).model_dump()
    output = _nl2fix(*args, "--format", "json", "--no-codebleu")
    assert "(0 new)" in output
    assert "validated 0 candidate(s)" in output
    report = json.loads(output[output.index("== 4/4 report ==") + len("== 4/4 report ==") :])
    assert report["pass_at_k"] == {str(k): v for k, v in before["pass_at_k"].items()}
    assert report["bugs"] == json.loads(json.dumps(before["bugs"]))


def fixing_model(fixes: dict[str, str]):
    """A deterministic chat model: the fix for a buggy method it knows, else the method unchanged."""

    def model(messages: list[dict], n: int) -> list[str]:
        prompt = [m["content"] for m in messages if m["role"] == "user"][-1]
        block = re.search(r"```java\n(.*?)```", prompt, re.DOTALL).group(1)
        answer = fixes.get(normalise(block), block)
        return [f"Here is the fix:\n```java\n{answer.rstrip()}\n```"] * n

    return model


def test_openai_backend_and_embedder_through_a_local_server(env, openai_server_factory, tmp_path):
    bugs = open_dataset("example").bugs
    target = bugs["Rangekit-2"]
    server = openai_server_factory(
        model=fixing_model({normalise(target.buggy_method_no_comments): target.fixed_method})
    )
    run_dir = tmp_path / "openai-run"
    output = _nl2fix(
        "run",
        "--dataset",
        "example",
        "--bug",
        "Rangekit-2",
        "--bug",
        "Textkit-1",
        "--backend",
        "openai",
        "--model",
        "gpt-3.5-turbo",
        "--base-url",
        server.url,
        "-n",
        "3",
        "--temperature",
        "0.8",
        "--embedder",
        "openai:text-embedding-ada-002",
        "--run",
        str(run_dir),
        "--quiet",
    )
    assert server.successful("/v1/chat/completions") and server.successful("/v1/embeddings")

    expected = recount(run_dir)
    data = collect(run_dir)
    assert expected["fixed"] == ["Rangekit-2"] and expected["scored"] == ["Rangekit-2", "Textkit-1"]
    # Rangekit-2 answered with its fix three times (c = n = 3), Textkit-1 with its bug (c = 0)
    assert data.pass_at_k == pytest.approx({1: 0.5}) == expected["pass_at_k"]
    assert data.exact_match.bugs_with_exact_match == 1 and data.exact_match.exact_match_samples == 3
    assert data.candidates.duplicates == pytest.approx(2 / 3)
    key = "paper:openai:text-embedding-ada-002:median"
    assert key in data.ranked_pass_at_k
    assert data.ranked_pass_at_k[key][1] == pytest.approx(_ranked_pass_at_1(run_dir, key, expected["scored"]))
    assert data.run.config.model == "gpt-3.5-turbo" and data.run.config.backend == "openai"
    assert output.strip().splitlines()[-1] == f"report: {(run_dir / 'report.html').resolve()}"
    _check_html(run_dir / "report.html")
