"""Red team round 6 (issue 30's "done when", by an engineer who did not write the walls): the buggy method
plus a payload that is the developer's fix only inside a JVM nl2fix runs, told apart without system
properties, environment variables or a read under ``/proc`` (all refused since round 5), on the example
benchmark's Textkit-1 (``Strings.indexOfDifference``), through the real fast and rebuild engines. Payloads
and what each does: ``fixtures/redteam/found6/`` (its README), with two more found while closing them
(``security_manager``, ``refused_read``). Each is now not ``plausible``, and the developer's fix judged after
all of them in the same warm JVM still is; ``test_outside_nl2fix_*`` shows each attack is real (the payload
is the bug where nl2fix does not run it). Run: ``python -m pytest -q -p no:cacheprovider -s
tests/defects4j_adapter/engines/test_redteam_found6.py``
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine as _engine
from tests.helpers.redteam import outside_nl2fix
from tests.helpers.redteam import verdict as _verdict

pytestmark = pytest.mark.slow
FOUND6 = REDTEAM / "found6"
# what each must be now: the loader is named as the JDK's own ("app"), a refusal costs the test even when
# caught, and the class-file check refuses asking for the security manager, the file systems' sizes (round
# 7: the mount table is the same family) and where a link leads (File#getCanonicalPath: round 8's own_pid;
# the runner refused proc_links' read of a link under /proc before the check did)
EXPECTED = {
    "loader_name": Verdict.WRONG,
    "proc_links": Verdict.REJECTED,
    "tmp_quota": Verdict.REJECTED,
    "refused_read": Verdict.WRONG,
    "security_manager": Verdict.REJECTED,
}
PAYLOADS = list(EXPECTED)


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # the fix answers 2, the buggy method -1: compiled and run by a plain JVM (the user's build, production),
    # each payload is the buggy method
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND6) for p in PAYLOADS}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **{p: "-1" for p in PAYLOADS}}


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_a_method_right_only_under_nl2fix_is_not_plausible(kind, nl2fix_cache, box, textkit):
    # every payload in one warm JVM (fast), then the fix: a refusal the candidate caught must not reach the
    # next job, nor the names the runner shows change what the project's tests see
    engine = _engine(kind, nl2fix_cache, box)
    try:
        ws = engine.prepare(textkit)
        required = passing_on_fix(_verdict(engine, ws, ws.bug.fixed_method))
        seen = {}
        for payload in PAYLOADS:
            record = _verdict(engine, ws, red_team_attack(payload, ws.bug, FOUND6), required)
            print(kind, box.name, payload, record.verdict.value, record.detail[:300])
            seen[payload] = record.verdict
        assert seen == EXPECTED
        if kind == "fast":
            # the warm JVM that judged them: the fix is judged alike after (the rebuild engine's JVMs are fresh:
            # judging the fix again there is a rebuild of half a minute that proves nothing)
            assert _verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    finally:
        engine.close()
