"""Quotes against text: folding, alignment, the verbatim stage, passages over two chunks."""

from __future__ import annotations

import random

import pytest

from casetrack.quote.align import align
from casetrack.quote.fold import fold, fold_text, folded_words
from casetrack.search.ranking.verbatim import LIFT, Straddle, VerbatimMatch, join, lift
from casetrack.search.ranking.verbatim import verbatim_matches as _matches


def verbatim_matches(
    query: str, candidates: list[tuple[str, str]]
) -> tuple[dict[str, VerbatimMatch], list[Straddle]]:
    return _matches(fold(query), folded_words(query), candidates)


CLAUSE = (
    "12.3 Assignment. Neither party may assign this Agreement, in whole or in part, without the prior\n"
    "written consent of the other party, which consent shall not be unreasonably with-\nheld; provided that "
    "either party may assign this Agreement to an Affiliate."
)
OTHER = (
    "Assignment. This Agreement may not be assigned by either party without the written consent of the other "
    "party, such consent not to be unreasonably withheld, except to a successor of its business."
)


def test_fold_drops_what_a_copy_changes_and_maps_back() -> None:
    folded = fold("Não “poderá” Okla-\nhoma, § 2º")
    assert folded.text == "naopoderaoklahoma2o"
    text = "The State of Okla-\nhoma"
    f = fold(text)
    start, end = f.span(f.text.index("oklahoma"), f.text.index("oklahoma") + 8)
    assert text[start:end] == "Okla-\nhoma"
    assert fold_text("Ação Cível, art. 5º") == "acaocivelart5o"
    assert folded_words("Não poderá, Okla-homa") == ["nao", "podera", "okla", "homa"]


def test_align_finds_the_copy_with_noise_and_rejects_short_quotes() -> None:
    quote = "neither party may assign this agreement in whole or in part without the prior written consent"
    found = align(quote, CLAUSE)
    assert found is not None and found.score == 100 and found.coverage == 1.0
    assert CLAUSE[found.start : found.end].startswith("Neither party may assign")
    noisy = quote.replace("assign", "asign").replace("written", "wrltten")
    assert (n := align(noisy, CLAUSE)) is not None and n.score > 90
    assert align("the party", CLAUSE) is None  # three words are no passage


def test_the_copied_clause_beats_the_similar_one() -> None:
    quote = (
        "either party may assign this Agreement, in whole or in part, without the prior written consent of the "
        "other party, which consent shall not be unreasonably withheld"
    )
    quote = quote.replace("Neither", "neither")
    matches, _ = verbatim_matches(
        "Neither party may " + quote.split("may ", 1)[1], [("a", CLAUSE), ("b", OTHER)]
    )
    assert set(matches) == {"a"}
    fused = {"a": 0.01, "b": 0.06}
    lift(fused, matches)
    assert fused["a"] > fused["b"] + LIFT / 2


def test_questions_and_keywords_are_not_passages() -> None:
    for query in (
        "governing law",
        "can either party assign the agreement without consent?",
        "what notice is needed to assign this agreement to a third party",
    ):
        assert verbatim_matches(query, [("a", CLAUSE), ("b", OTHER)])[0] == {}


def test_a_passage_over_two_chunks_is_joined() -> None:
    words = [f"w{i}ord" for i in range(300)]
    first, second = " ".join(words[:160]), " ".join(words[140:])  # chunks overlap by 20 words
    overlap = len(" ".join(words[140:160])) + 1
    query = " ".join(words[150:175])
    matches, straddles = verbatim_matches(query, [("c1", first), ("c2", second)])
    assert "c1" not in matches or matches["c1"].coverage < 1
    found = join(fold(query), first, second, overlap)
    assert found is not None
    a, b = found
    assert first[a.start : a.end].startswith("w150ord") and second[b.start : b.end].endswith("w174ord")
    assert a.coverage + b.coverage == pytest.approx(1.0, abs=0.05)


def test_noise_of_three_percent_still_aligns() -> None:
    rng = random.Random(3)
    chars = list(CLAUSE)
    for i in rng.sample([i for i, c in enumerate(chars) if c.isalpha()], 6):
        chars[i] = "x"
    matches, _ = verbatim_matches("".join(chars), [("a", CLAUSE), ("b", OTHER)])
    assert set(matches) == {"a"} and matches["a"].score > 90
