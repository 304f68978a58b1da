"""Tests of ``nl2fix.fix``: ``nl2fix fix`` on a user's own project."""
