"""In-memory specs (dataclasses) and status words (Enums) shared by every stage."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Strategy(str, enum.Enum):
    TITLE_ONLY = "title-only"
    ZERO_SHOT = "zero-shot"
    ONE_SHOT = "one-shot"
    REASONING = "reasoning"
    CONVERSATION = "conversation"
    """Rounds of samples with each round's test results fed back to the model (ChatRepair-style)."""
    PUBLISHED = "published"
    """Answers imported from a published patch set (``nl2fix import``): the publisher prompted the models."""
    TEST_DRIVEN = "test-driven"
    """The buggy method, the failing trigger tests' source and their failure messages, no issue text:
    RepairBench's and ChatRepair's setting."""
    ISSUE_AND_TEST = "issue-and-test"
    """The issue (title and description) and the failing tests, both."""


TEST_STRATEGIES = (Strategy.TEST_DRIVEN, Strategy.ISSUE_AND_TEST)
"""Strategies whose prompt shows the trigger tests' source and failures."""
FIRST_PROMPTS = (Strategy.ZERO_SHOT, Strategy.ONE_SHOT, Strategy.TITLE_ONLY, *TEST_STRATEGIES)
"""Strategies a conversation can start from (``reasoning`` is a conversation of its own)."""


class ModelStyle(str, enum.Enum):
    """How a model is prompted: chat messages, a completion prompt ending in the signature,
    or an edit model's instruction + input."""

    CHAT = "chat"
    COMPLETION = "completion"
    EDIT = "edit"


class Verdict(str, enum.Enum):
    PLAUSIBLE = "plausible"
    WRONG = "wrong"
    UNCOMPILABLE = "uncompilable"
    TIMEOUT = "timeout"
    ERROR = "error"
    REJECTED = "rejected"
    """The compiled candidate changes more than its method, or adds a reference that reaches the
    harness (``defects4j_adapter/bytecode/policy.py``): never run for a verdict, never a pass."""


class Behaviour(str, enum.Enum):
    """How a plausible candidate behaves beside a reference method, on the calls the tests make and
    on inputs derived from them (``nl2fix.validation.behaviour``)."""

    SAME = "same-behaviour"
    """No difference from the developer's fix on any input compared."""
    DIVERGES = "diverges"
    """Some input where it does something else than the developer's fix."""
    OBSERVED = "observed"
    """No developer fix to compare with (a user's bug): its results are kept for behaviour clusters."""
    NOT_PROBED = "not-probed"
    """Not compared: the method cannot be probed, no test calls it, or the probe failed (the note says)."""


class ConversationPhase(str, enum.Enum):
    """What a conversation round asks for: a fix that passes the tests, or, once one does, other fixes."""

    REPAIR = "repair"
    ALTERNATIVES = "alternatives"


class Engine(str, enum.Enum):
    FAST = "fast"
    DEFECTS4J = "defects4j"
    REBUILD = "rebuild"


USER_BENCHMARK = "project"
"""``Bug.benchmark`` of a bug in a user's own project (``nl2fix fix``): no known fix, no Defects4J."""


@dataclass(frozen=True)
class Bug:
    """One single-method bug, from the NL2Fix dataset or the bundled example benchmark."""

    project: str
    number: int
    path: str
    start_line: int
    end_line: int
    buggy_method: str
    fixed_method: str
    title: str
    description: str = ""
    comments: tuple[str, ...] = ()
    issue_url: str = ""
    trigger_tests: tuple[str, ...] = ()
    relevant_tests: tuple[str, ...] = ()
    modified_classes: tuple[str, ...] = ()
    buggy_revision: str = ""
    fixed_revision: str = ""
    source_dir: str = ""
    test_dir: str = ""
    key: str = ""
    benchmark: str = "nl2fix"
    buggy_method_no_comments: str = field(default="", compare=False)
    issue_created: str = ""
    """When the issue was opened (ISO 8601 UTC; datasets made by ``nl2fix dataset build``), else empty."""
    fix_outside_method: bool | None = None
    """Whether the ground-truth fix also changes code outside the method; None when the dataset does not say."""
    trigger_test_sources: tuple[tuple[str, str], ...] = ()
    """``(Class::method, the test method as written)`` in the buggy version, for the trigger tests whose
    source the dataset holds (its records' ``trigger_tests_src``, written by ``nl2fix dataset build``)."""
    trigger_failures: tuple[tuple[str, str], ...] = ()
    """``(Class::method, what JUnit printed)`` from Defects4J's ``trigger_tests/<id>`` file: each
    trigger test's failure on the buggy version, message then stack trace."""

    @property
    def id(self) -> str:
        return f"{self.project}-{self.number}"
