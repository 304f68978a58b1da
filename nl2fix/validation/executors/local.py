"""The local executor: one engine and a pool of worker threads on this machine.

Each worker stays with a bug while it has work (see :class:`WorkPool`), so a bug warms one JVM.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from defects4j_adapter.engines.providers import make_engine
from defects4j_adapter.jvm import reference_java
from nl2fix.core.domain import Bug
from nl2fix.validation.bug_work import BugRun
from nl2fix.validation.executors.base import Executor, ValidationDriver, register_executor
from nl2fix.validation.executors.pool import WorkPool
from nl2fix.validation.options import ExecutorKind, ExecutorSpec, ValidationOptions

if TYPE_CHECKING:
    from nl2fix.store.records import CandidateRecord


class LocalExecutor:
    def run(self, driver: ValidationDriver, options: ValidationOptions) -> None:
        engine_options = options.engine_options(driver.projects_dir)
        eng = make_engine(options.engine, engine_options)
        try:
            driver.record_environment(reference_java.environment(eng.name, engine_options.sandbox))
            pool = WorkPool(options.settings.workers, eng.close)

            def bug_task(index: int, bug: Bug) -> None:
                run = BugRun(
                    eng, bug, log_root=driver.log_root(bug), all_tests=options.all_tests, prepare=driver.workspaces
                )
                driver.checked(run.baselines(lambda hash: driver.done(bug.id, hash), driver.save))

                def candidate_task(cand: CandidateRecord) -> None:
                    driver.save(run.candidate(cand.hash, cand.code), True)

                for j, cand in enumerate(driver.todo(bug)):
                    pool.submit(index, (index, 1, j), functools.partial(candidate_task, cand))

            for i, bug in enumerate(driver.bugs):
                pool.submit(i, (i, 0, 0), functools.partial(bug_task, i, bug))
            pool.run()
        finally:
            eng.close()


@register_executor(ExecutorKind.LOCAL)
def make_local(spec: ExecutorSpec) -> Executor:
    return LocalExecutor()
