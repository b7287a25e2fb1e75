"""Structural units of a real statute (Lei 11.340/2006) and of an English agreement; the entry point."""

from __future__ import annotations

import json

from casetrack.legal.extract import document_metadata, extract_entities
from casetrack.legal.structure import find_structure, statute_title, unit_at
from tests.conftest import DATA, require


def test_statute_paths() -> None:
    text = require(DATA / "lener_br" / "raw_text" / "lei11340.txt").read_text(encoding="utf-8")
    name = statute_title(text)
    assert name == "Lei 11.340/2006"
    units = find_structure(text, "pt", name)
    paths = [u.path_text for u in units]
    assert "Lei 11.340/2006 › Art. 5 › § único" in paths
    assert "Lei 11.340/2006 › Art. 7 › II" in paths
    art5 = next(u for u in units if u.label == "Art. 5")
    assert art5.containers == ("Título II", "Capítulo I")
    assert text[art5.start :].startswith("Art. 5") and text[art5.end :].startswith("Art. 6")
    # a reference inside a sentence ("nos termos do § 8o do art. 226") is no boundary
    assert not any(u.label == "Art. 226" for u in units)
    inner = unit_at(units, text.index("As relações pessoais enunciadas"))
    assert inner is not None and inner.path_text.endswith("Art. 5 › § único")


def test_agreement_sections() -> None:
    text = "ARTICLE V\nCOMPENSATION\nSection 4.2 Payment. Fees.\n(a) first\n(b) second\n4.3 Taxes. All.\nARTICLE VI\n"
    labels = [(u.label, u.path_text) for u in find_structure(text, "en")]
    assert ("(a)", "Article V › Section 4.2 › (a)") in labels and ("4.3", "Article V › 4.3") in labels


def test_entities_and_metadata_are_json() -> None:
    text = require(DATA / "lener_br" / "raw_text" / "REsp1583083RS.txt").read_text(encoding="utf-8")
    ents = extract_entities(text, "pt")
    kinds = {e.kind for e in ents}
    assert {"legislation", "jurisprudence", "tribunal", "cnj"} <= {str(k) for k in kinds}
    meta = document_metadata([text], "auto", "REsp1583083RS.txt")
    assert meta.doc_type.type == "acordao" and meta.languages == ("pt",) and "STJ" in meta.tribunals
    assert meta.doc_date is not None and meta.doc_date.date == "2017-05-04"
    json.dumps(meta.to_json(), ensure_ascii=False)
    json.dumps([e.to_json() for e in ents], ensure_ascii=False)
