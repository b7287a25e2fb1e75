"""Passages that echo the question's own words, in order: the ranking step "echo".

When the caller gives its guess of the answer's wording, the lists read that guess too, so a wrong
guess that happens to read like another passage can pull that passage up. A passage that repeats a
run of the question's own content words in the question's order ("the pet deposit ... before an
animal is kept in the premises") is where the question's words are, whatever the guess said: it
gets up to one more first place, by how long the run is. Function words between the content words
do not break a run. Short runs (fewer than MIN_RUN content words) count for nothing: two words in
order are common.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from casetrack.quote.fold import folded_words

MIN_RUN = 4  # content words in a row, in the question's order
FULL_SHARE = 0.75  # a run of this share of the question's content words (or more) earns the full point
# Words that do not count and do not break a run (question words, articles, prepositions; EN + PT).
FUNCTION = frozenset(
    """
    a an the of to in on at by for with from into upon and or is are was were be been being do does did
    what which who whom when where why how must may shall can could should would will any each this that
    these those it its there their than as under o os as um uma uns umas de da do das dos em no na nos nas
    ao aos pelo pela pelos pelas por para com e ou que qual quais quem quando onde como se sao foi ser
    """.split()
)


def content(words: Sequence[str]) -> list[str]:
    """The content words of a folded word list (function words out)."""
    return [w for w in words if w not in FUNCTION and len(w) > 1]


def longest_run(question: Sequence[str], text_words: Sequence[str]) -> int:
    """The longest run of `question`'s content words that `text_words` holds in the same order, each
    next word of the run following the previous one within three words (function words between)."""
    if not question:
        return 0
    where: dict[str, list[int]] = {}
    for i, w in enumerate(text_words):
        where.setdefault(w, []).append(i)
    best = 0
    for start in range(len(question)):
        for pos in where.get(question[start], ()):
            run, at = 1, pos
            for word in question[start + 1 :]:
                nxt = next((p for p in where.get(word, ()) if at < p <= at + 3), None)
                if nxt is None:
                    break
                run, at = run + 1, nxt
            best = max(best, run)
            if best == len(question) - start:
                break
    return best


def echo_scores(
    question: str, candidates: Iterable[tuple[str, str]], names: Callable[[str], bool] = lambda w: False
) -> dict[str, float]:
    """0-1 per (chunk_id, text): how long a run of the question's content words the text echoes
    (0 below MIN_RUN, 1 from FULL_SHARE of them); {} for a question too short to echo. Words for
    which `names` is true (a party's or document's name: the cover page repeats those) do not count."""
    asked = [w for w in content(folded_words(question)) if not names(w)]
    if len(asked) < MIN_RUN:
        return {}
    full = max(MIN_RUN, FULL_SHARE * len(asked))
    out: dict[str, float] = {}
    asked_set = set(asked)
    for chunk_id, text in candidates:
        words = folded_words(text)
        if len(asked_set.intersection(words)) < MIN_RUN:
            continue
        run = longest_run(asked, words)
        if run >= MIN_RUN:
            out[chunk_id] = min(1.0, run / full)
    return out
