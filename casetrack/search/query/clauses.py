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
            rf"\bhow (can|could|may|might|do|does|would|will|is|are)\b.{{0,50}}\b(end|ended|ending|terminat{W}|cancel{W}|get out|walk away|exit|back out|leave)\b",
            rf"\b(end|terminat{W}|cancel{W}|get out of|walk away from|exit|back out of)\b.{{0,40}}\b(early|before (it|the|its) (ends|expires|term)|for convenience|without cause|at will|at any time)",
            rf"\bright to (terminat{W}|cancel{W}|end)",
            rf"\bnotice\b.{{0,30}}\b(to|before|for) (terminat{W}|cancel{W}|end(ing)?)\b",
            rf"\b(when|under what|in what|on what)\b.{{0,40}}\b(terminat{W}|cancel{W}|end the (agreement|contract|lease))",
            rf"\b(grounds|reasons|causes|events) (for|of) (terminat{W}|cancel{W})",
            r"\bcomo\b.{0,40}\b(rescindir|resilir|encerrar|desistir|cancelar|sair do|romper|denunciar)",
            rf"\b(rescis{W}|resili{W}|denuncia{W}|encerramento) (antecipad{W}|imotivad{W}|unilateral)",
            rf"\b(quando|em que (casos|hipoteses)|quais (as )?(hipoteses|causas))\b.{{0,40}}\b(rescindi{W}|rescis{W}|resili{W}|encerrad{W})",
            rf"\b(aviso previo|multa)\b.{{0,30}}\b(rescis{W}|resili{W}|encerrar)",
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
            rf"\b(indemnif{W}|hold (\w+ )?harmless)\b",
            r"\bwho (covers|answers for|is liable for|pays for)\b.{0,30}\b(claims?|loss|losses|third)",
            rf"\b(indeniz{W}|ressarc{W}|regress{W})\b.{{0,30}}\b(terceir{W}|perdas)",
        ),
        {
            "en": ("indemnify", "hold harmless", "defend", "losses, damages, claims"),
            "pt": ("indenizar", "manter indene", "perdas e danos", "direito de regresso"),
        },
    ),
    Provision(
        "confidentiality",
        _rx(
            rf"\bhow long\b.{{0,60}}\b(confidential{W}|secret|non-?disclos{W})",
            r"\b(keep|kept|remain|treat|treated|hold)\b.{0,30}\b(confidential|secret|in confidence)",
            r"\bconfidentiality (obligation|period|term|clause|provision|undertaking|duty|duties)",
            r"\b(what|which)\b.{0,40}\b(counts as|is|are) confidential\b",
            rf"\b(por quanto tempo|prazo)\b.{{0,60}}\b(sigil{W}|confidencial{W})",
            rf"\b(dever|obrigac{W}|clausula) de (sigilo|confidencialidade)",
            rf"\b(manter|guardar|tratar)\b.{{0,30}}\b(sigilo|confidencial{W}|em segredo)",
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
            rf"\b(can|could|may|might|is|are)\b.{{0,50}}\b(assign{W}|transfer{W})\b.{{0,30}}\b(agreement|contract|rights|obligations|lease|license)",
            rf"\bassign{W}\b.{{0,30}}\b(consent|without|allowed|permitted|prohibit{W}|restrict{W})",
            r"\bchange of control\b",
            r"\b(pode|posso|podem|podera)\b.{0,40}\b(ceder|transferir)",
            r"\bcessao\b.{0,20}\b(do contrato|dos direitos|da posicao|de direitos|de quotas)",
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
            rf"\b(non-?compet{W}|not (to )?compete|compete with|competing (business|product|activit{W})|solicit{W}|poach{W}|hire away)\b",
            r"\b(nao concorrencia|concorrer com|aliciar|aliciamento|contratar (os )?(empregados|funcionarios))",
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


# A question, not a statement or a pasted passage: it ends in "?" or starts with a question word.
_QUESTION = re.compile(
    rb"\?\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|could|may|must|"
    rb"should|will|would|has|have|qual|quais|quem|quando|onde|como|o que|por que|porque|ha|existe|existem|"
    rb"pode|podem|deve|devem|cabe|e possivel|em que)\b"
)


def provisions_asked(question: str) -> tuple[Provision, ...]:
    """The standard provisions `question` asks for by purpose (usually none or one); none for a
    text that is not a question (a statement to test, a pasted passage: its own words are the
    evidence)."""
    folded = fold(question)
    if not _QUESTION.search(folded):
        return ()
    return tuple(p for p in PROVISIONS if p.asks.search(folded))


def provision_keywords(question: str, language: str) -> tuple[str, ...]:
    """How the provisions `question` asks for are usually worded, in the case's language."""
    lang = "pt" if language.lower().startswith("pt") else "en"
    return tuple(dict.fromkeys(w for p in provisions_asked(question) for w in p.words[lang]))
