"""A model's own tokenizer, so prompts are fitted with the counts its server or vLLM will make.

- :func:`local_tokenizer`: the Hugging Face tokenizer of a local model folder, or of a hub id
  already in the local cache (never downloaded: a missing one gives None and tiktoken counts);
  chat requests are counted through the model's chat template, as vLLM applies it.
- :class:`ServerTokenizer`: a vLLM server's own ``/tokenize`` and ``/detokenize`` endpoints, for
  a served model whose files are not on this machine.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nl2fix.core.tokenizer import TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, Message

log = logging.getLogger(__name__)


class HuggingFaceTokenizer:
    """A ``transformers`` tokenizer, or a bare ``tokenizers.Tokenizer`` when transformers is absent."""

    def __init__(self, tokenizer: Any, name: str):
        # transformers' and tokenizers' objects are untyped: what they answer is typed where it is read
        self._tok = tokenizer
        self.name = f"hf:{name}"
        self._bare = not hasattr(tokenizer, "apply_chat_template")

    def encode(self, text: str) -> list[int]:
        encoded = self._tok.encode(text, add_special_tokens=False)
        ids: list[int] = encoded.ids if self._bare else encoded
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tok.decode(ids)
        return text

    def prompt_tokens(self, messages: list[Message], chat: bool) -> int:
        if not chat:
            text = messages[0]["content"]
            return len(self._tok.encode(text).ids if self._bare else self._tok.encode(text))
        if not self._bare and getattr(self._tok, "chat_template", None):
            ids = self._tok.apply_chat_template(
                [{"role": m["role"], "content": m["content"]} for m in messages],
                add_generation_prompt=True,
                tokenize=True,
            )
            return len(ids["input_ids"] if isinstance(ids, Mapping) else ids)
        # no chat template to apply: the model's own counts with OpenAI's framing
        return sum(TOKENS_PER_MESSAGE + len(self.encode(m["content"])) for m in messages) + TOKENS_PER_REPLY


def local_tokenizer(model: str, *, trust_remote_code: bool = False) -> HuggingFaceTokenizer | None:
    """The tokenizer of a local model folder, or of a hub id (``org/name``) in the local cache; None
    when there is none here (nothing is downloaded)."""
    path = Path(model).expanduser()
    if path.is_dir():
        source = str(path.resolve())
    elif "/" in model and not path.exists() and not model.startswith((".", "/", "~")):
        source = model
    else:
        return None
    try:
        from transformers import AutoTokenizer
    except ImportError:
        return _bare_tokenizer(path) if path.is_dir() else None
    try:
        return HuggingFaceTokenizer(
            AutoTokenizer.from_pretrained(source, local_files_only=True, trust_remote_code=trust_remote_code), model
        )
    except Exception as exc:  # transformers raises OSError, ValueError, KeyError ... for what it cannot load
        log.info("no local tokenizer for %s (%s); counting with tiktoken", model, exc)
        return None


def _bare_tokenizer(folder: Path) -> HuggingFaceTokenizer | None:
    file = folder / "tokenizer.json"
    if not file.is_file():
        return None
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    return HuggingFaceTokenizer(Tokenizer.from_file(str(file)), str(folder))


class ServerTokenizer:
    """A vLLM server's tokenizer through its ``/tokenize`` and ``/detokenize`` endpoints (they sit
    beside ``/v1``, at the server's root)."""

    def __init__(self, root: str, model: str, *, timeout: float = 30.0):
        self.root = root.rstrip("/")
        self.model = model
        self.name = f"server:{model}"
        self.timeout = timeout

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.root}{path}",
            data=json.dumps({"model": self.model, **body}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def encode(self, text: str) -> list[int]:
        tokens: list[int] = self._post("/tokenize", {"prompt": text, "add_special_tokens": False})["tokens"]
        return tokens

    def decode(self, ids: list[int]) -> str:
        text: str = self._post("/detokenize", {"tokens": ids})["prompt"]
        return text

    def prompt_tokens(self, messages: list[Message], chat: bool) -> int:
        if chat:
            body = {
                "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
                "add_generation_prompt": True,
            }
        else:
            body = {"prompt": messages[0]["content"], "add_special_tokens": True}
        count: int = self._post("/tokenize", body)["count"]
        return count

    def available(self) -> bool:
        """Whether the server answers ``/tokenize`` (vLLM does; OpenAI and most proxies do not)."""
        try:
            self.encode("x")
            return True
        except (OSError, KeyError, ValueError):  # urllib's HTTPError and URLError are OSErrors
            return False
