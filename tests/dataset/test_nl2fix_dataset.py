"""The sampling stage over the real Defects4J-NL2Fix dataset in ../shared/data."""

from __future__ import annotations

import json
from collections import Counter
from statistics import mean

import pytest

from nl2fix.core import tokens
from nl2fix.core.domain import TEST_STRATEGIES, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import load_dataset
from nl2fix.dataset.stats import bug_stats, project_stats
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.prompting.prompt import REASONING_TURN_TOKENS, build_prompt

pytestmark = pytest.mark.dataset

WINDOW, ANSWER = 4096, 750


@pytest.fixture(scope="module")
def real(shared_data):
    raw = json.loads((shared_data / "nl2fix_dataset.json").read_text(encoding="utf-8"))
    ds = load_dataset(shared_data / "nl2fix_dataset.json")
    return raw, ds, ExampleIndex(list(ds.bugs.values()))


def test_all_bugs_load_and_every_spelling_of_their_ids_resolves(real):
    raw, ds, _ = real
    assert len(ds.bugs) == len(raw) == 283 and ds.problems == []
    assert {b.key for b in ds.bugs.values()} == set(raw)
    for bug in ds.bugs.values():
        for spelling in (
            bug.id,
            bug.id.upper(),
            bug.id.lower().replace("-", "_"),
            f"{bug.project} {bug.number}",
            bug.id + "b",
        ):
            assert ds.resolve(spelling) is bug


def test_stats_match_the_data(real):
    raw, ds, _ = real
    table = {row.project: row for row in project_stats(list(ds.bugs.values()))}
    assert {p: r.bugs for p, r in table.items() if p != "All"} == Counter(key.split("_")[0] for key in raw)
    assert table["All"].bugs == 283
    titles = [tokens.count((e["summary"] or "").strip()) for e in raw.values()]
    descriptions = [tokens.count((e["Description"] or "").strip()) for e in raw.values()]
    assert table["All"].title_tokens == pytest.approx(mean(titles))
    assert table["All"].description_tokens == pytest.approx(mean(descriptions))
    # a one-line fix: HypergeometricDistribution.getNumericalMean (Math-2)
    math2 = bug_stats(ds.resolve("Math-2"))
    assert (math2.method_lines, math2.changed_lines) == (3, 1)
    # "(double) (a * b) / (double) c" -> "a * (b / (double) c)": 4 + 1 tokens removed, 2 added apart
    assert math2.changed_tokens == 7
    assert 1 <= table["All"].changed_lines < table["All"].method_lines


@pytest.mark.parametrize("strategy", list(Strategy))
def test_every_strategy_renders_for_every_bug_within_a_4k_budget(real, strategy):
    _, ds, index = real
    for bug in ds.bugs.values():
        if strategy in TEST_STRATEGIES:  # the published records hold no test source: said, by name
            with pytest.raises(Nl2FixError, match=f"{bug.id}: the dataset holds no source of its trigger tests"):
                build_prompt(bug, strategy, model="gpt-3.5-turbo", context_window=WINDOW, max_tokens=ANSWER)
            continue
        prompt = build_prompt(
            bug, strategy, model="gpt-3.5-turbo", context_window=WINDOW, max_tokens=ANSWER, examples=index
        )
        reserve = ANSWER
        if strategy is Strategy.REASONING:
            reserve += 2 * REASONING_TURN_TOKENS + sum(
                4 + tokens.count(m["content"]) for t in prompt.turns[1:] for m in t
            )
        assert prompt.prompt_tokens + reserve <= WINDOW, bug.id
        text = "\n".join(m["content"] for m in prompt.turns[0])
        assert bug.title in text and bug.buggy_method_no_comments in text  # the target issue and method are whole
        if strategy is Strategy.ONE_SHOT:
            assert prompt.example_id is not None and prompt.example_id != bug.id
            assert prompt.truncated == (prompt.example_id != index.nearest(bug)[0].id)
        else:
            assert not prompt.truncated, (bug.id, prompt.note)
