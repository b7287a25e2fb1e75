"""A document's legal metadata at ingest (issue 15): what casetrack/legal/ reads in its text, then
what its companion YAML files say, which wins.

Companion files, nearest last (a later one overrides an earlier one, key by key):
  `_casetrack.yaml` in the document's folder and in each folder above it (the farthest first),
  `Contract.yaml` and `Contract.pdf.yaml` beside `Contract.pdf`.
Known keys: type (or doc_type), date (or doc_date), tribunal, process (or process_number,
process_numbers), parties, tags, language; every other key is a custom field. A file that is not
valid YAML, or not a mapping, is a warning on the document and is otherwise ignored. Companion
files are never documents of their own (`is_companion`).

E-mails (parse/email/): the type is "email", the date is the Date header's (the sender's own
day), the parties are the addresses (role from / to / cc), and the custom fields from, to, cc,
subject and message_id hold the headers, so `--field from=alice@firm.com`, `--doc-type email` and
`--date-from` filter them. An e-mail's attachments take its from, to, cc and subject fields (a
filter on the sender finds what the sender attached); a mailbox's messages take `mailbox`.
Companion files still win.

The result is stored under `meta["legal"]` of the journal entry (search/legal_filters.py reads it).
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from casetrack.domain import ChunkDraft, ParsedDocument
from casetrack.legal.model import LegalEntity
from casetrack.logsafe import safe_for_log
from casetrack.parse.email.headers import EmailHeaders

log = logging.getLogger(__name__)

FOLDER_FILE = "_casetrack.yaml"
_SUFFIXES = (".yaml", ".yml")
# Entity extraction reads at most this much of a document (eyecite costs ~40 ms per page of
# English: a 5,000-page production would otherwise take minutes).
MAX_CHARS = 1_500_000
MAX_PLACES = 40  # places kept per cited authority and document
_MAX_YAML_BYTES = 256_000
_ALIASES = {
    "doc_type": "type",
    "doc_date": "date",
    "process_number": "process",
    "process_numbers": "process",
    "tribunals": "tribunal",
    "languages": "language",
    "tag": "tags",
}


def is_companion(path: Path) -> bool:
    """A YAML file that describes documents rather than being one."""
    return path.suffix.lower() in _SUFFIXES


def companion_files(path: Path) -> list[Path]:
    """The YAML files that describe `path`, farthest first: `_casetrack.yaml` of each folder from
    the file system's root down to the file's own folder, then the file's own."""
    folder = path.parent.resolve()
    found = [f / FOLDER_FILE for f in [*reversed(folder.parents), folder] if (f / FOLDER_FILE).is_file()]
    own = [path.with_suffix(s) for s in _SUFFIXES] + [path.with_name(path.name + s) for s in _SUFFIXES]
    return found + [p for p in own if p.is_file() and p != path]


def read_companion(path: Path) -> tuple[dict[str, Any], str | None]:
    """The mapping a companion file holds, or ({}, the warning) when it cannot be used."""
    import yaml

    try:
        raw = path.read_bytes()[:_MAX_YAML_BYTES]
        data = yaml.safe_load(raw.decode("utf-8-sig", errors="replace"))
    except (OSError, yaml.YAMLError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        return (
            {},
            f"{path.name}: not valid YAML ({reason}); its metadata was not applied. Fix the file and ingest again.",
        )
    if data is None:
        return {}, None
    if not isinstance(data, Mapping):
        return (
            {},
            f"{path.name}: expected 'key: value' lines, found a {type(data).__name__}; its metadata was not applied.",
        )
    return {_ALIASES.get(str(k).strip().lower(), str(k).strip()): v for k, v in data.items()}, None


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else [value]
    return [str(v).strip() for v in items if str(v).strip()]


def _date(value: Any) -> str | None:
    if isinstance(value, dt.date):
        return value.isoformat()[:10]
    text = str(value).strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        return None


def apply_companion(legal: dict[str, Any], data: Mapping[str, Any], source: str, warnings: list[str]) -> None:
    """Override `legal` with a companion file's values (canonical forms where there are some)."""
    from casetrack.legal.values import doc_type_of, process_of, tribunal_of

    fields = dict(legal.get("fields") or {})
    for key, value in data.items():
        try:
            if key == "type":
                legal["doc_type"] = doc_type_of(str(value))
            elif key == "date":
                when = _date(value)
                if when is None:
                    warnings.append(
                        f"{source}: date {value!r} is not YYYY-MM-DD; kept the date read from the text."
                    )
                    continue
                legal["doc_date"] = when
            elif key == "tribunal":
                legal["tribunals"] = [tribunal_of(v) for v in _strings(value)]
            elif key == "process":
                legal["process_numbers"] = [process_of(v) for v in _strings(value)]
            elif key == "parties":
                legal["parties"] = [{"role": "", "name": v} for v in _strings(value)]
            elif key == "tags":
                legal["tags"] = _strings(value)
            elif key == "language":
                legal["languages"] = [v.lower().split("-")[0] for v in _strings(value)]
            else:
                fields[key] = value if isinstance(value, str | int | float | bool) else str(value)
        except Exception as e:  # a bad value is the file's problem, not the document's
            warnings.append(f"{source}: {key}: {e}")
            continue
        legal.setdefault("set_by", {})[key] = source
    if fields:
        legal["fields"] = fields


def cites_by_chunk(
    pages: Sequence[str], entities: Iterable[LegalEntity], drafts: Sequence[ChunkDraft]
) -> dict[str, dict[str, Any]]:
    """Each cited authority and process number (canonical key) -> its display text, kind and
    where it is written: [chunk seq, start, end] with offsets in that chunk's text (at most
    MAX_PLACES each). find_entity reads them to find an authority however it is written."""
    from casetrack.legal.extract import AUTHORITY_KINDS, PAGE_JOIN
    from casetrack.legal.model import EntityKind

    kinds = AUTHORITY_KINDS | {EntityKind.CNJ, EntityKind.PROCESS}  # process numbers: for find_entity

    starts, at = [], 0
    for text in pages:
        starts.append(at)
        at += len(text) + len(PAGE_JOIN)
    by_page: dict[int, list[ChunkDraft]] = {}
    for draft in drafts:
        by_page.setdefault(draft.page_index, []).append(draft)
    out: dict[str, dict[str, Any]] = {}
    for entity in entities:
        if entity.kind not in kinds or not entity.key:
            continue
        page = bisect.bisect_right(starts, entity.start) - 1
        offset = entity.start - starts[page]
        chunk = next((d for d in by_page.get(page, []) if d.char_start <= offset < d.char_end), None)
        if chunk is None:
            continue
        entry = out.setdefault(
            entity.key, {"text": " ".join(entity.text.split()), "kind": str(entity.kind), "at": []}
        )
        if entity.fields.get("name") and not entry.get("name"):  # a US case's name, from its full citation
            entry["name"] = entity.fields["name"]
        if len(entry["at"]) < MAX_PLACES:
            start = offset - chunk.char_start
            entry["at"].append([chunk.seq, start, min(start + entity.end - entity.start, len(chunk.text))])
    return out


def process_number_problems(numbers: Iterable[str]) -> list[str]:
    """A warning for each CNJ number whose check digits do not hold (a typo in a pleading)."""
    from casetrack.legal.cnj import parse_cnj

    return [problem for n in numbers if (c := parse_cnj(str(n))) is not None and (problem := c.problem())]


def email_fields(headers: EmailHeaders) -> dict[str, str]:
    """An e-mail's headers as custom fields (what `--field KEY=VALUE` reads)."""
    values = {
        "from": ", ".join(headers.sender),
        "to": ", ".join(headers.to),
        "cc": ", ".join(headers.cc),
        "subject": headers.subject,
        "message_id": headers.message_id,
    }
    return {k: v for k, v in values.items() if v}


def apply_email(legal: dict[str, Any], headers: EmailHeaders) -> None:
    """An e-mail's type, date, parties and header fields (over what the text suggested)."""
    legal["doc_type"], legal["doc_type_confidence"] = "email", 1.0
    if headers.date:
        legal["doc_date"] = headers.date[:10]
    legal["parties"] = [
        {"role": role, "name": address}
        for role, addresses in (("from", headers.sender), ("to", headers.to), ("cc", headers.cc))
        for address in addresses
    ]
    legal["fields"] = {**(legal.get("fields") or {}), **email_fields(headers)}


def legal_metadata(
    parsed: ParsedDocument,
    path: Path,
    drafts: Sequence[ChunkDraft] = (),
    email: EmailHeaders | None = None,
    inherited: Mapping[str, str] | None = None,
    companions: Sequence[Path] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """`meta["legal"]` for a parsed document, and the warnings its companion files gave.
    `drafts`: its chunks, to place each cited authority in one (`cites`). `email`: an e-mail's
    headers; `inherited`: custom fields a document takes from the e-mail or mailbox it came out
    of; `companions`: its companion files when `path` is not where it lives (default: `path`'s)."""
    from casetrack.legal.extract import document_metadata_and_entities

    pages, budget = [], MAX_CHARS
    for page in parsed.pages:
        if budget <= 0:
            break
        pages.append(page.text[:budget])
        budget -= len(page.text)
    warnings: list[str] = []
    entities: list[LegalEntity] = []
    try:
        metadata, entities = document_metadata_and_entities(pages, "auto", path.name)
        found = metadata.to_json()
    except Exception:  # extraction is a bonus: never fail an ingest for it
        log.warning("legal metadata of %s failed", safe_for_log(path.name), exc_info=True)
        found = {}
    doc_type = found.get("doc_type") or {}
    doc_date = found.get("doc_date") or {}
    legal: dict[str, Any] = {
        "doc_type": doc_type.get("type"),
        "doc_type_confidence": doc_type.get("confidence"),
        "doc_date": doc_date.get("date"),
        "tribunals": list(found.get("tribunals") or ()),
        "process_numbers": list(found.get("process_numbers") or ()),
        "parties": list(found.get("parties") or ()),
        "languages": list(found.get("languages") or ()),
        "authorities": list(found.get("citations") or ()),
        "cites": cites_by_chunk(pages, entities, drafts),
    }
    warnings += process_number_problems(legal["process_numbers"])
    if inherited:
        legal["fields"] = dict(inherited)
    if email is not None:
        apply_email(legal, email)
    for companion in companion_files(path) if companions is None else companions:
        data, problem = read_companion(companion)
        if problem:
            warnings.append(problem)
        if data:
            apply_companion(legal, data, companion.name, warnings)
    return legal, warnings
