"""One user-facing error family. Every message says what happened and what to do next."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fix:
    """The next step after an error, in each surface's own words.

    `lead` says what to do ("Reopen it first"); `cli` is the command line that does it and
    `tool`/`args` the MCP tool call that does the same. A surface renders its own form, so a
    terminal user is never told to call a tool and Claude is never told to open a terminal when
    a tool does the job. Without a `tool`, MCP shows the command (some steps have no tool).
    """

    lead: str
    cli: str | None = None
    tool: str | None = None
    args: Mapping[str, object] = field(default_factory=dict)

    def for_cli(self) -> str:
        return f"{self.lead}: {self.cli}" if self.cli else self.lead

    def for_tool(self) -> str:
        if self.tool is None:
            return self.for_cli()
        call = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.args.items())
        return f"{self.lead}: {self.tool}({call})"


class CaseTrackError(Exception):
    """An error whose message is shown to the user as is.

    `hint` is the next step as the CLI shows it (usually a command). `fix`, when given, is the
    same step for every surface (the CLI prints `fix.for_cli()`, MCP tools `fix.for_tool()`);
    `hint` defaults to its CLI form.
    """

    def __init__(self, message: str, hint: str | None = None, *, fix: Fix | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.hint = hint if hint is not None or fix is None else fix.for_cli()

    @property
    def tool_hint(self) -> str | None:
        """The next step as an MCP tool should say it."""
        return self.fix.for_tool() if self.fix is not None else self.hint

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


class OcrUnavailableError(ParseError):
    """Tesseract, or a language it needs, is not installed."""

    code = "ocr_unavailable"


class OcrTimeoutError(ParseError):
    """Tesseract ran past its deadline and was killed."""

    code = "ocr_timeout"


class OcrFailedError(ParseError):
    """Tesseract ran but failed on this image."""

    code = "ocr_failed"


class ImageTooLargeError(ParseError):
    """An image declares more pixels than the limit (possibly a decompression bomb)."""

    code = "too_large"


class PackageTooLargeError(ParseError):
    """A zip-based file (DOCX, XLSX, ODT ...) that would inflate past the limits, or whose
    compression ratio marks it as a decompression bomb: refused before it is unpacked."""

    code = "too_large"


class ScanNotReadError(NoTextError):
    """A scan (PDF without a text layer, or an image) whose OCR could not run: tesseract or a
    language is missing, or OCR was turned off. `casetrack reocr` takes it once OCR can run."""


class ModelNotFoundError(CaseTrackError):
    pass


class StoreError(CaseTrackError):
    pass


def reopen_fix(case_name: str) -> Fix:
    """How to make a closed or archived case writable again."""
    return Fix(
        "Reopen it first",
        f'casetrack case reopen "{case_name}"',
        "set_case_status",
        {"case_name": case_name, "status": "active"},
    )


def list_documents_fix(case_name: str) -> Fix:
    """Where the names of a case's documents are listed."""
    return Fix(
        "List documents", f'casetrack case info "{case_name}"', "list_documents", {"case_name": case_name}
    )
