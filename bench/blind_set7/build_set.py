#!/usr/bin/env python3
"""Build blind_set_full.json from the cases and questions below.

Gold positions are located mechanically from each verbatim answer_quote:
  * TXT gold  -> 1-based inclusive line window [a, b] of the file that holds the quote
  * PDF gold  -> 1-based page (pdftotext -f N -l N), quote must not cross a page break
Matching is done on normalised text: NFKC, lowercase, only alphanumerics kept.

The script fails loudly (exit code 1) on any of:
  quote not found exactly once in its gold file; quote also present in another file of
  the same case; quote crossing a PDF page break; quote shorter than 20 normalised chars;
  gold file listed in used_before.txt; more than 3 questions on one document; a
  no_answer question whose absence check finds its key terms in a case file.
"""
import glob
import json
import os
import re
import subprocess
import sys
import unicodedata
import zipfile
from collections import Counter

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")  # ../shared/data beside the repository
BASE = os.path.dirname(os.path.abspath(__file__))
WRITTEN = "2026-12-07"


def norm(s):
    s = unicodedata.normalize("NFKC", s).lower()
    return "".join(ch for ch in s if ch.isalnum())


def rel(p):
    return os.path.relpath(p, DATA)


def absolute(path):
    if path.startswith("./"):
        return os.path.join(BASE, path[2:])
    return os.path.join(DATA, path)


# ----------------------------------------------------------------------------- cases
def cuad(name):
    return "legal_span_bench/corpus/cuad/" + name


def nli(name):
    return "legal_span_bench/corpus/contractnli/" + name


def fresh(name):
    return "./docs/" + name


C1_GOLD = [
    cuad("RUBIOSRESTAURANTSINC_03_31_2008-EX-10.75-SPONSORSHIP AGREEMENT.txt"),
    cuad("STAMPSCOMINC_06_24_1999-EX-10.18-SPONSORSHIP AGREEMENT.txt"),
    cuad("PerformanceSportsBrandsInc_20110909_S-1_EX-10.10_7220214_EX-10.10_Endorsement Agreement.txt"),
    cuad("XLITECHNOLOGIES,INC_12_11_2015-EX-10.1-Sponsorship Agreement.txt"),
    cuad("StaarSurgicalCompany_20180801_10-Q_EX-10.37_11289449_EX-10.37_Distributor Agreement.txt"),
    cuad("LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT.txt"),
]
C2_GOLD = [
    nli("NDA-Urban_Wind_Turbines.txt"),
    nli("CCS-Salt-Cavern-RfP-NDA.txt"),
    nli("Aspiegel_NDA_template.txt"),
    nli("064-19 Non Disclosure Agreement 2019.txt"),
    nli("Attachment B - Intent to Propose and Non-Disclosure Agreement.txt"),
    nli("Annexure-3_Confidentiality-Agreement.txt"),
]
C3_FRESH = [fresh(n) for n in [
    "us_opinion_order_harlow_marine_v_brightwater.txt",
    "us_stipulated_protective_order_kessler_v_ardent.txt",
    "us_complaint_flsa_okonkwo_v_tidewater_pallet.txt",
    "us_ninth_circuit_memorandum_sable_ridge_v_cascadia_mutual.txt",
    "us_bankruptcy_order_stay_relief_in_re_marlowe_bakeries.txt",
    "us_scheduling_order_pinecrest_v_orvane.txt",
]]
C4_FRESH = [fresh(n) for n in [
    "sentenca_seguro_prestamista_venda_casada_sao_paulo.txt",
    "acordao_tjpr_seguro_auto_embriaguez_terceiro_condutor.txt",
    "acordao_trt4_horas_extras_intervalo_motorista_entregas.txt",
    "peticao_inicial_despejo_falta_pagamento_porto_alegre.txt",
    "sentenca_divorcio_litigioso_partilha_guarda_belo_horizonte.txt",
    "regulamento_canal_denuncias_cooperativa_agroalianca.txt",
]]
C5_FRESH = [fresh(n) for n in [
    "notice_of_default_halvorsen_robotics_to_quintara.txt",
    "master_subscription_agreement_lumenfield_kestrel_harbour.txt",
    "policy_gifts_hospitality_anti_bribery_norwell_instruments.txt",
    "notificacao_extrajudicial_rescisao_licenca_software_florianopolis.txt",
    "contrato_prestacao_servicos_marketing_digital_curitiba.txt",
    "acordao_tjsp_infiltracao_condominio_santos.txt",
    "contestacao_acidente_transito_onibus_florianopolis.txt",
]]


def sorted_rel(pattern, regex=None):
    out = []
    for p in sorted(glob.glob(os.path.join(DATA, pattern))):
        r = rel(p)
        if regex is None or re.search(regex, os.path.basename(r), re.I):
            out.append(r)
    return out


def build_cases():
    c1_dis = [p for p in sorted_rel("legal_span_bench/corpus/cuad/*.txt",
                                    r"sponsorship|endorsement|distributor") if p not in C1_GOLD]
    # same agreement types as PDFs (original CUAD PDFs, distractors only)
    c1_pdf = [rel(p) for p in sorted(glob.glob(os.path.join(DATA, "legal_span_bench/cuad_pdf/*/*/*")))
              if re.search(r"/(Sponsorship|Endorsement|Endorsement Agreement|Distributor)/", p)
              and p.lower().endswith(".pdf")]
    c2_dis = [p for p in sorted_rel("legal_span_bench/corpus/contractnli/*.txt") if p not in C2_GOLD]
    c3_dis = [rel(p) for p in sorted(glob.glob(os.path.join(DATA, "legal_docs_us_courts/**/*.pdf"), recursive=True))
              if os.path.getsize(p) > 0]
    c3_dis += ["legal_docs_us_courts/extra_from_history/opinion_text.txt",
               "legal_docs_us_courts/extra_from_history/MD1700012.docx",
               "legal_docs_us_courts/word-docx.docx"]
    c4_dis = sorted_rel("lener_br/raw_text/*.txt")
    c5_cuad = sorted_rel("legal_span_bench/corpus/cuad/*.txt",
                         r"supply agreement|hosting|maintenance agreement|subscription")
    c5_lener = [p for p in c4_dis if re.search(r"/(AC|Ag|AP|ED|RR|AIRR)[^/]*\.txt$", p)][:20]
    return {
        "c1_contracts_en_sponsorship_distribution": {"language": "en", "files": C1_GOLD + c1_dis + c1_pdf},
        "c2_nda_en_contractnli": {"language": "en", "files": C2_GOLD + c2_dis},
        "c3_us_court_documents_en": {"language": "en", "files": C3_FRESH + c3_dis},
        "c4_br_decisoes_pecas_pt": {"language": "pt", "files": C4_FRESH + c4_dis},
        "c5_mixed_fresh_en_pt": {"language": "pt", "files": C5_FRESH + c5_cuad + c5_lener},
    }


# ----------------------------------------------------------------------------- questions
# (id, case, lang, kind, by_purpose, question, gold_file, answer_quote, answer)
C1, C2, C3, C4, C5 = ("c1_contracts_en_sponsorship_distribution", "c2_nda_en_contractnli",
                      "c3_us_court_documents_en", "c4_br_decisoes_pecas_pt", "c5_mixed_fresh_en_pt")
R, S, P, X, T, E = C1_GOLD
Q = [
    # ---------------- case 1: CUAD sponsorship / endorsement / distributor contracts (EN)
    ("c1q01", C1, "en", "names_document", False,
     "In Rubio's 2008 renewal sponsorship agreement with San Diego Ballpark Funding, what minimum A.M. Best rating must Rubio's insurers have?",
     R, "All insurance policies must be issued by an admitted insurance carrier with an A.M. Best rating of A-8 or better",
     "An admitted carrier rated A-8 or better by A.M. Best."),
    ("c1q02", C1, "en", "low_overlap", True,
     "If the burrito chain falls behind on what it owes the Padres ballpark company, how long before the ballpark side can walk away from the deal?",
     R, "SDBF may terminate this Agreement in the event that a payment required hereunder is not made within fifteen (15) days of the date such payment is due",
     "SDBF may terminate if a payment is more than 15 days late."),
    ("c1q03", C1, "en", "plain", False,
     "Under the Padres ballpark sponsorship, how long does the Collateral Trustee get to cure a default before the sponsor can suspend or terminate its obligations?",
     R, "providing the Collateral Trustee with the opportunity to cure any such default within one hundred twenty (120) days after the date of such notice",
     "120 days after the notice of default or termination."),
    ("c1q04", C1, "en", "names_document", False,
     "How often do Stamps.com and Intuit revisit the list of client competitors under their 1999 sponsorship agreement?",
     S, "The parties shall meet on a quarterly basis to determine what, if any, changes shall be made to the Client Competitor list",
     "Quarterly."),
    ("c1q05", C1, "en", "plain", True,
     "In the online postage sponsorship, who pays for the independent accountant's inspection of the transaction-fee records, and when does that flip?",
     S, "unless the payments made to Intuit are determined to have been less than ninety- five percent (95%) of the payments actually owed to Intuit, in which case Client will be responsible for the payment of the reasonable fees for such inspection",
     "Intuit pays, unless underpayment exceeds 5% (paid < 95% of amounts owed), in which case the client pays."),
    ("c1q06", C1, "en", "low_overlap", False,
     "If the personal-finance portal wants to sell promo space to a rival postage outfit, how long do we get to talk terms first?",
     S, "In the event the parties fail to reach agreement within ten (10) business days following the commencement of such good faith negotiations",
     "Ten business days of good-faith negotiation; after that Intuit may offer it to a third party on terms no more favourable."),
    ("c1q07", C1, "en", "names_document", False,
     "What royalty does Andy North earn under his February 2011 endorsement agreement with Golfers Incorporated?",
     P, "Company further agrees to pay North a one percent (1%) royalty on all Gross Revenue generated from the sale of all Company Products",
     "1% of Gross Revenue from sales of all Company Products, paid quarterly."),
    ("c1q08", C1, "en", "low_overlap", True,
     "If the golf club company is slow to pay the TV commentator, what does the delay cost it?",
     P, "Amounts not received within ten (10) days following their respective due dates shall be assessed a late charge",
     "After 10 days, a late charge of 1.5% per month on the overdue amount."),
    ("c1q09", C1, "en", "plain", False,
     "What insurer rating is required for the liability policy naming the golfer as insured under the F2 wedge endorsement deal?",
     P, "insurance company that has a rating of A++ (per AM Best), insuring North",
     "An insurer rated A++ by AM Best."),
    ("c1q10", C1, "en", "names_document", False,
     "What equity does XLI Technologies give West Coast Customs under their December 2015 sponsorship agreement?",
     X, "Provide WCC with five million five hundred thousand (5,500,000) common stock shares of XLI Technologies, Inc",
     "5,500,000 common shares of XLI Technologies, Inc."),
    ("c1q11", C1, "en", "low_overlap", False,
     "How much airtime does the Light Sheets maker get in each of the car-customizing show's 2016 installments?",
     X, "XLI shall receive 3 thirty second commercial spot times per episode produced for 2016 by WCC",
     "Three 30-second commercial spots per episode."),
    ("c1q12", C1, "en", "plain", False,
     "Under the Light Sheets sponsorship, how long does a party have to respond to a request for approval?",
     X, "shall provide the party from whom approval is sought a period of not less than ten (10) days in which to respond",
     "At least ten days, in writing by email."),
    ("c1q13", C1, "en", "names_document", False,
     "How long is the product warranty under STAAR Surgical AG's distributorship agreement?",
     T, "STAAR warrants that, for the period of twelve (12) months from the date of delivery to Distributor hereunder",
     "Twelve months from delivery to the distributor."),
    ("c1q14", C1, "en", "plain", False,
     "What general and product liability coverage must the Swiss eye-implant maker's distributor maintain?",
     T, "maintain at a minimum general and product liability coverage in the Territory of at least US$2 million per occurrence, US$5 million in the aggregate",
     "At least US$2 million per occurrence and US$5 million aggregate, naming STAAR as additional insured."),
    ("c1q15", C1, "en", "low_overlap", True,
     "If things go sour with the Swiss lens supplier, can we take it before a judge and twelve citizens?",
     T, "The parties waive their rights to seek remedies in court (except where the relief sought is an injunction or other equitable relief), including any right to a jury trial",
     "No: court remedies and jury trial are waived except for injunctive/equitable relief; disputes go to arbitration."),
    ("c1q16", C1, "en", "plain", False,
     "Under the Illinois-only distributor agreement, for how long after delivery to the end user must the products be free from defects?",
     E, "free from defects in design, materials and workmanship for a period of twenty-four (24) months after delivery to Distributor's end-user",
     "24 months after delivery to the end user."),
    ("c1q17", C1, "en", "low_overlap", False,
     "What volume of business does the Illinois reseller need to place with the manufacturer, and how often, to hold on to its sole-seller status?",
     E, "A minimum of a $250,000.00 purchase order must be received by Company by the first of each month",
     "A $250,000 purchase order by the first of each month for 12 months."),
    # ---------------- case 2: ContractNLI NDAs (EN)
    ("c2q01", C2, "en", "names_document", False,
     "Which courts have exclusive jurisdiction under the Urban Wind Turbines NDA from MEB Engineering & Commercial Services?",
     C2_GOLD[0], "the courts of [England]10 will have exclusive jurisdiction",
     "The courts of England (law of England and Wales)."),
    ("c2q02", C2, "en", "low_overlap", True,
     "Once the small wind-turbine confidentiality deal ends, how fast does the other side have to hand back or wipe our material?",
     C2_GOLD[0], "Within [5] working days following the date of effective termination of this Agreement the Recipient will destroy or return to the Discloser",
     "Within 5 working days of termination, destroy or return (at Discloser's option) and delete from systems."),
    ("c2q03", C2, "en", "plain", False,
     "Under the wind-turbine NDA drafted by MEB, can a party end the agreement at will, and how?",
     C2_GOLD[0], "may terminate this Agreement [forthwith] at any time by giving written notice of termination to the other party",
     "Yes, at any time by written notice (bracketed: either party, forthwith)."),
    ("c2q04", C2, "en", "names_document", False,
     "On what date did the Energy Technologies Institute issue the request for proposals for the Salt Cavern Appraisal for Hydrogen and Gas Storage Project?",
     C2_GOLD[1], "issued by the ETI on 20th April 2016",
     "20 April 2016."),
    ("c2q05", C2, "en", "names_document", False,
     "Which ETI programme does the Salt Cavern Appraisal project covered by the ETI respondents' NDA fall under?",
     C2_GOLD[1], "the proposed project under the ETI’s Carbon Capture and Storage Programme",
     "The ETI's Carbon Capture and Storage Programme."),
    ("c2q06", C2, "en", "names_document", True,
     "Which country's law decides disputes under the Aspiegel NDA template?",
     C2_GOLD[2], "shall be governed by and construed in accordance with Irish law",
     "Irish law, with exclusive jurisdiction of the courts of Ireland."),
    ("c2q07", C2, "en", "low_overlap", False,
     "If we want to bring an outside firm working on the project into the Aspiegel talks, what do we need first?",
     C2_GOLD[2], "subject to the Recipient Party obtaining the prior written consent of the Disclosing Party to such disclosure",
     "The discloser's prior written consent, and the third party must sign a confidentiality undertaking in favour of both parties."),
    ("c2q08", C2, "en", "plain", False,
     "In the Irish-law NDA template, how long do the confidentiality obligations continue after the agreement ends?",
     C2_GOLD[2], "continue for a period of five (5) years from the termination of this Agreement",
     "Five years from termination."),
    ("c2q09", C2, "en", "names_document", False,
     "What is the term of JEA's 2019 Non-Disclosure Agreement (064-19)?",
     C2_GOLD[3], "This Agreement shall remain in effect for a two-year term (subject to a one year extension if the parties are still discussing and considering the Transaction at the end of the second year)",
     "Two years, extendable by one year if talks continue (or the contract term if longer)."),
    ("c2q10", C2, "en", "low_overlap", True,
     "If we end up suing the Jacksonville public utility over the confidentiality deal, where does the case have to be brought?",
     C2_GOLD[3], "The Federal and state courts located in Duval County, Florida shall have sole and exclusive jurisdiction",
     "Federal and state courts in Duval County, Florida."),
    ("c2q11", C2, "en", "plain", False,
     "Why might information we give the municipal utility under its NDA end up being released, and which statute is involved?",
     C2_GOLD[3], "the Parties understand that the Discloser is subject to Florida's Public Records Act, Chapter 119, Florida Statutes",
     "JEA is subject to Florida's Public Records Act (Chapter 119, Florida Statutes)."),
    ("c2q12", C2, "en", "low_overlap", False,
     "How fast must the vendor tell the state once it finds out employee health-plan data leaked?",
     C2_GOLD[4], "Recipient shall promptly notify State of a breach of any Confidential Information within forty-eight (48) hours of when Recipient discovers such breach",
     "Within 48 hours of discovery."),
    ("c2q13", C2, "en", "plain", True,
     "Which state's law governs the confidentiality agreement for the travel and care benefits services under the state employee health plan?",
     C2_GOLD[4], "governed by and construed and enforced in accordance with the laws of the State of Alaska",
     "Alaska law."),
    ("c2q14", C2, "en", "plain", False,
     "How much notice does the State need to give to end the Intent to Propose and Non-Disclosure Agreement for the travel and care benefits services?",
     C2_GOLD[4], "This Agreement may be terminated by State on five (5) days prior written notice to the Recipient",
     "Five days' prior written notice."),
    ("c2q15", C2, "en", "names_document", False,
     "How long does the Annexure 3 Confidentiality Agreement remain in force?",
     C2_GOLD[5], "shall remain binding and in force for a period of five years thereafter",
     "Five years from the Signature Date, or longer if agreed in writing."),
    ("c2q16", C2, "en", "low_overlap", False,
     "If the other side shreds our papers instead of sending them back under the South African confidentiality deal, what proof do we get?",
     C2_GOLD[5], "furnish the Disclosing Party with a written statement sworn under oath to the effect that all such material has been destroyed",
     "A written statement sworn under oath confirming destruction."),
    ("c2q17", C2, "en", "plain", False,
     "Within how many days must a return-or-destroy request be met under the confidentiality agreement that counts days around South African public holidays?",
     C2_GOLD[5], "within five \"Business Days\" (being any day other than a Saturday, Sunday or official public holiday in the Republic of South Africa)",
     "Five Business Days."),
    # ---------------- case 3: US court documents (EN; golds fresh)
    ("c3q01", C3, "en", "names_document", False,
     "In Harlow Marine Supply v. Brightwater Logistics, why did the court dismiss the Oregon Unlawful Trade Practices Act claim with prejudice?",
     C3_FRESH[0], "Harlow purchased freight services for its wholesale equipment business, and the complaint alleges no facts suggesting any personal or household use",
     "The UTPA covers personal/household purchases; Harlow bought freight for its wholesale business, so amendment would be futile."),
    ("c3q02", C3, "en", "low_overlap", False,
     "Did the judge let the trucker hold the Astoria fishing-gear seller to the per-pound cap on its exposure at this early stage?",
     C3_FRESH[0], "Whether Brightwater's dispatcher's assurances deprived Harlow of a fair opportunity to declare a higher value is a question of fact that cannot be decided on a Rule 12 motion",
     "No; whether the shipper had a fair opportunity to declare a higher value is a fact question."),
    ("c3q03", C3, "en", "plain", True,
     "After the ruling on the carrier's motion in the Astoria marine-supply freight case, how long does the shipper have to fix its pleading?",
     C3_FRESH[0], "Plaintiff may file a Second Amended Complaint within twenty-one (21) days of the date of this Opinion and Order",
     "21 days from the Opinion and Order."),
    ("c3q04", C3, "en", "names_document", False,
     "Under the protective order in Kessler Food Ingredients v. Ardent Flavor Systems, can Tomas Vellacourt see Kessler's attorneys'-eyes-only documents?",
     C3_FRESH[1], "Mr. Vellacourt shall not have access to Kessler's Attorneys' Eyes Only material, except for documents he authored or previously received in the course of his employment at Kessler",
     "No, except documents he authored or received while employed at Kessler."),
    ("c3q05", C3, "en", "low_overlap", True,
     "If privileged emails slip out in production in the flavor-chemist trade secret case, how long does the other side have to give them back?",
     C3_FRESH[1], "the receiving Party shall return, sequester, or destroy the identified material and all copies within five (5) business days",
     "Within five business days of written notice, with written certification."),
    ("c3q06", C3, "en", "plain", False,
     "What has to be disclosed about a retained expert before they can see AEO material in the emulsion-formula litigation?",
     C3_FRESH[1], "a list of all prior employers and consulting engagements in the flavor or food-ingredient industry during the preceding five years",
     "Current CV, prior employers and industry consulting engagements for the past five years, and a signed Exhibit A."),
    ("c3q07", C3, "en", "names_document", False,
     "In Okonkwo v. Tidewater Pallet & Crate, what did the June 2, 2021 memorandum tell employees about piece-rate pay?",
     C3_FRESH[2], "piece-rate pay already rewards extra effort and is not subject to time-and-a-half",
     "That piece-rate pay was not subject to time-and-a-half."),
    ("c3q08", C3, "en", "low_overlap", False,
     "What shows the pallet company's boss knew the pay setup was unlawful and kept it anyway?",
     C3_FRESH[2], "Tidewater's outside accountant advised Mr. Haskell in writing in January 2023 that the piece-rate policy \"creates overtime exposure,\"",
     "A January 2023 written warning from the outside accountant that the policy created overtime exposure."),
    ("c3q09", C3, "en", "plain", False,
     "Under the Virginia overtime claim pleaded in the pallet-plant lawsuit, what extra remedy is available if the employer's violation was knowing?",
     C3_FRESH[2], "If the violation is found to be knowing, the Court may award treble damages",
     "Treble damages."),
    ("c3q10", C3, "en", "names_document", False,
     "In Sable Ridge Homeowners Association v. Cascadia Mutual, why did the Ninth Circuit hold that Cascadia had to defend the whole Owners' Action?",
     C3_FRESH[3], "Because at least some of the damage alleged in the Owners' Action was potentially covered, Cascadia owed Sable Ridge a defense of the entire action",
     "Debris damage to landscaping and vehicles did not plainly arise from earth movement, so part of the claim was potentially covered."),
    ("c3q11", C3, "en", "low_overlap", False,
     "Which judge broke ranks in the Henderson retaining-wall insurance appeal, and what was the reasoning?",
     C3_FRESH[3], "The debris damage to landscaping and vehicles occurred only because the wall moved",
     "Judge Brandt: all damage arose from earth movement, so he would affirm in full."),
    ("c3q12", C3, "en", "plain", True,
     "Who pays the costs of the appeal in the Nevada retaining-wall coverage case?",
     C3_FRESH[3], "Each party shall bear its own costs on appeal",
     "Each party bears its own costs."),
    ("c3q13", C3, "en", "names_document", False,
     "In In re Marlowe Artisan Bakeries, why was the automatic stay lifted for the rack oven but not the dough line?",
     C3_FRESH[4], "Both prongs are satisfied as to the Rack Oven",
     "No equity and the idle oven is not necessary to reorganization; the dough line is necessary."),
    ("c3q14", C3, "en", "low_overlap", True,
     "What does the Denver bakery owe the equipment lender every month to hang on to its croissant machine?",
     C3_FRESH[4], "the Debtor shall pay Front Range $3,100 per month, beginning February 15, 2025",
     "$3,100 per month from 15 February 2025, plus insurance naming Front Range as loss payee."),
    ("c3q15", C3, "en", "plain", False,
     "What happens if the bakery debtor misses an adequate protection payment to Front Range?",
     C3_FRESH[4], "If the Debtor does not cure the default within ten (10) days after service of that notice",
     "After a notice of default and 10 days without cure, the stay on the dough line can be terminated without a hearing (max two cure opportunities)."),
    ("c3q16", C3, "en", "names_document", True,
     "In Pinecrest Dental Partners v. Orvane Imaging Solutions, who pays the mediator?",
     C3_FRESH[5], "The parties shall share the mediator's fees equally",
     "The parties split the mediator's fees equally."),
    ("c3q17", C3, "en", "low_overlap", False,
     "By when do our outside specialists' written opinions have to be served in the dental imaging lease fight?",
     C3_FRESH[5], "All affirmative expert reports shall be delivered by September 12, 2025",
     "September 12, 2025 (responding reports by October 24, 2025)."),
    # ---------------- case 4: Brazilian decisions and pleadings (PT; golds fresh)
    ("c4q01", C4, "pt", "names_document", False,
     "Na sentença da 34ª Vara Cível de São Paulo no processo de Edinalva Rocha Cavalcanti contra o Banco Meridiano de Crédito, por que foi negado o dano moral?",
     C4_FRESH[0], "A cobrança indevida, desacompanhada de negativação, de desconto que comprometesse a subsistência ou de outra repercussão na esfera da personalidade, configura mero aborrecimento",
     "Cobrança indevida sem negativação ou outra repercussão é mero aborrecimento."),
    ("c4q02", C4, "pt", "low_overlap", False,
     "O banco pode dizer que não tem nada a ver com o seguro de outra empresa do grupo que empurrou junto com o consignado?",
     C4_FRESH[0], "A instituição financeira que oferece o seguro no balcão de sua agência, financia o prêmio e o inclui no contrato de mútuo integra a cadeia de fornecimento e responde solidariamente",
     "Não: integra a cadeia de fornecimento e responde solidariamente (CDC, arts. 7º, p.ú., e 25, § 1º)."),
    ("c4q03", C4, "pt", "plain", True,
     "Quem paga as custas do processo no caso do seguro prestamista do Banco Meridiano?",
     C4_FRESH[0], "condeno o réu ao pagamento de 70% das custas e despesas processuais e a autora aos 30% restantes",
     "Réu 70% e autora 30% (suspensa a exigibilidade pela gratuidade)."),
    ("c4q04", C4, "pt", "names_document", False,
     "Na Apelação Cível nº 4002718-72.2023.8.16.0001 (Vanguarda Seguros x Rodrigo Tavares Mendonça), como se calcula a indenização pela perda total?",
     C4_FRESH[1], "a indenização pelo valor de 100% da Tabela FIPE vigente na data do sinistro, sem aplicação de franquia",
     "100% da Tabela FIPE na data do sinistro, sem franquia."),
    ("c4q05", C4, "pt", "low_overlap", False,
     "Se o filho pega o Corolla do pai, bebe numa festa e bate em Curitiba, a seguradora pode deixar o pai sem cobertura?",
     C4_FRESH[1], "a perda da garantia exige a demonstração de que o próprio segurado contribuiu para o agravamento, por culpa in eligendo ou in vigilando",
     "Só se provado que o próprio segurado contribuiu (culpa in eligendo/in vigilando); não provado, indenização devida."),
    ("c4q06", C4, "pt", "plain", True,
     "Em quanto tempo o segurado deve entregar o salvado e a documentação do veículo à seguradora no caso do Corolla em Curitiba?",
     C4_FRESH[1], "providência que deverá ser adotada pelo apelado no prazo de 15 (quinze) dias após o trânsito em julgado",
     "15 dias após o trânsito em julgado."),
    ("c4q07", C4, "pt", "names_document", False,
     "No ROT 0020391-67.2024.5.04.0011 (Translog Sul x Jeferson Luís Machado da Silva), por que o motorista não foi enquadrado no artigo 62, I, da CLT?",
     C4_FRESH[2], "o preposto confessou em audiência que todos os veículos da frota possuem rastreador",
     "Havia controle por rastreador e aplicativo de roteirização, confessado pelo preposto."),
    ("c4q08", C4, "pt", "low_overlap", False,
     "O entregador que só conseguia uns vinte minutos para almoçar vai receber quanto pela pausa que perdeu?",
     C4_FRESH[2], "dou provimento parcial ao recurso para limitar a condenação a quarenta minutos diários, com adicional de 50%, excluídos os reflexos",
     "Quarenta minutos diários com adicional de 50%, sem reflexos (natureza indenizatória)."),
    ("c4q09", C4, "pt", "plain", False,
     "Por que a 5ª Turma do TRT da 4ª Região não conheceu do recurso da transportadora quanto ao adicional de periculosidade?",
     C4_FRESH[2], "Falta interesse recursal à reclamada no particular",
     "Não houve condenação nesse ponto; falta interesse recursal."),
    ("c4q10", C4, "pt", "names_document", False,
     "Na ação de despejo da Imobiliária Guaíba Norte contra a Cafeteria Grão do Sul, qual é o débito cobrado na inicial?",
     C4_FRESH[3], "totalizando, na data do ajuizamento, o débito de R$ 39.856,42",
     "R$ 39.856,42."),
    ("c4q11", C4, "pt", "low_overlap", True,
     "A cafeteria da Avenida Independência ainda consegue manter o ponto se quitar tudo? Até quando?",
     C4_FRESH[3], "A locatária poderá evitar a rescisão da locação requerendo, no prazo de 15 (quinze) dias contado da citação, o pagamento do débito atualizado",
     "Sim, purgando a mora em 15 dias da citação (art. 62, II, Lei 8.245/91)."),
    ("c4q12", C4, "pt", "plain", False,
     "Qual caução foi oferecida para a liminar de desocupação da loja alugada à cafeteria em Porto Alegre?",
     C4_FRESH[3], "mediante caução de R$ 26.841,48, equivalente a três meses do aluguel atual",
     "R$ 26.841,48 (três aluguéis)."),
    ("c4q13", C4, "pt", "names_document", False,
     "Na sentença de divórcio da 4ª Vara de Família de Belo Horizonte (processo 5107733-88.2024.8.13.0024), que parte do apartamento de Santa Tereza ficou exclusivamente com o réu?",
     C4_FRESH[4], "42,86% do imóvel (correspondente a R$ 180.000,00 sobre R$ 420.000,00) pertencem exclusivamente ao réu",
     "42,86%, por sub-rogação de bem herdado; o restante é partilhado."),
    ("c4q14", C4, "pt", "low_overlap", False,
     "No divórcio de Belo Horizonte, se o pai ficar sem trabalho, quanto passa a pagar para as crianças?",
     C4_FRESH[4], "Em caso de desemprego, os alimentos corresponderão a 30% do salário mínimo vigente por filho",
     "30% do salário mínimo por filho."),
    ("c4q15", C4, "pt", "plain", False,
     "Com quem ficam os filhos na noite de Natal de 2025 segundo a sentença de divórcio de BH?",
     C4_FRESH[4], "cabendo ao pai, em 2025, a noite de Natal",
     "Com o pai."),
    ("c4q16", C4, "pt", "low_overlap", True,
     "Quanto tempo a cooperativa de Chapecó guarda o histórico das denúncias depois que o caso termina?",
     C4_FRESH[5], "Os registros dos relatos e das apurações serão mantidos pelo prazo de 5 (cinco) anos contados do encerramento do caso",
     "5 anos após o encerramento, depois eliminados ou anonimizados."),
    ("c4q17", C4, "pt", "plain", False,
     "Quem apura um relato no canal de denúncias da Cooperaliança quando o denunciado é membro da Diretoria Executiva?",
     C4_FRESH[5], "serão encaminhados diretamente ao Presidente do Conselho Fiscal, que conduzirá a apuração com apoio de auditoria externa",
     "O Presidente do Conselho Fiscal, com apoio de auditoria externa."),
    # ---------------- case 5: mixed fresh EN + PT documents among real distractors
    ("c5q01", C5, "en", "names_document", False,
     "In Halvorsen Robotics' notice of 6 May 2025 to Quintara Components, how much liquidated damages had accrued?",
     C5_FRESH[0], "the liquidated damages accrued to 5 May 2025 amount to EUR 71,640",
     "EUR 71,640, to be set off against open invoices."),
    ("c5q02", C5, "en", "low_overlap", True,
     "How many spare gearboxes must the UK supplier keep on hand for the Norwegian robot maker?",
     C5_FRESH[0], "it must maintain a safety stock of not less than 400 units of each part number at its Bedford facility",
     "At least 400 units of each part number at Bedford."),
    ("c5q03", C5, "en", "plain", False,
     "Why was the reducer lot Q55-2502-B rejected at the Horten plant?",
     C5_FRESH[0], "found that 47 units exceeded the angular backlash tolerance of 1 arc-minute",
     "47 of 300 units exceeded the 1 arc-minute backlash tolerance (defect rate above 2%)."),
    ("c5q04", C5, "en", "names_document", True,
     "Which state's law governs the Lumenfield Analytics - Kestrel Harbour Foods master subscription agreement?",
     C5_FRESH[1], "This Agreement is governed by the laws of the Commonwealth of Massachusetts",
     "Massachusetts law; exclusive jurisdiction in Suffolk County courts."),
    ("c5q05", C5, "en", "low_overlap", True,
     "Can the seafood company get out of the forecasting platform deal early without a reason, and what would that cost?",
     C5_FRESH[1], "paying an early termination fee equal to twenty-five percent (25%) of the fees that would have been payable for the remainder of the initial term",
     "After the first 12 months, on 90 days' notice plus a fee of 25% of the remaining initial-term fees."),
    ("c5q06", C5, "en", "plain", False,
     "What is the most the customer can get in service credits when the cold-chain monitoring platform misses its availability target?",
     C5_FRESH[1], "up to a maximum of 30% of the monthly fee",
     "30% of the monthly fee (5% per 0.5% shortfall)."),
    ("c5q07", C5, "en", "low_overlap", False,
     "Under Norwell's rules, is a field engineer ever allowed to slip a customs officer some cash to release a shipment?",
     C5_FRESH[2], "The only exception is where an employee faces an imminent threat to health, safety, or liberty",
     "Only under imminent threat to health, safety or liberty, reported to the CCO within 24 hours."),
    ("c5q08", C5, "en", "plain", False,
     "What approval does a Norwell employee need before giving any gift to a doctor at a public hospital?",
     C5_FRESH[2], "requires prior written approval from the Chief Compliance Officer, regardless of amount",
     "Prior written approval of the Chief Compliance Officer, whatever the value."),
    ("c5q09", C5, "pt", "names_document", False,
     "Na notificação da Distribuidora de Alimentos Mar Azul à Neblina Sistemas de Gestão, a partir de quando a rescisão produz efeitos?",
     C5_FRESH[3], "com efeitos a partir de 30 (trinta) dias contados do recebimento desta notificação",
     "30 dias após o recebimento da notificação."),
    ("c5q10", C5, "pt", "low_overlap", False,
     "A distribuidora de Florianópolis consegue levar as informações dela embora do ERP antigo? Em que prazo?",
     C5_FRESH[3], "entregar à NOTIFICANTE, em até 10 (dez) dias úteis contados do recebimento desta notificação, cópia integral da base de dados em formato aberto",
     "Sim: cópia integral da base em formato aberto em até 10 dias úteis (cláusula 16.1)."),
    ("c5q11", C5, "pt", "names_document", True,
     "No contrato entre a Ótica Visão Clara e a Pulso Criativo, quem paga se a agência gastar mais do que a verba de mídia aprovada?",
     C5_FRESH[4], "Eventual excesso não autorizado será suportado integralmente pela CONTRATADA",
     "A agência (CONTRATADA) arca integralmente com o excesso não autorizado."),
    ("c5q12", C5, "pt", "low_overlap", False,
     "A rede de óticas pode trazer para dentro de casa o designer da agência depois que a parceria acabar?",
     C5_FRESH[4], "a CONTRATANTE não contratará, direta ou indiretamente, profissionais da equipe da CONTRATADA alocados ao seu atendimento",
     "Não durante a vigência e por 12 meses após, sob multa de 6 salários do profissional."),
    ("c5q13", C5, "pt", "plain", False,
     "Qual é a remuneração variável trimestral da agência de marketing digital das óticas de Curitiba?",
     C5_FRESH[4], "3% (três por cento) sobre o acréscimo de faturamento das vendas originadas no e-commerce da CONTRATANTE",
     "3% sobre o acréscimo de vendas do e-commerce frente ao mesmo trimestre do ano anterior, limitado a R$ 15.000,00."),
    ("c5q14", C5, "pt", "names_document", False,
     "Na Apelação Cível nº 1018462-77.2025.8.26.0562 (Condomínio Edifício Mirante do Embaré), para quanto foi reduzida a indenização por dano moral?",
     C5_FRESH[5], "devendo ser reduzido para R$ 10.000,00",
     "R$ 10.000,00."),
    ("c5q15", C5, "pt", "low_overlap", False,
     "A obra que a dona do 141 fez na varanda dela contribuiu para o mofo no apartamento?",
     C5_FRESH[5], "O perito afastou expressamente a hipótese de que a reforma do terraço privativo tenha contribuído para os danos",
     "Não; o perito afastou essa hipótese (terraço na face oposta, ensaios negativos)."),
    ("c5q16", C5, "pt", "plain", True,
     "Em quanto tempo o condomínio de Santos deve terminar os reparos na cobertura e na prumada?",
     C5_FRESH[5], "amplia-se o prazo para a conclusão dos reparos nas áreas comuns para 120 (cento e vinte) dias",
     "120 dias (ampliado em grau de recurso), mantida a multa diária."),
    ("c5q17", C5, "pt", "plain", False,
     "Na ação do motoboy atingido por ônibus na Beira-Mar Norte, qual seguradora a empresa de ônibus quer trazer ao processo e até que valor cobre a apólice?",
     C5_FRESH[6], "contratada com a Aurora Seguradora S.A., apólice nº 31.0099.771-4, com cobertura para danos materiais e corporais a terceiros de até R$ 500.000,00 por evento",
     "Aurora Seguradora S.A., cobertura até R$ 500.000,00 por evento."),
]

# no_answer questions: (id, case, lang, question, answer, anchors, absent_terms)
# Absence check: every file of the case whose normalised text contains ANY anchor must contain
# NONE of the absent_terms (normalised).
NA = [
    ("c1q18", C1, "en", "If the Padres relocate away from their San Diego ballpark during the term, what happens to Rubio's sponsorship and payments?",
     "Not stated in the case documents.", ["rubio"], ["relocat", "movetheteam", "teammoves"]),
    ("c1q19", C1, "en", "Which state's law governs the West Coast Customs sponsorship agreement with XLI Technologies?",
     "Not stated in the case documents.", ["westcoastcustoms"], ["governedby", "governinglaw", "lawsofthestate", "jurisdiction", "construedinaccordance"]),
    ("c1q20", C1, "en", "What annual sales quota or minimum purchase commitment must the NETGEAR distributor meet?",
     "Not stated in the case documents.", ["netgear"], ["quota", "salestarget", "minimumpurchase", "annualpurchase", "salesgoal", "minimumannual"]),
    ("c2q18", C2, "en", "What liquidated damages does JEA's 2019 NDA impose for an unauthorized disclosure?",
     "Not stated in the case documents.", ["jeaconfidential"], ["liquidated", "penalty"]),
    ("c2q19", C2, "en", "Is there a cap on either party's liability for breach under the Aspiegel NDA template?",
     "Not stated in the case documents.", ["aspiegel"], ["aggregateliability", "liabilityshallnotexceed", "capon", "limitationofliability", "maximumliability"]),
    ("c2q20", C2, "en", "Does the Urban Wind Turbines NDA stop the recipient from hiring MEB Engineering's staff?",
     "Not stated in the case documents.", ["urbanwindturbines"], ["solicit", "recruit", "hireany", "employanyof", "entice"]),
    ("c3q18", C3, "en", "How much in attorneys' fees did the court award Brightwater in the Harlow Marine Supply case?",
     "Not stated in the case documents.", ["harlowmarine"], ["attorneysfees", "attorneyfees", "feeaward", "awardoffees"]),
    ("c3q19", C3, "en", "What monetary sanctions or contempt penalties does the Kessler v. Ardent protective order set for violating it?",
     "Not stated in the case documents.", ["vellacourt"], ["contempt", "sanction", "penalt", "monetaryfine"]),
    ("c3q20", C3, "en", "What total amount of unpaid overtime do the Tidewater Pallet plaintiffs claim?",
     "Not stated in the case documents.", ["tidewaterpallet"], ["totalunpaid", "inexcessof", "aggregateamount", "notlessthan"]),
    ("c4q18", C4, "pt", "Qual é a empresa independente contratada pela Cooperaliança para operar o canal de denúncias?",
     "Não consta dos documentos do caso.", ["Cooperaliança"], ["ltda", "eireli", "contratadaaempresa", "denominada", "razãosocial"]),
    ("c4q19", C4, "pt", "No divórcio julgado pela 4ª Vara de Família de Belo Horizonte, foram fixados alimentos em favor da ex-esposa?",
     "Não consta dos documentos do caso.", ["santatereza"], ["excônjuge", "exconjuge", "alimentosàautora", "alimentosaautora", "exesposa", "alimentosentrecônjuges"]),
    ("c4q20", C4, "pt", "Qual era o salário do motorista Jeferson Luís Machado da Silva na Translog Sul?",
     "Não consta dos documentos do caso.", ["translogsul"], ["saláriomensal", "salárioder", "saláriobase", "remuneraçãomensal", "remuneraçãoder", "últimosalário"]),
    ("c5q18", C5, "en", "What is the annual subscription fee Kestrel Harbour pays Lumenfield for the forecasting platform?",
     "Not stated in the case documents (fees are in the Order Form, not included).", ["lumenfield"], ["annualfeeof", "subscriptionfeeof", "perannum", "feesof", "feeisusd"]),
    ("c5q19", C5, "en", "What is the unit price of the QR-55 harmonic reducers under the Halvorsen-Quintara supply agreement?",
     "Not stated in the case documents.", ["quintara"], ["unitprice", "priceperunit", "perunit", "eachunitpriced"]),
    ("c5q20", C5, "pt", "No contrato da Ótica Visão Clara com a Pulso Criativo, qual multa a agência paga se atrasar a entrega das peças?",
     "Não consta dos documentos do caso.", ["pulsocriativo"], ["atrasonaentrega", "atrasodaentrega", "entregaematraso", "multaporatraso", "multapordia"]),
]


# ----------------------------------------------------------------------------- text access
_cache = {}


def pdf_pages(path):
    out = subprocess.run(["pdfinfo", path], capture_output=True, text=True)
    m = re.search(r"^Pages:\s+(\d+)", out.stdout, re.M)
    n = int(m.group(1)) if m else 0
    pages = []
    for i in range(1, n + 1):
        t = subprocess.run(["pdftotext", "-f", str(i), "-l", str(i), path, "-"],
                           capture_output=True, text=True, errors="replace").stdout
        pages.append(t)
    return pages


def docx_text(path):
    with zipfile.ZipFile(path) as z:
        xml = z.read("word/document.xml").decode("utf-8", "replace")
    xml = re.sub(r"</w:p>", "\n", xml)
    return re.sub(r"<[^>]+>", "", xml)


def file_text(path):
    """Return (kind, payload): ('txt', [lines]) / ('pdf', [pages]) / ('docx', text)."""
    if path in _cache:
        return _cache[path]
    ap = absolute(path)
    low = ap.lower()
    if low.endswith(".pdf"):
        res = ("pdf", pdf_pages(ap))
    elif low.endswith(".docx"):
        res = ("docx", docx_text(ap))
    else:
        with open(ap, encoding="utf-8", errors="replace") as fh:
            res = ("txt", fh.read().split("\n"))
    _cache[path] = res
    return res


def full_norm(path):
    kind, payload = file_text(path)
    if kind == "txt":
        return norm("\n".join(payload))
    if kind == "pdf":
        return norm("\n".join(payload))
    return norm(payload)


# ----------------------------------------------------------------------------- build
def fail(msg, errors):
    errors.append(msg)


def locate(path, quote, errors, qid):
    nq = norm(quote)
    if len(nq) < 20:
        fail(f"{qid}: quote shorter than 20 normalised chars ({len(nq)})", errors)
    kind, payload = file_text(path)
    if kind == "txt":
        chars, line_of = [], []
        for ln, line in enumerate(payload, 1):
            for ch in norm(line):
                chars.append(ch)
                line_of.append(ln)
        s = "".join(chars)
        n = s.count(nq)
        if n != 1:
            fail(f"{qid}: quote found {n} times in gold file {path}", errors)
            return None
        i = s.find(nq)
        return {"lines": [line_of[i], line_of[i + len(nq) - 1]]}
    if kind == "pdf":
        whole = norm("\n".join(payload))
        n = whole.count(nq)
        if n != 1:
            fail(f"{qid}: quote found {n} times in gold PDF {path}", errors)
            return None
        hits = [i for i, pg in enumerate(payload, 1) if nq in norm(pg)]
        if len(hits) != 1:
            fail(f"{qid}: quote crosses a page break (or spans pages) in {path}", errors)
            return None
        return {"page": hits[0]}
    fail(f"{qid}: unsupported gold format {path}", errors)
    return None


def main():
    errors = []
    used = set()
    with open(os.path.join(BASE, "used_before.txt"), encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                used.add(line[2:] if line.startswith("./") else line)
    cases = build_cases()
    for cname, c in cases.items():
        for p in c["files"]:
            if not os.path.exists(absolute(p)):
                fail(f"{cname}: missing file {p}", errors)
        if len(c["files"]) != len(set(c["files"])):
            fail(f"{cname}: duplicate file entries", errors)
    normtexts = {}
    for cname, c in cases.items():
        for p in c["files"]:
            if p not in normtexts:
                normtexts[p] = full_norm(p)

    questions = []
    per_doc = Counter()
    for (qid, case, lang, kind, bp, question, gfile, quote, answer) in Q:
        if gfile not in cases[case]["files"]:
            fail(f"{qid}: gold file not in case {case}: {gfile}", errors)
            continue
        key = gfile[2:] if gfile.startswith("./") else gfile
        if key in used:
            fail(f"{qid}: gold file listed in used_before.txt: {gfile}", errors)
        per_doc[gfile] += 1
        loc = locate(gfile, quote, errors, qid)
        nq = norm(quote)
        for other in cases[case]["files"]:
            if other != gfile and nq in normtexts[other]:
                fail(f"{qid}: quote also appears in another file of the case: {other}", errors)
        gold = {"file": gfile}
        if loc:
            gold.update(loc)
        gold["answer_quote"] = quote
        questions.append({"id": qid, "case": case, "lang": lang, "kind": kind,
                          "fresh": gfile.startswith("./docs/"), "by_purpose": bp,
                          "question": question, "gold": gold, "answer": answer})
    for d, n in per_doc.items():
        if n > 3:
            fail(f"more than 3 questions on one document ({n}): {d}", errors)

    for (qid, case, lang, question, answer, anchors, terms) in NA:
        na_anchors = [norm(a) for a in anchors]
        na_terms = [norm(t) for t in terms]
        anchored = [p for p in cases[case]["files"] if any(a in normtexts[p] for a in na_anchors)]
        if not anchored:
            fail(f"{qid}: no_answer anchor matches no file of the case", errors)
        for p in anchored:
            for t in na_terms:
                if t and t in normtexts[p]:
                    fail(f"{qid}: no_answer term '{t}' found in {p}", errors)
        questions.append({"id": qid, "case": case, "lang": lang, "kind": "no_answer",
                          "fresh": False, "by_purpose": False, "question": question, "answer": answer})

    questions.sort(key=lambda q: q["id"])
    out = {
        "written": WRITTEN,
        "description": ("Blind evaluation set (blind7) for a local legal-document search tool: 5 cases x 20 "
                        "questions (17 answerable + 3 no_answer). Gold = TXT line window located mechanically "
                        "from a verbatim answer_quote (NFKC, lowercase, alphanumerics only). Fresh documents "
                        "were written for this set and live in ./docs/."),
        "cases": {k: {"language": v["language"], "files": v["files"]} for k, v in cases.items()},
        "questions": questions,
    }
    if errors:
        print("BUILD FAILED:")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    with open(os.path.join(BASE, "blind_set_full.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)
    ans = [q for q in questions if q["kind"] != "no_answer"]
    gold_docs = {q["gold"]["file"] for q in ans}
    fresh_docs = {d for d in gold_docs if d.startswith("./docs/")}
    kinds = Counter(q["kind"] for q in questions)
    print(f"cases={len(cases)} files={sum(len(c['files']) for c in cases.values())} "
          f"questions={len(questions)} answerable={len(ans)} no_answer={kinds['no_answer']}")
    print("kinds:", dict(sorted(kinds.items())), "by_purpose:", sum(q["by_purpose"] for q in ans))
    print(f"gold_docs={len(gold_docs)} fresh_gold_docs={len(fresh_docs)} "
          f"fresh_questions={sum(q['fresh'] for q in ans)}")
    for cname, c in cases.items():
        qs = [q for q in questions if q["case"] == cname]
        print(f"  {cname}: files={len(c['files'])} q={len(qs)} " +
              " ".join(f"{k}={v}" for k, v in sorted(Counter(q['kind'] for q in qs).items())))
    print("BUILD OK: wrote blind_set.json")


if __name__ == "__main__":
    main()
