"""``nl2fix fix``: a bug of the user's own Java project, from an issue to test-proven patches of the
working tree. ``project_build`` builds the project once, offline (Maven, Gradle, Ant or plain javac);
``failing_test_run`` runs the failing test and ``localise`` maps its stack trace to the method to fix;
``user_bug`` makes that a ``Bug`` record; ``pipeline`` runs the benchmark's stages on it (sample,
validate, rank) and ``patches`` turns the plausible candidates into diffs, best first.

May import: every stage below the report (core, java_source, store, dataset, prompting, sampling,
validation, ranking) and ``defects4j_adapter``.
"""
