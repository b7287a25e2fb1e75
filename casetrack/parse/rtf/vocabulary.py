r"""What RTF's control words and symbols mean to the reader (rtf/reader.py): the destinations
skipped, the symbols written, and the code page each \ansicpg / \fcharset names."""

from __future__ import annotations

import codecs

# Destinations whose content is never body text.
SKIP_DESTINATIONS = frozenset(
    {
        "fonttbl",  # parsed separately, see RtfReader.table_word
        "colortbl",
        "stylesheet",  # parsed separately
        "info",  # title parsed separately
        "pict",
        "nonshppict",
        "objdata",
        "header",
        "headerl",
        "headerr",
        "headerf",
        "footer",
        "footerl",
        "footerr",
        "footerf",
        "fldinst",
        "xe",
        "tc",
        "tcn",
        "txe",
        "rxe",
        "bkmkstart",
        "bkmkend",
        "annotation",
        "atnid",
        "atnauthor",
        "atndate",
        "atnref",
        "atnparent",
        "atrfstart",
        "atrfend",
        "listtable",
        "listoverridetable",
        "revtbl",
        "rsidtbl",
        "filetbl",
        "generator",
        "xmlnstbl",
        "themedata",
        "colorschememapping",
        "latentstyles",
        "datastore",
        "pgdsctbl",
        "userprops",
        "private",
        "sp",
        "sn",
        "sv",
        "template",
        "docvar",
        "datafield",
        "ftnsep",
        "ftnsepc",
        "aftnsep",
        "aftnsepc",
        "ftncn",
        "aftncn",
        "mmathPr",
        "operator",
        "password",
    }
)

# Info fields we read while skipping the rest of \info.
INFO_FIELDS = frozenset({"title"})

SYMBOL_WORDS = {
    "tab": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "bullet": "\u2022",
    "zwj": "",
    "zwnj": "",
    "zwbo": "",
    "zwnbo": "",
}

CONTROL_SYMBOLS = {
    "\\": "\\",
    "{": "{",
    "}": "}",
    "~": "\u00a0",
    "-": "",  # optional hyphen: invisible unless the line breaks there
    "_": "-",  # non-breaking hyphen; a plain hyphen is what people search for
}


# --------------------------------------------------------------------------------------------
# Code pages
# --------------------------------------------------------------------------------------------

# \fcharset -> Windows code page. 0 (ANSI) and 1 (default) mean the document's \ansicpg.
CHARSET_CODEPAGE = {
    2: 1252,  # Symbol: no faithful mapping; cp1252 at least keeps letters and digits
    77: 10000,
    128: 932,
    129: 949,
    130: 1361,
    134: 936,
    136: 950,
    161: 1253,
    162: 1254,
    163: 1258,
    177: 1255,
    178: 1256,
    186: 1257,
    204: 1251,
    222: 874,
    238: 1250,
    255: 437,
}


def codec_for(codepage: int) -> str:
    """The Python codec for a Windows code page; cp1252 when Python has none."""
    name = "mac_roman" if codepage == 10000 else f"cp{codepage}"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name
