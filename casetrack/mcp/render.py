"""The readable text of each tool's answer (PRD 09's wording), built from the structured data.

Claude reads this text; the same facts also travel as `structuredContent`. Results stay compact:
ten search results fit comfortably in a model's context.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

DOWNLOAD_FIX = (
    "download_models() installs the missing models from the model hub (pinned, checked; search uses "
    "them at once), or import_models(folder_path=...) from a folder on a computer without internet."
)

NO_ACTIVE_CASE = (
    "No active case. Create or switch to a case first:\n"
    "  - create_case: Create a new case\n"
    "  - switch_case: Switch to an existing case\n"
    "  - list_cases: See all cases\n"
    "(Or pass case_name to this tool.)"
)


def _date(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ts)) if ts else "?"


def _n(value: int | None) -> str:
    return f"{int(value or 0):,}"


def case_line(case: Mapping[str, Any], active: bool) -> str:
    mark = "* " if active else "  "
    current = " <-- current" if active else ""
    head = f"{mark}{case['name']} [{str(case['status']).upper()}]{current}"
    body = (
        f"    {str(case['type']).replace('_', ' ').title()} | {case.get('language', 'en')} | "
        f"{_n(case.get('document_count'))} documents | {_n(case.get('chunk_count'))} chunks | "
        f"Created {_date(case.get('created_at'))} | ID: {case['id']}"
    )
    return f"{head}\n{body}"


def case_list(cases: Sequence[Mapping[str, Any]], active_id: str | None, status_filter: str) -> str:
    if not cases:
        which = "" if status_filter == "all" else f" {status_filter}"
        return f"No{which} cases.\n\nNext: create_case(name=...) to start one." + (
            "" if status_filter == "all" else ' (status_filter="all" shows every case.)'
        )
    label = "" if status_filter == "all" else f" {status_filter}"
    lines = [f"Cases ({len(cases)}{label}):", ""]
    lines += [case_line(c, c["id"] == active_id) for c in cases]
    return "\n".join(lines)


def created(case: Mapping[str, Any]) -> str:
    return (
        f'Created case "{case["name"]}" (ID: {case["id"]}).\n'
        f"Type: {str(case['type']).replace('_', ' ').title()} | Language: {case['language']}\n"
        "This is now your active case.\n\nNext: Ingest documents with ingest_document or ingest_folder."
    )


def case_info(info: Mapping[str, Any], storage_bytes: int) -> str:
    lines = [
        f"Case: {info['name']} (ID: {info['id']})",
        f"Type: {str(info['type']).replace('_', ' ').title()} | Status: {str(info['status']).title()} | "
        f"Language: {info['language']}",
        f"Created: {_date(info.get('created_at'))}",
        "",
        f"Documents ({len(info['documents'])}):",
    ]
    for i, d in enumerate(info["documents"][:50], start=1):
        pages = f"{d['pages']} pages, " if d.get("pages") else ""
        ocr = f", {len(d['needs_ocr_pages'])} pages need OCR" if d.get("needs_ocr_pages") else ""
        lines.append(f"  {i}. {d['name']} - {pages}{_n(d.get('chunks'))} chunks{ocr}")
    if len(info["documents"]) > 50:
        lines.append(f"  ... and {len(info['documents']) - 50} more (list_documents shows all)")
    if info.get("in_progress"):
        lines.append(f"Being ingested: {', '.join(info['in_progress'])}")
    lines += [
        "",
        f"Total: {_n(info.get('page_count'))} pages, {_n(info.get('chunk_count'))} chunks",
        f"Storage: {storage_bytes / 2**20:.1f} MB",
    ]
    return "\n".join(lines)


def job(j: Mapping[str, Any]) -> str:
    if j.get("kind") in ("download", "import"):
        return models_job(j)
    results = j.get("results") or []
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    ok = counts.get("ingested", 0) + counts.get("replaced", 0)
    head = {
        "queued": "Queued",
        "running": "Running",
        "done": "Finished",
        "failed": "Failed",
        "cancelled": "Cancelled",
    }.get(j["status"], j["status"])
    lines = [f"Ingest job {j['id']} for {j['case_name']}: {head} ({j['done']} of {j['total']} files)"]
    if j.get("label"):
        lines.append(f"  Source:     {j['label']}")
    if j.get("current") and j["status"] not in ("done", "failed", "cancelled"):
        lines.append(f"  Now:        {j['current']} ({j.get('stage') or 'starting'})")
    lines.append(
        f"  Ingested:   {ok}   Duplicates: {counts.get('duplicate', 0)}   "
        f"Need OCR: {counts.get('needs_ocr', 0)}   Failed: {counts.get('error', 0)}"
    )
    pages = sum(int(r.get("pages") or 0) for r in results if r["status"] in ("ingested", "replaced"))
    chunks = sum(int(r.get("chunks") or 0) for r in results)
    lines.append(f"  Pages:      {_n(pages)}   Chunks: {_n(chunks)}")
    ocr = [r for r in results if r.get("ocr_pages")]
    if ocr:
        lines.append(
            f"  OCR:        {_n(sum(len(r['ocr_pages']) for r in ocr))} pages read by OCR in {len(ocr)} files"
        )
        for r in [r for r in ocr if r.get("low_confidence_pages")][:10]:
            low = ", ".join(map(str, r["low_confidence_pages"][:10]))
            lines.append(
                f"  - {r['name']}: low OCR confidence on p. {low}: quote those pages only after checking the scan"
            )
    if j.get("started_at"):
        end = j.get("finished_at") or time.time()
        lines.append(f"  Duration:   {end - j['started_at']:.1f} seconds")
    problems = [r for r in results if r["status"] in ("error", "needs_ocr")]
    dups = [r for r in results if r["status"] == "duplicate"]
    if problems:
        lines += ["", "  Failures:"]
        for r in problems[:20]:
            hint = f" {r['hint']}" if r.get("hint") else ""
            lines.append(f"  - {r['name']}: {r.get('error')}{hint}")
        if len(problems) > 20:
            lines.append(f"  ... and {len(problems) - 20} more")
    near = [r for r in results if r.get("near_duplicate_of")]
    if near:
        lines += ["", "  Near-duplicates (ingested; each nearly copies a document already in the case):"]
        for r in near[:20]:
            n = r["near_duplicate_of"]
            lines.append(
                f"  - {r['name']}: of {n['name']} ({n['similarity']:.0%} the same; "
                f"{n['words_changed']} words, {n['lines_changed']} lines changed)"
            )
    if dups:
        lines.append("")
        lines.append(
            f"  Already in the case: {', '.join(r['name'] for r in dups[:10])}"
            + (" ..." if len(dups) > 10 else "")
            + " (force=true re-ingests)"
        )
    if j.get("error"):
        lines += ["", f"Error: {j['error']}" + (f"\n{j['hint']}" if j.get("hint") else "")]
    if j["status"] in ("queued", "running"):
        lines += ["", f'Still working. Check again with get_job(job_id="{j["id"]}", wait_seconds=30).']
    elif j["status"] == "done" and ok:
        lines += ["", "These documents are now searchable: search_case(query=...)."]
    return "\n".join(lines)


def documents(case_name: str, docs: Sequence[Mapping[str, Any]]) -> str:
    if not docs:
        return f"No documents in {case_name} yet.\n\nNext: ingest_document(file_path=...) or ingest_folder(folder_path=...)."
    lines = [f"Documents in {case_name} ({len(docs)}):", ""]
    for i, d in enumerate(docs, start=1):
        pages = f"{d['pages']} pages, " if d.get("pages") else ""
        lines.append(
            f"  {i}. {d['name']} ({d.get('file_type') or '?'}) - {pages}{_n(d.get('chunks'))} chunks "
            f"| ID: {d['document_id']}"
        )
        legal = [
            d.get("doc_type") or "",
            d.get("doc_date") or "",
            ", ".join(d.get("process_numbers") or [])[:80],
            ", ".join(d.get("tribunals") or [])[:60],
            ", ".join(d.get("tags") or []),
        ]
        if any(legal):
            lines.append("     " + " | ".join(x for x in legal if x))
        if d.get("near_duplicate_of"):
            lines.append(f"     {near_duplicate(d['near_duplicate_of'])}")
    return "\n".join(lines)


def near_duplicate(near: Mapping[str, Any]) -> str:
    return (
        f"Near-duplicate of {near['name']} ({near['similarity']:.0%} the same; "
        f"{near['words_changed']} words, {near['lines_changed']} lines changed)"
    )


def document(d: Mapping[str, Any]) -> str:
    lines = [f"Document: {d['name']} (ID: {d['document_id']})"]
    for key, label in (
        ("file_type", "Type"),
        ("pages", "Pages"),
        ("chunks", "Chunks"),
        ("extraction", "Extraction"),
        ("source_path", "Source"),
        ("sha256", "SHA-256"),
    ):
        if d.get(key) not in (None, "", []):
            lines.append(f"  {label + ':':<11} {d[key]}")
    if d.get("needs_ocr_pages"):
        lines.append(f"  Needs OCR:  pages {', '.join(map(str, d['needs_ocr_pages'][:30]))}")
    if d.get("ocr_pages"):
        scores = d.get("page_ocr_confidence") or {}
        mean = sum(scores.values()) / len(scores) if scores else None
        lines.append(
            f"  OCR:        {len(d['ocr_pages'])} pages read by OCR"
            + (f", mean confidence {mean:.0f}/100" if mean is not None else "")
        )
    if d.get("low_confidence_pages"):
        lines.append(
            f"  Check:      low OCR confidence on pages {', '.join(map(str, d['low_confidence_pages'][:30]))}"
        )
    if d.get("bates"):
        lines.append(f"  Bates:      {' - '.join(d['bates'])}")
    for key, label in (
        ("doc_type", "Legal type"),
        ("doc_date", "Dated"),
        ("process_numbers", "Process"),
        ("tribunals", "Tribunal"),
        ("parties", "Parties"),
        ("tags", "Tags"),
        ("authorities", "Cites"),
    ):
        value = d.get(key)
        if value:
            lines.append(
                f"  {label + ':':<11} {', '.join(map(str, value[:12])) if isinstance(value, list) else value}"
            )
    for key, value in (d.get("fields") or {}).items():
        lines.append(f"  {str(key) + ':':<11} {value}")
    for check in d.get("process_checks") or []:
        if check.get("problem"):
            lines.append(f"  Warning:    {check['problem']}")
    if d.get("near_duplicate_of"):
        lines.append(f"  {near_duplicate(d['near_duplicate_of'])}")
    if d.get("near_duplicates"):
        lines.append(f"  Copies:     {', '.join(c['name'] for c in d['near_duplicates'])} nearly copy it")
    if d.get("thread"):
        lines.append(f"  Thread:     {len(d['thread'])} messages, oldest first:")
        lines += [
            f"    - {(m.get('date') or '')[:16]} {m['sender']}: {m['subject']} ({m['name']})"
            for m in d["thread"]
        ]
    return "\n".join(lines)


def search(out: Mapping[str, Any], case_stats: str, max_chars: int = 700) -> str:
    timing = out.get("timings_ms", {}).get("total", 0)
    lines = [
        f'Search: "{out["query"]}"',
        f"Case: {out['case']} | {case_stats}",
        f"Time: {timing:.0f}ms | Stages: {', '.join(out.get('stages_used', []))}",
    ]
    if out.get("expression"):
        lines.append(
            f"Terms and connectors: {out['expression']} | {out.get('total_matches', 0)} matching passages (exact)"
        )
    for warning in out.get("warnings", []):
        lines.append(f"Note: {warning}")
    if out.get("models_missing"):
        lines.append(f"Fix: {DOWNLOAD_FIX}")
    if not out["results"] and out.get("expression"):
        return "\n".join(lines)
    if not out["results"]:
        lines += ["", "No results. Try other words, a broader question, or check list_documents."]
        return "\n".join(lines)
    if out.get("no_good_match"):
        lines += [
            "",
            "No good match: nothing in this case clearly answers this; the results below are only the "
            "nearest text. Do not treat them as the answer.",
        ]
    if out.get("documents"):
        lines += ["", "Best documents:"]
        for i, d in enumerate(out["documents"], start=1):
            lines.append(
                f"  {i}. {d['document']} ({d['matching_chunks']} passages; best at {d['best']['citation']})"
            )
    for i, hit in enumerate(out["results"], start=1):
        text = hit.get("snippet") or hit["text"]
        if len(text) > max_chars:
            text = text[:max_chars].rsplit(" ", 1)[0] + " ..."
        rated = (
            f"relevance: {hit['relevance']:.2f} {hit['match']}"
            if hit.get("relevance") is not None
            else f"score: {hit['score']:.2f}"
        )
        source = hit.get("source") or {}
        if source.get("extraction_method") == "ocr":  # OCR'd text: say how sure the reading is
            confidence = source.get("ocr_confidence")
            rated += "; OCR" + (f", confidence {confidence:.0f}/100" if confidence is not None else "")
        lines += ["", f"--- Result {i} ({rated}) ---", hit["citation"]]
        if source.get("section"):
            lines.append(f"Section: {source['section']}")
        if hit.get("near_duplicates"):
            lines.append(f"Also in its near-duplicates: {', '.join(hit['near_duplicates'])}")
        lines += [f"chunk_id: {hit['chunk_id']}", "", f'"{text}"']
        if hit.get("matched"):
            lines.append("Matched: " + " | ".join(hit["matched"]))
        ctx = hit.get("context")
        if ctx:
            if ctx.get("before"):
                lines.insert(len(lines) - 1, f"[before] ...{ctx['before']}")
            if ctx.get("after"):
                lines.append(f"[after] {ctx['after']}...")
    lines += ["", "get_chunk(chunk_id=...) shows a passage in full with its neighbours."]
    return "\n".join(lines)


def chunk(c: Mapping[str, Any]) -> str:
    lines = [c.get("citation", ""), f"chunk_id: {c['chunk_id']}", ""]
    if c.get("chunk_citation"):  # pinned to a query: the matched lines, then the whole passage
        lines[1:1] = [f'"{c.get("snippet", "")}"', f"passage: {c['chunk_citation']}"]
    for n in c.get("before", []):
        lines += [f"[before: {n.get('citation', n['chunk_id'])}]", n["text"], ""]
    lines += ["[this passage]", c["text"]]
    for n in c.get("after", []):
        lines += ["", f"[after: {n.get('citation', n['chunk_id'])}]", n["text"]]
    return "\n".join(lines)


def entities(out: Mapping[str, Any]) -> str:
    docs = out.get("documents") or []
    total = sum(len(d.get("mentions", [])) for d in docs)
    notes = [f"Note: {w}" for w in out.get("warnings") or []]
    number = out.get("process_number") or {}
    if number.get("tribunal"):
        notes.append(f"Tribunal (from the number's J.TR segment): {number['tribunal']}")
    if not total:
        return "\n".join(
            [
                f'No mentions of "{out["entity"]}" found in {out["case"]}.',
                "Try a shorter form of the name, or search_case for related passages.",
                *notes,
            ]
        )
    found = f"{out.get('exact_count', total)} exact, {out.get('fuzzy_count', 0)} close variants"
    lines = [f'Mentions of "{out["entity"]}" in {out["case"]}: {found} in {len(docs)} documents', *notes, ""]
    for d in docs:
        lines.append(f"{d['document']} ({len(d['mentions'])}):")
        for m in d["mentions"][:10]:
            kind = "exact" if m["kind"] == "exact" else f"fuzzy {m['similarity']:.2f}"
            lines.append(f'  - {m["citation"]} [{kind}] "{m["matched_text"]}": {m.get("snippet", "")}')
        if len(d["mentions"]) > 10:
            lines.append(f"  ... and {len(d['mentions']) - 10} more")
    if out.get("truncated"):
        lines.append("(More mentions exist: raise top_k to see them.)")
    return "\n".join(lines)


def status(s: Mapping[str, Any]) -> str:
    d = s["daemon"]
    lines = [
        f"CaseTrack v{s['version']}",
        "",
        f"Active Case: {s.get('active_case') or 'none'}",
        f"Data directory: {s['data_dir']}",
        f"Cases: {s['cases']}",
        "",
        f"Memory mode: {s['memory_mode']} ({s.get('memory_mode_reason', '')})",
        "Models:",
    ]
    for language, slots in s.get("slots", {}).items():
        for slot in slots:
            state = "loaded" if slot.get("loaded") else slot.get("residency", "")
            # A missing model's problem names a terminal command: the fix below is the tool call.
            problem = f" - {slot['problem']}" if slot.get("problem") and slot.get("model") else ""
            lines.append(
                f"  {slot['slot']} ({language}, {slot['purpose']}): {slot.get('model') or 'not installed'}"
                f" [{state}]{problem}"
            )
    if s.get("models_dir"):
        lines.append(
            f"Models folder: {s['models_dir']}"
            + (
                f" (downloads go to {s['models_install_dir']})"
                if s.get("models_install_dir") not in (None, s["models_dir"])
                else ""
            )
        )
    lines += missing_models(s.get("models_missing") or [])
    ocr = s.get("ocr") or {}
    if ocr.get("available"):
        lines.append(
            f"OCR: tesseract {ocr.get('version')}, languages: {', '.join(ocr.get('languages') or []) or 'none'}"
        )
    if ocr.get("problem"):
        lines.append(f"OCR problem: {ocr['problem']}" + (f" Fix: {ocr['fix']}" if ocr.get("fix") else ""))
    lines += [
        "",
        f"Daemon: pid {d['pid']}, up {d['uptime_s']:.0f} s, {d['rss_mb']:.0f} MB RAM, "
        f"{d['connections']} connection(s), models loaded {d['model_loads']} time(s)",
    ]
    if d.get("jobs_active"):
        lines.append(
            "Jobs: "
            + ", ".join(f"{j['id']} ({j['status']}, {j['done']}/{j['total']})" for j in d["jobs_active"])
        )
    return "\n".join(lines)


def authorities(out: Mapping[str, Any]) -> str:
    items = out.get("authorities") or []
    if not items:
        return f"No cited authorities found in {out['case']}'s documents."
    lines = [f"Table of authorities, {out['case']}: {out['total']} cited; the {len(items)} most cited:", ""]
    for i, a in enumerate(items, start=1):
        lines.append(
            f"{i}. {a.get('title') or a['text']} ({a['kind']}; {a['documents']} documents, {a['mentions']} mentions)"
        )
        lines += [f"   - {p['citation']}" for p in a.get("cited_in") or []]
    return "\n".join(lines)


def skipped(entries: Sequence[Mapping[str, str]]) -> str:
    """The folder entries ingest_folder left out (links out of the folder, loops), one line each."""
    if not entries:
        return ""
    lines = ["", f"Skipped {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} of the folder:"]
    lines += [f"  - {e['name']}: {e['reason']} {e['hint']}" for e in entries[:50]]
    return "\n".join(lines)


def _mb(size: int | None) -> str:
    return f"{size / 1e6:,.0f} MB" if size else "size unknown"


def missing_models(missing: Sequence[Mapping[str, Any]]) -> list[str]:
    """get_status's lines on the models the memory mode uses that are not installed, and the fix."""
    if not missing:
        return []
    lines = ["", "Missing models (search runs without them, so results may be weaker):"]
    for m in missing:
        pin = "" if m.get("pinned") else "; not pinned: needs allow_unpinned=true"
        lines.append(
            f"  {m['slot']} {m['purpose']}: {m['model']} ({_mb(m.get('size_bytes'))}{pin}) - without it "
            f"search skips {m['stage']}"
        )
    return [*lines, f"Fix: {DOWNLOAD_FIX}"]


def nothing_to_download(missing: Sequence[Mapping[str, Any]], unpinned: Sequence[str]) -> str:
    if not missing:
        return "Every model the memory mode uses is installed: nothing to download. get_status lists them."
    return unpinned_note(unpinned) or "Nothing to download."


def unpinned_note(unpinned: Sequence[str]) -> str:
    if not unpinned:
        return ""
    names = ", ".join(f'"{m}"' for m in unpinned)
    return (
        f"Not downloaded: {names.replace(chr(34), '')} - the catalog pins no version or checksum for it. "
        f"download_models(models=[{names}], allow_unpinned=true) takes the hub's current files (their commit is "
        "recorded), or import_models(folder_path=...) installs files you trust."
    )


def models_job(j: Mapping[str, Any]) -> str:
    """A download_models / import_models job: progress, each model's outcome, the next step."""
    what = "Model download" if j.get("kind") == "download" else "Model import"
    unit = "models" if j.get("kind") == "download" else "folder"
    head = {
        "queued": "Queued",
        "running": "Running",
        "done": "Finished",
        "failed": "Failed",
        "cancelled": "Cancelled",
    }.get(j["status"], j["status"])
    lines = [f"{what} job {j['id']}: {head} ({j['done']} of {j['total']} {unit})"]
    if j.get("current") and not j.get("finished_at"):
        lines.append(f"  Now:        {j['current']} ({j.get('stage') or 'starting'})")
    for r in j.get("results") or []:
        if r.get("carried"):
            lines.append(f"  Copied along from the models folder in use: {', '.join(r['carried'])}")
        if r["status"] == "failed":
            lines.append(
                f"  - {r['name']}: failed: {r.get('error')}" + (f"\n    {r['hint']}" if r.get("hint") else "")
            )
            continue
        for m in r.get("models") or [r]:
            revision = f", revision {str(m['revision'])[:12]}" if m.get("revision") else ""
            lines.append(
                f"  - {m.get('name')} ({m.get('slot')}): {r['status'] if m is r else 'installed'} in "
                f"{m.get('folder')}{revision}"
            )
        lines += [f"    warning: {w}" for w in r.get("warnings") or []]
    if j.get("started_at"):
        end = j.get("finished_at") or time.time()
        lines.append(f"  Duration:   {end - j['started_at']:.1f} seconds")
    if j.get("error"):
        lines += ["", f"Error: {j['error']}" + (f"\n{j['hint']}" if j.get("hint") else "")]
    if j["status"] in ("queued", "running"):
        lines += [
            "",
            f"Still working; search works meanwhile without these models. Check again with "
            f'get_job(job_id="{j["id"]}", wait_seconds=30).',
        ]
    elif j["status"] == "done":
        lines += [
            "",
            "Search uses the installed models now. Documents ingested before a model was installed get "
            "its vectors with `casetrack reembed --case NAME` (get_status shows what a case lacks).",
        ]
    elif j["status"] == "cancelled" and j.get("kind") == "download":
        lines += ["", "download_models() continues from where it stopped."]
    return "\n".join(lines)
