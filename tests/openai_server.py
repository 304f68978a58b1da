"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, driven by the real ``openai`` client.

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/completions``, ``POST /v1/embeddings``.

    with OpenAIServer(model=my_model) as server:      # or the ``openai_server`` fixture
        client = openai.OpenAI(base_url=server.url, api_key="test")
        ...
        server.requests                                 # every request: LoggedRequest(path, body, status)

* ``model(messages, n) -> list[str]``: the deterministic "model". It gets the chat messages
  (a completion prompt arrives as one user message) and ``n``, and returns the choice texts.
  The default answers every prompt with the first fenced code block it contains (an "echo").
* ``server.fail(429, 500, ...)``: the next requests get these statuses (with ``Retry-After``)
  before requests succeed again; ``fail(429, code="insufficient_quota")`` sets the error's code.
* ``stop_after=K``: the server dies after answering K requests; later requests, even on
  kept-alive connections, get the connection closed without an answer.
* ``max_n``: return at most this many choices (a server that ignores ``n``: ``max_n=1``);
  ``reject_n=True``: answer 400 to any ``n > 1``.
* ``scripted_model(rules)``: answers by the first :class:`Rule` whose cues the prompt holds (a model
  that reacts to the feedback it is sent).
* Embeddings are deterministic: a 64-dimensional normalised bag of hashed words of the input,
  so similar texts get similar vectors (see :func:`embed`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Model = Callable[[list[dict], int], list[str]]
EMBEDDING_DIM = 64
_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.DOTALL)
_WORD = re.compile(r"\w+|[^\w\s]")


def echo_model(messages: list[dict], n: int) -> list[str]:
    """Answers with the first fenced block of the last user message (else the message itself)."""
    text = [m["content"] for m in messages if m["role"] == "user"][-1]
    found = _FENCE.search(text)
    body = found.group(1) if found else text
    return [f"```java\n{body.rstrip()}\n```"] * n


@dataclass(frozen=True)
class Rule:
    """``answer`` when every one of ``cues`` is in the prompt (all its messages, as sent)."""

    cues: tuple[str, ...]
    answer: str


def scripted_model(rules: list[Rule], default: Model = echo_model) -> Model:
    """A model that reads what it is told: it answers with the first rule whose cues are all in the
    prompt, else as ``default`` does. Feedback that is missing or wrong matches no rule."""

    def model(messages: list[dict], n: int) -> list[str]:
        prompt = "\n".join(m["content"] for m in messages)
        for rule in rules:
            if all(cue in prompt for cue in rule.cues):
                return [rule.answer] * n
        return default(messages, n)

    return model


def embed(text: str) -> list[float]:
    """A deterministic embedding: hashed bag of words, L2-normalised."""
    vector = [0.0] * EMBEDDING_DIM
    for word in _WORD.findall(text):
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % EMBEDDING_DIM] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def _count(text: str) -> int:
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class LoggedRequest:
    path: str
    body: dict
    status: int


class OpenAIServer:
    def __init__(
        self,
        model: Model = echo_model,
        *,
        stop_after: int | None = None,
        max_n: int | None = None,
        reject_n: bool = False,
        retry_after: str = "0",
        usage: bool = True,
    ):
        self.model = model
        self.stop_after = stop_after
        self.max_n = max_n
        self.reject_n = reject_n
        self.retry_after = retry_after
        self.usage = usage
        self.requests: list[LoggedRequest] = []
        self._failures: deque[tuple[int, str | None]] = deque()
        self._lock = threading.Lock()
        self._answered = 0
        self.dead = False
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def fail(self, *statuses: int, code: str | None = None) -> None:
        with self._lock:
            self._failures.extend((status, code) for status in statuses)

    def successful(self, path: str | None = None) -> list[LoggedRequest]:
        """Requests answered with 200 (on ``path``, e.g. ``/v1/chat/completions``, if given)."""
        return [r for r in self.requests if r.status == 200 and (path is None or r.path == path)]

    def stop(self) -> None:
        """Stop answering and close the listening socket (idempotent)."""
        with self._lock:
            self.dead = True
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "OpenAIServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- answering -------------------------------------------------------------------------
    def _answer(self, path: str, body: dict) -> tuple[int, dict, dict]:
        """Status, JSON body and extra headers for one request (None status: die silently)."""
        with self._lock:
            if self.dead:
                return 0, {}, {}
            if self._failures:
                status, code = self._failures.popleft()
                self.requests.append(LoggedRequest(path, body, status))
                error = {"error": {"message": f"scripted failure {status}", "type": "test", "code": code or status}}
                return status, error, {"Retry-After": self.retry_after}
        n = int(body.get("n") or 1)
        if self.reject_n and n > 1:
            with self._lock:
                self.requests.append(LoggedRequest(path, body, 400))
            return 400, {"error": {"message": "n must be 1 on this server", "param": "n", "type": "invalid_request_error"}}, {}
        if path == "/v1/embeddings":
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            reply = {
                "object": "list",
                "model": body.get("model", "test"),
                "data": [{"object": "embedding", "index": i, "embedding": embed(t)} for i, t in enumerate(inputs)],
                "usage": {"prompt_tokens": sum(_count(t) for t in inputs), "total_tokens": sum(_count(t) for t in inputs)},
            }
        elif path in ("/v1/chat/completions", "/v1/completions"):
            chat = path == "/v1/chat/completions"
            messages = body["messages"] if chat else [{"role": "user", "content": body["prompt"]}]
            texts = self.model(messages, min(n, self.max_n or n))
            choices = [
                {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop", "logprobs": None}
                if chat
                else {"index": i, "text": t, "finish_reason": "stop", "logprobs": None}
                for i, t in enumerate(texts)
            ]
            reply = {
                "id": f"test-{len(self.requests)}",
                "object": "chat.completion" if chat else "text_completion",
                "created": 0,
                "model": body.get("model", "test"),
                "choices": choices,
            }
            if self.usage:
                prompt = sum(_count(m["content"]) for m in messages)
                completion = sum(_count(t) for t in texts)
                reply["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        else:
            return 404, {"error": {"message": f"no route {path}"}}, {}
        with self._lock:
            if self.dead:
                return 0, {}, {}
            self.requests.append(LoggedRequest(path, body, 200))
            self._answered += 1
            die = self.stop_after is not None and self._answered >= self.stop_after
            if die:
                self.dead = True
        if die:
            threading.Thread(target=self.stop, daemon=True).start()
        return 200, reply, {}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, reply, headers = server._answer(self.path, body)
                if status == 0:  # dead: drop the connection without an answer
                    self.close_connection = True
                    return
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
