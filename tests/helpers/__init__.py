"""Shared test helpers: fixture projects, fake model servers, and checks on the source tree."""
