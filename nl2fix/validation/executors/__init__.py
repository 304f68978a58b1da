"""Where validation's work runs: worker threads on this machine (``local``, the default) or a
task per bug on a Ray cluster (``ray``).

The interface (:mod:`~nl2fix.validation.executors.base`: the executor protocol, its spec and the
registry) imports no executor; each executor module registers itself there, and
:mod:`~nl2fix.validation.executors.providers` imports them all and offers ``make_executor``.
Executors import :mod:`nl2fix.validation.bug_work` (one bug's work), never the stage that uses them.
"""
