"""Tests of ``nl2fix.java_source``: Java text and comments."""
