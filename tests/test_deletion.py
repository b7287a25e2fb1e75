"""Deleting is deleting: after `casetrack documents delete`, no table version, no data file and
no keyword-index segment holds the document, and nothing under the data directory contains its
distinctive sentence; the other documents stay searchable.

Each check is shown to see the document before the delete (a check that could not fail would
prove nothing): LanceDB keeps a deleted row in its fragment behind a deletion mask and in every
older version, and tantivy keeps it in its segment until a merge.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run

SECRET = "The settlement figure agreed in mediation is four million two hundred thousand dollars"
# A long document: the deleted one must be under a tenth of its fragment's rows, as in a real
# case (a smaller share is where compaction alone would leave the rows on disk).
CLAUSES = "\n\n".join(
    f"{n}. The landlord and the tenant agree on clause {n}: repairs of item {n} are due within {n + 5} days of "
    "written notice, at the cost of the party that caused the damage, and disputes go to mediation first. "
    * 3
    for n in range(1, 61)
)
OTHERS = {
    "lease.txt": "The tenant shall pay rent monthly.\n\nEither party may terminate with sixty days notice.\n\n"
    + CLAUSES,
    "policy.txt": "Employees accrue vacation days each month.\n\nUnused vacation expires at year end.\n",
}


def _lance(home: Path) -> Any:
    import lancedb

    (case_dir,) = list((home / "cases").iterdir())
    return lancedb.connect(str(case_dir / "lance")).open_table("chunks")


def _versions_holding(table: Any, doc_id: str) -> list[int]:
    holding = []
    for version in [int(v["version"]) for v in table.list_versions()]:
        table.checkout(version)
        if table.count_rows(f"doc_id = '{doc_id}'"):
            holding.append(version)
    table.checkout_latest()
    return holding


def _segments(home: Path) -> set[str]:
    return {p.name for p in home.glob("cases/*/bm25/*") if p.suffix not in (".json", ".lock")}


def _grep(home: Path, text: str) -> list[str]:
    found = subprocess.run(["grep", "-rlF", text, str(home)], capture_output=True, text=True)
    return found.stdout.split()


@pytest.mark.slow
def test_a_deleted_document_leaves_the_disk(home: Path, tmp_path: Path) -> None:
    from casetrack.store.purge import physical_rows

    folder = tmp_path / "matter"
    folder.mkdir()
    for name, text in OTHERS.items():
        (folder / name).write_text(text)
    (folder / "mediation.txt").write_text(f"Confidential mediation memo.\n\n{SECRET}.\n")
    run("case", "create", "Mediation")
    run("ingest", "--case", "Mediation", *sorted(str(p) for p in folder.iterdir()))
    doc_id = next(
        d["document_id"]
        for d in json.loads(run("documents", "list", "--case", "Mediation", "--json").stdout)
        if d["name"] == "mediation.txt"
    )
    hits = json.loads(run("search", "--case", "Mediation", "settlement figure mediation", "--json").stdout)[
        "results"
    ]
    assert hits and hits[0]["source"]["document"] == "mediation.txt"
    # Compacted, as a case is once small commits pile up: the document now shares its fragment
    # with the others, so deleting it leaves its rows in that fragment behind a mask.
    table = _lance(home)
    table.optimize()
    assert table.stats()["fragment_stats"]["num_fragments"] == 1 and table.count_rows() > 20
    # Every check sees the document before the delete.
    assert _versions_holding(table, doc_id)
    before_segments = _segments(home)
    assert before_segments

    refused = run("documents", "delete", "--case", "Mediation", "mediation.txt", ok=False)
    assert refused.exit_code != 0 and "--yes" in refused.stderr
    done = run("documents", "delete", "--case", "Mediation", "mediation.txt", "--yes")
    assert "from the disk" in done.output

    table = _lance(home)
    assert _versions_holding(table, doc_id) == [], "an older table version still returns the document"
    assert [int(v["version"]) for v in table.list_versions()] == [int(table.version)]
    assert physical_rows(table) == table.count_rows(), "deleted rows still sit in a data file behind a mask"
    assert not (before_segments & _segments(home)), "a keyword-index segment from before the delete survived"
    assert _grep(home, SECRET) == [] and _grep(home, "four million two hundred thousand") == []
    after = json.loads(run("search", "--case", "Mediation", "settlement figure mediation", "--json").stdout)[
        "results"
    ]
    assert all(h["source"]["document"] != "mediation.txt" for h in after)
    kept = json.loads(
        run("search", "--case", "Mediation", "terminate with sixty days notice", "--json").stdout
    )
    assert kept["results"][0]["source"]["document"] == "lease.txt"
    assert {
        d["name"] for d in json.loads(run("documents", "list", "--case", "Mediation", "--json").stdout)
    } == set(OTHERS)
