"""The one user-facing error type: the CLI prints it without a traceback."""


class Nl2FixError(Exception):
    """An error the user can act on.

    ``hint`` says what to do next; the CLI prints ``error: <message>`` and then the hint.
    """

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"
