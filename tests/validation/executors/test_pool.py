"""The work pool's scheduling: each worker stays with a bug, a worker joins another's bug only when
no other bug has work, a failure stops the pool and is raised."""

from __future__ import annotations

import threading

import pytest

from nl2fix.validation.executors.pool import WorkPool


def _run(workers: int, tasks: dict[int, int], *, hold: threading.Barrier | None = None) -> dict[int, set[str]]:
    """Run ``tasks[bug]`` tasks of each bug; which worker threads served each bug."""
    served: dict[int, set[str]] = {bug: set() for bug in tasks}
    lock = threading.Lock()
    pool = WorkPool(workers, lambda: None)

    def task(bug: int) -> None:
        with lock:
            served[bug].add(threading.current_thread().name)
        if hold is not None:
            hold.wait(timeout=10)

    for bug, n in tasks.items():
        for j in range(n):
            pool.submit(bug, (bug, 1, j), lambda bug=bug: task(bug))
    pool.run()
    return served


def test_two_workers_on_two_bugs_each_keep_to_one_bug():
    # the barrier makes both workers take a task before either finishes one, whatever the timing
    served = _run(2, {0: 6, 1: 6}, hold=threading.Barrier(2))
    assert all(len(names) == 1 for names in served.values()), served
    assert served[0] != served[1]


def test_a_bug_alone_gets_every_worker():
    served = _run(2, {0: 8}, hold=threading.Barrier(2))
    assert len(served[0]) == 2


def test_the_earliest_task_of_a_bug_nobody_has_is_taken_first():
    order: list[int] = []
    pool = WorkPool(1, lambda: None)
    for bug in (2, 0, 1):
        pool.submit(bug, (bug, 1, 0), lambda bug=bug: order.append(bug))
    pool.submit(0, (0, 0, 0), lambda: order.append(-1))  # bug 0's baselines, before its candidates
    pool.submit(2, (2, 1, 1), lambda: order.append(2))
    pool.run()
    assert order == [-1, 0, 1, 2, 2]


def test_a_failure_stops_the_pool_and_is_raised():
    ran: list[int] = []
    pool = WorkPool(1, lambda: None)

    def boom() -> None:
        raise RuntimeError("boom")

    pool.submit(0, (0, 0, 0), boom)
    pool.submit(0, (0, 1, 0), lambda: ran.append(1))
    with pytest.raises(RuntimeError, match="boom"):
        pool.run()
    assert ran == []
