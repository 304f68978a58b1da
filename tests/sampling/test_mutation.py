"""The mutation baseline: which edits it makes, and that its order is seeded and stable."""

from __future__ import annotations

import itertools

from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling.mutation import apply, mutants, single_edits

METHOD = """int clamp(int value, int max) {
    if (value > max) {
        return Math.min(value, max);
    }
    list.add(value);
    return value + 1;
}"""


def edits_of(method: str) -> set[tuple[str, str, str]]:
    tokens, edits = single_edits(method)
    return {(e.operator, "".join(t.text for t in tokens[e.start : e.end]), e.text) for e in edits}


def test_each_operator_at_its_place_and_never_in_the_header():
    assert edits_of(METHOD) == {
        ("negate-condition", "(value > max)", "(!(value > max))"),
        ("swap-operator", ">", ">="),
        ("swap-arguments", "value, max", "max, value"),
        ("delete-statement", "list.add(value);", ""),
        ("null-guard", "list.add(value);", "if (list != null) { list.add(value); }"),
        ("arithmetic", "+", "-"),
        ("literal+1", "1", "2"),
        ("literal-1", "1", "0"),
    }


def test_type_arguments_are_not_relational_operators():
    method = """boolean f(List<String> xs) {
    Map<String, List<Integer>> m = new HashMap<String, List<Integer>>();
    return a < b && c >= d || xs.isEmpty() == true;
}"""
    swaps = {(before, after) for op, before, after in edits_of(method) if op == "swap-operator"}
    assert swaps == {("<", "<="), (">=", ">"), ("&&", "||"), ("||", "&&"), ("==", "!="), ("true", "false")}


def test_mutants_are_distinct_seeded_and_prefix_stable():
    every = list(mutants(METHOD, seed=0, key="Demo-1"))
    hashes = [candidate_hash(m) for m in every]
    assert len(set(hashes)) == len(every) and candidate_hash(METHOD) not in hashes
    tokens, edits = single_edits(METHOD)
    singles = {apply(tokens, [e]) for e in edits}
    assert set(every[: len(singles)]) == singles  # single edits first, then pairs
    assert len(every) > len(singles)
    assert every == list(mutants(METHOD, seed=0, key="Demo-1"))
    assert list(itertools.islice(mutants(METHOD, seed=0, key="Demo-1"), 5)) == every[:5]
    reseeded = list(mutants(METHOD, seed=1, key="Demo-1"))
    assert reseeded != every and set(reseeded[: len(singles)]) == singles


def test_a_method_with_nothing_to_mutate_gives_no_mutants():
    assert list(mutants("Object get() {\n    return this.value;\n}")) == []


def test_backend_cycles_through_a_small_mutant_space_to_give_n_samples():
    from nl2fix.core.domain import Bug, ModelStyle
    from nl2fix.sampling.backends.base import Request
    from nl2fix.sampling.backends.mutation_backend import MutationBackend
    from nl2fix.sampling.extraction import extract_method

    method = "boolean neg(int x) {\n    return x < 0;\n}"
    bug = Bug(
        project="Demo",
        number=1,
        path="A.java",
        start_line=1,
        end_line=3,
        buggy_method=method,
        fixed_method=method,
        title="t",
        buggy_method_no_comments=method,
    )
    space = list(mutants(method, key=bug.id))
    n = len(space) + 3
    request = Request(
        bug=bug, messages=[], style=ModelStyle.CHAT, n=n, max_tokens=10, temperature=0.8, indices=tuple(range(n))
    )
    [(_, choices)] = list(MutationBackend().generate([request]))
    codes = [extract_method(c.text, method).code for c in choices]
    assert len(codes) == n
    assert codes[: len(space)] == space
    assert codes[len(space) :] == space[:3]

    nothing = Bug(
        project="Demo",
        number=2,
        path="A.java",
        start_line=1,
        end_line=3,
        title="t",
        buggy_method="Object get() {\n    return this.value;\n}",
        fixed_method="Object get() {\n    return value;\n}",
    )
    request = Request(
        bug=nothing, messages=[], style=ModelStyle.CHAT, n=4, max_tokens=10, temperature=0.8, indices=(0, 1, 2, 3)
    )
    assert list(MutationBackend().generate([request]))[0][1] == []
