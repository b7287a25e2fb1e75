from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.store.bm25 import Bm25Index

HOSTILE = ['O\'Brien', 'Art. 5: see', '"unbalanced', "(a AND", "tenant's", "d'água", "*", "", "   ", "::", 'a"b"c']


def test_hostile_queries_never_raise(tmp_path: Path) -> None:
    index = Bm25Index(tmp_path / "bm25", "en")
    index.replace_document("d1", [("d1-1-00000", "Mr. O'Brien, the tenant's lawyer, cited Art. 5.")])
    for q in HOSTILE:
        index.search(q, 10)
    assert [h.chunk_id for h in index.search("O'Brien", 10)] == ["d1-1-00000"]


def test_phrase_queries_and_stemming(tmp_path: Path) -> None:
    index = Bm25Index(tmp_path / "bm25", "en")
    index.replace_document("d1", [("a", "the lessee shall give written notice"), ("b", "notice given in writing by the lessee")])
    assert {h.chunk_id for h in index.search("notices", 10)} == {"a", "b"}
    assert [h.chunk_id for h in index.search('"written notice"', 10)] == ["a"]


def test_portuguese_folds_accents_and_stems(tmp_path: Path) -> None:
    index = Bm25Index(tmp_path / "bm25", "pt")
    index.replace_document("d1", [("a", "O prazo para a contestação é de quinze dias."), ("b", "Outro assunto.")])
    assert [h.chunk_id for h in index.search("contestacao prazos", 10)] == ["a"]


def test_replace_delete_and_counts(tmp_path: Path) -> None:
    index = Bm25Index(tmp_path / "bm25", "en")
    index.replace_document("d1", [("d1-1-0", "alpha"), ("d1-1-1", "beta")])
    index.replace_document("d2", [("d2-1-0", "alpha")])
    index.replace_document("d1", [("d1-2-0", "gamma")])
    assert index.count_for(["d1", "d2"]) == {"d1": 1, "d2": 1}
    assert index.total() == 2
    index.delete_document("d2")
    assert index.all_doc_ids() == {"d1"}
    assert [h.chunk_id for h in index.search("gamma alpha", 10)] == ["d1-2-0"]


def test_document_filter(tmp_path: Path) -> None:
    index = Bm25Index(tmp_path / "bm25", "en")
    index.replace_document("d1", [("x", "indemnity clause")])
    index.replace_document("d2", [("y", "indemnity clause")])
    assert [h.chunk_id for h in index.search("indemnity", 10, doc_ids={"d2"})] == ["y"]


@pytest.mark.parametrize("language", ["en", "pt"])
def test_reopen_keeps_data(tmp_path: Path, language: str) -> None:
    Bm25Index(tmp_path / "bm25", language).replace_document("d1", [("x", "survives reopening")])
    assert len(Bm25Index(tmp_path / "bm25", language).search("survives", 5)) == 1
