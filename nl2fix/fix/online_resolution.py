"""Resolving a project's dependencies online once, the project's own way, when its offline build
lacks them; and naming the repositories it could not reach when there is no network.

Offline first: a build runs offline, and only when it fails for want of artifacts (Maven's "has not
been downloaded from it before", "No plugin found for prefix"; Gradle's "No cached version ...
available for offline mode") does nl2fix go online, once, with the project's own settings (Maven
reads ``.mvn/maven.config``, ``~/.m2/settings.xml`` and their mirrors and proxies itself; Gradle
its build scripts' repositories), then build offline again. So a machine whose repository already
holds everything needs no network, and a build that succeeds is the same whichever way it got its
artifacts (builds are cached per content, so this happens once per project state at most).

- **Maven**: ``mvn -B -U dependency:go-offline`` (``-U``: an earlier attempt without network left
  its failures cached in the local repository, which Maven would not retry for a day). go-offline
  misses what is resolved only when a goal runs (the compiler's ``annotationProcessorPaths``,
  surefire's providers): when the offline build still lacks something, its own goals run online
  once (the same command without ``-o``), then offline again.
- **Gradle**: the same build without ``--offline``, which fills Gradle's cache, then offline again.

When the online attempt fails, the repositories it could not reach are named with the reason: the
build tool's own words (unknown host, connection refused, network unreachable, timed out) or, where
it gives none (Maven 3.8's "transfer failed for URL"), what a direct connection to the host finds.
"""

from __future__ import annotations

import enum
import re
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import ExecResult
from nl2fix.fix import debian_maven

PROBE_TIMEOUT = 10.0
"""Seconds a direct look-up or connection to a repository's host may take before it counts as timed out."""
ONLINE_OUTPUT_LIMIT = 50_000_000
"""An online build's output is kept whole: every download is a line, the errors come last."""

_MAVEN_MISSING_LIST = re.compile(r"^\[ERROR\]\s+\d+\) (?P<c>[\w.-]+:[\w.-]+:[\w-]+:[\w.-]+)$", re.MULTILINE)
"""The legacy resolver's list of what is missing (the compiler plugin's annotationProcessorPaths)."""
_MAVEN_PREFIX = re.compile(r"No plugin found for prefix '(?P<p>[\w.-]+)'")
_MAVEN_OFFLINE = re.compile(r"in offline mode")
_GRADLE_LACKING = re.compile(r"No cached version (?:listing )?(?:of |for )?(?P<c>\S+?) available for offline mode")
_MAVEN_REPOSITORY = re.compile(r"from/to (?P<id>[^\s(]+) \((?P<url>[a-z+]+://[^)\s]+)\)(?:: (?P<why>[^\n]*))?")
_MAVEN_REPOSITORIES = re.compile(r"available from the repositories \[(?P<list>[^\]]*)\]")
_MAVEN_LISTED = re.compile(r"(?P<id>[^\s(,]+) \((?P<url>[a-z+]+://[^)\s]+)\)")
_GRADLE_GET = re.compile(r"Could not (?:GET|HEAD) '(?P<url>[^']+)'\.(?:[ \t]*\n[ \t]*> (?P<why>[^\n]+))?")
_DOWNLOADED = re.compile(r"^\[INFO\] Downloaded from ", re.MULTILINE)
Say = Callable[[str], None]
Run = Callable[[], ExecResult]
"""Runs the build (logged) and returns what it did."""


class Reach(str, enum.Enum):
    """Why a repository could not be reached."""

    UNKNOWN_HOST = "unknown host"
    REFUSED = "connection refused"
    UNREACHABLE = "network unreachable"
    TIMED_OUT = "timed out"


_REASONS = (
    (
        Reach.UNKNOWN_HOST,
        re.compile(
            r"Name or service not known|Unknown ?host|Temporary failure in name resolution|"
            r"No address associated with hostname|nodename nor servname",
            re.IGNORECASE,
        ),
    ),
    (Reach.REFUSED, re.compile(r"Connection refused", re.IGNORECASE)),
    (Reach.UNREACHABLE, re.compile(r"Network is unreachable|No route to host", re.IGNORECASE)),
    (Reach.TIMED_OUT, re.compile(r"(?:connect|read) timed out", re.IGNORECASE)),
)


@dataclass(frozen=True)
class Unreached:
    """A repository an online build could not reach."""

    where: str
    """How the build names it: Maven's ``id (url)``, else the URL's scheme, host and port."""
    reason: Reach
    probed: bool = False
    """The reason is what a direct connection found (the build tool did not say)."""

    def __str__(self) -> str:
        return f"{self.where}: {self.reason.value}" + (" (a direct connection finds)" if self.probed else "")


def reason_in(text: str) -> Reach | None:
    """The network failure a build tool's message names, if any."""
    return next((reach for reach, pattern in _REASONS if pattern.search(text)), None)


def probe(url: str, timeout: float = PROBE_TIMEOUT) -> Reach | None:
    """What a direct connection to the URL's host finds: why it cannot be reached, or None when it can.
    The name look-up runs in a thread of its own, so a resolver that does not answer is bounded too."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    found: list[object] = []
    lookup = threading.Thread(target=lambda: found.append(_lookup(host, port)), daemon=True)
    lookup.start()
    lookup.join(timeout)
    if not found:
        return Reach.TIMED_OUT
    if isinstance(found[0], Reach):
        return found[0]
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        return Reach.REFUSED
    except TimeoutError:
        return Reach.TIMED_OUT
    except OSError:
        return Reach.UNREACHABLE
    return None


def _lookup(host: str, port: int) -> object:
    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return Reach.UNKNOWN_HOST


@dataclass(frozen=True)
class Failed:
    """A repository a failed online build names, as it names it."""

    where: str
    """Maven's ``id (url)``, else the URL's scheme, host and port."""
    url: str
    """A URL of it the build asked for."""
    said: Reach | None
    """The network failure the build's words name, if any."""


def repositories_failed(output: str) -> list[Failed]:
    """The remote repositories a failed online Maven or Gradle build names, each once, with the
    failure its words name (when one of its messages names one)."""
    named: dict[str, Failed] = {}

    def add(where: str, url: str, why: str) -> None:
        if where not in named or named[where].said is None:
            named[where] = Failed(where, url, reason_in(why))

    for m in _MAVEN_REPOSITORY.finditer(output):
        add(f"{m['id']} ({m['url']})", m["url"], m["why"] or "")
    for listing in _MAVEN_REPOSITORIES.finditer(output):
        for m in _MAVEN_LISTED.finditer(listing["list"]):
            add(f"{m['id']} ({m['url']})", m["url"], "")
    for m in _GRADLE_GET.finditer(output):
        parts = urlsplit(m["url"])
        add(f"{parts.scheme}://{parts.netloc}", m["url"], m["why"] or "")
    return [f for f in named.values() if not f.url.startswith("file:")]


def unreached(output: str, timeout: float = PROBE_TIMEOUT) -> list[Unreached]:
    """The repositories a failed online build could not reach: by its words, else by a direct
    connection to each host (one that answers is left out: the failure was something else, a 404
    or a certificate)."""
    out: list[Unreached] = []
    probed: dict[tuple[str | None, int | None], Reach | None] = {}
    for failed in repositories_failed(output):
        if failed.said is not None:
            out.append(Unreached(failed.where, failed.said))
            continue
        key = (urlsplit(failed.url).hostname, urlsplit(failed.url).port)
        if key not in probed:
            probed[key] = probe(failed.url, timeout)
        found = probed[key]
        if found is not None:
            out.append(Unreached(failed.where, found, probed=True))
    return out


def maven_lacking(output: str) -> list[str]:
    """What an offline Maven build could not find in the local repository (empty when it failed for
    anything else)."""
    wanted, unversioned = debian_maven.missing_artifacts(output)
    found = [
        *map(str, wanted),
        *(f"a version of the plugin {c}" for c in unversioned),
        *(m["c"] for m in _MAVEN_MISSING_LIST.finditer(output)),
        *(f"the plugin of prefix '{m['p']}'" for m in _MAVEN_PREFIX.finditer(output)),
    ]
    if not found and _MAVEN_OFFLINE.search(output):
        found = ["what it names in offline mode (see the log)"]
    return list(dict.fromkeys(found))


def gradle_lacking(output: str, portal_plugins: Iterable[str] = ()) -> list[str]:
    """What an offline Gradle build could not find in Gradle's cache: modules, and the plugins by id
    it requested (:func:`gradle_offline.portal_plugins`)."""
    return list(dict.fromkeys([*(m["c"] for m in _GRADLE_LACKING.finditer(output)), *portal_plugins]))


def downloads(output: str) -> int:
    """Files an online Maven build downloaded."""
    return len(_DOWNLOADED.findall(output))


def few(items: list[str], shown: int = 5) -> str:
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _unreachable_error(build: str, command: str, lacking: list[str], output: str, hint: str) -> Nl2FixError | None:
    """The error for an online attempt that found no network: what was lacking, the repositories it
    could not reach and why; None when it failed otherwise."""
    hosts = unreached(output)
    if not hosts:
        return None
    return Nl2FixError(
        f"the offline {build} build lacks {few(lacking)}, and resolving it online ({command}) could "
        "not reach the repositories:\n" + "\n".join(f"  {h}" for h in hosts),
        hint,
    )


@dataclass(frozen=True)
class Attempt:
    """One online run and the offline build after it."""

    build: str
    """``Maven`` or ``Gradle``."""
    command: str
    """The online command as said, ``mvn dependency:go-offline``."""
    online: Run
    offline: Run


def online_then_offline(attempt: Attempt, lacking: list[str], say: Say, hint: str, timeout: float) -> ExecResult:
    """Run online once, then the offline build; what the offline build did. Raises when the online
    run timed out or could not reach the repositories; any other failure of it is said, and the
    offline build tells what is still missing."""
    online = attempt.online()
    output = online.stdout + online.stderr
    if online.timed_out:
        raise Nl2FixError(
            f"resolving the project's dependencies online ({attempt.command}) did not finish within {timeout:.0f} s",
            hint,
        )
    if not online.ok:
        error = _unreachable_error(attempt.build, attempt.command, lacking, output, hint)
        if error is not None:
            raise error
    files = downloads(output)
    say(
        f"{attempt.build.lower()}: {attempt.command} {'done' if online.ok else 'failed'} in {online.wall_seconds:.1f} s"
        + (f", {files} file(s) downloaded" if files else "")
        + ("" if online.ok else f": {_first_error(output)}")
    )
    return attempt.offline()


def resolve_maven(
    run: Callable[[list[str], bool], ExecResult],
    goals: list[str],
    lacking: list[str],
    where: str,
    say: Say,
    hint: str,
    timeout: float,
) -> ExecResult:
    """Resolve online what an offline Maven build lacked, then build offline again; the last offline
    build's result. ``run(goals, online)`` runs Maven (logged). go-offline first; when the offline
    build still lacks something, the build's own goals online once."""
    say(
        f"maven: {where} lacks {few(lacking)}: resolving the project's dependencies online once, the project's own "
        "way (mvn dependency:go-offline)"
    )
    go_offline = Attempt(
        "Maven", "mvn dependency:go-offline", lambda: run(["dependency:go-offline"], True), lambda: run(goals, False)
    )
    result = online_then_offline(go_offline, lacking, say, hint, timeout)
    still = maven_lacking(result.stdout + result.stderr) if not result.ok else []
    if not still:
        return result
    command = "mvn " + " ".join(g for g in goals if not g.startswith("-"))
    say(
        f"maven: the offline build still lacks {few(still)} (dependency:go-offline misses what is resolved only when "
        f"a goal runs): the build's own goals online once ({command})"
    )
    return online_then_offline(
        Attempt("Maven", command, lambda: run(goals, True), lambda: run(goals, False)), still, say, hint, timeout
    )


def _first_error(output: str) -> str:
    """Maven's first error line, else the first line of Gradle's account of the failure."""
    lines = output.splitlines()
    maven = next((l.removeprefix("[ERROR] ") for l in lines if l.startswith("[ERROR]") and len(l) > 8), None)
    gradle = next((lines[i + 1] for i, l in enumerate(lines[:-1]) if l.startswith("* What went wrong")), None)
    return (maven or gradle or "see the log").strip()[:300]
