"""Tests of ``nl2fix.store``: the run store and run directories."""
