from nl2fix.java_source.lexer import code_tokens
from nl2fix.java_source.text import candidate_hash, normalise, remove_comments, strip_comments


def test_strip_comments_keeps_literals_that_look_like_comments():
    src = "String a = \"// not a comment\"; /* gone */ char c = '/'; // gone too\nint b = 1;"
    out = strip_comments(src)
    assert '"// not a comment"' in out
    assert "gone" not in out
    assert "int b = 1;" in out


def test_strip_comments_handles_escaped_quotes_and_text_blocks():
    src = 'String s = "a\\"//b"; String t = """\n// kept\n"""; // dropped'
    out = strip_comments(src)
    assert '"a\\"//b"' in out
    assert "// kept" in out
    assert "dropped" not in out


def test_a_carriage_return_ends_a_line_comment_as_it_does_for_javac():
    assert strip_comments("int a; // gone\r}") == "int a; \r}"
    assert [t.text for t in code_tokens("int a; // gone\r}")] == ["int", "a", ";", "}"]


def test_an_escaped_quote_does_not_end_a_text_block():
    block = '"""\n  \\""" } // still text\n  """'
    src = f"String t = {block}; // dropped"
    assert strip_comments(src) == f"String t = {block}; "
    assert [t.text for t in code_tokens(src)][-2:] == [block, ";"]


def test_block_comment_keeps_line_count():
    src = "int a;\n/* one\n two\n three */\nint b;"
    assert strip_comments(src).count("\n") == src.count("\n")


def test_remove_comments_drops_lines_emptied_by_comments_only():
    method = "int f(int x) {\n    // explain\n    int y = x; // why\n\n    return y;\n}"
    assert remove_comments(method) == "int f(int x) {\n    int y = x;\n\n    return y;\n}"


def test_normalise_ignores_layout_and_comments_but_not_literals():
    a = "int f( int x ) {\n  return x + 1; // inc\n}"
    b = "int f(int x){return x+1;}"
    assert normalise(a) == normalise(b)
    assert candidate_hash(a) == candidate_hash(b)
    assert candidate_hash('String s = "a b";') != candidate_hash('String s = "a  b";')
    assert normalise("return x + 1;") != normalise("return x - 1;")


def test_normalise_keeps_spaces_between_words():
    assert normalise("return   new Foo();") == "return new Foo();"
    assert normalise("int x") != normalise("intx")
