"""The case's table of authorities (issue 15): every authority its documents cite (case law,
statutes, súmulas, US citations with their short forms and id. resolved), most cited first, each
with the documents and pin-cites that cite it.

Ingest records where each document cites each authority (`meta["legal"]["cites"]`: canonical
key -> display text, kind, [chunk seq, start, end] places; ingest/legal_meta.py); this module
only reads the journal and the cited chunks, so it costs a few milliseconds per authority shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from casetrack.legal.us_citations import case_name
from casetrack.search.entities.words import snippet_around
from casetrack.search.pincite.provenance import lines_cite
from casetrack.store.case_store import CaseStore, chunk_id_for
from casetrack.store.chunk_view import provenance

KINDS = ("legislation", "jurisprudence", "us_case", "us_statute", "us_rule")


@dataclass
class Authority:
    key: str  # canonical: "410 U.S. 113", "cdc art. 14", "súmula 7 stj"
    text: str  # as the first citing document writes it
    kind: str  # one of KINDS
    documents: int = 0
    mentions: int = 0
    cited_in: list[dict[str, Any]] = field(default_factory=list)  # document, document_id, citation, snippet
    name: str | None = None  # a US case's name: "Carroll v. National Surety Co."

    @property
    def title(self) -> str:
        """How a table of authorities lists it: "Carroll v. National Surety Co., 24 F.2d 268"."""
        return f"{self.name}, {self.text}" if self.name else self.text

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "text": self.text,
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "documents": self.documents,
            "mentions": self.mentions,
            "cited_in": self.cited_in,
        }


def list_authorities(
    store: CaseStore, top_k: int = 50, per_authority: int = 3, kind: str | None = None
) -> tuple[list[Authority], int]:
    """The `top_k` most cited authorities (by citing documents, then mentions) with up to
    `per_authority` pin-cites each, and how many authorities the case cites in all."""
    entries = {e.doc_id: e for e in store.documents()}
    found: dict[str, Authority] = {}
    places: dict[str, list[tuple[str, int, int, int]]] = {}  # key -> (doc_id, seq, start, end)
    for entry in entries.values():
        for key, cite in ((entry.meta.get("legal") or {}).get("cites") or {}).items():
            if (kind and cite.get("kind") != kind) or cite.get("kind") not in KINDS:
                continue
            authority = found.setdefault(
                key, Authority(key, " ".join(str(cite.get("text") or key).split()), str(cite.get("kind")))
            )
            authority.name = authority.name or cite.get("name") or None
            at = [p for p in cite.get("at") or [] if isinstance(p, list) and len(p) == 3]
            authority.documents += 1
            authority.mentions += len(at)
            places.setdefault(key, []).extend(
                (entry.doc_id, int(s), int(a), int(b)) for s, a, b in at[:per_authority]
            )
    ranked = sorted(found.values(), key=lambda a: (-a.documents, -a.mentions, a.key))
    shown = ranked[:top_k]
    wanted = {(d, s): chunk_id_for(d, entries[d].gen, s) for a in shown for d, s, _, _ in places[a.key]}
    rows = store.lance.fetch_chunks(sorted(set(wanted.values()))) if wanted else {}
    for authority in shown:
        seen: set[str] = set()
        for doc_id, seq, start, end in places[authority.key]:
            if len(authority.cited_in) >= per_authority or doc_id in seen:
                continue
            row = rows.get(wanted[(doc_id, seq)])
            if row is None:
                continue
            seen.add(doc_id)
            authority.cited_in.append(_place(row, entries, start, end))
            if authority.kind == "us_case" and not authority.name:  # stored before ingest read names
                authority.name = case_name(str(row["text"]), start)
    return shown, len(found)


def _place(row: dict[str, Any], entries: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    text = str(row["text"])
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    prov = provenance(row, entries)
    cite = lines_cite(prov, row, start, end)
    return {
        "document": prov.document,
        "document_id": prov.document_id,
        "chunk_id": str(row["chunk_id"]),
        "citation": cite.citation(),
        "snippet": snippet_around(text, start, end),
    }


def recorded_mentions(
    store: CaseStore, entity: str, entries: dict[str, Any], doc_ids: set[str] | None = None
) -> list[tuple[dict[str, Any], int, int]]:
    """(chunk row, start, end) of each place ingest recorded for the authority or process number
    `entity` names, however the document writes it ("art. 14 do CDC" = "artigo 14 da Lei
    8.078/90"; a CNJ number with or without punctuation). [] when `entity` is not one."""
    from casetrack.legal.extract import extract_entities

    text = entity.strip()
    keys = {
        e.key
        for e in extract_entities(text, "mixed")
        if e.key and (e.kind in KINDS or e.kind in ("cnj", "process")) and e.end - e.start >= 0.6 * len(text)
    }
    if not keys:
        return []
    places: list[tuple[str, int, int]] = []
    for doc_id, entry in entries.items():
        if doc_ids is not None and doc_id not in doc_ids:
            continue
        cites = (entry.meta.get("legal") or {}).get("cites") or {}
        for key in keys & set(cites):
            for at in cites[key].get("at") or []:
                if isinstance(at, list) and len(at) == 3:
                    places.append((chunk_id_for(doc_id, entry.gen, int(at[0])), int(at[1]), int(at[2])))
    rows = store.lance.fetch_chunks(sorted({p[0] for p in places})) if places else {}
    return [(rows[c], a, b) for c, a, b in places if c in rows]
