"""E-mails as documents (issue 17, item 4): .eml parsing, MIME parts, detection, mailboxes, and the
address-aware `--field` filter. Every message is built here with the stdlib's EmailMessage."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from casetrack.domain import FileType
from casetrack.errors import CorruptFileError
from casetrack.parse import parse_file
from casetrack.parse.detect import SUPPORTED_EXTENSIONS, detect_file_type
from casetrack.parse.email.mbox import mbox_messages
from casetrack.parse.email.parser import load_message, read_email
from casetrack.parse.email.parts import safe_filename, split_parts
from casetrack.parse.email.sniff import mail_type
from casetrack.search.legal_filters import field_matches, legal_filters, matches
from tests.test_parse_detect import ole_file

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)


def message(subject: str = "Indemnity cap", sender: str = "Alice Smith <alice@firm.com>") -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "Bob Jones <bob@client.com>, carol@client.com"
    m["Cc"] = '"Doe, John" <john@other.com>'
    m["Date"] = "Mon, 04 Mar 2024 10:15:00 -0500"
    m["Subject"] = subject
    m["Message-ID"] = "<cap-1@firm.com>"
    return m


def save(tmp_path: Path, m: EmailMessage | bytes, name: str = "mail.eml") -> Path:
    path = tmp_path / name
    path.write_bytes(m if isinstance(m, bytes) else m.as_bytes())
    return path


def lines_of(path: Path) -> dict[int, str]:
    page = parse_file(path).pages[0]
    return {s.number: page.text[s.start : s.end] for s in page.lines}


def test_plain_email_header_lines_then_body_with_the_messages_line_numbers(tmp_path: Path) -> None:
    m = message()
    m.set_content("Bob,\n\nThe cap is now $2 million.\nSee clause 9.\n\n\nAlice\n")
    parsed = parse_file(save(tmp_path, m))
    assert parsed.file_type is FileType.EMAIL and parsed.title == "Indemnity cap" and parsed.warnings == ()
    assert lines_of(save(tmp_path, m)) == {
        1: "From: Alice Smith <alice@firm.com>",
        2: "To: Bob Jones <bob@client.com>, carol@client.com",
        3: 'Cc: "Doe, John" <john@other.com>',
        4: "Date: Mon, 04 Mar 2024 10:15:00 -0500",
        5: "Subject: Indemnity cap",
        7: "Bob,",  # line 6 is the blank line between the headers and the body
        9: "The cap is now $2 million.",
        10: "See clause 9.",
        13: "Alice",  # two blank lines before it, counted as a reader counts them
    }
    page = parsed.pages[0]
    assert [page.text[p.start : p.end] for p in page.paragraphs][0].startswith("From: Alice Smith")
    assert len(page.paragraphs) == 4  # the header block, then the body's three paragraphs


def test_html_only_email_is_read_through_the_html_reader(tmp_path: Path) -> None:
    m = message()
    m.set_content(
        "<html><head><style>p {color: red}</style><script>track()</script></head><body>"
        "<h1>Notice of default</h1><p>Payment was due on <b>1 March</b>.</p>"
        "<p>Cure within<br>ten days.</p></body></html>",
        subtype="html",
    )
    page = parse_file(save(tmp_path, m)).pages[0]
    assert "track()" not in page.text and "color" not in page.text
    assert lines_of(save(tmp_path, m))[7] == "Notice of default"
    assert "Payment was due on 1 March." in page.text
    assert "Cure within\nten days." in page.text  # <br> keeps its line break


def test_multipart_alternative_reads_the_plain_part_or_the_html_when_the_plain_is_blank(
    tmp_path: Path,
) -> None:
    m = message()
    m.set_content("PLAIN version of the notice.")
    m.add_alternative("<p>HTML version of the notice.</p>", subtype="html")
    text = parse_file(save(tmp_path, m)).pages[0].text
    assert "PLAIN version" in text and "HTML version" not in text

    blank = message()
    blank.set_content("   \n")
    blank.add_alternative("<p>HTML version of the notice.</p>", subtype="html")
    text = parse_file(save(tmp_path, blank, "blank.eml")).pages[0].text
    assert "HTML version of the notice." in text


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
def test_non_utf8_charsets_and_transfer_encodings_are_decoded(tmp_path: Path, cte: str) -> None:
    m = message()
    m.set_content("Cláusula 5ª — “multa” de R$ 1.000,00 por ação.\n", charset="windows-1252", cte=cte)
    assert b"windows-1252" in m.as_bytes()
    text = parse_file(save(tmp_path, m)).pages[0].text
    assert "Cláusula 5ª — “multa” de R$ 1.000,00 por ação." in text


def test_encoded_word_subject_and_a_mislabelled_or_unknown_charset(tmp_path: Path) -> None:
    raw = (
        b"From: =?iso-8859-1?q?Jo=E3o_Silva?= <joao@escritorio.com.br>\r\n"
        b"To: ana@cliente.com.br\r\nDate: Tue, 05 Mar 2024 09:00:00 -0300\r\n"
        b"Subject: =?iso-8859-1?q?A=E7=E3o_de_cobran=E7a?=\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        + "Prezada Ana, segue a petição da ação de cobrança.\r\n".encode("latin-1")
    )
    parsed = parse_file(save(tmp_path, raw))
    assert parsed.title == "Ação de cobrança"
    text = parsed.pages[0].text
    assert text.startswith("From: João Silva <joao@escritorio.com.br>")
    assert "segue a petição da ação de cobrança" in text and "\ufffd" not in text

    body = "Prezada Ana, segue a petição da ação de cobrança.\r\n"
    unknown = raw.replace(b"charset=us-ascii", b"charset=x-no-such-charset").replace(
        body.encode("latin-1"), body.encode("utf-8")
    )
    assert "segue a petição da ação de cobrança" in parse_file(save(tmp_path, unknown, "u.eml")).pages[0].text


def test_parts_inline_logo_signature_forwarded_mail_and_unsafe_names(tmp_path: Path) -> None:
    forwarded = message("Original offer")
    forwarded.set_content("The original offer.")
    m = message()
    m.set_content("See attached.")
    m.add_alternative('<p>See attached.</p><img src="cid:logo">', subtype="html")
    html = m.get_payload(1)
    assert isinstance(html, EmailMessage)
    html.add_related(PNG, "image", "png", cid="<logo>")
    m.add_attachment(b"%PDF-1.4 one", maintype="application", subtype="pdf", filename="../../etc/scan.pdf")
    m.add_attachment(b"%PDF-1.4 two", maintype="application", subtype="pdf", filename="scan.pdf")
    m.add_attachment(forwarded)
    m.add_attachment(
        b"-----BEGIN PGP SIGNATURE-----",
        maintype="application",
        subtype="pgp-signature",
        filename="signature.asc",
    )
    parts = split_parts(load_message(save(tmp_path, m)))
    assert [f.filename for f in parts.attachments] == ["scan.pdf", "scan (2).pdf", "Original offer.eml"]
    assert parts.inline_images == 1 and len(parts.body) == 1 and not parts.body[0].html
    assert parts.attachments[0].data() == b"%PDF-1.4 one"
    inner = parts.attachments[2].data()
    assert b"Subject: Original offer" in inner and b"The original offer." in inner
    assert lines_of(save(tmp_path, m))[6] == "Attachments: scan.pdf, scan (2).pdf, Original offer.eml"


def test_safe_filename() -> None:
    assert safe_filename("..\\..\\Windows\\evil.exe", "application/octet-stream", 1) == "evil.exe"
    assert safe_filename('bad:"name"?.pdf', "application/pdf", 1) == "bad name .pdf"
    assert safe_filename(None, "application/pdf", 3) == "attachment-3.pdf"
    assert safe_filename("...", "message/rfc822", 2) == "attachment-2.eml"
    long = safe_filename("x" * 300 + ".docx", "application/octet-stream", 1)
    assert len(long) == 120 and long.endswith(".docx")


def test_headers_read(tmp_path: Path) -> None:
    m = message()
    m["Bcc"] = "secret@firm.com"
    m.set_content("x")
    headers, _ = read_email(save(tmp_path, m))
    assert headers.sender == ("Alice Smith <alice@firm.com>",)
    assert headers.to == ("Bob Jones <bob@client.com>", "carol@client.com")
    assert headers.cc == ('"Doe, John" <john@other.com>',) and headers.bcc == ("secret@firm.com",)
    assert headers.date == "2024-03-04T10:15:00-05:00" and headers.message_id == "<cap-1@firm.com>"


def test_detection_by_content_and_name(tmp_path: Path) -> None:
    m = message()
    m.set_content("Body.")
    assert detect_file_type(save(tmp_path, m)) is FileType.EMAIL
    assert (
        detect_file_type(save(tmp_path, m, "saved message")) is FileType.EMAIL
    )  # Message-ID: mail without a name
    memo = b"TO: Bob Jones\nFROM: Alice Smith\nDATE: March 1, 2024\nRE: Lease renewal\n\nThe lease ends in May.\n"
    assert detect_file_type(save(tmp_path, memo, "memo.txt")) is FileType.TEXT  # a memo is not an e-mail
    box = b"From alice@firm.com Mon Mar  4 10:15:00 2024\n" + m.as_bytes()
    assert detect_file_type(save(tmp_path, box, "Inbox.mbox")) is FileType.MBOX
    assert mail_type(b"From the beginning, the parties agreed.\n\nMore text.", ".txt") is None
    assert {".eml", ".mbox"} <= SUPPORTED_EXTENSIONS


def test_a_malformed_email_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorruptFileError, match=r"does not look like an e-mail") as e:
        detect_file_type(save(tmp_path, b"this was never an e-mail, just some words\n", "broken.eml"))
    assert e.value.hint and ".eml" in e.value.hint
    with pytest.raises(CorruptFileError, match="no From, To, Date or Subject"):
        read_email(save(tmp_path, b"X-Spam: yes\nMIME-Version: 1.0\n\nbody\n", "headless.eml"))


def test_a_damaged_outlook_msg_says_what_to_do(tmp_path: Path) -> None:
    """A .msg whose directory names Outlook's streams but holds no message is refused with the fix."""
    with pytest.raises(CorruptFileError, match="Outlook message") as e:
        parse_file(save(tmp_path, ole_file(["__substg1.0_0037001F"]), "mail.msg"))
    assert e.value.hint and "Outlook Message Format" in e.value.hint


def test_mbox_messages_split_at_envelope_lines(tmp_path: Path) -> None:
    bodies = []
    for n in (1, 2, 3):
        m = message(f"Message {n}")
        m.set_content(f"Body {n}.\nFrom here on, a line that starts with From.\n")
        bodies.append(m.as_bytes().replace(b"\nFrom here", b"\n>From here"))
    box = b"".join(b"From alice@firm.com Mon Mar  4 10:15:00 2024\n" + b + b"\n" for b in bodies)
    found = list(mbox_messages(save(tmp_path, box, "archive.mbox")))
    assert len(found) == 3
    assert all(not f.startswith(b"From ") for f in found)  # the envelope line is not the message's
    assert b"Subject: Message 2" in found[1] and b"\nFrom here on" in found[1]  # >From unescaped


def test_field_filter_matches_an_address_a_display_name_or_a_domain() -> None:
    stored = 'Alice Smith <alice@firm.com>, "Doe, John" <john@other.com>'
    for wanted in ("alice@firm.com", "ALICE@FIRM.COM", "Alice Smith", "doe, john", "@other.com", stored):
        assert field_matches(stored, wanted), wanted
    for wanted in ("alice", "firm.com", "bob@firm.com", "", "Smith"):
        assert not field_matches(stored, wanted), wanted
    assert field_matches("Acme Ltda.", "acme ltda.") and not field_matches("Smith, Jones & Co", "smith")
    meta = {"legal": {"doc_type": "email", "doc_date": "2024-03-04", "fields": {"from": stored}}}
    assert matches(
        meta, legal_filters(fields=["from=alice@firm.com"], doc_types=["email"], date_from="2024-03-01")
    )
    assert not matches(meta, legal_filters(fields=["from=alice@firm.com"], date_from="2024-03-05"))


MSG = Path(__file__).parent / "fixtures" / "msg"


def test_an_outlook_msg_reads_like_the_same_eml() -> None:
    """A received .msg (real, tests/fixtures/msg): header lines, body and attachment, as an .eml gives them."""
    path = MSG / "plain_jpeg_attached.msg"
    assert detect_file_type(path) is FileType.EMAIL
    doc = parse_file(path)
    assert doc.file_type is FileType.EMAIL and doc.title == "test"
    assert doc.pages[0].text.splitlines() == [
        "From: Matijs van Zuijlen <Matijs.van.Zuijlen@xs4all.nl>",
        "To: matijs@xxxxxx.nl",
        "Date: Mon, 24 Sep 2007 15:28:03 +0200",
        "Subject: test",
        "Attachments: test.jpg",
        "",
        "test",
    ]
    headers, parts = read_email(path)
    assert headers.message_id == "<20070924132803.GB10141@matijs.net>"
    assert headers.date == "2007-09-24T15:28:03+02:00"
    [jpeg] = parts.attachments
    assert (jpeg.filename, jpeg.content_type, len(jpeg.data())) == ("test.jpg", "image/jpeg", 7681)


def test_an_unsent_msg_takes_its_headers_from_the_message_properties() -> None:
    """No transport headers (never sent): subject and recipient come from the .msg's own properties."""
    headers, parts = read_email(MSG / "plain_unsent.msg")
    assert (headers.subject, headers.to, headers.sender, headers.date) == (
        "Test for MSGConvert -- plain text",
        ("Someone Else <someone@somewhere.com>",),
        (),
        None,
    )
    assert not parts.attachments
    text = parse_file(MSG / "plain_unsent.msg").pages[0].text
    assert "This is a test\nThe body is in plain text" in text
