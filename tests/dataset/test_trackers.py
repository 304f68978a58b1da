"""Issue texts through the trackers' documented APIs, against a real HTTP server on 127.0.0.1 that
answers from recorded responses (tests/fixtures/trackers): markup, 404, 429 with Retry-After, 5xx,
pagination, the disk cache and --offline."""

import json
import time

import pytest

from nl2fix.dataset.markup import html_to_text, jira_to_text, markdown_to_text
from nl2fix.dataset.trackers import IssueFetcher, Tracker, iso_utc, resolve, retry_after
from tests.helpers.tracker_server import TrackerServer


@pytest.fixture
def server():
    with TrackerServer() as s:
        yield s


def fetcher(server, tmp_path, **kw) -> IssueFetcher:
    kw.setdefault("min_interval", 0.0)
    kw.setdefault("first_backoff", 0.05)
    return IssueFetcher(tmp_path / "cache", endpoints=server.endpoints(), github_token=kw.pop("token", None), **kw)


def test_urls_of_every_tracker_defects4j_links_to_resolve_to_their_apis():
    cases = {
        "https://issues.apache.org/jira/browse/CLI-13": (
            Tracker.JIRA,
            "https://issues.apache.org/jira/rest/api/2/issue/CLI-13?fields=summary,description,comment,created",
        ),
        "https://issues.apache.org/jira//browse/cli-1": (
            Tracker.JIRA,
            "https://issues.apache.org/jira/rest/api/2/issue/CLI-1?fields=summary,description,comment,created",
        ),
        "https://github.com/FasterXML/jackson-core/issues/98": (
            Tracker.GITHUB,
            "https://api.github.com/repos/FasterXML/jackson-core/issues/98",
        ),
        "https://sourceforge.net/p/jfreechart/bugs/983": (
            Tracker.SOURCEFORGE,
            "https://sourceforge.net/rest/p/jfreechart/bugs/983",
        ),
        "https://code.google.com/archive/p/mockito/issues/157": (
            Tracker.GOOGLE_CODE,
            "https://storage.googleapis.com/google-code-archive/v2/code.google.com/mockito/issues/issue-157.json",
        ),
        "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-787.json": (  # noqa: E501
            Tracker.GOOGLE_CODE,
            "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-787.json",
        ),
        "UNKNOWN": (Tracker.NONE, ""),
    }
    for url, (tracker, api) in cases.items():
        ref = resolve(url)
        assert (ref.tracker, ref.api_url) == (tracker, api), url


def test_dates_and_retry_after_headers():
    assert iso_utc("2008-07-23T14:02:11.000+0200") == "2008-07-23T12:02:11Z"
    assert iso_utc("2014-01-28T19:20:21Z") == "2014-01-28T19:20:21Z"
    assert iso_utc("2010-03-01 10:12:00.123000") == "2010-03-01T10:12:00Z"
    assert iso_utc(1345700000) == "2012-08-23T05:33:20Z"
    assert iso_utc("yesterday") == ""
    assert retry_after("7") == 7.0
    assert retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412500.0) == 10.0
    assert retry_after(None) is None and retry_after("soon") is None


def test_markup_becomes_plain_text_and_code_stays_verbatim():
    assert (
        jira_to_text(
            "h3. Title\n*bold* _it_ [docs|http://a.b] [id, x] {{a*b*c}}\n{code:java}\nint x = a * b; // _y_\n{code}"
        )
        == "Title\nbold it docs [id, x] a*b*c\n\nint x = a * b; // _y_"
    )
    assert (
        markdown_to_text("# T\n**b** and `x_y_z` [l](http://a)\n\n    List<String> a;\n\n<b>ok</b> List<T>")
        == "T\nb and x_y_z l\n\n    List<String> a;\n\nok List<T>"
    )
    assert html_to_text("a &lt;b&gt;<br/>c <i>d</i>") == "a <b>\nc d"


def test_jira_issue_with_heavy_markup(server, tmp_path):
    issue = fetcher(server, tmp_path).fetch("https://issues.apache.org/jira/browse/CLI-1000")
    assert issue.fetched and issue.tracker is Tracker.JIRA
    assert issue.title == "HelpFormatter wraps the description of a long option in the middle of a word"
    assert issue.created == "2008-07-23T12:02:11Z"
    assert issue.description == (
        "What happens\n"
        "With HelpFormatter.printHelp and a width of 40, a long option description is cut in the middle of a word.\n"
        "See the javadoc and HelpFormatter.renderWrappedText().\n\n"
        "HelpFormatter f = new HelpFormatter();\n"
        'f.printHelp(40, "app", null, options, null); // *not* bold, [not|a link]\n\n'
        "width | result\n40 | broken\n80 | fine\n\n"
        "java.lang.StringIndexOutOfBoundsException: String index out of range: -1\n"
        "\tat java.lang.String.substring(String.java:1938)\n\n"
        "Regression since 1.1, reported by jdoe."
    )
    assert issue.comments == ("cut in the middle of a word\n\nConfirmed, wontfix fixed in r680312.",)
    ((path, headers),) = server.log
    assert path == "/jira/rest/api/2/issue/CLI-1000?fields=summary,description,comment,created"
    assert "Authorization" not in headers


def test_github_issue_with_comments_and_token(server, tmp_path):
    issue = fetcher(server, tmp_path, token="ghp_test").fetch("https://github.com/FasterXML/jackson-core/issues/98")
    assert issue.title == '`JsonPointer` should not match "00" as an array index'
    assert issue.created == "2014-01-28T19:20:21Z"
    assert issue.description == (
        "Problem\n\nAlthough 00 can be parsed as 0 in some cases, it is not a valid JSON number; see RFC 6901.\n\n"
        'JsonPointer ptr = JsonPointer.compile("/00");\nassertEquals(-1, ptr.getMatchingIndex()); // **fails**: 0\n\n'
        "screenshot\nVersions\n\njackson-core 2.3.0 & Java 7"
    )
    assert issue.comments == ("Good catch: leading zeroes are not allowed. Fixed for 2.3.1.",)
    assert [p for p, _ in server.log] == [
        "/github/repos/FasterXML/jackson-core/issues/98",
        "/github/repos/FasterXML/jackson-core/issues/98/comments?per_page=100",
    ]
    for _, headers in server.log:
        assert headers["Authorization"] == "Bearer ghp_test"
        assert headers["Accept"] == "application/vnd.github+json"


def test_jira_comments_past_the_issues_first_page_are_read(server, tmp_path):
    issue = fetcher(server, tmp_path).fetch("https://issues.apache.org/jira/browse/CSV-1000")
    assert issue.comments == ("first of three", "second of three", "third of three")
    assert [p for p, _ in server.log][-1] == "/jira/rest/api/2/issue/CSV-1000/comment?startAt=1&maxResults=100"


def test_github_comments_follow_the_link_header_across_pages(server, tmp_path):
    issue = fetcher(server, tmp_path).fetch("https://github.com/example-org/rangekit/issues/33")
    recorded = json.loads((server.root / "github/repos/example-org/rangekit/issues/33/comments.page2.json").read_text())
    assert len(issue.comments) == 3 and issue.comments[-1] == recorded[-1]["body"].strip()
    assert server.requests_to("comments") == 2


def test_sourceforge_and_google_code_archives(server, tmp_path):
    f = fetcher(server, tmp_path)
    sf = f.fetch("https://sourceforge.net/p/jfreechart/bugs/983")
    assert sf.title == "Potential NPE in AbstractCategoryItemRenderer.getLegendItems()"
    assert sf.created == "2010-03-01T10:12:00Z"
    assert sf.description.startswith("The method getLegendItems() in AbstractCategoryItemRenderer dereferences")
    assert "    CategoryDataset dataset = plot.getDataset(index);" in sf.description
    assert sf.comments == ("Fixed in SVN \u2014 thanks!",)
    gc = f.fetch(
        "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-787.json"
    )
    assert gc.title == 'Compiler removes a "used" variable'
    assert gc.created == "2012-08-23T05:33:20Z"
    assert gc.description.startswith(
        "What steps will reproduce the problem?\n1. compile with ADVANCED_OPTIMIZATIONS\n"
        "2. call f() with x > 0 && y < 0"
    )
    assert gc.comments == ("This issue was closed by revision r2221.",)


def test_404_is_a_clear_record_and_is_cached(server, tmp_path):
    f = fetcher(server, tmp_path)
    issue = f.fetch("https://issues.apache.org/jira/browse/CLI-9999")
    assert not issue.fetched and "HTTP 404" in issue.error and issue.title == "" and issue.tracker is Tracker.JIRA
    again = fetcher(server, tmp_path).fetch("https://issues.apache.org/jira/browse/CLI-9999")
    assert again.error == issue.error
    assert len(server.log) == 1


def test_429_with_retry_after_and_5xx_are_retried(server, tmp_path):
    path = "/jira/rest/api/2/issue/CLI-1000"
    server.script[path].extend(
        [
            (429, {"Retry-After": "1"}, {"message": "slow down"}),
            (503, {}, {"message": "unavailable"}),
            (502, {}, b"<html>bad gateway</html>"),
        ]
    )
    f = fetcher(server, tmp_path, max_wait=5)
    issue = f.fetch("https://issues.apache.org/jira/browse/CLI-1000")
    assert issue.fetched and issue.title.startswith("HelpFormatter")
    assert server.requests_to(path) == 4 and f.stats.retries == 3 and f.stats.requests == 4


def test_github_rate_limit_waits_for_the_reset(server, tmp_path):
    path = "/github/repos/FasterXML/jackson-core/issues/98"
    reset = str(int(time.time()) + 1)
    server.script[path].append(
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, {"message": "API rate limit exceeded"})
    )
    f = fetcher(server, tmp_path, max_wait=5)
    assert f.fetch("https://github.com/FasterXML/jackson-core/issues/98").fetched
    assert server.requests_to(path) == 3 and f.stats.retries == 1  # the issue twice, then its comments
    server.script[path].append((403, {}, {"message": "Resource not accessible by integration"}))
    denied = fetcher(server, tmp_path / "other").fetch("https://github.com/FasterXML/jackson-core/issues/98")
    assert denied.error == "HTTP 403"


def test_gives_up_after_the_attempts_or_an_excessive_retry_after(server, tmp_path):
    path = "/github/repos/FasterXML/jackson-core/issues/98"
    server.script[path].extend([(500, {}, {})] * 3)
    issue = fetcher(server, tmp_path, attempts=3).fetch("https://github.com/FasterXML/jackson-core/issues/98")
    assert issue.error == "HTTP 500 after 3 attempts"
    server.script[path].append((429, {"Retry-After": "3600"}, {}))
    issue = fetcher(server, tmp_path, max_wait=10).fetch("https://github.com/FasterXML/jackson-core/issues/98")
    assert "asks to wait 3600 s" in issue.error
    # Failures are not cached: the next run asks again and gets the issue.
    assert fetcher(server, tmp_path).fetch("https://github.com/FasterXML/jackson-core/issues/98").fetched


def test_cache_answers_a_rerun_and_offline_reads_only_the_cache(server, tmp_path):
    url = "https://github.com/FasterXML/jackson-core/issues/98"
    first = fetcher(server, tmp_path).fetch(url)
    asked = len(server.log)
    again = fetcher(server, tmp_path, offline=True)
    assert again.fetch(url) == first and len(server.log) == asked and again.stats.cached == 2
    missing = fetcher(server, tmp_path, offline=True).fetch("https://issues.apache.org/jira/browse/CLI-1000")
    assert missing.error == "not in the cache (--offline)" and len(server.log) == asked
    assert fetcher(server, tmp_path).fetch("UNKNOWN").error == "no known issue tracker for 'UNKNOWN'"


def test_unreachable_tracker_is_reported_not_raised(tmp_path):
    f = IssueFetcher(
        tmp_path, endpoints={Tracker.JIRA: "http://127.0.0.1:9"}, attempts=2, min_interval=0.0, first_backoff=0.05
    )
    issue = f.fetch("https://issues.apache.org/jira/browse/CLI-1")
    assert issue.error.startswith("cannot connect") and issue.error.endswith("after 2 attempts")
