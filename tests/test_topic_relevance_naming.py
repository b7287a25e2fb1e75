"""Keyword topic cue, the readable relevance scale and questions that name their document."""

from __future__ import annotations

from casetrack.search.query import analyse
from casetrack.search.ranking.naming import find_naming, reorder_within
from casetrack.search.ranking.relevance import NO_GOOD_MATCH, label, lexical, relevance, semantic
from casetrack.search.ranking.topic import line_is_about, topic_scores
from casetrack.store.bm25 import build_analyzer


def query_terms(text: str) -> frozenset[str]:
    """A keyword query's topic stems, as the search reads them (`Query.keyword_stems`)."""
    language = "pt" if "ç" in text else "en"
    return analyse(text, build_analyzer(language), language).keyword_stems


def test_keyword_queries_and_questions() -> None:
    assert query_terms("governing law") == {"gover", "law"}
    assert query_terms("foro de eleição") == {"foro", "eleic"}
    assert query_terms("what is the notice period for terminating this agreement early") == set()


def test_lines_about_a_term_and_passing_mentions() -> None:
    law = query_terms("governing law")
    assert line_is_about("14. GOVERNING LAW", law)
    assert line_is_about("12.3 Governing Law. This Agreement shall be governed by the laws of Delaware.", law)
    assert line_is_about("Governing Law; Jurisdiction.", law)
    assert not line_is_about("subject to Section 14 (Governing Law) and the other terms", law)
    assert not line_is_about("the law governing avulsion is settled in this Court", law)
    assert line_is_about(
        '"Force Majeure" means any event beyond the control of a party', query_terms("force majeure")
    )
    assert line_is_about("II. STANDARD OF REVIEW", query_terms("standard of review"))
    assert line_is_about("DA PRESCRIÇÃO INTERCORRENTE", query_terms("prescrição intercorrente"))
    assert line_is_about(
        "Summary judgment is appropriate when there is no genuine dispute", query_terms("summary judgment")
    )


def test_topic_scores_lift_the_clause_not_the_mention() -> None:
    clause = "14. GOVERNING LAW\nThis Agreement is governed by the laws of New York."
    mention = "Except as provided in Section 14 (Governing Law), each party bears its own costs."
    assert topic_scores(query_terms("governing law"), [("c", clause), ("m", mention)]) == {"c": 1.0}
    question = query_terms("what law governs the agreement between the parties and why")
    assert topic_scores(question, [("c", clause)]) == {}


def test_relevance_scale() -> None:
    weights = {"termin": 3.0, "notic": 2.0, "parti": 0.2}
    assert lexical(["termin", "notic", "parti"], weights, {"termin", "notic"}) > 0.9
    assert lexical(["termin", "notic"], weights, {"parti"}) == 0.0
    assert semantic(0.95) == 1.0 and semantic(0.70) == 0.0 and semantic(None) == 0.0
    assert semantic(0.86, "pt") < semantic(0.86, "en")
    strong = relevance(0.8, 0.89)
    nonsense = relevance(0.1, 0.79)
    assert label(strong) == "strong" and nonsense < NO_GOOD_MATCH and label(nonsense) == "poor"
    assert relevance(0.0, None, verbatim=97.5) == 0.975 and label(0.975, verbatim=True) == "exact"


def test_naming_words_pick_the_document_and_leave_the_question() -> None:
    analyzer = build_analyzer("en")
    query = "In the supply agreement between Zentrix and Quorvane, how many days notice ends it?"
    terms = analyzer.terms(query)
    freqs = {t: 40 for t in terms} | {"zentrix": 3, "quorvan": 2}
    covers = {
        "d1": "SUPPLY AGREEMENT between Zentrix Corp. and Quorvane Ltd.",
        "d2": "LEASE between Alpha and Beta",
    }
    naming = find_naming(query, terms, analyzer, freqs, 1000, covers)
    assert naming is not None and naming.documents == {"d1"}
    assert "Zentrix" not in naming.residual and "days notice" in naming.residual
    # No rare word, or rare words in too many covers: nothing is named.
    plain = "how many days notice ends it"
    assert find_naming(plain, analyzer.terms(plain), analyzer, dict.fromkeys(terms, 40), 1000, covers) is None
    many = {f"d{i}": "Zentrix Quorvane" for i in range(4)}
    assert find_naming(query, terms, analyzer, freqs, 1000, many) is None


def test_a_date_on_another_cover_does_not_unname_the_document() -> None:
    analyzer = build_analyzer("en")
    query = "Under the November 9, 2005 agency agreement between Zentrix and Quorvane, when does the agency expire?"
    terms = analyzer.terms(query)
    freqs = {t: 40 for t in terms} | {"zentrix": 3, "quorvan": 2, "novemb": 9, "2005": 12}
    covers = {
        "d1": "AGENCY AGREEMENT dated November 9, 2005 between Zentrix Corp. and Quorvane Ltd.",
        "d2": "LEASE dated November 1, 2001",
        "d3": "LICENSE of 2005",
        "d4": "SUPPLY AGREEMENT of March 2005",
    }
    naming = find_naming(query, terms, analyzer, freqs, 1000, covers)
    # The others hold one of the four words d1 holds: they are not named (before, any cover holding
    # one rare word of the query counted, and four named covers meant none).
    assert naming is not None and naming.documents == {"d1"}
    assert "when does the agency expire?" in naming.residual


def test_named_documents_chunks_trade_places_by_the_rest_of_the_question() -> None:
    fused = {"a:0": 0.9, "a:1": 0.5, "a:2": 0.4, "b:0": 0.7, "b:1": 0.6}
    focus = ["a:2", "a:1"]  # the rest of the question: the clause, then a recital; the cover not at all
    reorder_within(fused, {"a"}, [focus, ["a:2", "a:1", "b:0", "a:0"]], 60, lambda c: c.split(":")[0])
    assert sorted(fused.values(), reverse=True) == [0.9, 0.7, 0.6, 0.5, 0.4]  # the same scores
    assert fused["b:0"] == 0.7 and fused["b:1"] == 0.6  # another document does not move
    assert max(("a:0", "a:1", "a:2"), key=fused.__getitem__) == "a:2"  # the clause leads its document
    assert fused["a:0"] == 0.4  # the cover page, first by the whole query, goes last in its document
    # A cover page the rest of the question also points at keeps its place.
    fused = {"a:0": 0.9, "a:1": 0.5}
    reorder_within(fused, {"a"}, [["a:0", "a:1"]], 60, lambda c: c.split(":")[0])
    assert fused == {"a:0": 0.9, "a:1": 0.5}
