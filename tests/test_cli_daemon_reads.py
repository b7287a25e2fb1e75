"""The CLI's read commands through the data directory's daemon (`cli/common.read`, `daemon/reads.py`,
`daemon/client.read`): the real `casetrack` command in subprocesses, a real daemon, real models and a
small real case (three LeNER-BR decisions, Portuguese).

Whether the daemon or the command's own process answered is read from two deterministic places:
the daemon's own model load counter (`casetrack daemon status --json`: it loads models only for
the searches it runs itself) and the command's imports (`python -X importtime`: a search run in
the command's process imports LanceDB, one the daemon answers does not)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from casetrack.config import Settings
from casetrack.daemon import client
from tests.cli_runner import run
from tests.conftest import DATA, require
from tests.daemon_util import env_for, settings_for

LENER = DATA / "lener_br/raw_text"
FILES = ("RR474820145230056.txt", "AgAIRR11889820145030011.txt", "Rcl3495STJ.txt")
CASE = "Caso"
QUERY = "recurso de revista adicional de insalubridade"
QUOTE = "RECURSO DE REVISTA INTERPOSTO NA VIGÊNCIA DA LEI 13.015/2014"
HEAVY = ("lancedb", "onnxruntime")  # what a search in the command's own process imports


def casetrack(
    home: Path,
    *args: str,
    mode: str,
    importtime: bool = False,
    ok: tuple[int, ...] = (0,),
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """`casetrack ARGS` in a subprocess with CASETRACK_CLI_DAEMON=mode; stderr is a pipe, not a terminal."""
    flags = ["-X", "importtime"] if importtime else []
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "casetrack", *args],
        capture_output=True,
        text=True,
        env=env_for(home, CASETRACK_CLI_DAEMON=mode),
        timeout=timeout,
        check=False,
    )
    assert proc.returncode in ok, (
        f"casetrack {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    )
    return proc


def imported_heavy(stderr: str) -> set[str]:
    """The heavy top-level packages a `-X importtime` run imported."""
    names = {
        line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")
    }
    return {n for n in names if n in HEAVY}


def search_json(
    home: Path, mode: str, query: str = QUERY, importtime: bool = False
) -> tuple[dict[str, Any], str]:
    proc = casetrack(
        home, "search", "--case", CASE, query, "--top-k", "8", "--json", mode=mode, importtime=importtime
    )
    return json.loads(proc.stdout), proc.stderr


TIMINGS = ("timings_ms", "elapsed_ms")  # how long the answering process took: the one part that may differ


def without_timings(response: dict[str, Any]) -> dict[str, Any]:
    """An answer minus its timings (a search's stage timings, verify's elapsed time)."""
    assert any(k in response for k in TIMINGS)
    return {k: v for k, v in response.items() if k not in TIMINGS}


def daemon_status(home: Path) -> dict[str, Any]:
    return dict(json.loads(casetrack(home, "daemon", "status", "--json", mode="never").stdout))


def start_daemon(home: Path) -> int:
    # --idle-exit: a daemon a crashed test leaves behind still goes away on its own.
    casetrack(home, "daemon", "start", "--idle-exit", "300", mode="never", timeout=120)
    answer = client.ping(settings_for(home))
    assert answer is not None
    return int(answer["pid"])


def stop(settings: Settings) -> None:
    client.stop_daemon(settings, timeout=60)
    assert client.ping(settings) is None


def no_daemon(home: Path) -> bool:
    return client.ping(settings_for(home)) is None and not (home / "run" / "daemon.json").exists()


def copy_data_dir(src: Path, dst: Path) -> Path:
    """Another data directory holding the same case (a copied data folder), without runtime files."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("run", "logs"))
    return dst


def read_commands(chunk_id: str, document: str) -> dict[str, tuple[str, tuple[str, ...], tuple[int, ...]]]:
    """Every CLI command that goes through `read()` except search: name -> (read op, args, accepted exit codes)."""
    return {
        "documents": (
            "list_documents",
            ("documents", "list", "--case", CASE, "--sort", "name", "--json"),
            (0,),
        ),
        "document_info": (
            "document_details",
            ("documents", "info", "--case", CASE, document, "--json"),
            (0,),
        ),
        "chunk": ("get_chunk", ("chunk", "--case", CASE, chunk_id, "--neighbours", "2", "--json"), (0,)),
        "chunk_query": ("get_chunk", ("chunk", "--case", CASE, chunk_id, "--query", QUERY, "--json"), (0,)),
        "entity": ("find_entity", ("entity", "--case", CASE, "CLT", "--json"), (0,)),
        "authorities": ("authorities", ("authorities", "--case", CASE, "--json"), (0,)),
        "verify": (
            "verify_citation",
            ("verify", "--case", CASE, "--quote", QUOTE, "--cite", f"{document}, para. 4", "--json"),
            (0, 4, 5, 6),
        ),
        "status": ("app_status", ("status", "--case", CASE, "--json"), (0,)),
        "chronology": ("chronology", ("chronology", "--case", CASE, "--json"), (0,)),
    }


# The reads no command of this test sends, asked of the daemon directly.
DIRECT_READS = (("case_info", {"case": CASE}), ("case_list", {"include_archived": True}))


def test_every_read_op_is_compared() -> None:
    """A read op added to daemon/reads.py must get its daemon-vs-in-process comparison here."""
    from casetrack.daemon.reads import READS

    covered = (
        {op for op, _, _ in read_commands("c", "d").values()} | {op for op, _ in DIRECT_READS} | {"search"}
    )
    assert covered == set(READS)


# Fields of `status --json` that describe the answering process, not the data: its free memory and
# the models it has loaded (the daemon's are loaded after a search; a fresh command's are not).
def status_of_data(info: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in info.items() if k not in ("memory_mode_reason", "loaded_models")}
    out["slots"] = {
        lang: [{k: v for k, v in s.items() if k != "loaded"} for s in slots]
        for lang, slots in info["slots"].items()
    }
    return out


@pytest.fixture(scope="module")
def case_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli-daemon") / "home"
    casetrack(home, "case", "create", CASE, "--language", "pt", mode="never")
    files = [str(require(LENER / name)) for name in FILES]
    casetrack(home, "ingest", "--case", CASE, *files, mode="never", timeout=600)
    return home


@pytest.fixture(scope="module")
def in_process(case_home: Path) -> dict[str, Any]:
    """Every read command's output with CASETRACK_CLI_DAEMON=never (no daemon anywhere)."""
    response, stderr = search_json(case_home, "never", importtime=True)
    assert imported_heavy(stderr) == set(HEAVY), "an in-process search must load LanceDB and onnxruntime"
    top = response["results"][0]
    out: dict[str, Any] = {
        "search": response,
        "chunk_id": top["chunk_id"],
        "document": top["source"]["document"],
    }
    for name, (_, args, ok) in read_commands(out["chunk_id"], out["document"]).items():
        out[name] = json.loads(casetrack(case_home, *args, mode="never", ok=ok).stdout)
    return out


@pytest.mark.slow
def test_never_works_in_process_and_starts_no_daemon(case_home: Path, in_process: dict[str, Any]) -> None:
    assert no_daemon(case_home)  # every read command ran with `never`
    assert [r["source"]["document"] for r in in_process["search"]["results"]]
    assert in_process["documents"] and in_process["authorities"]["authorities"]
    assert in_process["entity"]["documents"] and in_process["chunk"]["text"] and in_process["document_info"]
    # `auto` with no terminal (stderr is a pipe here) does not start one either.
    casetrack(case_home, "documents", "list", "--case", CASE, "--json", mode="auto")
    assert no_daemon(case_home)


@pytest.mark.slow
def test_reads_through_the_running_daemon_equal_in_process(
    case_home: Path, in_process: dict[str, Any]
) -> None:
    settings = settings_for(case_home)
    start_daemon(case_home)
    try:
        assert daemon_status(case_home)["model_loads"] == 0  # the daemon loads models on first use
        # `never` ignores the running daemon.
        alone, stderr = search_json(case_home, "never", importtime=True)
        assert without_timings(alone) == without_timings(in_process["search"])
        assert imported_heavy(stderr) == set(HEAVY)
        assert daemon_status(case_home)["model_loads"] == 0

        # `auto` (the default) uses it: same JSON, computed in the daemon, whose models are now loaded.
        first, stderr = search_json(case_home, "auto", importtime=True)
        assert without_timings(first) == without_timings(in_process["search"])
        assert imported_heavy(stderr) == set(), "the daemon answered: the command loads no LanceDB or model"
        assert "Starting the CaseTrack daemon" not in stderr
        after = daemon_status(case_home)
        assert after["model_loads"] >= 1 and after["loaded_models"]
        second, _ = search_json(case_home, "auto")  # models already loaded: the same answer again
        assert without_timings(second) == without_timings(in_process["search"])
        assert daemon_status(case_home)["model_loads"] == after["model_loads"]

        for name, (_, args, ok) in read_commands(in_process["chunk_id"], in_process["document"]).items():
            got = json.loads(casetrack(case_home, *args, mode="auto", ok=ok).stdout)
            if name == "status":
                assert status_of_data(got) == status_of_data(in_process[name])
                assert got["loaded_models"] == after["loaded_models"], "status answered by the daemon"
            elif name == "verify":
                assert without_timings(got) == without_timings(in_process[name])
            else:
                assert got == in_process[name], name

        # The reads no command here sends answer the same as in a process too.
        from casetrack.app import CaseTrack
        from casetrack.daemon.reads import run_read

        app = CaseTrack(settings)
        try:
            for op, op_args in DIRECT_READS:
                answer = client.read(settings, op, dict(op_args))
                assert answer.served, answer.why
                assert json.loads(json.dumps(answer.value)) == json.loads(
                    json.dumps(run_read(app, op, op_args), default=str)
                )
        finally:
            app.close()
    finally:
        stop(settings)


@pytest.mark.slow
def test_always_starts_a_daemon_says_so_and_uses_it(
    case_home: Path, in_process: dict[str, Any], tmp_path: Path
) -> None:
    home = copy_data_dir(case_home, tmp_path / "copy")
    settings = settings_for(home)
    assert no_daemon(home)
    try:
        first, stderr = search_json(home, "always", importtime=True)
        assert f"Starting the CaseTrack daemon for {home}" in stderr
        assert "casetrack daemon stop" in stderr
        answer = client.ping(settings)
        assert answer is not None and answer["data_dir"] == str(home)
        assert imported_heavy(stderr) == set(), "the daemon it started answered"
        assert without_timings(first) == without_timings(in_process["search"])
        second, stderr = search_json(home, "always")
        assert "Starting" not in stderr  # it runs already: not started again
        assert without_timings(second) == without_timings(in_process["search"])
        assert client.ping(settings) == answer  # the same daemon
        assert daemon_status(home)["model_loads"] >= 1
    finally:
        stop(settings)
    assert no_daemon(home)


@pytest.mark.slow
def test_a_daemon_of_another_data_dir_is_never_used(
    case_home: Path, in_process: dict[str, Any], tmp_path: Path
) -> None:
    """A copied data folder can hold the runtime file of the original's daemon: the copy's commands
    must not be answered, stopped or served by the original folder's daemon."""
    home = copy_data_dir(case_home, tmp_path / "copy")
    start_daemon(case_home)
    try:
        (home / "run").mkdir(mode=0o700)
        shutil.copy2(case_home / "run" / "daemon.json", home / "run" / "daemon.json")
        for mode in ("auto", "always"):
            got, stderr = search_json(home, mode, importtime=True)
            assert without_timings(got) == without_timings(in_process["search"])
            assert imported_heavy(stderr) == set(HEAVY), f"{mode}: run in the command's own process"
            assert "Starting" not in stderr
        docs = casetrack(home, "documents", "list", "--case", CASE, "--sort", "name", "--json", mode="auto")
        assert json.loads(docs.stdout) == in_process["documents"]
        assert daemon_status(case_home)["model_loads"] == 0, "the other folder's daemon ran nothing"
        answer = client.read(settings_for(home), "case_list", {})
        assert not answer.served and answer.code == "other_settings"
        assert str(case_home) in answer.why and str(home) in answer.why

        # Nor is it stopped, or taken for the copy's own, by the copy's daemon commands.
        original = client.ping(settings_for(case_home))
        assert original is not None and client.ping(settings_for(home)) is None
        stopped = casetrack(home, "daemon", "stop", mode="never")
        assert "not running" in stopped.stdout
        started = casetrack(home, "daemon", "start", "--idle-exit", "300", mode="never", timeout=120)
        try:
            assert f"for {home}" in started.stdout
            own = client.ping(settings_for(home))
            assert own is not None and own["data_dir"] == str(home) and own["pid"] != original["pid"]
        finally:
            stop(settings_for(home))
        assert client.ping(settings_for(case_home)) == original
    finally:
        stop(settings_for(case_home))


def test_a_bad_cli_daemon_mode_is_a_clear_error() -> None:
    result = run("search", "--case", "Any", "anything", ok=False, env={"CASETRACK_CLI_DAEMON": "sometimes"})
    assert result.exit_code == 1
    assert "CASETRACK_CLI_DAEMON must be one of auto, always, never, not 'sometimes'" in result.output
    assert "unset CASETRACK_CLI_DAEMON" in result.output
    assert "Traceback" not in result.output


def test_cli_daemon_mode_values() -> None:
    from casetrack.cli.common import cli_daemon_mode

    assert cli_daemon_mode({}) == "auto"
    assert cli_daemon_mode({"CASETRACK_CLI_DAEMON": ""}) == "auto"
    assert cli_daemon_mode({"CASETRACK_CLI_DAEMON": " Never "}) == "never"
    assert cli_daemon_mode({"CASETRACK_CLI_DAEMON": "ALWAYS"}) == "always"


def test_no_daemon_means_not_served(tmp_path: Path) -> None:
    """No runtime file: the read is not served, and says why (the CLI then runs it itself)."""
    answer = client.read(settings_for(tmp_path / "empty"), "case_list", {})
    assert not answer.served and answer.code == "not_running"
    assert "not running" in answer.why
