import sys
import time

import pytest

from nl2fix.core.processes import run_command, spawn, stop

BURN = "import time\nwhile time.process_time() < 0.5: pass"
"""A child that spends about half a CPU-second, then exits."""


def test_result_is_typed_and_measures_cpu():
    res = run_command([sys.executable, "-c", "s=0\nfor i in range(3_000_000): s+=i\nprint(s)"], timeout=60)
    assert res.ok and res.returncode == 0
    assert res.stdout.strip() == str(sum(range(3_000_000)))
    assert res.cpu_seconds > 0.05
    assert res.wall_seconds >= res.cpu_seconds * 0.5


def test_timeout_kills_the_whole_process_group():
    code = "import subprocess,time; subprocess.Popen(['sleep','30']); time.sleep(30)"
    res = run_command([sys.executable, "-c", code], timeout=1)
    assert res.timed_out and not res.ok
    assert res.wall_seconds < 10


def test_a_call_killed_at_its_timeout_counts_the_cpu_of_the_descendants_killed_with_it():
    # a shell that waits on a spinning grandchild (a build tool's forked test JVM): killed together, the
    # grandchild is reaped by no one who reports it, and wait4 alone said the call cost nothing
    spin = f"{sys.executable} -c 'while True: pass'"
    # 3 s: on a machine whose two cores run the suite's JVMs too, the spinner gets a third of a core at times
    res = run_command(["sh", "-c", f"{spin} & wait"], timeout=3)
    assert res.timed_out
    assert 0.7 <= res.cpu_seconds <= res.wall_seconds + 0.5, res


def test_missing_program_is_a_result_not_an_exception():
    res = run_command(["/no/such/program"], timeout=5)
    assert res.returncode == 127 and not res.ok


def test_output_is_clipped():
    res = run_command([sys.executable, "-c", "print('x' * 5000)"], timeout=10, output_limit=100)
    assert res.truncated and len(res.stdout) < 200


def _reap_by_poll(proc) -> None:
    deadline = time.monotonic() + 60
    while proc.poll() is None:
        assert time.monotonic() < deadline, "the child did not exit"
        time.sleep(0.02)


def _reap_by_wait(proc) -> None:
    proc.wait(timeout=60)


@pytest.mark.parametrize("reap", [_reap_by_poll, _reap_by_wait])
def test_a_spawned_childs_cpu_time_is_counted_whichever_call_reaps_it(reap):
    """poll() once reaped through os.waitpid and lost the child's CPU time (WarmJvm.alive polls)."""
    proc = spawn([sys.executable, "-c", BURN])
    proc.stdin.close()
    reap(proc)
    assert proc.returncode == 0
    assert 0.45 <= stop(proc) < 5
