"""Tests of ``nl2fix.cli``: command-line options and commands' behaviour across stages."""
