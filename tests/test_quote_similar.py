"""Near-duplicate comparison (quote/similar.py) on real near-twins, and e-mail threads
(store/threads.py) from the headers ingest keeps: the fast checks (no models, no stores)."""

from __future__ import annotations

import json

from casetrack.quote.similar import compare, from_signature, signature, words
from casetrack.store.journal import DocState, JournalEntry
from casetrack.store.near_duplicates import THRESHOLD
from casetrack.store.threads import normal_subject, thread_groups
from tests.conftest import DATA, require

NDAS = DATA / "legal_span_bench" / "corpus" / "contractnli"


def _read(name: str) -> str:
    return require(NDAS / name).read_text(encoding="utf-8")


def test_one_form_filled_in_twice_is_a_near_duplicate_and_two_templates_are_not() -> None:
    twins = compare(_read("Bio-FIP-EOI-NDA.txt"), _read("CCS-Salt-Cavern-RfP-NDA.txt"))
    assert THRESHOLD <= twins.similarity < 0.99 and twins.words_changed == 86
    other = compare(
        _read("Basic-Non-Disclosure-Agreement.txt"), _read("non-disclosure-agreement-template.txt")
    )
    assert other.similarity < THRESHOLD  # two different NDA templates (0.73)


def test_a_one_word_edit_counts_one_word_and_one_line() -> None:
    text = _read("Basic-Non-Disclosure-Agreement.txt")
    edited = text.replace(" confidential ", " secret ", 1)
    diff = compare(text, edited)
    assert (diff.words_changed, diff.lines_changed) == (1, 1) and 0.99 < diff.similarity < 1.0
    # case, accents, punctuation and line breaks do not count
    assert compare(text, text.upper().replace("\n", " \n ")).words_changed == 0


def test_a_signature_survives_its_storage() -> None:
    seq = words(_read("Bio-FIP-EOI-NDA.txt"))
    m = from_signature(signature(seq))
    assert m is not None and m.jaccard(from_signature(signature(seq))) == 1.0
    assert from_signature("not base64!") is None


def _mail(doc_id: str, **email: object) -> JournalEntry:
    meta = {"email": email}
    return JournalEntry(
        doc_id, f"{doc_id}.eml", None, doc_id, DocState.COMMITTED, 1, None, None, 1, json.dumps(meta)
    )


def test_threads_follow_reply_headers_then_subject_and_participants() -> None:
    root = _mail(
        "a",
        message_id="<1@x>",
        subject="Offer",
        date="2024-03-01T10:00:00+00:00",
        **{"from": ["Ann <ann@x.com>"], "to": ["bob@y.com"]},
    )
    reply = _mail(
        "b",
        message_id="<2@y>",
        in_reply_to="<1@x>",
        subject="RE: Offer",
        date="2024-03-02T10:00:00+00:00",
        **{"from": ["bob@y.com"], "to": ["ann@x.com"]},
    )
    later = _mail(
        "c",
        message_id="<3@x>",
        references="<1@x> <2@y>",
        subject="Re: Re: Offer",
        date="2024-03-03T10:00:00+00:00",
        **{"from": ["ann@x.com"]},
    )
    forward = _mail(
        "d",
        subject="Fwd: [EXT] Offer",
        date="2024-03-04T10:00:00+00:00",
        **{"from": ["carl@z.com"], "to": ["bob@y.com"]},
    )
    stranger = _mail(
        "e", subject="Offer", date="2024-03-05T10:00:00+00:00", **{"from": ["dan@w.com"], "to": ["eve@v.com"]}
    )
    groups = thread_groups([stranger, forward, later, reply, root])
    assert [e.doc_id for e in groups["a"]] == ["a", "b", "c", "d"]  # oldest first; d by subject and bob
    assert [e.doc_id for e in groups["e"]] == ["e"]  # same subject, no participant in common
    assert normal_subject("RES: ENC: Fw: [External] Proposta  comercial") == "proposta comercial"
