# One-off: writes the hand-marked gold files (kept for the record of how they were typed in).
import json

C = "legal_span_bench/corpus/cuad/"
N = "legal_span_bench/corpus/contractnli/"
U = "legal_docs_us_courts/"
L = "lener_br/raw_text/"


def e(text, context, date, precision="day", note=""):
    d = {"text": text, "context": context, "date": date, "precision": precision}
    if note:
        d["note"] = note
    return d


DOCS = {
    "cuad_galacticomm": (
        C + "GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10.46-WEB HOSTING AGREEMENT.txt",
        "contract",
        "en",
        [
            e("9/9/97", "Yannick Tessier 9/9/97", "1997-09-09", note="signature line"),
            e("9/9/97", "HORST 9/9/97", "1997-09-09", note="signature line"),
        ],
        "'Wednesday' and 'the previous week' are recurring, not events.",
    ),
    "cuad_bangi": (
        C + "BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.txt",
        "contract",
        "en",
        [
            e("March 1, 2005", "beginning March 1, 2005", "2005-03-01"),
            e("February 28, 2006", "ending February 28, 2006", "2006-02-28"),
        ],
        "'03/01/05' heads both pages (a letterhead line repeated): a running header, not an event. 'the 1st of each month' recurs.",
    ),
    "cuad_gridiron_addendum": (
        C + "GridironBionutrientsInc_20171206_8-K_EX-10.2_10972556_EX-10.2_Endorsement Agreement.txt",
        "contract",
        "en",
        [
            e("November 7, 2017", "made and effective November 7, 2017", "2017-11-07"),
            e("October 30, 2017", "executed by the Parties on October 30, 2017", "2017-10-30"),
            e("November 22nd, 2017", "executed this Agreement on November 22nd, 2017", "2017-11-22"),
        ],
        "'Source: ..., 8-K, 12/6/2017' is the EDGAR footer of every page: not an event.",
    ),
    "cuad_netzee": (
        C + "NETZEEINC_11_14_2002-EX-10.3-MAINTENANCE AGREEMENT.txt",
        "contract",
        "en",
        [
            e("MARCH 1, 2001", "UNDER THIS ADDENDUM: MARCH 1, 2001", "2001-03-01", note="a filled-in label"),
        ],
        "Times of day and weekdays recur: not events.",
    ),
    "cuad_federated_amendment": (
        C
        + "FEDERATEDGOVERNMENTINCOMESECURITIESINC_04_28_2020-EX-99.SERV AGREE-SERVICES AGREEMENT_AMENDMENT.txt",
        "contract",
        "en",
        [
            e("March 30, 2009", "dated and effective as of March 30, 2009", "2009-03-30"),
            e("January 1, 2004", "Services Agreement dated as of January 1, 2004", "2004-01-01"),
            e(
                "the date first above written",
                "effective as of the date first above written upon its execution",
                "2009-03-30",
                note="relative: the document's date",
            ),
            e(
                "the date first above written",
                "executed this Amendment as of the date first above written",
                "2009-03-30",
                note="relative: the document's date",
            ),
        ],
        "'Investment Company Act of 1940': a statute's year, not an event.",
    ),
    "cuad_transmontaigne": (
        C + "TRANSMONTAIGNEPARTNERSLLC_03_13_2020-EX-10.9-SERVICES AGREEMENT.txt",
        "contract",
        "en",
        [
            e(
                "August __, 2019",
                "effective as of, August __, 2019",
                "2019-08",
                "month",
                note="day left blank",
            ),
            e(
                "the date first written above",
                "effective as of, the date first written above",
                "2019-08",
                "month",
                note="relative: the document's date",
            ),
        ],
        "'5 days written notice' is a period, not an event.",
    ),
    "letter_carpenter_talley": (
        N + "96238_0000950116-97-001823_document_13.txt",
        "letter",
        "en",
        [
            e(
                "August 7, 1997",
                "August 7, 1997 PERSONAL and CONFIDENTIAL",
                "1997-08-07",
                note="the letter's date",
            ),
            e("August 7, 1997", "the letter of August 7, 1997 from Robert W. Cardy", "1997-08-07"),
            e("11th day of August, 1997", "Agreed and accepted this 11th day of August, 1997", "1997-08-11"),
        ],
        "Periods ('two years following the date hereof', '45 days after') are terms, not events; 'Securities Exchange Act of 1934' is a statute's year.",
    ),
    "letter_imo_united_dominion": (
        N + "804151_0000950144-97-007563_document_14.txt",
        "letter",
        "en",
        [
            e("April 25, 1997", "April 25, 1997 Richard A. Bearse", "1997-04-25", note="the letter's date"),
            e(
                "the date hereof",
                "Accepted and agreed to as of the date hereof",
                "1997-04-25",
                note="relative: the document's date",
            ),
        ],
        "'expire five years after the date hereof', 'two years from the date of this Agreement': terms, not events.",
    ),
    "us_ca2_docketing_notice": (
        U + "recap_documents/ca2_1-1.pdf",
        "order",
        "en",
        [
            e(
                "October 31, 2017",
                "Date: October 31, 2017",
                "2017-10-31",
                note="a filled-in label: the notice's date",
            ),
            e("today", "was docketed today as 17-3510", "2017-10-31", note="relative: the document's date"),
        ],
        "The ECF stamp atop each page ('Case 17-3510, Document 1-1, 10/31/2017, ...') is a running header; 'within 14 days of the date of this notice' is a deadline period.",
    ),
    "us_ca3_case_opening_letter": (
        U + "recap_documents/ca3_003112692106.pdf",
        "letter",
        "en",
        [
            e("August 3, 2017", "August 3, 2017", "2017-08-03", note="the letter's date"),
            e("December 15, 2008", "Effective December 15, 2008, the Court implemented", "2008-12-15"),
            e("December 1, 2009", "On December 1, 2009, the Federal Rules", "2009-12-01"),
        ],
        "'Date Filed: 08/03/2017' is the ECF header of each page; '3d Cir. L.A.R. 113 (2008)' is a citation's year; 'within fourteen (14) days of the date of this letter' a period.",
    ),
    "us_ca6_docketing_letter": (
        U + "recap_documents/ca6_1-3.pdf",
        "letter",
        "en",
        [
            e(
                "September 20, 2017",
                "Filed: September 20, 2017",
                "2017-09-20",
                note="the letter's filed stamp",
            ),
            e("October 4, 2017", "Office by October 4, 2017", "2017-10-04", note="a deadline with its date"),
        ],
        "'Filed: 09/20/2017' in the ECF header of each page is a running header; 'paid by this date' repeats the deadline.",
    ),
    "us_azd_remand_order": (
        U + "recap_extract/gov.uscourts.azd.1085839.3.0.pdf",
        "order",
        "en",
        [
            e("August 2015", "to this Court in August 2015", "2015-08", "month"),
            e("May 31, 2019", "on May 31, 2019", "2019-05-31"),
            e("10/30/2015", "10/30/2015 248", "2015-10-30"),
            e("11/16/2016", "11/16/2016 4016", "2016-11-16"),
            e("03/21/2017", "03/21/2017 5285", "2017-03-21"),
            e("02/04/2019", "02/04/2019 15098", "2019-02-04"),
            e("10/30/2015", "10/30/2015 249", "2015-10-30"),
            e("12/01/2015", "12/01/2015 314", "2015-12-01"),
            e("12/17/2015", "12/17/2015 363", "2015-12-17"),
            e("3/17/2016", "3/17/2016 1108", "2016-03-17"),
            e("4/20/2016", "4/20/2016 1485", "2016-04-20"),
            e("12/17/2015", "12/17/2015 365", "2015-12-17"),
            e("03/03/2016", "03/03/2016 927", "2016-03-03"),
            e("12/18/2015", "12/18/2015 372", "2015-12-18"),
            e("01/05/2016", "01/05/2016 401", "2016-01-05"),
            e("02/02/2016", "02/02/2016 519", "2016-02-02"),
            e("03/31/2016", "03/31/2016 1259", "2016-03-31"),
            e("04/01/2016", "04/01/2016 1319", "2016-04-01"),
            e("05/05/2016", "05/05/2016 1662", "2016-05-05"),
            e("05/05/2016", "05/05/2016 1663", "2016-05-05"),
            e("06/21/2016", "06/21/2016 2238", "2016-06-21"),
            e("06/21/2016", "06/21/2016 2239", "2016-06-21"),
            e("April 19, 2006", "Status Report April 19, 2006", "2006-04-19"),
            e("10/7/07", "10/7/07 Email from Dr. Lehman", "2007-10-07"),
            e("03/01/2011", "Ciavarella Deposition, 03/01/2011", "2011-03-01"),
            e("5/11/2005", '5/11/2005 "Dear Colleague" letter', "2005-05-11"),
        ],
        "Each row of the table of orders (Exhibit 1) and of exhibits (Exhibit 2) is an event. Case numbers (2:15-cv-01739) are not dates.",
    ),
    "us_cacd_preliminary_injunction": (
        U + "recap_extract/gov.uscourts.cacd.652774.40.0.pdf",
        "order",
        "en",
        [
            e("July 13, 2016", "On July 13, 2016, the Court issued", "2016-07-13"),
            e(
                "July",
                "set to expire on July",
                "2016-07-25",
                note="broken by the pleading paper's line numbers in the text layer",
            ),
            e("July 25, 2016", "At the July 25, 2016, hearing", "2016-07-25"),
            e("August 4, 2016", "August 4, 2016 at 5:00 PM", "2016-08-04"),
            e("August 4, 2016", "set for August 4, 2016 at 10:00 AM", "2016-08-04"),
            e("August 4, 2016", "On August 4, 2016, Experian and Leon", "2016-08-04"),
            e(
                "August 5, 2016",
                "Dated: August 5, 2016",
                "2016-08-05",
                note="a filled-in label: the order's date",
            ),
        ],
        "'Filed 08/05/16' in the ECF header of each page is a running header.",
    ),
    "ptbr_rr_4748_tst": (
        L + "RR474820145230056.txt",
        "acordao",
        "pt",
        [
            e("18 de Maio de 2016", "Brasília, 18 de Maio de 2016", "2016-05-18"),
            e("19/05/2016", "assinatura digital em 19/05/2016", "2016-05-19"),
        ],
        "'LEI 13.015/2014', 'MP 2.200-2/2001': a statute's number and year, not events.",
    ),
    "ptbr_airr_399_tst": (
        L + "AIRR3999520145020086.txt",
        "acordao",
        "pt",
        [
            e("12/06/2015", "decisão publicada em 12/06/2015", "2015-06-12"),
            e("19/06/2015", "recurso apresentado em 19/06/2015", "2015-06-19"),
            e("2 de Março de 2016", "Brasília, 2 de Março de 2016", "2016-03-02"),
            e("03/03/2016", "assinatura digital em 03/03/2016", "2016-03-03"),
        ],
        "The DEJT/DJ dates of the cited precedents (AIRR-10028-85.2013.5.04.0664, Relator Ministro ..., DEJT 08/06/2015; ...) are citations, not events of this case.",
    ),
    "ptbr_ag_101051_tjmg": (
        L + "Ag10105170208398001.txt",
        "acordao",
        "pt",
        [],
        "No event of the case is dated in the text; the 'julgamento em'/'publicação da súmula em' dates belong to cited precedents; 'Lei nº 11.340/2006', 'Carta Magna de 1988' are statutes.",
    ),
    "ptbr_hc_418951_stj": (
        L + "HC418951PR.txt",
        "judgment",
        "pt",
        [
            e(
                "16/10/2017",
                "Data da Publicação DJe 16/10/2017",
                "2017-10-16",
                note="this decision's publication (a metadata label)",
            ),
            e("21 de janeiro de 2016", "fatos penais - 21 de janeiro de 2016", "2016-01-21"),
            e("10 de outubro de 2017", "Brasília (DF), 10 de outubro de 2017", "2017-10-10"),
        ],
        "'DJe de 13/2/2017' and the like close cited precedents: not events; '(2017/0255149-8)' is a registry number; '2011 p. 298' a book's year.",
    ),
    "ptbr_ac_2015_tjdft": (
        L + "AC20150110436469APC.txt",
        "acordao",
        "pt",
        [
            e("15 de Março de 2018", "Brasilia(DF), 15 de Março de 2018", "2018-03-15"),
            e("30/03/2015", "atualizado até 30/03/2015", "2015-03-30"),
            e("20/08/2010", "emitidas em 20/08/2010", "2010-08-20"),
            e("20/09/2010", "20/08/2010 e 20/09/2010", "2010-09-20"),
            e("20/04/2015", "ajuizada em 20/04/2015", "2015-04-20"),
            e("01/08/2016", "ocorrer em 01/08/2016", "2016-08-01"),
            e("22/04/2015", "exarado em 22/04/2015", "2015-04-22"),
            e("01/08/2016", "ocorrido em 01/08/2016", "2016-08-01"),
        ],
        "'Data de Julgamento: 22/02/2017, Publicado no DJE: 08/03/2017' close a cited precedent (Acórdão n.999404): not events.",
    ),
}

# Held out: marked after the extractor's rules were written from the documents above, and run
# only once before any change (bench/RESULTS.md reports that first run apart).
HELD_OUT = {
    "heldout_us_ca10_order": (
        U + "recap_documents/ca10_010110462922.pdf",
        "order",
        "en",
        [
            e("January 11, 2021", "January 11, 2021", "2021-01-11", note="the clerk's FILED stamp"),
        ],
        "'Date Filed: 01/11/2021' is the ECF header; 'within 20 days of the date of this order' a period.",
    ),
    "heldout_us_cafc_appearance": (
        U + "recap_documents/cafc_3.pdf",
        "other",
        "en",
        [
            e(
                "3/18/2013",
                "3/18/2013",
                "2013-03-18",
                note="the signature's date, as written (2013, though filed in 2014)",
            ),
            e("March 18, 2014", "on March 18, 2014, I", "2014-03-18"),
        ],
        "'Filed: 03/18/2014' heads both pages; 'Date admitted to Federal Circuit bar (counsel only): ______' is a blank field.",
    ),
    "heldout_cuad_primeenergy": (
        C + "PRIMEENERGYRESOURCESCORP_04_02_2007-EX-10.28-COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT.txt",
        "contract",
        "en",
        [
            e("June 29, 2006", "effective as of June 29, 2006", "2006-06-29"),
            e("June 29, 2006", "Credit Agreement dated June 29, 2006", "2006-06-29"),
            e("December!, 2002", "dated December!, 2002", "2002-12", "month", note="OCR garbled the day"),
        ],
        "OCR text (ABBYY layer). 'the date first hereinafter written' points at a date the text never writes: not an event.",
    ),
    "heldout_ptbr_ag_100001_tjmg": (
        L + "Ag10000170733596001.txt",
        "acordao",
        "pt",
        [
            e("13/12/2016", "eis que o pagamento foi realizado em 13/12/2016", "2016-12-13"),
            e(
                "16/03/2017",
                "eis que o pagamento foi realizado em 13/12/2016, enquanto a agravada somente se dirigiu ao local para o restabelecimento do serviço em 16/03/2017",
                "2017-03-16",
            ),
            e("25/08/2016", "fatura com vencimento em 25/08/2016 não havia", "2016-08-25"),
            e("13/12/2016", "no dia 13/12/2016", "2016-12-13"),
            e("dezembro/2016", "de dezembro/2016", "2016-12", "month"),
            e("abril/2017", "a abril/2017", "2017-04", "month"),
            e("maio/2017", "mês de maio/2017", "2017-05", "month"),
            e("junho/2017", "No mês de junho/2017, a concessionária", "2017-06", "month"),
            e("agosto/2017", "vencimento em agosto/2017", "2017-08", "month"),
            e("julho/2017", "vencida em julho/2017", "2017-07", "month"),
            e("25/06/2017", "fatura com vencimento em 25/06/2017 seja", "2017-06-25"),
            e("junho/2017", "ao mês de junho/2017 seja", "2017-06", "month"),
            e("25/08/2016", "consumo de água, com vencimento em 25/08/2016", "2016-08-25"),
            e("13/12/2016", "aos 13/12/2016", "2016-12-13"),
            e("16/03/2017", "água em 16/03/2017, mediante", "2017-03-16"),
            e("13/12/2016", "vez que o pagamento foi realizado em 13/12/2016", "2016-12-13"),
            e(
                "16/03/2017",
                "vez que o pagamento foi realizado em 13/12/2016, enquanto a agravada somente se dirigiu ao local para o restabelecimento do serviço em 16/03/2017",
                "2017-03-16",
            ),
            e("25/06/2017", "vencimento em 25/06/2017 não foi debatida", "2017-06-25"),
        ],
        "'Resolução n° 40/2013' is a regulation's number; '48 horas', 'três dias', 'após quatro dias sem água' are periods or too vague to date.",
    ),
    "heldout_ptbr_ededarr_tst": (
        L + "EDEDARR208420135040232.txt",
        "acordao",
        "pt",
        [
            e("20 de Setembro de 2016", "Brasília, 20 de Setembro de 2016", "2016-09-20"),
            e("20/09/2016", "assinatura digital em 20/09/2016", "2016-09-20"),
        ],
        "'CPC/15', 'CPC/2015': a code's year.",
    ),
}

for name, (source, kind, lang, events, notes) in [*DOCS.items(), *HELD_OUT.items()]:
    with open(f"{name}.json", "w", encoding="utf-8") as f:
        json.dump(
            {
                "source": source,
                "kind": kind,
                "language": lang,
                "set": "held_out" if name in HELD_OUT else "dev",
                "notes": notes,
                "events": events,
            },
            f,
            ensure_ascii=False,
            indent=1,
        )
        f.write("\n")
print(len(DOCS) + len(HELD_OUT), sum(len(d[3]) for d in [*DOCS.values(), *HELD_OUT.values()]))
