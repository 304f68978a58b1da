"""How the engines start a runner JVM: ``java @<tmp>/java.<pid>.args`` (``runner.jvm_command``), so that its
command line, which the project's code can read unchecked in ``/proc/self/cmdline``, names neither the
runner nor its folder; the file is written by a shell inside the sandbox and deleted by the runner before
any job. The red-team side (a job reading the command line under bubblewrap and docker) is
``test_redteam_found5.py``'s ``test_the_jvm_s_command_line_names_nothing_of_nl2fix``."""

from __future__ import annotations

import pytest

from defects4j_adapter.jvm import runner
from defects4j_adapter.sandbox.base import Limits, Mounts
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.processes import run_command


@pytest.mark.slow
def test_the_command_line_is_an_argfile_the_runner_deletes_before_any_job(nl2fix_cache, tmp_path):
    box = make_sandbox("none")  # its temporary folder is a host folder: what is left there can be seen
    runner_dir = runner.runner_classes(nl2fix_cache)
    argv = runner.jvm_command(
        runner_dir, memory_mb=128, tmp_dir=str(tmp_path), mode=["serve"], java=box.test_java(), confined=False
    )
    assert argv[-1] == '"serve"'
    result = box.run(argv, Mounts(read_only=(runner_dir,)), Limits(wall_seconds=120), input="")
    assert "NL2FIX\tREADY" in result.stdout, result.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_argfile_gives_the_jvm_each_option_as_it_was(tmp_path):
    # spaces, quotes and backslashes reach the JVM as one option each, read back through the JDK's own reader
    odd = 'a b "c" \\d'
    argv = runner._through_argfile(["java", f"-Dodd={odd}", "-XshowSettings:properties", "-version"], str(tmp_path))
    shown = run_command(argv, timeout=120).stderr
    assert f"    odd = {odd}\n" in shown, shown[-2000:]


@pytest.mark.slow
def test_test_jvms_run_the_quick_compiler_and_a_whole_run_the_optimising_tier_too(nl2fix_cache, tmp_path):
    # warm JVMs' jobs load each candidate's classes anew: the optimising tier costs more than it saves there
    runner_dir = runner.runner_classes(nl2fix_cache)
    common = dict(memory_mb=128, tmp_dir=str(tmp_path), mode=["serve"], argfile=False, confined=False)
    quick = runner.jvm_command(runner_dir, **common)
    full = runner.jvm_command(runner_dir, full_jit=True, **common)
    assert "-XX:TieredStopAtLevel=1" in quick and not any(a.startswith("-XX:Tier4") for a in quick)
    assert "-XX:TieredStopAtLevel=1" not in full and "-XX:Tier4InvocationThreshold=50000" in full
