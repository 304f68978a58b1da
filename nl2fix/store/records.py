"""What is persisted in the run store, one pydantic model per kind of row."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from nl2fix.core.domain import Behaviour, ConversationPhase, ModelStyle, Strategy, Verdict
from nl2fix.core.tokenizer import Message


class _Record(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class ConversationConfig(_Record):
    """How ``--strategy conversation`` runs: rounds of samples with test feedback in between. The run's
    ``n`` is the sample budget of each bug."""

    first_prompt: Strategy = Strategy.ZERO_SHOT
    """The strategy of round 1's prompt (``zero-shot``, ``one-shot``, ``title-only``, ``test-driven`` or
    ``issue-and-test``)."""
    rounds: int
    """Most rounds per bug."""
    samples_per_round: int
    """Samples asked for in each round (fewer when the sample budget has less left)."""
    token_budget: int | None = None
    """Most prompt + completion tokens one bug may use: no round starts once its samples used as many."""


class RunConfig(_Record):
    """One run: one backend, model, strategy and temperature over a set of bugs."""

    dataset: str
    """``example`` for the bundled benchmark, else the path of the dataset JSON."""
    metadata_dir: str | None = None
    """Defects4J metadata folder (trigger/relevant tests, revisions) used with the dataset."""
    backend: str
    """Sampling backend: ``openai``, ``vllm``, ``mutation`` or ``replay``; ``import`` for answers imported
    from a published patch set (``nl2fix import``)."""
    model: str
    """Model name as the backend knows it (``mutation`` and ``replay`` use their own names)."""
    model_style: ModelStyle = ModelStyle.CHAT
    """How the model is prompted: chat messages, completion prompt, or edit instruction."""
    strategy: Strategy
    """Prompting strategy."""
    temperature: float
    """Sampling temperature."""
    n: int
    """Samples requested per bug (duplicates count as samples); 0 for an imported published set
    (``backend`` ``import``), whose n per bug is what the set holds."""
    max_tokens: int = 750
    """Most new tokens asked for per sample."""
    context_window: int | None = 4096
    """The model's context window in tokens; longer prompts are cut by the prompt builder's rule.
    None: the model's own, as its backend reports it (vLLM's ``max_model_len``, a server's
    ``/v1/models``), else the known window of its family."""
    base_url: str | None = None
    """OpenAI-compatible endpoint, when not the default."""
    replay_file: str | None = None
    """For ``replay``: the NL2Fix-format patch file imported."""
    seed: int = 0
    """Seed for backends that take one (mutation order, vllm)."""
    conversation: ConversationConfig | None = None
    """For ``--strategy conversation``: its rounds and budgets."""
    engine_args: dict[str, Any] = {}
    """For ``vllm``: engine options passed to ``vllm.LLM`` (``--vllm-arg``, ``--tensor-parallel-size``),
    typed by vLLM's ``EngineArgs``."""
    data_parallel_size: int = 1
    """For ``vllm``: engine replicas, each a Ray actor holding its own copy of the model."""
    stop: list[str] | None = None
    """Stop sequences sent with the final answer's request; None: the style's default (see
    ``nl2fix.sampling.stops``), ``[]``: none."""
    price: dict[str, float] | None = None
    """``{"in": ..., "out": ...}`` dollars per million prompt and completion tokens (``--price``);
    None: the bundled price table's entry for the model, if any."""


class PromptRecord(_Record):
    """The exact prompt sent for one bug."""

    bug_id: str
    """Bug id, ``Project-N``."""
    strategy: Strategy
    """Strategy that rendered it."""
    messages: list[Message]
    """Chat messages (``role``/``content``); completion prompts are one ``user`` message."""
    prompt_tokens: int
    """Tokens counted with tiktoken (cl100k_base unless the model has its own encoding)."""
    truncated: bool = False
    """Whether the prompt was cut to fit the context window."""
    truncation_note: str = ""
    """What was cut, by which rule."""
    example_id: str | None = None
    """One-shot: the bug whose buggy and fixed methods are shown as the example."""


class PublishedVerdict(_Record):
    """What a published patch set says about one of its answers (``nl2fix import``)."""

    verdict: str | None = None
    """The publisher's own word (RepairBench's folder: ``exact_match``, ``ast_match``, ``plausible``,
    ``compilable``, ``non_compilable``); None when the set gives none."""
    plausible: bool | None = None
    """The publisher's verdict read as plausible or not; None when the set gives none."""
    compiled: bool | None = None
    """Whether it compiled where the publisher judged it; None when the set does not say."""
    source: str
    """Where in the set the answer came from (a path, or a line of a JSON lines file)."""
    note: str = ""
    """What the import did to it: changes outside the method left out, a diff that did not apply."""
    outside_method: bool = False
    """A file diff that also changed lines outside the buggy method (those changes were left out)."""
    base_differs: bool = False
    """The publisher's buggy method differs from the dataset's (comments and whitespace aside): another
    revision of the code."""


class SampleRecord(_Record):
    """One sample (one model answer) for one bug, and what was extracted from it."""

    bug_id: str
    """Bug id."""
    index: int
    """Sample index within the bug, 0..n-1."""
    response: str
    """The raw text the model returned (final turn for ``reasoning``)."""
    finish_reason: str | None = None
    """The backend's finish reason (``stop``, ``length`` ...)."""
    prompt_tokens: int = 0
    """Prompt tokens billed for this sample (shared requests are split evenly)."""
    completion_tokens: int = 0
    """Completion tokens of this sample."""
    generation_seconds: float = 0.0
    """This sample's share of the wall-clock seconds its requests took (every turn's)."""
    candidate_hash: str | None = None
    """Normalised hash of the extracted method; None when nothing could be extracted."""
    extraction_error: str | None = None
    """Why no method could be extracted, when none was."""
    transcript: list[dict[str, Any]] = []
    """Earlier turns of a multi-turn strategy (``reasoning``), as sent and answered."""
    round: int | None = None
    """``conversation``: the round (1-based) whose prompt this sample answers."""
    model: str | None = None
    """The model that wrote it when the run holds several (an imported published set); None: the run's model."""
    published: PublishedVerdict | None = None
    """For an imported answer: where it came from and the publisher's verdict."""


class CandidateRecord(_Record):
    """One unique candidate method of a bug (by normalised hash)."""

    bug_id: str
    """Bug id."""
    hash: str
    """Normalised, comment/whitespace-insensitive hash."""
    code: str
    """The method text as first extracted."""
    count: int = 1
    """How many samples produced this candidate."""
    first_index: int = 0
    """Smallest sample index that produced it (a stable tie-breaker)."""


class ObservedResult(_Record):
    """What a candidate did on one probed input."""

    input: str
    """The input (receiver and arguments), as the runner wrote it, shortened."""
    input_digest: str
    """Digest of the whole input."""
    result: str
    """Its outcome (return value or thrown exception's class, then receiver, arguments and the class's
    static fields after the call), shortened."""
    result_digest: str
    """Digest of the whole outcome: equal digests, equal behaviour."""


class BehaviourRecord(_Record):
    """A plausible candidate's behaviour beside a reference method (``nl2fix.validation.behaviour``)."""

    label: Behaviour
    """same-behaviour / diverges (beside the developer's fix) / observed (no fix known) / not-probed."""
    reference: str = "fixed"
    """What it was compared with: ``fixed`` (the developer's fix) or ``buggy`` (the method as it is)."""
    inputs: int = 0
    """Inputs compared: the tests' calls and inputs derived from them on which the reference itself
    behaved the same twice."""
    first_input: str = ""
    """For ``diverges``: the first input on which the candidate did something else."""
    first_call: str = ""
    """For ``diverges`` on a call of another method of the class, which calls the changed one (a solver's ``solve``
    run again with its arguments varied): that method, its name and parameter types; empty when ``first_input``
    is a call of the changed method itself."""
    first_input_whole: str = ""
    """``first_input`` as the runner wrote it whole (up to 200,000 characters, arrays and collections up to 16,384
    elements) where ``first_input`` does not show it all and the probe kept it; the JUnit test is written from it."""
    reference_result: str = ""
    """What the developer's fix did on it (about 300 characters, from a little before where the two part)."""
    candidate_result: str = ""
    """What the candidate did on it (likewise)."""
    reference_result_whole: str = ""
    """``reference_result`` written whole, as ``first_input_whole``, where the probe kept it."""
    candidate_result_whole: str = ""
    """``candidate_result`` written whole, likewise."""
    junit_test: str = ""
    """For ``diverges``: a JUnit 4 test class, in the package of the method's class, that makes the call of
    ``first_input`` and asserts what the developer's fix did there, so it passes on the fix and fails on the
    candidate (``defects4j_adapter/behaviour/junit.py``); empty when the input cannot be written in Java."""
    junit_note: str = ""
    """For ``diverges`` without ``junit_test``: why no test could be written (a receiver or argument only
    the project's own methods can build, a difference in the receiver's fields...)."""
    observations: list[ObservedResult] = []
    """The candidate's results on the inputs compared (at most 120), for behaviour clusters."""
    decided: bool = False
    """For ``diverges``: the probe ended after the call whose inputs decided the label beside the developer's fix (a
    difference on an input the fix's own probe found steady), comparing no input after them; :attr:`observations` stop
    there, and behaviour clusters compare it on those alone."""
    note: str = ""
    """Why it was not probed, or what limited the probe."""
    cpu_seconds: float = 0.0
    """CPU seconds of the probe."""

    def divergence(self) -> tuple[str, str, str, str]:
        """The first input on which the candidate did something else, the fix's outcome and the candidate's
        there: each whole where the probe kept it so, as a JUnit test needs them; and the method it is a call of
        when that is not the changed one (:attr:`first_call`)."""
        return (
            self.first_input_whole or self.first_input,
            self.reference_result_whole or self.reference_result,
            self.candidate_result_whole or self.candidate_result,
            self.first_call,
        )

    @property
    def shown_input(self) -> str:
        """:attr:`first_input` as people read it: after the method it is a call of, when that is another one."""
        return f"a call of {self.first_call} on {self.first_input}" if self.first_call else self.first_input


class ValidationRecord(_Record):
    """The verdict of one candidate under one engine."""

    bug_id: str
    """Bug id."""
    hash: str
    """Candidate hash (or ``buggy``/``fixed`` for baselines)."""
    engine: str
    """Engine that produced the verdict: ``fast``, ``defects4j``, ``rebuild``."""
    verdict: Verdict
    """plausible / wrong / uncompilable / timeout / error."""
    failing_tests: list[str] = []
    """``Class::method`` (or ``Class`` for a class-level failure) that failed and do not fail on the fixed version."""
    ignored_failures: list[str] = []
    """Tests that failed but also fail on the fixed version, so were not held against the candidate."""
    compile_errors: str = ""
    """The compiler's first errors, for uncompilable candidates."""
    detail: str = ""
    """Anything else worth showing: the harness error, the test that timed out, a splice correction."""
    tests_run: int = 0
    """How many tests ran."""
    passed_tests: list[str] = []
    """For the fixed version's baseline: every test it passed (``Class::method``), as the engine's
    signed report named them; a candidate is plausible only if it passes all of them. Empty for
    candidates and for engines that do not name passing tests."""
    all_tests_ran: bool = False
    """Every trigger and relevant test ran (validation did not stop at a first failure), so
    ``failing_tests`` is complete: a wrong candidate whose failures are all trigger tests passed
    the regression tests (Table 2). ``nl2fix validate --all-tests`` makes every run complete."""
    failure_message: str = ""
    """The first line of the first failing test's failure (exception and message), as the runner reported it."""
    failure_line: int | None = None
    """Where in its test class the first failing test failed (the line of its own frame in the stack trace)."""
    failure_source: str = ""
    """That line of the test's source file, when the workspace holds the file."""
    wall_seconds: float = 0.0
    """Wall-clock seconds spent validating."""
    cpu_seconds: float = 0.0
    """CPU seconds of the subprocesses (compile + tests)."""
    behaviour: BehaviourRecord | None = None
    """For a plausible candidate, how it behaves beside the developer's fix (None: not probed, e.g.
    an engine that does not probe)."""


class RankingEntry(_Record):
    """One candidate's place in a bug's ranking."""

    bug_id: str
    """Bug id."""
    ranker: str
    """Ranker key, e.g. ``paper:tfidf:median`` or ``paper:tfidf:median:pruned``."""
    rank: int
    """1-based position."""
    hash: str
    """Candidate hash."""
    score: float
    """The score the order follows (cosine similarity for the paper's ranker)."""


class RankingInfo(_Record):
    """How one ranker's rankings were made (one per ranker key, beside the rankings)."""

    ranker: str
    """Ranker key."""
    method: str
    """``paper``, ``frequency`` or ``similarity-desc``."""
    embedder: str | None = None
    """Embedder name (``tfidf``, ``openai:MODEL``, ``st:PATH``); None for ``frequency``."""
    threshold: str | float | None = None
    """The threshold asked for: ``median`` or a number; None for methods without one."""
    threshold_value: float | None = None
    """The similarity threshold applied (the run's median for ``median``); None when nothing was ranked."""
    engine: str | None = None
    """Engine whose ``uncompilable`` verdicts were pruned; None when not pruned."""
    bugs: int = 0
    """Bugs ranked (a bug without candidates has an empty ranking)."""
    candidates: int = 0
    """Unique candidates considered, after pruning."""
    ranked: int = 0
    """Candidates placed in a ranking (the paper's threshold drops the rest)."""
    pruned: int = 0
    """Candidates dropped as uncompilable before ranking."""
    unvalidated: int = 0
    """Candidates kept by pruning only because they have no verdict yet."""
    bugs_with_candidates: list[str] = []
    """Bugs that had candidates when ranked (before pruning): their ranking may be empty, every candidate
    pruned or below the threshold, and is still up to date."""


class RoundRecord(_Record):
    """One round of a ``conversation`` for one bug: the prompt as sent and the samples it asked for.
    Its answers are the samples with these indices; their verdicts are the validations of their candidates."""

    bug_id: str
    """Bug id."""
    round: int
    """1-based round number."""
    phase: ConversationPhase
    """``repair`` until a candidate is plausible, then ``alternatives``."""
    messages: list[Message]
    """The messages of the request, as sent (a completion prompt is one ``user`` message)."""
    prompt_tokens: int
    """Tokens of those messages, counted as the prompt builder counts them."""
    indices: list[int]
    """The sample indices this round asked for."""
    shown: list[str] = []
    """Hashes of the earlier candidates shown with their test results, oldest first."""
    omitted: int = 0
    """Earlier candidates left out by the fitting rule (oldest first) to fit the context window."""
    note: str = ""
    """What the fitting rule left out, in words."""
