"""`casetrack case check`: does every store of a case agree — journal, LanceDB, keyword index?

Read-only by default: every LanceDB row is read once (a missing or damaged data file shows
here), each committed document's chunks are counted in LanceDB at its generation, the keyword
index is counted against them, and documents or chunks one store holds and the journal does not
are listed, with the documents lost earlier and not ingested again. Every problem names the
store that is damaged (never the user's file). `repair` rewrites a LanceDB table with
unreadable rows from its readable ones (store/lance_repair.py), runs the case's recovery
(store/case_store.py: unfinished documents rolled forward or back, a damaged journal or keyword
index rebuilt from LanceDB, a torn newest LanceDB version set aside, lost documents adopted,
documents LanceDB lost restored from an older version or named, the stored data brought up to
this CaseTrack's version: store/migrations) and checks again.
"""

from __future__ import annotations

from typing import TypedDict

from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry
from casetrack.store.journal_repair import lost_documents, unjournaled_chunks
from casetrack.store.lance_repair import damaged_tables, rewrite_damaged, still_lost
from casetrack.store.migrations import current_version


class CheckReport(TypedDict):
    case: str
    documents: int  # committed documents in the journal
    chunks: int  # their chunks, as the journal expects them
    problems: list[str]  # what is wrong, store by store
    repaired: list[str]  # what `--repair` did (empty without it)
    healthy: bool


def check_case(store: CaseStore) -> CheckReport:
    """The stores compared (no writes)."""
    problems: list[str] = []
    damaged = damaged_tables(store)  # every row read once: a missing or damaged data file shows here
    # opening set a damaged newest version aside (or put the case's copy of it back) and said so
    problems += [f"LanceDB: {line}" for line in store.lance.fallbacks]
    problems += [f"LanceDB: table {name}: {why}; its readable rows are kept" for name, why in damaged.items()]
    if store.journal_damaged:
        problems.append(f"journal: {store.journal_damaged}")
    if store.bm25.damaged:
        problems.append(f"keyword index: damaged ({store.bm25.damaged}); it is rebuilt from LanceDB")
    problems += [f"LanceDB: {line}" for line in still_lost(store)]
    if store.bm25.missing_files():
        problems.append(f"keyword index: {len(store.bm25.missing_files())} of its files are missing or empty")
    problems += _version_problem(store)
    committed = store.documents()
    expected = sum(e.expected_chunks for e in committed)
    if damaged:  # the per-document counts below would only fail again
        return _report(store, committed, expected, problems)
    for entry in store.journal.unfinished():
        problems.append(
            f"journal: {entry.name} is '{entry.state.value}' (an ingest or delete was interrupted)"
        )
    for entry, have in store.incomplete_documents():
        problems.append(f"LanceDB: {entry.name} has {have} of its {entry.expected_chunks} chunks")
    indexed = store.bm25.total()
    if indexed != expected:
        problems.append(f"keyword index: holds {indexed} chunks, the committed documents have {expected}")
    for row in lost_documents(store.journal, store.lance):
        problems.append(f"journal: does not know {row.get('name') or row['doc_id']}, which LanceDB holds")
    for doc_id in sorted(unjournaled_chunks(store.journal, store.lance)):
        problems.append(f"LanceDB: chunks of an unknown document {doc_id} (kept out of search)")
    return _report(store, committed, expected, problems)


def _version_problem(store: CaseStore) -> list[str]:
    version = store.schema_version()
    if version >= current_version():
        return []
    return [
        f"stored data: version {version}, this CaseTrack uses {current_version()} (upgraded by --repair, "
        "or by any command that opens the case while no other process writes it)"
    ]


def _report(
    store: CaseStore, committed: list[JournalEntry], expected: int, problems: list[str]
) -> CheckReport:
    return {
        "case": store.record.name,
        "documents": len(committed),
        "chunks": expected,
        "problems": problems,
        "repaired": [],
        "healthy": not problems,
    }


def repair_case(store: CaseStore) -> CheckReport:
    """Recovery, then the check again (the caller holds the case's writer lock); files and
    folders of the case readable by other accounts are made private too."""
    from casetrack.privacy_fs import repair_permissions

    before = check_case(store)
    actions = [*rewrite_damaged(store), *store.recover()] if not before["healthy"] else []
    actions += [f"permissions: {line}" for line in repair_permissions(store.dir)]
    after = check_case(store)
    after["repaired"] = actions
    return after
