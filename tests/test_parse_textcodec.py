"""Text decoding, as a table: every way Brazilian legal text reaches us, each case judged by
whether the decoded text is exactly the text that was written.

Real text comes from LeNER-Br (70 court decisions and laws) and JurisTCU (enunciados), encoded
here in memory into each encoding a Windows or Unix tool would write; built byte strings add
short and ambiguous samples, stray bytes and NUL padding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from casetrack.parse.textcodec import DecodedText, bom_encoding, decode_bytes, decode_sample
from tests.conftest import DATA

LENER = DATA / "lener_br" / "raw_text"
JURIS = DATA / "juristcu_pool" / "corpus.jsonl"
OTHER_REAL_TEXTS = (
    DATA / "ocr" / "tesseract_test" / "eurotext.txt",
    DATA / "ocr" / "ocrmypdf_resources" / "linn.txt",
    DATA / "pdf_robustness" / "pypdf_resources" / "crazyones.txt",
    DATA / "legal_docs_us_courts" / "extra_from_history" / "opinion_text.txt",
)

# What Windows Notepad, Word's "plain text" export, old Windows programs and Unix tools write.
# "utf-16" and "utf-32" write a BOM; the -le/-be forms do not.
ENCODINGS = ("utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16", "utf-16-le", "utf-16-be", "utf-32")
REAL_ENCODINGS = ("cp1252", "latin-1", "utf-16-le", "utf-16-be")

SENTENCES = (
    "Ação de cobrança “indevida” – réu",
    "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 2ª VARA CÍVEL DA COMARCA DE SÃO PAULO",
    "O réu, citado, não apresentou contestação; decretada a revelia, julgo procedente o pedido.",
    "Certidão: certifico que a petição foi protocolada às 14h30, nos termos do § 2º do art. 212.",
    "Ação",
    "São Paulo",
    "café",
    "é",
    "Réu",
    "nº 5",
    "AÇÃO PENAL",
    "ok",
)


def _encodable(text: str, encoding: str) -> bytes | None:
    """The text in that encoding, or None when the encoding cannot carry it faithfully.

    A latin-1 file holding bytes 0x80-0x9F is, in practice, cp1252 (LeNER's AgRg1STM.txt
    carries U+0091 from exactly that mix-up), so such text has no single right answer there.
    """
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return None
    if encoding in ("cp1252", "latin-1") and any("\x80" <= ch <= "\x9f" for ch in text):
        return None
    return data


def _short_samples(text: str) -> dict[str, str]:
    """The first line (usually an all-caps heading) and the first line with an accent."""
    lines = [line for line in text.split("\n") if line.strip()]
    return {"head": lines[0], "line": next((line for line in lines if not line.isascii()), lines[0])}


def _lener_texts() -> Iterator[tuple[str, str]]:
    for path in sorted(LENER.glob("*.txt")) if LENER.is_dir() else ():
        text = path.read_text("utf-8")
        if text.strip():
            yield path.stem, text


def _juris_texts(limit: int = 60) -> Iterator[tuple[str, str]]:
    if not JURIS.is_file():
        return
    with JURIS.open(encoding="utf-8") as f:
        for _, line in zip(range(limit), f, strict=False):
            record = json.loads(line)
            yield f"juris{record['_id']}", record["text"]


def _built_cases() -> Iterator[object]:
    for n, sentence in enumerate(SENTENCES):
        for encoding in ENCODINGS:
            data = _encodable(sentence, encoding)
            if data is not None:
                yield pytest.param(data, sentence, id=f"built{n}-{encoding}")
    accents = "Ação, petição, decisão, acórdão"
    yield pytest.param(accents.encode() + b" \xff fim", accents + " \ufffd fim", id="utf8-with-stray-byte")
    # 0x81 is undefined in cp1252; latin-1 is the only reading left.
    yield pytest.param(b"caf\xe9 \x81", "café \x81", id="cp1252-undefined-byte")
    yield pytest.param(b"Recurso Especial n. 1.583.083", "Recurso Especial n. 1.583.083", id="ascii")
    # Tools that preallocate pad with NULs; the NULs stay, and detection calls that binary.
    padded = "Ação de cobrança".encode()
    yield pytest.param(padded + bytes(8), "Ação de cobrança" + "\x00" * 8, id="utf8-nul-padded")
    padded = "Ação de cobrança".encode("cp1252")
    yield pytest.param(padded + bytes(8), "Ação de cobrança" + "\x00" * 8, id="cp1252-nul-padded")


def _stray_nul_cases(name: str, text: str) -> Iterator[object]:
    """A stray NUL or NUL padding in UTF-8 / cp1252 text: the text stays (detection calls it
    binary), never a UTF-16 misreading. Even lengths, so UTF-16 is not ruled out."""
    for part, sample in {"whole": text, "200": text[:200]}.items():
        middle = len(sample) // 2
        variants = {"mid": sample[:middle] + "\x00" + sample[middle:], "pad": sample + "\x00" * 64}
        for kind, with_nul in variants.items():
            for encoding in ("utf-8", "cp1252"):
                data = _encodable(with_nul, encoding)
                if data is not None:
                    even = " " * (len(data) % 2)
                    yield pytest.param(
                        data + even.encode(), with_nul + even, id=f"lener-{name}-{part}-nul-{kind}-{encoding}"
                    )


def _lener_cases() -> Iterator[object]:
    """Each LeNER-Br text in UTF-8; whole, its first 200 characters and short samples in every
    encoding of REAL_ENCODINGS that can write them."""
    for name, text in _lener_texts():
        yield pytest.param(text.encode("utf-8"), text, id=f"lener-{name}-utf-8")
        samples = {"whole": text, "200": text[:200], **_short_samples(text)}
        for part, sample in samples.items():
            for encoding in REAL_ENCODINGS:
                data = _encodable(sample, encoding)
                if data is not None:
                    yield pytest.param(data, sample, id=f"lener-{name}-{part}-{encoding}")


def _juris_cases() -> Iterator[object]:
    for name, text in _juris_texts():
        for encoding in REAL_ENCODINGS:
            data = _encodable(text, encoding)
            if data is not None:
                yield pytest.param(data, text, id=f"{name}-{encoding}")


def _real_cases() -> Iterator[object]:
    yield from _lener_cases()
    yield from _juris_cases()
    for name, text in _lener_texts():
        yield from _stray_nul_cases(name, text)
    for path in OTHER_REAL_TEXTS:
        if path.is_file():
            yield pytest.param(path.read_bytes(), path.read_text("utf-8"), id=f"file-{path.name}")


@pytest.mark.parametrize(("data", "expected"), [*_built_cases(), *_real_cases()])
def test_decodes_to_the_written_text(data: bytes, expected: str) -> None:
    assert decode_bytes(data).text == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # UTF-16 of Chinese has no NUL byte, and no BOM leaves nothing to tell it from cp1252.
        pytest.param("中华人民共和国".encode("utf-16-le"), "中华人民共和国", id="cjk-utf-16-le"),
        # U+2019 is 0x19 0x20 in UTF-16-LE: no NUL byte, nothing to tell it from cp1252.
        pytest.param("’".encode("utf-16-le"), "’", id="quote-utf-16-le"),
    ],
)
@pytest.mark.xfail(strict=True, reason="no decoder can tell these without a BOM")
def test_known_limits(data: bytes, expected: str) -> None:
    assert decode_bytes(data).text == expected


def test_decoded_text_reports_encoding_and_replacements() -> None:
    assert decode_bytes("Ação".encode("cp1252")) == DecodedText("Ação", "cp1252", 0)
    assert decode_bytes("Ação".encode()) == DecodedText("Ação", "utf-8", 0)
    stray = decode_bytes("Ação, petição, decisão".encode() + b"\xff")
    assert (stray.encoding, stray.replaced) == ("utf-8", 1)
    for utf16 in ("utf-16-le", "utf-16-be"):
        assert decode_bytes("Petição inicial".encode(utf16)) == DecodedText("Petição inicial", utf16, 0)
    assert bom_encoding("x".encode("utf-16")) == ("utf-16-le", 2)
    assert bom_encoding(b"plain") is None


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be", "utf-16", "cp1252"])
def test_sample_cut_inside_a_character(encoding: str) -> None:
    emoji = " \U0001f600" if encoding.startswith("utf") else ""  # a surrogate pair in UTF-16
    text = f"Petição do réu sobre a citação{emoji}. " * 40
    data = text.encode(encoding)
    for cut in range(len(data) - 12, len(data)):
        sample = decode_sample(data[:cut], complete=False)
        assert len(sample) >= len(text) - 16 and text.startswith(sample), (encoding, cut)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(bytes(range(256)) * 8, id="every-byte"),
        pytest.param(bytes(4096), id="all-nul"),
        pytest.param(b"\x00\xd8" * 200, id="lone-surrogates-le"),
        pytest.param(b"\xd8\x00" * 200 + b"\x00", id="lone-surrogates-be-odd"),
        pytest.param(b"\xff\xfe" + b"\x00\xd8", id="bom-then-lone-surrogate"),
        pytest.param(b"", id="empty"),
    ],
)
def test_never_raises(data: bytes) -> None:
    decoded = decode_bytes(data)
    assert isinstance(decoded.text, str)
    decode_sample(data, complete=False)
    decode_sample(data, complete=True)
