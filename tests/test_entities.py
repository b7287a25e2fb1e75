"""find_entity over real ingested cases: exact and fuzzy mentions, citations, accents, Portuguese."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.search.entities.mentions import EntityResult, find_entity, match_tokens, tokens
from casetrack.store.case_store import CaseStore
from tests.conftest import MODELS

BRIEF = (
    "Plaintiff's brief.\n\n"
    "In Smith v. Jones the court held that the lease was void.\n\n"
    "The claim arises under 42 U.S.C. § 1983 and nothing else.\n\n"
    "Later, SMITH V JONES was distinguished on its facts."
)
SCAN = (
    "Scanned opinion, OCR text.\n\n"
    "The panel relied on Smlth v. Jones at length.\n\n"
    "Counsel cited 42 USC 1983 and also 42 U.S.C. § 1988 in the reply.\n\n"
    "Witness Robert Jonson testified about the keys."
)
LEASE = "Mary Johnson signed the lease.\n\nThe tenant shall pay rent monthly."
PETICAO = (
    "PETIÇÃO INICIAL\n\n"
    "Trata-se de Ação Civil Pública nº 0001234-56.2023.8.26.0100 proposta pelo Ministério Público "
    "contra a Construtora Horizonte Ltda.\n\n"
    "Conforme o art. 5º da Constituição, o pedido é procedente."
)
ACORDAO = (
    "ACORDAO\n\n"
    "Vistos os autos da ACAO CIVIL PUBLICA n. 0001234-56.2023.8.26.0100, o Ministerio Publico recorre.\n\n"
    "A Construtora Horisonte Ltda. apresentou contrarrazões."
)


# The variant table's cases: clean texts, OCR-damaged ones, and near misses that are other names.
CLEAN_BRIEF = (
    "Plaintiff's memorandum.\n\n"
    "John Smith brings this action under 42 U.S.C. § 1983 against the city.\n\n"
    "Miranda v. Arizona and Brown v. Board of Education frame the issues, as does Marbury v. Madison.\n\n"
    "The account was held at Wells Fargo Bank for Microsoft Corporation."
)
OCR_EXHIBIT = (
    "Exhibit 4, scanned, OCR text.\n\n"
    "Declarant Srnith, also typed Sm1th, signed the deed in 0hio.\n\n"
    "The officers ignored Mirancla v. Arizona entirely.\n\n"
    "Compare Brovvn v. Board of Educatlon with Marbury v. Madlson.\n\n"
    "Funds moved through Wells Farqo Bank for Mircosoft Corporation.\n\n"
    "The claim cites 42 USC 1983, and the reply misquotes Smith v. Jo nes."
)
NEAR_MISSES = (
    "Unrelated parties.\n\n"
    "The Smithson family sold the land to Smyth Holdings.\n\n"
    "Smith v. James was settled; Miranda v. Alabama was not.\n\n"
    "Brown v. Board of Elections concerned ballots.\n\n"
    "The motion also invoked 42 USC 1982 and named Wells Fargo Advisors."
)
PETICAO_OCR = (
    "PETIÇÃO (digitalizada)\n\n"
    "Autor: Jose da Sllva, brasileiro, residente em Brasília.\n\n"
    "Réu: Construtora Horlzonte Ltda., representada por Aureliano Mota de Souza.\n\n"
    "O Tribunal Regiona1 do Trabalho e o Ministerio Publlco foram intimados.\n\n"
    "Assina a procuração Aureliano Motta deSouza."
)
CONTESTACAO = (
    "CONTESTAÇÃO\n\n"
    "José da Silva e Aureliano Motta de Souza contestam. João da Silva e José da Costa são testemunhas.\n\n"
    "Aplica-se a Lei 11.340, não a Lei 11.343, perante o Tribunal Regional do Trabalho.\n\n"
    "O Superior Tribunal de Justiça reformou a decisão proferida pelo Tribunal de Justiça de São Paulo."
)
# (case, entity, entity_type, text as written, kind of the one mention over it: "exact", "fuzzy" or None,
# no mention touching it: a near miss must not match even in part, "Tribunal de Justiça" of "pelo Tribunal...")
VARIANTS: list[tuple[str, str, str, str, str | None]] = [
    ("Variants", "Smith", "person", "Smith", "exact"),
    ("Variants", "Smith", "person", "Srnith", "fuzzy"),
    ("Variants", "Smith", "person", "Sm1th", "fuzzy"),
    ("Variants", "Smith", "person", "Smithson", None),
    ("Variants", "Smith", "person", "Smyth", None),
    ("Variants", "John Smith", "person", "John Smith", "exact"),
    ("Variants", "Smith v. Jones", "case_citation", "Smith v. James", None),
    ("Variants", "Smith v. Jones", "case_citation", "Smith v. Jo nes", "fuzzy"),
    ("Variants", "Miranda v. Arizona", "case_citation", "Miranda v. Arizona", "exact"),
    ("Variants", "Miranda v. Arizona", "case_citation", "Mirancla v. Arizona", "fuzzy"),
    ("Variants", "Miranda v. Arizona", "case_citation", "Miranda v. Alabama", None),
    ("Variants", "Miranda", "any", "Mirancla", "fuzzy"),
    ("Variants", "Brown v. Board of Education", "any", "Brovvn v. Board of Educatlon", "fuzzy"),
    ("Variants", "Brown v. Board of Education", "any", "Brown v. Board of Elections", None),
    ("Variants", "Marbury v. Madison", "any", "Marbury v. Madlson", "fuzzy"),
    ("Variants", "Wells Fargo Bank", "organization", "Wells Farqo Bank", "fuzzy"),
    ("Variants", "Wells Fargo Bank", "organization", "Wells Fargo Advisors", None),
    ("Variants", "Microsoft Corporation", "organization", "Mircosoft Corporation", "fuzzy"),
    ("Variants", "Ohio", "any", "0hio", "fuzzy"),
    ("Variants", "42 U.S.C. § 1983", "statute", "42 USC 1983", "exact"),
    ("Variants", "42 USC 1983", "any", "42 U.S.C. § 1983", "exact"),
    ("Variants", "42 USC 1983", "any", "42 USC 1982", None),
    ("Variants", "42 USC 1982", "statute", "42 USC 1983", None),
    ("Variantes", "José da Silva", "person", "Jose da Sllva", "fuzzy"),
    ("Variantes", "Jose da Silva", "person", "José da Silva", "exact"),
    ("Variantes", "José da Silva", "person", "João da Silva", None),
    ("Variantes", "José da Silva", "person", "José da Costa", None),
    ("Variantes", "Aureliano Motta de Souza", "person", "Aureliano Mota de Souza", "fuzzy"),
    ("Variantes", "Aureliano Motta de Souza", "person", "Aureliano Motta deSouza", "fuzzy"),
    ("Variantes", "Construtora Horizonte Ltda", "organization", "Construtora Horlzonte Ltda", "fuzzy"),
    ("Variantes", "Tribunal Regional do Trabalho", "court", "Tribunal Regiona1 do Trabalho", "fuzzy"),
    ("Variantes", "Ministério Público", "organization", "Ministerio Publlco", "fuzzy"),
    ("Variantes", "Lei 11.340", "statute", "Lei 11.340", "exact"),
    ("Variantes", "Lei 11.340", "statute", "Lei 11.343", None),
    ("Variantes", "Superior Tribunal de Justiça", "court", "Superior Tribunal de Justiça", "exact"),
    ("Variantes", "Superior Tribunal de Justiça", "court", "pelo Tribunal de Justiça de", None),
]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaseTrack]:
    root = tmp_path_factory.mktemp("entities")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case("Smith")
    files = {"brief.txt": BRIEF, "scan_notes.txt": SCAN, "lease.txt": LEASE}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    results = app.ingest("Smith", [root / n for n in files])
    assert [r.status for r in results] == ["ingested"] * 3, [r.error for r in results]
    app.create_case("Processo", language="pt")
    pt_files = {"peticao.txt": PETICAO, "acordao.txt": ACORDAO}
    for name, text in pt_files.items():
        (root / name).write_text(text, encoding="utf-8")
    results = app.ingest("Processo", [root / n for n in pt_files])
    assert [r.status for r in results] == ["ingested"] * 2, [r.error for r in results]
    yield app
    app.close()


@pytest.fixture(scope="module")
def variant_cases(app: CaseTrack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, CaseStore]]:
    root = tmp_path_factory.mktemp("variants")
    cases = {
        "Variants": (
            "en",
            {"brief_clean.txt": CLEAN_BRIEF, "ocr_exhibit.txt": OCR_EXHIBIT, "near_misses.txt": NEAR_MISSES},
        ),
        "Variantes": ("pt", {"peticao_ocr.txt": PETICAO_OCR, "contestacao.txt": CONTESTACAO}),
    }
    for case, (language, files) in cases.items():
        app.create_case(case, language=language)
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        results = app.ingest(case, [root / n for n in files])
        assert [r.status for r in results] == ["ingested"] * len(files), [r.error for r in results]
    stores = {case: app.open_case(case) for case in cases}
    yield stores
    for store in stores.values():
        store.close()


@pytest.fixture
def smith(app: CaseTrack) -> Iterator[CaseStore]:
    store = app.open_case("Smith")
    yield store
    store.close()


@pytest.fixture
def processo(app: CaseTrack) -> Iterator[CaseStore]:
    store = app.open_case("Processo")
    yield store
    store.close()


def found(result: EntityResult) -> list[tuple[str, str, str]]:
    return [(m.document, m.kind, m.matched_text) for m in result.mentions]


def test_exact_mentions_first_then_the_ocr_misspelling(smith: CaseStore) -> None:
    result = find_entity(smith, "Smith v. Jones")
    assert found(result) == [
        ("brief.txt", "exact", "Smith v. Jones"),
        ("brief.txt", "exact", "SMITH V JONES"),
        ("scan_notes.txt", "fuzzy", "Smlth v. Jones"),
    ]
    brief, scan = result.documents
    assert (brief.exact_count, brief.fuzzy_count, scan.exact_count, scan.fuzzy_count) == (2, 0, 0, 1)
    assert (result.exact_count, result.fuzzy_count, result.shown, result.truncated) == (2, 1, 3, False)
    fuzzy = scan.mentions[0]
    assert 0.85 <= fuzzy.similarity < 1.0 and brief.mentions[0].similarity == 1.0
    # Cited to the mention's own line: the file's line 3 (its blank line 2 counts), paragraph 2.
    assert fuzzy.citation == "scan_notes.txt, para. 2, l. 3"
    assert "relied on Smlth v. Jones at length" in fuzzy.snippet
    assert fuzzy.chunk_id.startswith(fuzzy.document_id)
    # Offsets point into the chunk's text.
    text = smith.lance.fetch_chunks([fuzzy.chunk_id])[fuzzy.chunk_id]["text"]
    assert text[fuzzy.match_start : fuzzy.match_end] == "Smlth v. Jones"


def test_fuzzy_name_found_through_fuzzy_recall(smith: CaseStore) -> None:
    # scan_notes.txt has no "johnson" term at all: only tantivy's fuzzy term query recalls it.
    result = find_entity(smith, "Johnson", "person")
    assert found(result) == [("lease.txt", "exact", "Johnson"), ("scan_notes.txt", "fuzzy", "Jonson")]
    assert result.citation_mode is False


def test_statute_variants_match_but_another_section_does_not(smith: CaseStore) -> None:
    result = find_entity(smith, "42 U.S.C. § 1983", "statute")
    assert result.citation_mode and result.normalized == "42 usc 1983"
    assert sorted(found(result)) == [
        ("brief.txt", "exact", "42 U.S.C. § 1983"),
        ("scan_notes.txt", "exact", "42 USC 1983"),
    ]
    # Typed the other way, detected as a citation without the type.
    other = find_entity(smith, "42 USC 1983")
    assert other.citation_mode and sorted(found(other)) == sorted(found(result))
    # "§ 1988" is a different statute, not a typo of 1983.
    assert [m.matched_text for m in find_entity(smith, "42 U.S.C. § 1988").mentions] == ["42 U.S.C. § 1988"]


@pytest.mark.parametrize(
    ("case", "entity", "entity_type", "text", "kind"), VARIANTS, ids=[f"{v[1]}={v[3]}" for v in VARIANTS]
)
def test_variant_table(
    variant_cases: dict[str, CaseStore], case: str, entity: str, entity_type: str, text: str, kind: str | None
) -> None:
    store = variant_cases[case]
    result = find_entity(store, entity, entity_type)
    chunks = store.lance.fetch_chunks([m.chunk_id for m in result.mentions])
    where = re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")
    over = {
        m.matched_text: m.kind
        for m in result.mentions
        for w in where.finditer(str(chunks[m.chunk_id]["text"]))
        if w.start() < m.match_end and m.match_start < w.end()
    }
    assert over == ({text: kind} if kind else {}), [
        (m.matched_text, m.kind, m.similarity) for m in result.mentions
    ]


def test_no_match_is_an_empty_result(smith: CaseStore) -> None:
    result = find_entity(smith, "Zebediah Quixote", "person")
    assert result.documents == [] and result.exact_count == result.fuzzy_count == 0
    assert result.to_json()["documents"] == []


def test_top_k_truncates_but_counts_stay_complete(smith: CaseStore) -> None:
    result = find_entity(smith, "Smith v. Jones", "case_citation", top_k=1)
    assert result.shown == 1 and result.truncated
    assert [(m.kind, m.matched_text) for m in result.mentions] == [("exact", "Smith v. Jones")]
    assert (result.exact_count, result.fuzzy_count) == (2, 1)
    scan = next(d for d in result.documents if d.document == "scan_notes.txt")
    assert scan.fuzzy_count == 1 and scan.mentions == []


def test_bad_arguments(smith: CaseStore) -> None:
    with pytest.raises(CaseTrackError, match="Unknown entity type 'judge'"):
        find_entity(smith, "Smith", "judge")
    with pytest.raises(CaseTrackError, match="no words"):
        find_entity(smith, " §§ .. ")
    with pytest.raises(CaseTrackError, match="top_k"):
        find_entity(smith, "Smith", top_k=0)


def test_portuguese_accents_and_cnj_number(processo: CaseStore) -> None:
    entity = "Ação Civil Pública nº 0001234-56.2023.8.26.0100"
    result = find_entity(processo, entity)
    assert result.citation_mode
    assert sorted(found(result)) == [
        ("acordao.txt", "exact", "ACAO CIVIL PUBLICA n. 0001234-56.2023.8.26.0100"),
        ("peticao.txt", "exact", "Ação Civil Pública nº 0001234-56.2023.8.26.0100"),
    ]
    # Typed without accents, an organisation finds the accented text (and the reverse).
    plain = find_entity(processo, "Ministerio Publico", "organization")
    assert sorted(found(plain)) == [
        ("acordao.txt", "exact", "Ministerio Publico"),
        ("peticao.txt", "exact", "Ministério Público"),
    ]
    accented = find_entity(processo, "Ministério Público", "organization")
    assert sorted(found(accented)) == sorted(found(plain))
    # A misspelt company name in one document only.
    company = find_entity(processo, "Construtora Horizonte Ltda", "organization")
    assert found(company) == [
        ("peticao.txt", "exact", "Construtora Horizonte Ltda"),
        ("acordao.txt", "fuzzy", "Construtora Horisonte Ltda"),
    ]


def test_portuguese_article_reference(processo: CaseStore) -> None:
    result = find_entity(processo, "artigo 5", "statute")
    assert found(result) == [("peticao.txt", "exact", "art. 5º")]


def test_normalisation_units() -> None:
    assert [t[0] for t in tokens("Ação  CIVIL—pública")] == ["acao", "civil", "publica"]
    assert [t[0] for t in tokens("42 U. S. C. sec. 1983", citation=True)] == ["42", "usc", "1983"]
    assert [t[0] for t in tokens("Roe vs. Wade", citation=True)] == ["roe", "v", "wade"]
    text = "xx Smith v. Jnoes yy"
    words = tokens(text)
    [m] = match_tokens(words, ["smith", "v", "jones"])
    assert 0.85 <= m.similarity < 1.0 and text[words[m.first][1] : words[m.last][2]] == "Smith v. Jnoes"
    assert match_tokens(tokens("Smith v. Jonas Bros"), ["smith", "v", "jones"])  # 0.923: fuzzy
    assert not match_tokens(tokens("Smyth"), ["smith"])  # 0.8: too far


def test_citation_words_drop_only_before_numbers() -> None:
    assert [t[0] for t in tokens("Processo nº 123 no tribunal", citation=True)] == [
        "processo",
        "123",
        "no",
        "tribunal",
    ]
    assert [t[0] for t in tokens("Section 1983 section", citation=True)] == ["1983", "section"]


def test_an_empty_case_finds_nothing(app: CaseTrack) -> None:
    app.create_case("Empty")
    store = app.open_case("Empty")
    try:
        assert find_entity(store, "Smith v. Jones").documents == []
    finally:
        store.close()
