"""nl2fix: natural-language issue + buggy Java method -> ranked, test-validated fixes."""

__version__ = "0.1.0"
