"""Java source as text, without a compiler: Unicode escapes translated as javac translates them
before it reads anything (``unicode_escapes``), a lossless lexer (``lexer``), comment removal,
normalisation and the whitespace/comment-insensitive candidate hash (``text``), method declarations
found in a class, a lone method or a model's answer (``methods``), and what a fix changed in a file,
declaration by declaration (``method_diff``, tree-sitter-java); a candidate put in place of the
buggy method in its file's text (``splice``).

May import: ``nl2fix.core``.
"""
