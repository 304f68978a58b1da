"""The layout's rules (docs/architecture.md), checked on the source: no import cycles between the
project's modules, no project imports hidden inside functions, and each stage package importing
only the packages below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.imports import (
    HEAVY_THIRD_PARTY,
    ImportGraph,
    find_cycle,
    package_of,
)

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = ("nl2fix", "defects4j_adapter", "ranking", "prompts")
ROOTS = ("nl2fix", "defects4j_adapter")
"""The two top packages' own modules: a docstring and the version, so every stage may import them."""

# What each stage package may import of the project (besides itself). The order is the flow's,
# lowest first; docs/architecture.md explains each line.
ALLOWED: dict[str, set[str]] = {
    "nl2fix.core": set(),
    "nl2fix.java_source": {"nl2fix.core"},
    "nl2fix.store": {"nl2fix.core"},
    "prompts": set(),
    "defects4j_adapter.d4j": {"nl2fix.core"},
    "defects4j_adapter.bytecode": {"nl2fix.core"},
    "defects4j_adapter.cache": {"nl2fix.core"},
    "defects4j_adapter.jvm": {"nl2fix.core", "defects4j_adapter.d4j", "defects4j_adapter.cache"},
    "defects4j_adapter.sandbox": {"nl2fix.core", "defects4j_adapter.cache", "defects4j_adapter.jvm"},
    "defects4j_adapter.contract": {"nl2fix.core", "defects4j_adapter.sandbox"},
    "defects4j_adapter.workspaces": {
        "nl2fix.core",
        "nl2fix.java_source",
        "defects4j_adapter.d4j",
        "defects4j_adapter.cache",
        "defects4j_adapter.contract",
        "defects4j_adapter.jvm",
        "defects4j_adapter.sandbox",
    },
    "defects4j_adapter.behaviour": {"nl2fix.core", "nl2fix.java_source"},
    "defects4j_adapter.engines": {
        "nl2fix.core",
        "nl2fix.java_source",
        "defects4j_adapter.d4j",
        "defects4j_adapter.behaviour",
        "defects4j_adapter.cache",
        "defects4j_adapter.bytecode",
        "defects4j_adapter.contract",
        "defects4j_adapter.jvm",
        "defects4j_adapter.sandbox",
        "defects4j_adapter.workspaces",
    },
    "nl2fix.dataset": {
        "nl2fix.core",
        "nl2fix.java_source",
        "defects4j_adapter.d4j",
        "defects4j_adapter.cache",
        "defects4j_adapter.workspaces",
    },
    "nl2fix.prompting": {"nl2fix.core", "nl2fix.java_source", "nl2fix.store", "prompts"},
    "nl2fix.validation": {"nl2fix.core", "nl2fix.java_source", "nl2fix.store", "defects4j_adapter"},
    "nl2fix.sampling": {
        "nl2fix.core",
        "nl2fix.java_source",
        "nl2fix.store",
        "nl2fix.dataset",
        "nl2fix.prompting",
        "nl2fix.validation",
        "prompts",
    },
    "ranking": {"nl2fix.core", "nl2fix.java_source", "nl2fix.store", "nl2fix.validation"},
    "nl2fix.report": {
        "nl2fix.core",
        "nl2fix.java_source",
        "nl2fix.store",
        "nl2fix.dataset",
        "nl2fix.prompting",
        "nl2fix.sampling",
        "nl2fix.validation",
        "ranking",
        "defects4j_adapter.jvm",
    },
    "nl2fix.view": {
        "nl2fix.core",
        "nl2fix.java_source",
        "nl2fix.store",
        "nl2fix.dataset",
        "nl2fix.prompting",
        "nl2fix.sampling",
        "nl2fix.validation",
        "ranking",
        "nl2fix.report",
        "defects4j_adapter.jvm",
    },
    "nl2fix.fix": {
        "nl2fix.core",
        "nl2fix.java_source",
        "nl2fix.store",
        "nl2fix.dataset",
        "nl2fix.prompting",
        "nl2fix.sampling",
        "nl2fix.validation",
        "ranking",
        "defects4j_adapter",
    },
    "nl2fix.api": {"nl2fix.core", "nl2fix.store", "nl2fix.validation", "nl2fix.report"},
    "nl2fix.cli": {
        "nl2fix.core",
        "nl2fix.java_source",
        "nl2fix.store",
        "nl2fix.dataset",
        "nl2fix.prompting",
        "nl2fix.sampling",
        "nl2fix.validation",
        "ranking",
        "nl2fix.report",
        "nl2fix.view",
        "nl2fix.fix",
        "defects4j_adapter",
    },
}


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    return ImportGraph.of(ROOT, TOP_PACKAGES)


def test_no_import_cycles_between_modules(graph):
    cycle = find_cycle(graph.edges())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_project_modules_are_imported_at_the_top(graph):
    inside = [
        f"{imp.module}:{imp.line} imports {imp.target}" for imp in graph.imports if imp.in_function and imp.internal
    ]
    assert inside == []


def test_imports_inside_functions_are_heavy_optional_packages(graph):
    light = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in graph.imports
        if imp.in_function and not imp.internal and imp.target.split(".")[0] not in HEAVY_THIRD_PARTY
    ]
    assert light == []


def test_each_stage_imports_only_the_stages_below_it(graph):
    wrong = []
    for imp in graph.imports:
        if not imp.internal:
            continue
        source, target = package_of(imp.module), package_of(imp.target)
        if source == target or source not in ALLOWED or target in ROOTS:
            continue
        allowed = ALLOWED[source]
        if not any(target == a or target.startswith(a + ".") for a in allowed):
            wrong.append(f"{imp.module}:{imp.line} ({source}) imports {imp.target} ({target})")
    assert wrong == []


def test_the_allowed_imports_are_layered():
    """The table itself has no cycle, so following it can never make one between packages."""
    assert find_cycle({package: set(allowed) for package, allowed in ALLOWED.items()}) is None


def test_the_top_packages_import_nothing_of_the_project(graph):
    assert [imp for imp in graph.imports if imp.module in ROOTS and imp.internal] == []


def test_the_public_api_is_for_users_only(graph):
    """``nl2fix.api`` is a façade over the stages: a stage that imported it would tie the stable names to
    the moving modules they are made of."""
    assert [imp.module for imp in graph.imports if imp.target.startswith("nl2fix.api")] == []


def test_every_module_belongs_to_a_stage(graph):
    assert sorted({package_of(m) for m in graph.modules} - set(ALLOWED) - {"nl2fix", "defects4j_adapter"}) == []


@pytest.mark.parametrize("package", ["nl2fix", "defects4j_adapter"])
def test_few_modules_sit_directly_in_a_top_package(package):
    modules = sorted(p.name for p in (ROOT / package).glob("*.py"))
    assert len(modules) <= 8, modules


def test_every_subpackage_says_what_it_does_and_may_import():
    undocumented = []
    for init in ROOT.glob("*/**/__init__.py"):
        if init.parts[len(ROOT.parts)] not in TOP_PACKAGES:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        if len(doc) < 40 or "TODO" in doc:
            undocumented.append(str(init.relative_to(ROOT)))
    assert undocumented == []


def _prints(tree: ast.AST) -> list[int]:
    """Lines of ``print(...)`` calls outside a module's own command-line entry point (``main``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            node.body = []  # what an entry point prints is its command's output
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            lines.append(node.lineno)
    return lines


def test_library_modules_log_instead_of_printing(graph):
    """What a library module has to say goes to its logger (``logging.getLogger(__name__)``), which
    ``--log-level`` and ``-v`` govern; only the command line (``nl2fix.cli``) prints."""
    printing = [
        f"{module}:{line}"
        for module, path in graph.modules.items()
        if package_of(module) != "nl2fix.cli"
        for line in _prints(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert printing == []


def test_the_rule_against_printing_sees_a_print():
    assert _prints(ast.parse("def f():\n    print('x')\n\ndef main(argv):\n    print(argv)\n")) == [2]
