"""Tests of ``nl2fix.validation``: verdict rules and the validation stage."""
