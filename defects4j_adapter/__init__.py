"""Workspaces, splicing, and the compile-and-test engines that turn a candidate into a verdict."""
