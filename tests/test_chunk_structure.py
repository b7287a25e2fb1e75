"""Statute-aware chunking: chunks start at articles and carry their structural path, which
results show and the keyword index holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.chunk.chunker import chunk_document
from casetrack.chunk.structure import structure_plan
from casetrack.config import resolve_settings
from casetrack.parse import parse_file
from tests.conftest import DATA, MODELS, require

LAW = "lener_br/raw_text/Lei11788.txt"  # Lei do Estágio: 22 articles, paragraphs, incisos


def test_a_statute_is_chunked_at_its_articles_and_labelled() -> None:
    doc = parse_file(require(DATA / LAW))
    plan = structure_plan(doc)
    assert plan is not None
    drafts = plan.label(chunk_document(doc, breaks=plan.breaks))
    labelled = [d for d in drafts if d.section]
    assert len(labelled) >= len(drafts) - 1  # all but the header chunk
    assert all(d.section.startswith("Lei 11.788/2008 › Art. ") for d in labelled)  # type: ignore[union-attr]
    assert all(d.text.lstrip().startswith("Art.") for d in labelled)  # each starts at its article
    article_10 = next(d for d in labelled if d.section and "Art. 10" in d.section)
    assert "jornada de atividade" in article_10.text


CONTRACT = "legal_span_bench/cuad_pdf/Part_I"  # CUAD contracts as filed (PDF)


def test_a_contract_is_labelled_with_its_sections_and_chunked_as_before() -> None:
    """Contracts chunked at their sections measured worse, so only the labels are added: the
    same chunks as without a plan, each with the path of the numbered section it starts in."""
    pdf = next(
        p for p in sorted(require(DATA / CONTRACT).rglob("*.pdf")) if p.name.startswith("AgapeAtpCorp")
    )
    doc = parse_file(pdf)
    plan = structure_plan(doc, pdf.name)
    assert plan is not None and not plan.breaks
    plain = chunk_document(doc)
    labelled = plan.label(chunk_document(doc, breaks=plan.breaks))
    assert [(d.page_index, d.char_start, d.char_end) for d in labelled] == [
        (d.page_index, d.char_start, d.char_end) for d in plain
    ]
    sections = [d.section for d in labelled if d.section]
    assert len(sections) >= len(labelled) // 2
    # The first numbered section the chunk reaches is named: "7.1", "7.3 › (d)", "14.7 › (v)".
    assert any(s.startswith("7.") for s in sections) and all(s[0].isdigit() for s in sections)


def test_a_text_without_articles_is_chunked_as_before(tmp_path: Path) -> None:
    (tmp_path / "letter.txt").write_text(
        "Dear Sir,\n\nWe write about the delivery.\n\nYours,\nJohn", encoding="utf-8"
    )
    doc = parse_file(tmp_path / "letter.txt")
    assert structure_plan(doc) is None


@pytest.mark.slow
def test_results_show_the_path_and_the_path_is_searchable(tmp_path: Path) -> None:
    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app.create_case("Estágio", language="pt")
    assert app.ingest("Estágio", [require(DATA / LAW)])[0].ok
    hits = app.search("Estágio", "quantas horas por dia pode durar a jornada do estagiário", top_k=3).hits
    assert "Art. 10" in (hits[0].provenance.section or "") and "jornada" in hits[0].text
    # The path is in the keyword index: the article's number finds it.
    by_number = app.search("Estágio", "art. 10", top_k=3).hits
    assert any("Art. 10" in (h.provenance.section or "") for h in by_number)
