"""Case vocabulary, declared once: types, languages, statuses and document sort orders.

The CLI's choices, the MCP tools' enums and the registry's checks all come from here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

from typing_extensions import TypedDict

CaseType = Literal[
    "civil",
    "criminal",
    "family",
    "bankruptcy",
    "contract",
    "employment",
    "personal_injury",
    "real_estate",
    "intellectual_property",
    "immigration",
    "tax",
    "administrative",
    "other",
]
CASE_TYPES: tuple[str, ...] = get_args(CaseType)

Language = Literal["en", "pt"]
LANGUAGES: tuple[str, ...] = get_args(Language)

CaseStatusName = Literal["active", "closed", "archived"]


class CaseStatus(StrEnum):
    ACTIVE = "active"
    CLOSED = "closed"
    ARCHIVED = "archived"


DocumentSort = Literal["name", "date", "pages", "type"]
DOCUMENT_SORTS: tuple[str, ...] = get_args(DocumentSort)
# Near-duplicates in a list or a search: listed as any document, each under its original, or left out.
NearDuplicates = Literal["show", "group", "hide"]
NEAR_DUPLICATE_MODES: tuple[str, ...] = get_args(NearDuplicates)

EntityType = Literal["person", "court", "statute", "case_citation", "organization", "any"]
ENTITY_TYPES: tuple[str, ...] = get_args(EntityType)


class CaseSettings(TypedDict):
    """A case's own settings, kept in its case.json (they travel with the case)."""

    # Struck-through (revoked) text of DOCX and HTML is indexed, marked "[revogado: ...]", instead
    # of left out (parse/revoked.py). The global --keep-revoked / CASETRACK_KEEP_REVOKED turns it on
    # for every case.
    keep_revoked: bool
