"""How well a firm's own case is served (`casetrack eval --case X known.csv`): questions whose
answer the firm knows (a document and a page, or a quote), searched as a lawyer would; hit@1,
hit@5 and MRR, and the questions that miss.

A result is a hit when it is in the expected document and
- the row gives a quote: the quote is on the result's page (matched as `verify` matches a quote:
  exact or close, so OCR noise and typography do not matter; an unpaged document: inside the
  result's passage);
- else the row gives a page: the result is on that page;
- else (document only): any result in the document.
A question whose search fails, or whose document is not in the case, is a miss, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from typing_extensions import TypedDict

from casetrack.app.evidence import caller_words, csv_rows
from casetrack.domain.views import DocumentSummary, HitJson, SearchJson
from casetrack.errors import CaseTrackError

DEPTH = 10  # results read per question: MRR@10
MAX_ROWS = 2000

# (quote, document_id, page, line_start, line_end) -> verify's verdict at that place
Verify = Callable[[str, str, int | None, int | None, int | None], str]


class KnownRow(TypedDict):
    line: int  # the row's line in the file (the header is line 1)
    question: str
    document: str
    page: int | None
    quote: str
    problem: str | None  # a row that cannot be judged (a page that is not a number): a miss, said why
    keywords: list[str]  # the searcher's alternative searches (optional column, separated by ";")
    likely_wording: str | None  # the searcher's guess of the answer's wording (optional column)


class EvalQuestion(TypedDict):
    """One known question's outcome."""

    line: int
    question: str
    document: str
    page: int | None
    quote: str
    rank: int | None  # of the first hit among the top DEPTH results; None: a miss
    found: str  # the hit's citation ("" on a miss)
    top: str  # the first result's citation, to see what came instead ("" when none)
    error: str | None  # why the question could not be searched or judged


class EvalReport(TypedDict):
    """`casetrack eval --json`."""

    case: str
    questions: int
    hits_at_1: int
    hits_at_5: int
    hit_at_1: float
    hit_at_5: float
    mrr: float  # mean reciprocal rank over the top DEPTH results (a miss adds 0)
    misses: int  # no hit in the top DEPTH results
    depth: int
    rows: list[EvalQuestion]


def _page(value: str) -> tuple[int | None, str | None]:
    if not value:
        return None, None
    digits = re.fullmatch(r"\s*(?:p(?:age|g)?\.?\s*)?(\d+)\s*", value, re.IGNORECASE)
    if digits is None:
        return None, f"page '{value}' is not a page number"
    return int(digits.group(1)), None


def read_known(path: Path) -> list[KnownRow]:
    """The rows of a known-answers CSV: header `question, document, page` or `question, document,
    quote` (both page and quote may be there; a row's quote, when it has one, decides)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as e:
        raise CaseTrackError(
            f"Known-answers file not found: {path}", "Check the path (quote it if it has spaces)."
        ) from e
    except (OSError, UnicodeDecodeError) as e:
        raise CaseTrackError(f"Cannot read {path}: {e}.", "Save it as a UTF-8 CSV file.") from e
    rows = csv_rows(text, path)
    header = {h.strip().lower() for h in re.split(r"[,;\t]", text.splitlines()[0])}
    if not {"question", "document"} <= header or not header & {"page", "quote"}:
        raise CaseTrackError(
            f"{path} needs a header row with the columns question, document and page or quote "
            f"(it has: {', '.join(sorted(h for h in header if h)) or 'none'}).",
            "Put `question,document,page` (or `question,document,quote`) on the first line, one known answer "
            "per row below it.",
        )
    known: list[KnownRow] = []
    for number, row in enumerate(rows, start=2):
        if not any(row.values()):
            continue
        page, problem = _page(row.get("page", ""))
        if not row.get("question") or not row.get("document"):
            problem = "the row has no question or no document"
        known.append(
            {
                "line": number,
                "question": row.get("question", ""),
                "document": row.get("document", ""),
                "page": page,
                "quote": row.get("quote", ""),
                "problem": problem,
                "keywords": list(caller_words(row)[0]),
                "likely_wording": caller_words(row)[1],
            }
        )
    if not known:
        raise CaseTrackError(
            f"{path} has a header but no rows.", "Add one known answer per row below the header."
        )
    if len(known) > MAX_ROWS:
        raise CaseTrackError(
            f"{path} has {len(known)} rows; at most {MAX_ROWS} at a time.", "Split the file."
        )
    return known


def resolve_documents(names: Sequence[str], documents: Sequence[DocumentSummary]) -> dict[str, str | None]:
    """Each expected document (a name or an id as `documents list` shows) -> its id, or None when
    the case has no such document (exact name or id first, then any case and id prefix)."""
    out: dict[str, str | None] = {}
    for name in names:
        wanted = name.strip()
        exact = [d for d in documents if wanted in (d["name"], d["document_id"])]
        loose = [
            d
            for d in documents
            if d["name"].casefold() == wanted.casefold()
            or (len(wanted) >= 6 and d["document_id"].startswith(wanted))
        ]
        found = exact or loose
        out[name] = found[0]["document_id"] if len(found) == 1 or exact else None
    return out


def _is_hit(
    row: KnownRow, doc_id: str, hit: HitJson, verify: Verify, seen: dict[tuple[int | None, str], bool]
) -> bool:
    source = hit["source"]
    if source["document_id"] != doc_id:
        return False
    if row["quote"]:
        chunk = hit["chunk_source"]
        place = (
            chunk["page"],
            "" if chunk["page"] is not None else f"{chunk['line_start']}-{chunk['line_end']}",
        )
        if place not in seen:
            lines = (None, None) if chunk["page"] is not None else (chunk["line_start"], chunk["line_end"])
            seen[place] = verify(row["quote"], doc_id, chunk["page"], *lines) in ("exact", "close")
        return seen[place]
    if row["page"] is not None:
        return row["page"] in (source["page"], hit["chunk_source"]["page"])
    return True


def judge(row: KnownRow, doc_id: str | None, response: SearchJson, verify: Verify) -> EvalQuestion:
    """Where the first hit of `row` is among the results (see the module docstring)."""
    results = response["results"][:DEPTH]
    out: EvalQuestion = {
        "line": row["line"],
        "question": row["question"],
        "document": row["document"],
        "page": row["page"],
        "quote": row["quote"],
        "rank": None,
        "found": "",
        "top": results[0]["citation"] if results else "",
        "error": None,
    }
    if doc_id is None:
        out["error"] = (
            f"the case has no document '{row['document']}' (`casetrack documents list` shows their names "
            "and ids)"
        )
        return out
    seen: dict[tuple[int | None, str], bool] = {}
    for rank, hit in enumerate(results, start=1):
        if _is_hit(row, doc_id, hit, verify, seen):
            out["rank"], out["found"] = rank, hit["citation"]
            break
    return out


def failed(row: KnownRow, error: str) -> EvalQuestion:
    """A question that could not be searched or judged: a miss, with why."""
    return {
        "line": row["line"],
        "question": row["question"],
        "document": row["document"],
        "page": row["page"],
        "quote": row["quote"],
        "rank": None,
        "found": "",
        "top": "",
        "error": error,
    }


def summarise(case: str, rows: list[EvalQuestion]) -> EvalReport:
    n = len(rows)
    at1 = sum(1 for r in rows if r["rank"] == 1)
    at5 = sum(1 for r in rows if r["rank"] is not None and r["rank"] <= 5)
    mrr = sum(1.0 / r["rank"] for r in rows if r["rank"] is not None) / n if n else 0.0
    return {
        "case": case,
        "questions": n,
        "hits_at_1": at1,
        "hits_at_5": at5,
        "hit_at_1": round(at1 / n, 4) if n else 0.0,
        "hit_at_5": round(at5 / n, 4) if n else 0.0,
        "mrr": round(mrr, 4),
        "misses": sum(1 for r in rows if r["rank"] is None),
        "depth": DEPTH,
        "rows": rows,
    }
