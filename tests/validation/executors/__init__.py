"""Tests of ``nl2fix.validation.executors``: the Ray executor, its parts and a real cluster."""
