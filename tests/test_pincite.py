"""Pin-cites: the span inside a chunk that answers the query, its provenance and its readable text."""

from __future__ import annotations

from dataclasses import replace

from casetrack.domain import ExtractionMethod, Provenance, SearchHit
from casetrack.search.pincite.layout import line_starts, sentences
from casetrack.search.pincite.provenance import pin_provenance
from casetrack.search.pincite.snippet import readable
from casetrack.search.pincite.span import pin_span
from casetrack.search.query.roles import CONTEXT_WEIGHT, term_roles
from casetrack.search.ranking.output import hit_json
from casetrack.store.analyzers import build_analyzer

EN = build_analyzer("en")

CONTRACT = (
    "ARTICLE 12\n\n"
    "Governing Law.\n\n"
    "This Agreement shall be governed by and construed in accordance with the laws of the\n"
    "State of New York, without regard to its conflict of laws principles. Each party\n"
    "submits to the jurisdiction of the courts of New York County.\n\n"
    "The Company shall pay the Distributor the fees set out in Exhibit A within thirty days\n"
    "of each invoice. Late payments bear interest at one percent per month. The Company\n"
    "may audit the Distributor once a year."
)


def chunk_prov(
    page: int | None = 3,
    line_start: int = 10,
    line_end: int = 20,
    char_start: int = 100,
    paragraph_start: int = 4,
) -> Provenance:
    return Provenance(
        "Contract.pdf",
        "doc1",
        page,
        paragraph_start,
        paragraph_start + 3,
        line_start,
        line_end,
        char_start,
        char_start + len(CONTRACT),
        ExtractionMethod.NATIVE,
    )


def pinned(query: str, **kw: object) -> str:
    start, end = pin_span(CONTRACT, term_roles(query, EN), EN, **kw)  # type: ignore[arg-type]
    return CONTRACT[start:end]


def test_best_sentence_by_query_terms() -> None:
    # Under twelve words, the best sentence takes the next one along.
    assert pinned("late payment interest") == (
        "Late payments bear interest at one percent per month. The Company\nmay audit the Distributor once a year."
    )
    assert pinned("fees set out in exhibit a") == (
        "The Company shall pay the Distributor the fees set out in Exhibit A within thirty days\nof each invoice."
    )


def test_a_short_heading_takes_the_clause_after_it() -> None:
    text = pinned("What is the governing law of this contract?")
    assert text.startswith("Governing Law.\n\nThis Agreement shall be governed")
    assert text.endswith("conflict of laws principles.")


def test_phrase_and_rare_terms_outweigh_common_words() -> None:
    # "company" and "distributor" are in several sentences; "thirty days" is one phrase in one.
    assert pinned("company distributor thirty days").startswith("The Company shall pay the Distributor")


def test_exact_span_wins_and_is_moved_off_mid_word() -> None:
    at = CONTRACT.index("bear interest")
    assert pin_span(CONTRACT, term_roles("anything", EN), EN, exact=(at + 2, at + 13)) == (at, at + 13)
    # Whitespace at its edges is dropped.
    assert pin_span(CONTRACT, term_roles("x", EN), EN, exact=(at - 1, at + 14)) == (at, at + 13)


def test_focus_decides_when_no_sentence_shares_two_terms() -> None:
    focus_at = CONTRACT.index("The Company\nmay audit")
    focus = (focus_at, len(CONTRACT))
    assert pinned("inspection rights annually", focus=focus).endswith(
        "The Company\nmay audit the Distributor once a year."
    )
    assert "Governing" not in pinned("inspection rights annually", focus=focus)
    # With two shared terms the words decide, not the focus.
    assert pinned("late payments interest", focus=focus).startswith("Late payments")


def test_a_long_sentence_is_trimmed_to_its_best_lines() -> None:
    lines = [f"the supplier shall deliver item {i} to the warehouse on schedule and" for i in range(20)]
    lines[14] = "the buyer may reject nonconforming goods within ten business days and"
    text = "\n".join(lines) + " so on."
    start, end = pin_span(text, term_roles("reject nonconforming goods", EN), EN, max_lines=6)
    starts = line_starts(text)
    first = max(i for i, s in enumerate(starts) if s <= start)
    last = max(i for i, s in enumerate(starts) if s <= end - 1)
    assert last - first + 1 == 6 and first <= 14 <= last
    assert text[start].isalnum() and not text[end - 1].isspace()


def test_sentences_never_cross_paragraphs() -> None:
    spans = sentences("Heading without period\n\nBody text here. Second one.")
    assert [s for s, _ in spans] == [0, 24, 40]


def consecutive(chunk: Provenance) -> list[int]:
    """The stored numbers of a paged chunk's lines: consecutive from its first line."""
    return list(range(chunk.line_start, chunk.line_start + len(line_starts(CONTRACT))))


def test_pin_provenance_on_a_paged_chunk_counts_lines_and_paragraphs() -> None:
    at = CONTRACT.index("Late payments")
    end = at + len("Late payments bear interest at one percent per month.")
    pin = pin_provenance(chunk_prov(), CONTRACT, at, end, consecutive(chunk_prov()))
    # Paragraph 4 is "ARTICLE 12"; the fees clause is the 4th paragraph of the chunk, line 7 of it.
    assert (pin.paragraph_start, pin.paragraph_end, pin.line_start, pin.line_end) == (7, 7, 16, 16)
    assert (pin.char_start, pin.char_end) == (100 + at, 100 + end)
    assert pin.citation() == "Contract.pdf, p. 3, para. 7, l. 16"
    two = pin_provenance(
        chunk_prov(),
        CONTRACT,
        CONTRACT.index("Governing"),
        CONTRACT.index("without regard"),
        consecutive(chunk_prov()),
    )
    assert two.citation() == "Contract.pdf, p. 3, paras. 5-6, ll. 11-13"


def test_stored_line_numbers_are_used_as_they_are() -> None:
    # A .txt: blank lines between paragraphs keep their numbers in the file.
    numbers = [1, 3, 5, 6, 7, 9, 10, 11]
    at = CONTRACT.index("The Company\nmay audit")
    pin = pin_provenance(
        chunk_prov(page=None, line_start=1, line_end=11), CONTRACT, at, len(CONTRACT), numbers
    )
    assert (pin.line_start, pin.line_end, pin.lines_citable) == (10, 11, True)
    assert pin.citation() == "Contract.pdf, para. 7, ll. 10-11"


def test_line_numbers_that_do_not_fit_are_never_cited() -> None:
    chunk = chunk_prov(page=None, line_start=1, line_end=11)
    at = CONTRACT.index("Governing")
    for wrong in (None, [1, 2]):
        pin = pin_provenance(chunk, CONTRACT, at, at + 14, wrong)
        assert not pin.lines_citable and pin.citation() == "Contract.pdf, para. 5"


def test_docx_lines_stay_uncited() -> None:
    chunk = replace(chunk_prov(page=None), lines_citable=False)
    assert ", l" not in pin_provenance(chunk, CONTRACT, 0, 10, None).citation()


def test_citation_across_pages() -> None:
    assert (
        replace(chunk_prov(), page_end=4, paragraph_end=4).citation()
        == "Contract.pdf, pp. 3-4, para. 4, ll. 10-20"
    )


def test_readable_joins_hyphenation_and_drops_footnote_numbers() -> None:
    raw = "the State of Okla-\nhoma shall pay damages.3 The\n12\ncourt held the non-\ncompete valid.¹"
    assert readable(raw) == "the State of Oklahoma shall pay damages. The court held the noncompete valid."
    assert readable("Section 3 of the 10-K and F.3d 12.\nSelf-\nEmployed") == (
        "Section 3 of the 10-K and F.3d 12. Self- Employed"
    )
    # A compound keeps its hyphen; pleading-paper margin numbers go, numbers in the text stay.
    assert readable("prevent out-of-\nstate applicants") == "prevent out-of-state applicants"
    pleading = "14 preliminary injunction and opposition\n15 argument of counsel, the Court finds"
    assert readable(pleading) == "preliminary injunction and opposition argument of counsel, the Court finds"
    assert (
        readable("closed to new cases\n23 on May 31.", margin_numbers=True)
        == "closed to new cases on May 31."
    )
    assert readable("a term of\n12 months.") == "a term of 12 months."


def test_hit_json_carries_the_pin_cite_and_the_chunk() -> None:
    chunk = chunk_prov()
    pin = pin_provenance(chunk, CONTRACT, 0, 10, consecutive(chunk))
    out = hit_json(SearchHit("c1", CONTRACT, 0.5, pin, snippet="ARTICLE 12", chunk_provenance=chunk))
    assert out["citation"] == "Contract.pdf, p. 3, para. 4, l. 10" and out["source"]["char_end"] == 110
    assert out["chunk_citation"] == "Contract.pdf, p. 3, paras. 4-7, ll. 10-20"
    assert out["chunk_source"]["char_start"] == 100 and out["text"] == CONTRACT


def test_query_terms_separate_names_context_and_the_question() -> None:
    query = (
        'Consider the contract "SUPPLY AGREEMENT" (parties named in it: Acme Corp.; Dr. Murray; mPhase); '
        "What is the notice period required to terminate this contract?"
    )
    terms = term_roles(query, EN)
    assert {"acm", "murray", "mphase", "suppli"} <= terms.names
    assert terms.role["notic"] == terms.role["termin"] == 1.0
    # The clause before the question, the parentheses and "this contract" only set the scene.
    assert terms.role["consid"] == terms.role["parti"] == terms.role["contract"] == CONTEXT_WEIGHT
    assert "what" not in terms.content
    # A Title Case keyword query has no names; a query of names only is about those names.
    assert term_roles("Governing Law", EN).names == frozenset()
    assert term_roles("Judge Smith", EN).content == ("judg", "smith")


def test_names_do_not_pull_the_pin_to_the_cover_page() -> None:
    text = (
        "This Supply Agreement is made between Acme Corp. and Beta LLC on March 3, 2020.\n\n"
        "Either party may terminate this Agreement on ninety days written notice to the other party."
    )
    query = "In the supply agreement between Acme and Beta, how much notice is needed to terminate?"
    start, end = pin_span(text, term_roles(query, EN), EN)
    assert text[start:end].startswith("Either party may terminate")
