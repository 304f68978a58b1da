"""What the validation tests share: the mini benchmark (a real Java project in the bundled
benchmark's format, compiled with javac), hostile candidates, engines with short limits. Their
pytest fixtures (``nl2fix_cache``, ``confined``, ``minibench``) are in ``tests/conftest.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Strategy
from nl2fix.dataset.load import load_dataset
from nl2fix.java_source.splice import method_header
from nl2fix.java_source.text import candidate_hash
from nl2fix.store.records import RunConfig, SampleRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.options import ValidationOptions
from tests.helpers.paths import FIXTURES

MINIBENCH = FIXTURES / "minibench"
MINIBENCH_JSON = MINIBENCH / "nl2fix_dataset.json"
HOSTILE = FIXTURES / "hostile"
REDTEAM = FIXTURES / "redteam"
ATTACKS = sorted(p.stem for p in REDTEAM.glob("*.body"))
"""The red-team corpus: candidates that try to buy a ``plausible`` (``fixtures/redteam/README.md``)."""
TEST_TIMEOUT = 2.0
CANDIDATE_TIMEOUT = 20.0
SANDBOXES = [pytest.param("bwrap", marks=pytest.mark.sandbox), pytest.param("docker", marks=pytest.mark.docker)]
"""Parametrize a confinement test with these: it runs under bubblewrap and in a container."""
EVERY_SANDBOX = os.environ.get("NL2FIX_EVERY_SANDBOX", "") == "1"
IN_JVM_SANDBOXES = SANDBOXES if EVERY_SANDBOX else SANDBOXES[:1]
"""Parametrize a test of a wall inside the JVM with these (the class-file check, the runner and its report,
the canary, the probe, what a reader is shown): the same code judges in either sandbox, so bubblewrap
alone keeps the suite near twenty minutes; ``NL2FIX_EVERY_SANDBOX=1`` adds the container (the full matrix,
run before a stop). Walls the operating system keeps (memory, files, the command line, the network)
always run in both."""


def engine_options(cache: Path, **overrides) -> EngineOptions:
    """The engine options of the mini benchmark's short limits; ``overrides`` are options
    (``sandbox``, ``projects_dir``) or settings (``workers``, ``test_timeout``...)."""
    options = dict(
        sandbox=overrides.pop("sandbox", None) or make_sandbox(True),
        cache_dir=cache,
        projects_dir=MINIBENCH / "projects",
    )
    options.update({k: overrides.pop(k) for k in ("cache_dir", "projects_dir") if k in overrides})
    settings = EngineSettings(
        **{
            **dict(test_timeout=TEST_TIMEOUT, candidate_timeout=CANDIDATE_TIMEOUT, memory_mb=256, workers=2),
            **overrides,
        }
    )
    return EngineOptions(settings=settings, **options)


def validation_options(
    *, workers: int = 2, test_timeout: float = TEST_TIMEOUT, candidate_timeout: float = CANDIDATE_TIMEOUT, **options
) -> ValidationOptions:
    """What the command line would give a validation of the mini benchmark with its short limits."""
    return ValidationOptions(
        settings=EngineSettings(workers=workers, test_timeout=test_timeout, candidate_timeout=candidate_timeout),
        **options,
    )


def hostile(name: str, bug, **subs: str) -> str:
    """A hostile candidate for ``bug``: its buggy method's declaration over a hostile body
    (``fixtures/hostile/<name>.body``), with the body's ``@KEY@`` placeholders filled in."""
    body = (HOSTILE / f"{name}.body").read_text(encoding="utf-8")
    for key, value in {"SEED": "7", "SLEEP": "4711", **subs}.items():
        body = body.replace(f"@{key}@", value)
    assert "@" not in body, f"unfilled placeholder in {name}"
    return f"{method_header(bug.buggy_method)} {{\n{body}    }}"


def body_of(method: str) -> str:
    """What lies between a method's outer braces."""
    return method[method.index("{") + 1 : method.rindex("}")]


def red_team_attack(name: str, bug, corpus: Path = REDTEAM, **extra: str) -> str:
    """Red-team attack ``name`` of ``corpus`` spliced under ``bug``'s own declaration, its
    ``@TRIGGER@`` (the first trigger test), ``@FIX@`` and ``@BUGGY@`` (the fixed and the buggy
    method's bodies) and any ``extra`` placeholder filled in."""
    body = (corpus / f"{name}.body").read_text(encoding="utf-8")
    subs = {
        "TRIGGER": bug.trigger_tests[0],
        "FIX": body_of(bug.fixed_method),
        "BUGGY": body_of(bug.buggy_method),
        **extra,
    }
    body = re.sub(r"@([A-Z]+)@", lambda m: subs[m.group(1)], body)
    return f"{method_header(bug.buggy_method)} {{\n{body}    }}"


def make_run(run_dir: Path, dataset_json: Path, candidates: dict[str, list[str]]) -> RunStore:
    """A run store holding the given candidate methods as samples (what sampling would leave)."""
    store = RunStore(run_dir, create=True)
    store.set_config(
        RunConfig(
            dataset=str(dataset_json),
            backend="replay",
            model="fixture",
            strategy=Strategy.ZERO_SHOT,
            temperature=0.8,
            n=max(map(len, candidates.values())),
        )
    )
    dataset = load_dataset(dataset_json)
    store.add_bugs(dataset.bugs[b] for b in candidates)
    for bug_id, codes in candidates.items():
        for i, code in enumerate(codes):
            store.add_sample(
                SampleRecord(bug_id=bug_id, index=i, response=code, candidate_hash=candidate_hash(code)), code
            )
    return store
