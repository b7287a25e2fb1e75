"""Document type by rules over the file name, the title (the first ~800 characters) and the first two
pages, in English and Portuguese. Each rule that fires adds its weight to its type; the type with the
highest score wins, with the rules that fired as evidence and a confidence from its margin over the
runner-up. Below MIN_SCORE the document is "other".

Decisions: party-written arguments to a court — briefs, memoranda of law, recursos, apelações (the
petition), razões, contrarrazões, memoriais — are all "brief"; a court's decision on an appeal is
"acordao" (Brazilian collegiate judgment: ementa + acórdão, TCU acórdãos too) or "opinion" (a US court's
opinion). A monocratic "decisão" and a "despacho" are "order"; a first-instance "sentença" is "judgment".
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from casetrack.legal.model import DocType
from casetrack.legal.text import fold

DOC_TYPES = (
    "contract",
    "amendment",
    "nda",
    "complaint",
    "answer",
    "motion",
    "brief",
    "order",
    "judgment",
    "acordao",
    "opinion",
    "deposition",
    "transcript",
    "letter",
    "invoice",
    "statute",
    "power_of_attorney",
    "minutes",
    "email",
    "other",
)
MIN_SCORE = 2.0
TITLE_CHARS = 800
HEAD_CHARS = 8000


@dataclass(frozen=True)
class Rule:
    name: str
    type: str
    where: str  # "name" (file name), "title", "head" (first two pages), "start" (first 300 characters),
    # "title_raw" (the title unfolded: case matters)
    pattern: str  # over folded text
    weight: float


R = Rule
RULES: tuple[Rule, ...] = (
    # Brazilian collegiate judgments
    R("acordao_title", "acordao", "title", r"\bacordao\b|a\s?c\s?o\s?r\s?d\s?a\s?o|ementa\s+e\s+acordao", 3),
    R("ementa", "acordao", "title", r"\bementa\b|e\s?m\s?e\s?n\s?t\s?a\b", 2),
    R("acordam", "acordao", "head", r"\bacordam\b|vistos,?\s+relatados\s+e\s+discutidos", 3),
    R("tcu_acordao", "acordao", "title", r"numero\s+do\s+acordao|grupo\s+i+\s*-?\s*classe", 3),
    R("relator_line", "acordao", "title", r"\brelatora?\s*(?:\(a\))?\s*:", 1),
    # orders and judgments
    R(
        "decisao_title",
        "order",
        "title",
        r"(?:^|\n|\s)decisao\s*(?:\n|monocratica|trata-se)|\bdecisao\s+trata-se",
        3,
    ),
    R("despacho", "order", "start", r"\bdespachos?\b", 3),
    R(
        "order_title",
        "order",
        "title",
        r"(?:^|\n)\s*order\b|\border\s+(?:granting|denying|re|to\s+show\s+cause|on|of\s+(?:remand|dismissal))\b|transfer\s+order|\border\s*\n",
        4,
    ),
    R(
        "it_is_ordered",
        "order",
        "head",
        r"\bit\s+is\s+(?:hereby\s+)?ordered\b|\borders?\s+the\s+parties\b|\bso\s+ordered\b",
        2,
    ),
    R("sentenca", "judgment", "title", r"(?:^|\n)\s*sentenca\b", 4),
    R("julgo", "judgment", "head", r"\bjulgo\s+(?:im)?procedentes?\b|\bjulgo\s+extint", 3),
    R("final_judgment", "judgment", "title", r"\b(?:final\s+)?judgment\b(?!\s+denying)", 2),
    # US opinions
    R(
        "opinion_title",
        "opinion",
        "title",
        r"(?:^|\n|\s)opinion(?:\s|\n|$)|slip\s+opinion|memorandum\s+opinion",
        3,
    ),
    R(
        "panel",
        "opinion",
        "head",
        r"before:?\s.{0,120}(?:circuit\s+)?judges|per\s+curiam|opinion\s+(?:of|for)\s+the\s+court",
        3,
    ),
    R("id_at", "opinion", "head", r"\bid\.\s+at\s+\d", 1),
    R(
        "appellate_disposition",
        "opinion",
        "head",
        r"\bwe\s+(?:affirm|reverse|vacate|remand)\b|\b(?:affirmed|reversed)\.|\bwe\s+conclude\b",
        2,
    ),
    R("appeal_court", "opinion", "title", r"court\s+of\s+appeals|supreme\s+court", 1),
    R(
        "opinion_sections",
        "opinion",
        "head",
        r"(?:^|\n)\s*(?:i\.\s+)?background\s*\n|standard\s+of\s+review|legal\s+standard",
        2,
    ),
    # filings by parties
    R("complaint", "complaint", "title", r"\b(?:amended\s+)?complaint\b(?!\s+filed)", 3),
    R(
        "peticao_inicial",
        "complaint",
        "head",
        r"peticao\s+inicial|vem\s.{0,120}propor\s+a\s+presente|ajuizar\s+a\s+presente",
        3,
    ),
    R("answer", "answer", "title", r"\banswer\s+(?:to|and\s+affirmative)|\bcontestacao\b", 4),
    R("motion", "motion", "title", r"\bmotion\s+(?:to|for|in\s+limine)\b|\bmocao\b", 3),
    R(
        "brief",
        "brief",
        "title",
        r"\bbrief\b(?!s,)|memorandum\s+(?:of\s+(?:points|law)|in\s+(?:support|opposition))|razoes\s+d[eo]|contrarrazoes|\bmemoriais\b",
        3,
    ),
    R(
        "interpor",
        "brief",
        "head",
        r"vem\s.{0,160}interpor|inconformad[oa]\s+com\s+a\s+(?:r\.\s*)?sentenca",
        2,
    ),
    R("deposition", "deposition", "title", r"\bdeposition\s+of\b|videotaped\s+deposition|\bdepoimento\b", 4),
    R(
        "transcript",
        "transcript",
        "title",
        r"transcript\s+of|oral\s+argument|the\s+above-entitled\s+matter|reporter'?s\s+transcript|\bproceedings\b",
        3,
    ),
    # correspondence, money, authority
    R(
        "dear",
        "letter",
        "head",
        r"(?:^|\n)\s*(?:dear\s+(?:mr|ms|mrs|dr|judge|sir|madam|counsel)|prezad[oa]s?\s+senhor)",
        3,
    ),
    R(
        "letter_close",
        "letter",
        "head",
        r"\n\s*(?:sincerely|very\s+truly\s+yours|respectfully\s+yours|atenciosamente|cordialmente),?\s*\n",
        2,
    ),
    R("clerk_letter", "letter", "title", r"\bclerk\b.{0,400}\bre:", 2),
    R("notificacao", "letter", "title", r"notificacao\s+extrajudicial|\bcarta\b", 3),
    R("invoice", "invoice", "title", r"\binvoice\b|\bfatura\b|nota\s+fiscal|\bbill\s+to\b", 4),
    R("amount_due", "invoice", "head", r"amount\s+due|total\s+due|valor\s+a\s+pagar", 2),
    R("poa", "power_of_attorney", "title", r"power\s+of\s+attorney|\bprocuracao\b", 5),
    R("outorgante", "power_of_attorney", "head", r"\boutorgante\b|attorney-in-fact", 2),
    R(
        "minutes",
        "minutes",
        "title",
        r"minutes\s+of\s+(?:the\s+)?(?:\w+\s+)?meeting|\bata\s+da\s+(?:\d+\S*\s+)?(?:reuniao|assembleia|sessao)",
        4,
    ),
    # legislation
    R(
        "act_heading",
        "statute",
        "start",
        r"(?:^|\n)\s*(?:lei(?:\s+complementar)?|decreto(?:-lei)?|medida\s+provisoria|portaria|resolucao|instrucao\s+normativa|emenda\s+constitucional)\s+n\S{0,3}\s*[\d.]+",
        4,
    ),
    R(
        "enactment",
        "statute",
        "head",
        r"faco\s+saber\s+que|decreta\s*(?:e\s+eu\s+sanciono)?\s*:|resolve\s*:|be\s+it\s+enacted|federal\s+register|proposed\s+rules?\b|final\s+rule\b",
        3,
    ),
    R("articles", "statute", "head", r"(?:^|\n)\s*art\.\s*1\s*[o.]?\s", 2),
    # agreements
    R(
        "nda",
        "nda",
        "title",
        r"non-?\s?disclosure|confidentiality\s+(?:and\s+non-?disclosure\s+)?agreement|acordo\s+de\s+confidencialidade|termo\s+de\s+(?:sigilo|confidencialidade)|\bnda\b",
        5,
    ),
    R("nda_name", "nda", "name", r"non.?disclosure|\bnda\b|confidentiality", 3),
    R(
        "amendment",
        "amendment",
        "title",
        r"\bamendment\s+(?:no\.?\s*|#\s*|number\s+)?\d*\s*to\b|(?:first|second|third|fourth|fifth)\s+amendment\b|\bamend(?:ment)?\s+no\.|aditivo\b",
        5,
    ),
    R("amendment_name", "amendment", "name", r"amendment|\bamend\b|aditivo", 2),
    R(
        "agreement",
        "contract",
        "title_raw",
        r"\b(?:AGREEMENT|CONTRACT|CONTRATO)\b|instrumento\s+particular",
        3,
    ),
    R("agreement_start", "contract", "start", r"\bagreement\b|\bcontrato\b", 2),
    R(
        "agreement_defined",
        "contract",
        "head",
        r"\((?:this|the)?\s*\"?(?:agreement|contract|contrato)\"?\)",
        3,
    ),
    R(
        "parties",
        "contract",
        "head",
        r"by\s+and\s+between|\bentered\s+into\b|entre\s+as\s+partes|\bcontratante\b",
        2,
    ),
    R(
        "recitals",
        "contract",
        "head",
        r"\bwhereas\b|witnesseth|in\s+witness\s+whereof|\bconsiderando\s+que\b",
        1,
    ),
    R("agreement_name", "contract", "name", r"agreement|contract|contrato", 2),
    # what people name litigation files ("Motion to Dismiss.pdf", "Contestacao - Silva.docx")
    R("motion_name", "motion", "name", r"\bmotion\b|\bmocao\b", 4),
    R("complaint_name", "complaint", "name", r"\bcomplaint\b|peticao\s+inicial", 4),
    R("answer_name", "answer", "name", r"\banswer\b|contestacao", 4),
    R("judgment_name", "judgment", "name", r"\bjudgment\b|sentenca", 4),
    R("acordao_name", "acordao", "name", r"acordao", 4),
    # court paperwork that is none of the above
    R(
        "notice",
        "other",
        "title",
        r"docketing\s+notice|entry\s+of\s+appearance|notice\s+of\s+(?:appearance|docketing)|financial\s+disclosure\s+report",
        5,
    ),
)


def _texts(pages: list[str], filename: str) -> dict[str, str]:
    first = "\n".join(pages[:2])
    head = fold(first[:HEAD_CHARS])
    name = re.sub(r"[_\-.%0-9]+", " ", fold(filename.rsplit("/", 1)[-1]))
    return {
        "name": name,
        "title": head[:TITLE_CHARS],
        "head": head,
        "start": head[:300],
        "title_raw": first[:TITLE_CHARS],
    }


# A specialised agreement takes its parent's score too: an amendment or an NDA is also "an agreement".
PARENT = {"amendment": "contract", "nda": "contract"}


def classify(pages: list[str], filename: str = "") -> DocType:
    """The document's type from its first two pages and its file name."""
    texts = _texts(pages, filename)
    scores: dict[str, float] = defaultdict(float)
    fired: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for rule in RULES:
        if re.search(rule.pattern, texts[rule.where]):
            scores[rule.type] += rule.weight
            fired[rule.type].append((rule.weight, f"{rule.name} ({rule.where})"))
    for child, parent in PARENT.items():
        if scores.get(child, 0) >= MIN_SCORE + 1:
            scores[child] += scores.get(parent, 0)
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < MIN_SCORE:
        return DocType("other", 0.3, tuple(f"below {MIN_SCORE}: {t} {s:g}" for t, s in ranked[:2]))
    best, score = ranked[0]
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    confidence = round(min(0.99, 0.5 + 0.5 * (score - runner) / score), 2)
    evidence = tuple(name for _, name in sorted(fired[best], reverse=True))
    return DocType(best, confidence, evidence)
