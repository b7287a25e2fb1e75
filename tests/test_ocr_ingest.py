"""Scans through the whole product: a scanned PDF, a mixed PDF and a fax TIFF are ingested with
real tesseract, searched through the real CLI, and cited with OCR provenance, confidence and
Bates stamps; a missing language is a per-file error with its fix, taken up later by `reocr`;
a decompression bomb is refused while the batch goes on; a kill -9 half-way through a long scan
resumes at the page it stopped on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_runner import run, run_json
from tests.pdf_maker import merged_pdf, page_images, scanned_pdf, text_pdf, tiff

LETTER = [
    [
        "SETTLEMENT LETTER",
        "Dear counsel,",
        "The supplier shall deliver the replacement turbines within forty days.",
        "Payment of the settlement amount is due on delivery.",
    ],
    [
        "Page two of the letter.",
        "The buyer may reject nonconforming turbines after inspection.",
        "This letter is confidential and subject to the protective order.",
    ],
]
STAMPS = ["ACME0001200", "ACME0001201"]


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("scans")
    native = text_pdf(folder / "letter-native.pdf", LETTER, stamps=STAMPS)
    images = page_images(native, dpi=300)
    return {
        "native": native,
        "scanned": scanned_pdf(folder / "letter-scanned.pdf", images),
        "mixed": merged_pdf(folder / "letter-mixed.pdf", [(native, 0), (folder / "letter-scanned.pdf", 1)]),
        "fax": tiff(folder / "letter-fax.tif", images),
    }


@pytest.fixture
def case() -> str:
    run("case", "create", "Turbine Dispute", "--type", "contract")
    return "Turbine Dispute"


def test_a_scanned_pdf_is_searchable_and_cited_with_ocr_provenance(case: str, scans: dict[str, Path]) -> None:
    report = run_json("ingest", "--case", case, str(scans["scanned"]))
    (only,) = report["files"]
    assert only["status"] == "ingested" and only["ocr_pages"] == [1, 2], only
    assert only["ocr_confidence"] > 85 and only["low_confidence_pages"] == []
    assert only["bates"] == "ACME0001200 - ACME0001201"
    out = run_json("search", "--case", case, "who may reject nonconforming turbines")
    top = out["results"][0]
    source = top["source"]
    assert source["page"] == 2 and source["extraction_method"] == "ocr" and source["bates"] == "ACME0001201"
    assert 80 < source["ocr_confidence"] <= 100
    assert top["citation"].startswith("letter-scanned.pdf, p. 2, para") and top["citation"].endswith(
        "(ACME0001201)"
    )
    assert "reject nonconforming turbines" in top["snippet"]
    details = run_json("case", "info", case)["documents"][0]
    assert details["ocr_pages"] == [1, 2]
    # The cited lines are the page's own: line 2 of page 2 holds the sentence.
    assert source["line_start"] <= 2 <= source["line_end"]
    # Search by the stamp itself, and by a Bates range.
    assert run_json("search", "--case", case, "ACME0001200")["results"][0]["source"]["page"] == 1
    ranged = run_json("search", "--case", case, "turbines", "--bates", "ACME0001201-ACME0001299")
    assert ranged["results"] and {r["source"]["page"] for r in ranged["results"]} == {2}
    nothing = run_json("search", "--case", case, "turbines", "--bates", "ACME0002000-ACME0002100")
    assert (
        nothing["results"] == [] and "No page in this case carries a Bates number" in nothing["warnings"][0]
    )
    bad = run("search", "--case", case, "turbines", "--bates", "pages 3 to 5", ok=False)
    assert bad.exit_code != 0 and "ABC0001200-ABC0001300" in bad.stderr


def test_a_mixed_pdf_keeps_native_pages_native(case: str, scans: dict[str, Path]) -> None:
    (only,) = run_json("ingest", "--case", case, str(scans["mixed"]))["files"]
    assert only["ocr_pages"] == [2] and only["needs_ocr_pages"] == []
    first = run_json("search", "--case", case, "replacement turbines within forty days")["results"][0][
        "source"
    ]
    second = run_json("search", "--case", case, "reject nonconforming turbines inspection")["results"][0][
        "source"
    ]
    assert (first["page"], first["extraction_method"], first["ocr_confidence"]) == (1, "native", None)
    assert (second["page"], second["extraction_method"]) == (2, "ocr")


def test_a_multi_page_fax_tiff_is_one_document_page_by_page(case: str, scans: dict[str, Path]) -> None:
    (only,) = run_json("ingest", "--case", case, str(scans["fax"]))["files"]
    assert only["status"] == "ingested" and only["file_type"] == "image" and only["pages"] == 2
    top = run_json("search", "--case", case, "protective order confidential")["results"][0]
    assert top["source"]["page"] == 2 and top["source"]["extraction_method"] == "ocr"


@pytest.mark.slow  # ~6 s: two OCR passes; the fast tier keeps the scanned-PDF and Portuguese scans
def test_a_missing_language_fails_only_that_file_and_reocr_takes_it_later(
    case: str, scans: dict[str, Path], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Call with opposing counsel about the turbines on Monday.\n")
    missing = {"CASETRACK_OCR_LANGUAGES": "eng+xyz"}
    report = run_json("ingest", "--case", case, str(scans["scanned"]), str(notes), ok=False, env=missing)
    by_name = {f["name"]: f for f in report["files"]}
    assert by_name["notes.txt"]["status"] == "ingested"
    scan = by_name["letter-scanned.pdf"]
    assert scan["status"] == "needs_ocr" and "xyz" in scan["error"] and "install" in scan["hint"].lower(), (
        scan
    )
    status = run_json("status", env=missing)
    assert status["ocr"]["available"] and "eng" in status["ocr"]["languages"]
    refused = run("reocr", "--case", case, ok=False, env=missing)
    assert refused.exit_code != 0 and "xyz" in refused.stderr
    redone = run_json("reocr", "--case", case)
    assert [f["name"] for f in redone["files"]] == ["letter-scanned.pdf"]
    assert redone["files"][0]["status"] == "ingested" and redone["files"][0]["ocr_pages"] == [1, 2]
    assert "Nothing to OCR" in run("reocr", "--case", case).output


def test_a_decompression_bomb_is_refused_and_the_batch_goes_on(case: str, tmp_path: Path) -> None:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    bomb = tmp_path / "bomb.png"
    header = struct.pack(">IIBBBBB", 50_000, 50_000, 8, 0, 0, 0, 0)
    bomb.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )
    notes = tmp_path / "notes.txt"
    notes.write_text("The hearing is set for June 3.\n")
    started = time.monotonic()
    report = run_json("ingest", "--case", case, str(bomb), str(notes), ok=False)
    by_name = {f["name"]: f for f in report["files"]}
    assert by_name["notes.txt"]["status"] == "ingested"
    assert by_name["bomb.png"]["status"] == "error" and "50000" in by_name["bomb.png"]["error"].replace(
        ",", ""
    )
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_kill_9_half_way_through_a_scan_resumes_at_the_page_it_stopped_on(tmp_path: Path) -> None:
    pages = [
        [f"Page {n} of the deposition exhibit.", f"Witness statement number {n} about the turbine delivery."]
        for n in range(1, 13)
    ]
    scanned = scanned_pdf(
        tmp_path / "exhibit.pdf", page_images(text_pdf(tmp_path / "src.pdf", pages), dpi=300)
    )
    home = tmp_path / "home"
    env = {**os.environ, "CASETRACK_HOME": str(home)}
    cmd = [sys.executable, "-m", "casetrack"]
    subprocess.run([*cmd, "case", "create", "Exhibits"], env=env, check=True, capture_output=True)
    proc = subprocess.Popen(
        [*cmd, "ingest", "--case", "Exhibits", str(scanned)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    cached: list[Path] = []
    while time.monotonic() < deadline and len(cached) < 4:
        cached = list(home.glob("cases/*/ocr/*/page-*.json"))
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(cached) >= 4, "the scan was not being OCR'd page by page"
    kept = len(list(home.glob("cases/*/ocr/*/page-*.json")))
    done = subprocess.run(
        [*cmd, "ingest", "--case", "Exhibits", str(scanned), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    (only,) = report["files"]
    assert only["status"] == "ingested" and only["ocr_pages"] == list(range(1, 13)), only
    resumed = [w for w in only["warnings"] if w.startswith("OCR resumed")]
    assert resumed and f"{kept} page(s)" in resumed[0]
    assert not list(home.glob("cases/*/ocr/*/page-*.json"))  # stored: the page cache is gone


@pytest.mark.slow  # ~5 s: a batch ingested twice
def test_without_tesseract_scans_wait_and_everything_else_goes_in(
    case: str, scans: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from casetrack.ocr import engine_info

    with monkeypatch.context() as patched:  # the parser's child process inherits the setting
        patched.setenv("CASETRACK_TESSERACT", "/nonexistent/tesseract")
        engine_info(refresh=True)
        report = run_json("ingest", "--case", case, str(scans["scanned"]), str(scans["native"]), ok=False)
        by_name = {f["name"]: f for f in report["files"]}
        assert by_name["letter-native.pdf"]["status"] == "ingested"
        scan = by_name["letter-scanned.pdf"]
        assert (
            scan["status"] == "needs_ocr" and "not installed" in scan["error"] and "tesseract" in scan["hint"]
        ), scan
        status = run_json("status")["ocr"]
        assert status["available"] is False and "not installed" in status["problem"] and status["fix"]
    engine_info(refresh=True)
    assert run_json("reocr", "--case", case)["files"][0]["ocr_pages"] == [1, 2]


def test_a_portuguese_scan_is_read_in_portuguese(tmp_path: Path) -> None:
    decision = [
        [
            "ACÓRDÃO",
            "Vistos, relatados e discutidos estes autos de apelação cível,",
            "acordam os desembargadores em negar provimento ao recurso, nos termos do voto.",
            "A prescrição intercorrente não se consumou, pois não houve inércia do exequente.",
        ]
    ]
    scan = scanned_pdf(
        tmp_path / "acordao.pdf", page_images(text_pdf(tmp_path / "src.pdf", decision), dpi=300)
    )
    run("case", "create", "Apelação", "--language", "pt")
    (only,) = run_json("ingest", "--case", "Apelação", str(scan))["files"]
    assert only["ocr_pages"] == [1] and only["ocr_confidence"] > 85, only
    top = run_json("search", "--case", "Apelação", "prescricao intercorrente inercia do exequente")[
        "results"
    ][0]
    assert (
        "prescrição intercorrente não se consumou" in top["snippet"]
        and top["source"]["extraction_method"] == "ocr"
    )
