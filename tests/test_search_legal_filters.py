"""Filters on legal metadata: values read as a lawyer types them, compared in canonical form."""

from __future__ import annotations

import pytest

from casetrack.errors import CaseTrackError
from casetrack.search.legal_filters import LegalFilters, legal_filters, matches

ACORDAO = {
    "legal": {
        "doc_type": "acordao",
        "doc_date": "2023-03-12",
        "tribunals": ["TJSP"],
        "process_numbers": ["1000123-45.2022.8.26.0100"],
        "tags": ["Urgente"],
        "fields": {"cliente": "Acme"},
        "languages": ["pt"],
    }
}
CONTRACT = {"legal": {"doc_type": "contract", "doc_date": "2019-07-01", "languages": ["en"]}}
BARE: dict[str, object] = {"file_type": "pdf"}


def test_values_are_read_the_way_a_lawyer_types_them() -> None:
    f = legal_filters(
        doc_types=["Acórdão", "petição inicial", "NDA"],
        tribunals=["TJ-SP", "Superior Tribunal de Justiça"],
        processes=["10001234520228260100"],
        tags=["URGENTE"],
        fields=["cliente = Acme"],
        languages=["pt-BR"],
    )
    assert f.doc_types == ("acordao", "complaint", "nda")
    assert f.tribunals == ("TJSP", "STJ")
    assert f.processes == ("1000123-45.2022.8.26.0100",)
    assert f.tags == ("urgente",) and f.fields == (("cliente", "Acme"),) and f.languages == ("pt",)


def test_every_filter_keeps_only_the_documents_that_hold_it() -> None:
    assert matches(ACORDAO, legal_filters(doc_types=["acórdão"])) and not matches(
        CONTRACT, legal_filters(doc_types=["acórdão"])
    )
    assert matches(ACORDAO, legal_filters(tribunals=["tjsp"])) and not matches(
        ACORDAO, legal_filters(tribunals=["STJ"])
    )
    assert matches(ACORDAO, legal_filters(processes=["1000123-45.2022.8.26.0100"]))
    assert not matches(ACORDAO, legal_filters(processes=["0001234-56.2023.8.26.0100"]))
    assert matches(ACORDAO, legal_filters(date_from="2023-01-01", date_to="2023-12-31"))
    assert not matches(CONTRACT, legal_filters(date_from="2023-01-01"))
    assert matches(CONTRACT, legal_filters(date_to="2019-07-01"))  # both ends inclusive
    assert matches(ACORDAO, legal_filters(tags=["urgente"], fields=["cliente=acme"], languages=["pt"]))
    assert not matches(ACORDAO, legal_filters(fields=["cliente=Beta"]))
    assert not matches(ACORDAO, legal_filters(languages=["en"]))


def test_a_document_without_the_field_does_not_match_and_no_filter_matches_all() -> None:
    assert not matches(BARE, legal_filters(doc_types=["contract"]))
    assert not matches(BARE, legal_filters(date_from="2000-01-01"))
    assert not LegalFilters().active() and matches(BARE, LegalFilters())


def test_bad_values_say_how_to_write_them() -> None:
    with pytest.raises(CaseTrackError, match="Unknown document type 'memo'"):
        legal_filters(doc_types=["memo"])
    with pytest.raises(CaseTrackError, match="YYYY-MM-DD"):
        legal_filters(date_from="12/03/2023")
    with pytest.raises(CaseTrackError, match="KEY=VALUE"):
        legal_filters(fields=["cliente"])
