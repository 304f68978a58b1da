"""Tests of ``ranking``: embedders, rankers, ``nl2fix rank`` and ``nl2fix show``."""
