"""Tests of ``nl2fix.report``: metrics, CodeBLEU, reports and comparisons."""
