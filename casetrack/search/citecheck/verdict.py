"""verify_citation: is this quote at this cite? One verdict, with the text actually there.

1. The cited place is read back from the stored chunks (`cite_text`): the cited lines,
   paragraph(s) or page(s) of the resolved document, inside the text around them.
2. The quote is matched there (`cite_match`). A match that starts inside the cited place, or
   lies at least half inside it, is *at the cite* (a quote that runs a line past the cite is
   still at it; `found_at` gives its exact lines).
3. Unless it is exactly there, the case is searched: BM25 over the quote's words picks
   candidate chunks, each is read with its neighbours and the quote matched in them.
4. Verdict: ``exact`` at the cite; else ``elsewhere`` if it is exactly somewhere else; else
   ``close`` if it is at the cite with small differences; else ``elsewhere`` if it is close
   somewhere else; else ``not_found``. A cited place whose only differences are misreadings
   (OCR) stays ``close`` even when a clean copy exists elsewhere.

No model is loaded: this is text matching over what ingest stored, typically tens of ms.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from casetrack.domain.views import DifferenceJson, VerifyJson
from casetrack.errors import CaseTrackError
from casetrack.quote.diff import looks_portuguese, words
from casetrack.search.citecheck.citation import CiteSpec
from casetrack.search.citecheck.cited_text import TEXT_COLUMNS, Region, document_where, pages_of, read_rows
from casetrack.search.citecheck.quote_match import CLOSE, EXACT, Match, Quote, could_match, match_in, overlap
from casetrack.store.case_store import CaseStore, chunk_id_for, gen_of_chunk
from casetrack.store.documents import resolve_document
from casetrack.store.journal import JournalEntry

EXACT_V, CLOSE_V, ELSEWHERE, NOT_FOUND = "exact", "close", "elsewhere", "not_found"
VERDICTS = (EXACT_V, CLOSE_V, ELSEWHERE, NOT_FOUND)
BM25_CANDIDATES = 30  # chunks the keyword index proposes
CANDIDATE_BATCH = 10  # runs of those chunks read and matched at a time, until one holds the quote exactly
LINE_CONTEXT = 10  # lines (paragraphs: 1) read around a cited range, for quotes that run past it
TRIM_CHARS = 600  # a cited place longer than this and 2.5x the quote is shown trimmed to the match
MAX_QUOTE_CHARS = 5000

_QUOTE_MARKS = re.compile(r"[\"“”«»„]")


@dataclass
class Cited:
    """The cited place: a region of text and the cited span inside it."""

    region: Region
    lo: int
    hi: int


@dataclass
class AtCite:
    """What the cited place holds for the quote."""

    match: Match | None  # the best match at the cite (any grade)
    nearby: Match | None  # a match next to the cite, mostly outside it
    cited: Cited | None


def _range_where(column_start: str, column_end: str, first: int, last: int) -> str:
    return f"{column_start} <= {int(last)} AND {column_end} >= {int(first)}"


def _cited_places(store: CaseStore, entry: JournalEntry, cite: CiteSpec) -> tuple[list[Cited], str | None]:
    """The regions the cite names (several when it gives no page of a paged document)."""
    if cite.page_start is not None:
        # The page after the cited ones is read too: a quote that starts on the cited page and
        # runs over the page break is at the cite (found_at then says `pp. 12-13`).
        end = cite.page_end if cite.page_end is not None else cite.page_start
        rows = read_rows(
            store, document_where(entry, f"page >= {int(cite.page_start)} AND page <= {int(end) + 1}")
        )
        if not any(r.get("page") is not None and int(r["page"]) <= end for r in rows):
            return [], _no_page(entry, cite.page_start)
        region = Region.of(entry, pages_of(rows))
        cited = [i for i, p in enumerate(region.pages) if p.page is not None and p.page <= end]
        hi = region.starts[cited[-1]] + len(region.pages[cited[-1]].text)
        if end > cite.page_start or (cite.line_start is None and cite.paragraph_start is None):
            return [Cited(region, 0, hi)], None
        return _pinned(entry, [region], cite)
    if cite.line_start is not None and cite.line_end is not None:
        where = _range_where(
            "line_start", "line_end", cite.line_start - LINE_CONTEXT, cite.line_end + LINE_CONTEXT
        )
    elif cite.paragraph_start is not None and cite.paragraph_end is not None:
        where = _range_where(
            "paragraph_start", "paragraph_end", cite.paragraph_start - 1, cite.paragraph_end + 1
        )
    else:
        where = ""
    rows = read_rows(store, document_where(entry, where))
    regions = [Region.of(entry, [page]) for page in pages_of(rows)]
    if not cite.pinned:
        return [Cited(r, 0, len(r.text)) for r in regions], None
    return _pinned(entry, regions, cite)


def _no_page(entry: JournalEntry, page: int) -> str:
    count = entry.meta.get("page_count")
    if not count or entry.meta.get("file_type") not in ("pdf", "docx"):
        return f"{entry.name} has no pages: cite it by lines or paragraphs ({entry.name}, ll. 30-34)"
    return f"{entry.name} has no page {page}: it has {count} page{'s' if count != 1 else ''}"


def _pinned(entry: JournalEntry, regions: list[Region], cite: CiteSpec) -> tuple[list[Cited], str | None]:
    """The cited lines (else paragraphs) inside each one-page region that has them."""
    out: list[Cited] = []
    for region in regions:
        page = region.pages[0]
        if cite.line_start is not None and cite.line_end is not None:
            span = page.span_of(page.lines, cite.line_start, cite.line_end)
        elif cite.paragraph_start is not None and cite.paragraph_end is not None:
            span = page.span_of(page.paragraphs, cite.paragraph_start, cite.paragraph_end)
        else:
            span = (0, len(page.text))
        if span is not None:
            out.append(Cited(region, span[0], span[1]))
    if out:
        return out, None
    wanted = cite.pins().split(", ")[-1]
    first = regions[0].pages[0] if regions else None
    if first is None or first.page is None or cite.page_start is None:
        return [], f"{entry.name} has no {wanted}"
    what, have = ("lines", first.lines) if cite.line_start is not None else ("paragraphs", first.paragraphs)
    numbers = [n.number for n in have]
    there = f": it has {what} {min(numbers)}-{max(numbers)}" if numbers else ""
    return [], f"p. {first.page} of {entry.name} has no {wanted}{there}"


def _at_cite(quote: Quote, places: list[Cited]) -> AtCite:
    """The best match at the cited place(s), and one just outside it if that is where it is."""
    best = AtCite(None, None, places[0] if places else None)
    if len(places) > 3:  # a cite without a page: only the pages that may hold the quote
        places = [c for c in places if could_match(quote, c.region)]
    for cited in places:
        around = match_in(quote, cited.region)
        if around is None:
            continue
        found: Match | None
        if around.at(cited.region, cited.lo, cited.hi):
            found, nearby = around, None
        else:
            found, nearby = match_in(quote, cited.region, cited.lo, cited.hi), around
        if found is not None and (best.match is None or found.rank > best.match.rank):
            best = AtCite(found, nearby, cited)
        elif best.nearby is None and nearby is not None:
            best.nearby = nearby
    return best


def _candidate_runs(store: CaseStore, quote: str) -> list[tuple[JournalEntry, int, int, int]]:
    """Chunks BM25 finds for the quote's words, as (document, generation, first seq, last seq)
    runs in rank order: hits a chunk or two apart in one document make one run."""
    hits = store.bm25.search(_QUOTE_MARKS.sub(" ", quote), BM25_CANDIDATES)
    visible = store.visible()
    entries = {e.doc_id: e for e in store.documents()}
    runs: list[tuple[JournalEntry, int, int, int]] = []
    for hit in hits:
        gen, seq = gen_of_chunk(hit.chunk_id), int(hit.chunk_id.rsplit("-", 1)[1])
        if visible.get(hit.doc_id) != gen or hit.doc_id not in entries:
            continue
        near = next(
            (i for i, r in enumerate(runs) if r[0].doc_id == hit.doc_id and r[2] - 2 <= seq <= r[3] + 2), None
        )
        if near is None:
            runs.append((entries[hit.doc_id], gen, seq, seq))
        else:
            entry, _gen, first, last = runs[near]
            runs[near] = (entry, gen, min(first, seq), max(last, seq))
    return runs


def _regions(store: CaseStore, runs: list[tuple[JournalEntry, int, int, int]]) -> list[Region]:
    """Each run of chunks read with one neighbour on each side."""
    wanted = [[chunk_id_for(e.doc_id, g, s) for s in range(max(0, a - 1), b + 2)] for e, g, a, b in runs]
    rows = store.lance.fetch_chunks(sorted({c for ids in wanted for c in ids}), TEXT_COLUMNS)
    regions: list[Region] = []
    for run, ids in zip(runs, wanted, strict=True):
        near = [rows[c] for c in ids if c in rows]
        if near:
            regions.append(Region.of(run[0], pages_of(near)))
    return regions


def _elsewhere(
    store: CaseStore, quote: Quote, at: AtCite, places: list[Cited], cited_doc: str
) -> list[Match]:
    """Exact and close matches of the quote in the case, best first (on a tie, the cited document's
    first: a copy of it, such as a condensed transcript, must not take its place), one per place. A match inside the
    cited place is a match at the cite: it replaces `at.match` when it is better. The BM25
    candidates are read a batch at a time while a batch still holds something like the quote and
    none holds it exactly."""
    runs = _candidate_runs(store, quote.text)
    found = [at.nearby] if at.nearby is not None and at.nearby.grade in (EXACT, CLOSE) else []
    for batch in range(0, len(runs), CANDIDATE_BATCH):
        likely = [r for r in _regions(store, runs[batch : batch + CANDIDATE_BATCH]) if could_match(quote, r)]
        for region in likely:
            if (m := match_in(quote, region)) is not None and m.grade in (EXACT, CLOSE):
                found.append(m)
        if not likely or any(m.grade == EXACT for m in found):
            break  # found, or BM25's lower ranks hold nothing like it either
    found.sort(key=lambda m: (m.rank, m.region.entry.doc_id == cited_doc), reverse=True)
    out: list[Match] = []
    for m in found:
        cited = next((c for c in places if m.at(c.region, c.lo, c.hi)), None)
        if cited is not None:
            if at.match is None or m.rank > at.match.rank:
                at.match, at.cited = m, cited
            continue
        if not any(m.same_place(o.region, o.start, o.end) for o in out):
            out.append(m)
    return out


def _text_at_cite(at: AtCite, quote: Quote) -> tuple[str, bool]:
    """The cited text, cut to the lines around the best match when the place is long."""
    if at.cited is None:
        return "", False
    c = at.cited
    text = c.region.text[c.lo : c.hi]
    if len(text) <= max(TRIM_CHARS, 2.5 * len(quote.text)):
        return text.strip(), False
    m = at.match
    span = c.region.locate(m.region.page_spans(m.start, m.end)) if m is not None else None
    if span is not None and overlap(span, (c.lo, c.hi)) > 0:
        a, b = c.region.whole_lines(max(span[0], c.lo), min(span[1], c.hi))
        return c.region.text[max(a, c.lo) : min(b, c.hi)].strip(), True
    return text[:TRIM_CHARS].rsplit(" ", 1)[0].strip() + " ...", True


def verify_citation(store: CaseStore, quote: str, cite: CiteSpec, citation: str | None = None) -> VerifyJson:
    """The verdict on `quote` at `cite` in this case (see the module docstring)."""
    started = time.perf_counter()
    text = quote.strip()
    if not words(text):
        raise CaseTrackError(
            "The quote is empty.", 'Give the quoted words, e.g. --quote "the Lessee shall pay".'
        )
    if len(text) > MAX_QUOTE_CHARS:
        raise CaseTrackError(
            f"The quote is {len(text):,} characters long; at most {MAX_QUOTE_CHARS:,} are checked.",
            "Check a long quote in parts.",
        )
    entry = resolve_document(store, cite.document)
    q = Quote.of(text, looks_portuguese(words(text), default=store.record.language == "pt"))
    places, problem = _cited_places(store, entry, cite)
    at = _at_cite(q, places)
    exact_here = at.match is not None and at.match.grade == EXACT
    others = [] if exact_here else _elsewhere(store, q, at, places, entry.doc_id)
    verdict, shown = _decide(at.match, others)
    text_at_cite, trimmed = _text_at_cite(at, q)
    outcome = _Outcome(q, cite, citation, entry, verdict, shown, others, at, problem, text_at_cite, trimmed)
    return _result(store, outcome, started)


def _decide(here: Match | None, others: list[Match]) -> tuple[str, Match | None]:
    best = others[0] if others else None
    if here is not None and here.grade == EXACT:
        return EXACT_V, here
    only_misread = (
        here is not None and here.grade == CLOSE and here.diff is not None and not here.diff.substantive
    )
    if best is not None and best.grade == EXACT and not only_misread:
        return ELSEWHERE, best
    if here is not None and here.grade == CLOSE:
        return CLOSE_V, here
    if best is not None:
        return ELSEWHERE, best
    return NOT_FOUND, None


@dataclass(frozen=True)
class _Outcome:
    """What the check found, before it is written as the verdict's JSON."""

    quote: Quote
    cite: CiteSpec
    citation: str | None  # the citation as the caller wrote it
    entry: JournalEntry  # the cited document
    verdict: str
    shown: Match | None  # the match the verdict reports
    others: list[Match]  # matches elsewhere in the case
    at: AtCite
    problem: str | None  # what is wrong with the cite itself ("has no page 40")
    text_at_cite: str
    trimmed: bool


def _result(store: CaseStore, o: _Outcome, started: float) -> VerifyJson:
    q, cite, citation, entry, verdict = o.quote, o.cite, o.citation, o.entry, o.verdict
    shown, others, at, problem = o.shown, o.others, o.at, o.problem
    diff = shown.diff if shown is not None else None
    differences: list[DifferenceJson] = []
    if diff is not None:
        differences = [{"quote": d.quote, "text": d.text, "kind": d.kind} for d in diff.differences]
    changes = diff.meaning_changes if diff is not None else []
    resolved = cite.describe(entry.name)
    found_at = shown.citation() if shown is not None else None
    also = [m.citation() for m in others if m is not shown][:5] if verdict == ELSEWHERE else []
    compared = shown or at.match
    similarity = compared.similarity if compared is not None else 0.0
    return {
        "case": store.record.name,
        "verdict": verdict,
        "message": _message(verdict, resolved, found_at, differences, changes, problem, store.record.name),
        "quote": q.text,
        "citation": (citation or "").strip() or cite.describe(),
        "cite_resolved": resolved,
        "cite_problem": problem,
        "text_at_cite": o.text_at_cite,
        "text_at_cite_trimmed": o.trimmed,
        "found_at": found_at,
        "also_found_at": also,
        "differences": differences,
        "meaning_changed": bool(changes),
        "meaning_changes": changes,
        "similarity": similarity,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }


def _message(
    verdict: str,
    resolved: str,
    found_at: str | None,
    differences: list[DifferenceJson],
    changes: list[str],
    problem: str | None,
    case: str,
) -> str:
    n = len(differences)
    diffs = f"{n} difference{'s' if n != 1 else ''}"
    meaning = f"; the meaning changed ({', '.join(changes)})" if changes else ""
    if verdict == EXACT_V:
        return f"Exact: the quote is at {found_at}."
    if verdict == CLOSE_V:
        return f"Close: the quote is at {found_at} with {diffs}{meaning}."
    not_there = f"{problem}." if problem else f"The quote is not at {resolved}."
    if verdict == ELSEWHERE:
        how = "exactly" if not differences else f"with {diffs}{meaning}"
        return f"Elsewhere: {not_there} It is at {found_at} ({how})."
    return f"Not found: {not_there} It is nowhere else in case '{case}' either."
