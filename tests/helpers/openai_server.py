"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, driven by the real ``openai`` client.

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/completions``, ``POST /v1/embeddings``,
``GET /v1/models`` (never scripted to fail, nor logged in ``requests``).

    with OpenAIServer(model=my_model) as server:      # or the ``openai_server`` fixture
        client = openai.OpenAI(base_url=server.url, api_key="test")
        ...
        server.requests                                 # every request: LoggedRequest(path, body, status)

* ``model(messages, n) -> list[str]``: the deterministic "model". It gets the chat messages
  (a completion prompt arrives as one user message) and ``n``, and returns the choice texts.
  The default answers every prompt with the first fenced code block it contains (an "echo").
* ``server.fail(429, 500, ...)``: the next requests get these statuses (with ``Retry-After``)
  before requests succeed again; ``fail(429, code="insufficient_quota")`` sets the error's code.
  Two misbehaviours go in the same queue: ``MALFORMED`` (a 200 whose JSON body is cut short) and
  ``HANG`` (the request is held, never answered, until the server stops).
* ``stop_after=K``: the server dies after answering K requests; later requests, even on
  kept-alive connections, get the connection closed without an answer.
* ``max_n``: return at most this many choices (a server that ignores ``n``: ``max_n=1``);
  ``reject_n=True``: answer 400 to any ``n > 1``.
* ``scripted_model(rules)``: answers by the first :class:`Rule` whose cues the prompt holds (a model
  that reacts to the feedback it is sent).
* Embeddings are deterministic: a 64-dimensional normalised bag of hashed words of the input,
  so similar texts get similar vectors (see :func:`embed`).
* ``vllm=True``: answers as vLLM's OpenAI-compatible server does (shapes checked against
  vllm 0.32's api_server): ``GET /v1/models`` lists ``served_model`` with ``owned_by: vllm``,
  ``root`` and ``max_model_len``; ``POST /tokenize`` and ``/detokenize`` count with the server's
  own lossless tokenizer (words, punctuation and whitespace runs) and a chat template; choices
  carry ``stop_reason`` and, with ``return_token_ids``, their ``token_ids``; ``stop`` and
  ``max_tokens`` end answers; a prompt longer than ``max_model_len`` gets vLLM's 400.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Model = Callable[[list[dict], int], list[str]]
MALFORMED = "malformed"
HANG = "hang"
_CUT_SHORT = b'{"id": "cut", "object": "chat.completion", "choices": [{"index": 0, "mess'
EMBEDDING_DIM = 64
_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.DOTALL)
_WORD = re.compile(r"\w+|[^\w\s]")
_PIECE = re.compile(r"\s+|\w+|[^\w\s]")


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
        vllm: bool = False,
        max_model_len: int | None = None,
        served_model: str = "test-model",
        root: str | None = None,
    ):
        self.model = model
        self.stop_after = stop_after
        self.max_n = max_n
        self.reject_n = reject_n
        self.retry_after = retry_after
        self.usage = usage
        self.vllm = vllm
        self.max_model_len = max_model_len
        self.served_model = served_model
        self.root = root or served_model
        self._vocab: dict[str, int] = {}
        self._pieces: list[str] = []
        self.requests: list[LoggedRequest] = []
        self._failures: deque[tuple[int | str, str | None]] = deque()
        self._stopped = threading.Event()
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

    def fail(self, *statuses: int | str, code: str | None = None) -> None:
        with self._lock:
            self._failures.extend((status, code) for status in statuses)

    def successful(self, path: str | None = None) -> list[LoggedRequest]:
        """Requests answered with 200 (on ``path``, e.g. ``/v1/chat/completions``, if given)."""
        return [r for r in self.requests if r.status == 200 and (path is None or r.path == path)]

    def stop(self) -> None:
        """Stop answering and close the listening socket (idempotent)."""
        with self._lock:
            self.dead = True
        self._stopped.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- the vLLM-like tokenizer ---------------------------------------------------------------
    def token_ids(self, text: str) -> list[int]:
        """The server's tokens of ``text``: lossless (decoding them gives ``text`` back)."""
        with self._lock:
            ids = []
            for piece in _PIECE.findall(text):
                if piece not in self._vocab:
                    self._vocab[piece] = len(self._pieces)
                    self._pieces.append(piece)
                ids.append(self._vocab[piece])
            return ids

    def detokenize(self, ids: list[int]) -> str:
        return "".join(self._pieces[i] for i in ids)

    @staticmethod
    def chat_text(messages: list[dict]) -> str:
        """The server's chat template, applied with the generation prompt."""
        return "".join(f"<|{m['role']}|>\n{m['content']}</s>\n" for m in messages) + "<|assistant|>\n"

    def prompt_ids(self, body: dict, chat: bool) -> list[int]:
        return self.token_ids(self.chat_text(body["messages"]) if chat else body["prompt"])

    def _tokenize(self, path: str, body: dict) -> dict:
        if path == "/detokenize":
            return {"prompt": self.detokenize(body["tokens"])}
        ids = self.prompt_ids(body, "messages" in body)
        return {"count": len(ids), "max_model_len": self.max_model_len, "tokens": ids, "token_strs": None}

    def _models(self) -> dict:
        card = {
            "id": self.served_model,
            "object": "model",
            "created": 0,
            "owned_by": "vllm" if self.vllm else "test",
            "root": self.root,
            "parent": None,
        }
        if self.vllm and self.max_model_len:
            card["max_model_len"] = self.max_model_len
        return {"object": "list", "data": [card]}

    def _vllm_choice(self, text: str, body: dict) -> tuple[str, str, str | None, list[int]]:
        """Text, finish_reason, stop_reason and token ids of one answer, ended as vLLM ends it."""
        stop_reason = None
        stops = body.get("stop") or []
        stops = [stops] if isinstance(stops, str) else stops
        found = [(text.find(s), s) for s in stops if s in text]
        if found:
            at, stop_reason = min(found)
            text = text[:at]
        ids = self.token_ids(text)
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if limit is not None and len(ids) > limit:
            ids = ids[:limit]
            return self.detokenize(ids), "length", None, ids
        return text, "stop", stop_reason, ids

    def _too_long(self, prompt_tokens: int) -> dict | None:
        if not self.max_model_len or prompt_tokens < self.max_model_len:
            return None
        # vLLM tokenizes at most max_model_len + 1 tokens of a prompt, hence its "at least"
        seen = min(prompt_tokens, self.max_model_len + 1)
        at_least = "at least " if seen == self.max_model_len + 1 else ""
        message = (
            f"This model's maximum context length is {self.max_model_len} tokens. However, your prompt contains "
            f"{at_least}{seen} input tokens, which exceeds this limit even without any output tokens. "
            f"Please reduce the length of the input prompt. (parameter=input_tokens, value={seen})"
        )
        return {"error": {"message": message, "type": "BadRequestError", "param": "input_tokens", "code": 400}}

    # -- answering -------------------------------------------------------------------------
    def _answer(self, path: str, body: dict) -> tuple[int, dict, dict]:
        """Status, JSON body and extra headers for one request (None status: die silently)."""
        with self._lock:
            if self.dead:
                return 0, {}, {}
        # what a client asks about the model is answered apart: not scripted to fail, not logged
        if path == "/v1/models":
            return 200, self._models(), {}
        if self.vllm and path in ("/tokenize", "/detokenize"):
            return 200, self._tokenize(path, body), {}
        with self._lock:
            failure = self._failures.popleft() if self._failures else None
        if failure is not None and failure[0] == HANG:
            with self._lock:
                self.requests.append(LoggedRequest(path, body, 0))
            self._stopped.wait()
            return 0, {}, {}
        with self._lock:
            if failure is not None and failure[0] == MALFORMED:
                self.requests.append(LoggedRequest(path, body, 200))
                return 200, {MALFORMED: True}, {}
            if failure is not None:
                status, code = failure
                assert isinstance(status, int)
                self.requests.append(LoggedRequest(path, body, status))
                error = {"error": {"message": f"scripted failure {status}", "type": "test", "code": code or status}}
                return status, error, {"Retry-After": self.retry_after}
        n = int(body.get("n") or 1)
        if self.reject_n and n > 1:
            with self._lock:
                self.requests.append(LoggedRequest(path, body, 400))
            return (
                400,
                {"error": {"message": "n must be 1 on this server", "param": "n", "type": "invalid_request_error"}},
                {},
            )
        if path == "/v1/embeddings":
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            reply = {
                "object": "list",
                "model": body.get("model", "test"),
                "data": [{"object": "embedding", "index": i, "embedding": embed(t)} for i, t in enumerate(inputs)],
                "usage": {
                    "prompt_tokens": sum(_count(t) for t in inputs),
                    "total_tokens": sum(_count(t) for t in inputs),
                },
            }
        elif path in ("/v1/chat/completions", "/v1/completions"):
            chat = path == "/v1/chat/completions"
            messages = body["messages"] if chat else [{"role": "user", "content": body["prompt"]}]
            prompt_ids = self.prompt_ids(body, chat) if self.vllm else []
            rejection = self._too_long(len(prompt_ids)) if self.vllm else None
            if rejection is not None:
                with self._lock:
                    self.requests.append(LoggedRequest(path, body, 400))
                return 400, rejection, {}
            texts = self.model(messages, min(n, self.max_n or n))
            ended = [self._vllm_choice(t, body) if self.vllm else (t, "stop", None, []) for t in texts]
            texts = [text for text, *_ in ended]
            choices = [
                {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": finish, "logprobs": None}
                if chat
                else {"index": i, "text": t, "finish_reason": finish, "logprobs": None}
                for i, (t, finish, _, _) in enumerate(ended)
            ]
            if self.vllm:
                for choice, (_, _, stop_reason, ids) in zip(choices, ended):
                    choice["stop_reason"] = stop_reason
                    if body.get("return_token_ids"):
                        choice["token_ids"] = ids
            reply = {
                "id": f"test-{len(self.requests)}",
                "object": "chat.completion" if chat else "text_completion",
                "created": 0,
                "model": body.get("model", "test"),
                "choices": choices,
            }
            if self.usage and self.vllm:
                prompt, completion = len(prompt_ids), sum(len(ids) for *_, ids in ended)
                reply["usage"] = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
            elif self.usage:
                prompt = sum(_count(m["content"]) for m in messages)
                completion = sum(_count(t) for t in texts)
                reply["usage"] = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
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

            def do_GET(self) -> None:
                self._reply({})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._reply(json.loads(self.rfile.read(length) or b"{}"))

            def _reply(self, body: dict) -> None:
                status, reply, headers = server._answer(self.path, body)
                if status == 0:  # dead: drop the connection without an answer
                    self.close_connection = True
                    return
                data = _CUT_SHORT if reply.get(MALFORMED) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
