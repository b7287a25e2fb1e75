"""An ingest batch as the app runs it, holding the case's writer lock: model check, files one by
one, then compaction and indexes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from casetrack.app.models_check import mismatches
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import CaseTrackError
from casetrack.ingest.pipeline import FileResult, Ingestor, Parse, Progress
from casetrack.store.case_store import CaseStore

log = logging.getLogger(__name__)


def ingest_files(
    store: CaseStore,
    pool: EmbedderPool,
    parse: Parse | None,
    paths: Sequence[Path],
    force: bool,
    password: str | None,
    on_file: Callable[[int, int, Path], None] | None,
    progress: Progress | None,
    on_result: Callable[[FileResult], None] | None,
) -> list[FileResult]:
    mismatched = mismatches(store, pool)
    if mismatched:
        raise CaseTrackError(
            "The installed models differ from the ones this case was embedded with; new "
            "documents would not be comparable with the old ones. " + " ".join(mismatched.values()),
            f'casetrack reembed --case "{store.record.name}"',
        )
    ingestor = Ingestor(store, pool, parse)
    results: list[FileResult] = []
    for i, path in enumerate(paths):
        if on_file:
            on_file(i, len(paths), path)
        kwargs = {"progress": progress} if progress else {}
        result = ingestor.ingest_file(path, force=force, password=password, **kwargs)
        log.info("%s: %s", path.name, result.status)
        results.append(result)
        if on_result:
            on_result(result)
    if any(r.status in ("ingested", "replaced") for r in results):
        if progress:
            progress("index", 0, 1)
        for step in store.lance.maintain():
            log.info("case %s: %s", store.record.name, step)
        if progress:
            progress("index", 1, 1)
    return results
