"""One-shot example choice: exact edit distance, nearest neighbour, never the bug itself."""

from __future__ import annotations

import random

from nl2fix.core.domain import Bug
from nl2fix.java_source.text import remove_comments
from nl2fix.prompting.one_shot import ExampleIndex, edit_distance


def levenshtein(a, b) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def make_bug(number: int, method: str, project: str = "Demo") -> Bug:
    return Bug(
        project,
        number,
        "src/Demo.java",
        1,
        3,
        method,
        method,
        f"bug {number}",
        buggy_method_no_comments=remove_comments(method),
    )


def test_edit_distance_matches_the_textbook_definition():
    rng = random.Random(7)
    for _ in range(400):
        a = [rng.randrange(5) for _ in range(rng.randrange(0, 70))]
        b = [rng.randrange(5) for _ in range(rng.randrange(0, 70))]
        exact = levenshtein(a, b)
        assert edit_distance(a, b) == exact
        cutoff = rng.randrange(0, 40)
        cut = edit_distance(a, b, cutoff)
        assert cut == exact if exact <= cutoff else cut > cutoff


def test_nearest_is_the_closest_other_method_and_never_itself():
    methods = [
        "int a(int x) { return x + 1; }",
        "int a(int x) { return x + 2; }",  # distance 1 from the first
        "int a(int x) { // a comment does not count\n return x + 1; }",  # same code as the first
        "void b() { for (int i = 0; i < 10; i++) { System.out.println(i); } }",
        "void b() { for (int i = 0; i <= 10; i++) { System.out.println(i); } }",
    ]
    bugs = [make_bug(i + 1, m) for i, m in enumerate(methods)]
    index = ExampleIndex(bugs)
    found = {b.id: index.nearest(b) for b in bugs}
    assert {k: (v[0].id, v[1]) for k, v in found.items()} == {
        "Demo-1": ("Demo-3", 0),
        "Demo-2": ("Demo-1", 1),
        "Demo-3": ("Demo-1", 0),
        "Demo-4": ("Demo-5", 1),
        "Demo-5": ("Demo-4", 1),
    }
    # a filter (used when the closest example does not fit the context window) is honoured
    allowed = index.nearest(bugs[1], allow=lambda other: other.number >= 4)
    seq = {b.id: index._seqs[i] for i, b in enumerate(bugs)}
    d4, d5 = levenshtein(seq["Demo-2"], seq["Demo-4"]), levenshtein(seq["Demo-2"], seq["Demo-5"])
    assert allowed == ((bugs[3], d4) if d4 <= d5 else (bugs[4], d5))
    assert ExampleIndex(bugs[:1]).nearest(bugs[0]) is None


def test_nearest_agrees_with_brute_force_on_random_methods():
    rng = random.Random(3)
    vocabulary = ["x", "y", "+", "-", "1", "2", "return", ";", "(", ")", "if", "<", "="]
    bugs = [
        make_bug(i, "int f() { " + " ".join(rng.choice(vocabulary) for _ in range(rng.randrange(3, 40))) + " }")
        for i in range(1, 41)
    ]
    index = ExampleIndex(bugs)
    sequences = {b.id: index._seqs[i] for i, b in enumerate(bugs)}
    for bug in bugs:
        expected = min(
            (levenshtein(sequences[bug.id], sequences[o.id]), i) for i, o in enumerate(bugs) if o.id != bug.id
        )
        other, distance = index.nearest(bug)
        assert (distance, bugs.index(other)) == expected
