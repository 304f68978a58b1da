"""`nl2fix view` in a real headless browser (Debian's chromium, driven by selenium through chromedriver)
over two real runs of the example benchmark: a mutation run and a conversation with the scripted model
of the tests, both validated by the fast engine. Open the runs, filter a run's bugs, open a bug by
keyboard, expand a candidate, read its raw log, follow a comparison to a bug in the other run, open the
static export from the file system; what the pages show is checked against the run stores, and every
step leaves a screenshot (the folder is printed at the end of the session)."""

from __future__ import annotations

import threading

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.store.run_store import RunStore
from nl2fix.view import site
from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import export, server, url_of
from tests.helpers.conversation_model import model
from tests.helpers.openai_server import OpenAIServer
from tests.helpers.report_run import fixed_bugs

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.sandbox]

MUTATION_BUGS = ["Textkit-1", "Rangekit-2", "Textkit-4"]
CONVERSATION_BUGS = ["Rangekit-2", "Textkit-1"]
"""Shared with the mutation run; the scripted model fixes Rangekit-2 once told how it fails, never Textkit-1."""


def _nl2fix(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory, confined):
    base = tmp_path_factory.mktemp("view-runs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NL2FIX_CACHE_DIR", str(base / "cache"))
        mp.setenv("OPENAI_API_KEY", "local")
        mp.delenv("OPENAI_BASE_URL", raising=False)
        _nl2fix(
            "run",
            "--dataset",
            "example",
            *[a for b in MUTATION_BUGS for a in ("--bug", b)],
            "--backend",
            "mutation",
            "-n",
            6,
            "--run",
            base / "mutation",
            "--quiet",
            "--no-codebleu",
        )
        with OpenAIServer(model=model()) as openai:
            _nl2fix(
                "run",
                "--dataset",
                "example",
                *[a for b in CONVERSATION_BUGS for a in ("--bug", b)],
                "--base-url",
                openai.url,
                "--model",
                "gpt-4o-mini",
                "-n",
                4,
                "--strategy",
                "conversation",
                "--rounds",
                2,
                "--samples-per-round",
                2,
                "--run",
                base / "conversation",
                "--quiet",
                "--no-codebleu",
            )
    return {"mutation": base / "mutation", "conversation": base / "conversation"}


@pytest.fixture(scope="module")
def viewer(runs):
    catalog = Catalog(list(runs.values()))
    httpd = server(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield url_of(httpd), catalog
    httpd.shutdown()
    httpd.server_close()


def by(css: str):
    from selenium.webdriver.common.by import By

    return (By.CSS_SELECTOR, css)


def shot(browser, screenshots, name: str) -> None:
    browser.save_screenshot(str(screenshots / f"{name}.png"))


def visible_bugs(browser) -> list[str]:
    return [r.get_attribute("data-bug") for r in browser.find_elements(*by("#bugs tbody tr")) if r.is_displayed()]


def press(browser, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(keys).perform()


def wait_for(browser, condition, timeout: float = 10):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda _: condition())


def test_open_a_run_filter_open_a_bug_and_expand_a_candidate(browser, viewer, runs, screenshots):
    url, _ = viewer
    browser.get(url)
    assert [r.get_attribute("data-run") for r in browser.find_elements(*by("tr[data-run]"))] == [
        "mutation",
        "conversation",
    ]
    shot(browser, screenshots, "01-runs")

    browser.find_element(*by('tr[data-run="mutation"] a.run-link')).click()
    assert visible_bugs(browser) == MUTATION_BUGS
    header = browser.find_element(*by("#bugs th"))
    header.click()
    assert visible_bugs(browser) == sorted(MUTATION_BUGS)
    header.click()
    assert visible_bugs(browser) == sorted(MUTATION_BUGS, reverse=True)
    browser.refresh()
    fixed = {bug for bug, yes in fixed_bugs(runs["mutation"]).items() if yes}
    assert fixed, "the mutation backend fixes Rangekit-2 (flip < to <=) or Textkit-1"
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(*by("#f-fixed"))).select_by_value("yes")
    assert set(visible_bugs(browser)) == fixed
    assert browser.find_element(*by("#shown")).text == f"{len(fixed)} of 3 bugs"
    Select(browser.find_element(*by("#f-fixed"))).select_by_value("")
    search = browser.find_element(*by("#search"))
    search.send_keys("rangeset")  # Rangekit-2's issue title: "RangeSet.contains is false ..."
    assert visible_bugs(browser) == ["Rangekit-2"]
    assert browser.current_url.endswith("#search=rangeset")
    shot(browser, screenshots, "02-run-filtered")
    browser.refresh()  # the filter is in the address, so a filtered table can be linked
    assert visible_bugs(browser) == ["Rangekit-2"]

    browser.find_element(*by("body")).click()
    press(browser, "j")
    press(browser, "\ue007")  # Enter opens the selected bug
    wait_for(browser, lambda: browser.current_url.endswith(site.bug_page("mutation", "Rangekit-2")))

    with RunStore(runs["mutation"], read_only=True) as store:
        records = {v.hash: v for v in store.validations("Rangekit-2", "fast")}
        candidates = store.candidates("Rangekit-2")
    shown = browser.find_elements(*by("details.candidate"))
    assert {d.get_attribute("data-hash"): d.get_attribute("data-verdict") for d in shown} == {
        c.hash: records[c.hash].verdict.value for c in candidates
    }
    wrong = next(d for d in shown if d.get_attribute("data-verdict") == "wrong")
    record = records[wrong.get_attribute("data-hash")]
    assert not wrong.get_attribute("open")
    wrong.find_element(*by("summary")).click()
    assert wrong.get_attribute("open") is not None
    body = wrong.find_element(*by(".candidate-body")).text
    assert record.failing_tests[0] in body and record.failure_message.splitlines()[0] in body
    if record.failure_source:
        assert record.failure_source.strip() in body
    fold = wrong.find_element(*by("details.rawlog"))
    fold.find_element(*by("summary")).click()
    files = fold.find_elements(*by("a.log-file"))
    assert files, "validation keeps the runner's report for a wrong candidate"
    # Each file loads on its own; wait for all of them, not for the first to arrive.
    wait_for(browser, lambda: len(fold.find_elements(*by("pre.log[data-loaded]"))) == len(files))
    log = fold.find_elements(*by("pre.log"))
    assert [h.text for h in fold.find_elements(*by(".log-contents h5"))] == [a.text for a in files]
    assert "NL2FIX" in "".join(p.get_attribute("textContent") for p in log)  # the runner's own report lines
    browser.execute_script("arguments[0].scrollIntoView(); window.scrollBy(0, -48)", wrong)  # below the header
    shot(browser, screenshots, "03-bug-candidate")

    press(browser, "j")  # the next bug of the run
    wait_for(browser, lambda: browser.current_url.endswith(site.bug_page("mutation", "Textkit-4")))
    press(browser, "k")
    wait_for(browser, lambda: browser.current_url.endswith(site.bug_page("mutation", "Rangekit-2")))


def test_a_candidates_address_opens_it(browser, viewer, runs):
    url, _ = viewer
    with RunStore(runs["mutation"], read_only=True) as store:
        last = store.candidates("Textkit-1")[-1]
    browser.get(url + site.candidate_link("mutation", "Textkit-1", last.hash))
    target = browser.find_element(*by(f"#{site.candidate_anchor(last.hash)}"))
    assert target.get_attribute("open") is not None
    opened = [d for d in browser.find_elements(*by("details.candidate")) if d.get_attribute("open") is not None]
    assert opened == [target]


def test_compare_two_runs_and_follow_a_bug_into_the_conversation(browser, viewer, runs, screenshots):
    url, _ = viewer
    browser.get(url)
    for box in browser.find_elements(*by("input[name=run]")):
        box.click()
    browser.find_element(*by("#compare-button")).click()
    wait_for(browser, lambda: browser.current_url.endswith(site.compare_page(["mutation", "conversation"])))
    categories = {
        r.get_attribute("data-bug"): r.find_element(*by("td.category")).text
        for r in browser.find_elements(*by("#bugs tbody tr"))
    }
    assert set(categories) == set(CONVERSATION_BUGS)  # the bugs both runs have
    by_mutation, by_conversation = fixed_bugs(runs["mutation"]), fixed_bugs(runs["conversation"])
    assert by_conversation == {"Rangekit-2": True, "Textkit-1": False}
    for bug, category in categories.items():
        one, two = by_mutation[bug], by_conversation[bug]
        assert category == (
            "all" if one and two else "none" if not (one or two) else "only mutation" if one else "only conversation"
        )
    shot(browser, screenshots, "04-compare")

    browser.find_element(*by('tr[data-bug="Rangekit-2"] a.in-run[data-run="conversation"]')).click()
    wait_for(browser, lambda: browser.current_url.endswith(site.bug_page("conversation", "Rangekit-2")))
    with RunStore(runs["conversation"], read_only=True) as store:
        rounds = store.rounds("Rangekit-2")
    shown = browser.find_elements(*by("details.round"))
    assert len(shown) == len(rounds) == 2
    second = shown[1].text
    assert "Round 2" in second and "feedback:" in shown[0].text
    assert rounds[1].messages[-1]["content"].splitlines()[0] in shown[1].get_attribute("textContent")
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(*by("#rounds")))
    shot(browser, screenshots, "05-conversation")


def test_the_static_export_opens_from_the_file_system(browser, viewer, tmp_path, screenshots):
    _, catalog = viewer
    export(catalog, tmp_path / "site")
    browser.get((tmp_path / "site" / "index.html").as_uri())
    browser.find_element(*by('tr[data-run="conversation"] a.run-link')).click()
    assert visible_bugs(browser) == CONVERSATION_BUGS
    assert "1 bug(s) fixed within the budget of 4 samples" in browser.find_element(*by("ul.facts")).text
    browser.find_element(*by('a.bug-link[href$="Rangekit-2.html"]')).click()
    assert browser.current_url == (tmp_path / "site" / site.bug_page("conversation", "Rangekit-2")).as_uri()
    assert browser.find_elements(*by("details.round"))
    browser.find_element(*by("#up")).click()
    assert browser.current_url == (tmp_path / "site" / site.run_page("conversation")).as_uri()
    shot(browser, screenshots, "06-export")
