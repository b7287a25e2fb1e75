"""The benchmarks' metrics (bench/metrics.py) and the TXT offset mapping of the retrieval benchmark.

The ranking metrics are checked against trec_eval (pytrec_eval) on a table of hand-made and
seeded random runs, the percentiles against numpy and the definitions the published tables in
bench/RESULTS.md were measured with. Fast: no models, no cases. The offset test runs CaseTrack's
real TXT parser on a small file.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from bench.metrics import (
    dcg,
    floor_rank_percentile,
    hit_at_k,
    kendall_tau,
    mean,
    median,
    merge_ranges,
    ndcg_at_k,
    overlap_chars,
    paired_difference,
    percentile,
    reciprocal_rank,
    span_recall,
    top_k_overlap,
)
from bench.retrieval_data import PageToFile, dedupe, stable_order
from casetrack.parse.options import ParseOptions
from casetrack.parse.text.parser import parse_text


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
    assert span_recall(gold, [(12, 18), (14, 19)]) == pytest.approx(7 / 20)  # overlapping chunks count once
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
    page = parse_text(path, ParseOptions()).pages[0].text
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
    cuad = (
        'Consider the contract "MARKETING AFFILIATE AGREEMENT" (parties named in it: BIRCH FIRST GLOBAL '
        "INVESTMENTS INC.; MA; Company); What is the expiration date of this contract?"
    )
    assert question_only(cuad) == "What is the expiration date of this contract?"


def test_reciprocal_rank() -> None:
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


# --------------------------------------------------------------------------------------------
# Ranking metrics against trec_eval (pytrec_eval)
# --------------------------------------------------------------------------------------------

Case = tuple[str, dict[str, int], list[str]]  # name, qrels (id -> grade), ranked ids

HAND_CASES: list[Case] = [
    ("graded, the hand-computed example", {"a": 3, "b": 2, "c": 1, "d": 0}, ["d", "a", "x", "c", "b"]),
    ("ideal order", {"a": 3, "b": 2, "c": 1}, ["a", "b", "c"]),
    ("reversed", {"a": 3, "b": 2, "c": 1}, ["c", "b", "a"]),
    ("relevant documents never retrieved count in the ideal", {"a": 1, "b": 4, "c": 2}, ["a", "x", "y"]),
    ("unjudged documents only", {"a": 2}, ["x", "y", "z"]),
    ("a negative grade is non-relevant", {"a": -1, "b": 2, "c": 1}, ["a", "c", "b"]),
    ("nothing relevant", {"a": 0, "b": -2}, ["a", "b"]),
    ("empty run", {"a": 1}, []),
    ("a document ranked twice", {"a": 2, "b": 1}, ["x", "a", "a", "b"]),
    (
        "more relevant documents than k",
        {f"r{i}": 1 + i % 3 for i in range(15)},
        [f"r{i}" for i in range(14, -1, -1)],
    ),
    ("the first relevant below rank 10", {"deep": 1}, [f"n{i}" for i in range(12)] + ["deep"]),
]


def random_cases(n: int, seed: int = 20261124) -> list[Case]:
    """Runs over small pools, so that repeats, unjudged ids, ties of grade and relevant documents
    never retrieved all come up; grade -1 too (some collections judge "harmful")."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for i in range(n):
        pool = [f"d{j}" for j in range(rng.randint(1, 30))]
        qrels = {
            d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4]) for d in rng.sample(pool, rng.randint(1, len(pool)))
        }
        ranked = [rng.choice([*pool, "u1", "u2", "u3"]) for _ in range(rng.randint(0, 25))]
        cases.append((f"random {i}", qrels, ranked))
    return cases


CASES = HAND_CASES + random_cases(400)
KS = (1, 3, 5, 10)
MEASURES = {"ndcg_cut.1,3,5,10", "recip_rank", "recall.1,5,10", "success.1,5,10", "P.1"}


def distinct(ranked: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def relevant(qrels: dict[str, int]) -> set[str]:
    """trec_eval's default relevance level: grade >= 1."""
    return {d for d, g in qrels.items() if g >= 1}


def trec_eval(cases: list[Case], measures: set[str], depth: int | None = None) -> list[dict[str, float]]:
    """trec_eval's scores per case. Its run holds one score per document, so it sees the ranking
    without repeats, cut at `depth`."""
    qrels = {str(i): q for i, (_, q, _) in enumerate(cases)}
    run: dict[str, dict[str, float]] = {}
    for i, (_, _, ranked) in enumerate(cases):
        ids = distinct(ranked)[:depth]
        # Strictly falling scores: trec_eval orders by score, and ties by document id, not by list position.
        run[str(i)] = {d: float(len(ids) - r) for r, d in enumerate(ids)}
    scores = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return [scores[str(i)] for i in range(len(cases))]


@pytest.fixture(scope="module")
def trec() -> list[dict[str, float]]:
    return trec_eval(CASES, MEASURES)


def test_ndcg_matches_trec_eval_ndcg_cut(trec: list[dict[str, float]]) -> None:
    """Same gain, discount and ideal as trec_eval's ndcg_cut. Different on purpose: a query with
    nothing relevant has no nDCG here (None, left out of the mean) where trec_eval scores it 0,
    and a repeated id counts once, which is what trec_eval's repeat-free run gives."""
    compared = 0
    for (name, qrels, ranked), ref in zip(CASES, trec, strict=True):
        for k in KS:
            ours = ndcg_at_k(ranked, qrels, k)
            if not relevant(qrels):
                assert ours is None and ref[f"ndcg_cut_{k}"] == 0.0, name
                continue
            assert ours == pytest.approx(ref[f"ndcg_cut_{k}"], abs=1e-12), (name, k)
            compared += 1
    assert compared > 1000


def test_reciprocal_rank_matches_trec_eval_recip_rank(trec: list[dict[str, float]]) -> None:
    """recip_rank has no cut: uncut, ours equals it; MRR@k equals it on the run cut at k.
    Compared on the ranking without repeats, the only one a trec_eval run can hold."""
    for (name, qrels, ranked), ref in zip(CASES, trec, strict=True):
        hits = [d in relevant(qrels) for d in distinct(ranked)]
        assert reciprocal_rank(hits) == pytest.approx(ref["recip_rank"], abs=1e-12), name
    for k in KS:
        cut = trec_eval(CASES, {"recip_rank"}, depth=k)
        for (name, qrels, ranked), ref in zip(CASES, cut, strict=True):
            hits = [d in relevant(qrels) for d in distinct(ranked)]
            assert reciprocal_rank(hits, k) == pytest.approx(ref["recip_rank"], abs=1e-12), (name, k)


def test_hit_at_k_matches_trec_eval_success_and_p1(trec: list[dict[str, float]]) -> None:
    """hit@k is success_k; at k = 1 it is also precision P_1 (the top-1 accuracies)."""
    for (name, qrels, ranked), ref in zip(CASES, trec, strict=True):
        ids = distinct(ranked)
        for k in (1, 5, 10):
            assert hit_at_k(ids, relevant(qrels), k) == ref[f"success_{k}"], (name, k)
        assert hit_at_k(ids, relevant(qrels), 1) == ref["P_1"], name


def test_span_recall_over_one_range_per_document_is_recall_k(trec: list[dict[str, float]]) -> None:
    """Span recall counts gold characters: with every document an equally wide range (adjacent
    ones, so that merging is exercised) it is document recall, trec_eval's recall_k."""
    for (name, qrels, ranked), ref in zip(CASES, trec, strict=True):
        ids = distinct(ranked)
        at = {d: 3 * i for i, d in enumerate(sorted(set(qrels) | set(ids)))}
        gold = [(at[d], at[d] + 3) for d in relevant(qrels)]
        for k in (1, 5, 10):
            got = span_recall(gold, [(at[d], at[d] + 3) for d in ids[:k]])
            assert got == pytest.approx(ref[f"recall_{k}"], abs=1e-12), (name, k)


NDCG = Callable[[Sequence[str], dict[str, int], int], float | None]


def ndcg_variant(
    exponential: bool = False, first_rank: int = 1, ideal_from_run: bool = False, keep_repeats: bool = False
) -> NDCG:
    """nDCG with one convention changed, to show the table above tells the conventions apart."""

    def score(ranked: Sequence[str], qrels: dict[str, int], k: int) -> float | None:
        ids = list(ranked) if keep_repeats else distinct(ranked)
        gains = [max(qrels.get(d, 0), 0) for d in ids[:k]]
        pool = [qrels.get(d, 0) for d in distinct(ranked)] if ideal_from_run else list(qrels.values())
        ideal = sorted((g for g in pool if g > 0), reverse=True)[:k]

        def dcg_of(gs: list[int]) -> float:
            return sum(
                ((2**g - 1) if exponential else g) / math.log2(i + first_rank + 1) for i, g in enumerate(gs)
            )

        return dcg_of(gains) / dcg_of(ideal) if ideal else None

    return score


def test_the_trec_eval_table_catches_a_convention_slip(trec: list[dict[str, float]]) -> None:
    def disagreements(fn: NDCG) -> int:
        return sum(
            fn(ranked, qrels, k) != pytest.approx(ref[f"ndcg_cut_{k}"], abs=1e-12)
            for (_, qrels, ranked), ref in zip(CASES, trec, strict=True)
            if relevant(qrels)
            for k in KS
        )

    assert disagreements(ndcg_variant()) == 0  # the variants' common code is right
    assert disagreements(ndcg_at_k) == 0
    for slip in (
        ndcg_variant(exponential=True),
        ndcg_variant(first_rank=2),
        ndcg_variant(ideal_from_run=True),
        ndcg_variant(keep_repeats=True),
    ):
        assert disagreements(slip) > 0


# --------------------------------------------------------------------------------------------
# Percentiles, means and the late-interaction agreement measures
# --------------------------------------------------------------------------------------------


def random_samples(seed: int = 7) -> list[list[float]]:
    """Latency-like samples; sizes where the rank rules differ (19-21, 105: 35 questions x 3)."""
    rng = random.Random(seed)
    samples = [[5.0], [1.0, 2.0], [3.0, 1.0, 2.0]]
    for _ in range(300):
        n = rng.choice([2, 19, 20, 21, 40, 105, 120, rng.randint(1, 500)])
        if rng.random() < 0.3:
            samples.append([float(rng.randint(0, 20)) for _ in range(n)])  # ties
        else:
            samples.append([rng.lognormvariate(3, 1) for _ in range(n)])
    return samples


SAMPLES = random_samples()


def test_percentiles_are_numpys_and_the_published_ones() -> None:
    for xs in SAMPLES:
        for p in (0, 5, 50, 90, 95, 99, 100):
            assert percentile(xs, p) == np.percentile(xs, p)
            assert percentile(xs, p, "nearest") == np.percentile(xs, p, method="nearest")
        s = sorted(xs)
        pos = (len(s) - 1) * 0.95  # linear interpolation between the order statistics around it
        lo, hi = math.floor(pos), min(math.floor(pos) + 1, len(s) - 1)
        assert percentile(xs, 95) == pytest.approx(s[lo] + (s[hi] - s[lo]) * (pos - lo), rel=1e-12)
        # The rules the latency, concurrency and reads A/B tables in bench/RESULTS.md were measured with.
        assert percentile(xs, 95, "nearest") == s[round(0.95 * (len(s) - 1))]
        assert median(xs) == statistics.median(xs)
        assert floor_rank_percentile(xs, 95) == s[int(len(s) * 0.95) - 1]
    # The p50 of those tables is (a + b) / 2, which numpy's linear percentile misses by a bit here.
    assert median([0.6, 63.8]) == statistics.median([0.6, 63.8]) != percentile([0.6, 63.8], 50)
    # 35 questions x 3 rounds: the reads A/B rule picks the 99th of 105 values, numpy's the 100th.
    assert (floor_rank_percentile(range(105), 95), percentile(range(105), 95, "nearest")) == (98, 99)
    for empty in (
        percentile([], 95),
        percentile([], 95, "nearest"),
        median([]),
        floor_rank_percentile([], 95),
    ):
        assert math.isnan(empty)


def test_mean_and_paired_difference() -> None:
    assert mean([1.0, None, 2.0]) == 1.5  # None: the metric does not apply to that query
    assert mean(x for x in (0.5, 0.25)) == 0.375
    assert math.isnan(mean([None])) and math.isnan(mean([]))
    for xs in SAMPLES:
        assert mean(xs) == pytest.approx(statistics.fmean(xs), rel=1e-12)
    a, b = SAMPLES[10], [x * 0.9 + 1 for x in SAMPLES[10]]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    d, half = paired_difference(a, b)
    assert d == pytest.approx(statistics.fmean(diffs), rel=1e-12)
    assert half == pytest.approx(1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)), rel=1e-12)


def test_dcg_kendall_tau_and_top_k_overlap() -> None:
    assert dcg([]) == 0.0
    assert dcg([3, 0, 2]) == pytest.approx(3 + 2 / 2)
    a = np.array([0.9, 0.5, 0.1, 0.3])
    assert kendall_tau(a, a) == 1.0
    assert kendall_tau(a, -a) == -1.0
    assert kendall_tau(a, np.array([0.9, 0.1, 0.5, 0.3])) == 0.0  # 3 pairs agree, 3 do not
    # Tau-a: a tie agrees with nothing but still counts in the pairs (tau-b would give 0.5).
    assert kendall_tau(np.array([1.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])) == pytest.approx(1 / 3)
    assert top_k_overlap(a, np.array([0.9, 0.1, 0.5, 0.3]), 2) == 0.5
