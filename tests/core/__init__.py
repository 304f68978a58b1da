"""Tests of ``nl2fix.core``: bug ids, the subprocess helper."""
