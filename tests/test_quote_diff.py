"""quote/diff.py: a quote against the text it claims, word by word, and what each change means."""

from __future__ import annotations

import pytest

from casetrack.quote.diff import MEANING_KINDS, diff_words, is_number, looks_portuguese, words


def kinds(quote: str, text: str, portuguese: bool | None = None) -> list[tuple[str, str, str]]:
    return [(d.quote, d.text, d.kind) for d in diff_words(quote, text, portuguese).differences]


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("The Lessee shall pay", "the lessee SHALL pay"),  # case
        ("“the Agreement” is binding", '"the Agreement" is binding.'),  # curly / straight quotes, punctuation
        ("located in Oklahoma City", "located in Okla-\nhoma City"),  # line-end hyphenation in the text
        ("located in Okla- homa City", "located in Oklahoma City"),  # ... and as pasted from a PDF
        ("a non-compete clause", "a noncompete clause"),  # a hyphen in one, not the other
        ("the   party\nshall  deliver", "the party shall deliver"),  # whitespace
        ("a ação de cobrança", "a acao de cobranca"),  # accents
        (
            "the Lessee shall ... pay the rent",
            "the Lessee shall, upon written demand, pay the rent",
        ),  # ellipsis
        ("the Lessee shall […] pay the rent", "the Lessee shall, upon demand, pay the rent"),
    ],
)
def test_differences_that_do_not_count(quote: str, text: str) -> None:
    d = diff_words(quote, text)
    assert d.differences == [] and d.matched == d.quote_words


def test_a_hyphen_before_a_paragraph_break_does_not_join_words() -> None:
    # "-9-" ends a page and "IN WITNESS" starts the next paragraph: not one word "9IN".
    assert (
        kinds("IN WITNESS WHEREOF, the parties", "and profits.\n\n-9-\n\nIN WITNESS WHEREOF, the parties")
        == []
    )


@pytest.mark.parametrize(
    ("quote", "text", "expected"),
    [
        ("pay within 30 days", "pay within 60 days", [("30", "60", "number")]),
        ("thirty days", "sixty days", [("thirty", "sixty", "number")]),
        ("a fee of 1.5 million", "a fee of 15 million", [("1.5", "15", "number")]),
        ("prazo de trinta dias", "prazo de quinze dias", [("trinta", "quinze", "number")]),
        ("under § 2º of the Act", "under § 3º of the Act", [("2º", "3º", "number")]),
        ("The Lessee shall not assign", "The Lessee shall assign", [("not", "", "negation")]),
        ("The Lessee shall assign", "The Lessee shall never assign", [("", "never", "negation")]),
        ("o réu não deverá pagar", "o réu deverá pagar", [("não", "", "negation")]),
        ("recurso sem efeito", "recurso com efeito", [("sem", "com", "negation")]),
        ("The Lessee shall pay", "The Lessee may pay", [("shall", "may", "modal")]),
        ("the party must notify", "the party will notify", [("must", "will", "modal")]),
        ("o réu deverá pagar", "o réu poderá pagar", [("deverá", "poderá", "modal")]),
        ("an agreement with Acme Corp", "an agreement with Beta Corp", [("Acme", "Beta", "name")]),
        ("the goods shall be delivered", "the goods shall be shipped", [("delivered", "shipped", "other")]),
        ("the Lessee shall pay", "the Lcssee shall pay", [("Lessee", "Lcssee", "spelling")]),
        (
            "shall pay 30 days",
            "shaII pay 3O days",
            [("shall", "shaII", "spelling"), ("30", "3O", "spelling")],
        ),
        (
            "a liberdade de ir e vir do cidadão",
            "a liberclade de ir e vir do cicladão",
            [("liberdade", "liberclade", "spelling"), ("cidadão", "cicladão", "spelling")],
        ),
    ],
)
def test_each_difference_has_its_kind(quote: str, text: str, expected: list[tuple[str, str, str]]) -> None:
    assert kinds(quote, text) == expected


def test_meaning_changes_are_the_number_negation_and_modal_kinds_in_order() -> None:
    d = diff_words(
        "The Lessee shall not pay thirty (30) days after Acme",
        "The Lessee may pay sixty (60) days after Beta",
    )
    assert d.meaning_changes == ["number", "negation", "modal"] == list(MEANING_KINDS)
    assert [x.kind for x in d.substantive] == [x.kind for x in d.differences]
    assert diff_words("the Lessee shall pay Acme", "the Lessee shall pay Beta").meaning_changes == []


def test_no_is_a_negation_in_english_but_a_preposition_in_portuguese() -> None:
    assert kinds("there is no fee", "there is a fee") == [("no", "a", "negation")]
    # "no prazo" is "in the period": swapping it is a plain difference in Portuguese.
    assert kinds("pagar no prazo legal de dez dias", "pagar o prazo legal de dez dias", portuguese=True) == [
        ("no", "o", "other")
    ]
    # An English negation inserted into Portuguese text still counts.
    assert kinds("o réu not deverá pagar", "o réu deverá pagar", portuguese=True) == [("not", "", "negation")]


def test_context_words_around_the_quote_are_not_differences() -> None:
    d = diff_words("the party shall deliver goods", "words before the party shall deliver goods and after")
    assert d.differences == []
    text = "words before the party shall deliver goods and after"
    assert text[d.text_start : d.text_end] == "the party shall deliver goods"
    # The quote's first word altered: the word before it is context, not part of the change.
    assert kinds("Buyer shall pay the fee", "of the Seller shall pay the fee") == [
        ("Buyer", "Seller", "name")
    ]
    # A repeated word: the alignment anchors the right one ("be deemed to be an original").
    assert kinds("be not an original, but all", "shall be deemed to be an original, but all of") == [
        ("not", "", "negation")
    ]


def test_changed_words_counts_the_longer_side_and_leaves_spelling_out() -> None:
    d = diff_words("the tenant shall pay the rent to the landlord", "the tenant pays the landlord")
    assert d.changed_words >= 3
    assert diff_words("the Lessee shall pay", "the Lcssee shall pay").changed_words == 0


def test_words_keep_numbers_whole_and_mark_names_inside_sentences() -> None:
    items = words("Section 2.1. Acme shall pay $1,000.50 under § 2º. The Buyer")
    assert [w.text for w in items] == [
        "Section",
        "2.1",
        "Acme",
        "shall",
        "pay",
        "1,000.50",
        "under",
        "§",
        "2º",
        "The",
        "Buyer",
    ]
    capital = {w.text: w.capital for w in items}
    assert capital["Acme"] is False  # first word of a sentence ("2.1. Acme")
    assert capital["Buyer"] is True and capital["The"] is False


@pytest.mark.parametrize(
    ("word", "number"),
    [
        ("30", True),
        ("2nd", True),
        ("5º", True),
        ("thirty", True),
        ("trinta", True),
        ("XII", True),
        ("Bi0amber", False),
        ("shall", False),
    ],
)
def test_is_number(word: str, number: bool) -> None:
    assert is_number(words(word)[0]) is number


def test_language_guess() -> None:
    assert looks_portuguese(words("o réu deverá pagar a multa no prazo de dez dias")) is True
    assert looks_portuguese(words("the tenant shall pay the rent of the month")) is False
    assert looks_portuguese(words("Acme 2024"), default=True) is True
