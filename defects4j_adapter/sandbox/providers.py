"""Sandbox lookup: every implementation imported (each registers itself with
:func:`defects4j_adapter.sandbox.base.register_sandbox`), and a spec made into its sandbox."""

from __future__ import annotations

from defects4j_adapter.sandbox import bwrap, docker, unconfined  # noqa: F401 - each registers its kind
from defects4j_adapter.sandbox.base import SANDBOXES, Sandbox, SandboxKind, SandboxSpec


def make_sandbox(spec: SandboxSpec | SandboxKind | str | bool = True) -> Sandbox:
    """The sandbox ``spec`` asks for (a bool: True for bwrap, False for none). Bubblewrap becomes
    the container's own confinement inside nl2fix's docker image; ``none`` says loudly what it
    gives up."""
    spec = SandboxSpec.of(spec)
    return SANDBOXES.get(spec.kind)(spec, False)  # not quiet: made here, not remade from a pickle
