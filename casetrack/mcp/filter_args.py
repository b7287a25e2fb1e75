"""The legal-metadata filter parameters of the reading tools (issue 15): the CLI's option names
with underscores (`--doc-type` -> `doc_type`), one value each."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from casetrack.domain.cases import NearDuplicates
from casetrack.search.legal_filters import LegalFilters, legal_filters

DocTypeArg = Annotated[
    str | None,
    Field(
        description="Only documents of this legal type: contract, amendment, nda, complaint, answer, motion, brief, order, "
        "judgment, acordao, opinion, deposition, transcript, letter, invoice, statute, power_of_attorney, "
        "minutes, email (Portuguese names such as acórdão, sentença, petição inicial, contestação work too)",
        max_length=60,
    ),
]
TribunalArg = Annotated[
    str | None, Field(description="Only documents of this tribunal, e.g. STJ, TJSP, TRT2", max_length=120)
]
ProcessArg = Annotated[
    str | None,
    Field(
        description="Only documents of this process number (CNJ, with or without punctuation)", max_length=60
    ),
]
DateFromArg = Annotated[
    str | None, Field(description="Only documents dated on or after this day (YYYY-MM-DD)", max_length=10)
]
DateToArg = Annotated[
    str | None, Field(description="Only documents dated on or before this day (YYYY-MM-DD)", max_length=10)
]
TagArg = Annotated[str | None, Field(description="Only documents with this tag", max_length=100)]
FieldArg = Annotated[
    str | None, Field(description="Only documents whose custom field is this: KEY=VALUE", max_length=200)
]
LanguageArg = Annotated[
    str | None, Field(description="Only documents in this language: en or pt", max_length=10)
]


def legal_args(
    doc_type: str | None,
    tribunal: str | None,
    process: str | None,
    date_from: str | None,
    date_to: str | None,
    tag: str | None,
    field: str | None,
    language: str | None,
) -> LegalFilters:
    def one(value: str | None) -> tuple[str, ...]:
        return (value,) if value else ()

    return legal_filters(
        one(doc_type), one(tribunal), one(process), date_from, date_to, one(tag), one(field), one(language)
    )


NearDuplicatesArg = Annotated[
    NearDuplicates,
    Field(
        description="Documents that nearly copy another one of the case (a re-saved or lightly edited copy): "
        "'show' them as any other, 'group' them (a list: each after the one it copies; a search: one result "
        "per group, naming the copies it stands for), or 'hide' them"
    ),
]
