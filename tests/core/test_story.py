"""A candidate's story: what a step tells is kept for the candidate in hand, in its thread only."""

from __future__ import annotations

import logging
import threading

from nl2fix.core import story

log = logging.getLogger("tests.story")


def test_what_is_told_is_logged_and_kept_only_while_a_story_is_kept(caplog):
    caplog.set_level(logging.INFO)
    story.tell(log, "before: %s", "nobody keeps it")
    with story.kept() as lines:
        story.tell(log, "compiled in JVM %s", "a1")
        story.tell(log, "verdict: 100% plausible")  # no arguments: the text is taken as it is
    story.tell(log, "after")
    assert lines == ["compiled in JVM a1", "verdict: 100% plausible"]
    assert [r.getMessage() for r in caplog.records] == [
        "before: nobody keeps it",
        "compiled in JVM a1",
        "verdict: 100% plausible",
        "after",
    ]


def test_each_thread_keeps_its_own_story():
    stories: dict[str, list[str]] = {}
    both_inside = threading.Barrier(2)

    def validate(name: str) -> None:
        with story.kept() as lines:
            story.tell(log, "%s starts", name)
            both_inside.wait(timeout=10)
            story.tell(log, "%s ends", name)
        stories[name] = lines

    threads = [threading.Thread(target=validate, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert stories == {"a": ["a starts", "a ends"], "b": ["b starts", "b ends"]}


def test_a_story_within_a_story_is_its_own_and_the_outer_one_goes_on():
    with story.kept() as outer:
        story.tell(log, "outer")
        with story.kept() as inner:
            story.tell(log, "inner")
        story.tell(log, "outer again")
    assert outer == ["outer", "outer again"] and inner == ["inner"]
