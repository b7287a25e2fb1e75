"""The caller's words (issue 27): keywords and likely wording through the app and the CLI, echoed,
checked, used for what they are; and a result list never shows one citation twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.store.case_store import chunk_id_for
from tests.cli_runner import run_json
from tests.conftest import MODELS

CASE = "Words"
LEASE = (
    "LEASE AGREEMENT\n\nThe Tenant shall pay a pet deposit of five hundred dollars before any animal is kept "
    "in the premises.\n\nThe Landlord keeps the security deposit for repairs of damage beyond normal wear."
)
SUPPLY = (
    "SUPPLY AGREEMENT\n\nThe Supplier shall deliver the goods within thirty days of each purchase order.\n\n"
    "This Agreement shall be governed by and construed in accordance with the laws of the State of Texas."
)
MEMO = "Internal memo. The partners met on Tuesday to discuss staffing of the Acme matter and billing rates."


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("words")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case(CASE)
    files = {"lease.txt": LEASE, "supply.txt": SUPPLY, "memo.txt": MEMO}
    for name, text in files.items():
        (root / name).write_text(text)
    assert all(r.status == "ingested" for r in app.ingest(CASE, [root / n for n in files]))
    app.close()
    yield root / "home"


@pytest.fixture
def app(home: Path) -> Iterator[CaseTrack]:
    app = CaseTrack(resolve_settings(home, MODELS, environ={}))
    yield app
    app.close()


def test_the_words_find_a_clause_worded_unlike_the_question(app: CaseTrack) -> None:
    question = "Which state's rules apply if the supplier and buyer end up in court?"
    words = app.search(
        CASE,
        question,
        keywords=["governing law", "choice of law"],
        likely_wording="This Agreement shall be governed by the laws of the State of New York.",
    )
    assert words.hits[0].provenance.document == "supply.txt" and "Texas" in words.hits[0].snippet
    assert words.keywords == ["governing law", "choice of law"]
    assert words.likely_wording and "New York" in words.likely_wording
    assert "New York" not in " ".join(h.snippet for h in words.hits)  # the guess is never a finding


def test_a_wrong_likely_wording_does_not_bury_the_questions_exact_words(app: CaseTrack) -> None:
    question = "How much is the pet deposit before an animal is kept in the premises?"
    wrong = "The Supplier shall deliver the goods within thirty days of each purchase order."
    response = app.search(CASE, question, keywords=["delivery schedule"], likely_wording=wrong)
    assert response.hits[0].provenance.document == "lease.txt"
    assert "pet deposit" in response.hits[0].snippet


def test_the_words_are_checked_and_tidied(app: CaseTrack) -> None:
    tidy = app.search(
        CASE, "pet deposit", keywords=["  animal deposit ", "", "animal deposit"], likely_wording="  "
    )
    assert tidy.keywords == ["animal deposit"] and tidy.likely_wording is None
    with pytest.raises(CaseTrackError, match="at most 8"):
        app.search(CASE, "pet deposit", keywords=[f"word {i}" for i in range(9)])
    with pytest.raises(CaseTrackError, match="likely_wording is 2,000 characters long"):
        app.search(CASE, "pet deposit", likely_wording="x" * 2000)


def test_the_cli_takes_and_echoes_the_words(home: Path) -> None:
    env = {"CASETRACK_CLI_DAEMON": "never"}
    base = ["--data-dir", str(home), "search", "--case", CASE, "which law applies to the supply deal?"]
    words = ["--keyword", "governing law", "--keyword", "construed in accordance with"]
    words += ["--likely-wording", "This Agreement shall be governed by the laws of Delaware."]
    out = run_json(*base, *words, env=env)
    assert out["keywords"] == ["governing law", "construed in accordance with"]
    assert out["likely_wording"] == "This Agreement shall be governed by the laws of Delaware."
    assert out["results"][0]["source"]["document"] == "supply.txt"
    plain = run_json(*base, env=env)
    assert plain["keywords"] == [] and plain["likely_wording"] is None


def test_one_citation_is_shown_once(tmp_path: Path) -> None:
    """Consecutive chunks share their overlapping sentences, so two chunks can pin the same lines; the
    later one is left out and the page is filled from further down."""
    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app.create_case("Long")
    sentences = [
        f"Section {i}. The contractor shall inspect the pump station number {i} every month and log it."
        for i in range(1, 120)
    ]
    (tmp_path / "long.txt").write_text("\n".join(sentences))
    assert app.ingest("Long", [tmp_path / "long.txt"])[0].status == "ingested"
    with app.reading("Long") as store:
        ids = [chunk_id_for(d.doc_id, d.gen, i) for d in store.documents() for i in range(4)]
        rows = sorted(store.lance.fetch_chunks(ids).values(), key=lambda r: r["seq"])
    shared = next(s for s in sentences if s in rows[0]["text"] and s in rows[1]["text"])
    response = app.search("Long", shared, top_k=5)
    citations = [h.citation for h in response.hits]
    assert len(citations) == len(set(citations)) == 5
    app.close()


def test_table_and_eval_take_the_words_from_their_csv(home: Path, tmp_path: Path) -> None:
    env = {"CASETRACK_CLI_DAEMON": "never"}
    question = "Which state's rules apply if the supplier and buyer end up in court?"
    words = (
        'governing law;construed in accordance with,"This Agreement shall be governed by the laws of Ohio."'
    )
    questions = tmp_path / "questions.csv"
    questions.write_text(f'question,keywords,likely_wording\n"{question}",{words}\n')
    out = run_json(
        "--data-dir",
        str(home),
        "table",
        "--case",
        CASE,
        str(questions),
        "--out",
        str(tmp_path / "t.csv"),
        env=env,
    )
    assert out["rows"][0]["document"] == "supply.txt" and "Texas" in out["rows"][0]["passage"]
    known = tmp_path / "known.csv"
    known.write_text(
        f'question,document,quote,keywords,likely_wording\n"{question}",supply.txt,laws of the State of Texas,{words}\n'
    )
    report = run_json("--data-dir", str(home), "eval", "--case", CASE, str(known), env=env)
    assert report["rows"][0]["rank"] == 1


def test_the_csv_columns_are_read(tmp_path: Path) -> None:
    from casetrack.app.case_eval import read_known
    from casetrack.app.evidence import Asked, read_asked

    path = tmp_path / "q.csv"
    path.write_text(
        'question;keywords;likely_wording\nQual o foro?;"foro; eleição de foro";"Fica eleito o foro de Campinas."\nE a multa?;;\n'
    )
    assert read_asked(path) == [
        Asked("Qual o foro?", ("foro", "eleição de foro"), "Fica eleito o foro de Campinas."),
        Asked("E a multa?"),
    ]
    (tmp_path / "plain.txt").write_text("Qual o foro?\n")
    assert read_asked(tmp_path / "plain.txt") == [Asked("Qual o foro?")]
    known = tmp_path / "k.csv"
    known.write_text("question,document,page,keywords\nQual o foro?,a.pdf,3,foro;comarca\n")
    row = read_known(known)[0]
    assert row["keywords"] == ["foro", "comarca"] and row["likely_wording"] is None
