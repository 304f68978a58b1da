"""Sampling backends: the models (or stand-ins for one) that answer prompts.

:mod:`~nl2fix.sampling.backends.base` holds the interface (requests, choices, the protocol) and the
registry; each backend module registers itself with ``@backend(name)``;
:mod:`~nl2fix.sampling.backends.providers` imports them all and creates the one a run names. Heavy
third-party packages (openai, vllm, ray) are imported only when a backend is created or called.
May import nl2fix.core, nl2fix.store, nl2fix.java_source and nl2fix.prompting.
"""
