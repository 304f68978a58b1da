"""AST match with tree-sitter-java: formatting and comments aside, nothing else."""

import pytest

from nl2fix.report.ast_match import ast_key, ast_matches, unavailable_reason

pytestmark = pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason()))

FIX = "int f(int a) {\n    // clamp first\n    if (a < 0) { return 0; }\n    return a + 1;\n}"


def test_formatting_and_comments_do_not_count():
    reformatted = "int f(int a){/* a comment */if(a<0){return 0;}return a+1;}"
    assert ast_matches([reformatted], FIX) == [True]


@pytest.mark.parametrize(
    "other",
    [
        "int f(int a) { if (a < 0) { return 0; } return (a + 1); }",  # extra parentheses: another tree
        "int f(int b) { if (b < 0) { return 0; } return b + 1; }",  # a renamed parameter
        "int f(int a) { if (a <= 0) { return 0; } return a + 1; }",  # another operator
        "int f(int a) { if (a < 0) return 0; return a + 1; }",  # no block
    ],
)
def test_any_other_tree_does_not_match(other):
    assert ast_matches([other], FIX) == [False]


def test_a_method_that_does_not_parse_matches_nothing():
    assert ast_key("int f(int a) { return a + ; }") is None
    assert ast_matches(["int f(int a) { return a + ; }"], "int f(int a) { return a + ; }") == [False]
