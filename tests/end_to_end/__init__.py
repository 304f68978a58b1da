"""Whole-pipeline runs: ``nl2fix run`` on the bundled example benchmark."""
