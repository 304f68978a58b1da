"""The kernel every stage stands on: the one user-facing error (``errors``), the domain types and
status words (``domain``: ``Bug``, ``Strategy``, ``Verdict``, ``Engine`` ...), the one subprocess
helper with a timeout and a typed result (``processes``), progress bars, token counting
(``tokens``, with a served model's own tokenizer in ``model_tokenizers``), forgiving bug ids
(``bug_ids``), the project's bundled files with whole-file writes (``files``), the registry every
family of implementations uses (``registry``), the OpenAI client shared by the backend and the
embedder (``openai_client``) and a candidate's story, what each step did to it (``story``).

May import: nothing of the project (only the standard library and third-party packages).
"""
