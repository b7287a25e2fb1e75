"""The evidence table (`casetrack table`, build_evidence_table): for each question the best cited
passages, one row each, ready to paste into a memo or to build a chronology or an issue table.

Rows are built from a search's JSON (`search/output.py`), so the table holds exactly what
`casetrack search --json` and search_case return: the pin-cite (the lines that answer) and its
text, else the passage's. With `by_document`, each row is a different document's best passage.
A question nothing answers still gets its row (no citation, `no_good_match` yes), so the table
shows every question asked.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from typing_extensions import TypedDict

from casetrack.domain.views import HitJson, SearchJson
from casetrack.errors import CaseTrackError

MAX_PASSAGE_CHARS = 1200  # of a row's passage: a memo quotes lines, not pages
MAX_QUESTIONS = 500
BY_DOCUMENT_DEPTH = 20  # documents ranked per question with by_document


class EvidenceRow(TypedDict):
    """One row of the evidence table (the file's columns are these keys, in this order)."""

    question: str
    rank: int | None  # 1 = best; None: nothing found for the question
    citation: str  # the pin-cite: "Contract.pdf, p. 12, para. 8, ll. 1-4"
    document: str
    page: int | None
    lines: str  # "1-4" ("" when nothing was found)
    passage: str  # the pin-cite's text (the chunk's when the pin has none), trimmed
    score: float | None  # the result's relevance, 0-1 (search's readable score)
    match: str  # relevance's label: exact | strong | good | weak | poor
    no_good_match: bool  # nothing in the case clearly answers this question
    document_id: str
    chunk_id: str  # for get_chunk / `casetrack chunk`: the passage in full


EVIDENCE_COLUMNS = (
    "question",
    "rank",
    "citation",
    "document",
    "page",
    "lines",
    "passage",
    "score",
    "match",
    "no_good_match",
)


def _trim(text: str, most: int = MAX_PASSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most].rsplit(" ", 1)[0] + " ..."


def _lines(hit: HitJson) -> str:
    first, last = hit["source"]["line_start"], hit["source"]["line_end"]
    return str(first) if first == last else f"{first}-{last}"


def _row(question: str, rank: int, hit: HitJson, no_good_match: bool) -> EvidenceRow:
    return {
        "question": question,
        "rank": rank,
        "citation": hit["citation"],
        "document": hit["source"]["document"],
        "page": hit["source"]["page"],
        "lines": _lines(hit),
        "passage": _trim(hit["snippet"] or hit["text"]),
        "score": hit["relevance"],
        "match": hit["match"],
        "no_good_match": no_good_match,
        "document_id": hit["source"]["document_id"],
        "chunk_id": hit["chunk_id"],
    }


def search_top_k(per_question: int, by_document: bool) -> int:
    """How many results to ask the search for: `per_question`, or with `by_document` enough ranked
    documents that the ones with the best passages are among them."""
    return max(per_question, BY_DOCUMENT_DEPTH) if by_document else per_question


def evidence_rows(
    question: str, response: SearchJson, per_question: int, by_document: bool = False
) -> list[EvidenceRow]:
    """The rows of one question from its search (top_k = `search_top_k`, and per_document when
    `by_document`). By document, each document's best passage, the best passage first (the search
    ranks documents by all their passages together: "which document says X"; a table row is one
    passage, so rows go by the passage's own rank, as without by_document)."""
    if by_document:
        documents = sorted(response.get("documents") or [], key=lambda d: d["best"]["score"], reverse=True)
        hits = [d["best"] for d in documents]
    else:
        hits = response["results"]
    rows = [
        _row(question, i, h, response["no_good_match"]) for i, h in enumerate(hits[:per_question], start=1)
    ]
    if rows:
        return rows
    return [
        {
            "question": question,
            "rank": None,
            "citation": "",
            "document": "",
            "page": None,
            "lines": "",
            "passage": "",
            "score": None,
            "match": "",
            "no_good_match": True,
            "document_id": "",
            "chunk_id": "",
        }
    ]


@dataclass(frozen=True)
class Asked:
    """One question of a questions file, with the caller's words for its answer when the file has them."""

    question: str
    keywords: tuple[str, ...] = ()
    likely_wording: str | None = None


def caller_words(row: dict[str, str]) -> tuple[tuple[str, ...], str | None]:
    """A CSV row's optional `keywords` (separated by `;`) and `likely_wording` columns."""
    keywords = tuple(k.strip() for k in row.get("keywords", "").split(";") if k.strip())
    return keywords, row.get("likely_wording", "").strip() or None


def read_asked(path: Path) -> list[Asked]:
    """The questions of a file (see `read_questions`); a .csv may add `keywords` (separated by `;`)
    and `likely_wording` columns: the searcher's words for each answer (search_case's own)."""
    questions = read_questions(path)
    if path.suffix.lower() != ".csv":
        return [Asked(q) for q in questions]
    rows = [r for r in csv_rows(path.read_text(encoding="utf-8-sig"), path) if r.get("question", "").strip()]
    return [Asked(r["question"].strip(), *caller_words(r)) for r in rows]


def read_questions(path: Path) -> list[str]:
    """The questions of a file: one per line (blank lines and `#` comments left out), or a .csv
    with a `question` column."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as e:
        raise CaseTrackError(
            f"Questions file not found: {path}", "Check the path (quote it if it has spaces)."
        ) from e
    except (OSError, UnicodeDecodeError) as e:
        raise CaseTrackError(
            f"Cannot read the questions file {path}: {e}.", "Save it as UTF-8 text, one question per line."
        ) from e
    if path.suffix.lower() == ".csv":
        questions = [q.strip() for q in csv_column(text, "question", path)]
    else:
        questions = [line.strip() for line in text.splitlines()]
        questions = [q for q in questions if not q.startswith("#")]
    questions = [q for q in questions if q]
    if not questions:
        raise CaseTrackError(
            f"{path} holds no questions.", "Write one question per line (lines starting with # are comments)."
        )
    if len(questions) > MAX_QUESTIONS:
        raise CaseTrackError(
            f"{path} holds {len(questions)} questions; at most {MAX_QUESTIONS} at a time.",
            "Split the file and build one table per part.",
        )
    return questions


def csv_rows(text: str, path: Path) -> list[dict[str, str]]:
    """A CSV's rows keyed by its header's names (lower case, trimmed); comma, semicolon (Excel in
    Portuguese and other locales) or tab separated."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise CaseTrackError(
            f"{path} is empty or has no header row.", "Put the column names on the first line."
        )
    delimiter = max((",", ";", "\t"), key=lines[0].count)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    reader.fieldnames = [(f or "").strip().lower() for f in reader.fieldnames or []]
    return [{k: (v or "").strip() for k, v in row.items() if isinstance(k, str)} for row in reader]


def csv_column(text: str, column: str, path: Path) -> Sequence[str]:
    rows = csv_rows(text, path)
    header = text.splitlines()[0]
    if rows and column not in rows[0] or not rows and column not in header.lower():
        raise CaseTrackError(
            f"{path} has no '{column}' column (its header: {header.strip()[:200]}).",
            f"Name the column of questions '{column}' on the first line, or use a .txt file "
            "with one question per line.",
        )
    return [row.get(column, "") for row in rows]
