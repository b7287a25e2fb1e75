"""Standard provisions asked for by their purpose: the clause's own words, when the caller gave none.

"Which state's law governs the agreement?" shares no word with "This Agreement shall be construed
in accordance with the laws of Texas" but "law"; "How can the agreement be ended early?" none with
"Either party may terminate this Agreement upon ninety days' written notice". A lawyer (or Claude)
knows the clause's usual wording; the local models do not. This table holds, for the provisions
contracts and pleadings usually carry (CUAD's clause categories and the Brazilian ones), the
questions that ask for them by purpose (patterns over the folded question, English and
Portuguese) and the words such a clause is usually written in. When the caller gave no keywords
of its own, the words of every provision the question asks for are added as keywords: evidence
of the answer's words, like the caller's (query/analysis.py), never shown back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casetrack.search.query.signals import fold


@dataclass(frozen=True)
class Provision:
    name: str
    asks: re.Pattern[bytes]  # a question asking for it by purpose (folded: lowercase, no accents)
    words: dict[str, tuple[str, ...]]  # language -> how the clause is usually worded


def _rx(*patterns: str) -> re.Pattern[bytes]:
    return re.compile("|".join(f"(?:{p})" for p in patterns).encode("latin-1"))


W = r"[a-z]*"  # the rest of a word: "terminat" + W finds terminate, termination, terminating
PROVISIONS: tuple[Provision, ...] = (
    Provision(
        "governing law",
        _rx(
            r"\b(which|what) (state|country|jurisdiction)('?s)? law",
            r"\blaws? (of which|that|which)? ?(govern|appl|control)",
            r"\bgovern(s|ed|ing)? (by )?(the )?(law|agreement|contract)",
            r"\bchoice of law",
            r"\blei aplicavel",
            r"\b(qual|que) (a )?(lei|legislacao)",
            r"\bregid[oa]s? pel",
            r"\blegislacao (aplicavel|de qual)",
        ),
        {
            "en": ("governing law", "governed by the laws of", "construed in accordance with the laws of"),
            "pt": ("lei aplicável", "regido pelas leis", "legislação brasileira"),
        },
    ),
    Provision(
        "forum and disputes",
        _rx(
            r"\b(where|which court|what court|which forum|what forum)\b.*\b(disput|su(e|ed|ing)|lawsuit|claim|litigat|heard|brought|resolv)",
            r"\b(disput|claim|controvers)\w* (be|are|get|must|shall|will)\b.*\b(resolved|settled|heard|decided|brought|filed)",
            r"\b(venue|jurisdiction|arbitrat|mediat)",
            r"\bforo\b",
            r"\b(onde|qual (o )?(foro|juizo|tribunal))\b.*\b(ajuiz|propor|discut|resolv|demand|litig)",
            r"\b(arbitragem|arbitral|mediacao|conciliacao|clausula compromissoria)",
        ),
        {
            "en": ("jurisdiction", "venue", "arbitration", "courts of", "disputes arising out of"),
            "pt": ("foro", "eleição de foro", "arbitragem", "dirimir quaisquer dúvidas", "comarca"),
        },
    ),
    Provision(
        "termination",
        _rx(
            rf"\b(end|ended|ending|get out of|walk away|exit|cancel{W}|terminat{W}|back out)\b.*\b(agreement|contract|deal|lease|relationship|early|before)",
            rf"\bterminat{W}",
            r"\bend (it|the (agreement|contract|deal|lease)) early",
            r"\b(rescind|rescis|resili|resolucao do contrato|encerr|denunci|distrat|romp|extin[cg])",
            r"\b(sair|desistir) do (contrato|acordo|negocio)",
        ),
        {
            "en": ("terminate this agreement", "termination", "upon written notice", "for convenience"),
            "pt": ("rescisão", "rescindir o contrato", "aviso prévio", "resilição"),
        },
    ),
    Provision(
        "costs and expenses",
        _rx(
            r"\bwho (pays|must pay|will pay|bears|covers|is responsible for|foots)\b",
            r"\bat (whose|who'?s) (cost|expense)",
            r"\b(cost|costs|expenses|fees) (of|for)\b.*\b(borne|paid|covered|reimburs)",
            rf"\b(reimburs{W})",
            r"\bquem (paga|arca|custeia|suporta|responde pel[ao]s? (custo|despesa))",
            r"\b(despesas|custos|custas|encargos)\b.*\b(cargo|responsab|arca|paga)",
            rf"\b(reembols{W}|ressarc{W})",
        ),
        {
            "en": ("expenses", "costs", "at its own expense", "shall bear", "reimburse"),
            "pt": ("despesas", "custos", "às suas expensas", "arcará com", "reembolso"),
        },
    ),
    Provision(
        "liability cap",
        _rx(
            r"\b(cap|caps|capped|limit|limits|limited|limitation|maximum|most)\b.*\b(liab|damages|owe|exposure|recover)",
            rf"\bliab{W}\b.*\b(cap|capped|limit|limited|exceed|maximum)",
            r"\b(limite|limitacao|teto)\b.*\b(responsabilidade|indeniza)",
            r"\bresponsabilidade\b.*\b(limitad|limite|teto|nao excedera)",
        ),
        {
            "en": ("limitation of liability", "in no event shall", "aggregate liability", "shall not exceed"),
            "pt": (
                "limitação de responsabilidade",
                "em nenhuma hipótese",
                "responsabilidade total",
                "não excederá",
            ),
        },
    ),
    Provision(
        "indemnification",
        _rx(
            rf"\b(indemnif{W}|hold harmless|defend)\b",
            r"\bwho (covers|answers for|is liable for)\b.*\b(claims?|loss|losses|third)",
            rf"\b(indeniz{W}|ressarc{W}|regress{W})\b.*\b(terceir|perdas|danos)",
        ),
        {
            "en": ("indemnify", "hold harmless", "defend", "losses, damages, claims"),
            "pt": ("indenizar", "manter indene", "perdas e danos", "direito de regresso"),
        },
    ),
    Provision(
        "confidentiality",
        _rx(
            rf"\b(confidential{W}|non-?disclos{W}|secret)\b",
            rf"\b(sigil{W}|confidencial{W}|segredo)\b",
        ),
        {
            "en": (
                "confidential information",
                "confidentiality",
                "shall not disclose",
                "survive termination",
            ),
            "pt": ("informações confidenciais", "sigilo", "confidencialidade", "não divulgar"),
        },
    ),
    Provision(
        "assignment",
        _rx(
            rf"\b(assign{W}|transfer (the|this|its) (agreement|contract|rights)|change of control|sell (the|its) (business|company|property))",
            rf"\b(ced(er|e)|cessao|transferi{W})\b.*\b(contrato|direitos|obrigacoes|posicao|imovel)",
        ),
        {
            "en": ("assign", "assignment", "prior written consent", "successors and assigns"),
            "pt": ("ceder", "cessão", "transferir", "prévia anuência"),
        },
    ),
    Provision(
        "penalty",
        _rx(
            rf"\b(penalt{W}|liquidated damages|fine|fines)\b",
            r"\b(multa|clausula penal|penalidade)",
        ),
        {
            "en": ("penalty", "liquidated damages", "shall pay", "per day of delay"),
            "pt": ("multa", "cláusula penal", "penalidade", "por dia de atraso"),
        },
    ),
    Provision(
        "late payment",
        _rx(
            rf"\b(late|overdue|delayed|past due)\b.*\b(pay{W}|invoice|amount)",
            r"\binterest on\b",
            r"\b(juros|correcao monetaria|mora)\b",
            r"\batraso (no|de|do) pagamento",
        ),
        {
            "en": ("late payment", "interest", "overdue amounts", "per month"),
            "pt": ("juros de mora", "correção monetária", "multa moratória", "atraso no pagamento"),
        },
    ),
    Provision(
        "payment terms",
        _rx(
            r"\b(when|how (soon|quickly|long))\b.*\b(paid|pay|invoice)",
            r"\bpayment (terms|due|schedule)",
            r"\b(quando|em quanto tempo|qual o prazo)\b.*\b(pag|fatur)",
            r"\b(forma|condicoes|prazo) de pagamento",
        ),
        {
            "en": ("payment", "invoice", "within thirty (30) days", "payable"),
            "pt": ("pagamento", "nota fiscal", "vencimento", "prazo de pagamento"),
        },
    ),
    Provision(
        "term and renewal",
        _rx(
            r"\bhow long (does|will|is|can)\b.*\b(agreement|contract|lease|term|last|run|valid|in force|in effect)",
            rf"\b(renew{W}|expir{W}|extension|extend)\b",
            r"\b(initial|original) term\b",
            rf"\b(prazo de vigencia|vigencia|prazo de duracao|duracao do contrato|prorroga{W}|renova{W})",
            r"\bpor quanto tempo\b",
        ),
        {
            "en": ("term", "shall remain in effect", "renew", "expire", "initial term"),
            "pt": ("vigência", "prazo de duração", "prorrogação", "renovação automática"),
        },
    ),
    Provision(
        "force majeure",
        _rx(
            r"\b(force majeure|act of god|beyond (its|their|a party'?s) (reasonable )?control|natural disaster|pandemic|epidemic)",
            r"\b(forca maior|caso fortuito)",
        ),
        {
            "en": ("force majeure", "beyond its reasonable control", "acts of God"),
            "pt": ("força maior", "caso fortuito"),
        },
    ),
    Provision(
        "non-compete and non-solicit",
        _rx(
            rf"\b(non-?compet{W}|compete|competing|competitor|solicit{W}|poach{W}|hire away)\b",
            rf"\b(concorr{W}|aliciar|aliciamento|contratar (os )?(empregados|funcionarios))",
        ),
        {
            "en": ("shall not compete", "non-competition", "solicit", "competing business"),
            "pt": ("não concorrência", "concorrer", "aliciar", "atividade concorrente"),
        },
    ),
    Provision(
        "notices",
        _rx(
            r"\b(how|where|to whom)\b.*\b(notice|notices)\b.*\b(sent|given|delivered|served|addressed)",
            r"\bnotices? (must|should|shall) be\b",
            rf"\b(notificac{W}|comunicac{W})\b.*\b(enviad|entregue|endere|forma|escrit)",
        ),
        {
            "en": ("notices", "in writing", "delivered by hand", "certified mail", "addressed to"),
            "pt": ("notificações", "por escrito", "endereço", "carta registrada"),
        },
    ),
    Provision(
        "warranty",
        _rx(
            rf"\b(warrant{W}|guarantee{W}|defect{W})\b",
            r"\b(garantia|vicio|defeito)",
        ),
        {
            "en": ("warrants", "warranty", "free from defects", "warranty period"),
            "pt": ("garantia", "vícios", "defeitos", "prazo de garantia"),
        },
    ),
    Provision(
        "insurance",
        _rx(rf"\b(insur{W}|coverage|policy limits)\b", rf"\b(seguro|apolice|segurad{W})"),
        {
            "en": ("insurance", "maintain insurance", "coverage", "additional insured"),
            "pt": ("seguro", "apólice", "cobertura"),
        },
    ),
    Provision(
        "audit",
        _rx(
            rf"\b(audit{W}|inspect (the |its )?(books|records)|examine (the |its )?records)",
            rf"\b(auditori{W}|fiscaliza{W})",
        ),
        {
            "en": ("audit", "books and records", "inspect", "upon reasonable notice"),
            "pt": ("auditoria", "livros e registros", "fiscalização"),
        },
    ),
    Provision(
        "exclusivity",
        _rx(rf"\b(exclusiv{W}|sole (supplier|distributor|provider))", rf"\b(exclusividade|exclusiv{W})"),
        {
            "en": ("exclusive", "exclusivity", "sole and exclusive"),
            "pt": ("exclusividade", "com exclusividade"),
        },
    ),
    Provision(
        "intellectual property",
        _rx(
            r"\bwho owns\b",
            r"\b(intellectual property|inventions?|work product|deliverables)\b.*\b(own|belong|title|rights)",
            r"\b(propriedade intelectual|titularidade|direitos autorais)",
        ),
        {
            "en": ("intellectual property", "shall own", "all right, title and interest", "work product"),
            "pt": ("propriedade intelectual", "titularidade", "direitos autorais", "pertencerão"),
        },
    ),
)


def provisions_asked(question: str) -> tuple[Provision, ...]:
    """The standard provisions `question` asks for by purpose (usually none or one)."""
    folded = fold(question)
    return tuple(p for p in PROVISIONS if p.asks.search(folded))


def provision_keywords(question: str, language: str) -> tuple[str, ...]:
    """How the provisions `question` asks for are usually worded, in the case's language."""
    lang = "pt" if language.lower().startswith("pt") else "en"
    return tuple(dict.fromkeys(w for p in provisions_asked(question) for w in p.words[lang]))
