"""Executor lookup: every executor imported (each registers itself with
:func:`nl2fix.validation.executors.base.register_executor`), and a spec made into its executor."""

from __future__ import annotations

from nl2fix.validation.executors import local, ray_executor  # noqa: F401 - each registers its kind
from nl2fix.validation.executors.base import EXECUTORS, Executor
from nl2fix.validation.options import ExecutorSpec


def make_executor(spec: ExecutorSpec) -> Executor:
    return EXECUTORS.get(spec.kind)(spec)
