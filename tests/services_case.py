"""A small real case for the evidence-table and case-eval tests: four short CUAD contracts (SEC
filings), ingested once per test session into a data directory under pytest's base temp folder,
so both test modules read the same case without ingesting it twice. Read-only for the tests.

What the questions' answers are, checked in the PDFs' text:
- NETZEE maintenance agreement, p. 1: "Bankers Bank agrees to pay fees equal to $40 per month"
- NYLIAC service agreement, p. 2: "FIIOC may terminate this Agreement at any time upon ninety (90)
  days' written notice to Company"
- BANGI hosting agreement, p. 1: "Managed hosting fees are $175 per month for a period of 12 months"
- FEDERATED amendment, p. 1: "dated and effective as of March 30, 2009"
"""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from tests.conftest import DATA, MODELS, require

CASE = "Services"
CUAD = DATA / "legal_span_bench/cuad_pdf"
NETZEE = CUAD / "Part_II/Maintenance/NETZEEINC_11_14_2002-EX-10.3-MAINTENANCE AGREEMENT.PDF"
FEDERATED = (
    CUAD / "Part_II/Service/FEDERATEDGOVERNMENTINCOMESECURITIESINC_04_28_2020-EX-99.SERV AGREE-SERVICES "
    "AGREEMENT_AMENDMENT.pdf"
)
NYLIAC = (
    CUAD
    / "Part_III/Service/NYLIACVARIABLEANNUITYSEPARATEACCOUNTIII_04_10_2020-EX-99.8.KK-SERVICE AGREEMENT.PDF"
)
BANGI = CUAD / "Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
FILES = (NETZEE, FEDERATED, NYLIAC, BANGI)

Q_MAINTENANCE = "How much does Bankers Bank pay per month for maintenance?"
Q_NOTICE = "How much notice must FIIOC give to terminate the service agreement?"
Q_HOSTING = "What is the monthly managed hosting fee?"
Q_AMENDMENT = "When is the amendment to the services agreement effective?"


def services_home(factory: pytest.TempPathFactory) -> Path:
    """The data directory holding CASE (built on first use in this session)."""
    root = factory.getbasetemp() / "services-case"
    home, done = root / "home", root / "ingested"
    if done.exists():
        return home
    root.mkdir(exist_ok=True)
    app = CaseTrack(resolve_settings(home, MODELS, environ={}))
    try:
        app.create_case(CASE, "contract", "en")
        results = app.ingest(CASE, [require(f) for f in FILES])
        assert [r.status for r in results] == ["ingested"] * len(FILES), [r.error for r in results]
    finally:
        app.close()
    done.touch()
    return home
