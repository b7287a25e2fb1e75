"""E-mail threads of a case, read from the headers each e-mail keeps (`meta["email"]`, ingest):
Message-ID, In-Reply-To and References link a reply to the messages before it; messages the case
lacks the links of (a forward saved without its headers, an Outlook .msg that kept none) join a
thread by their subject without "Re:", "Fwd:", "RES:", "ENC:" ... and a shared participant.
Computed when asked (documents info), so a deleted message is never listed and e-mails ingested
before References was kept still group by their In-Reply-To and subject.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.utils import getaddresses
from typing import Any

from casetrack.domain.views import ThreadMessageJson
from casetrack.store.journal import JournalEntry

_PREFIX = re.compile(
    r"^\s*(?:(?:re|fw|fwd|aw|wg|res|enc|tr|sv|vs|rv|r)\s*(?:\[\d+\])?\s*:|\[[^\]]{1,30}\])\s*", re.I
)
_ID = re.compile(r"<([^<>\s]+)>")


def normal_subject(subject: str) -> str:
    """The subject without its reply and forward prefixes ("RE: Fwd: [EXT] Offer" -> "offer")."""
    text = subject or ""
    while True:
        stripped = _PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    return " ".join(text.casefold().split())


def _ids(value: Any) -> list[str]:
    text = str(value or "")
    found = _ID.findall(text) or text.split()
    return [i.strip().casefold() for i in found if i.strip()]


def _addresses(mail: dict[str, Any]) -> set[str]:
    values = [str(a) for key in ("from", "to", "cc") for a in mail.get(key) or []]
    return {address.casefold() for _, address in getaddresses(values) if address}


class _Groups:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def thread_groups(entries: Iterable[JournalEntry]) -> dict[str, list[JournalEntry]]:
    """doc id of each e-mail -> the e-mails of its thread (itself included), oldest first."""
    mails = {e.doc_id: e for e in entries if isinstance(e.meta.get("email"), dict)}
    groups = _Groups()
    _join_replies(mails, groups)
    _join_subjects(mails, groups)
    out: dict[str, list[JournalEntry]] = {}
    for doc_id in mails:
        out.setdefault(groups.find(doc_id), []).append(mails[doc_id])
    return {
        doc_id: sorted(members, key=lambda e: (str(e.meta["email"].get("date") or ""), e.name))
        for members in out.values()
        for doc_id in (m.doc_id for m in members)
    }


def _join_replies(mails: dict[str, JournalEntry], groups: _Groups) -> None:
    """A reply joins the messages its In-Reply-To and References name."""
    by_id = {}
    for doc_id, entry in mails.items():
        for mid in _ids(entry.meta["email"].get("message_id"))[:1]:
            by_id[mid] = doc_id
    for doc_id, entry in mails.items():
        groups.find(doc_id)
        mail = entry.meta["email"]
        for mid in _ids(mail.get("in_reply_to")) + _ids(mail.get("references")):
            if mid in by_id:
                groups.join(doc_id, by_id[mid])


def _join_subjects(mails: dict[str, JournalEntry], groups: _Groups) -> None:
    """Messages with the same subject (prefixes aside) and a participant in common."""
    by_subject: dict[str, list[str]] = {}
    for doc_id, entry in mails.items():
        subject = normal_subject(str(entry.meta["email"].get("subject") or ""))
        if subject:
            by_subject.setdefault(subject, []).append(doc_id)
    for members in by_subject.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if _addresses(mails[a].meta["email"]) & _addresses(mails[b].meta["email"]):
                    groups.join(a, b)


def thread_of(entry: JournalEntry, entries: Iterable[JournalEntry]) -> list[ThreadMessageJson]:
    """The e-mails of `entry`'s thread, oldest first ([] when it is no e-mail or alone)."""
    members = thread_groups(entries).get(entry.doc_id, [])
    if len(members) < 2:
        return []
    return [
        {
            "document_id": m.doc_id,
            "name": m.name,
            "date": m.meta["email"].get("date"),
            "sender": ", ".join(m.meta["email"].get("from") or []),
            "subject": str(m.meta["email"].get("subject") or ""),
        }
        for m in members
    ]
