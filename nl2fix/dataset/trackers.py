"""Issue text (title, description, comments, creation date) from the trackers Defects4J links to.

``report.url`` in Defects4J's ``active-bugs.csv`` names one of: Apache Jira
(``issues.apache.org/jira/browse/KEY``; REST API v2), GitHub issues (``github.com/O/R/issues/N``;
REST API v3, ``$GITHUB_TOKEN`` when set), SourceForge tickets (Allura REST API) or the Google Code
archive (its JSON export). Each is read through its documented API; the reading of a response is a
pure ``parse_*`` function, the transport is :class:`IssueFetcher`.

Polite scraping: every answer (a 404 too) is kept on disk keyed by the URL asked for, so a
re-run asks nothing; 429 and 5xx answers are retried with back-off (``Retry-After`` honoured,
tenacity); requests to one host are spaced; ``offline`` answers from the cache alone. An issue
that cannot be read comes back as an :class:`IssueText` with ``error`` set, never as an exception.
"""

from __future__ import annotations

import email.utils
import enum
import hashlib
import json
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from nl2fix import __version__
from nl2fix.dataset.markup import html_to_text, jira_to_text, markdown_to_text


class Tracker(str, enum.Enum):
    JIRA = "jira"
    GITHUB = "github"
    SOURCEFORGE = "sourceforge"
    GOOGLE_CODE = "google-code"
    NONE = "none"
    """No usable URL (Defects4J writes ``UNKNOWN``)."""


ENDPOINT_ENVS = {
    Tracker.JIRA: "NL2FIX_JIRA_URL",
    Tracker.GITHUB: "NL2FIX_GITHUB_API_URL",
    Tracker.SOURCEFORGE: "NL2FIX_SOURCEFORGE_API_URL",
    Tracker.GOOGLE_CODE: "NL2FIX_GOOGLE_CODE_URL",
}
"""Environment variables that point a tracker's API elsewhere (a mirror, or a test server)."""
DEFAULT_ENDPOINTS = {
    Tracker.GITHUB: "https://api.github.com",
    Tracker.SOURCEFORGE: "https://sourceforge.net/rest",
    Tracker.GOOGLE_CODE: "https://storage.googleapis.com/google-code-archive/v2/code.google.com",
}
"""Jira has no default: its REST root is the site the issue URL names (``.../jira``)."""

_JIRA = re.compile(r"^(?P<site>https?://[^\s]+?)/+browse/(?P<key>[A-Za-z][A-Za-z0-9_]*-\d+)/?$")
_GITHUB = re.compile(r"^https?://github\.com/(?P<owner>[^/\s]+)/(?P<repo>[^/\s]+)/(?:issues|pull)/(?P<num>\d+)")
_SOURCEFORGE = re.compile(r"^https?://sourceforge\.net/p/(?P<project>[^/\s]+)/(?P<tool>[^/\s]+)/(?P<num>\d+)")
_GOOGLE_ARCHIVE = re.compile(r"^https?://code\.google\.com/archive/p/(?P<project>[^/\s]+)/issues/(?P<num>\d+)")
_GOOGLE_JSON = re.compile(
    r"^https?://storage\.googleapis\.com/google-code-archive/v2/code\.google\.com/(?P<project>[^/\s]+)/issues/issue-(?P<num>\d+)\.json$"
)
_LINK_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass(frozen=True)
class IssueRef:
    """Where an issue lives and which API request(s) read it."""

    tracker: Tracker
    url: str
    """The issue's page, as Defects4J lists it."""
    api_url: str = ""
    """The REST (or archive JSON) URL of the issue itself."""


@dataclass(frozen=True)
class IssueText:
    """What a tracker says about one issue, markup turned into plain text."""

    url: str
    tracker: Tracker
    title: str = ""
    description: str = ""
    comments: tuple[str, ...] = ()
    created: str = ""
    """When the issue was opened, ISO 8601 in UTC (``2007-03-05T12:34:56Z``); empty when unknown."""
    error: str = ""
    """Why the text could not be read (empty when it was)."""

    @property
    def fetched(self) -> bool:
        return not self.error


def endpoints_from_env(env: Mapping[str, str] | None = None) -> dict[Tracker, str]:
    env = os.environ if env is None else env
    out = dict(DEFAULT_ENDPOINTS)
    for tracker, name in ENDPOINT_ENVS.items():
        if env.get(name):
            out[tracker] = env[name].rstrip("/")
    return out


def resolve(url: str, endpoints: Mapping[Tracker, str] | None = None) -> IssueRef:
    """Which tracker ``url`` belongs to and the API URL that reads it (pure)."""
    endpoints = DEFAULT_ENDPOINTS if endpoints is None else endpoints
    url = (url or "").strip()
    if m := _GITHUB.match(url):
        base = endpoints.get(Tracker.GITHUB, DEFAULT_ENDPOINTS[Tracker.GITHUB])
        return IssueRef(Tracker.GITHUB, url, f"{base}/repos/{m['owner']}/{m['repo']}/issues/{m['num']}")
    if m := _JIRA.match(url):
        base = endpoints.get(Tracker.JIRA) or m["site"]
        return IssueRef(
            Tracker.JIRA, url, f"{base}/rest/api/2/issue/{m['key'].upper()}?fields=summary,description,comment,created"
        )
    if m := _SOURCEFORGE.match(url):
        base = endpoints.get(Tracker.SOURCEFORGE, DEFAULT_ENDPOINTS[Tracker.SOURCEFORGE])
        return IssueRef(Tracker.SOURCEFORGE, url, f"{base}/p/{m['project']}/{m['tool']}/{m['num']}")
    if m := _GOOGLE_ARCHIVE.match(url) or _GOOGLE_JSON.match(url):
        base = endpoints.get(Tracker.GOOGLE_CODE, DEFAULT_ENDPOINTS[Tracker.GOOGLE_CODE])
        return IssueRef(Tracker.GOOGLE_CODE, url, f"{base}/{m['project']}/issues/issue-{m['num']}.json")
    return IssueRef(Tracker.NONE, url)


# -- reading the documented responses (pure) -------------------------------------------------------


def iso_utc(value) -> str:
    """A tracker's timestamp as ISO 8601 UTC: Jira ``2007-03-05T12:34:56.000+0000``, GitHub
    ``2013-08-27T16:20:11Z``, SourceForge ``2010-03-01 10:12:00`` (UTC), epoch seconds (Google Code)."""
    if value in (None, ""):
        return ""
    if isinstance(value, (int, float)):
        moment = datetime.fromtimestamp(value, tz=timezone.utc)
    else:
        text = str(value).strip().replace(" ", "T", 1)
        text = re.sub(r"Z$", "+00:00", text)
        text = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", text)
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return ""
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _texts(items) -> tuple[str, ...]:
    return tuple(t for t in items if t)


def parse_jira(ref: IssueRef, issue: dict, more_comments: Sequence[dict] = ()) -> IssueText:
    """``GET /rest/api/2/issue/KEY?fields=summary,description,comment,created``, and the comments
    beyond the issue's first page from ``GET /rest/api/2/issue/KEY/comment?startAt=N``."""
    fields = issue.get("fields") or {}
    comments = [*((fields.get("comment") or {}).get("comments") or []), *more_comments]
    return IssueText(
        ref.url,
        ref.tracker,
        title=(fields.get("summary") or "").strip(),
        description=jira_to_text(fields.get("description")),
        comments=_texts(jira_to_text(c.get("body")) for c in comments),
        created=iso_utc(fields.get("created")),
    )


def parse_github(ref: IssueRef, issue: dict, comments: list[dict]) -> IssueText:
    """``GET /repos/O/R/issues/N`` and every page of its ``/comments``."""
    return IssueText(
        ref.url,
        ref.tracker,
        title=(issue.get("title") or "").strip(),
        description=markdown_to_text(issue.get("body")),
        comments=_texts(markdown_to_text(c.get("body")) for c in comments),
        created=iso_utc(issue.get("created_at")),
    )


def parse_sourceforge(ref: IssueRef, answer: dict) -> IssueText:
    """Allura's ``GET /rest/p/PROJECT/TOOL/NUM``: ``{"ticket": {...}}``; posts are Markdown."""
    ticket = answer.get("ticket") or {}
    posts = ((ticket.get("discussion_thread") or {}).get("posts")) or []
    return IssueText(
        ref.url,
        ref.tracker,
        title=(ticket.get("summary") or "").strip(),
        description=markdown_to_text(ticket.get("description")),
        comments=_texts(markdown_to_text(p.get("text")) for p in posts),
        created=iso_utc(ticket.get("created_date")),
    )


def parse_google_code(ref: IssueRef, issue: dict) -> IssueText:
    """The archive's ``issue-N.json``: the first comment is the report itself (HTML-escaped text)."""
    comments = sorted(issue.get("comments") or [], key=lambda c: c.get("id", 0))
    first = comments[0] if comments else {}
    return IssueText(
        ref.url,
        ref.tracker,
        title=html_to_text(issue.get("summary")),
        description=html_to_text(first.get("content")),
        comments=_texts(html_to_text(c.get("content")) for c in comments[1:]),
        created=iso_utc(first.get("timestamp")),
    )


# -- transport -------------------------------------------------------------------------------------


class _Retry(Exception):
    """A 429 or 5xx answer (or a dropped connection): worth asking again after ``wait`` seconds."""

    def __init__(self, message: str, wait: float | None):
        super().__init__(message)
        self.wait = wait


class _Failed(Exception):
    """An answer that asking again will not change (404, 401, a body that is not JSON ...)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: object
    next_url: str = ""
    """GitHub's ``Link: <...>; rel="next"``: the next page of a list."""


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


@dataclass
class FetchStats:
    requests: int = 0
    """HTTP requests made (retries included)."""
    cached: int = 0
    """Answers read from the disk cache."""
    retries: int = 0


@dataclass
class IssueFetcher:
    """Reads issues through their trackers' APIs, with a disk cache keyed by URL."""

    cache_dir: Path
    endpoints: dict[Tracker, str] = field(default_factory=endpoints_from_env)
    offline: bool = False
    github_token: str | None = field(default_factory=lambda: os.environ.get("GITHUB_TOKEN") or None)
    attempts: int = 5
    max_wait: float = 120.0
    """The longest single back-off; a tracker asking for longer is given up on (the issue is listed)."""
    min_interval: float = 1.0
    """Seconds between two requests to the same host."""
    first_backoff: float = 1.0
    """Seconds before the first retry when the tracker does not say (``Retry-After``); doubled each time."""
    timeout: float = 30.0
    stats: FetchStats = field(default_factory=FetchStats)

    def __post_init__(self) -> None:
        self.cache_dir = Path(self.cache_dir)
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    # The cache: one JSON file per URL asked for, written whole (rename) so a killed run leaves none half-written.
    def _cache_path(self, url: str) -> Path:
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.cache_dir / digest[:2] / f"{digest}.json"

    def _cached(self, url: str) -> Answer | None:
        path = self._cache_path(url)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        if data.get("url") != url:
            return None
        self.stats.cached += 1
        return Answer(int(data["status"]), data.get("body"), data.get("next_url", ""))

    def _store(self, url: str, answer: Answer) -> None:
        path = self._cache_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(
            json.dumps(
                {
                    "url": url,
                    "status": answer.status,
                    "body": answer.body,
                    "next_url": answer.next_url,
                    "fetched": iso_utc(time.time()),
                }
            ),
            encoding="utf-8",
        )
        tmp.replace(path)

    def _headers(self, url: str) -> dict[str, str]:
        headers = {"User-Agent": f"nl2fix/{__version__} (dataset build)", "Accept": "application/json"}
        if self.endpoints.get(Tracker.GITHUB) and url.startswith(self.endpoints[Tracker.GITHUB]):
            headers["Accept"] = "application/vnd.github+json"
            headers["X-GitHub-Api-Version"] = "2022-11-28"
            if self.github_token:
                headers["Authorization"] = f"Bearer {self.github_token}"
        return headers

    def _space(self, url: str) -> None:
        host = urllib.parse.urlsplit(url).netloc
        with self._lock:
            wait = self._last.get(host, 0.0) + self.min_interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last[host] = time.monotonic()

    def _request(self, url: str) -> Answer:
        self._space(url)
        self.stats.requests += 1
        request = urllib.request.Request(url, headers=self._headers(url))
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw, status, headers = response.read(), response.status, response.headers
        except urllib.error.HTTPError as exc:
            status, headers = exc.code, exc.headers
            if status == 429 or status >= 500:
                raise _Retry(f"HTTP {status}", retry_after(headers.get("Retry-After"))) from None
            if status == 403 and headers.get("X-RateLimit-Remaining") == "0":
                reset = headers.get("X-RateLimit-Reset")
                raise _Retry("HTTP 403 (rate limit)", max(0.0, float(reset) - time.time()) if reset else None) from None
            if status in (404, 410):
                return Answer(status, None)
            raise _Failed(f"HTTP {status}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise _Retry(f"cannot connect: {getattr(exc, 'reason', exc)}", None) from None
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise _Failed(f"HTTP {status} with a body that is not JSON") from None
        link = _LINK_NEXT.search(headers.get("Link") or "")
        return Answer(status, body, link.group(1) if link else "")

    def _wait(self, state) -> float:
        exc = state.outcome.exception()
        asked = getattr(exc, "wait", None)
        backoff = min(self.max_wait, self.first_backoff * 2.0 ** (state.attempt_number - 1))
        if asked is not None and asked > self.max_wait:
            raise _Failed(f"{exc}: the tracker asks to wait {asked:.0f} s (more than {self.max_wait:.0f} s)")
        self.stats.retries += 1
        return asked if asked is not None else backoff

    def get(self, url: str) -> Answer:
        """One JSON answer: from the cache, else from the network (retried), then cached.
        Raises :class:`_Failed` with the reason when there is none."""
        cached = self._cached(url)
        if cached is not None:
            return cached
        if self.offline:
            raise _Failed("not in the cache (--offline)")
        try:
            answer = Retrying(
                stop=stop_after_attempt(self.attempts),
                wait=self._wait,
                retry=retry_if_exception_type(_Retry),
                reraise=False,
            )(self._request, url)
        except RetryError as exc:
            raise _Failed(f"{exc.last_attempt.exception()} after {self.attempts} attempts") from None
        self._store(url, answer)
        return answer

    def fetch(self, url: str) -> IssueText:
        """The issue at ``url`` (as Defects4J lists it); ``error`` says why when it cannot be read."""
        ref = resolve(url, self.endpoints)
        if ref.tracker is Tracker.NONE:
            return IssueText(url, ref.tracker, error=f"no known issue tracker for {url or 'an empty URL'!r}")
        try:
            first = self.get(ref.api_url)
            if first.status != 200:
                return IssueText(url, ref.tracker, error=f"not found (HTTP {first.status} from {ref.api_url})")
            if not isinstance(first.body, dict):
                return IssueText(url, ref.tracker, error=f"unexpected answer from {ref.api_url}")
            if ref.tracker is Tracker.JIRA:
                return parse_jira(ref, first.body, self._jira_comments(ref, first.body))
            if ref.tracker is Tracker.SOURCEFORGE:
                return parse_sourceforge(ref, first.body)
            if ref.tracker is Tracker.GOOGLE_CODE:
                return parse_google_code(ref, first.body)
            return parse_github(ref, first.body, self._github_comments(ref, first.body))
        except _Failed as exc:
            return IssueText(url, ref.tracker, error=str(exc))

    def _jira_comments(self, ref: IssueRef, issue: dict) -> list[dict]:
        """Comments past the first page the issue itself carries (Jira caps it, e.g. at 50)."""
        page = (issue.get("fields") or {}).get("comment") or {}
        have, total = len(page.get("comments") or []), int(page.get("total") or 0)
        more: list[dict] = []
        base = ref.api_url.split("?", 1)[0]
        while have + len(more) < total:
            url = f"{base}/comment?startAt={have + len(more)}&maxResults=100"
            answer = self.get(url)
            batch = (answer.body or {}).get("comments") if isinstance(answer.body, dict) else None
            if answer.status != 200 or not batch:
                raise _Failed(f"comments not readable (HTTP {answer.status} from {url})")
            more += [c for c in batch if isinstance(c, dict)]
        return more

    def _github_comments(self, ref: IssueRef, issue: dict) -> list[dict]:
        if not issue.get("comments"):
            return []
        comments: list[dict] = []
        page = f"{ref.api_url}/comments?per_page=100"
        while page:
            answer = self.get(page)
            if answer.status != 200 or not isinstance(answer.body, list):
                raise _Failed(f"comments not readable (HTTP {answer.status} from {page})")
            comments += [c for c in answer.body if isinstance(c, dict)]
            page = answer.next_url
        return comments
