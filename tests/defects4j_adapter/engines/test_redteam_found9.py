"""Red team round 9 (issue 30's "done when", by an engineer who did not write the walls), on the example
benchmark's Textkit-1 (``Strings.indexOfDifference``), through the real fast engine under bubblewrap (one
engine and one warm JVM for the module; ``fixtures/redteam/found9/README.md`` has the figures for the other
engines, sandboxes, users and ``--engine defects4j``). Payloads and what each does: ``fixtures/redteam/found9/``.

Five more ways to be the developer's fix only where nl2fix runs the method and the buggy method everywhere
else. Each tell holds in the fresh confirming JVM as in the warm one (they are the sandbox's and the launch's,
not a JVM's history), so the confirmation does not stop them, and the behaviour probe, which runs in a JVM of
nl2fix's too, labels them ``same-behaviour``:

- ``heap_by_experiment``: the heap's size by experiment, which the threat model lists as still observable
  (``Runtime#maxMemory`` is refused; an array too big for nl2fix's ``-Xmx`` is not): every sandbox;
- ``var_lib``: one level below bubblewrap's root, whose top-level folders round 8's fix made but left empty;
- ``dev_console``: bubblewrap's minimal ``/dev`` (and docker's, without a terminal) has no ``/dev/console``;
- ``working_dir``: ``File#getAbsolutePath`` of ``""`` is ``user.dir``, the property the class-file check
  refuses: ``/workspace`` under nl2fix;
- ``read_only_checkout``: the project's folders, read-only to every job, where a user's checkout is not.

And the behaviour label bought (issue 34): ``overfit_by_heap``, an overfitting method (plausible, and
``diverges`` without the tell: ``found5/probe_aware/control.body``) that runs the fix where the heap is
nl2fix's, is ``same-behaviour``.

Closed (the lead's limits' wall, ``fixtures/redteam/limits/``): a test during which the JVM ran out of heap
fails, caught or not, so ``heap_by_experiment`` is ``wrong``; and the probe counts a call that ran out as
throwing ``OutOfMemoryError``, so ``overfit_by_heap`` (now trying the heap only on an input no test gives, as
its tests would fail otherwise) is ``diverges``. ``working_dir`` and ``read_only_checkout`` are ``rejected``:
the class-file check refuses making a relative path absolute and asking a file's permissions. ``var_lib`` and
``dev_console`` are ``wrong``: bubblewrap shows the machine's own ``/var`` and ``/dev`` read-only (masked where
they hold other users' and daemons' live files; no device opened), docker binds the machine's console.
``test_outside_nl2fix_each_payload_is_the_bug`` shows each payload is the bug in a plain JVM.

Run: ``python -m pytest -q -p no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found9.py``
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.validation.behaviour import label
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND9 = REDTEAM / "found9"
TELLS = ("heap_by_experiment", "var_lib", "dev_console", "working_dir", "read_only_checkout")
"""Each was ``plausible`` on fast/bwrap as found (the README: the rebuild engine, docker, the ordinary user)."""
OVERFIT = "overfit_by_heap"
"""Plausible anywhere; the fix where ``heap_by_experiment`` tells nl2fix's JVM, an overfitting method elsewhere."""


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # compiled and run by a plain JVM on this machine (its default heap, a quarter of the machine's memory, room
    # for the 1.25 GiB array on any machine of 6 GiB or more; the machine's /var/lib and /dev/console; started in
    # the project copy's folder, whose src its owner can write), each tell is the bug, and the overfitting method
    # is not the fix: "abc" against "abd " is 2 for the fix, 3 for the buggy and the overfitting method (which
    # the tests do not tell apart: both differ from the fix only for strings of different lengths). All of them
    # in one javac and one JVM
    names = (*TELLS, OVERFIT)
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND9) for p in names}}
    assert outside_nl2fix(tmp_path, textkit, methods, '"abc", "abd "') == {"fix": "2", **dict.fromkeys(names, "3")}


@pytest.mark.parametrize("payload", TELLS)
def test_a_method_right_only_under_nl2fix_is_not_plausible(guarded, textkit, payload):
    record = verdict(*guarded[:2], red_team_attack(payload, textkit, FOUND9), guarded[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is not Verdict.PLAUSIBLE, record


@pytest.fixture(scope="module")
def overfit(guarded, textkit):
    """``overfit_by_heap``'s code, judged ``plausible`` (it is, anywhere: the label is what it buys)."""
    engine, ws, required = guarded
    code = red_team_attack(OVERFIT, textkit, FOUND9)
    assert verdict(engine, ws, code, required).verdict is Verdict.PLAUSIBLE
    return code


def test_an_overfitting_method_that_tells_nl2fix_s_jvm_does_not_get_same_behaviour(guarded, textkit, overfit):
    engine, ws, _ = guarded
    fix = textkit.fixed_method
    record = label(engine.probe(ws, fix, fix), engine.probe(ws, fix, overfit), developer_fix=True)
    print("fast bwrap", OVERFIT, record.label.value, record.first_input)
    assert record.label is Behaviour.DIVERGES, record
