"""The source line of a test where it failed, read from the workspace's test file (for feedback to models)."""

from __future__ import annotations

from defects4j_adapter.contract import Workspace

SOURCE_LINE_LIMIT = 300


def source_line(ws: Workspace, test: str, line: int) -> str:
    """Line ``line`` (1-based) of the file of test ``pkg.Class::method`` (a nested class lives in its
    outer class's file), stripped and bounded; empty when the file or the line is not there."""
    top_class = test.split("::")[0].split("$")[0]
    path = ws.test_dir / (top_class.replace(".", "/") + ".java")
    try:
        lines = path.read_text(encoding=ws.encoding, errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip()[:SOURCE_LINE_LIMIT] if 0 < line <= len(lines) else ""
