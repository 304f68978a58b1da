"""Offline batch generation with vLLM (``pip install 'nl2fix[vllm]'``; needs a GPU).

Requests are generated in batches, ``n`` samples per prompt through ``SamplingParams``; chat and
edit styles go through the model's chat template (``LLM.chat``), the completion style through
``LLM.generate``. vLLM is imported only when this backend is chosen.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from nl2fix.backends import Choice, Request, split_evenly
from nl2fix.errors import Nl2FixError
from nl2fix.models import ModelStyle

BATCH = 64
"""Requests per ``generate`` call: answers are stored after each batch."""


class VLLMBackend:
    name = "vllm"
    conversational = True

    def __init__(self, model: str, *, seed: int = 0, batch: int = BATCH, **engine_options):
        try:
            from vllm import LLM, SamplingParams
        except ImportError as exc:
            raise Nl2FixError("the vllm backend needs vLLM installed", "pip install 'nl2fix[vllm]' (on a machine with a GPU)") from exc
        self._params = SamplingParams
        self._llm = LLM(model=model, seed=seed, **engine_options)
        self.seed = seed
        self.batch = batch

    def close(self) -> None:
        pass

    def _sampling(self, request: Request):
        return self._params(n=request.n, temperature=request.temperature, max_tokens=request.max_tokens)

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        for start in range(0, len(requests), self.batch):
            batch = requests[start : start + self.batch]
            chats = [r for r in batch if r.style is not ModelStyle.COMPLETION]
            texts = [r for r in batch if r.style is ModelStyle.COMPLETION]
            outputs = []
            if chats:
                conversations = [[{"role": m["role"], "content": m["content"]} for m in r.messages] for r in chats]
                outputs += zip(chats, self._llm.chat(conversations, [self._sampling(r) for r in chats], use_tqdm=False))
            if texts:
                prompts = [r.messages[0]["content"] for r in texts]
                outputs += zip(texts, self._llm.generate(prompts, [self._sampling(r) for r in texts], use_tqdm=False))
            for request, output in outputs:
                completions = list(output.outputs)
                prompt_each = split_evenly(len(output.prompt_token_ids or []), len(completions))
                yield request, [
                    Choice(c.text, c.finish_reason, p, len(c.token_ids)) for c, p in zip(completions, prompt_each)
                ]
