"""Metric functions and the TXT offset mapping of the retrieval benchmark (bench/retrieval_data.py).

Fast: no models, no cases. The offset test runs CaseTrack's real TXT parser on a small file.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.retrieval_data import (
    PageToFile,
    dedupe,
    hit_at_k,
    merge_ranges,
    ndcg_at_k,
    overlap_chars,
    percentile,
    span_recall,
    stable_order,
)
from casetrack.domain import FileType
from casetrack.parse.text import parse_text


def test_ndcg_graded_gains_hand_computed() -> None:
    qrels = {"a": 3, "b": 2, "c": 1, "d": 0}
    ranked = ["d", "a", "x", "c", "b"]
    # DCG@5 = 0/log2(2) + 3/log2(3) + 0/log2(4) + 1/log2(5) + 2/log2(6)
    dcg = 3 / math.log2(3) + 1 / math.log2(5) + 2 / math.log2(6)  # 1.8928 + 0.4307 + 0.7737 = 3.0972
    idcg = 3 / 1 + 2 / math.log2(3) + 1 / 2  # 3 + 1.2619 + 0.5 = 4.7619
    assert ndcg_at_k(ranked, qrels, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(ranked, qrels, 5) == pytest.approx(0.6504, abs=1e-4)
    # @2: DCG = 3/log2(3) = 1.8928; ideal = 3 + 2/log2(3) = 4.2619
    assert ndcg_at_k(ranked, qrels, 2) == pytest.approx(1.8928 / 4.2619, abs=1e-4)


def test_ndcg_edge_cases() -> None:
    assert ndcg_at_k(["a", "b"], {"a": 2, "b": 1}, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 1) == pytest.approx(0.5)
    assert ndcg_at_k(["a"], {"a": 0, "b": 0}, 10) is None  # nothing relevant: query left out
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0
    # A repeated document counts once, at its first rank.
    assert ndcg_at_k(["a", "a", "b"], {"a": 1, "b": 1}, 2) == pytest.approx(1.0)


def test_merge_and_overlap_arithmetic() -> None:
    assert merge_ranges([(5, 10), (0, 3), (3, 4), (8, 12), (20, 20)]) == [(0, 4), (5, 12)]
    gold = [(10, 20), (30, 40)]  # 20 gold characters
    assert overlap_chars(gold, [(0, 15)]) == 5
    assert overlap_chars(gold, [(15, 35)]) == 10  # 5 of each span
    assert overlap_chars(gold, [(12, 18), (14, 19)]) == 7  # overlapping chunks count once
    assert span_recall(gold, [(15, 35)]) == pytest.approx(0.5)
    assert span_recall(gold, [(0, 100)]) == 1.0
    assert span_recall(gold, [(20, 30)]) == 0.0  # touching is not covering
    assert span_recall([(10, 20), (15, 25)], [(10, 15)]) == pytest.approx(5 / 15)  # gold union = 15
    assert span_recall([], [(0, 5)]) == 0.0


def test_hit_at_k() -> None:
    ranked = ["x", "y", "gold", "z"]
    assert hit_at_k(ranked, "gold", 2) == 0.0
    assert hit_at_k(ranked, "gold", 3) == 1.0
    assert hit_at_k(ranked, {"q", "y"}, 2) == 1.0
    assert hit_at_k([], "gold", 10) == 0.0


def test_percentile_and_order() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10.0], 95) == 10.0
    assert percentile(list(range(101)), 95) == 95
    assert math.isnan(percentile([], 50))
    assert stable_order(["b", "a", "c"]) == stable_order(["c", "b", "a"])


def test_dedupe_keeps_first_name() -> None:
    kept, alias = dedupe({"b.txt": b"same", "a.txt": b"same", "c.txt": b"other"})
    assert sorted(kept) == ["a.txt", "c.txt"]
    assert alias == {"a.txt": "a.txt", "b.txt": "a.txt", "c.txt": "c.txt"}


FILE_TEXT = (
    "  MASTER   AGREEMENT\t\n"
    "\n"
    "\n"
    "1.  Term.   This Agreement\fstarts on\xa0the Effective Date\n"
    "   and ends   on 31 December.   \n"
    " \t \n"
    "2. Termination. Either party may terminate.\n"
)


def test_page_to_file_with_the_real_txt_parser(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(FILE_TEXT.encode("utf-8"))
    page = parse_text(path, FileType.TEXT).pages[0].text
    assert page != FILE_TEXT  # the parser does rewrite whitespace
    mapping = PageToFile(FILE_TEXT, page)

    def squash(s: str) -> str:
        return " ".join(s.split())

    # Every page range maps to a file range with the same visible text.
    for a in range(len(page)):
        for b in range(a + 1, len(page) + 1):
            fa, fb = mapping.to_file(a, b)
            assert squash(FILE_TEXT[fa:fb]) == squash(page[a:b])
    # A gold span in file coordinates is covered exactly by the chunk holding that text.
    gold_start = FILE_TEXT.index("starts on")
    gold = (gold_start, FILE_TEXT.index("December") + len("December"))
    chunk = (page.index("starts on"), page.index("December.") + len("December."))
    assert span_recall([gold], [mapping.to_file(*chunk)]) == 1.0
    half = (page.index("starts on"), page.index("the Effective"))
    fa, fb = mapping.to_file(*half)
    assert FILE_TEXT[fa:fb] == "starts on"
    assert 0 < span_recall([gold], [(fa, fb)]) < 1


def test_page_to_file_rejects_other_text() -> None:
    with pytest.raises(ValueError):
        PageToFile("abc def", "abc dxf")
    assert PageToFile("  ab ", "ab").to_file(0, 2) == (2, 4)
    assert PageToFile("a  b", "a b").to_file(1, 2) == (3, 3)  # whitespace only: empty, at the next char


def test_question_only_drops_the_legalbench_preamble() -> None:
    from bench.retrieval import question_only

    q = "Consider the Supply Agreement between Acme Inc. and Beta LLC; What is the notice period for termination?"
    assert question_only(q) == "What is the notice period for termination?"
    assert question_only("What happens on breach; and who pays?") == "What happens on breach; and who pays?"
    # The rebuild's form: the parties are listed with ";" between them.
    cuad = ('Consider the contract "MARKETING AFFILIATE AGREEMENT" (parties named in it: BIRCH FIRST GLOBAL '
            "INVESTMENTS INC.; MA; Company); What is the expiration date of this contract?")
    assert question_only(cuad) == "What is the expiration date of this contract?"


def test_reciprocal_rank() -> None:
    from bench.retrieval_data import reciprocal_rank

    assert reciprocal_rank([False, False, True, True], 10) == pytest.approx(1 / 3)
    assert reciprocal_rank([False, True], 1) == 0.0
    assert reciprocal_rank([], 10) == 0.0


def test_lawyer_questions_locate_every_gold_quote() -> None:
    from bench.retrieval_data import load_lawyer

    for language in ("en", "pt"):
        ds = load_lawyer(language, 10_000, 10_000)
        assert ds.kind == "passage" and len(ds.queries) >= 45
        for q in ds.queries:
            assert q.passages and q.kind, q.qid
            for name, ranges in q.passages.items():
                text = ds.docs[name].decode("utf-8")
                assert all(0 <= a < b <= len(text) and text[a:b].strip() for a, b in ranges), q.qid
