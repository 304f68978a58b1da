"""Red team round 10 (by an engineer who did not write the walls) against ec4f23d, where bubblewrap's root became
the machine's own, read-only, on the example benchmark's Textkit-1 (``Strings.indexOfDifference``) through the
real fast engine under bubblewrap (one engine and one warm JVM for the module; ``fixtures/redteam/found10/README.md``
has the figures for the other engines, sandboxes and users, and what was tried and found nothing).

- ``dev_ptmx``: the machine's ``/dev`` is bound read-only, so nodev: ``/dev/ptmx``, which every user opens on a
  Linux machine, is there and refuses to open;
- ``dev_pts``: ``/dev/pts`` is an empty tmpfs of the job's, where every machine's devpts holds ``ptmx``;
- ``top_level_file``: the root shows the machine's top-level folders and links but none of its files (here
  ``/.dockerenv``; Ubuntu's ``/swap.img``): older than ec4f23d, and still open where ec4f23d means the listing
  to be the machine's;
- ``fix_reader``: ``/opt``, ``/srv`` and ``/var`` are the machine's, so a benchmark's ``projects/<P>/fixed`` tree kept
  there (nl2fix's wheel puts the example benchmark's in site-packages, in a venv under ``/opt`` or in ``/usr/local``;
  nl2fix's image keeps a checkout at ``/opt/nl2fix``) is read by the candidate, which sends the developer's fix
  out as its failure message: the conversation strategy's feedback hands that to the model for its next round;
- ``store_reader``: the same for a run's store (``runs/<name>/run.sqlite`` in the folder nl2fix was started in),
  which holds every bug as JSON, the developer's fixed method included;
- nl2fix's cache under ``/usr`` (``NL2FIX_CACHE_DIR=/usr/local/...``) is not masked (``masks()`` looks only under
  ``/boot``, ``/opt``, ``/srv``, ``/var``): a job lists it, and ``nl2fix check``'s store there holds the fixes.

Closed (the lead, after the round): bubblewrap's ``/dev`` is its own minimal one (a terminal instance of the job's,
``/dev/ptmx`` opening there) with every other node of the machine's bound beside it, read-only, and those any
user may open bound as they are; the root's files are the machine's, read-only; ``/opt`` and ``/srv`` are shown
empty again (where machines keep software and benchmarks); nl2fix's cache, its installed package and the example
benchmark are masked wherever they lie, ``/usr`` included; and the validation driver names the run's folder, its
dataset and projects to the sandbox as private (``SandboxSpec.private``), which bubblewrap masks where it would
show them. The readers are judged here with a benchmark and a run kept under ``/var/lib``, private as the driver
says. Defects4J's own patches (``--engine defects4j``) stay readable: the README.

Run: ``python -m pytest -q -p no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found10.py``
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.sandbox.base import Limits, Mounts, SandboxSpec
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.sampling.feedback import feedback
from nl2fix.validation.stage import private_paths
from tests.helpers.minibench import REDTEAM, make_run, red_team_attack
from tests.helpers.redteam import EXAMPLES, fix_guarded, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND10 = REDTEAM / "found10"
TELLS = ("dev_ptmx", "dev_pts", "top_level_file")
READERS = ("fix_reader", "store_reader")
FIXED_LINE = "i < shorter; i++"
"""The developer's fix of Textkit-1 (the buggy loop stops at ``shorter - 1``)."""
MACHINE_FOLDER = Path("/var/lib")
"""Where a machine keeps services' data and bubblewrap shows it (``/srv`` and ``/opt``, where the red team put the
benchmark, are shown empty since): a benchmark and a run kept there are the user's private paths, which the
validation driver names to the sandbox (``private_paths``)."""


def test_outside_nl2fix_each_tell_is_the_bug(tmp_path, textkit):
    # in a plain JVM on this machine /dev/ptmx opens (crw-rw-rw-, for any user), /dev/pts holds ptmx, and the
    # root's listing holds the machine's files (on a machine with one at its root)
    files = any(entry.is_file(follow_symlinks=False) for entry in os.scandir("/"))
    tells = [t for t in TELLS if files or t != "top_level_file"]
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND10) for p in tells}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **dict.fromkeys(tells, "-1")}


@pytest.fixture(scope="module")
def benchmark_on_the_machine():
    """A copy of the example benchmark's projects in a folder of the machine's own that bubblewrap shows, as a user
    keeps a benchmark, and a run's store there, as ``nl2fix sample`` started in that folder leaves it: removed
    after the module. Yields the folder and the private paths the validation driver names for that run."""
    if not os.access(MACHINE_FOLDER, os.W_OK):
        pytest.skip(f"{MACHINE_FOLDER} is not writable here")
    folder = Path(tempfile.mkdtemp(prefix="nl2fix-red10-", dir=MACHINE_FOLDER))
    folder.chmod(0o755)
    try:
        shutil.copytree(EXAMPLES / "projects", folder / "projects")
        with make_run(
            folder / "runs" / "example-zero-shot", EXAMPLES / "nl2fix_dataset.json", {"Textkit-1": ["x"]}
        ) as run:
            private = private_paths(run, folder / "projects")
        yield folder, private
    finally:
        shutil.rmtree(folder)


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit, benchmark_on_the_machine):
    box = make_sandbox(SandboxSpec(private=benchmark_on_the_machine[1]))
    with fix_guarded(nl2fix_cache, textkit, box) as judged:
        yield judged


def test_the_run_s_folder_and_projects_are_empty_to_a_job_and_shown_without_the_driver_s_word(benchmark_on_the_machine):
    # the readers below find nothing because the driver named these paths private, not because the folder is hidden
    folder, private = benchmark_on_the_machine
    assert {str(folder / "projects"), str(folder / "runs" / "example-zero-shot")} <= set(private)
    script = ["ls", "-A", str(folder / "projects"), str(folder / "runs" / "example-zero-shot")]
    shown = make_sandbox("bwrap").run(script, Mounts(), Limits(wall_seconds=60))
    masked = make_sandbox(SandboxSpec(private=private)).run(script, Mounts(), Limits(wall_seconds=60))
    assert "Textkit" in shown.stdout and "run.sqlite" in shown.stdout, shown
    assert masked.ok and "Textkit" not in masked.stdout and "run.sqlite" not in masked.stdout, masked


@pytest.mark.parametrize("payload", TELLS)
def test_a_method_right_only_under_nl2fix_s_root_is_not_plausible(judged, textkit, payload):
    record = verdict(*judged[:2], red_team_attack(payload, textkit, FOUND10), judged[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is not Verdict.PLAUSIBLE, record


@pytest.mark.parametrize("payload", READERS)
def test_a_candidate_cannot_read_the_developer_s_fix_from_the_machine_s_folders(judged, textkit, payload):
    code = red_team_attack(payload, textkit, FOUND10)
    record = verdict(*judged[:2], code, judged[2])
    told = feedback(record, code, textkit.start_line) or ""
    print("fast bwrap", payload, record.verdict.value, repr(told[:300]))
    assert FIXED_LINE not in told, told


def test_nl2fix_s_cache_is_empty_to_a_job_wherever_it_lies(confined, tmp_path, monkeypatch):
    # /usr is bound for every job (the system), and a cache there is nobody's system: every bug's workspace, the
    # runner and nl2fix check's store (every checked bug's fixed method) beside it
    if not os.access("/usr/local", os.W_OK):
        pytest.skip("/usr/local is not writable here")
    cache = Path(tempfile.mkdtemp(prefix="nl2fix-red10-cache-", dir="/usr/local"))
    cache.chmod(0o755)  # as nl2fix makes it (mkdir under the usual umask); mkdtemp's 0700 would hide it from root's job
    try:
        (cache / "checks").mkdir()
        monkeypatch.setenv("NL2FIX_CACHE_DIR", str(cache))
        (tmp_path / "scratch").mkdir()
        mounts = Mounts(read_only=(tmp_path,), host_scratch=tmp_path / "scratch")
        listed = make_sandbox("bwrap").run(["ls", "-A", str(cache)], mounts, Limits(wall_seconds=60))
        print("bwrap ls", cache, repr(listed.stdout), listed.stderr[-300:])
        assert listed.ok and listed.stdout.strip() == "", listed
    finally:
        shutil.rmtree(cache)
