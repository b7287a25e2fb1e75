"""The fault table: every file a case owns x {zeroed, cut to half, deleted} -> what the user sees.

One small case is built from real files (two texts and a PDF from ../shared/data) in each of three
states: `fresh` (ingested), `deleted` (a fourth document ingested, then deleted: the tables keep one
version each) and `reembed` (every embedding recomputed). Each trial copies its data directory,
damages one file (or deletes a table's `_versions/` folder or its whole folder), then runs the
next user commands through the real CLI in-process (`search`, `ingest` of one more file,
`case info`), then `casetrack case check NAME --repair`, then checks every document that should
be back is back and found by search, and that the deleted document's text is back nowhere. A step
passes when it works, or fails with one clear message that names the command that repairs it (no
traceback, no raw LanceDB/Rust/SQLite text). With `--moved` each state runs twice more with the
original files moved away: the repair cannot ingest anything again, so every document whose
data the fault destroyed must be named with the fix, and no other document may be lost (only the
LanceDB files and their copies are tried so: no other file holds text the repair could ingest
again).

    .venv/bin/python -m bench.faults [--states fresh,deleted,reembed] [--moved] [--json out.json]

tests/test_fault_injection.py (slow tier) runs the same matrix and asserts on it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODELS = REPO.parent / "shared" / "models"
CASE = "Faults"
FAULTS = ("zero", "half", "delete")
# Text a user never sees from CaseTrack: tracebacks and the stores' own error wording.
RAW = (
    "Traceback",
    "LanceError",
    "lance error",
    "Invalid range",
    "panicked",
    "RuntimeError",
    "DatabaseError",
    "sqlite3.",
    "OSError",
    "ValueError",
    "/rustc/",
    "Data corrupted",
)


@dataclass(frozen=True)
class Doc:
    name: str
    probe: str  # words only this document holds: search must put it first


STATES = ("fresh", "deleted", "reembed")
DELETED = "withdrawn.txt"  # the document the `deleted` state ingests, then deletes
DELETED_WORDS = "Zanzibar clavichord quartermaster affidavit"  # its words: never on disk afterwards


@dataclass(frozen=True)
class Base:
    """The case every trial starts from."""

    home: Path
    docs: tuple[Doc, ...]
    extra: Path  # the file each trial ingests after the fault
    extra_doc: Doc
    files: dict[str, Path] = field(default_factory=dict)  # name -> original file
    holds: dict[str, frozenset[str]] = field(default_factory=dict)  # LanceDB chunks data file -> documents
    state: str = "fresh"
    moved: bool = False  # the original files were moved away after ingest (no ingest again)


@dataclass
class Step:
    command: str
    exit_code: int
    message: str  # the error shown (first lines), "" when it worked
    clean: bool  # worked, or failed with a clear message naming a casetrack command
    output: str = ""  # what it printed (the first 20000 characters)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass
class Trial:
    target: str  # the damaged file, relative to the case folder (or the data folder)
    role: str
    fault: str
    steps: list[Step]
    repair: Step
    final: Step  # `case check` after the lost files were ingested again: must be healthy
    expected_lost: list[str]  # documents whose only LanceDB data the fault destroyed
    lost: list[str]  # documents not in the case after `case check --repair`
    unsearchable: list[str]  # documents back but not found by their own words
    seconds: float
    reingested: list[str] = field(
        default_factory=list
    )  # ingested again by the repair from their unchanged files

    moved: bool = False  # the original files were away during the repair
    resurrected: list[str] = field(default_factory=list)  # a deleted document back in the case or on disk
    state: str = "fresh"

    @property
    def passed(self) -> bool:
        # The repair ingests a document whose only data was destroyed again from its original
        # file (unchanged here): nothing may be lost, and it must say what it ingested again.
        # With the originals moved away, exactly those documents are lost, each named with the fix.
        common = (
            all(s.clean for s in [*self.steps, self.repair])
            and self.final.ok
            and not self.unsearchable
            and not self.resurrected
        )
        if self.moved:
            named = all(_named_lost(self.repair.output, n) for n in self.lost)
            return common and sorted(self.lost) == sorted(self.expected_lost) and named
        named = all(f"ingested {n} again" in self.repair.output for n in self.reingested)
        return common and not self.lost and sorted(self.reingested) == sorted(self.expected_lost) and named

    @property
    def outcome(self) -> str:
        if not self.passed:
            return "FAIL"
        if self.reingested:
            return f"repaired: {', '.join(self.reingested)} ingested again from its file"
        if self.lost:
            return f"lost, named with the fix: {', '.join(self.lost)}"
        return "works" if all(s.ok for s in self.steps) else "clear error, repaired"

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {**asdict(self), "outcome": self.outcome, "seconds": round(self.seconds, 2)}


def _named_lost(output: str, name: str) -> bool:
    """The repair's output names the lost document and the command that ingests it again."""
    return any(f"lost {name}" in line and "casetrack ingest" in line for line in output.splitlines())


def cli(home: Path, *args: str, models: Path = MODELS) -> Step:
    """One command through the real CLI in-process; exceptions are caught and count as unclear."""
    import logging

    from casetrack.cli.main import cli as main

    for handler in logging.root.handlers[:]:  # the CLI's log lines go to this command's stderr
        logging.root.removeHandler(handler)
    result = CliRunner().invoke(main, ["--data-dir", str(home), "--models-dir", str(models), *args])
    text = result.output + (result.stderr if result.stderr not in result.output else "")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        text += "".join(traceback.format_exception(result.exception))
        return Step(" ".join(args), 99, text.strip()[-600:], False, text[:20000])
    message = "" if result.exit_code == 0 else (result.stderr or result.output).strip()[:400]
    clean = not any(raw in text for raw in RAW)
    if result.exit_code not in (0, 3):  # 3: a batch finished with failed files, or check found problems
        clean = clean and "casetrack " in message
    return Step(" ".join(args), result.exit_code, message, clean, text[:20000])


def _texts(folder: Path, later: Path | None = None) -> tuple[list[Path], Path]:
    folder.mkdir(parents=True, exist_ok=True)
    lease = folder / "lease.txt"
    lease.write_text(
        "The tenant shall pay rent monthly.\n\nEither party may terminate the lease with sixty days "
        "written notice delivered to the landlord.\n",
        encoding="utf-8",
    )
    ruling = folder / "decisao.txt"
    source = DATA / "lener_br/raw_text/RR474820145230056.txt"
    ruling.write_text(source.read_text(encoding="utf-8")[:1800], encoding="utf-8")
    opinion = folder / "opinion.pdf"
    shutil.copy(DATA / "legal_docs_us_courts/recap_documents/ca10_010110462922.pdf", opinion)
    extra = (later or folder / "later") / "hearing.txt"
    extra.parent.mkdir(parents=True, exist_ok=True)
    extra.write_text(
        "The hearing on the preliminary injunction is set for the third of June in Courtroom 4B.\n",
        encoding="utf-8",
    )
    return [lease, ruling, opinion], extra


def build_base(root: Path, models: Path = MODELS, state: str = "fresh") -> Base:
    """The case: three real files ingested in one batch (one LanceDB commit each), then brought
    to `state` (STATES)."""
    files, extra = _texts(root / "files", root / "later")
    home = root / "base"
    commands: list[tuple[str, ...]] = [
        ("case", "create", CASE),
        ("ingest", "--case", CASE, *map(str, files)),
    ]
    if state == "deleted":
        withdrawn = root / "files" / DELETED
        withdrawn.write_text(f"A withdrawn exhibit: {DELETED_WORDS}.\n", encoding="utf-8")
        commands += [
            ("ingest", "--case", CASE, str(withdrawn)),
            ("documents", "delete", "--case", CASE, DELETED, "--yes"),
        ]
    elif state == "reembed":
        commands.append(("reembed", "--case", CASE, "--all"))
    for args in commands:
        step = cli(home, *args, models=models)
        assert step.ok, step.message
    probes = {"lease.txt": "terminate the lease sixty days written notice landlord"}
    docs = [Doc(p.name, probes.get(p.name) or _distinct_words(home, p.name)) for p in files]
    extra_doc = Doc(extra.name, "preliminary injunction hearing Courtroom 4B third of June")
    by_name = {p.name: p for p in [*files, extra]}
    return Base(home, tuple(docs), extra, extra_doc, by_name, data_file_holders(home), state)


def move_originals(base: Base) -> Base:
    """The same case with its original files moved away (`files.away/`): nothing can be ingested
    again by the repair."""
    folder = next(iter(base.files.values())).parent
    if folder.exists():
        os.rename(folder, folder.with_name(folder.name + ".away"))
    return Base(
        base.home, base.docs, base.extra, base.extra_doc, base.files, base.holds, base.state, moved=True
    )


def _away(path: Path) -> Path:
    """Where move_originals put `path` (the extra file never moves)."""
    away = path.parent.with_name(path.parent.name + ".away") / path.name
    return away if away.exists() else path


def _distinct_words(home: Path, name: str) -> str:
    """Twelve words from the middle of the document's first chunk (as stored, so PDFs work too)."""
    import lancedb

    (lance,) = list(home.glob("cases/*/lance"))
    table = lancedb.connect(str(lance)).open_table("documents")
    doc_id = next(r["doc_id"] for r in table.search().limit(100).to_arrow().to_pylist() if r["name"] == name)
    chunks = lancedb.connect(str(lance)).open_table("chunks")
    text = (
        chunks.search().where(f"doc_id = '{doc_id}'").select(["text"]).limit(1).to_arrow()["text"][0].as_py()
    )
    words = text.split()
    return " ".join(words[len(words) // 3 : len(words) // 3 + 12])


def data_file_holders(home: Path) -> dict[str, frozenset[str]]:
    """Which documents each LanceDB chunks data file holds (each file is moved away in turn and
    the rows that can no longer be read are the ones it held; in a child process, so no cached
    read hides the missing file), and all the documents the chunks table holds."""
    import subprocess

    code = (
        "import json,sys,os,lancedb\n"
        "root=sys.argv[1]; out={}\n"
        "t=lancedb.connect(root).open_table('chunks'); n=t.count_rows()\n"
        "docs=lancedb.connect(root).open_table('documents').search().limit(1000).to_arrow().to_pylist()\n"
        "names={d['doc_id']:d['name'] for d in docs}\n"
        "rows=[t.take_offsets([i]).select(['doc_id']).to_arrow()['doc_id'][0].as_py() for i in range(n)]\n"
        "data=os.path.join(root,'chunks.lance','data')\n"
        "for f in sorted(os.listdir(data)):\n"
        "  os.rename(os.path.join(data,f),os.path.join(data,f+'.away'))\n"
        "  t=lancedb.connect(root).open_table('chunks'); lost=set()\n"
        "  for i in range(n):\n"
        "    try: t.take_offsets([i]).select(['doc_id']).to_arrow()\n"
        "    except Exception: lost.add(names.get(rows[i],rows[i]))\n"
        "  os.rename(os.path.join(data,f+'.away'),os.path.join(data,f)); out[f]=sorted(lost)\n"
        "out['.']=sorted({names.get(d,d) for d in rows})\n"
        "print(json.dumps(out))\n"
    )
    (lance,) = list(home.glob("cases/*/lance"))
    done = subprocess.run(
        [sys.executable, "-c", code, str(lance)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "LANCEDB_LOG": "error"},
    )
    holds = {f"lance/chunks.lance/data/{k}": frozenset(v) for k, v in json.loads(done.stdout).items()}
    # The table's folder deleted: every data file with it. (A manifest is never the only record of
    # a commit any more: the case keeps a copy of the newest, store/lance_manifest_copy.py.)
    holds["lance/chunks.lance"] = holds.pop("lance/chunks.lance/data/.")
    return holds


def targets(home: Path) -> list[tuple[str, str]]:
    """(path relative to the data folder, role) of every file the case owns that a fault is tried
    on: all of them except lock files, with one keyword-index segment standing for the others, the
    newest and the oldest LanceDB manifest and the newest transaction (LanceDB reads
    transactions only to resolve concurrent commits)."""
    (case_dir,) = list((home / "cases").iterdir())
    found: list[tuple[str, str]] = [("registry.sqlite", "registry")]
    for name, role in (("case.json", "case record"), ("journal.sqlite", "journal")):
        found.append((f"cases/{case_dir.name}/{name}", role))
    bm25 = case_dir / "bm25"
    segments = sorted({p.stem for p in bm25.iterdir() if len(p.stem) == 32})
    for p in sorted(bm25.iterdir()):
        if p.suffix == ".lock" or p.name.startswith(".tantivy"):
            continue
        if p.stem in segments and p.stem != segments[0]:
            continue
        found.append(
            (str(p.relative_to(home)), "keyword index " + ("segment" if p.stem in segments else "meta"))
        )
    for table in ("chunks", "documents"):
        root = case_dir / "lance" / f"{table}.lance"
        for sub, role, pick in (
            ("_versions", "manifest", _ends),
            ("data", "data file", list),
            ("_transactions", "transaction", _newest),
            ("_deletions", "deletion file", list),
            ("_indices", "index file", list),
        ):
            files = sorted(
                (p for p in (root / sub).rglob("*") if p.is_file() and p.suffix != ".json"),
                key=_version_order,
            )
            for p in pick(files):
                found.append((str(p.relative_to(home)), f"LanceDB {table} {role}"))
        hint = root / "_versions" / "latest_version_hint.json"
        if hint.exists():
            found.append((str(hint.relative_to(home)), f"LanceDB {table} version hint"))
        for copy in sorted((case_dir / "lance_manifests" / table).glob("*.manifest")):
            found.append((str(copy.relative_to(home)), f"LanceDB {table} manifest copy"))
        found.append((str((root / "_versions").relative_to(home)), f"LanceDB {table} _versions/ folder"))
        found.append((str(root.relative_to(home)), f"LanceDB {table} table folder"))
    return found


def faults_for(target: str) -> tuple[str, ...]:
    """A folder can only be deleted."""
    return ("delete",) if target.endswith((".lance", "_versions")) and "/data/" not in target else FAULTS


def _version_order(path: Path) -> tuple[int, str]:
    head = path.name.split(".")[0].split("-")[0]
    if head.isdigit():
        number = int(head)
        return (2**64 - 1 - number if number > 2**63 else number), path.name
    return 0, path.name


def _ends(files: list[Path]) -> list[Path]:
    """The newest (the one LanceDB reads) and the oldest (one it does not)."""
    return list(dict.fromkeys([files[-1], files[0]])) if files else []


def _newest(files: list[Path]) -> list[Path]:
    return files[-1:]


def damage(path: Path, fault: str) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif fault == "zero":
        path.write_bytes(b"\0" * path.stat().st_size)
    elif fault == "half":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        path.unlink()


def expected_lost(base: Base, target: str, fault: str) -> list[str]:
    """The documents whose only data the fault destroys: those a LanceDB chunks data file holds
    (all of them when the table's folder goes)."""
    return sorted(base.holds.get(target.split("/", 2)[2], frozenset())) if target.startswith("cases/") else []


def run_trial(base: Base, target: str, role: str, fault: str, work: Path, models: Path = MODELS) -> Trial:
    started = time.monotonic()
    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(base.home, home, symlinks=True)
    damage(home / target, fault)
    probe = base.docs[0].probe
    steps = [
        cli(home, "search", "--case", CASE, probe, "--json", models=models),
        cli(home, "ingest", "--case", CASE, str(base.extra), "--json", models=models),
        cli(home, "case", "info", CASE, "--json", models=models),
    ]
    repair = cli(home, "case", "check", CASE, "--repair", "--json", models=models)
    lost_expected = expected_lost(base, target, fault)
    held = (
        [*base.docs, base.extra_doc] if steps[1].ok else list(base.docs)
    )  # what the case held before the repair
    try:
        present = present_names(home, models)
    except Exception:  # the case does not even open: every document counts as lost
        present = set()
    lost = sorted(d.name for d in held if d.name not in present)
    reingested = sorted(n for n in lost_expected if n in present and f"ingested {n} again" in repair.output)
    resurrected = _resurrected(home, present) if base.state == "deleted" else []
    for name in lost:  # what the repair could not bring back: ingest it by hand, as its message says
        original = _away(base.files.get(name, base.extra))
        steps.append(cli(home, "ingest", "--case", CASE, str(original), "--json", models=models))
    if not steps[1].ok:
        steps.append(cli(home, "ingest", "--case", CASE, str(base.extra), "--json", models=models))
    final = cli(home, "case", "check", CASE, "--json", models=models)
    docs = [*base.docs, base.extra_doc]
    try:
        unsearchable = verify(home, docs, models)
    except Exception as exc:
        unsearchable = [f"the case did not open: {exc}"[:200]]
    return Trial(
        target,
        role,
        fault,
        steps,
        repair,
        final,
        lost_expected,
        lost,
        unsearchable,
        time.monotonic() - started,
        reingested,
        base.moved,
        resurrected,
        base.state,
    )


def _resurrected(home: Path, present: set[str]) -> list[str]:
    """The deleted document back in the case, or its words in any file of the case folder."""
    found = [DELETED] if DELETED in present else []
    needle = DELETED_WORDS.encode()
    for path in (home / "cases").rglob("*"):
        if path.is_file() and needle in path.read_bytes():
            found.append(str(path.relative_to(home)))
    return found


def present_names(home: Path, models: Path) -> set[str]:
    from casetrack.app import CaseTrack
    from casetrack.config import resolve_settings

    app = CaseTrack(resolve_settings(home, models, environ={}))
    try:
        return {d["name"] for d in app.case_summary(CASE)["documents"]}
    finally:
        app.close()


def verify(home: Path, docs: list[Doc], models: Path) -> list[str]:
    """The documents in the case that search does not put first for their own words (real
    search, one app for all probes)."""
    from casetrack.app import CaseTrack
    from casetrack.config import resolve_settings

    app = CaseTrack(resolve_settings(home, models, environ={}))
    try:
        present = {d["name"] for d in app.case_summary(CASE)["documents"]}
        unsearchable = []
        for doc in docs:
            if doc.name not in present:
                continue
            hits = app.search(CASE, doc.probe, top_k=3).hits
            if not hits or hits[0].provenance.document != doc.name:
                unsearchable.append(doc.name)
        return unsearchable
    finally:
        app.close()


def run_matrix(
    root: Path,
    models: Path = MODELS,
    only: str | None = None,
    workers: int = 1,
    state: str = "fresh",
    moved: bool = False,
) -> Iterator[Trial]:
    """Every trial of one state, in the matrix's order; `workers` processes run them (each trial
    copies the base case into its own folder, so they share nothing). `moved`: after the trials
    with the original files in place, the same trials with them moved away."""
    base = build_base(root, models, state)
    plan = [
        (target, role, fault)
        for target, role in targets(base.home)
        if not only or only in target
        for fault in faults_for(target)
    ]
    yield from _run_plan(base, plan, root, models, workers)
    if moved:  # only LanceDB's files hold text that a repair would ingest again from the originals
        lance = [p for p in plan if "/lance" in p[0]]
        yield from _run_plan(move_originals(base), lance, root / "moved", models, workers)


def _run_plan(
    base: Base, plan: list[tuple[str, str, str]], root: Path, models: Path, workers: int
) -> Iterator[Trial]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: LanceDB's runtime threads do not survive a fork
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [
            pool.submit(run_trial, base, target, role, fault, root / f"trial-{i}", models)
            for i, (target, role, fault) in enumerate(plan)
        ]
        for future in futures:
            yield future.result()


def table(trials: list[Trial]) -> str:
    """One row per file, the three faults as columns, and what the user was told."""
    rows: dict[str, dict[str, Trial]] = {}
    for t in trials:
        rows.setdefault(t.target, {})[t.fault] = t
    lines = [
        "| file | role | " + " | ".join(FAULTS) + " | what the user is told |",
        "|---|---|" + "---|" * len(FAULTS) + "---|",
    ]
    for target, by_fault in rows.items():
        first = next(iter(by_fault.values()))
        name = target.split("/")[-1]
        name = name if len(name) <= 28 else name[:12] + "…" + name[-12:]
        cells = [by_fault[f].outcome if f in by_fault else "" for f in FAULTS]
        told = next((m for t in by_fault.values() if (m := _told(t))), "")
        lines.append(f"| {name} | {first.role} | " + " | ".join(cells) + f" | {told} |")
    return "\n".join(lines)


def _told(trial: Trial) -> str:
    """The error a command printed, else the repair's line about a lost document."""
    failed = next((s for s in trial.steps if not s.ok), None)
    text = failed.message if failed else ""
    if not text and (trial.lost or trial.reingested):
        try:
            out = trial.repair.output  # log lines (stderr) may come before the JSON
            report = json.loads(out[out.index("{") : out.rindex("}") + 1])
            text = " ".join(p for p in report["problems"] + report["repaired"] if "lost" in p or "again" in p)
        except (ValueError, KeyError, StopIteration):
            text = ""
    return " ".join(text.split())[:220].replace("|", "/")


def by_state(trials: list[Trial], states: list[str]) -> str:
    """One row per state and place of the originals: the trials' outcomes and the losses."""
    lines = [
        "| state | originals | trials | works | clear error, repaired | ingested again | lost, named "
        "with the fix | lost with an intact data file | FAIL |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for state in states:
        for moved in (False, True):
            rows = [t for t in trials if t.state == state and t.moved == moved]
            if not rows:
                continue
            count = {k: sum(1 for t in rows if _kind(t) == k) for k in ("works", "clear", "again", "named")}
            intact_lost = sum(len(set(t.lost) - set(t.expected_lost)) for t in rows)
            failed = sum(1 for t in rows if not t.passed)
            lines.append(
                f"| {state} | {'moved away' if moved else 'in place'} | {len(rows)} | {count['works']} | "
                f"{count['clear']} | {count['again']} | {count['named']} | {intact_lost} | {failed} |"
            )
    return "\n".join(lines)


def _kind(t: Trial) -> str:
    if not t.passed:
        return "fail"
    if t.reingested:
        return "again"
    if t.lost:
        return "named"
    return "works" if all(s.ok for s in t.steps) else "clear"


def summary(trials: list[Trial]) -> str:
    counts: dict[str, int] = {}
    for t in trials:
        key = (
            "FAIL"
            if not t.passed
            else "lost"
            if t.lost
            else ("lost data, ingested again from the unchanged file" if t.reingested else t.outcome)
        )
        counts[key] = counts.get(key, 0) + 1
    lost = sum(len(t.lost) for t in trials)
    return (
        f"{len(trials)} trials: "
        + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        + f"; {lost} document losses in all"
    )


_PROGRESS = re.compile(
    r"^(?P<outcome>.*?)\s+(?P<state>fresh|deleted|reembed)\s+(?P<moved>moved)?\s*(?P<fault>zero|half|delete)\s+"
    r"(?P<role>.*?)\s+(?P<target>cases/\S+|registry\.sqlite)\s+\((?P<seconds>[\d.]+)s\)$"
)


def tally(lines: list[str]) -> str:
    """The per-state table from the progress lines a run printed on stderr (a run cut short still
    counts the trials it finished)."""
    rows: dict[tuple[str, bool], dict[str, int]] = {}
    for line in lines:
        m = _PROGRESS.match(line.rstrip())
        if m is None:
            continue
        outcome = m["outcome"]
        kind = (
            "fail"
            if outcome == "FAIL"
            else "again"
            if outcome.startswith("repaired:")
            else "named"
            if outcome.startswith("lost")
            else "clear"
            if outcome.startswith("clear")
            else "works"
        )
        counts = rows.setdefault((m["state"], bool(m["moved"])), {})
        counts[kind] = counts.get(kind, 0) + 1
        counts["trials"] = counts.get("trials", 0) + 1
    out = [
        "| state | originals | trials | works | clear error, repaired | ingested again | lost, named "
        "with the fix | FAIL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for state in STATES:
        for moved in (False, True):
            c = rows.get((state, moved))
            if c:
                out.append(
                    f"| {state} | {'moved away' if moved else 'in place'} | {c['trials']} | "
                    + " | ".join(str(c.get(k, 0)) for k in ("works", "clear", "again", "named", "fail"))
                    + " |"
                )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/casetrack-faults"))
    parser.add_argument("--only", help="Only targets whose path contains this.")
    parser.add_argument("--json", type=Path, help="Also write every trial as JSON here.")
    parser.add_argument(
        "--workers", type=int, default=1, help="Trials run at once (default 1: two were slower on 2 cores)."
    )
    parser.add_argument("--states", default=",".join(STATES), help="Comma-separated: " + ", ".join(STATES))
    parser.add_argument(
        "--moved", action="store_true", help="Run each state again with the original files moved away."
    )
    parser.add_argument("--tally", type=Path, help="Only count the progress lines a run wrote to stderr.")
    args = parser.parse_args()
    if args.tally:
        print(tally(args.tally.read_text(encoding="utf-8").splitlines()))
        return
    os.environ.setdefault("LANCEDB_LOG", "error")
    shutil.rmtree(args.work, ignore_errors=True)
    states = [s for s in args.states.split(",") if s]
    trials = []
    for state in states:
        for trial in run_matrix(args.work / state, MODELS, args.only, args.workers, state, args.moved):
            trials.append(trial)
            print(
                f"{trial.outcome:<24} {state:<8} {'moved' if trial.moved else '':<5} {trial.fault:<6} "
                f"{trial.role:<28} {trial.target}  ({trial.seconds:.1f}s)",
                file=sys.stderr,
            )
    print(by_state(trials, states))
    print()
    for state in states:
        for moved in (False, True):
            part = [t for t in trials if t.state == state and t.moved == moved]
            if part:
                print(f"### {state}, originals {'moved away' if moved else 'in place'}\n")
                print(table(part))
                print()
    print(summary(trials))
    if args.json:
        args.json.write_text(json.dumps([t.to_json() for t in trials], indent=1))


if __name__ == "__main__":
    main()
