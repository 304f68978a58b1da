"""A real HTTP server on 127.0.0.1 that answers like Jira's, GitHub's, SourceForge's and the Google
Code archive's APIs from recorded responses (``tests/fixtures/trackers``).

``/<tracker>/<api path>`` answers ``fixtures/trackers/<tracker>/<api path>.json`` (``.json`` added
unless the path has it already, as the Google Code archive's do; the query string
is ignored except GitHub's ``page``: ``comments.json`` is page 1, ``comments.page2.json`` page 2, with
a ``Link: <...>; rel="next"`` header as GitHub sends); a path with no recording answers 404 with
the tracker's error body. ``script`` queues answers to give first for a path (429 with
``Retry-After``, 503 ...), and every request is logged with its headers.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.helpers.paths import FIXTURES

TRACKERS = FIXTURES / "trackers"
NOT_FOUND = {
    "jira": {"errorMessages": ["Issue Does Not Exist"], "errors": {}},
    "github": {"message": "Not Found", "documentation_url": "https://docs.github.com/rest/issues/issues#get-an-issue"},
}


class TrackerServer:
    def __init__(self, root: Path = TRACKERS):
        self.root = root
        self.script: dict[str, deque] = defaultdict(deque)
        self.log: list[tuple[str, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                parts = urlsplit(self.path)
                server.log.append((self.path, dict(self.headers)))
                queued = server.script[parts.path]
                if queued:
                    status, headers, body = queued.popleft()
                    return self._send(status, body, headers)
                tracker = parts.path.strip("/").split("/", 1)[0]
                page = int(parse_qs(parts.query).get("page", ["1"])[0])
                file = self._file(parts.path, page)
                if not file.is_file():
                    return self._send(404, NOT_FOUND.get(tracker, {"error": "not found"}))
                headers = {}
                if self._file(parts.path, page + 1).is_file():
                    base = f"http://{self.headers['Host']}{parts.path}"
                    headers["Link"] = f'<{base}?per_page=100&page={page + 1}>; rel="next", <{base}?page=1>; rel="first"'
                self._send(200, file.read_bytes(), headers)

            def _file(self, path: str, page: int) -> Path:
                stem = path.strip("/").removesuffix(".json")
                return server.root / (stem + (".json" if page == 1 else f".page{page}.json"))

            def _send(self, status: int, body, headers=None):
                data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def endpoints(self) -> dict:
        from nl2fix.dataset.trackers import Tracker

        return {
            Tracker.JIRA: f"{self.url}/jira",
            Tracker.GITHUB: f"{self.url}/github",
            Tracker.SOURCEFORGE: f"{self.url}/sourceforge",
            Tracker.GOOGLE_CODE: f"{self.url}/googlecode",
        }

    def requests_to(self, fragment: str) -> int:
        return sum(fragment in path for path, _ in self.log)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
