"""Test failures that are the environment's fault, not the code's: said so in the outcome's detail.

A test that fails with a linkage error naming a class that is not the project's (a JDK class the
test Java lacks, ``java.util.jar.Pack200`` on Java 14+; a library method the class path's copy
does not have), with the JDK refusing deep reflection, or unable to resolve a host name (the
sandbox has no network; JacksonDatabind's ``TestJdkTypes::testInetAddress`` looks up
``google.com``) fails because of the Java, the class path or the machine it ran on. On a fixed
version such a test is excused for every candidate, so the excuse is made visible rather than
silent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from defects4j_adapter.contract import Outcome, Workspace
from defects4j_adapter.jvm import reference_java

_LINKAGE = re.compile(
    r"^(?:java\.lang\.)?(NoSuchMethodError|NoSuchFieldError|NoClassDefFoundError|IncompatibleClassChangeError"
    r"|AbstractMethodError|IllegalAccessError|UnsupportedClassVersionError|LinkageError)\b:?\s*(.*)$"
)
_INACCESSIBLE = re.compile(r"^(?:java\.lang\.reflect\.)?InaccessibleObjectException\b")
_NO_NAMES = re.compile(r"^(?:java\.net\.)?UnknownHostException\b")
_MEMBER_OWNER = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\.[\w$<>]+\(")
_CONSTRAINT = re.compile(r"wants to load (?:class|interface) ([\w$]+(?:\.[\w$]+)+)")
"""``loader constraint violation``: two class loaders each loaded their own copy of a class."""
_QUALIFIED = re.compile(r"[A-Za-z_$][\w$]*(?:[./][A-Za-z_$][\w$]*)+")
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")
FAULT = "environment fault, not the code's"


def named_class(error: str, message: str) -> str | None:
    """The class a linkage error's message is about (dotted), or None when it names none."""
    special = {"NoSuchMethodError": _MEMBER_OWNER, "LinkageError": _CONSTRAINT}.get(error)
    m = special.search(message) if special else None
    if m:
        return m.group(1)
    m = _QUALIFIED.search(message)
    return m.group(0).replace("/", ".") if m else None


def faults(messages: Mapping[str, str], is_project_class: Callable[[str], bool], java: str) -> list[str]:
    """One line per kind of environment fault among failing tests' first message lines."""
    groups: dict[str, list[str]] = {}
    for test, message in sorted(messages.items()):
        line = message.strip()
        if _INACCESSIBLE.match(line):
            groups.setdefault(f"the JDK's encapsulation (InaccessibleObjectException on {java})", []).append(test)
            continue
        if _NO_NAMES.match(line):
            groups.setdefault("no network: a host name could not be resolved (UnknownHostException)", []).append(test)
            continue
        m = _LINKAGE.match(line)
        # "Could not initialize class X": X's static initialiser failed earlier, no linkage fault
        if m is None or "Could not initialize" in line:
            continue
        owner = named_class(m.group(1), m.group(2))
        if owner is None or is_project_class(owner):
            continue
        where = f"JDK class {owner} on {java}" if owner.startswith(JDK_PACKAGES) else f"library class {owner}"
        groups.setdefault(f"{m.group(1)} of {where}", []).append(test)
    return [f"{FAULT}: {len(tests)} test(s) fail with {why} (e.g. {tests[0]})" for why, tests in groups.items()]


def faults_in(detail: str) -> list[str]:
    """The environment faults a verdict's detail reports."""
    return [part for part in detail.split("; ") if part.startswith(FAULT)]


def _in_packages_of(folders: tuple[Path, ...]) -> Callable[[str], bool]:
    """Whether a class belongs to the project: its package is one of the compiled folders' (a
    class the candidate added, ``Foo$3``, has no file there yet)."""

    def found(name: str) -> bool:
        package = name.rpartition(".")[0].replace(".", "/")
        return bool(package) and any((folder / package).is_dir() for folder in folders)

    return found


def noted(outcome: Outcome, ws: Workspace, java: str = "") -> Outcome:
    """``outcome`` with its environment faults added to the detail; ``java`` names the Java the tests
    ran on (by default nl2fix's test Java)."""
    java = java or f"Java {reference_java.current().jdk.version}"
    found = faults(outcome.messages, _in_packages_of((ws.classes_dir, ws.test_classes_dir)), java)
    return outcome.noted("; ".join(found))
