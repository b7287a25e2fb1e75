from __future__ import annotations

import random

from casetrack.chunk.chunker import ChunkingConfig, approximate_token_counts, chunk_document
from casetrack.chunk.sentences import sentence_spans
from casetrack.domain import FileType, ParsedDocument
from casetrack.parse.pagebuilder import PageBuilder

WORDS = ["the", "contract", "shall", "party", "notice", "agreement", "term", "Lessee", "payment", "days"]


def _doc(paragraphs: int, seed: int = 7, pages: int = 1) -> ParsedDocument:
    rng = random.Random(seed)
    built = []
    for number in range(1, pages + 1):
        b = PageBuilder(number)
        for _ in range(paragraphs):
            sentences = []
            for _ in range(rng.randint(1, 6)):
                words = [rng.choice(WORDS) for _ in range(rng.randint(6, 40))]
                sentences.append(" ".join(words).capitalize() + ".")
            words = " ".join(sentences).split()
            b.add_paragraph([" ".join(words[i : i + 12]) for i in range(0, len(words), 12)])
        built.append(b.build())
    return ParsedDocument(FileType.PDF, tuple(built))


def test_chunks_are_exact_slices_with_consistent_provenance() -> None:
    doc = _doc(30, pages=3)
    chunks = chunk_document(doc)
    assert len(chunks) > 6
    for c in chunks:
        page = doc.pages[c.page_index]
        assert c.page == page.number
        assert page.text[c.char_start : c.char_end] == c.text
        first, last = page.line_at(c.char_start), page.line_at(c.char_end - 1)
        assert first is not None and last is not None
        assert (c.line_start, c.line_end) == (first.number, last.number)
        assert c.line_start <= c.line_end and c.paragraph_start <= c.paragraph_end
        assert c.text == c.text.strip()
    assert [c.seq for c in chunks] == list(range(len(chunks)))


def test_sizes_respect_the_limit_and_consecutive_chunks_overlap() -> None:
    cfg = ChunkingConfig()
    doc = _doc(40)
    chunks = chunk_document(doc, config=cfg)
    counts = approximate_token_counts([c.text for c in chunks])
    assert max(counts) <= cfg.max_tokens + 5
    overlaps = sum(1 for a, b in zip(chunks, chunks[1:], strict=False) if b.char_start < a.char_end)
    assert overlaps >= len(chunks) // 2
    # The whole page is covered: no text falls between chunks.
    page = doc.pages[0]
    covered = 0
    for c in chunks:
        assert c.char_start <= covered + 2 or page.text[covered : c.char_start].strip() == ""
        covered = max(covered, c.char_end)
    assert page.text[covered:].strip() == ""


def test_chunks_never_cross_pages() -> None:
    doc = _doc(3, pages=4)
    chunks = chunk_document(doc)
    assert {c.page for c in chunks} == {1, 2, 3, 4}


def test_an_over_long_sentence_is_split_at_words() -> None:
    b = PageBuilder(None)
    b.add_paragraph([" ".join(["word"] * 3000)])
    doc = ParsedDocument(FileType.TEXT, (b.build(),))
    chunks = chunk_document(doc)
    assert len(chunks) >= 5
    assert all(not c.text.startswith(" ") and "wor d" not in c.text for c in chunks)


def test_citation_form() -> None:
    doc = _doc(2)
    c = chunk_document(doc)[0]
    cite = c.provenance("Contract.pdf", "abc").citation()
    assert cite.startswith("Contract.pdf, p. 1, para")
    assert ", ll. " in cite or ", l. " in cite


def test_sentences_keep_legal_abbreviations() -> None:
    text = (
        "See Art. 5 of the Lei nº 8.078. The U.S. court agreed. Smith v. Jones, 5 F.3d 1 (1990) applies. Done"
    )
    spans = sentence_spans(text, 0, len(text))
    sentences = [text[s:e] for s, e in spans]
    assert sentences == [
        "See Art. 5 of the Lei nº 8.078.",
        "The U.S. court agreed.",
        "Smith v. Jones, 5 F.3d 1 (1990) applies.",
        "Done",
    ]
