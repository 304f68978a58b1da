"""Tests of ``nl2fix.dataset``: loading, building, diffing, issue trackers, the bundled and the real datasets."""
