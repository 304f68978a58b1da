"""The report stage: what a run's store says, as numbers and documents.

``data`` gathers everything a report shows from the run store into one pydantic model (pass@k,
ranked pass@k, the paper's tables, CodeBLEU, cost); ``metrics`` and ``codebleu`` are its pure maths;
``layout`` lays the model out as a format-neutral ``document`` with ``plots`` beside it, and
``render`` writes it as text, Markdown (``markdown``), one self-contained HTML page (``html``) or
JSON. ``compare`` puts several runs side by side, ``export`` writes a run's samples out, ``cost``
prices its tokens (``prices.json``).

May import: every stage below it (core, java_source, store, dataset, prompting, sampling,
validation, ranking) and ``defects4j_adapter.jvm`` (the environment a verdict was reached in).
"""
