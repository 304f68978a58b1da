"""Tests of ``nl2fix.sampling.backends``: replay, OpenAI-compatible servers, vLLM."""
