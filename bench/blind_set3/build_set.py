#!/usr/bin/env python3
"""Builds blind_set.json (file lists + questions). Stdlib only (+ pdftotext for locating PDF pages).
Gold places are located by searching the verbatim answer_quote (alphanumeric-normalised) in the
gold file; the builder also checks the quote does not occur in any other file of the same case."""
import json, os, random, re, subprocess, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data'))
USED = set(l.strip() for l in open(os.path.join(HERE, 'used_before.txt')) if l.strip())

def norm(s):
    s = unicodedata.normalize('NFKC', s).lower()
    return ''.join(ch for ch in s if ch.isalnum())

def abspath(p):
    return os.path.normpath(os.path.join(HERE, p)) if p.startswith('./') else os.path.join(DATA, p)

_txt_cache = {}
def txt_lines(p):
    if p not in _txt_cache:
        _txt_cache[p] = open(abspath(p), encoding='utf-8', errors='replace').read().split('\n')
    return _txt_cache[p]

_pdf_cache = {}
def pdf_pages(p):
    if p not in _pdf_cache:
        ap = abspath(p)
        n = int(re.search(r'Pages:\s+(\d+)', subprocess.run(['pdfinfo', ap], capture_output=True, text=True).stdout).group(1))
        pages = []
        for i in range(1, n + 1):
            a = subprocess.run(['pdftotext', '-f', str(i), '-l', str(i), '-layout', ap, '-'], capture_output=True, text=True, errors='replace').stdout
            b = subprocess.run(['pdftotext', '-f', str(i), '-l', str(i), ap, '-'], capture_output=True, text=True, errors='replace').stdout
            pages.append((norm(a), norm(b)))
        _pdf_cache[p] = pages
    return _pdf_cache[p]

def full_norm(p):
    if p.lower().endswith('.pdf'):
        return ''.join(a for a, b in pdf_pages(p)) + '|' + ''.join(b for a, b in pdf_pages(p))
    return norm('\n'.join(txt_lines(p)))

def locate_txt(p, quote):
    q = norm(quote); L = txt_lines(p); best = None
    for a in range(len(L)):
        acc = ''
        for b in range(a, min(len(L), a + 40)):
            acc += norm(L[b])
            if q in acc:
                if best is None or (b - a) < (best[1] - best[0]):
                    best = (a + 1, b + 1)
                break
    return best

def locate_pdf(p, quote):
    q = norm(quote); P = pdf_pages(p); hits = []
    for i, (a, b) in enumerate(P):
        if q in a or q in b:
            hits.append(i + 1)
    if hits:
        return {'page': hits[0]}, hits
    for i in range(len(P) - 1):
        for x in (P[i][0] + P[i + 1][0], P[i][1] + P[i + 1][1]):
            if q in x:
                return {'pages': [i + 1, i + 2]}, [i + 1]
    return None, []

# ---------------------------------------------------------------- case file lists
CUAD = 'legal_span_bench/corpus/cuad/'
NLI = 'legal_span_bench/corpus/contractnli/'
CT = 'legal_docs_us_courts/'

cuad_targets = {
 'adams': 'ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.txt',
 'atmos': 'ATMOSENERGYCORP_11_22_2002-EX-10.17-TRANSPORTATION SERVICE AGREEMENT.txt',
 'blackbox': 'BLACKBOXSTOCKSINC_08_05_2014-EX-10.1-DISTRIBUTOR AGREEMENT.txt',
 'centrack': 'CENTRACKINTERNATIONALINC_10_29_1999-EX-10.3-WEB SITE HOSTING AGREEMENT.txt',
 'driven': 'DRIVENDELIVERIES,INC_05_22_2020-EX-10.4-CONSULTING AGREEMENT.txt',
 'gainsco': 'GAINSCOINC_01_21_2010-EX-10.41-SPONSORSHIP AGREEMENT.txt',
 'jingwei': 'JINGWEIINTERNATIONALLTD_10_04_2007-EX-10.7-INTELLECTUAL PROPERTY AGREEMENT.txt',
 'lightbridge': 'LIGHTBRIDGECORP_11_23_2015-EX-10.26-STRATEGIC ALLIANCE AGREEMENT.txt',
 'merit': 'MERITLIFEINSURANCECO_06_19_2020-EX-10.(XIV)-MASTER SERVICES AGREEMENT.txt',
 'southernstar': 'SouthernStarEnergyInc_20051202_SB-2A_EX-9_801890_EX-9_Affiliate Agreement.txt',
 'ultragenyx': 'ULTRAGENYXPHARMACEUTICALINC_12_23_2013-EX-10.9-SUPPLY AGREEMENT.txt',
 'uagh': 'UAGHINC_04_14_2004-EX-10.18-MAINTENANCE AGREEMENT.txt',
 'tuniu': 'TUNIUCORP_03_06_2014-EX-10-COOPERATION AGREEMENT.txt',
 'smaaash': 'SimplicityEsportsGamingCompany_20181130_8-K_EX-10.1_11444071_EX-10.1_Franchise Agreement.txt',
 'fulucai': 'FulucaiProductionsLtd_20131223_10-Q_EX-10.9_8368347_EX-10.9_Content License Agreement.txt',
 'borrow': 'BORROWMONEYCOM,INC_06_11_2020-EX-10.1-JOINT VENTURE AGREEMENT.txt',
 'gocall': 'GOCALLINC_03_30_2000-EX-10.7-Promotion Agreement.txt',
 'bravatek': 'BravatekSolutionsInc_20170418_8-K_EX-10.1_10205739_EX-10.1_Reseller Agreement.txt',
}
cuad_all = sorted(os.listdir(os.path.join(DATA, CUAD)))
excl = re.compile(r'HOSTING|TEARDROP|ARMSTRONG|Hosting', re.I)
pool = [f for f in cuad_all if f not in cuad_targets.values() and not excl.search(f)]
cuad_distr = sorted(random.Random(20261125).sample(pool, 37))
contracts_files = sorted(CUAD + f for f in list(cuad_targets.values()) + cuad_distr)

nda_targets = {
 'kdol': 'Confidentiality_and_Non-Disclosure_Agreement_Rev_10-20-16.txt',
 'bcg': 'BCG-Mutual-NDA.txt',
 'scam': '1073090_0001356564-06-000012_sorell10ksbamend2x102.txt',
 'noreserv': 'NDA-No-Reservations-Layer-8-Security.txt',
 'gps': 'Attachment 9 -  Non Disclosure Agreement (Version 1).txt',
 'oisair': '09-24-2019-04-25-05-3914910473.txt',
 'fronius': 'C_TERMS_NDA_EN.txt',
 'fau': 'Confidentiality%20Non-Disclosure%20and%20Appropriate%20Use%20Agreement%20-%20FAU.01082016.txt',
 'samed': 'SAMED%20confidentiality%20non%20disclosure%20and%20conflict%20of%20interest%20agreement%20for%20board%20and%20committee%20members%20ver%201.txt',
 'nkp': '59b1148ff6952b0001bdbedc_20170907_non%20disclosure%20agreement_expert.txt',
 'firstfin': '1041550_0001193125-19-004977_d663808dex106.htm.txt',
 'ptl': 'CON-NDA-PTL-01-2012-v1%20Non-Disclosure%20Agreement%20and%20Checklist.txt',
 'ictsc': 'ICTSC-NDA-General-MandA-signed.txt',
 'va': '36C25520Q0076-013.txt',
 'maryland': 'Attachment-I-Non-DisclosureAgreementContractor.txt',
 'ahpl': '1438076025NDA_28072015%20-%20AHPL.txt',
 'pjm': '20150916-model-sharing-non-disclosure-agreement.txt',
 'fmo': 'Annex 18 - Non-Disclosure Agreement.txt',
}
nda_distr = [
 'Data_Use_and_Non_Disclosure_Data_Disclosed_to_MDCH_Trauma_Registry_Final_465518_7.txt', 'BaconNon-Disclosure.txt',
 'Attachment%203%20-%20Confidentiality%20Release%20Form_201504131404512865.txt', '41629_1.txt',
 'confidentialityandnondisclosureagreement.txt', '12032018_NDA_The%20Munt_EN.txt', 'MNDA.txt',
 '1367408_0001367408-06-000002_risb2ex106.htm.txt', '5bfbcabf0627e70bdcfc5b32_nda-ready4s.txt',
 '1023734_0000912057-96-023266_document_16.txt', 'Clause-de-non-divulgation.txt',
 'amc-general-mutual-non-disclosure-agreement-en-gb.txt', '1100772_0001038838-02-000125_ex1032sb2no5.txt',
 'BOMI%20Non-Disclosure%20Agreement.txt', 'confagree.txt', '1010471_0000950134-97-006281_document_5.txt', '183.txt',
 'NDA_Street_Stream_Franchise.txt', '5-Appendix-Non-Disclosure-Agreement-Mutual.txt',
 'Confidentiality%20and%20Non-Disclosure%20Agreement.txt', 'casino-nondisclosure-agmt.txt',
 'NDA-Template-Media-News-Group-inc.txt', 'Confidentiality_Non-Disclosure_Agreement.txt', 'ceii-and-nda.txt',
 'CA-Nov14-Doc.5.14%20-%20Template%20Confidentiality%20Agreement.txt',
 '1588052992CCTV%20Non%20Disclosure%20Agreement.txt', 'Business-Sale-Non-Disclosure-Agreement.txt',
 '1050277_0001047469-99-000663_document_7.txt', 'buyer_profile.txt', 'Non-Disclosure-Secrecy-Agreement.txt',
 'Confidentiality_Agreement_1.txt', 'NDA_ResConnect.txt',
]
nda_files = sorted(NLI + f for f in list(nda_targets.values()) + nda_distr)

court_targets = {
 'gift': CT + 'broken-mime.pdf',
 'rect_no': CT + 'x-ray/rectangles_no.pdf',
 'rect_yes': CT + 'x-ray/rectangles_yes.pdf',
 'jef': CT + 'extra_from_history/fd/JEF_format.pdf',
}
court_distr = [CT + p for p in [
 'recap_documents/ca10_010110462922.pdf', 'recap_documents/ca1_00117684624.pdf', 'recap_documents/ca2_1-1.pdf',
 'recap_documents/ca3_003112692106.pdf', 'recap_documents/ca5_00516242060.pdf', 'recap_documents/ca6_1-3.pdf',
 'recap_documents/ca7_3.pdf', 'recap_documents/ca8_.pdf', 'recap_documents/ca9_19.pdf', 'recap_documents/cafc_3.pdf',
 'recap_extract/gov.uscourts.azd.1085839.3.0.pdf', 'recap_extract/gov.uscourts.cacd.652774.40.0.pdf',
 'extra_from_history/recap_issues/gov.uscourts.cand.16711.199.0.pdf',
 'extra_from_history/recap_issues/gov.uscourts.njd.387907.32.0.pdf',
 'extra_from_history/recap_issues/gov.uscourts.nysd.413741.11.0.pdf', 'missouri.pdf', 'vector-pdf.pdf',
 'extra_from_history/fd/2003-judicial-watch.pdf', 'extra_from_history/fd/Alquist-NV-18.pdf',
 'extra_from_history/opinion_text.txt']]
cuad_pdfs = []
for r, d, fs in os.walk(os.path.join(DATA, 'legal_span_bench/cuad_pdf')):
    for f in fs:
        if f.lower().endswith('.pdf'):
            cuad_pdfs.append(os.path.relpath(os.path.join(r, f), DATA))
cuad_pdf_distr = sorted(random.Random(7).sample(sorted(cuad_pdfs), 15))
courts_files = sorted(list(court_targets.values()) + court_distr + cuad_pdf_distr)

PT_DOCS = {k: './docs/%s.txt' % k for k in [
 'contrato_honorarios_advocaticios', 'contrato_locacao_comercial', 'peticao_inicial_danos_morais',
 'contestacao_atraso_obra', 'sentenca_plano_saude', 'acordao_apelacao_queda_supermercado',
 'notificacao_extrajudicial_transporte', 'ata_audiencia_acordo_trabalhista']}
lener = sorted('lener_br/raw_text/' + f for f in os.listdir(os.path.join(DATA, 'lener_br/raw_text')) if f.endswith('.txt'))
pt_files = sorted(PT_DOCS.values()) + lener

CASES = {
 'contracts_txt': {'language': 'en', 'files': contracts_files},
 'ndas': {'language': 'en', 'files': nda_files},
 'courts_en': {'language': 'en', 'files': courts_files},
 'pt': {'language': 'pt', 'files': pt_files},
}

# ---------------------------------------------------------------- questions
# (case, kind, gold_key, question, answer_quote, answer)
Q = []
def add(case, kind, file, question, quote, answer):
    Q.append(dict(case=case, kind=kind, file=file, question=question, quote=quote, answer=answer))

C = lambda k: CUAD + cuad_targets[k]
# contracts_txt -------------------------------------------------------------
add('contracts_txt', 'low_overlap', C('adams'),
    "Our golfer says the clubs the manufacturer gives him just aren't good enough for tour play. Once he tells them in writing, what are their options and how long do they have?",
    "ADAMS GOLF shall have a period of thirty (30) days to either, at ADAMS GOLF'S sole discretion, supply CONSULTANT with MANDATORY PRODUCT that is acceptable to him or terminate the agreement",
    "Adams Golf has 30 days, at its sole discretion, either to supply acceptable mandatory product or to terminate the agreement (compensation then prorated).")
add('contracts_txt', 'names_document', C('atmos'),
    "Under the May 1992 Transportation Service Agreement between Arkansas Western Pipeline Company and Associated Natural Gas Company, once the ten-year primary term ends, how much notice is needed to terminate for firm versus interruptible service?",
    "sixty (60) days for interruptible transportation under Rate Schedule ITS and 180 days for firm transportation under Rate Schedule FTS",
    "After the primary term it runs month to month; termination needs 60 days' notice for interruptible (ITS) service and 180 days for firm (FTS) service.")
add('contracts_txt', 'low_overlap', C('blackbox'),
    "How long is the South American distributor protected if the nasal suction devices turn out to be badly made?",
    "free from defects in material or workmanship under normal use and service for a period of ninety (90) days from the date of delivery",
    "The products are warranted free from defects in material or workmanship for 90 days from delivery (defects to be replaced within 60 days at the Company's cost).")
add('contracts_txt', 'plain', C('centrack'),
    "Under a web site hosting arrangement, what hourly rate is charged for website administration work beyond the free monthly allowance?",
    "Additional Web site administration services will be billed at $200 per hour.",
    "$200 per hour (one hour per month is included at no charge).")
add('contracts_txt', 'names_document', C('driven'),
    "What monthly fee does Driven Deliveries pay TruckThat LLC under their May 2019 Consulting Agreement?",
    "The Company shall pay Consultant a flat fee consulting rate of $18,000 per month.",
    "A flat consulting fee of $18,000 per month.")
add('contracts_txt', 'names_document', C('gainsco'),
    "In GAINSCO's 2010 Sponsorship Agreement with Bob Stallings Racing, what employers liability limits must the racing team carry?",
    "Employers Liability—$5,000,000 each employee for bodily injury by accident and $500,000 each employee for bodily injury by disease.",
    "$5,000,000 per employee for bodily injury by accident and $500,000 per employee for bodily injury by disease.")
add('contracts_txt', 'low_overlap', C('jingwei'),
    "If the Shenzhen licensee builds its own enhancements on top of the licensed billing software, who ends up owning them?",
    "Party A owns the sole and exclusive right of the intellectual property, including any improvement, upgrades and derived products, no matter whether such products are created by Party A or Party B.",
    "The licensor (Party A, JingWei HengTong) owns all improvements, upgrades and derived products, even those created by the licensee; this survives termination.")
add('contracts_txt', 'names_document', C('lightbridge'),
    "Under the 2012 Strategic Alliance Agreement between Lightbridge Corporation and Lloyd's Register, how long can an involuntary bankruptcy petition against a party stay pending before it becomes an Event of Default?",
    "which, in the case of an involuntary petition or proceeding, remains undismissed and unstayed for 90 days",
    "An involuntary petition is an Event of Default if it remains undismissed and unstayed for 90 days.")
add('contracts_txt', 'low_overlap', C('merit'),
    "When nothing is currently in progress for us, can either side simply walk away from the management consulting relationship, and with how much warning?",
    "At any time that there is no uncompleted Statement of Work outstanding, either party may terminate this Agreement for any or no reason upon fifteen (15) days advance notice to the other.",
    "Yes. When no uncompleted Statement of Work is outstanding, either party may terminate for any or no reason on 15 days' advance notice.")
add('contracts_txt', 'plain', C('southernstar'),
    "What extra service fee does the download-sales provider keep on each software sale made through its affiliate management program?",
    "element 5 shall receive an additional service fee of 2% of the gross sales price",
    "An additional service fee of 2% of the gross sales price (plus the advertising cost compensation and VAT where applicable).")
add('contracts_txt', 'low_overlap', C('ultragenyx'),
    "If we and our German oleochemical supplier can't settle next year's per-kilo cost in time, can they hold back shipments?",
    "If the parties cannot agree on a price for the Product by the beginning of a following contract year, Cremer may refuse to deliver the Product to Ultragenyx until the Parties agreed on a respective price.",
    "Yes. If no price is agreed by the start of the next contract year, Cremer may refuse to deliver the triheptanoin until a price is agreed.")
add('contracts_txt', 'names_document', C('uagh'),
    "Under the July 2003 Maintenance Agreement between Universal Access, Inc. and CityNet Telecommunications, what service fee does Universal Access pay during the first twelve months?",
    "the Company shall pay to the Provider $40,000 per month in exchange for the Services",
    "$40,000 per month, increased on each anniversary by the Provider's actual cost increases; repairs billed at cost plus 10%.")
add('contracts_txt', 'plain', C('tuniu'),
    "What late-payment charge applies if the online tour-products company fails to pay the quarterly technical service fee on time?",
    "pay Party B the liquidated damages at a daily interest rate of 0.03%",
    "Liquidated damages at a daily rate of 0.03% on the outstanding amount, in addition to paying the fee in full.")
add('contracts_txt', 'names_document', C('smaaash'),
    "Under the Master Franchise Agreement between Smaaash Entertainment and I-AM Capital Acquisition Company, how much notice must the franchisor give before auditing the franchisee or inspecting the centres?",
    "Franchisor shall have the right to conduct audits of Franchisee with respect to the Smaaash Centres, and inspect the Smaaash Centres, after providing a written notice of 5 (five) days.",
    "Five days' written notice.")
add('contracts_txt', 'low_overlap', C('fulucai'),
    "If the filmmaker doesn't go after pirates copying the film, can the streaming channel step in itself, and who keeps any money recovered?",
    "If the Producer does not fulfill its obligation in Section 8(a) above, ConvergTV shall have the right, but not the obligation, to take such action as ConvergTV deems reasonable under the circumstances",
    "Yes. ConvergTV may act (as the producer's attorney-in-fact) against unauthorised use, and any damages or settlement payments from its action belong to ConvergTV.")
add('contracts_txt', 'plain', C('borrow'),
    "In a joint venture where a member advances the venture more money than its agreed capital contribution, is the excess treated as extra capital or as a loan?",
    "will be deemed a debt due from the Venture rather than an increase in Capital Contribution of the Member",
    "It is a debt owed by the Venture (repayable with interest set by a majority of members), not an increase in capital, and gives no extra voting power.")
add('contracts_txt', 'plain', C('gocall'),
    "How much co-op marketing money does the paging company pay per redeemed pager in the free-pager promotion?",
    "PageMaster Corporation will pay Go Call $3.00 per pager (beginning with pager # 1) and 5% of all airtime renewal revenue for each pager redeemed",
    "$3.00 per pager from the first pager, plus 5% of airtime renewal revenue for each redeemed pager.")
add('contracts_txt', 'plain', C('bravatek'),
    "For a registered opportunity that the reseller finds itself, at what discount does it buy the cybersecurity email software from the company?",
    "will purchase directly from the \"Company\" at a 25% discount off the COMPANY-RESELLER AGREED UPONsale price",
    "At a 25% discount off the agreed sale price (with an additional 4% discount if sold through SEWP).")

N = lambda k: NLI + nda_targets[k]
# ndas -------------------------------------------------------------------
add('ndas', 'names_document', N('kdol'),
    "Under the Kansas Department of Labor confidentiality and non-disclosure agreement (Rev 10/20/16), how must microfilm and microfiche containing confidential information be destroyed?",
    "Microfilm and microfiche must be shredded to effect 1/35-inch by 3/8-inch strips.",
    "Shredded into 1/35-inch by 3/8-inch strips.")
add('ndas', 'names_document', N('bcg'),
    "Under The Bleecker Consulting Group's Mutual Non-Disclosure Agreement, how long after termination are the parties barred from recruiting each other's employees?",
    "During the term of the agreement and for a period of twelve (12) months thereafter, each party agrees not to solicit or recruit any employee of each other",
    "During the term and for twelve months afterwards.")
add('ndas', 'names_document', N('scam'),
    "In the 2005 Mutual Non-Disclosure & Business Agreement between S-CAM Co. and ANUBIS Electronic GmbH, how long are defective products warranted?",
    "Any products purchased from SCAM which become defective will be Warranted to ANUBIS for a period of 24 months from the date of shipment to ANUBIS.",
    "24 months from the date of shipment to ANUBIS (repair or replacement by SCAM).")
add('ndas', 'names_document', N('noreserv'),
    "Under the No Reservations Pty Ltd (Layer 8 Security) mutual NDA, how long do the confidentiality obligations last after the agreement ends?",
    "shall survive for three (3) years following the expiration or termination of this Agreement",
    "Three years after expiration or termination (longer for trade secrets).")
add('ndas', 'names_document', N('gps'),
    "Under the Government Procurement Service NDA for price benchmarking services (RM 1160), may the Authority pass the organisation's confidential information on to other government bodies?",
    "to another Crown Body provided that the Authority or relevant Crown Body informs the recipient Crown Body of the confidential nature of the Confidential Information",
    "Yes, to another Crown Body, provided the recipient is told the information is confidential (also under FOIA/EIRs, audit, or to investigators of serious crime).")
add('ndas', 'names_document', N('oisair'),
    "Under the OISAIR project two-way confidentiality agreement signed through the Innovair platform, when does the agreement end and how can a party leave earlier?",
    "This Agreement shall terminate 5 (five) years after the Effective Date",
    "It terminates five years after the Effective Date; a party may withdraw earlier on 30 days' written notice by registered letter.")
add('ndas', 'low_overlap', N('fronius'),
    "Are we allowed to take apart and study the sample units the welding and battery-charger maker ships to us?",
    "Models sent must not be analysed.",
    "No. Models sent by Fronius must not be analysed (and documents may not be copied without written consent).")
add('ndas', 'low_overlap', N('fau'),
    "Can clinic staff chat about a patient in the elevator or hallway as long as they leave out the person's name?",
    "it is strictly prohibited to discuss any FAU Confidential Information or PHI in public areas even if a patient’s name is not used",
    "No. Discussing confidential information or PHI in public areas is strictly prohibited even if the patient's name is not used.")
add('ndas', 'low_overlap', N('samed'),
    "If the directors think one of their colleagues is sitting on an undeclared personal stake in a deal, what vote do they need to formally say so?",
    "by a resolution carried by two-thirds of the members present and voting at the meeting, that a conflict of interest exists",
    "A resolution carried by two-thirds of the members present and voting; the member must then declare, abstain and withdraw if asked.")
add('ndas', 'low_overlap', N('nkp'),
    "If the Copenhagen knowledge broker asks the specialist to hand back its papers, how quickly must that happen?",
    "within five (5) days from such request, return all documentation and other materials containing any Confidential Information",
    "Promptly and in any case within five days of the request (or destroy/erase at the discloser's option).")
add('ndas', 'low_overlap', N('firstfin'),
    "Does the merger-related covenant stop the banker from simply going to work for a rival bank?",
    "This Agreement is not intended to prevent Employee from accepting employment with an organization that competes with the Banking Organizations",
    "No. The agreement does not bar accepting employment with a competitor; it restricts soliciting customers, employees and use of confidential information.")
add('ndas', 'low_overlap', N('ptl'),
    "Once the bid is over, do we have to hand back the analyses our own team wrote from the owner's RFP materials?",
    "the Receiving Party shall not be obliged to return or destroy any derivative materials or reports prepared by the Receiving Party for the Permitted Purpose",
    "No. Derivative materials and reports prepared for the Permitted Purpose need not be returned or destroyed, but stay confidential.")
add('ndas', 'plain', N('ictsc'),
    "In an NDA for a potential purchase or sale of Australian ICT businesses, how quickly must the recipient return confidential information after a written request?",
    "Within 7 days of a written request by the Discloser, the Recipient must return all Confidential Information, and provide a signed certificate",
    "Within 7 days, with a signed certificate that all confidential information has been returned.")
add('ndas', 'plain', N('va'),
    "Under a federal contractor NDA covering access to agency data and computer systems, in what situations may the contractor disclose the agency's sensitive information outside performance of the contract?",
    "in only two situations: (1) pursuant to an order of a court of competent jurisdiction; or (2) with VA's prior written authorization",
    "Only under a court order of competent jurisdiction or with VA's prior written authorization.")
add('ndas', 'plain', N('maryland'),
    "Under a state-government contractor NDA, what must the contractor do before sharing confidential information with non-employee agents helping on the contract?",
    "the Contractor shall first obtain the written consent of the State",
    "It must first obtain the State's written consent.")
add('ndas', 'plain', N('ahpl'),
    "What interest rate applies to an arbitration award under the Singapore-law NDA protecting the hospital group's patient information?",
    "Interest at the annual rate of six per cent (6%) per annum will be due and payable to the party in receipt of an arbitration award",
    "Six per cent per annum.")
add('ndas', 'plain', N('pjm'),
    "How much notice does a transmission owner need to give to withdraw from the NDA governing the exchange of energy management system model data?",
    "A Party may withdraw from this Agreement on 30-day notice by giving notice to all Parties",
    "30 days' notice to all parties (certifying return/destruction of confidential information).")
add('ndas', 'plain', N('fmo'),
    "Can the Dutch development bank share a company's confidential information with others considering participating in financing the project?",
    "FMO may disclose the Confidential Information to any person that: 4.2.1 considers taking, or is taking, a Transaction Interest and/or; 4.2.2 considers making, or is making, any other contribution to the financing of the Project",
    "Yes. FMO may disclose it to any person considering or taking a Transaction Interest or otherwise contributing to the financing, if bound by confidentiality obligations.")

G = court_targets
# courts_en ----------------------------------------------------------------
add('courts_en', 'names_document', G['gift'],
    "In Gift Surplus, LLC v. State ex rel. Cooper (2022-NCSC-1), what standard of review did the North Carolina Supreme Court adopt for whether chance or skill predominates in a game?",
    "is a mixed question of fact and law and is therefore reviewed de novo when there is no factual dispute about how a game is played",
    "It is a mixed question of fact and law reviewed de novo when there is no factual dispute about how the game is played.")
add('courts_en', 'names_document', G['gift'],
    "In the Gift Surplus v. State ex rel. Cooper opinion, which canon of construction did the court apply to the statute's catch-all provision on video games?",
    "The canon of construction ejusdem generis provides",
    "Ejusdem generis: the listed games are games of chance, so only sweepstakes through video games of chance are prohibited.")
add('courts_en', 'names_document', G['gift'],
    "Which justices did not take part in the North Carolina Supreme Court's Gift Surplus, LLC v. State ex rel. Cooper decision?",
    "Justices ERVIN and BERGER did not participate in the consideration or decision of this case.",
    "Justices Ervin and Berger.")
add('courts_en', 'names_document', G['gift'],
    "In Gift Surplus v. State ex rel. Cooper, what early case about ten pins did the court describe as its first application of the predominant-factor test?",
    "our first decision enunciating and applying the predominant-factor test to a game of “ten pins,” or modern-day bowling",
    "State v. Gupton, 30 N.C. 271 (1848), on ten pins (bowling).")
add('courts_en', 'low_overlap', G['gift'],
    "How much in unredeemed paper credits did a deputy find thrown in the trash at one of the arcade locations?",
    "found over $10,000 of unused e-credit receipts",
    "Over $10,000 of unused e-credit receipts.")
add('courts_en', 'low_overlap', G['gift'],
    "According to the game designer's own testing witness, how often did people line the symbol up correctly with one tap?",
    "players correctly nudged the reel into place between 86% and 90% of the time",
    "Between 86% and 90% of the time.")
add('courts_en', 'low_overlap', G['gift'],
    "Who mainly shops at the convenience stores where these kiosks were installed?",
    "The establishments are predominantly patronized by low-income customers",
    "Predominantly low-income customers, whom Gift Surplus identified as its target demographic.")
add('courts_en', 'low_overlap', G['gift'],
    "Does the online gift shop behind the kiosks actually keep goods in stock?",
    "does not maintain an inventory of the products it advertises and instead buys products as necessary to fill orders as a drop shipping business",
    "No. It keeps no inventory and buys products as needed to fill orders (drop shipping).")
add('courts_en', 'plain', G['gift'],
    "What two changes did the sweepstakes kiosk company make to its games after the case was remanded to the trial court?",
    "Gift Surplus made two changes to its games",
    "A 'winner-every-time' feature awarding a token prize of a few cents, and a 'double nudge' requiring two symbols to be nudged.")
add('courts_en', 'plain', G['gift'],
    "Did the North Carolina Supreme Court decide whether the video sweepstakes games also amount to illegal gambling?",
    "we decline to reach this issue, which was also not reached by the Court of Appeals",
    "No. Having held the game violates the sweepstakes statute, it declined to reach the gambling question.")
add('courts_en', 'plain', G['gift'],
    "Which North Carolina poker case held that no amount of skill can change a deuce into an ace?",
    "Joker Club, L.L.C. v. Hardin, 183 N.C. App. 92, 99 (2007)",
    "Joker Club, L.L.C. v. Hardin, 183 N.C. App. 92 (2007).")
add('courts_en', 'plain', G['gift'],
    "How does N.C.G.S. § 14-306.4 define a sweepstakes?",
    "a sweepstakes is defined as “any game, advertising scheme or plan, or other promotion, which, with or without payment of any consideration, a person may enter to win or become eligible to receive any prize, the determination of which is based upon chance.”",
    "Any game, advertising scheme or plan, or other promotion which a person may enter, with or without consideration, to win a prize determined by chance.")
add('courts_en', 'names_document', G['rect_no'],
    "In Berkshire Life Insurance Company of America v. Anna Schubert (D. Colo. 2021), where does the complaint say Berkshire has its principal place of business?",
    "with its principal place of business located at 700 South Street, Pittsfield, Massachusetts 01201",
    "700 South Street, Pittsfield, Massachusetts 01201.")
add('courts_en', 'low_overlap', G['rect_no'],
    "In the life insurer's suit to unwind the doctor's coverage, in which state did the underlying events happen?",
    "It is also authorized to transact the business of insurance in the State of North Carolina where the events at issue occurred.",
    "North Carolina.")
add('courts_en', 'low_overlap', G['rect_yes'],
    "When did the physician sign the paper confirming she had received her disability coverage?",
    "On or about June 6, 2019, Dr. Schubert signed a Delivery Receipt",
    "On or about June 6, 2019 (Delivery Receipt acknowledging delivery and acceptance of the Policies).")
add('courts_en', 'plain', G['rect_yes'],
    "How did Dr. Schubert answer the medical examiner's question about whether she had a physical exam or check-up in the past five years?",
    "She answered “Yes”, but did not disclose all relevant medical history.",
    "She answered 'Yes' but did not disclose all relevant medical history.")
add('courts_en', 'names_document', G['jef'],
    "In Judge Carlos F. Lucero's 2018 financial disclosure report, what non-investment income did he report from his professional corporation?",
    "Carlos F. Lucero, P.C. - Annuity payments received for prior services Annuity payments $22,300",
    "$22,300 in annuity payments from Carlos F. Lucero, P.C. for prior services to former clients.")
add('courts_en', 'plain', G['jef'],
    "According to the judge's 2018 disclosure comments, when, for how much and from whom was the land interest purchased?",
    "Land was purchased on January 1, 2013 for $50,174 from the estate of Maria Medina",
    "On January 1, 2013, for $50,174, from the estate of Maria Medina (mortgage paid in full in 2018).")

P = PT_DOCS
# pt --------------------------------------------------------------------------
add('pt', 'names_document', P['contrato_honorarios_advocaticios'],
    "No contrato de honorários firmado entre a Metalúrgica Vale do Sapucaí e a Albuquerque Teixeira & Moraes Sociedade de Advogados, qual é o percentual da verba de êxito e sobre que base incide?",
    "honorários de êxito correspondentes a 15% (quinze por cento) do proveito econômico efetivamente obtido",
    "15% do proveito econômico efetivamente obtido (débito afastado na execução fiscal e créditos reconhecidos na ação declaratória).")
add('pt', 'low_overlap', P['contrato_honorarios_advocaticios'],
    "Se a metalúrgica dispensar o escritório sem motivo antes de os processos acabarem, ainda terá de quitar as parcelas fixas que faltam?",
    "serão devidos integralmente os honorários pró-labore previstos no item 4.1, ainda que não vencidos",
    "Sim. Na resilição imotivada pela cliente, o pró-labore é devido integralmente, ainda que não vencido, e o êxito proporcionalmente.")
add('pt', 'low_overlap', P['contrato_locacao_comercial'],
    "Quando a padaria sair do ponto, poderá cobrar do dono do prédio o que gastou com as reformas?",
    "a LOCATÁRIA renuncia expressamente ao direito de indenização e de retenção por quaisquer benfeitorias realizadas no imóvel",
    "Não. A locatária renunciou à indenização e à retenção por benfeitorias (art. 35 da Lei 8.245/91), podendo apenas retirar equipamentos removíveis.")
add('pt', 'plain', P['contrato_locacao_comercial'],
    "Com quanta antecedência a locatária de imóvel comercial deve avisar que não pretende renovar a locação, segundo o contrato da padaria?",
    "com antecedência mínima de 120 (cento e vinte) dias do término do prazo contratual",
    "Com no mínimo 120 dias de antecedência do término do prazo contratual.")
add('pt', 'names_document', P['peticao_inicial_danos_morais'],
    "Na ação declaratória movida por Marinalva Souza Prates contra a Conecta Brasil Telecomunicações S.A., qual multa diária foi requerida para o descumprimento da tutela de urgência?",
    "sob pena de multa diária de R$ 500,00 (quinhentos reais), limitada, inicialmente, a R$ 10.000,00 (dez mil reais)",
    "R$ 500,00 por dia, limitada inicialmente a R$ 10.000,00, para exclusão do nome em 48 horas.")
add('pt', 'plain', P['peticao_inicial_danos_morais'],
    "Qual valor foi atribuído à causa na ação de inexistência de débito por negativação indevida contra a operadora de telefonia, e como ele foi composto?",
    "Atribui-se à causa o valor de R$ 16.347,82",
    "R$ 16.347,82: soma do débito impugnado (R$ 1.347,82) e da indenização pedida (R$ 15.000,00), art. 292, II e VI, do CPC.")
add('pt', 'names_document', P['contestacao_atraso_obra'],
    "Na contestação da Construtora Horizonte Azul no processo nº 1012345-67.2023.8.26.0564, qual valor mensal de aluguel de unidades semelhantes o laudo do corretor apontou?",
    "era de aproximadamente R$ 2.100,00 (dois mil e cem reais) mensais",
    "Cerca de R$ 2.100,00 por mês (aprox. 0,43% do valor do imóvel).")
add('pt', 'low_overlap', P['contestacao_atraso_obra'],
    "Enquanto esperavam as chaves, o casal comprador tinha gasto com moradia?",
    "residiam em imóvel de propriedade dos pais da coautora, sem pagamento de aluguel",
    "Não, segundo a ré: moravam em imóvel dos pais da coautora, sem pagar aluguel.")
add('pt', 'plain', P['contestacao_atraso_obra'],
    "Segundo a construtora, quantos dias úteis de serviços de fachada e impermeabilização foram perdidos por causa das chuvas acima da média em 2022?",
    "durante 41 (quarenta e um) dias úteis",
    "41 dias úteis.")
add('pt', 'names_document', P['sentenca_plano_saude'],
    "Na sentença do processo nº 0004567-89.2022.8.19.0001 (João Batista Cordeiro x Vida Plena Saúde S.A.), em quanto foi fixada a indenização por danos morais?",
    "fixo a indenização por danos morais em R$ 10.000,00 (dez mil reais)",
    "R$ 10.000,00.")
add('pt', 'plain', P['sentenca_plano_saude'],
    "Segundo a sentença sobre a negativa de cirurgia bariátrica, a quem cabe escolher a técnica cirúrgica para uma doença coberta pelo plano de saúde?",
    "cabe ao médico assistente, e não à operadora de plano de saúde, a escolha da técnica mais adequada ao tratamento da doença coberta",
    "Ao médico assistente, não à operadora.")
add('pt', 'names_document', P['acordao_apelacao_queda_supermercado'],
    "Na Apelação Cível nº 1.0000.23.145678-9/001 do TJMG (Supermercados Bom Preço Mineiro x Terezinha de Jesus Amaral), para quanto foi reduzida a indenização por dano moral?",
    "reduzo a indenização por danos morais para R$ 12.000,00 (doze mil reais)",
    "De R$ 20.000,00 para R$ 12.000,00.")
add('pt', 'low_overlap', P['acordao_apelacao_queda_supermercado'],
    "A cliente idosa estava de sandália de dedo quando escorregou; isso livra a loja de pagar?",
    "O uso de chinelos, por sua vez, não configura conduta imprudente apta a romper o nexo causal",
    "Não. O uso de chinelos não configura imprudência capaz de romper o nexo causal; não houve culpa exclusiva da vítima.")
add('pt', 'plain', P['acordao_apelacao_queda_supermercado'],
    "No julgamento da apelação sobre a queda em supermercado, por que os honorários recursais não foram majorados?",
    "deixo de majorar os honorários advocatícios recursais, na esteira do entendimento firmado pelo Superior Tribunal de Justiça no julgamento do Tema 1.059",
    "Porque o recurso foi parcialmente provido, e pelo Tema 1.059 do STJ a majoração do art. 85, § 11, pressupõe desprovimento ou não conhecimento integral.")
add('pt', 'low_overlap', P['notificacao_extrajudicial_transporte'],
    "Por que os grãos de um dos caminhões chegaram estragados ao porto de Santos?",
    "a lona de cobertura do segundo semirreboque apresentava rasgos extensos, permitindo a entrada de água de chuva durante o trajeto",
    "A lona do segundo semirreboque estava rasgada e deixou entrar chuva, e o veículo ficou cerca de 52 horas em pátio descoberto em Uberlândia.")
add('pt', 'names_document', P['ata_audiencia_acordo_trabalhista'],
    "No acordo homologado no processo nº 1000789-12.2023.5.02.0313 (Edvaldo Pereira Santos x LogMax Armazéns Gerais), qual penalidade incide se uma parcela atrasar?",
    "multa de 50% (cinquenta por cento) sobre o saldo remanescente",
    "Atraso superior a 5 dias gera vencimento antecipado e multa de 50% sobre o saldo remanescente.")
add('pt', 'low_overlap', P['ata_audiencia_acordo_trabalhista'],
    "Se o joelho do empregado piorar depois de fechado o acerto, ele ainda pode voltar a reclamar?",
    "ressalvados os direitos decorrentes de eventual agravamento das lesões resultantes do acidente de trabalho",
    "Sim. A quitação ressalva direitos decorrentes de agravamento das lesões do acidente constatado depois da audiência.")
add('pt', 'plain', P['ata_audiencia_acordo_trabalhista'],
    "Quanto o perito médico receberá pelos trabalhos preliminares depois que a perícia foi cancelada em razão do acordo trabalhista?",
    "fará jus a honorários periciais de R$ 800,00 (oitocentos reais)",
    "R$ 800,00, a cargo da reclamada, em 15 dias.")

# ---------------------------------------------------------------- build + checks
def main():
    errors = []
    for cname, c in CASES.items():
        for f in c['files']:
            if not os.path.exists(abspath(f)):
                errors.append('missing file %s' % f)
    prefix = {'contracts_txt': 'a', 'ndas': 'b', 'courts_en': 'c', 'pt': 'd'}
    counters = {}
    out_q = []
    for q in Q:
        case = q['case']; f = q['file']
        if f not in CASES[case]['files']:
            errors.append('gold file not in case: %s' % f)
        if f in USED:
            errors.append('gold file in used_before: %s' % f)
        if f.lower().endswith('.pdf'):
            loc, hits = locate_pdf(f, q['quote'])
            if loc is None:
                errors.append('quote not found in %s: %s' % (f, q['quote'][:60])); continue
            if len(hits) > 1:
                errors.append('quote on several pages %s %s' % (f, hits))
            gold = dict(file=f, **loc)
        else:
            loc = locate_txt(f, q['quote'])
            if loc is None:
                errors.append('quote not found in %s: %s' % (f, q['quote'][:60])); continue
            gold = dict(file=f, lines=[loc[0], loc[1]])
        gold['answer_quote'] = q['quote']
        # uniqueness of the quote inside the case
        nq = norm(q['quote'])
        for other in CASES[case]['files']:
            if other != f and nq in full_norm(other):
                errors.append('quote also in %s' % other)
        counters[case] = counters.get(case, 0) + 1
        out_q.append({'id': '%s%02d' % (prefix[case], counters[case]), 'case': case,
                      'lang': CASES[case]['language'], 'kind': q['kind'], 'question': q['question'],
                      'gold': gold, 'answer': q['answer']})
    out = {'written': '2026-11-25',
           'description': 'Blind evaluation set (blind3): 4 cases x 18 questions (6 names_document, 6 low_overlap, 6 plain). '
                          'Written without access to the engine. Gold = verbatim answer_quote located on a PDF page or in a 1-based '
                          'inclusive line range of a .txt file (cat -n numbering).',
           'cases': CASES, 'questions': out_q}
    json.dump(out, open(os.path.join(HERE, 'blind_set.json'), 'w', encoding='utf-8'), ensure_ascii=False, indent=1)
    from collections import Counter
    print('questions:', len(out_q), Counter((q['case'], q['kind']) for q in out_q))
    print({k: len(v['files']) for k, v in CASES.items()})
    for e in errors:
        print('ERROR', e)
    sys.exit(1 if errors else 0)

if __name__ == '__main__':
    main()
