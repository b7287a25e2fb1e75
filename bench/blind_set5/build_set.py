#!/usr/bin/env python3
"""Build /work/blind5/blind_set.json.

Holds the four case file lists and the 80 questions with verbatim answer quotes,
locates every gold automatically (PDF -> physical page, TXT -> tightest line window)
and fails loudly on any rule violation.  Stdlib + pdftotext only.
"""
import json, os, subprocess, sys, unicodedata
from collections import Counter

DATA = "/work/shared/data"
HERE = os.path.dirname(os.path.abspath(__file__))
USED = os.path.join(HERE, "used_before.txt")
OUT = os.path.join(HERE, "blind_set.json")

CUADPDF = "legal_span_bench/cuad_pdf/"
CUADTXT = "legal_span_bench/corpus/cuad/"
NLI = "legal_span_bench/corpus/contractnli/"
LENER = "lener_br/raw_text/"

# ----------------------------------------------------------------------------- files
G_ELF = CUADPDF + "Part_III/Collaboration/ELFBEAUTY,INC_07_02_2020-EX-10.1-COOPERATION AGREEMENT.PDF"
G_ANIXA = CUADPDF + "Part_III/Collaboration/ANIXABIOSCIENCESINC_06_09_2020-EX-10.1-COLLABORATION AGREEMENT.PDF"
G_TRUENORTH = CUADPDF + "Part_III/Development/TRUENORTHENERGYCORP_02_08_2007-EX-10.1-DEVELOPMENT AGREEMENT.PDF"
G_HOMEWOOD = CUADPDF + "Part_III/Franchise/HOSPITALITYINVESTORSTRUST,INC_04_07_2014-EX-10.26-FRANCHISE AGREEMENT.PDF"
G_BEYOND = CUADPDF + "Part_III/Hosting/BEYONDCOMCORP_08_03_2000-EX-10.2-CO-HOSTING AGREEMENT.PDF"
G_APCN2 = CUADPDF + "Part_III/Maintenance/TELEGLOBEINTERNATIONALHOLDINGSLTD_03_29_2004-EX-10.10-CONSTRUCTION AND MAINTENANCE AGREEMENT.PDF"
G_ADMA = CUADPDF + "Part_III/Manufacturing/ADMA BioManufacturing, LLC -  Amendment #3 to Manufacturing Agreement .PDF"
G_VAPO = CUADPDF + "Part_III/Manufacturing/VAPOTHERM, INC. - Manufacturing and Supply Agreement.PDF"
G_METLIFE = CUADPDF + "Part_III/Marketing/MetLife, Inc. - Remarketing Agreement.PDF"
G_TOUCHSTAR = CUADPDF + "Part_III/Reseller/WORLDWIDESTRATEGIESINC_11_02_2005-EX-10-RESELLER AGREEMENT.PDF"
G_EXXI = CUADPDF + "Part_III/Transportation/ENERGYXXILTD_05_08_2015-EX-10.13-Transportation AGREEMENT.PDF"

PDF_DISTRACTORS = [CUADPDF + p for p in [
    "Part_III/Collaboration/CHEETAHMOBILEINC_04_22_2014-EX-10.43-Cooperation Agreement.PDF",
    "Part_II/Collaboration/IDREAMSKYTECHNOLOGYLTD_07_03_2014-EX-10.39-Cooperation Agreement on Mobile Game Business.PDF",
    "Part_I/Development/IbioInc_20200313_8-K_EX-10.1_12052678_EX-10.1_Development Agreement.pdf",
    "Part_I/Development/VgrabCommunicationsInc_20200129_10-K_EX-10.33_11958828_EX-10.33_Development Agreement.pdf",
    "Part_III/Development/WARNERCHILCOTTPLC_12_31_2003-EX-4.36-DEVELOPMENT AGREEMENT.PDF",
    "Part_II/Development/BIOAMBERINC_04_10_2013-EX-10.34-DEVELOPMENT AGREEMENT (1).pdf",
    "Part_II/Franchise/BUFFALOWILDWINGSINC_06_05_1998-EX-10.3-FRANCHISE AGREEMENT.PDF",
    "Part_III/Franchise/AIRTECHINTERNATIONALGROUPINC_05_08_2000-EX-10.4-FRANCHISE AGREEMENT.PDF",
    "Part_III/Franchise/INTERNATIONALFASTFOODCORP_04_04_1997-EX-99-FRANCHISE AGREEMENT.PDF",
    "Part_I/Hosting/VitalibisInc_20180316_8-K_EX-10.2_11100168_EX-10.2_Hosting Agreement.pdf",
    "Part_II/Hosting/REGANHOLDINGCORP_03_31_2008-EX-10-LICENSE AND HOSTING AGREEMENT.PDF",
    "Part_II/Hosting/DYNTEKINC_07_30_1999-EX-10-ONLINE HOSTING AGREEMENT.PDF",
    "Part_III/Hosting/BNCMORTGAGEINC_05_17_1999-EX-10.4-LICENSING AND WEB SITE HOSTING AGREEMENT.PDF",
    "Part_III/Hosting/CORIOINC_07_20_2000-EX-10.5-LICENSE AND HOSTING AGREEMENT.PDF",
    "Part_III/Maintenance/ON2TECHNOLOGIES,INC_11_17_2006-EX-10.3-SUPPORT AND MAINTENANCE AGREEMENT.PDF",
    "Part_II/Maintenance/IMAGEWARESYSTEMSINC_12_20_1999-EX-10.22-MAINTENANCE AGREEMENT.PDF",
    "Part_I/Maintenance/HerImports_20161018_8-KA_EX-10.14_9765707_EX-10.14_Maintenance Agreement.pdf",
    "Part_I/Maintenance/AzulSa_20170303_F-1A_EX-10.3_9943903_EX-10.3_Maintenance Agreement2.pdf",
    "Part_I/Manufacturing/NeuroboPharmaceuticalsInc_20190903_S-4_EX-10.36_11802165_EX-10.36_Manufacturing Agreement_ Supply Agreement.pdf",
    "Part_I/Manufacturing/InmodeLtd_20190729_F-1A_EX-10.9_11743243_EX-10.9_Manufacturing Agreement.pdf",
    "Part_III/Manufacturing/Magenta Therapeutics, Inc. - Master Development and Manufacturing Agreement.PDF",
    "Part_III/Marketing/Loop Industries, Inc. - Marketing Agreement.PDF",
    "Part_III/Marketing/Zounds Hearing, Inc. - MANUFACTURING DESIGN MARKETING AGREEMENT.PDF",
    "Part_I/Marketing/EmmisCommunicationsCorp_20191125_8-K_EX-10.6_11906433_EX-10.6_Marketing Agreement.pdf",
    "Part_II/Reseller/LOYALTYPOINTINC_11_16_2004-EX-10.2-RESELLER AGREEMENT.PDF",
    "Part_II/Reseller/OMINTO,INC_03_29_2004-EX-10-RESELLER AGREEMENT.PDF",
    "Part_III/Reseller/DIVERSINETCORP_03_01_2012-EX-4-RESELLER AGREEMENT.PDF",
    "Part_II/Transportation/MPLXLP_06_17_2015-EX-10.1-TRANSPORTATION SERVICES AGREEMENT.PDF",
    "Part_II/Transportation/KENTUCKYUTILITIESCO_03_25_2003-EX-10.65-TRANSPORTATION AGREEMENT.PDF",
    "Part_III/Transportation/MARTINMIDSTREAMPARTNERSLP_01_23_2004-EX-10.3-TRANSPORTATION SERVICES AGREEMENT.PDF",
    "Part_III/Transportation/ENTERPRISEPRODUCTSPARTNERSLP_07_08_1998-EX-10.3-TRANSPORTATION CONTRACT.PDF",
    "Part_II/Transportation/DYNAMEXINC_06_06_1996-EX-10.4-TRANSPORTATION SERVICES AGREEMENT.PDF",
    "Part_III/Supply/INTERSECTENT,INC_05_11_2020-EX-10.1-SUPPLY AGREEMENT.PDF",
]]

T_MOVADO = CUADTXT + "MOVADOGROUPINC_04_30_2003-EX-10.28-ENDORSEMENT AGREEMENT.txt"
T_PRUD = CUADTXT + "PrudentialBancorpInc_20170606_8-K_EX-10.4_10474434_EX-10.4_Endorsement Agreement.txt"
T_HOLIDAY = CUADTXT + "HOLIDAYRVSUPERSTORESINC_04_15_2002-EX-10.13-ENDORSEMENT AGREEMENT.txt"
T_TEARDROP = CUADTXT + "TEARDROPGOLFCO_10_23_1996-EX-10.12-ENDORSEMENT AGREEMENT.txt"
T_JENNER = CUADTXT + "MARSHALLHOLDINGSINTERNATIONAL,INC_04_14_2004-EX-10.15-ENDORSEMENT AGREEMENT.txt"
T_NANTZ = CUADTXT + "ASHWORTHINC_01_29_1999-EX-10.(D)-PROMOTION AGREEMENT AND NANTZ COMMUNICATIONS, INC..txt"
T_TORVEC = CUADTXT + "CURAEGISTECHNOLOGIES,INC_05_26_2010-EX-1-CORPORATE SPONSORSHIP AGREEMENT.txt"
T_HYDRON = CUADTXT + "HYDRONTECHNOLOGIESINC_03_31_1997-EX-10.47-SPONSORSHIP AGREEMENT.txt"
T_TICKETS = CUADTXT + "TICKETSCOMINC_06_22_1999-EX-10.22-SPONSORSHIP AGREEMENT.txt"

TXT_DISTRACTORS = [CUADTXT + p for p in [
    "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.txt",
    "SPORTHALEYINC_09_29_1997-EX-10.2-10-ENDORSEMENT AGREEMENT.txt",
    "WOMENSGOLFUNLIMITEDINC_03_29_2000-EX-10.13-ENDORSEMENT AGREEMENT.txt",
    "AMBASSADOREYEWEARGROUPINC_11_17_1997-EX-10.28-ENDORSEMENT AGREEMENT.txt",
    "BerkshireHillsBancorpInc_20120809_10-Q_EX-10.16_7708169_EX-10.16_Endorsement Agreement.txt",
    "ThriventVariableInsuranceAccountB_20190701_N-6_EX-99.D(IV)_11720968_EX-99.D(IV)_Endorsement Agreement.txt",
    "GridironBionutrientsInc_20171206_8-K_EX-10.1_10972555_EX-10.1_Endorsement Agreement.txt",
    "LifewayFoodsInc_20160316_10-K_EX-10.24_9489766_EX-10.24_Endorsement Agreement.txt",
    "PerformanceSportsBrandsInc_20110909_S-1_EX-10.10_7220214_EX-10.10_Endorsement Agreement.txt",
    "MOSSIMOINC_04_14_2000-EX-10.14-ENDORSEMENT AGREEMENT.txt",
    "WARNINGMANAGEMENTSERVICESINC_12_10_1999-EX-10-ENDORSEMENT AGREEMENT.txt",
    "PharmagenInc_20120803_8-KA_EX-10.1_7693204_EX-10.1_Endorsement Agreement.txt",
    "LegacyEducationAllianceInc_20141110_8-K_EX-10.9_8828866_EX-10.9_Endorsement Agreement.txt",
    "EcoScienceSolutionsInc_20171117_8-K_EX-10.1_10956472_EX-10.1_Endorsement Agreement.txt",
    "GAINSCOINC_01_21_2010-EX-10.41-SPONSORSHIP AGREEMENT.txt",
    "LOGANSROADHOUSEINC_03_27_1998-EX-10.17-SPONSORSHIP AGREEMENT.txt",
    "GSVINC_05_15_1998-EX-10-SPONSORSHIP AGREEMENT.txt",
    "PROLONGINTERNATIONALCORP_03_23_1998-EX-10.16-SPONSORSHIP AGREEMENT.txt",
    "CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.txt",
    "XLITECHNOLOGIES,INC_12_11_2015-EX-10.1-Sponsorship Agreement.txt",
    "STAMPSCOMINC_06_24_1999-EX-10.18-SPONSORSHIP AGREEMENT.txt",
    "MERCATAINC_03_09_2000-EX-10.21-SPONSORSHIP AGREEMENT.txt",
    "IVILLAGEINC_03_17_1999-EX-10.16-SPONSORSHIP AGREEMENT.txt",
    "VNUE,INC_07_10_2015-EX-10.1-SPONSORSHIP AGREEMENT.txt",
    "RUBIOSRESTAURANTSINC_03_31_2008-EX-10.75-SPONSORSHIP AGREEMENT.txt",
    "SONUSCORP_03_12_1997-EX-10.11-SPONSORSHIP AGREEMENT.txt",
    "GOCALLINC_03_30_2000-EX-10.7-Promotion Agreement.txt",
    "CYBERIANOUTPOSTINC_07_09_1998-EX-10.13-PROMOTION AGREEMENT.txt",
]]

N_NOVELL = NLI + "1042282_0000893220-02-000791_e61414toexv99wxdywx1y.txt"
N_PACKETEER = NLI + "1011344_0001193125-08-097987_dex99d5.htm.txt"
N_ORACLE = NLI + "1001113_0000950134-07-005231_f27921orexv99wxdyx3y.htm.txt"
N_MPD = NLI + "65781_0000950123-00-009565_y41542ex99-d_3.txt"
N_MSFT = NLI + "1125892_0000950133-00-004441_w41075a1ex10-7.txt"
N_HALDEX = NLI + "confidentiality_agreement.txt"
N_GSE = NLI + "71297_0000071297-97-000059_document_6.txt"
N_MCMASTER = NLI + "Template-NDA-2-way-final-1.txt"
N_ANTONPAAR = NLI + "ConfidentialityAgreement.txt"

NDA_DISTRACTORS = [NLI + p for p in [
    "1084817_0001193125-14-004957_d648340dex99e2.htm.txt",   # second Oracle CDA (Responsys)
    "01_Bosch-Automotive-Service-Solutions-Mutual-Non-Disclosure-Agreement-7-12-17.txt",
    "1002276_0001036050-99-002047_document_13.txt",
    "1012887_0001193125-07-165503_dex99d6.htm.txt",
    "1013322_0000912057-00-023405_document_2.txt",
    "1016503_0000929624-00-000894_0010.txt",
    "1062478_0001193125-14-442753_d838170dex3.htm.txt",
    "1094814_0001140361-18-017998_s002178x1_ex99d7.htm.txt",
    "1096182_0001144204-06-021678_v043804_ex10-3.txt",
    "1120792_0001019687-05-002206_morgan_10qex5-2.txt",
    "1173495_0001047469-03-033872_a2118144zex-10_12.txt",
    "130806ca141.txt",
    "2_waycda.txt",
    "3511_standard_nda.txt",
    "768384_0000912057-00-018619_document_8.txt",
    "883905_0001095811-01-000469_f68556ex99-d12.txt",
    "934545_0000891618-99-004640_document_2.txt",
    "BT_NDA.txt",
    "NDA-Urban_Wind_Turbines.txt",
    "NonDisclosureAgreementNDASAMITT20190002v2.txt",
    "annex-iii---nda-agreement..txt",
    "mutual-non-disclosure-agreement.txt",
    "non-disclosure-agreement-en.txt",
    "clearcenter-rnda.txt",
    "AICPMutualNDA_1219166_writableV2.txt",
    "Basic-Non-Disclosure-Agreement.txt",
    "Confidentiality_and_Non-Disclosure_Agreement.txt",
]]

D = "./docs/"
P_PARCERIA = D + "contrato_parceria_agricola_soja_rio_verde.txt"
P_QUOTAS = D + "instrumento_cessao_quotas_tecnofrio_campinas.txt"
P_FRANQUIA = D + "contrato_franquia_lavabem_joinville.txt"
P_USUCAPIAO = D + "peticao_inicial_usucapiao_extraordinaria_juiz_de_fora.txt"
P_SEGURO = D + "contestacao_cobranca_seguro_vida_horizonte.txt"
P_ALIMENTOS = D + "sentenca_revisional_alimentos_uberlandia.txt"
P_VEICULO = D + "acordao_apelacao_vicio_veiculo_tjpr.txt"
P_LGPD = D + "acordao_apelacao_vazamento_dados_lgpd_tjsc.txt"
P_PARECER = D + "parecer_juridico_prorrogacao_vigilancia_saae.txt"
P_NOTIF = D + "notificacao_extrajudicial_representacao_comercial_caxias.txt"

PT_DISTRACTORS = [LENER + p for p in [
    "20150110436469APC.txt", "AC10024133855890001.txt", "AC1TCU.txt", "AC1TJAC.txt", "AC1TJMG.txt",
    "ACORDAOTCU25052016.txt", "AIAgRAgI6193ARAGUARIMG.txt", "AIRR3731820145060141.txt",
    "AP00001415620157010201.txt", "AP771420167080008PA.txt", "APO1TJDFT.txt", "Ag10000170733596001.txt",
    "Ag10105170208398001.txt", "AgCr10582160008758001.txt", "AgRgSTJ1.txt", "AgRgSTJ2.txt",
    "Agr10540170008341001.txt", "DespSEPLAGDF.txt", "ED1TJAC.txt", "EDRR1TST.txt",
    "HC10000170833503000.txt", "Lei11788.txt", "lei11340.txt", "Port77DF.txt", "REsp1583083RS.txt",
    "Rcl3495STJ.txt", "RR942006420095040028.txt", "TCU4687.txt", "adi3767.txt", "airr801422012.txt",
]]

CASES = {
    "en_contracts_pdf": {"language": "en", "files": [G_ELF, G_ANIXA, G_TRUENORTH, G_HOMEWOOD, G_BEYOND, G_APCN2,
                                                     G_ADMA, G_VAPO, G_METLIFE, G_TOUCHSTAR, G_EXXI] + PDF_DISTRACTORS},
    "en_endorsement_sponsorship_txt": {"language": "en", "files": [T_MOVADO, T_PRUD, T_HOLIDAY, T_TEARDROP, T_JENNER,
                                                                   T_NANTZ, T_TORVEC, T_HYDRON, T_TICKETS] + TXT_DISTRACTORS},
    "en_nda_txt": {"language": "en", "files": [N_NOVELL, N_PACKETEER, N_ORACLE, N_MPD, N_MSFT, N_HALDEX, N_GSE,
                                               N_MCMASTER, N_ANTONPAAR] + NDA_DISTRACTORS},
    "pt_br_juridico": {"language": "pt", "files": [P_PARCERIA, P_QUOTAS, P_FRANQUIA, P_USUCAPIAO, P_SEGURO, P_ALIMENTOS,
                                                   P_VEICULO, P_LGPD, P_PARECER, P_NOTIF] + PT_DISTRACTORS},
}

# ----------------------------------------------------------------------------- questions
# (id, case, kind, file, question, answer_quote, answer)
N, L, P = "names_document", "low_overlap", "plain"
C1, C2, C3, C4 = "en_contracts_pdf", "en_endorsement_sponsorship_txt", "en_nda_txt", "pt_br_juridico"
Q = [
    # ---- case 1: English contract PDFs (gold = physical page)
    ("pdf01", C1, N, G_ELF,
     "Under the 2020 cooperation agreement between e.l.f. Beauty and the Marathon Partners funds, how long may the investor conference call with management last after each quarterly and annual earnings call?",
     "will hold a customary investor conference call, for up to 45 minutes",
     "Up to 45 minutes (followed by a call of up to 15 minutes with the Lead Independent Director, without management)."),
    ("pdf02", C1, L, G_ELF,
     "How big a position can Cibelli's fund build in e.l.f. while the standstill is running?",
     "may acquire beneficial ownership of up to 12.5% of the Company’s outstanding shares of Common Stock",
     "Up to 12.5% of e.l.f.'s outstanding common stock (Marathon Parties and affiliates in aggregate)."),
    ("pdf03", C1, N, G_ANIXA,
     "Under the April 14, 2020 collaboration agreement between Anixa Biosciences and OntoChem GmbH, how many Hit Compounds may Anixa select, and by when?",
     "Within one year following completion of all activities under the Research Plan (the “Selection Deadline”), Anixa, in good faith consultation with OntoChem, will have the right to select up to two hundred (200) Hit Compounds",
     "Up to 200 Hit Compounds, within one year after completion of all Research Plan activities (the Selection Deadline)."),
    ("pdf04", C1, L, G_ANIXA,
     "If the German chemistry partner in the COVID drug-discovery deal later finds a surprising new antiviral use for compounds we passed on, do we get first dibs?",
     "Anixa has the right of first negotiation during a period of 6 months after this notification",
     "Yes. OntoChem must notify Anixa, which has a right of first negotiation for 6 months after the notification."),
    ("pdf05", C1, N, G_TRUENORTH,
     "Under the development agreement effective January 1, 2007 between BP America Production Company and True North Energy Corp., how much must True North pay at signing as its share of the Estimated Drilling Costs of the Initial Well?",
     "Company shall pay its share of Estimated Drilling Costs, being ONE MILLION, SEVEN HUNDRED THIRTY FOUR THOUSAND, THREE HUNDRED NINETY FIVE DOLLARS ($1,734,395), at execution of this Agreement",
     "$1,734,395 (11.67% of the estimated $14,862,000), paid by wire at execution; actual costs trued up later."),
    ("pdf06", C1, L, G_TRUENORTH,
     "If the small Houston partner in the Louisiana well wants to cash out its stake, can the oil major match the deal, and how long does it have?",
     "BP shall then have an optional prior right, for a period of fifteen (15) days after receipt of such written notice, to purchase for the stated consideration",
     "Yes. BP has a preferential right to buy on the same terms for 15 days after receiving True North's written notice."),
    ("pdf07", C1, N, G_BEYOND,
     "Under the September 21, 1998 co-hosting agreement between Network Associates and Software.net (Beyond.com), how much is each quarterly payment and when is the first one due?",
     "Quarterly payments of $312,500 each, with the first payment being due September 15, 1999",
     "$312,500 per quarter, first due September 15, 1999 (subject to the Minimum Revenue Target conditions)."),
    ("pdf08", C1, L, G_BEYOND,
     "If the McAfee-era web storefront deal with Beyond.com ends up in a lawsuit, who foots the lawyers' bills?",
     "the party not prevailing therein shall pay the reasonable attorneys' fees and court costs of the party prevailing therein",
     "The losing party pays the winner's reasonable attorneys' fees and court costs."),
    ("pdf09", C1, N, G_ADMA,
     "Under Amendment #3 (effective December 21, 2017) to the manufacturing agreement between ADMA BioManufacturing and Sanofi Pasteur, what Compensation Fee does Sanofi Pasteur pay and in how many installments?",
     "Sanofi Pasteur agrees to pay ADMA an amount of seven million (7,000,000 USD) (the “Compensation Fee”) in five installments",
     "USD 7,000,000, paid in five installments."),
    ("pdf10", C1, L, G_ADMA,
     "If the rabies plasma is already spoiled before ADMA takes on the risk, can ADMA go after the French vaccine maker for the business it loses?",
     "Sanofi Pasteur shall not be responsible, nor liable, to compensate or indemnify ADMA for the loss of business",
     "No. Sanofi Pasteur is not liable for ADMA's loss of business and will not pay for the unproduced batch."),
    ("pdf11", C1, N, G_TOUCHSTAR,
     "Under the September 14, 2005 reseller agreement between TouchStar Software Corporation and Worldwide Strategies, what interest accrues on fees not paid when due?",
     "All or any portion of the Fees not paid when due shall bear interest at the rate of one and one-half (1.5%) per month",
     "1.5% per month from the due date (capped at the maximum lawful rate)."),
    ("pdf12", C1, P, G_TOUCHSTAR,
     "How is the arbitral tribunal composed under the TouchStar reseller agreement?",
     "The arbitration shall be conducted before a panel of three (3) arbitrators, each of whom shall be fluent in English and shall have knowledge in the call center industry",
     "Three arbitrators, each fluent in English and knowledgeable about the call center industry (AAA International Rules)."),
    ("pdf13", C1, N, G_APCN2,
     "Under the Asia Pacific Cable Network 2 (APCN 2) Construction and Maintenance Agreement signed in Singapore on April 18, 2000, how are extended payment charges on overdue bills computed?",
     "extended payment charges shall be computed at three hundred percent (300%) of the rate described in Subparagraph 7.8",
     "At 300% of the financial-charge rate of Subparagraph 7.8 (lowest prime/commercial lending rate for 90-day loans), or the legal maximum if lower."),
    ("pdf14", C1, L, G_VAPO,
     "If health regulators come to inspect the Italian company that makes our cartridges, can we send our own people along?",
     "Medica shall permit up to two individuals selected by Vapotherm to attend any such inspections",
     "Yes, up to two individuals chosen by Vapotherm may attend."),
    ("pdf15", C1, P, G_VAPO,
     "How long must Medica retain manufacturing records under the Vapotherm manufacturing and supply agreement?",
     "All such records shall be maintained for a period of not less than two years from the date of expiration of each Cartridge batch",
     "At least two years from the expiration date of each Cartridge batch (or longer if law/cGMP requires)."),
    ("pdf16", C1, L, G_HOMEWOOD,
     "What does it cost the Stratford property owner to welcome guests before getting Hilton's go-ahead?",
     "You will pay us Liquidated Damages in the amount of Five Thousand Dollars ($5,000) per day if you open the Hotel before the Opening Date",
     "$5,000 per day in liquidated damages, plus enforcement costs including legal fees."),
    ("pdf17", C1, P, G_HOMEWOOD,
     "What interest rate applies to overdue amounts under the Homewood Suites by Hilton Stratford franchise agreement?",
     "at the rate of eighteen percent (18%) per annum or, if lower, the maximum lawful rate",
     "18% per year, or the maximum lawful rate if lower."),
    ("pdf18", C1, P, G_EXXI,
     "Under the Energy XXI transportation agreement, by when must claims for loss of or delay to crude shipments be filed?",
     "claims must be filed in writing with Transporter within one year and one day after delivery of the Crude Petroleum",
     "In writing within one year and one day after delivery (suits within two years and one day)."),
    ("pdf19", C1, P, G_EXXI,
     "What deduction is applied at LACT-unit custody transfer points under the Energy XXI Gulf Coast transportation agreement?",
     "a deduction of twenty-five hundredths of one percent (0.25%) will be made to cover evaporation, interface losses and normal losses during transportation",
     "0.25% to cover evaporation, interface losses and normal transportation losses."),
    ("pdf20", C1, P, G_METLIFE,
     "To what precision are the Reset Rates determined under the MetLife remarketing agreement?",
     "rounded to the nearest one-thousandth of one percent (0.001%)",
     "Rounded to the nearest one-thousandth of one percent (0.001%)."),

    # ---- case 2: English endorsement / sponsorship agreements (txt, gold = lines)
    ("txt01", C2, N, T_MOVADO,
     "Under Movado Group's April 2003 Endorsement Agreement with the Trustees of the Grinberg Family Trust, how long does the Company have to cure a Company Default once the Trust notifies it?",
     "If the Company fails to cure the Company Default within sixty (60) days after being notified by the Trust of the Company Default",
     "60 days after the Trust's notice; otherwise the Trust can require transfer of the Company's interest in the Policy."),
    ("txt02", C2, L, T_MOVADO,
     "Once both Grinberg spouses have passed away, what slice of the insurance payout goes back to the watch company?",
     "The Company shall be entitled to receive an amount equal to the aggregate premiums paid under the Policy since inception less the amount of the then outstanding principal balance of the Demand Note",
     "Aggregate premiums paid since inception minus the outstanding Demand Note principal; the Trust gets the excess."),
    ("txt03", C2, N, T_PRUD,
     "Under the split-dollar endorsement agreement of June 1, 2017 between Prudential Bank and Jeffrey Hanuscin, within how many days must the Plan Administrator notify a claimant that a claim is denied?",
     "the Plan Administrator will furnish to the Claimant a notice of the decision within 90 days in writing",
     "Within 90 days, in writing."),
    ("txt04", C2, L, T_PRUD,
     "If Hanuscin leaves Prudential Bank, does his split-dollar life coverage carry on?",
     "this Agreement will terminate upon termination of the Employee's employment",
     "No. The agreement terminates when his employment ends (either side may also terminate by written notice)."),
    ("txt05", C2, N, T_HOLIDAY,
     "Under the March 20, 2002 endorsement agreement between Holiday RV Superstores and Affinity Group, how much notice must the Company give to terminate before the Termination Date?",
     "it shall provide AGI with at least 60 days prior written notice of its intention to terminate this Agreement",
     "At least 60 days' prior written notice."),
    ("txt06", C2, L, T_HOLIDAY,
     "What did the RV dealership chain pay up front for the Good Sam seal, and can it ever get that money back?",
     "the Company shall pay to AGI a fee in the amount of $1,500,000. This fee shall be fully earned by AGI upon the receipt thereof and shall not be refundable for any reason",
     "$1,500,000, fully earned on receipt and non-refundable for any reason."),
    ("txt07", C2, N, T_TEARDROP,
     "Under the January 1, 1996 endorsement agreement between Teardrop Putter Corporation and Consolidated Artists for Brett Ogle, what bonus is paid each time Ogle wins a Major Tournament?",
     "Sixty Thousand U.S. Dollars ($60,000), each time Ogle wins a Major Tournament",
     "$60,000 per Major Tournament win."),
    ("txt08", C2, L, T_TEARDROP,
     "Can the putter company trim what it pays Brett Ogle if he skips too many tour events?",
     "TPC shall have the right to prorate the Retainer Fee due Consolidated Artists upon fourteen (14) days written notice",
     "Yes. On 14 days' written notice TPC may prorate the Retainer Fee if Ogle plays fewer than 17 U.S. PGA Tour events plus the British Open in a Contract Year."),
    ("txt09", C2, P, T_TEARDROP,
     "What royalty rate on net sales of Endorsed Products does the Teardrop–Ogle endorsement agreement provide?",
     "royalty compensation of ten percent (10%) of the net sales of all Endorsed Products",
     "10% of net sales of Endorsed Products."),
    ("txt10", C2, N, T_JENNER,
     "Under the November 1, 2003 endorsement agreement between Bruce Jenner and The Right Solution, what monthly payment does the celebrity receive?",
     "CELEBRITY will receive $6,000 per month for entire duration of the agreement",
     "$6,000 per month for the whole term (plus stock tied to sales volume)."),
    ("txt11", C2, L, T_JENNER,
     "How often can the Nevada company book Jenner to speak at its events, and how many calls can it ask of him?",
     "The CELEBRITY will be limited to six speaking engagements for the year and five conference calls per month",
     "Six speaking engagements a year and five conference calls a month."),
    ("txt12", C2, P, T_JENNER,
     "What upfront payment does the company make under the Jenner endorsement agreement?",
     "pay $10,000 upfront to begin representation and support of the CELEBRITY",
     "$10,000 upfront."),
    ("txt13", C2, N, T_NANTZ,
     "Under the promotion agreement among Ashworth, Inc., James W. Nantz III and Nantz Communications (term from June 1, 1998), what consulting fee is paid and how?",
     "The Company shall pay Nantz Communications an annual consulting fee of $30,000, such fee to be paid in equal quarterly installments of $7,500",
     "$30,000 a year, paid in quarterly installments of $7,500 (June, September, December, March)."),
    ("txt14", C2, L, T_NANTZ,
     "How much D&O cover does the golf apparel company have to carry for the CBS announcer?",
     "a policy of Directors and Officers Insurance with limits no less than $25,000,000",
     "Directors and officers insurance with limits of at least $25,000,000, naming Nantz as insured."),
    ("txt15", C2, P, T_NANTZ,
     "What is the annual cap on the value of free apparel furnished to Nantz under the Ashworth promotion agreement?",
     "The cost of said Product shall not exceed $12,000 (at wholesale) during any single Contract Year",
     "$12,000 at wholesale per Contract Year."),
    ("txt16", C2, N, T_TORVEC,
     "Under the May 18, 2010 corporate sponsorship agreement between Phoenix Performance, LLC and Torvec, Inc., who will drive the sponsored Corvette?",
     "The driver for these events will be John Heinricy",
     "John Heinricy (Torvec may disapprove any driver)."),
    ("txt17", C2, P, T_TORVEC,
     "What minimum commercial general liability insurance must the vendor maintain under the Torvec corporate sponsorship agreement?",
     "Vendor shall maintain commercial general liability (CGL) insurance with a limit of not less than $1 million each occurrence",
     "CGL insurance of at least $1 million per occurrence."),
    ("txt18", C2, L, T_HYDRON,
     "How many free sunscreen samples did the skin-care sponsor get to hand out at the Giants game?",
     "Hydron will provide ten thousand (10,000) sunscreen samples",
     "10,000 samples, distributed to club-level patrons at the December 8, 1996 game."),
    ("txt19", C2, P, T_HYDRON,
     "Within what window could Hydron exercise its early termination right under its sponsorship agreement with the Miami Dolphins?",
     "Hydron shall have the right to terminate this Agreement upon written notice to Dolphins at any time between November 1, 1997 and December 15, 1997",
     "By written notice between November 1 and December 15, 1997, effective after the Dolphins' last 1997 game."),
    ("txt20", C2, P, T_TICKETS,
     "What minimum number of monthly impressions does MP3.com guarantee under its sponsorship agreement with Tickets.com?",
     "MP3.com agrees to deliver a guaranteed minimum of 3,000,000 Impressions per month",
     "3,000,000 impressions per month."),

    # ---- case 3: NDAs (txt, gold = lines)
    ("nda01", C3, N, N_NOVELL,
     "Under the Novell mutual non-disclosure agreement with Silver Stream Software effective January 30, 2002, which courts have jurisdiction over disputes?",
     "The parties agree that Utah state and federal courts shall have jurisdiction and venue in any such proceeding",
     "Utah state and federal courts (Utah law; prevailing party recovers costs and fees)."),
    ("nda02", C3, L, N_NOVELL,
     "How long does Silver Stream have to keep what Novell shows it under wraps?",
     "For a period of three (3) years from the date of disclosure, Recipient agrees to use the same care and discretion to avoid disclosure",
     "Three years from each disclosure."),
    ("nda03", C3, N, N_PACKETEER,
     "Under Packeteer's two-way non-disclosure and confidentiality agreement with Blue Coat Systems (signed October 2007), when do the recipient's obligations for non-technical Confidential Information expire?",
     "Solely with respect to non-technical Confidential Information, Recipient’s obligations under this Section 3 shall expire one (1) year from the date of disclosure",
     "One year from the date of disclosure."),
    ("nda04", C3, P, N_PACKETEER,
     "Under the Packeteer–Blue Coat NDA, what must the Discloser do when it discloses Confidential Information orally?",
     "the Discloser shall identify it as confidential at the time of disclosure and thereafter summarize it in writing and transmit such summary to the Recipient within thirty (30) days of the oral disclosure",
     "Identify it as confidential when disclosed and send a written summary within 30 days."),
    ("nda05", C3, N, N_ORACLE,
     "Under Oracle's Confidential Disclosure Agreement for Strategic Matters with Hyperion Solutions (effective January 2, 2007), who may keep a copy of the Evaluation Material once a party says it will not proceed with the Transaction?",
     "except that outside counsel to the receiving party may retain one copy of the Evaluation Material for archival purposes and solely to comply with applicable law, rule or regulation",
     "Only the receiving party's outside counsel, one copy, for archival purposes and legal compliance; everything else must be returned or destroyed."),
    ("nda06", C3, P, N_ORACLE,
     "In which courts must legal actions be brought under the Oracle–Hyperion confidential disclosure agreement?",
     "Any legal action or proceeding relating to this Agreement shall be instituted exclusively in any state or federal court In San Francisco or San Mateo County, California",
     "Exclusively in state or federal courts in San Francisco or San Mateo County, California."),
    ("nda07", C3, N, N_MPD,
     "Under the July 6, 2000 non-disclosure agreement between MPD Technologies and Telefonaktiebolaget LM Ericsson, with whom may the Recipient discuss the Matter?",
     "You agree that you will only discuss the Matter with Mr. Al Weber, Chief Executive Officer, or Mr. Thomas V. Gilboy, Chief Financial Officer of the Disclosing Party",
     "Only with Al Weber (CEO) or Thomas V. Gilboy (CFO) of MPD."),
    ("nda08", C3, L, N_MPD,
     "If someone quits MPD, how soon may Ericsson talk to that person about a job?",
     "then the recipient can have such discussions with that person, after a 5-day waiting period",
     "After a 5-day waiting period."),
    ("nda09", C3, P, N_MPD,
     "For how long does the MPD Technologies NDA prohibit the recipient from disclosing Information or Items?",
     "For a period of three (3) years from the date of entering in to this Agreement, not to disclosure any Information or Item",
     "Three years from signing."),
    ("nda10", C3, N, N_MSFT,
     "Under the Microsoft standard reciprocal non-disclosure agreement with StarBand Communications (2000), how much notice is needed to terminate it?",
     "Either party may terminate this Agreement with or without cause upon ninety (90) days prior written notice to the other party",
     "90 days' prior written notice, with or without cause."),
    ("nda11", C3, L, N_MSFT,
     "If StarBand sends Microsoft suggestions about its products, can Microsoft run with them freely?",
     "the receiver of the Feedback shall be free to use, disclose, reproduce, license or otherwise distribute, and exploit the Feedback provided to it as it sees fit",
     "Yes. Feedback creates no confidentiality obligation and the receiver may use and exploit it freely."),
    ("nda12", C3, P, N_MSFT,
     "How long must the receiving party refrain from disclosing Confidential Information under the Microsoft–StarBand NDA?",
     "Refrain from disclosing any Confidential Information of the Disclosing Party to third parties for two (2) years following the date that Disclosing Party first discloses such Confidential Information",
     "Two years from first disclosure."),
    ("nda13", C3, N, N_HALDEX,
     "Under the Haldex non-disclosure agreement (May 2015, Reg. No. HDX4-51-130), how are disputes resolved?",
     "shall be settled by arbitration in accordance with the Rules of the Arbitration Institute of the Stockholm Chamber of Commerce",
     "Arbitration under the SCC (Stockholm Chamber of Commerce) rules, three arbitrators, seated in Stockholm, in English; Swedish law."),
    ("nda14", C3, L, N_HALDEX,
     "Does the Haldex supplier NDA renew by itself, and how early do we have to cancel?",
     "If the Agreement is not terminated by notice six (6) months prior to the end of each term, it shall be extended with twelve (12) months",
     "Yes, it rolls over for 12 months at a time unless terminated by notice six months before the end of the term (initial term 3 years)."),
    ("nda15", C3, N, N_GSE,
     "Under the May 21, 1996 non-disclosure agreement between Granite State Energy and New England Power Company, for how long must GSEnergy keep the Information confidential?",
     "GSEnergy agrees to maintain all Information in secrecy and confidence for a period of seven (7) years from the date of disclosure thereof",
     "Seven years from disclosure."),
    ("nda16", C3, L, N_GSE,
     "For the New Hampshire retail power pilot talks, can GSEnergy bring in outside consultants to look at the data?",
     "GSEnergy shall not disclose Information to these individuals without obtaining prior written approval from the Company",
     "Only with New England Power's prior written approval and NDAs satisfactory to it."),
    ("nda17", C3, P, N_MCMASTER,
     "Under McMaster University's mutual NDA, when is a notice sent by registered mail deemed received?",
     "on the fifth business day following receipt, if delivered by registered mail",
     "On the fifth business day (courier: date of delivery; fax: next business day after confirmation)."),
    ("nda18", C3, L, N_MCMASTER,
     "Could a company that signed McMaster's two-way NDA use the university's disclosures to develop something it sells?",
     "Recipient may only use the Confidential Information for the purpose of type of purpose/or a research collaboration and not for any commercial purpose",
     "No. Use is limited to the Permitted Purpose (e.g., research collaboration), not any commercial purpose, without written approval."),
    ("nda19", C3, P, N_ANTONPAAR,
     "What contractual penalty applies to a breach of the Anton Paar confidentiality agreement?",
     "the parties agree to contractual penalty in the amount of EUR 15,000.00 for the event of a breach of this agreement",
     "EUR 15,000 per breach, regardless of fault or proof of damage; further claims unaffected."),
    ("nda20", C3, L, N_ANTONPAAR,
     "If the Graz instrument maker's partner is legally compelled to hand over its secrets, how much warning does Anton Paar get?",
     "provided always that Recipient has informed Discloser about such disclosure at least two business days prior to the disclosure",
     "At least two business days' prior notice."),

    # ---- case 4: Brazilian Portuguese (own docs, gold = lines)
    ("pt01", C4, N, P_PARCERIA,
     "No contrato de parceria agrícola da Fazenda Santa Luzia, firmado entre Odair Mendonça Braga e a Agropecuária Três Veredas, qual quota da produção cabe ao parceiro-outorgante?",
     "Caberá ao PARCEIRO-OUTORGANTE a quota de 25% (vinte e cinco por cento) da produção líquida colhida em cada safra",
     "25% da produção líquida de cada safra (art. 96, VI, 'b', do Estatuto da Terra, por concorrer com a terra preparada)."),
    ("pt02", C4, L, P_PARCERIA,
     "Se uma chuva de granizo destruir a soja em Rio Verde, quem arca com a perda?",
     "serão suportados por ambos os parceiros na mesma proporção de suas quotas na partilha",
     "Ambos os parceiros, na proporção de suas quotas (25%/75%), por ser caso fortuito/força maior."),
    ("pt03", C4, N, P_QUOTAS,
     "No instrumento de cessão das quotas da Tecnofrio Refrigeração Industrial Ltda. à Serra Azul Participações, que parcela do preço fica retida e por quanto tempo?",
     "R$ 250.000,00 (duzentos e cinquenta mil reais) mediante depósito em conta vinculada (escrow) mantida no Banco Paulista de Custódia S.A., que permanecerá retido pelo prazo de 24 (vinte e quatro) meses",
     "R$ 250.000,00 em conta vinculada (escrow) por 24 meses, garantindo as indenizações da Cláusula 5ª."),
    ("pt04", C4, P, P_QUOTAS,
     "Qual o alcance da cláusula de não concorrência imposta ao cedente na cessão de quotas da Tecnofrio?",
     "Pelo prazo de 3 (três) anos contados da data de fechamento, o CEDENTE não poderá, direta ou indiretamente, constituir, participar como sócio, administrar ou prestar consultoria a empresa que fabrique ou comercialize equipamentos de refrigeração industrial nos Estados de São Paulo e Minas Gerais",
     "Três anos do fechamento, vedando atuar em empresas de refrigeração industrial em SP e MG."),
    ("pt05", C4, N, P_FRANQUIA,
     "No contrato de franquia da rede LavaBem celebrado com a Bolhas Limpas Serviços de Lavanderia, em Joinville, qual o percentual de royalties e quando deve ser pago?",
     "royalties correspondentes a 5% (cinco por cento) do faturamento bruto da unidade, até o dia 10 (dez) do mês subsequente ao da apuração",
     "5% do faturamento bruto, até o dia 10 do mês seguinte."),
    ("pt06", C4, L, P_FRANQUIA,
     "Se a lavanderia franqueada de Joinville fechar as portas, a dona pode abrir outra lavanderia na vizinhança logo em seguida?",
     "ficam proibidos, pelo prazo de 18 (dezoito) meses, de explorar, direta ou indiretamente, atividade de lavanderia, self-service ou não, num raio de 5 (cinco) quilômetros",
     "Não: por 18 meses fica proibida de explorar lavanderia num raio de 5 km da unidade ou de outra unidade da rede."),
    ("pt07", C4, L, P_USUCAPIAO,
     "A costureira que pede a usucapião consegue mostrar que era ela quem pagava o imposto do lote?",
     "os carnês do IPTU do imóvel passaram a ser emitidos pela Prefeitura de Juiz de Fora em nome da Autora, que vem quitando regularmente todas as parcelas",
     "Sim: desde 2013 os carnês de IPTU saem em seu nome e ela os quita regularmente."),
    ("pt08", C4, P, P_USUCAPIAO,
     "Na ação de usucapião extraordinária ajuizada em Juiz de Fora, quem a autora pede que seja citado pessoalmente?",
     "Requer a citação pessoal do réu, na pessoa de sua inventariante, e dos confinantes José Ribamar Teixeira (lote 14, Rua Doutor Paulo Japiassu Coelho, nº 365) e Sônia Maria Cardoso",
     "O espólio réu (na pessoa da inventariante) e os confinantes José Ribamar Teixeira e Sônia Maria Cardoso (art. 246, § 3º, CPC)."),
    ("pt09", C4, N, P_SEGURO,
     "Na contestação da Horizonte Vida e Previdência no processo nº 1047722-33.2025.8.26.0100, que condição de saúde o segurado teria omitido na declaração pessoal de saúde?",
     "o segurado era portador de doença renal crônica em estágio 5 e realizava sessões de hemodiálise três vezes por semana desde agosto de 2021",
     "Doença renal crônica em estágio 5, com hemodiálise três vezes por semana desde agosto de 2021."),
    ("pt10", C4, L, P_SEGURO,
     "Se perder a causa, desde quando a Horizonte aceita pagar encargos pela demora?",
     "os juros de mora de 1% (um por cento) ao mês sejam contados apenas a partir da citação",
     "Juros de mora de 1% ao mês só a partir da citação (art. 405 do CC); correção desde a recusa administrativa."),
    ("pt11", C4, N, P_ALIMENTOS,
     "Na sentença da ação revisional de alimentos nº 5012874-49.2025.8.13.0702, da 2ª Vara de Família e Sucessões de Uberlândia, em quanto foi fixada a nova pensão?",
     "reduzir a pensão alimentícia devida pelo autor ao réu para 1,3 (um inteiro e três décimos) salário mínimo mensal",
     "1,3 salário mínimo por mês (antes eram 2), depositado até o dia 10."),
    ("pt12", C4, P, P_ALIMENTOS,
     "Na revisional de alimentos julgada em Uberlândia, desde quando vale a redução e o que acontece com o que foi pago a mais durante o processo?",
     "A redução ora determinada retroage à data da citação, vedadas a compensação e a repetição dos valores pagos a maior no curso do processo",
     "Retroage à citação, sem compensação nem devolução do que foi pago a maior (Lei 5.478/68, art. 13, § 2º; Súmula 621/STJ)."),
    ("pt13", C4, N, P_VEICULO,
     "No acórdão da Apelação Cível nº 0021744-85.2023.8.16.0014 (10ª Câmara Cível do TJPR), qual o valor fixado para os danos morais?",
     "a indenização por danos morais deve ser majorada para R$ 10.000,00 (dez mil reais)",
     "R$ 10.000,00 (majorados de R$ 5.000,00), com correção desde o arbitramento e juros desde a citação."),
    ("pt14", C4, L, P_VEICULO,
     "Quantas vezes o SUV do Everton voltou à concessionária sem conserto, e por quanto tempo ficou parado?",
     "o veículo deu entrada na oficina da concessionária em quatro ocasiões entre maio e setembro de 2023, permanecendo ali por 41 dias no total",
     "Quatro entradas na oficina entre maio e setembro de 2023, somando 41 dias parado."),
    ("pt15", C4, N, P_LGPD,
     "No acórdão da Apelação nº 5009317-37.2024.8.24.0038 (Sexta Câmara de Direito Civil do TJSC), que falha de segurança expôs os laudos da clínica?",
     "os arquivos de laudos de exames eram armazenados em repositório de nuvem configurado para acesso público, sem exigência de senha ou de qualquer outra forma de autenticação",
     "Repositório em nuvem configurado como público, sem senha nem autenticação (permitiu indexação por buscadores)."),
    ("pt16", C4, L, P_LGPD,
     "A clínica de imagem de Joinville avisou logo os pacientes e o órgão regulador sobre o vazamento?",
     "a clínica somente comunicou os pacientes afetados 47 dias após ter sido alertada, por mensagem eletrônica genérica, e não comunicou a ocorrência à Autoridade Nacional de Proteção de Dados",
     "Não: avisou os pacientes só 47 dias depois, por e-mail genérico, e nunca comunicou a ANPD (art. 48 da LGPD)."),
    ("pt17", C4, P, P_PARECER,
     "Segundo o parecer jurídico sobre a prorrogação do contrato de vigilância do SAAE de Itaporã do Sul, qual o limite para as prorrogações sucessivas?",
     "autoriza a prorrogação sucessiva dos contratos de serviços contínuos, respeitada a vigência máxima decenal",
     "Vigência máxima de dez anos (art. 107 da Lei 14.133/2021), com previsão em edital e atestado de vantajosidade."),
    ("pt18", C4, P, P_PARECER,
     "O parecer da Procuradoria do SAAE admite assinar o termo aditivo de prorrogação depois de encerrada a vigência do contrato de vigilância?",
     "pois não se admite a prorrogação de contrato cuja vigência já tenha se encerrado",
     "Não: o aditivo deve ser assinado até 30/11/2025; após o fim da vigência o contrato está extinto."),
    ("pt19", C4, L, P_NOTIF,
     "Quanto a representante de Caxias do Sul cobra de indenização pelo fim da parceria com a fábrica de móveis?",
     "a indenização de 1/12 corresponde a R$ 243.200,00 (duzentos e quarenta e três mil e duzentos reais)",
     "R$ 243.200,00 (1/12 das comissões de toda a representação, art. 27, 'j', Lei 4.886/65), além do aviso prévio e comissões atrasadas."),
    ("pt20", C4, P, P_NOTIF,
     "Que prazo a notificação extrajudicial da Zanotto Representações concede à indústria de móveis para pagar?",
     "no prazo de 10 (dez) dias úteis contados do recebimento desta, efetuar o pagamento das comissões atrasadas",
     "10 dias úteis a contar do recebimento."),
]

# ----------------------------------------------------------------------------- helpers
def norm(s):
    s = unicodedata.normalize("NFKC", s).lower()
    return "".join(c for c in s if c.isalnum())


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def abspath(p):
    if p.startswith("./docs/"):
        return os.path.join(HERE, p[2:])
    return os.path.join(DATA, p)


_cache = {}


def pages_of(p):
    """PDF -> list of page texts; TXT -> list of lines."""
    if p in _cache:
        return _cache[p]
    ap = abspath(p)
    if not os.path.isfile(ap) or os.path.getsize(ap) == 0:
        fail(f"missing or empty file {p}")
    if p.lower().endswith(".pdf"):
        r = subprocess.run(["pdftotext", ap, "-"], capture_output=True)
        if r.returncode != 0:
            fail(f"pdftotext failed on {p}")
        parts = r.stdout.decode("utf-8", "replace").split("\f")
        if parts and parts[-1].strip() == "":
            parts = parts[:-1]
    else:
        parts = open(ap, encoding="utf-8").read().split("\n")
    _cache[p] = parts
    return parts


def whole_norm(p):
    return norm("".join(pages_of(p)))


def locate(p, quote):
    nq = norm(quote)
    parts = pages_of(p)
    if p.lower().endswith(".pdf"):
        hits = [(i + 1, norm(t).count(nq)) for i, t in enumerate(parts)]
        hits = [h for h in hits if h[1]]
        if len(hits) != 1 or hits[0][1] != 1:
            fail(f"quote not on exactly one page once in {p}: {hits} :: {quote[:60]}")
        if whole_norm(p).count(nq) != 1:
            fail(f"quote also occurs across a page break in {p}: {quote[:60]}")
        return {"page": hits[0][0]}
    # txt: tightest window of lines
    nl = [norm(x) for x in parts]
    if "".join(nl).count(nq) != 1:
        fail(f"quote does not occur exactly once in {p}: {quote[:60]}")
    best = None
    for a in range(len(nl)):
        if not nl[a] or nq[:1] not in nl[a]:
            continue
        acc = ""
        for b in range(a, len(nl)):
            acc += nl[b]
            if nq in acc:
                if best is None or (b - a) < (best[1] - best[0]):
                    best = (a, b)
                break
            if len(acc) > len(nq) + len(nl[a]) + 10 and b > a and not nl[b]:
                pass
    if best is None:
        fail(f"could not window quote in {p}")
    # shrink: drop leading/trailing lines not needed
    a, b = best
    while a < b and nq in "".join(nl[a + 1:b + 1]):
        a += 1
    while b > a and nq in "".join(nl[a:b]):
        b -= 1
    return {"lines": [a + 1, b + 1]}


def main():
    used = set(l.strip() for l in open(USED, encoding="utf-8") if l.strip())
    # case checks
    for cname, c in CASES.items():
        fs = c["files"]
        if len(fs) != len(set(fs)):
            fail(f"duplicate files in case {cname}")
        if not (30 <= len(fs) <= 45):
            fail(f"case {cname} has {len(fs)} files")
        for f in fs:
            pages_of(f)
            if len(whole_norm(f)) < 500:
                fail(f"file with (almost) no text: {f}")
    ids = set()
    out_q = []
    per_doc = Counter()
    kinds = Counter()
    for (qid, case, kind, f, question, quote, answer) in Q:
        if qid in ids:
            fail(f"duplicate id {qid}")
        ids.add(qid)
        if case not in CASES:
            fail(f"unknown case {case}")
        if f not in CASES[case]["files"]:
            fail(f"gold file not in case list: {f}")
        if f in used:
            fail(f"gold file was used before: {f}")
        nq = norm(quote)
        if len(nq) < 20:
            fail(f"quote too short in {qid}")
        loc = locate(f, quote)
        for other in CASES[case]["files"]:
            if other != f and nq in whole_norm(other):
                fail(f"{qid}: quote also occurs in {other}")
        per_doc[f] += 1
        kinds[(case, kind)] += 1
        gold = {"file": f}
        gold.update(loc)
        gold["answer_quote"] = quote
        out_q.append({"id": qid, "case": case, "lang": CASES[case]["language"], "kind": kind,
                      "question": question, "gold": gold, "answer": answer})
    for f, n in per_doc.items():
        if n > 3:
            fail(f"{f} has {n} questions")
    for cname in CASES:
        want = {N: 7, L: 7, P: 6}
        for k, n in want.items():
            if kinds[(cname, k)] != n:
                fail(f"case {cname} kind {k}: {kinds[(cname, k)]} != {n}")
    if len(out_q) != 80:
        fail(f"{len(out_q)} questions")
    out = {"written": "2026-11-29",
           "description": ("Blind evaluation set for a local legal-document search tool: 80 questions in 4 cases "
                           "(English contract PDFs with page golds; English endorsement/sponsorship agreements and "
                           "English NDAs as .txt with line golds; Brazilian Portuguese case mixing 10 newly written "
                           "fictional documents with 30 real LeNER-Br texts). Each case has 7 names_document, "
                           "7 low_overlap and 6 plain questions. Golds located mechanically from verbatim quotes."),
           "cases": CASES, "questions": out_q}
    with open(OUT, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)
    print(f"gold docs: {len(per_doc)}; files per case: " +
          ", ".join(f"{k}={len(v['files'])}" for k, v in CASES.items()))
    print(f"wrote {OUT}: {len(out_q)} questions, all golds located and unique")


if __name__ == "__main__":
    main()
