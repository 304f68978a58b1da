"""The sampling stage: from bugs to stored samples (entry point :func:`nl2fix.sampling.stage.sample`).

Each bug's prompt is fitted to the served model (``model_fit``) and sent to a backend
(``backends/``: an OpenAI-compatible server, vLLM, the mutation baseline, a replayed patch file);
each answer's method is extracted (``extraction``, ``stops``) and stored as a sample in the run
store (``answers``). Most strategies ask in chains of turns (``chains``); ``conversation`` runs
validate between rounds and show the model its earlier candidates' test results
(``conversation``, ``feedback``).

May import nl2fix.core, nl2fix.java_source, nl2fix.store, nl2fix.dataset, nl2fix.prompting,
nl2fix.validation (conversation rounds validate) and prompts.
"""
