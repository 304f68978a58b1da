"""A pool of worker threads taking tasks by priority: the local executor's, and a Ray task's own
for the candidates of its bug."""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable


class WorkPool:
    """Worker threads taking tasks by priority (earliest bug first); errors are kept, not lost.

    ``before_stop`` runs while the workers still live: processes they started with
    ``--die-with-parent`` (warm JVMs) would otherwise be killed with the thread that started
    them, uncounted, instead of being closed."""

    def __init__(self, workers: int, before_stop: Callable[[], None]):
        self.before_stop = before_stop
        self.tasks: queue.PriorityQueue = queue.PriorityQueue()
        self.seq = itertools.count()
        self.pending = 0
        self.cv = threading.Condition()
        self.failures: list[BaseException] = []
        self.stopping = False
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(max(1, workers))]

    def submit(self, priority: tuple, fn: Callable[[], None]) -> None:
        with self.cv:
            self.pending += 1
        self.tasks.put((priority, next(self.seq), fn))

    def _loop(self) -> None:
        while True:
            _, _, fn = self.tasks.get()
            if fn is None:
                return
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
            for _ in self.threads:
                self.tasks.put(((float("inf"),), next(self.seq), None))
        if self.failures:
            raise self.failures[0]
