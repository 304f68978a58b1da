"""Red team round 6 (issue 30's "done when", by an engineer who did not write the walls): the buggy method
plus a payload that is the developer's fix only inside a JVM nl2fix runs, told apart without system
properties, environment variables or a read under ``/proc`` (all refused since round 5), on the example
benchmark's Textkit-1 (``Strings.indexOfDifference``), through the real fast and rebuild engines. Payloads
and what each does: ``fixtures/redteam/found6/`` (its README). The tests marked ``xfail(strict=True)``
assert what must hold and fail today: flip them when the wall is built. The others show that the attack
is real (each payload is the bug where nl2fix does not run it). Run: ``python -m pytest -q -p
no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found6.py``
"""

from __future__ import annotations

import pytest

from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import EXAMPLES
from tests.helpers.redteam import attack_engine as _engine
from tests.helpers.redteam import outside_nl2fix as _outside_nl2fix
from tests.helpers.redteam import verdict as _verdict

pytestmark = pytest.mark.slow
FOUND6 = REDTEAM / "found6"
PAYLOADS = ["loader_name", "proc_links", "tmp_quota"]


@pytest.fixture(scope="module")
def textkit():
    return load_dataset(EXAMPLES / "nl2fix_dataset.json").bugs["Textkit-1"]


@pytest.fixture(scope="module")
def box(confined):
    # bubblewrap only: round 6 found every payload alike under docker and on the rebuild engine (the
    # folder's README); kept to one sandbox and the fast engine so the open holes cost the suite little
    return make_sandbox("bwrap")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_outside_nl2fix_the_payload_is_the_bug(payload, tmp_path, textkit):
    # the fix answers 2, the buggy method -1: compiled and run by a plain JVM (the user's build, production),
    # each payload is the buggy method
    assert _outside_nl2fix(tmp_path / "fix", textkit, textkit.fixed_method) == "2"
    assert _outside_nl2fix(tmp_path / "payload", textkit, red_team_attack(payload, textkit, FOUND6)) == "-1"


@pytest.mark.xfail(
    strict=True,
    reason="round 6: what a job can tell of nl2fix's JVM without properties or /proc reads: the job loader's "
    "name in a ClassCastException's message, /proc links resolved without checkRead, the scratch tmpfs's size",
)
@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_method_right_only_under_nl2fix_is_not_plausible(payload, nl2fix_cache, box, textkit):
    kind = "fast"
    engine = _engine(kind, nl2fix_cache, box)
    try:
        ws = engine.prepare(textkit)
        required = passing_on_fix(_verdict(engine, ws, ws.bug.fixed_method))
        record = _verdict(engine, ws, red_team_attack(payload, ws.bug, FOUND6), required)
        print(kind, box.name, payload, record.verdict.value, record.detail[:300])
        assert record.verdict is not Verdict.PLAUSIBLE, record
    finally:
        engine.close()
