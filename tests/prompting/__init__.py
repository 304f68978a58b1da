"""Tests of ``nl2fix.prompting``: prompts per strategy and style, the one-shot example."""
