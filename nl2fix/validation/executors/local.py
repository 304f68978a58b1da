"""The local executor: one engine and a pool of worker threads on this machine.

Workers take the earliest bug's work first, so a bug's warm JVMs serve its candidates together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from defects4j_adapter.jvm import reference_java
from defects4j_adapter.engines.registry import make_engine
from nl2fix.validation.executors.pool import WorkPool
from nl2fix.core.domain import Bug, Engine

if TYPE_CHECKING:
    from nl2fix.validation.stage import _Validation


class LocalExecutor:
    def run(self, validation: "_Validation", engine: Engine, option_args: dict) -> None:
        from nl2fix.validation.stage import BugRun, engine_options

        eng = make_engine(engine, engine_options(**option_args))
        try:
            validation.record_environment(reference_java.environment(eng.name, getattr(eng, "sandbox", None)))
            pool = WorkPool(option_args["workers"], eng.close)

            def bug_task(index: int, bug: Bug) -> None:
                run = BugRun(eng, bug, log_root=validation.log_root(bug), all_tests=validation.all_tests,
                             prepare=validation.workspaces)
                validation.checked(run.baselines(lambda hash: validation.done(bug.id, hash), validation.save))
                for j, cand in enumerate(validation.todo(bug)):
                    pool.submit((index, 1, j), lambda c=cand: validation.save(run.candidate(c.hash, c.code), True))

            for i, bug in enumerate(validation.bugs):
                pool.submit((i, 0, 0), lambda i=i, b=bug: bug_task(i, b))
            pool.run()
        finally:
            eng.close()
