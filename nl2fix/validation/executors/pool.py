"""A pool of worker threads taking tasks by group and priority: the local executor's (a group is a
bug), and a Ray task's own for the candidates of its bug."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable, Hashable
from typing import Any


class WorkPool:
    """Worker threads taking tasks of their own group first (a bug: its warm JVM, its compiler,
    its test classes warm), then of the earliest group no other worker has, then of the earliest
    group at all; within a group by priority. Errors are kept, not lost.

    Each worker stays with one bug while it has work, so a bug warms one JVM rather than one per
    worker (a warm JVM's start and its first, cold compile cost about 1 CPU-s); a worker joins a
    bug another worker has only when no other bug has work left (one bug alone, the last bugs).

    ``before_stop`` runs while the workers still live: processes they started with
    ``--die-with-parent`` (warm JVMs) would otherwise be killed with the thread that started
    them, uncounted, instead of being closed."""

    def __init__(self, workers: int, before_stop: Callable[[], None]):
        self.before_stop = before_stop
        self.queues: dict[Any, list[tuple[tuple[int, ...], int, Callable[[], None]]]] = {}
        self.seq = itertools.count()
        self.pending = 0
        self.cv = threading.Condition()
        self.failures: list[BaseException] = []
        self.stopping = False
        self.closed = False
        self.on: dict[int, Any] = {}
        """The group each worker is with, by worker index."""
        self.threads = [threading.Thread(target=self._loop, args=(i,), daemon=True) for i in range(max(1, workers))]

    def submit(self, group: Hashable, priority: tuple[int, ...], fn: Callable[[], None]) -> None:
        with self.cv:
            self.pending += 1
            heapq.heappush(self.queues.setdefault(group, []), (priority, next(self.seq), fn))
            self.cv.notify_all()

    def _group_for(self, worker: int) -> Any:
        """The group ``worker`` takes its next task from; ``None`` when no group has work. Called
        with the lock held."""
        waiting = [g for g, q in self.queues.items() if q]
        if not waiting:
            return None
        mine = self.on.get(worker)
        if mine in waiting:
            return mine
        taken = {g for w, g in self.on.items() if w != worker}
        free = [g for g in waiting if g not in taken]
        return min(free or waiting, key=lambda g: self.queues[g][0][:2])

    def _loop(self, worker: int) -> None:
        while True:
            with self.cv:
                while not self.closed and (group := self._group_for(worker)) is None:
                    self.cv.wait()
                if self.closed:
                    return
                _, _, fn = heapq.heappop(self.queues[group])
                self.on[worker] = group
            try:
                if not self.stopping:
                    fn()
            except BaseException as exc:
                with self.cv:
                    self.failures.append(exc)
                    self.stopping = True
            finally:
                with self.cv:
                    self.pending -= 1
                    self.cv.notify_all()

    def run(self) -> None:
        for t in self.threads:
            t.start()
        try:
            with self.cv:
                while self.pending and not self.failures:
                    self.cv.wait(timeout=0.5)
        except BaseException:
            self.stopping = True
            raise
        finally:
            self.stopping = self.stopping or bool(self.failures)
            self.before_stop()
            with self.cv:
                self.closed = True
                self.cv.notify_all()
        if self.failures:
            raise self.failures[0]
