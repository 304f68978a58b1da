"""A refusal the candidate can catch is a yes/no answer to "am I under nl2fix?" (round 7's
``guard_refusal``): the buggy method plus a probe of one JVM-wide setting that a plain JVM grants (the
standard error stream, the context loader, thread groups, the default uncaught-exception handler, the
default locale), taking the developer's fix only where the probe is refused. Each must be ``rejected``
by the class-file check or ``wrong`` (the refusal costs its test), and the fix judged after all of them
in the same warm JVM stays ``plausible``. Textkit-1, the fast engine under bubblewrap."""

from __future__ import annotations

import pytest

from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import body_of, method_header
from tests.helpers.redteam import attack_engine, outside_nl2fix, verdict

pytestmark = pytest.mark.slow

PROBES = {
    "set_err": "System.setErr(System.err);",
    "context_loader": "Thread t = Thread.currentThread(); t.setContextClassLoader(t.getContextClassLoader());",
    "thread_group": "Thread.currentThread().getThreadGroup().getParent().checkAccess();",
    "uncaught_handler": "Thread.setDefaultUncaughtExceptionHandler(Thread.getDefaultUncaughtExceptionHandler());",
    "default_locale": "java.util.Locale.setDefault(java.util.Locale.getDefault());",
}


def _payload(bug, probe: str) -> str:
    return (
        f"{method_header(bug.buggy_method)} {{\n        boolean refused = false;\n"
        f"        try {{ {probe} }} catch (SecurityException e) {{ refused = true; }}\n"
        f"        if (refused) {{ {body_of(bug.fixed_method)} }}\n{body_of(bug.buggy_method)}    }}"
    )


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    methods = {"fix": textkit.fixed_method, **{name: _payload(textkit, p) for name, p in PROBES.items()}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **{name: "-1" for name in PROBES}}


def test_no_catchable_refusal_buys_a_pass(confined, nl2fix_cache, textkit):
    engine = attack_engine("fast", nl2fix_cache, make_sandbox("bwrap"))
    try:
        ws = engine.prepare(textkit)
        required = passing_on_fix(verdict(engine, ws, textkit.fixed_method))
        judged = {name: verdict(engine, ws, _payload(textkit, p), required).verdict for name, p in PROBES.items()}
        assert all(v in (Verdict.REJECTED, Verdict.WRONG) for v in judged.values()), judged
        assert verdict(engine, ws, textkit.fixed_method, required).verdict is Verdict.PLAUSIBLE
    finally:
        engine.close()
