#!/usr/bin/env python3
"""Build blind_set.json: holds the case file lists and the questions with verbatim answer quotes,
locates each gold automatically and fails on missing / multi-page / non-unique quotes.
Stdlib + pdftotext/pdfinfo (poppler-utils) only.  Run: python3 build_set.py"""
# -*- coding: utf-8 -*-
# File lists of the four cases (paths relative to /work/shared/data; ./docs/<name> = written for this set).
CASE_LANG = {'cuad_pdf_mix': 'en', 'contracts_txt': 'en', 'courts_and_ndas': 'en', 'pt': 'pt'}
CASE_FILES = {
    'cuad_pdf_mix': [
        'legal_span_bench/cuad_pdf/Part_I/Non_Compete_Non_Solicit/WESTERN COPPER - NON-COMPETITION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Agency Agreements/ALCOSTORESINC_12_14_2005-EX-10.26-AGENCY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Collaboration/ANIXABIOSCIENCESINC_06_09_2020-EX-10.1-COLLABORATION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Collaboration/ELFBEAUTY,INC_07_02_2020-EX-10.1-COOPERATION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Development/TRUENORTHENERGYCORP_02_08_2007-EX-10.1-DEVELOPMENT AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Endorsement Agreement/WARNINGMANAGEMENTSERVICESINC_12_10_1999-EX-10-ENDORSEMENT AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Franchise/HOSPITALITYINVESTORSTRUST,INC_04_07_2014-EX-10.26-FRANCHISE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Hosting/BEYONDCOMCORP_08_03_2000-EX-10.2-CO-HOSTING AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/IP/MSCIINC_02_28_2008-EX-10.10-.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Maintenance/PRIMEENERGYRESOURCESCORP_04_02_2007-EX-10.28-COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Maintenance/TELEGLOBEINTERNATIONALHOLDINGSLTD_03_29_2004-EX-10.10-CONSTRUCTION AND MAINTENANCE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Manufacturing/ADMA BioManufacturing, LLC -  Amendment #3 to Manufacturing Agreement .PDF',
        'legal_span_bench/cuad_pdf/Part_III/Manufacturing/VAPOTHERM, INC. - Manufacturing and Supply Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Marketing/MetLife, Inc. - Remarketing Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Promotion/CYBERIANOUTPOSTINC_07_09_1998-EX-10.13-PROMOTION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Reseller/ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Reseller/WORLDWIDESTRATEGIESINC_11_02_2005-EX-10-RESELLER AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Sponsorship/DOMINIADVISORTRUST_02_18_2005-EX-99.(H)(2)-SPONSORSHIP AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Strategic Alliance/FTENETWORKS,INC_02_18_2016-EX-99.4-STRATEGIC ALLIANCE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Transportation/ENERGYXXILTD_05_08_2015-EX-10.13-Transportation AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Transportation/MARTINMIDSTREAMPARTNERSLP_01_23_2004-EX-10.3-TRANSPORTATION SERVICES AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Endorsement/EcoScienceSolutionsInc_20171117_8-K_EX-10.1_10956472_EX-10.1_Endorsement Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Endorsement/LegacyEducationAllianceInc_20141110_8-K_EX-10.9_8828866_EX-10.9_Endorsement Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Endorsement/PapaJohnsInternationalInc_20190617_8-K_EX-10.1_11707365_EX-10.1_Endorsement Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/IP/CerenceInc_20191002_8-K_EX-10.4_11827494_EX-10.4_Intellectual Property Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/IP/GarrettMotionInc_20181001_8-K_EX-2.4_11364532_EX-2.4_Intellectual Property Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/IP/RareElementResourcesLtd_20171019_SC 13D_EX-99.4_10897534_EX-99.4_Intellectual Property Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Non_Compete_Non_Solicit/Quaker Chemical Corporation - NON COMPETITION AND NON SOLICITATION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Non_Compete_Non_Solicit/VIVINT SOLAR, INC. - NON-COMPETITION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Promotion/DovaPharmaceuticalsInc_20181108_10-Q_EX-10.2_11414857_EX-10.2_Promotion Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Promotion/ExactSciencesCorp_20180822_8-K_EX-10.1_11331629_EX-10.1_Promotion Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Promotion/VnueInc_20150914_8-K_EX-10.1_9259571_EX-10.1_Promotion Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Reseller/EhaveInc_20190515_20-F_EX-4.44_11678816_EX-4.44_License Agreement_ Reseller Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Reseller/HealthcareIntegratedTechnologiesInc_20190812_8-K_EX-10.1_11776966_EX-10.1_Reseller Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Reseller/IpassInc_20181203_8-K_EX-99.1_11445874_EX-99.1_Reseller Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Sponsorship/AlliedEsportsEntertainmentInc_20190815_8-K_EX-10.34_11788308_EX-10.34_Sponsorship Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Sponsorship/ArcGroupInc_20171211_8-K_EX-10.1_10976103_EX-10.1_Sponsorship Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Sponsorship/FreezeTagInc_20180411_8-K_EX-10.1_11139603_EX-10.1_Sponsorship Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Strategic Alliance/CHIPMOSTECHNOLOGIESBERMUDALTD_04_18_2016-EX-4.72-Strategic Alliance Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Strategic Alliance/ENERGOUSCORP_03_16_2017-EX-10.24-STRATEGIC ALLIANCE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Strategic Alliance/SIBANNAC,INC_12_04_2017-EX-2.1-Strategic Alliance Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_I/Transportation/PenntexMidstreamPartnersLp_20150416_S-1A_EX-10.4_9042833_EX-10.4_Transportation Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Transportation/TcPipelinesLp_20160226_10-K_EX-99.12_9454048_EX-99.12_Transportation Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_I/Transportation/ZtoExpressCaymanInc_20160930_F-1_EX-10.10_9752871_EX-10.10_Transportation Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_II/Agency Agreements/ATHENSBANCSHARESCORP_11_02_2009-EX-1.2-AGENCY AGREEMENT , 2009.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Agency Agreements/BONTONSTORESINC_04_20_2018-EX-99.3-AGENCY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Agency Agreements/OLDAPIWIND-DOWNLTD_01_08_2016-EX-1.3-AGENCY AGREEMENT1.pdf',
        'legal_span_bench/cuad_pdf/Part_II/Endorsement/WOMENSGOLFUNLIMITEDINC_03_29_2000-EX-10.13-ENDORSEMENT AGREEMENT - Intellectual Property Rights                 Confidentiality and Non-Use Obligations Agreement.pdf',
        'legal_span_bench/cuad_pdf/Part_II/Endorsement/WOMENSGOLFUNLIMITEDINC_03_29_2000-EX-10.13-ENDORSEMENT AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/IP/BABCOCK_WILCOXENTERPRISES,INC_08_04_2015-EX-10.17-INTELLECTUAL PROPERTY AGREEMENT between THE BABCOCK _ WILCOX COMPANY and BABCOCK _ WILCOX ENTERPRISES, INC..PDF',
        'legal_span_bench/cuad_pdf/Part_II/IP/INGEVITYCORP_05_16_2016-EX-10.5-INTELLECTUAL PROPERTY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/IP/PREMIERBIOMEDICALINC_05_14_2020-EX-10.2-INTELLECTUAL PROPERTY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Promotion/MIDDLEBROOKPHARMACEUTICALS,INC_03_18_2010-EX-10.1-PROMOTION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Promotion/ON4COMMUNICATIONSINC_07_02_2009-EX-10.1-PROMOTION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Promotion/WHITESMOKE,INC_11_08_2011-EX-10.26-PROMOTION AND DISTRIBUTION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Reseller/LOYALTYPOINTINC_11_16_2004-EX-10.2-RESELLER AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Reseller/MTITECHNOLOGYCORP_11_16_2004-EX-10.102-Reseller Agreement Premier Addendum.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Reseller/OMINTO,INC_03_29_2004-EX-10-RESELLER AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Sponsorship/CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Sponsorship/VIOLINMEMORYINC_12_12_2012-EX-10.14-SPONSORSHIP AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Sponsorship/XYBERNAUTCORP_07_12_2002-EX-4-SPONSORSHIP AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Transportation/DYNAMEXINC_06_06_1996-EX-10.4-TRANSPORTATION SERVICES AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Transportation/KENTUCKYUTILITIESCO_03_25_2003-EX-10.65-TRANSPORTATION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_II/Transportation/MPLXLP_06_17_2015-EX-10.1-TRANSPORTATION SERVICES AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Agency Agreements/ALAMOGORDOFINANCIALCORP_12_16_1999-EX-1-AGENCY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Agency Agreements/BLUEROCKRESIDENTIALGROWTHREIT,INC_06_01_2016-EX-1.1-AGENCY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Endorsement Agreement/AMBASSADOREYEWEARGROUPINC_11_17_1997-EX-10.28-ENDORSEMENT AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Endorsement Agreement/MOSSIMOINC_04_14_2000-EX-10.14-ENDORSEMENT AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/IP/HERTZGLOBALHOLDINGS,INC_07_07_2016-EX-10.4-INTELLECTUAL PROPERTY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/IP/VERSOTECHNOLOGIESINC_12_28_2007-EX-99.3-INTELLECTUAL PROPERTY AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Promotion/KINGPHARMACEUTICALSINC_08_09_2006-EX-10.1-PROMOTION AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Reseller/DIVERSINETCORP_03_01_2012-EX-4-RESELLER AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Sponsorship/IVILLAGEINC_03_17_1999-EX-10.16-SPONSORSHIP AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Sponsorship/PROLONGINTERNATIONALCORP_03_23_1998-EX-10.16-SPONSORSHIP AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Strategic Alliance/ICORECONNECTINC_10_13_2010-EX-7.1-Strategic Alliance Agreement.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Strategic Alliance/VIRTUALSCOPICS,INC_11_12_2010-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.PDF',
        'legal_span_bench/cuad_pdf/Part_III/Transportation/ENTERPRISEPRODUCTSPARTNERSLP_07_08_1998-EX-10.3-TRANSPORTATION CONTRACT.PDF',
    ],
    'contracts_txt': [
        'legal_span_bench/corpus/cuad/SECURIANFUNDSTRUST_05_01_2012-EX-99.28.H.9-NET INVESTMENT INCOME MAINTENANCE AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/OPTIMIZEDTRANSPORTATIONMANAGEMENT,INC_07_26_2000-EX-6.6-DISTRIBUTOR AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/SPORTHALEYINC_09_29_1997-EX-10.2-10-ENDORSEMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/SPHERE3DCORP_06_24_2020-EX-10.12-CONSULTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/KNOWLABS,INC_08_15_2005-EX-10-INTELLECTUAL PROPERTY AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/XACCT Technologies, Inc.SUPPORT AND MAINTENANCE AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/WEBHELPCOMINC_03_22_2000-EX-10.8-HOSTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/LOGANSROADHOUSEINC_03_27_1998-EX-10.17-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/TICKETSCOMINC_06_22_1999-EX-10.22-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/CURAEGISTECHNOLOGIES,INC_05_26_2010-EX-1-CORPORATE SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/XLITECHNOLOGIES,INC_12_11_2015-EX-10.1-Sponsorship Agreement.txt',
        'legal_span_bench/corpus/cuad/MERCATAINC_03_09_2000-EX-10.21-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/LOOKSMARTLTD_07_20_2012-EX-99.(D)(I)-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/HYDRONTECHNOLOGIESINC_03_31_1997-EX-10.47-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/DRKOOPCOMINC_04_21_1999-EX-10.28-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/RUBIOSRESTAURANTSINC_03_31_2008-EX-10.75-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/NATIONALPROCESSINGINC_07_18_1996-EX-10.4-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/SONUSCORP_03_12_1997-EX-10.11-SPONSORSHIP AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/HALITRON,INC_03_01_2005-EX-10.15-SPONSORSHIP AND DEVELOPMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/LifewayFoodsInc_20160316_10-K_EX-10.24_9489766_EX-10.24_Endorsement Agreement.txt',
        'legal_span_bench/corpus/cuad/MARSHALLHOLDINGSINTERNATIONAL,INC_04_14_2004-EX-10.15-ENDORSEMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/HOLIDAYRVSUPERSTORESINC_04_15_2002-EX-10.13-ENDORSEMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/MOVADOGROUPINC_04_30_2003-EX-10.28-ENDORSEMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/PharmagenInc_20120803_8-KA_EX-10.1_7693204_EX-10.1_Endorsement Agreement.txt',
        'legal_span_bench/corpus/cuad/TEARDROPGOLFCO_10_23_1996-EX-10.12-ENDORSEMENT AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/BizzingoInc_20120322_8-K_EX-10.17_7504499_EX-10.17_Endorsement Agreement.txt',
        'legal_span_bench/corpus/cuad/PerformanceSportsBrandsInc_20110909_S-1_EX-10.10_7220214_EX-10.10_Endorsement Agreement.txt',
        'legal_span_bench/corpus/cuad/PrudentialBancorpInc_20170606_8-K_EX-10.4_10474434_EX-10.4_Endorsement Agreement.txt',
        'legal_span_bench/corpus/cuad/ScansourceInc_20190822_10-K_EX-10.39_11793959_EX-10.39_Distributor Agreement.txt',
        'legal_span_bench/corpus/cuad/ScansourceInc_20190509_10-Q_EX-10.2_11661422_EX-10.2_Distributor Agreement.txt',
        'legal_span_bench/corpus/cuad/LEGACYTECHNOLOGYHOLDINGS,INC_12_09_2005-EX-10.2-DISTRIBUTOR AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/NEOMEDIATECHNOLOGIESINC_12_15_2005-EX-16.1-DISTRIBUTOR AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/ImineCorp_20180725_S-1_EX-10.5_11275970_EX-10.5_Distributor Agreement.txt',
        'legal_span_bench/corpus/cuad/GLOBALTECHNOLOGIESLTD_06_08_2020-EX-10.16-CONSULTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/PANDIONTHERAPEUTICSHOLDCOLLC_05_22_2020-EX-10.17-CONSULTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/MEDALISTDIVERSIFIEDREIT,INC_05_18_2020-EX-10.1-CONSULTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/BOLIVARMININGCORP_05_23_2003-EX-2.1-VISP WEB SITE BUILDING AND HOSTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/AMERICASSHOPPINGMALLINC_12_10_1999-EX-10.2-SITE DEVELOPMENT AND HOSTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/BLUEFLYINC_03_27_2002-EX-10.27-e-business Hosting Agreement.txt',
        'legal_span_bench/corpus/cuad/INKTOMICORP_06_08_1998-EX-10.14-SOFTWARE HOSTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10.46-WEB HOSTING AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/HEALTHGATEDATACORP_11_24_1999-EX-10.1-HOSTING AND MANAGEMENT AGREEMENT (1).txt',
        'legal_span_bench/corpus/cuad/TRIZETTOGROUPINC_08_18_1999-EX-10.17-TECHNICAL INFRASTRUCTURE MAINTENANCE AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/SPARKLINGSPRINGWATERHOLDINGSLTD_07_03_2002-EX-10.13-SOFTWARE LICENSE AND MAINTENANCE AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/SLOVAKWIRELESSFINANCECOBV_03_28_2001-EX-4.(B)(II).3-Maintenance and support contract for SICAP(R) modules.txt',
        'legal_span_bench/corpus/cuad/GSITECHNOLOGYINC_11_16_2009-EX-10.2-INTELLECTUAL PROPERTY AGREEMENT between SONY ELECTRONICS INC. and GSI TECHNOLOGY, INC..txt',
        'legal_span_bench/corpus/cuad/ARMSTRONGFLOORING,INC_01_07_2019-EX-10.2-INTELLECTUAL PROPERTY AGREEMENT.txt',
        'legal_span_bench/corpus/cuad/AULAMERICANUNITTRUST_04_24_2020-EX-99.8.77-SERVICING AGREEMENT.txt',
    ],
    'courts_and_ndas': [
        'legal_span_bench/corpus/contractnli/1316898_0001047469-18-005618_a2236490zex-99_d2.htm.txt',
        'legal_span_bench/corpus/contractnli/1457829_0000898822-13-000086_exhibit-ndaexecutionversion.htm.txt',
        'legal_span_bench/corpus/contractnli/917639_0000912057-01-537118_a2062042zex-99_d7.htm.txt',
        'legal_span_bench/corpus/contractnli/5-NSK-Confidentiality-Agreement-for-Suppliers.txt',
        'legal_span_bench/corpus/contractnli/eHandshake_Non_Disclosure_Agreement.txt',
        'legal_span_bench/corpus/contractnli/1402305_0001193125-11-343865_d268167dex99d2.htm.txt',
        'legal_span_bench/corpus/contractnli/1049210_0001047469-13-009461_a2216846zex-99_d3.htm.txt',
        'legal_span_bench/corpus/contractnli/17.04.01%20BPS%20Non-Disclosure%20and%20Data%20Sharing%20Agreement%20-%20Transportation%20Challenge%20vF.txt',
        'legal_span_bench/corpus/contractnli/1334303_0001193125-10-204560_dex99e5.htm.txt',
        'legal_span_bench/corpus/contractnli/1096147_0001193125-08-206038_dex4.htm.txt',
        'legal_span_bench/corpus/contractnli/1020416_0001193125-16-701566_d250247dex99d2.htm.txt',
        'legal_span_bench/corpus/contractnli/1062478_0001193125-14-442753_d838170dex3.htm.txt',
        'legal_span_bench/corpus/contractnli/912263_0001047469-12-006662_a2209873zex-99_d2.htm.txt',
        'legal_span_bench/corpus/contractnli/912263_0001193125-12-285724_d371520dex99e4.htm.txt',
        'legal_span_bench/corpus/contractnli/1010552_0000912057-01-520246_a2051644zex-99_20.htm.txt',
        'legal_span_bench/corpus/contractnli/915191_0001047469-17-003155_a2231967zex-99_8.htm.txt',
        'legal_span_bench/corpus/contractnli/804151_0000950144-97-007563_document_14.txt',
        'legal_span_bench/corpus/contractnli/814457_0000950137-04-009790_c89545exv99wxdyx6y.htm.txt',
        'legal_span_bench/corpus/contractnli/96238_0000950116-97-001823_document_13.txt',
        'legal_span_bench/corpus/contractnli/CCS-Salt-Cavern-RfP-NDA.txt',
        'legal_span_bench/corpus/contractnli/Bio-FIP-EOI-NDA.txt',
        'legal_span_bench/corpus/contractnli/NDA-Urban_Wind_Turbines.txt',
        'legal_span_bench/corpus/contractnli/clearcenter-rnda.txt',
        'legal_span_bench/corpus/contractnli/ADVANIDE-NON-DISCLOSURE-AGREEMENT.txt',
        'legal_span_bench/corpus/contractnli/appendix-g-nda-form.txt',
        'legal_span_bench/corpus/contractnli/Aspiegel_NDA_template.txt',
        'legal_span_bench/corpus/contractnli/180314-March-14-2018-SOW-M.txt',
        'legal_span_bench/corpus/contractnli/NDA_V3.txt',
        'legal_span_bench/corpus/contractnli/Confidentiality%20Agreement.txt',
        'legal_span_bench/corpus/contractnli/1452751_0001193125-17-086167_d334994dex99e3.htm.txt',
        'legal_span_bench/corpus/contractnli/802724_0001193125-15-331613_d96542dex99d5.htm.txt',
        'legal_span_bench/corpus/contractnli/Attachment B - Intent to Propose and Non-Disclosure Agreement.txt',
        'legal_span_bench/corpus/contractnli/Pitch-Deck-Fire-Workshop-NDA-2.2017.txt',
        'legal_docs_us_courts/recap_documents/ca1_00117684624.pdf',
        'legal_docs_us_courts/recap_documents/ca10_010110462922.pdf',
        'legal_docs_us_courts/recap_documents/ca2_1-1.pdf',
        'legal_docs_us_courts/recap_documents/ca3_003112692106.pdf',
        'legal_docs_us_courts/recap_documents/ca5_00516242060.pdf',
        'legal_docs_us_courts/recap_documents/ca6_1-3.pdf',
        'legal_docs_us_courts/recap_documents/ca7_3.pdf',
        'legal_docs_us_courts/recap_documents/ca8_.pdf',
        'legal_docs_us_courts/recap_documents/ca9_19.pdf',
        'legal_docs_us_courts/recap_documents/cafc_3.pdf',
        'legal_docs_us_courts/recap_extract/gov.uscourts.azd.1085839.3.0.pdf',
        'legal_docs_us_courts/recap_extract/gov.uscourts.cacd.652774.40.0.pdf',
        'legal_docs_us_courts/extra_from_history/recap_issues/gov.uscourts.cand.16711.199.0.pdf',
        'legal_docs_us_courts/extra_from_history/recap_issues/gov.uscourts.njd.387907.32.0.pdf',
        'legal_docs_us_courts/extra_from_history/recap_issues/gov.uscourts.nysd.413741.11.0.pdf',
        'legal_docs_us_courts/missouri.pdf',
        'legal_docs_us_courts/vector-pdf.pdf',
        'legal_docs_us_courts/extra_from_history/opinion_text.txt',
        'legal_docs_us_courts/extra_from_history/fd/2003-judicial-watch.pdf',
        'legal_docs_us_courts/extra_from_history/fd/Alquist-NV-18.pdf',
    ],
    'pt': [
        './docs/acordao_agravo_instrumento_penhora_salario_tjrs.txt',
        './docs/acordao_apelacao_negativacao_indevida_tjmg.txt',
        './docs/contestacao_cobranca_condominio_campinas.txt',
        './docs/contrato_locacao_galpao_contagem.txt',
        './docs/contrato_locacao_residencial_vila_mariana.txt',
        './docs/contrato_prestacao_servicos_suporte_ti.txt',
        './docs/parecer_juridico_dispensa_licitacao_sao_bento_do_vale.txt',
        './docs/peticao_inicial_cancelamento_voo_recife.txt',
        './docs/peticao_inicial_medicamento_anapolis.txt',
        './docs/sentenca_rescisao_compromisso_compra_venda_fortaleza.txt',
        'lener_br/raw_text/20150110436469APC.txt',
        'lener_br/raw_text/AC10024133855890001.txt',
        'lener_br/raw_text/AC1TCU.txt',
        'lener_br/raw_text/AC1TJAC.txt',
        'lener_br/raw_text/AC1TJMG.txt',
        'lener_br/raw_text/AC20150110436469APC.txt',
        'lener_br/raw_text/ACO2821STF.txt',
        'lener_br/raw_text/ACORDAOTCU11602016.txt',
        'lener_br/raw_text/ACORDAOTCU25052016.txt',
        'lener_br/raw_text/ADI1TJDFT.txt',
        'lener_br/raw_text/ADI2TJDFT.txt',
        'lener_br/raw_text/AIAgRAgI6193ARAGUARIMG.txt',
        'lener_br/raw_text/AIRR10006691020135020322.txt',
        'lener_br/raw_text/AIRR15708820115050222.txt',
        'lener_br/raw_text/AIRR285001420095060020.txt',
        'lener_br/raw_text/AIRR3731820145060141.txt',
        'lener_br/raw_text/AIRR3999520145020086.txt',
        'lener_br/raw_text/AIRR581406820065030079.txt',
        'lener_br/raw_text/AP00000794920137060006.txt',
        'lener_br/raw_text/AP00001415620157010201.txt',
        'lener_br/raw_text/AP00001441420167030203.txt',
        'lener_br/raw_text/AP771420167080008PA.txt',
        'lener_br/raw_text/APO1TJDFT.txt',
        'lener_br/raw_text/Ag10000170733596001.txt',
        'lener_br/raw_text/Ag10105170208398001.txt',
        'lener_br/raw_text/AgAIRR11889820145030011.txt',
        'lener_br/raw_text/AgAIRR617420125150072.txt',
        'lener_br/raw_text/AgCr10582160008758001.txt',
        'lener_br/raw_text/AgRg1STM.txt',
        'lener_br/raw_text/AgRgSTJ1.txt',
        'lener_br/raw_text/AgRgSTJ2.txt',
        'lener_br/raw_text/AgRgTSE1.txt',
        'lener_br/raw_text/AgRgTSE3.txt',
        'lener_br/raw_text/Agr10540170008341001.txt',
        'lener_br/raw_text/CP32320177080008PA.txt',
        'lener_br/raw_text/DespSEPLAGDF.txt',
        'lener_br/raw_text/ED1STM.txt',
        'lener_br/raw_text/ED1TJAC.txt',
        'lener_br/raw_text/EDAgRgTSE2.txt',
        'lener_br/raw_text/EDEDARR208420135040232.txt',
        'lener_br/raw_text/EDRR1TST.txt',
        'lener_br/raw_text/EEDRR9715120105020002.txt',
        'lener_br/raw_text/ERR731004520105130003.txt',
        'lener_br/raw_text/HC04798525420128130000.txt',
        'lener_br/raw_text/HC10000150589281000.txt',
        'lener_br/raw_text/HC10000170833503000.txt',
        'lener_br/raw_text/HC110260SP.txt',
        'lener_br/raw_text/HC151914AgRES.txt',
        'lener_br/raw_text/HC340624SP.txt',
        'lener_br/raw_text/HC418951PR.txt',
        'lener_br/raw_text/HC70000692720177000000.txt',
        'lener_br/raw_text/HC70000845920187000000.txt',
        'lener_br/raw_text/INSTRUCAOON06043378120186000000.txt',
        'lener_br/raw_text/Lei11788.txt',
        'lener_br/raw_text/LoaDF2018.txt',
        'lener_br/raw_text/Pet128TSE5.txt',
        'lener_br/raw_text/Port77DF.txt',
        'lener_br/raw_text/REE5908TSE4.txt',
        'lener_br/raw_text/REsp1583083RS.txt',
        'lener_br/raw_text/RR-578030-46.1999.5.04.0018.txt',
        'lener_br/raw_text/RR14976020105020085.txt',
        'lener_br/raw_text/RR2574407120025020372.txt',
        'lener_br/raw_text/RR474820145230056.txt',
        'lener_br/raw_text/RR942006420095040028.txt',
        'lener_br/raw_text/Rcl3495STJ.txt',
        'lener_br/raw_text/TCU4687.txt',
        'lener_br/raw_text/TSTRR16037920105200001.txt',
        'lener_br/raw_text/adi3767.txt',
        'lener_br/raw_text/airr801422012.txt',
        'lener_br/raw_text/lei11340.txt',
        'lener_br/raw_text/metadadosAgRgTSE1_meta.json',
    ],
}

# Shorthands for gold files
_P3 = 'legal_span_bench/cuad_pdf/Part_III/'
ADIA = _P3 + 'Reseller/ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.PDF'
ALCO = _P3 + 'Agency Agreements/ALCOSTORESINC_12_14_2005-EX-10.26-AGENCY AGREEMENT.PDF'
DOMINI = _P3 + 'Sponsorship/DOMINIADVISORTRUST_02_18_2005-EX-99.(H)(2)-SPONSORSHIP AGREEMENT.PDF'
MARTIN = _P3 + 'Transportation/MARTINMIDSTREAMPARTNERSLP_01_23_2004-EX-10.3-TRANSPORTATION SERVICES AGREEMENT.PDF'
CNET = _P3 + 'Promotion/CYBERIANOUTPOSTINC_07_09_1998-EX-10.13-PROMOTION AGREEMENT.PDF'
MANNING = _P3 + 'Endorsement Agreement/WARNINGMANAGEMENTSERVICESINC_12_10_1999-EX-10-ENDORSEMENT AGREEMENT.PDF'
MSCI = _P3 + 'IP/MSCIINC_02_28_2008-EX-10.10-.PDF'
WCOPPER = 'legal_span_bench/cuad_pdf/Part_I/Non_Compete_Non_Solicit/WESTERN COPPER - NON-COMPETITION AGREEMENT.PDF'
PRIME = _P3 + 'Maintenance/PRIMEENERGYRESOURCESCORP_04_02_2007-EX-10.28-COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT.PDF'
FTE = _P3 + 'Strategic Alliance/FTENETWORKS,INC_02_18_2016-EX-99.4-STRATEGIC ALLIANCE AGREEMENT.PDF'

_C = 'legal_span_bench/corpus/cuad/'
SECURIAN = _C + 'SECURIANFUNDSTRUST_05_01_2012-EX-99.28.H.9-NET INVESTMENT INCOME MAINTENANCE AGREEMENT.txt'
OPTIM = _C + 'OPTIMIZEDTRANSPORTATIONMANAGEMENT,INC_07_26_2000-EX-6.6-DISTRIBUTOR AGREEMENT.txt'
HALEY = _C + 'SPORTHALEYINC_09_29_1997-EX-10.2-10-ENDORSEMENT AGREEMENT.txt'
SPHERE = _C + 'SPHERE3DCORP_06_24_2020-EX-10.12-CONSULTING AGREEMENT.txt'
VISUALANT = _C + 'KNOWLABS,INC_08_15_2005-EX-10-INTELLECTUAL PROPERTY AGREEMENT.txt'
XACCT = _C + 'XACCT Technologies, Inc.SUPPORT AND MAINTENANCE AGREEMENT.txt'
EGAIN = _C + 'WEBHELPCOMINC_03_22_2000-EX-10.8-HOSTING AGREEMENT.txt'
LOGANS = _C + 'LOGANSROADHOUSEINC_03_27_1998-EX-10.17-SPONSORSHIP AGREEMENT.txt'

_N = 'legal_span_bench/corpus/contractnli/'
JAMBA = _N + '1316898_0001047469-18-005618_a2236490zex-99_d2.htm.txt'
CEDC = _N + '1457829_0000898822-13-000086_exhibit-ndaexecutionversion.htm.txt'
EARTHLINK = _N + '917639_0000912057-01-537118_a2062042zex-99_d7.htm.txt'
NSK = _N + '5-NSK-Confidentiality-Agreement-for-Suppliers.txt'
PARTNERRE = _N + 'eHandshake_Non_Disclosure_Agreement.txt'
SAP = _N + '1402305_0001193125-11-343865_d268167dex99d2.htm.txt'
VERENIUM = _N + '1049210_0001047469-13-009461_a2216846zex-99_d3.htm.txt'
BPS = _N + '17.04.01%20BPS%20Non-Disclosure%20and%20Data%20Sharing%20Agreement%20-%20Transportation%20Challenge%20vF.txt'

LOC_RES = './docs/contrato_locacao_residencial_vila_mariana.txt'
LOC_GALPAO = './docs/contrato_locacao_galpao_contagem.txt'
TI = './docs/contrato_prestacao_servicos_suporte_ti.txt'
VOO = './docs/peticao_inicial_cancelamento_voo_recife.txt'
MEDIC = './docs/peticao_inicial_medicamento_anapolis.txt'
CONDO = './docs/contestacao_cobranca_condominio_campinas.txt'
SENT = './docs/sentenca_rescisao_compromisso_compra_venda_fortaleza.txt'
NEGAT = './docs/acordao_apelacao_negativacao_indevida_tjmg.txt'
PENHORA = './docs/acordao_agravo_instrumento_penhora_salario_tjrs.txt'
PARECER = './docs/parecer_juridico_dispensa_licitacao_sao_bento_do_vale.txt'

# (id, case, kind, file, question, answer_quote (verbatim; whitespace/punctuation-insensitive), short answer)
QUESTIONS = [
# ---------------------------------------------------------------- cuad_pdf_mix
('d01', 'cuad_pdf_mix', 'names_document', ADIA,
 "Under the Reseller Agreement between PivX Corporation and Detto Technologies for Qwik-Fix Pro, what is the cap on PivX's liability to Detto?",
 "IN NO EVENT SHALL PIVX'S OR ITS LICENSORS' LIABILITY TO DETTO OR ANY THIRD PARTY ARISING OUT OF THIS AGREEMENT EXCEED THE TOTAL AMOUNT ACTUALLY RECEIVED BY PIVX HEREUNDER DURING THE PREVIOUS SIX (6) MONTHS",
 "The total amount actually received by PivX under the agreement during the previous six months (this cap does not apply to PivX's IP-infringement indemnity in Section 4.2)."),
('d02', 'cuad_pdf_mix', 'plain', ADIA,
 "What late-payment charge applies to overdue amounts that Detto owes PivX under the Qwik-Fix Pro reseller agreement?",
 "Detto shall pay PivX a late charge on outstanding amounts due equal to one and one-half percent (1.50%) per month or the maximum amount allowed by law, whichever is less.",
 "1.5% per month on outstanding amounts, or the legal maximum if lower."),
('d03', 'cuad_pdf_mix', 'names_document', ALCO,
 "Under the November 9, 2005 Agency Agreement between General Electric Capital Corporation and Duckwall-Alco Stores, what is the Maximum Aggregate Capitalized Lessor's Cost, and when does the agency expire?",
 "Maximum Aggregate Capitalized Lessor’s Cost: $14,500,000.00 2. Basic Term Lease Rate Factor: To be mutually agreed upon by Company and Lessor 3. Basic Term (No. of Months): To be mutually agreed upon by Company and Lessor 4. Equipment Type: To be mutually agreed upon by Company and Lessor 5. Agency Agreement Expiration Date and Last Delivery Date: October 31, 2006",
 "$14,500,000; the agency expires (and the last delivery date is) October 31, 2006."),
('d04', 'cuad_pdf_mix', 'low_overlap', ALCO,
 "Is the retailer compensated for handling the purchases for the finance company before the gear goes on lease?",
 "Lessor hereby appoints the Company, and the Company hereby agrees to accept such appointment, as the agent of Lessor, without any fee for acting as such agent",
 "No. Duckwall-Alco acts as GE Capital's agent for ordering and accepting the equipment without any fee."),
('d05', 'cuad_pdf_mix', 'low_overlap', DOMINI,
 "What does the socially responsible fund family pay the firm that runs its back-office oversight, and how is that figured?",
 "the Trust shall pay Domini a fee accrued daily and payable monthly at an annual rate equal to 0.50% of the Trust's average daily net assets for the Trust's then current fiscal year",
 "An annual rate of 0.50% of the Trust's average daily net assets, accrued daily and paid monthly (prorated for partial periods)."),
('d06', 'cuad_pdf_mix', 'plain', DOMINI,
 "How much notice is required to terminate the Domini Advisor Trust sponsorship agreement, and does termination carry a penalty?",
 "This Agreement may be terminated at any time, without the payment of any penalty, with respect to any series or the Trust, by the Board of Trustees of the Trust, or by the Sponsor, in each case on not less than 60 days' written notice to the other party.",
 "Not less than 60 days' written notice, by the Board of Trustees or the Sponsor, without payment of any penalty."),
('d07', 'cuad_pdf_mix', 'names_document', MARTIN,
 "Under the December 23, 2003 Transportation Services Agreement between Martin Operating Partnership and Midstream Fuel Service, how long is the initial term and how does renewal work?",
 "The initial term of this Agreement shall be for 3 years (the “Initial Term”) commencing on the date first set forth above (the “Commencement Date”) and ending on the 3rd anniversary of the Commencement Date. This Agreement will automatically renew for successive one year terms",
 "Three years from the commencement date, then automatic one-year renewals unless either party gives written notice of non-renewal 30 days before the term expires."),
('d08', 'cuad_pdf_mix', 'low_overlap', MARTIN,
 "How much spill coverage does the barge operator have to carry while it hauls the charterer's fuel oil?",
 "Owner covenants that it will maintain at all times during the Term of this Agreement insurance coverage for sudden and accidental pollution of $500,000,000.",
 "$500,000,000 of sudden and accidental pollution insurance, maintained throughout the term."),
('d09', 'cuad_pdf_mix', 'plain', MARTIN,
 "How is the per-gallon fee for the marine transportation of #2 fuel oil and high sulfur diesel adjusted each year?",
 "shall be adjusted annually (both upward and downward), by a factor equal to the amount of increase or decrease, as the case may be, in the Consumer Price Index for the immediately proceeding month of November, over the Consumer Price Index for November of the preceding year",
 "Annually, up or down, by the change in the CPI (Urban Wage Earners and Clerical Workers) for November over the prior November, unless renegotiated under Section 1."),
('d10', 'cuad_pdf_mix', 'low_overlap', CNET,
 "While our promotion deal with the tech-news network is running, how many rival computer e-tailers can it also take money from for standing placements on its sites?",
 "CNET will not enter into more than two other agreements under which CNET receives consideration from a Competing Computer Products Retailer for displaying permanent links to or other fixed promotions",
 "No more than two other paid agreements with Competing Computer Products Retailers (standard ads, COMPUTERS.COM and Snap! Online are excluded)."),
('d11', 'cuad_pdf_mix', 'plain', CNET,
 "For how long after a user follows a link from an Online Promotion are that user's purchases counted as \"CNET Sales\" under the CNET-Cyberian Outpost promotion agreement?",
 "The \"CNET Sales\" will be counted as sales by the Company to each User who accesses the Company Site through a link from an Online Promotion for a period of 4 hours from the referral",
 "For 4 hours from the referral."),
('d12', 'cuad_pdf_mix', 'names_document', MANNING,
 "Under the endorsement agreement between Famous Fixins and Pey Dirt for Peyton Manning, how often and for how long can the company require Manning's personal services?",
 "services may be required not more than once during the Contract Period for up to one (1) hour",
 "Not more than once during the Contract Period, for up to one hour (with travel expenses reimbursed)."),
('d13', 'cuad_pdf_mix', 'low_overlap', MANNING,
 "Once the quarterback's deal ends, how long can the food company keep selling product it already made with his name on it, and on what conditions?",
 "may be sold by Company during the ninety (90) day period next following the date of termination or expiration",
 "For 90 days after termination/expiration, only if the company is not in default, reports its stock within 15 days, holds only a reasonable inventory and keeps paying royalties."),
('d14', 'cuad_pdf_mix', 'names_document', MSCI,
 "In the November 20, 2007 Intellectual Property Agreement between Morgan Stanley & Co. and MSCI Inc., what is the \"Trigger Date\"?",
 "“Trigger Date” means the date upon which Morgan Stanley shall cease to own more than 50% of the issued and outstanding shares of MSCI common stock.",
 "The date on which Morgan Stanley ceases to own more than 50% of MSCI's issued and outstanding common stock."),
('d15', 'cuad_pdf_mix', 'low_overlap', WCOPPER,
 "Where exactly in Mexico is the copper company kept from exploring or picking up claims?",
 "Area of Non-Competition means the State of Zacatecas, Mexico and the area extending 20 kilometers in all directions from the external boundary of each mineral property owned or controlled by Western Silver",
 "The State of Zacatecas plus a 20 km zone around each Mexican mineral property owned or controlled by Western Silver at the Effective Date."),
('d16', 'cuad_pdf_mix', 'names_document', WCOPPER,
 "Under the May 3, 2006 Non-Competition Agreement and Right of First Offer between Glamis Gold and Western Copper, how long does Western Copper's non-compete last?",
 "for a period of 2 years after the Effective Date, it will not, directly or indirectly",
 "Two years after the Effective Date."),
('d17', 'cuad_pdf_mix', 'plain', WCOPPER,
 "What must Glamis do if it intends to abandon a Designated Mineral Property rather than sell it?",
 "transfer such Designated Mineral Property to Western Copper at no cost save and except for the reasonable costs of transfer incurred by Glamis",
 "If Western Copper asks, transfer the property to Western Copper at no cost other than Glamis's reasonable transfer costs."),
('d18', 'cuad_pdf_mix', 'names_document', PRIME,
 "Under the June 29, 2006 Completion and Liquidity Maintenance Agreement among PrimeEnergy, Guaranty Bank and Prime Offshore, how much liquidity must PrimeEnergy maintain?",
 "unrestricted cash and cash equivalents of $25,000,000",
 "$25,000,000 of unused revolver availability and/or unrestricted cash and cash equivalents during the term of the Credit Agreement (adjusted for shareholder advances/repayments)."),
('d19', 'cuad_pdf_mix', 'low_overlap', FTE,
 "If Mediacom stiffs EDGE on the fiber build, is FTE's compensation on hold until EDGE collects?",
 "This Agreement shall not be construed as a “Pay When Paid” contract. EDGE’s obligation to pay Subcontractor under this Agreement shall not be predicated upon the Customer approving or paying EDGE for the Work.",
 "No. It is not a pay-when-paid contract; EDGE must pay FTE regardless of whether the Customer approves or pays."),
('d20', 'cuad_pdf_mix', 'plain', FTE,
 "What umbrella/excess liability limits must the subcontractor carry under the EDGE-FTE Strategic Alliance Agreement, and which trades get lower limits?",
 "Umbrella/Excess Liability with limits of not less than $5,000,000 in excess of all the above-referenced Commercial General Liability, Employer’s Liability and Business Auto Liability, except the following Subcontractor classifications will have limits of not less than the following: HVAC $2,000,000, Landscaping and Fencing $1,000,000.",
 "At least $5,000,000 excess of the CGL, employer's and auto liability; HVAC subcontractors $2,000,000 and landscaping/fencing $1,000,000."),
# ---------------------------------------------------------------- contracts_txt
('t01', 'contracts_txt', 'names_document', SECURIAN,
 "Under the Restated Net Investment Income Maintenance Agreement for Securian Funds Trust's Advantus Money Market Fund (effective May 1, 2012), how long does the agreement run and what is needed for it to continue?",
 "This Agreement shall continue in effect for a period of one year from the date of its execution and from year to year thereafter provided such  continuance is specifically approved by a majority of the trustees of the Trust",
 "One year from execution, then year to year if approved by a majority of the non-interested trustees; it ends with the Advisory Agreement (except the adviser's right of recovery)."),
('t02', 'contracts_txt', 'low_overlap', SECURIAN,
 "If the adviser tops up the money fund to keep its daily earnings from going negative, how long does it have to get that money back?",
 "provided that the right of the Investment  Adviser to receive such payment shall expire three years after the day it effected such waiver, or made such payment or reimbursement",
 "Three years from the day of the waiver, payment or reimbursement (recovery only on days when net investment income exceeds zero)."),
('t03', 'contracts_txt', 'plain', SECURIAN,
 "What limit applies to the Fund's repayment of Expense Waiver amounts to the Investment Adviser under the Securian net investment income maintenance agreement?",
 "Any Expense Waiver recovery payment by the Fund to the Investment Adviser shall not cause the Operating  Expense for the Fund's full year of operations to exceed 1.25% of the Fund's average daily net assets.",
 "Recovery payments may not push the Fund's full-year operating expenses above 1.25% of average daily net assets."),
('t04', 'contracts_txt', 'names_document', OPTIM,
 "Under the distributor agreement between International Test Systems and Comware Technical Services, what discount and price does Comware get on the CircuiTest 2100 Scanner once its purchases exceed $45,420?",
 "CircuiTest 2100 Scanner    $2,995.00                       60%                 $1,198.00",
 "60% off the $2,995 suggested retail price, i.e. $1,198.00 per unit."),
('t05', 'contracts_txt', 'low_overlap', OPTIM,
 "What spending level must the reseller of the circuit-board testers keep up, month to month, to stop the deal from lapsing once it has been extended?",
 "COMWARE must purchase order a minimum      of $4,200 worth of Products per month during the Renewal Period",
 "At least $4,200 of products per month during the Renewal Period, or the agreement terminates automatically."),
('t06', 'contracts_txt', 'plain', OPTIM,
 "What is the warranty period for the CircuiTest products sold to Comware, and who bears repair and shipping costs?",
 "ITS  Products  are  warranted  free  from  defects of material or      workmanship  for 3 years after  shipment from the  manufacturer.",
 "3 years from shipment; ITS repairs in San Antonio at no cost beyond Comware's shipping to ITS, and ITS pays regular UPS return (priority shipping at Comware's cost)."),
('t07', 'contracts_txt', 'names_document', HALEY,
 "Under the Sport-Haley endorsement agreement with a PGA Tour professional, how much notice must the company give to book the golfer for ads or promotional events, and how often can it do so?",
 "tendered at least 30 days prior the date requested, the Professional           shall make himself available for the purpose of posing for print ads,          making commercials and other promotional materials, or attending           promotional events organized by the Company once per calendar year",
 "A reasonable written request at least 30 days in advance, once per calendar year (extra days paid at his daily appearance fee)."),
('t08', 'contracts_txt', 'low_overlap', HALEY,
 "After the golfer's clothing deal ends, how long can the apparel company keep using the ads that feature him?",
 "Following the expiration of 90 days from the termination or          expiration of this Agreement, the Company shall cease usage of all           publicity, promotion and advertising materials which contain the          Professional's Image",
 "For 90 days after termination or expiration; then it must stop using materials containing his image."),
('t09', 'contracts_txt', 'names_document', SPHERE,
 "Under the June 1, 2020 consulting agreement between Sphere 3D Corp. and Groupe Parameus Corp., how are the 50,000 stock options priced and how do they vest?",
 "A one time issuance of 50,000 Common Stock options priced at the Nasdaq Official Closing Price (\"NCOP\") on the date of approval of the Board of Directors of the company. All options shall vest monthly for six months.",
 "Priced at the Nasdaq Official Closing Price on the date of Board approval; they vest monthly over six months."),
('t10', 'contracts_txt', 'low_overlap', SPHERE,
 "If the company doesn't want the investor-relations firm to keep working once the year is up, what does it have to do, and what happens if it stays silent?",
 "The company must notify the consultant within 5 days of the conclusion of the 12 month term. Without notification the contract will automatically extend for an additional month of service.",
 "Notify the consultant within 5 days of the end of the 12-month term; otherwise the contract rolls over for another month."),
('t11', 'contracts_txt', 'low_overlap', VISUALANT,
 "Can the inventor who developed the colour-sensing technology file his own patent applications on that work?",
 "Turpin  shall  not,  directly  or      indirectly,  apply for or seek registration of any  Intellectual  Property      Rights in any Work Product in any jurisdiction  without the express written      approval of the  Company.",
 "No, not without Visualant's express written approval (and he may not contest the company's ownership)."),
('t12', 'contracts_txt', 'plain', VISUALANT,
 "Under the Visualant intellectual property agreement with Kenneth Turpin, what happens to the agreement if Turpin's employment moves to a Company Affiliate?",
 "the terms of this  Agreement  shall  continue  in      effect with respect to such employment until an agreement  relating to this      subject matter is signed between Turpin and the Company Affiliate.",
 "It continues to apply to the affiliate employment until Turpin signs a new agreement on the subject with that affiliate."),
('t13', 'contracts_txt', 'low_overlap', XACCT,
 "How far back will the vendor keep helping us with older releases of the software we license, and for how long is the oldest one covered?",
 "any version of the Product other than the current version of                   the Product, the immediately previous version and the version                   preceding the immediately previous version",
 "The current version, the immediately previous one and the one before it; the oldest only until six months after release of the current Major Release."),
('t14', 'contracts_txt', 'names_document', XACCT,
 "Under XACCT Technologies' Support and Maintenance Agreement, what is XACCT's maximum liability for the Support Services?",
 "SHALL BE          LIMITED TO THE AMOUNT PAID BY LICENSEE FOR THE SUPPORT SERVICES FOR THE          PRIOR 12 MONTHS",
 "The amount the licensee paid for Support Services in the prior 12 months (maintenance liability is governed by the License Agreement)."),
('t15', 'contracts_txt', 'low_overlap', EGAIN,
 "If the hosted customer-email software is down for half an hour on a weekday morning, what compensation do we get?",
 "For the first sixty (60) minutes of Downtime during Normal Business       Hours or the first four (4) hours of Downtime outside of Normal Business       Hours (\"Initial Downtime\"), eGain will credit Customer's account for one       (1) day of service.",
 "A credit of one day of service (initial downtime of up to 60 minutes in business hours), as the sole remedy."),
('t16', 'contracts_txt', 'names_document', EGAIN,
 "Under the hosting agreement between eGain Communications and Eliance Corporation, how much notice must eGain give before adjusting the monthly fee at renewal?",
 "eGain may adjust the monthly fee payable under this Agreement by providing Customer written notice of such adjustment at least sixty (60) days prior to the beginning of the new term",
 "Written notice at least 60 days before the new one-year term begins."),
('t17', 'contracts_txt', 'plain', EGAIN,
 "Within what period after termination of the eGain hosting agreement must the Customer pay accrued unpaid fees?",
 "Within fifteen (15) days of any termination of this Agreement, Customer shall pay to eGain all unpaid fees accrued prior to termination.",
 "Within 15 days of termination."),
('t18', 'contracts_txt', 'names_document', LOGANS,
 "Under the February 24, 1998 sponsorship agreement between Southern Racing Promotions and Logan's Roadhouse, how is SRP's $80,000 base fee paid?",
 "(i) $40,000.00 payable upon execution of this contract; and (ii) the balance of $40,000.00 payable in eight equal monthly   installments of $5,000 each",
 "$40,000 on signing and $40,000 in eight monthly installments of $5,000 (March-October 1998)."),
('t19', 'contracts_txt', 'plain', LOGANS,
 "Under the Logan's Roadhouse racing sponsorship, how much of the race car may secondary or associate sponsors' signage cover?",
 "shall not cover any area greater than 25% of that of Logan's signage, logos or trademarks",
 "Collectively no more than 25% of the area of Logan's signage (and Logan's has the hood, rear quarter panels and deck lid exclusively)."),
('t20', 'contracts_txt', 'plain', LOGANS,
 "Under the Logan's Roadhouse-SRP sponsorship agreement, on what conduct-related grounds may a party terminate immediately?",
 "Immediately in the event that the Defaulting Party   (including, for SRP, the Driver) commits any crime involving moral turpitude",
 "If the other party (for SRP, including the driver) commits a crime of moral turpitude or conduct bringing it or the other party into public hatred, contempt, scandal or ridicule."),
# ---------------------------------------------------------------- courts_and_ndas
('n01', 'courts_and_ndas', 'names_document', JAMBA,
 "Under the mutual nondisclosure agreement between Jamba, Inc. and FOCUS Brands Inc., how long is the Standstill Period?",
 "Participant agrees that, for a period of one year after the date of this Agreement (the “Standstill Period”)",
 "One year after the date of the agreement."),
('n02', 'courts_and_ndas', 'low_overlap', JAMBA,
 "If some other bidder publicly announces it is going after at least a fifth of Jamba's stock, is Focus still bound by its promise to stay on the sidelines?",
 "the restrictions set forth in this Section 9 shall immediately terminate and cease to be of any further effect on Participant",
 "No. The standstill terminates immediately on such an announcement (or on a definitive agreement with a third party)."),
('n03', 'courts_and_ndas', 'low_overlap', JAMBA,
 "Focus Brands met some Jamba managers during diligence. How long must it wait before trying to hire them?",
 "Recipient will not, within eighteen months from the date of this Agreement, directly or indirectly solicit the employment or consulting services of",
 "18 months from the date of the agreement (general advertisements and recruiters not pointed at Jamba staff are allowed)."),
('n04', 'courts_and_ndas', 'plain', JAMBA,
 "Under the Jamba-FOCUS Brands mutual nondisclosure agreement, who bears the legal fees if a court finds a breach?",
 "the Party which is, or the Party whose Representatives are, determined to have so breached shall be liable and pay to the other Party the reasonable legal fees and costs incurred by the other Party in connection with such litigation, including any appeal therefrom",
 "The breaching party pays the other party's reasonable legal fees and costs, including on appeal."),
('n05', 'courts_and_ndas', 'names_document', CEDC,
 "Under the February 18, 2013 non-disclosure and confidentiality agreement between Central European Distribution Corporation and W&L Enterprises, what must CEDC do on the Termination Date?",
 "On the Termination Date, CEDC shall publicly file a document (the “Cleansing Document”) containing all of the written and oral Confidential Information that constitutes material non-public information",
 "Publicly file a Cleansing Document disclosing all material non-public information given to the Recipient (other than designated Non-Cleansing Information)."),
('n06', 'courts_and_ndas', 'plain', CEDC,
 "When does the CEDC-W&L Enterprises restructuring confidentiality agreement terminate?",
 "9:00 a.m. (GMT) on March 5, 2013, whereupon this Agreement shall terminate and be of no further force or effect",
 "At the earlier of the filing of an exchange offer/offering memorandum/disclosure statement for the notes (extended while talks continue) and 9:00 a.m. GMT on March 5, 2013."),
('n07', 'courts_and_ndas', 'names_document', EARTHLINK,
 "Under the September 6, 2001 Mutual Non-Disclosure and Non-Solicitation Agreement between EarthLink and CIDCO, when does the Restricted Period end?",
 "until the earlier of (a) the date a definitive agreement for EarthLink's acquisition of CIDCO is executed, or (b) October 31, 2001",
 "At the earlier of signing a definitive acquisition agreement and October 31, 2001 (extendable by mutual written agreement)."),
('n08', 'courts_and_ndas', 'low_overlap', EARTHLINK,
 "If CIDCO keeps entertaining other suitors while EarthLink is doing its due diligence, what does it owe EarthLink?",
 "CIDCO shall become liable to pay, and shall immediately pay, to EarthLink One Hundred Thousand Dollars ($100,000) plus the reasonable out-of-pocket expenses of EarthLink",
 "$100,000 plus EarthLink's reasonable out-of-pocket expenses (including attorneys' fees), as liquidated damages."),
('n09', 'courts_and_ndas', 'plain', EARTHLINK,
 "Under the EarthLink-CIDCO mutual non-disclosure agreement, how quickly must the Receiving Party return or destroy Evaluation Material after a request?",
 "the Receiving Party shall promptly (and in no event later than five business days after such request)",
 "Promptly and in any event within five business days of the request."),
('n10', 'courts_and_ndas', 'names_document', NSK,
 "Under NSK Europe's supplier non-disclosure agreement, how long is the term and how long do the obligations survive afterwards?",
 "The term of this Agreement shall be for a period of [three (3)] years from the Effective Date (the “Term”) but may be terminated or extended upon both Parties’ written agreement. 10.2. The rights and obligations contained in this Agreement shall continue in full force and effect for [two (2)] years after expiration of the Term or termination of this Agreement.",
 "A three-year term (changeable by written agreement); obligations continue for two years after expiry or termination."),
('n11', 'courts_and_ndas', 'plain', NSK,
 "Which copies are exempt from the return-or-destroy obligation in the NSK Europe supplier NDA?",
 "5.2. Clause 5.1 of this Agreement shall not apply to: a) Confidential Information held electronically in archive or back-up systems which are not otherwise reasonably retrievable by the Representatives of the Receiving Party or its Affiliates; or b) Copies of Confidential Information which must be retained by the Receiving Party pursuant to applicable law.",
 "Electronic archive/back-up copies not reasonably retrievable, and copies that must be kept by law (both remain confidential)."),
('n12', 'courts_and_ndas', 'names_document', PARTNERRE,
 "Under Partner Ireland Insurance's eHandshake non-disclosure agreement, what must the Receiving Party do once a party decides not to proceed with the business?",
 "Upon receipt of such communication the Receiving Party shall destroy promptly all documents furnished and will not retain any copies, extracts or other reproductions in whole or in part of such Information.",
 "Promptly destroy all documents and keep no copies, except information retained for legal, regulatory or compliance purposes, which stays confidential."),
('n13', 'courts_and_ndas', 'low_overlap', PARTNERRE,
 "If something the Dublin insurer shared with us through its website leaks, could we be liable for the profits it loses?",
 "no liability will be accepted in respect of any special, indirect, incidental or consequential losses or damages whatsoever (including, but not limited to, lost profits or revenue)",
 "No. Liability is limited to loss resulting directly from the breach; indirect/consequential losses, including lost profits, are excluded."),
('n14', 'courts_and_ndas', 'names_document', SAP,
 "Under the October 20, 2011 mutual non-disclosure agreement between SuccessFactors and SAP AG, how long does the employee non-solicitation last?",
 "until twelve (12) months after the date of termination of this Agreement, such party will not solicit for employment",
 "Until 12 months after the agreement terminates."),
('n15', 'courts_and_ndas', 'plain', SAP,
 "Under the SuccessFactors-SAP mutual non-disclosure agreement, may a party use \"residuals\", and what are they?",
 "either party shall be free to use for any purpose the residuals (defined below) resulting from access to or work with Confidential Information disclosed hereunder",
 "Yes; residuals are information in non-tangible form retained in the unaided memory of people who had access to the Confidential Information."),
('n16', 'courts_and_ndas', 'names_document', VERENIUM,
 "Under the May 1, 2013 confidentiality agreement between Verenium and BASF, how long does the agreement last and how can it end early?",
 "This Agreement shall commence as of the Effective Date and shall terminate one (1) year thereafter, unless earlier terminated upon 30 days written notice to the other Party",
 "One year from the Effective Date, unless terminated earlier on 30 days' written notice (standstill and non-solicit survive for their periods)."),
('n17', 'courts_and_ndas', 'low_overlap', VERENIUM,
 "If Verenium goes into Chapter 11, is BASF still barred from making a play for it?",
 "upon filing for protection under US Bankruptcy laws by Verenium or any subsidiary or Affiliate of Verenium the restrictions of this paragraph 9 shall be void and of no further force or effect with respect to the filing entity",
 "No. The standstill restrictions become void as to the entity that files for bankruptcy protection."),
('n18', 'courts_and_ndas', 'low_overlap', BPS,
 "Will teams in the Boston school bus routing contest get the children's names in the data?",
 "Of note, Vendors will not be provided with the students’ corresponding names, or other non-directory information that would require consent pursuant to 603 C.M.R. 23.00.",
 "No. Names and other non-directory information requiring consent are not provided."),
('n19', 'courts_and_ndas', 'low_overlap', BPS,
 "If our team wants to pull out of the Boston schools transportation data contest, how much warning do we owe?",
 "VENDOR must give the designated BPS representative 3-day written and verbal notice of any termination of this agreement with BPS.",
 "Three days' written and verbal notice to the designated BPS representative."),
('n20', 'courts_and_ndas', 'plain', BPS,
 "Under the Boston Public Schools Transportation Challenge NDA, what must the vendor do if it is served with a subpoena for the student data?",
 "VENDOR shall immediately notify BPS (see below) in writing of any subpoena, court order or other legal process seeking or purporting to compel disclosure of any of the Confidential Information",
 "Immediately notify BPS in writing, challenge the process as BPS deems appropriate, and not disclose until notice is given and legal remedies are exhausted."),
# ---------------------------------------------------------------- pt
('p01', 'pt', 'names_document', LOC_RES,
 "No contrato de locação residencial entre Heitor Vasconcelos Amaral e Bianca Ferraz Lobato, qual é a garantia locatícia e onde o valor deve ficar depositado?",
 "a LOCATÁRIA presta caução em dinheiro no valor de R$ 11.550,00 (onze mil, quinhentos e cinquenta reais), correspondente a três aluguéis, a qual será depositada pelo LOCADOR em caderneta de poupança aberta em nome de ambas as partes",
 "Caução em dinheiro de R$ 11.550,00 (três aluguéis), depositada em caderneta de poupança em nome de ambas as partes (art. 38, § 2º, da Lei 8.245/91)."),
('p02', 'pt', 'low_overlap', LOC_RES,
 "Se a empresa onde a inquilina do apartamento da Vila Mariana trabalha mandá-la para outra cidade e ela tiver de sair antes do fim do contrato, ela paga alguma coisa?",
 "A LOCATÁRIA ficará dispensada da multa prevista no item 6.1 se a devolução decorrer de transferência, pelo seu empregador, privado ou público, para prestar serviços em localidade diversa daquela do início do contrato",
 "Não paga a multa, desde que avise o locador por escrito com pelo menos 30 dias de antecedência (art. 4º, parágrafo único, da Lei do Inquilinato)."),
('p03', 'pt', 'names_document', LOC_GALPAO,
 "No contrato de locação do Galpão 4 entre a Pioneira Empreendimentos Imobiliários e a Rota Sul Logística, por quanto tempo a locatária fica sem pagar aluguel e por qual motivo?",
 "a LOCADORA concede carência integral de 4 (quatro) meses, de modo que o primeiro aluguel somente será devido em relação à competência de dezembro de 2024",
 "Carência integral de 4 meses por causa das obras de adaptação; o primeiro aluguel é o da competência de dezembro de 2024 (desconto condicional, exigível se houver rescisão por culpa da locatária antes de 24 meses)."),
('p04', 'pt', 'plain', LOC_GALPAO,
 "Qual a importância segurada mínima do seguro contra incêndio que a locatária deve contratar na locação do galpão em Contagem, e quem é o beneficiário?",
 "com importância segurada mínima de R$ 25.000.000,00 (vinte e cinco milhões de reais), figurando a LOCADORA como única beneficiária",
 "R$ 25.000.000,00, tendo a locadora como única beneficiária (além de seguro de responsabilidade civil de no mínimo R$ 3.000.000,00)."),
('p05', 'pt', 'names_document', TI,
 "No contrato de suporte técnico entre a Coopergerais e a Nexo Sistemas e Infraestrutura, em quanto tempo a contratada deve comunicar um incidente de segurança com dados pessoais?",
 "A CONTRATADA comunicará à CONTRATANTE, em até 24 (vinte e quatro) horas contadas da ciência, qualquer incidente de segurança",
 "Em até 24 horas da ciência, informando dados afetados, titulares, medidas adotadas e riscos (para viabilizar a comunicação à ANPD, art. 48 da LGPD)."),
('p06', 'pt', 'low_overlap', TI,
 "Se o sistema da cooperativa cair por completo num sábado, quanto tempo a empresa de informática tem para dar retorno e pôr tudo para funcionar?",
 "atendimento em até 1 (uma) hora e solução ou contorno em até 4 (quatro) horas, inclusive em finais de semana e feriados",
 "É severidade crítica: atendimento em até 1 hora e solução ou contorno em até 4 horas, inclusive em fins de semana e feriados."),
('p07', 'pt', 'plain', TI,
 "Qual é o limite de responsabilidade da contratada no contrato de suporte técnico e manutenção nº 014/2025 e em que hipóteses ele não se aplica?",
 "A responsabilidade total da CONTRATADA por perdas e danos decorrentes deste contrato fica limitada ao valor total efetivamente pago pela CONTRATANTE nos 12 (doze) meses anteriores ao evento danoso",
 "O total pago nos 12 meses anteriores ao evento danoso; não se aplica a dolo ou culpa grave, violação de confidencialidade e descumprimento das obrigações de proteção de dados."),
('p08', 'pt', 'names_document', VOO,
 "Na ação de indenização de Marina Albuquerque Teles e Rodrigo Teles Cavalcanti contra a Aerovia Linhas Aéreas, qual o total dos danos materiais pedidos e de que despesas ele se compõe?",
 "Os autores despenderam R$ 486,00 com a diária de hotel, R$ 212,40 com refeições e R$ 98,20 com transporte por aplicativo, além de R$ 1.388,00 referentes às diárias não reembolsáveis da pousada reservada em Gramado",
 "R$ 2.184,60: hotel (R$ 486,00), refeições (R$ 212,40), transporte por aplicativo (R$ 98,20) e pousada não reembolsável em Gramado (R$ 1.388,00)."),
('p09', 'pt', 'low_overlap', VOO,
 "Segundo os passageiros do voo cancelado para Porto Alegre, depois de quanto tempo de espera a empresa aérea já tinha de lhes arranjar um quarto para dormir?",
 "e, a partir de 4 (quatro) horas, serviço de hospedagem, em caso de pernoite, e traslado de ida e volta",
 "A partir de 4 horas de espera, havendo pernoite, com traslado de ida e volta (art. 27 da Resolução ANAC 400/2016)."),
('p10', 'pt', 'low_overlap', MEDIC,
 "O que a aposentada com fibrose pediu ao juiz para garantir que o governo realmente entregue o remédio a tempo?",
 "requer-se a fixação de multa diária de R$ 1.000,00 (mil reais), limitada a R$ 50.000,00 (cinquenta mil reais), na forma do art. 537 do CPC, e, em caso de descumprimento, o sequestro de verbas públicas",
 "Multa diária de R$ 1.000,00, limitada a R$ 50.000,00 (art. 537 do CPC), e, se houver descumprimento, sequestro de verbas públicas para três meses de medicamento."),
('p11', 'pt', 'plain', MEDIC,
 "Quais requisitos cumulativos do Tema 106 do STJ, invocados na ação de Lúcia Helena Prado Nogueira, devem estar presentes para o fornecimento judicial de medicamento não incorporado ao SUS?",
 "exige a presença cumulativa dos seguintes requisitos: (i) comprovação, por meio de laudo médico fundamentado e circunstanciado expedido por médico que assiste o paciente",
 "(i) laudo médico fundamentado sobre a imprescindibilidade do fármaco e a ineficácia dos fornecidos pelo SUS; (ii) incapacidade financeira; (iii) registro na ANVISA."),
('p12', 'pt', 'names_document', CONDO,
 "Na contestação de Otávio Brandão Queiroz à ação de cobrança do Condomínio Edifício Solar das Palmeiras, por que a falta de registro da escritura de venda não o manteria responsável pelas cotas posteriores à venda?",
 "o que define a responsabilidade pelo pagamento das obrigações condominiais não é o registro do compromisso de compra e venda, mas a relação jurídica material com o imóvel",
 "Porque, segundo o REsp 1.345.331/RS (repetitivo), responde quem mantém a relação jurídica material com o imóvel (imissão na posse do comprador e ciência inequívoca do condomínio), e não quem consta do registro."),
('p13', 'pt', 'plain', CONDO,
 "Qual é o prazo prescricional para a cobrança de cotas condominiais invocado na contestação do processo nº 1012876-45.2025.8.26.0114, e com que fundamento legal?",
 "A pretensão de cobrança de cotas condominiais prescreve em 5 (cinco) anos, por se tratar de dívida líquida constante de instrumento particular, nos termos do art. 206, § 5º, inciso I, do Código Civil",
 "Cinco anos (art. 206, § 5º, I, do CC; Tema 949 do STJ)."),
('p14', 'pt', 'names_document', SENT,
 "Na sentença do processo nº 0204567-45.2023.8.06.0001 (Caio Menezes Figueiredo e outra contra a Incorporadora Horizonte Atlântico), que percentual dos valores pagos a vendedora pode reter e por quê?",
 "fixo a retenção em 20% (vinte por cento) dos valores efetivamente pagos pelos autores, devendo ser restituídos os 80% restantes",
 "20%, para compensar despesas administrativas, de publicidade e de comercialização, já que os autores não receberam as chaves, dentro da faixa de 10% a 25% admitida pelo STJ."),
('p15', 'pt', 'low_overlap', SENT,
 "O casal que desistiu do apartamento na planta em Fortaleza vai receber de volta o que pagou à imobiliária que lhes vendeu o imóvel?",
 "Os autores foram, portanto, adequadamente informados, e o serviço de intermediação foi efetivamente prestado, razão pela qual improcede o pedido de devolução da comissão de corretagem.",
 "Não: a comissão de corretagem (R$ 30.600,00) estava destacada no quadro-resumo (Tema 938 do STJ) e o serviço foi prestado."),
('p16', 'pt', 'plain', SENT,
 "Com base em qual tese repetitiva do STJ a sentença da rescisão do Residencial Maré Alta fixou o termo inicial dos juros de mora sobre a restituição, e qual é esse termo?",
 "aplica-se a tese fixada no Tema 1.002 dos recursos repetitivos do STJ, segundo a qual os juros de mora incidem a partir do trânsito em julgado da decisão, e não da citação",
 "Tema 1.002 do STJ: juros de mora a partir do trânsito em julgado, e não da citação."),
('p17', 'pt', 'low_overlap', NEGAT,
 "O banco disse que quem pediu o cartão foi um golpista se passando pela cliente. Isso o livra de indenizar a consumidora que teve o nome sujo?",
 "As instituições financeiras respondem objetivamente pelos danos gerados por fortuito interno relativo a fraudes e delitos praticados por terceiros no âmbito de operações bancárias, conforme a Súmula 479 do Superior Tribunal de Justiça.",
 "Não. A fraude de terceiro é fortuito interno e o banco responde objetivamente (Súmula 479 do STJ)."),
('p18', 'pt', 'names_document', PENHORA,
 "No Agravo de Instrumento nº 5098765-71.2024.8.21.7000 (Distribuidora Faísca contra Sérgio Luís Mattos Becker), que percentual do salário do devedor foi penhorado e quanto lhe resta por mês?",
 "entendo adequada a penhora de 15% (quinze por cento) dos vencimentos líquidos mensais do executado, o que corresponde a aproximadamente R$ 1.185,00, restando-lhe cerca de R$ 6.715,00 mensais",
 "15% dos vencimentos líquidos (cerca de R$ 1.185,00), restando-lhe cerca de R$ 6.715,00 por mês."),
('p19', 'pt', 'low_overlap', PARECER,
 "A prefeitura pode contratar o conserto dos aparelhos de ar em vários contratinhos ao longo do ano, separando por repartição, para não ter de fazer licitação?",
 "não é lícito à Administração dividir a manutenção dos aparelhos em contratações sucessivas de pequeno valor",
 "Não. É fracionamento vedado: soma-se o gasto do exercício com objetos do mesmo ramo (art. 75, § 1º, da Lei 14.133/2021) e, passando o limite, é preciso licitar."),
('p20', 'pt', 'plain', PARECER,
 "Segundo o Parecer Jurídico nº 087/2025 da Procuradoria de São Bento do Vale, por quantos dias úteis o aviso da dispensa deve ser divulgado em sítio eletrônico oficial para obter propostas adicionais?",
 "pelo prazo mínimo de 3 (três) dias úteis, com a especificação do objeto pretendido",
 "Por no mínimo 3 dias úteis (art. 75, § 3º, da Lei 14.133/2021), preferencialmente."),
]

# ============================================================================ engine
import json, os, re, subprocess, sys, unicodedata, hashlib

DATA = '/work/shared/data'
HERE = os.path.dirname(os.path.abspath(__file__))
USED_BEFORE = os.path.join(HERE, 'used_before.txt')
CACHE = os.path.join(HERE, '.textcache')
MIN_QUOTE = 20          # minimum normalised quote length
KIND_QUOTA = {'names_document': 7, 'low_overlap': 7, 'plain': 6}


def norm(s):
    """NFKC + lowercase + keep alphanumerics only."""
    s = unicodedata.normalize('NFKC', s).lower()
    return ''.join(ch for ch in s if ch.isalnum())


def full_path(rel):
    if rel.startswith('./docs/'):
        return os.path.join(HERE, rel[2:])
    return os.path.join(DATA, rel)


def pdf_pages(path):
    """List of page texts (pdftotext, reading order), cached."""
    os.makedirs(CACHE, exist_ok=True)
    key = hashlib.sha1(path.encode()).hexdigest()
    cp = os.path.join(CACHE, key + '.json')
    if os.path.exists(cp):
        return json.load(open(cp, encoding='utf-8'))
    info = subprocess.run(['pdfinfo', path], capture_output=True, text=True, errors='replace').stdout
    m = re.search(r'^Pages:\s+(\d+)', info, re.M)
    n = int(m.group(1)) if m else 0
    out = subprocess.run(['pdftotext', '-enc', 'UTF-8', path, '-'], capture_output=True).stdout.decode('utf-8', 'replace')
    pages = out.split('\f')
    pages = pages[:n] + [''] * (n - len(pages[:n]))
    json.dump(pages, open(cp, 'w', encoding='utf-8'))
    return pages


def txt_lines(path):
    """Lines exactly as `cat -n` numbers them (split on \\n only)."""
    data = open(path, 'rb').read().decode('utf-8', 'replace')
    lines = data.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return lines


def file_norm_text(rel):
    p = full_path(rel)
    if rel.lower().endswith('.pdf'):
        return norm(''.join(pdf_pages(p)))
    return norm('\n'.join(txt_lines(p)))


def locate(rel, quote):
    """Return gold dict for `quote` in file `rel` or raise ValueError."""
    q = norm(quote)
    if len(q) < MIN_QUOTE:
        raise ValueError('quote too short')
    p = full_path(rel)
    if rel.lower().endswith('.pdf'):
        pages = [norm(t) for t in pdf_pages(p)]
        hits = [i + 1 for i, t in enumerate(pages) if q in t]
        if not hits:
            raise ValueError('quote not found on any single PDF page')
        if len(hits) > 1:
            raise ValueError('quote found on several pages: %s' % hits)
        if sum(t.count(q) for t in pages) != 1:
            raise ValueError('quote occurs more than once in the PDF')
        return {'file': rel, 'page': hits[0]}
    lines = txt_lines(p)
    nl = [norm(x) for x in lines]
    starts, pos = [], 0
    for x in nl:
        starts.append(pos)
        pos += len(x)
    full = ''.join(nl)
    occ = [m.start() for m in re.finditer('(?=%s)' % re.escape(q), full)]
    if not occ:
        raise ValueError('quote not found in text file')
    if len(occ) > 1:
        raise ValueError('quote occurs %d times in the file' % len(occ))
    a, b = occ[0], occ[0] + len(q) - 1
    first = max(i for i, s in enumerate(starts) if s <= a and len(nl[i]) > 0 and s + len(nl[i]) > a)
    last = max(i for i, s in enumerate(starts) if s <= b and len(nl[i]) > 0 and s + len(nl[i]) > b)
    return {'file': rel, 'lines': [first + 1, last + 1]}


def main():
    errors = []
    used = set(l.strip() for l in open(USED_BEFORE, encoding='utf-8') if l.strip())
    # -- cases
    for case, files in CASE_FILES.items():
        if len(files) != len(set(files)):
            errors.append('%s: duplicate files' % case)
        if len(files) < 30:
            errors.append('%s: only %d files' % (case, len(files)))
        for f in files:
            if not os.path.isfile(full_path(f)):
                errors.append('%s: missing file %s' % (case, f))
    normcache = {}

    def ntext(rel):
        if rel not in normcache:
            normcache[rel] = file_norm_text(rel)
        return normcache[rel]

    out_q, ids = [], set()
    counts = {}
    for (qid, case, kind, rel, question, quote, answer) in QUESTIONS:
        if qid in ids:
            errors.append('%s: duplicate id' % qid)
        ids.add(qid)
        counts.setdefault(case, {}).setdefault(kind, 0)
        counts[case][kind] += 1
        if rel not in CASE_FILES[case]:
            errors.append('%s: gold file not in case list: %s' % (qid, rel))
            continue
        if rel in used:
            errors.append('%s: gold file was used before: %s' % (qid, rel))
        try:
            gold = locate(rel, quote)
        except ValueError as e:
            errors.append('%s: %s (%s)' % (qid, e, rel))
            continue
        q = norm(quote)
        others = [f for f in CASE_FILES[case] if f != rel and q in ntext(f)]
        if others:
            errors.append('%s: quote also occurs in other file(s) of the case: %s' % (qid, others))
        gold['answer_quote'] = quote
        out_q.append({'id': qid, 'case': case, 'lang': CASE_LANG[case], 'kind': kind,
                      'question': question, 'gold': gold, 'answer': answer})
    for case in CASE_FILES:
        if counts.get(case) != KIND_QUOTA:
            errors.append('%s: kind counts %s != %s' % (case, counts.get(case), KIND_QUOTA))
    if errors:
        print('BUILD FAILED:')
        for e in errors:
            print('  -', e)
        sys.exit(1)
    doc = {
        'written': '2026-11-29',
        'description': ('Blind evaluation set of 80 legal search questions in 4 cases (3 English, 1 Brazilian '
                        'Portuguese), 20 per case: 7 names_document, 7 low_overlap, 6 plain. Each gold is one PDF '
                        'page or a tight line window of a .txt file, located automatically from a verbatim '
                        'answer_quote (NFKC + lowercase + alphanumeric-only matching); each quote occurs in no '
                        'other file of its case. Written without access to the search tool or earlier sets.'),
        'cases': {c: {'language': CASE_LANG[c], 'files': CASE_FILES[c]} for c in CASE_FILES},
        'questions': out_q,
    }
    with open(os.path.join(HERE, 'blind_set.json'), 'w', encoding='utf-8') as fh:
        json.dump(doc, fh, ensure_ascii=False, indent=1)
    print('OK: %d questions, %d cases written to blind_set.json' % (len(out_q), len(CASE_FILES)))
    for c in CASE_FILES:
        print('  %-16s files=%3d  %s' % (c, len(CASE_FILES[c]), counts[c]))


if __name__ == '__main__':
    main()
