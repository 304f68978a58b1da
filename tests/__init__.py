"""nl2fix's tests, laid out as the package tree (README: Layout); shared helpers in ``helpers/``,
data in ``fixtures/``."""
