"""Filters on a document's legal metadata (issue 15): type, tribunal, process number, the
document's own date, tags, custom fields, language.

Ingest stores what it reads of each document (casetrack/legal/, plus the companion YAML) under
`meta["legal"]` of its journal entry:

    {"doc_type": "acordao", "doc_date": "2023-03-12", "tribunals": ["TJSP"],
     "process_numbers": ["0001234-56.2023.8.26.0100"], "tags": ["urgent"],
     "fields": {"client": "Acme"}, "languages": ["pt"]}

A filter value is read the way a lawyer types it ("acórdão", "TJ-SP", "00012345620238260100",
"Tribunal de Justiça de São Paulo") and compared in canonical form; a document without the
field does not match a filter on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from email.utils import getaddresses
from typing import Any

from casetrack.errors import CaseTrackError
from casetrack.legal.cnj import tribunals_of_numbers
from casetrack.legal.text import fold
from casetrack.legal.values import doc_type_of, process_of, tribunal_of

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class LegalFilters:
    """The legal-metadata part of a search's filters (all combinable; each list is "any of")."""

    doc_types: tuple[str, ...] = ()
    tribunals: tuple[str, ...] = ()
    processes: tuple[str, ...] = ()
    date_from: str | None = None  # ISO date, inclusive, of the document's own date
    date_to: str | None = None
    tags: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()  # custom fields, KEY=VALUE (all must hold)
    languages: tuple[str, ...] = ()

    def active(self) -> bool:
        return bool(
            self.doc_types
            or self.tribunals
            or self.processes
            or self.date_from
            or self.date_to
            or self.tags
            or self.fields
            or self.languages
        )


def iso_date(value: str, flag: str) -> str:
    text = value.strip()
    if not _DATE.match(text):
        raise CaseTrackError(
            f"{flag} {value!r} is not a date.", f"Write it as YYYY-MM-DD, e.g. {flag} 2023-01-31."
        )
    return text


def parse_fields(pairs: Iterable[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CaseTrackError(f"--field {pair!r} is not KEY=VALUE.", "Example: --field client=Acme")
        out.append((key.strip(), value.strip()))
    return tuple(out)


def legal_filters(
    doc_types: Iterable[str] = (),
    tribunals: Iterable[str] = (),
    processes: Iterable[str] = (),
    date_from: str | None = None,
    date_to: str | None = None,
    tags: Iterable[str] = (),
    fields: Iterable[str] = (),
    languages: Iterable[str] = (),
) -> LegalFilters:
    """Filters from values as typed (CLI options, MCP parameters), checked and canonical."""
    return LegalFilters(
        doc_types=tuple(doc_type_of(t) for t in doc_types),
        tribunals=tuple(tribunal_of(t) for t in tribunals),
        processes=tuple(process_of(p) for p in processes),
        date_from=iso_date(date_from, "--date-from") if date_from else None,
        date_to=iso_date(date_to, "--date-to") if date_to else None,
        tags=tuple(fold(t.strip()) for t in tags if t.strip()),
        fields=parse_fields(fields),
        languages=tuple(lang.strip().lower().split("-")[0] for lang in languages if lang.strip()),
    )


def matches(meta: Mapping[str, Any], f: LegalFilters) -> bool:
    """Does a document whose journal meta is `meta` pass `f`? (Every active filter must hold.)"""
    legal: Mapping[str, Any] = meta.get("legal") or {}
    return all(check(legal, f) for check in _CHECKS)


def _doc_type(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    return not f.doc_types or legal.get("doc_type") in f.doc_types


def _tribunal(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    return not f.tribunals or bool(set(f.tribunals) & document_tribunals(legal))


def document_tribunals(legal: Mapping[str, Any]) -> set[str]:
    """The tribunals a document names, and those its CNJ numbers name (decoded again here, so
    documents ingested before ingest decoded them match)."""
    return {str(t) for t in legal.get("tribunals") or ()} | set(
        tribunals_of_numbers(legal.get("process_numbers") or ())
    )


def _process(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    stored = {process_of(p) for p in legal.get("process_numbers") or ()} if f.processes else set()
    return not f.processes or bool(set(f.processes) & stored)


def _date(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    if not (f.date_from or f.date_to):
        return True
    date = legal.get("doc_date")
    if not date:
        return False
    return not (f.date_from and str(date) < f.date_from) and not (f.date_to and str(date) > f.date_to)


def _tags(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    return not f.tags or bool(set(f.tags) & {fold(str(t)) for t in legal.get("tags") or ()})


def _fields(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    fields: Mapping[str, Any] = legal.get("fields") or {}
    return all(field_matches(fields.get(key, ""), value) for key, value in f.fields)


def _language(legal: Mapping[str, Any], f: LegalFilters) -> bool:
    return not f.languages or bool(set(f.languages) & set(legal.get("languages") or ()))


_CHECKS = (_doc_type, _tribunal, _process, _date, _tags, _fields, _language)


def field_matches(stored: Any, wanted: str) -> bool:
    """A custom field equals `wanted`, ignoring case and accents. A list of addresses (an e-mail's
    from, to, cc: "Alice Smith <alice@firm.com>, bob@client.com") also matches one of its
    addresses, one of its display names, or "@domain" of one of them."""
    text, want = fold(str(stored)), fold(wanted.strip())
    if text == want:
        return True
    if "@" not in text or not want:
        return False
    for name, address in getaddresses([text]):
        if want in (name.strip(), address) or (want.startswith("@") and address.endswith(want)):
            return True
    return False
