"""`casetrack status` / get_status: the memory tier, the models per slot, OCR (tesseract) and,
for one case, its models, missing vectors and the search stages it will skip."""

from __future__ import annotations

from typing import cast

from casetrack import __version__
from casetrack.app.models_check import mismatches, missing_models, models_fix, search_skips
from casetrack.config import Settings
from casetrack.domain.cases import LANGUAGES
from casetrack.domain.views import CaseModelStatus, OcrStatusJson, SlotStatusJson, StatusReport
from casetrack.embed.production import load_catalog
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import ParseError
from casetrack.store.case_store import CaseStore
from casetrack.store.lance_tables import SLOT_COLUMN, WINDOW_VECTORS


def status_report(
    pool: EmbedderPool, settings: Settings, cases: int, store: CaseStore | None = None
) -> StatusReport:
    """The process's state; with `store`, that case's models too (slots for its language only)."""
    case = case_model_status(store, pool) if store is not None else None
    languages = [store.record.language] if store is not None else list(LANGUAGES)
    slots: dict[str, list[SlotStatusJson]] = {
        lang: [s.to_json() for s in pool.status(lang)] for lang in languages
    }
    missing = missing_models(
        pool, load_catalog(settings.model_catalog), store.record.language if store is not None else None
    )
    report: StatusReport = {
        "version": __version__,
        "data_dir": str(settings.data_dir),
        "models_dir": str(settings.models_dir),
        "models_source": settings.models_source,
        "models_install_dir": str(settings.models_target),
        "models_missing": missing,
        "models_fix": models_fix(missing),
        "memory_mode": pool.tier.value,
        "memory_mode_reason": pool.tier_reason,
        "loaded_models": pool.loaded_models(),
        "cases": cases,
        "slots": slots,
        "ocr": ocr_status(languages),
    }
    if case is None:
        return report
    # "case" before "slots", as `status --json` has always printed them.
    ordered = {k: v for k, v in report.items() if k != "slots"} | {"case": case, "slots": slots}
    return cast(StatusReport, ordered)


def ocr_status(case_languages: list[str]) -> OcrStatusJson:
    """tesseract's version and languages, and what is missing for these case languages."""
    from casetrack.ocr import engine_info, ocr_languages, require_languages

    info = engine_info()
    problem, fix = info.problem, info.fix
    if info.available and problem is None:
        for language in case_languages:
            try:
                require_languages(ocr_languages(language))
            except ParseError as e:
                problem, fix = e.message, e.hint
                break
    return {
        "available": info.available,
        "version": info.version,
        "languages": list(info.languages),
        "problem": problem,
        "fix": fix,
    }


def case_model_status(store: CaseStore, pool: EmbedderPool) -> CaseModelStatus:
    mismatched = mismatches(store, pool)
    return {
        "name": store.record.name,
        "language": store.record.language,
        "models": store.models(),
        "mismatched": mismatched,
        "chunks_missing": {slot: store.lance.count_missing(col) for slot, col in SLOT_COLUMN.items()},
        "search_skips": search_skips(store, pool, mismatched),
        # Chunks embedded before E1 passage windows existed: `reembed` adds them.
        "windows_missing": store.lance.count_missing(WINDOW_VECTORS),
    }
