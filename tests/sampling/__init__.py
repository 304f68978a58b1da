"""Tests of ``nl2fix.sampling``: extraction, mutation, feedback, conversations."""
