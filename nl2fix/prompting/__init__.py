"""Prompting: the text a model is asked with, fitted to its context window.

``prompt`` builds each strategy's prompt (zero-shot, one-shot, title-only, reasoning) in the
model's style from the templates in ``prompts/``; ``one_shot`` chooses the example bug;
``conversation_prompt`` builds the rounds of ``--strategy conversation`` from earlier candidates
and their test results.

May import nl2fix.core, nl2fix.java_source, nl2fix.store and prompts.
"""
