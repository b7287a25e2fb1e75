"""One user-facing error family. Every message says what happened and what to do next."""

from __future__ import annotations


class CaseTrackError(Exception):
    """An error whose message is shown to the user as is.

    `hint` is the next step (usually a command); the CLI prints it under the message and MCP
    tools append it to the tool error.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class CaseNotFoundError(CaseTrackError):
    pass


class CaseExistsError(CaseTrackError):
    pass


class DocumentNotFoundError(CaseTrackError):
    pass


class CaseBusyError(CaseTrackError):
    """Another process holds the case's single-writer lock."""


class ParseError(CaseTrackError):
    """A file could not be read as a document; the batch goes on without it."""

    code = "parse_error"


class UnsupportedFileError(ParseError):
    code = "unsupported"


class EmptyFileError(ParseError):
    code = "empty"


class CorruptFileError(ParseError):
    code = "corrupt"


class EncryptedFileError(ParseError):
    code = "encrypted"


class NoTextError(ParseError):
    """Every page needs OCR (or is blank): nothing to index."""

    code = "needs_ocr"


class ModelNotFoundError(CaseTrackError):
    pass


class StoreError(CaseTrackError):
    pass
