"""Models the daemon has not used for a while are unloaded and their memory given back
(`Service.unload_idle_models`, `EncoderPool.unload_idle`, CASETRACK_MODEL_IDLE_MINUTES); the next
search loads them again and answers the same. Real models, a real case, a real daemon."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from casetrack.config import ENV_MODEL_IDLE, model_idle_minutes
from casetrack.daemon import client
from casetrack.daemon.service import Service, rss_mb
from casetrack.embed.pool import EncoderPool
from tests.cli_runner import run
from tests.conftest import DATA, MODELS, require
from tests.daemon_util import env_for, settings_for

CASE = "Caso"
FILES = ("RR474820145230056.txt", "AgAIRR11889820145030011.txt")
QUERY = "recurso de revista adicional de insalubridade"
WATCHER = "casetrack-model-idle"  # the name of the Service's idle-timer thread


def casetrack(home: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "casetrack", *args],
        capture_output=True,
        text=True,
        env=env_for(home, **env),
        timeout=timeout,
        check=False,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def answer(response: dict[str, Any]) -> dict[str, Any]:
    """A search answer without its stage timings (how long this process took, not what it found)."""
    return {k: v for k, v in response.items() if k != "timings_ms"}


def wait_for(condition: Any, timeout: float, what: str) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"{what} not within {timeout:.0f} s"
        time.sleep(0.1)
    return time.monotonic() - started


# -- the setting --------------------------------------------------------------------------------


def test_idle_minutes_setting_values() -> None:
    assert model_idle_minutes(None) == 10.0
    assert model_idle_minutes("  ", 3.0) == 3.0
    assert model_idle_minutes("0") == 0.0  # never unload
    assert model_idle_minutes("0.25") == 0.25
    for bad in ("ten", "-1", "5m"):
        with pytest.raises(
            ValueError, match=f"{ENV_MODEL_IDLE} must be a number of minutes \\(0 or more\\), got '{bad}'"
        ):
            model_idle_minutes(bad)


def test_a_bad_idle_value_stops_the_daemon_with_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = casetrack(home, "daemon", "run", timeout=90, **{ENV_MODEL_IDLE: "ten"})
    assert proc.returncode == 1, proc.stderr
    assert f"Error: {ENV_MODEL_IDLE} must be a number of minutes (0 or more), got 'ten'" in proc.stderr
    assert f"e.g. {ENV_MODEL_IDLE}=10, or unset it" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert client.ping(settings_for(home)) is None


def test_a_bad_idle_value_is_refused_before_a_daemon_is_started(home: Path) -> None:
    """`daemon start` (and `serve`, and a search that starts one) says what is wrong itself, not
    "the daemon did not start within 60 s"."""
    result = run("daemon", "start", ok=False, env={ENV_MODEL_IDLE: "-5"})
    assert result.exit_code == 1
    assert f"{ENV_MODEL_IDLE} must be a number of minutes (0 or more), got '-5'" in result.output
    assert "did not start" not in result.output
    assert not (home / "run" / "daemon.json").exists() and client.ping(settings_for(home)) is None


# -- the pool -----------------------------------------------------------------------------------


def test_pool_unloads_only_models_idle_and_not_in_use() -> None:
    pool = EncoderPool(MODELS, "full")
    vector = pool.get("E1", "pt").encode_queries(["adicional de insalubridade"])
    name = pool.loaded_models()
    assert len(name) == 1 and pool.load_count == 1
    assert pool.unload_idle(3600) == []  # used just now
    assert pool.unload_idle(60, now=time.monotonic() + 30) == []
    with pool.use("E1", "pt"):
        assert pool.unload_idle(0, now=time.monotonic() + 3600) == []  # in use: never taken away
    assert pool.unload_idle(60, now=time.monotonic() + 61) == name
    assert pool.loaded_models() == [] and pool.unload_idle(0) == []
    again = pool.get("E1", "pt").encode_queries(["adicional de insalubridade"])  # loaded again on demand
    assert pool.load_count == 2 and pool.loaded_models() == name
    np.testing.assert_array_equal(vector, again)


# -- the daemon's service, in this process --------------------------------------------------------


@pytest.fixture(scope="module")
def case_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real case, ingested by the CLI in its own process (this one loads no model for it)."""
    home = tmp_path_factory.mktemp("model-idle") / "home"
    ok(casetrack(home, "case", "create", CASE, "--language", "pt", CASETRACK_CLI_DAEMON="never"))
    files = [str(require(DATA / "lener_br/raw_text" / name)) for name in FILES]
    ok(casetrack(home, "ingest", "--case", CASE, *files, timeout=600, CASETRACK_CLI_DAEMON="never"))
    return home


@pytest.fixture
def service_of(case_home: Path) -> Iterator[Any]:
    services: list[Service] = []

    def make(idle_minutes: float) -> Service:
        service = Service(
            replace(settings_for(case_home), memory_mode="standard", model_idle_minutes=idle_minutes)
        )
        services.append(service)
        return service

    yield make
    for service in services:
        service.close()


def search(service: Service) -> dict[str, Any]:
    from casetrack.search.ranking.output import response_json

    return answer(dict(response_json(service.app.search(CASE, QUERY, top_k=8))))


def loaded(service: Service) -> list[str]:
    pool = service.app.loaded_pool
    return pool.loaded_models() if pool is not None else []


@pytest.mark.slow
def test_idle_models_unload_give_memory_back_and_reload_with_the_same_results(service_of: Any) -> None:
    service = service_of(0.01)  # 0.6 s; the timer looks every 0.5 s
    first = search(service)
    names = loaded(service)
    assert names and first["results"]
    loads = service.app.pool.load_count
    rss_loaded = rss_mb()
    service.start()
    assert any(t.name == WATCHER for t in threading.enumerate())
    wait_for(lambda: not loaded(service) and service.models_unloaded, 30, "idle models unloaded")
    assert sorted(service.models_unloaded[-1][1]) == sorted(names)
    assert service.daemon_status()["loaded_models"] == []
    # The models' sessions and arenas go back to the system (malloc_trim): measured 470 -> 340 MB
    # here; asserted with a wide margin, the rest of the process (LanceDB, libraries) stays.
    rss_unloaded = rss_mb()
    assert rss_loaded - rss_unloaded > 50, f"RSS {rss_loaded:.0f} -> {rss_unloaded:.0f} MB"

    # The timer stops first: with 0.6 s idle it could take the reloaded models before they are counted.
    service._idle_stop.set()
    assert service._idle_thread is not None
    service._idle_thread.join()
    again = search(service)
    assert again == first
    assert service.app.pool.load_count == loads + len(names)
    assert sorted(loaded(service)) == sorted(names)


@pytest.mark.slow
def test_zero_idle_minutes_never_unloads(service_of: Any) -> None:
    service = service_of(0)
    search(service)
    names = loaded(service)
    service.start()
    assert not any(t.name == WATCHER for t in threading.enumerate()), "no idle timer with 0"
    time.sleep(1.5)  # thrice the shortest timer period
    assert loaded(service) == names and service.models_unloaded == []


@pytest.mark.slow
def test_the_daemon_unloads_idle_models_after_the_env_setting(case_home: Path) -> None:
    """End to end: CASETRACK_MODEL_IDLE_MINUTES reaches the daemon; a CLI search through it loads
    models, they go after the idle time (daemon status and log say so), the next search reloads them."""
    env: dict[str, Any] = {ENV_MODEL_IDLE: "0.02", "CASETRACK_MEMORY_MODE": "standard"}  # casetrack(**env)
    settings = settings_for(case_home)
    baseline = json.loads(
        ok(
            casetrack(
                case_home, "search", "--case", CASE, QUERY, "--json", CASETRACK_CLI_DAEMON="never", **env
            )
        )
    )
    ok(casetrack(case_home, "daemon", "start", "--idle-exit", "300", timeout=120, **env))
    try:

        def status() -> dict[str, Any]:
            return dict(json.loads(ok(casetrack(case_home, "daemon", "status", "--json", **env))))

        assert status()["model_idle_minutes"] == 0.02
        first = json.loads(ok(casetrack(case_home, "search", "--case", CASE, QUERY, "--json", **env)))
        assert answer(first) == answer(baseline)
        after_search = status()
        assert after_search["model_loads"] >= 1  # the daemon ran it (the models may be gone already)
        wait_for(lambda: not status()["loaded_models"], 60, "the daemon unloaded its idle models")
        # The summary line follows the pool's unloads once the memory is given back (a moment
        # later): status can show no models before the line is written.
        log_path = case_home / "logs" / "daemon.log"
        pattern = r"unloaded idle models (.+) after \S+ s unused: RSS (\d+) -> (\d+) MB"
        wait_for(
            lambda: re.search(pattern, log_path.read_text(encoding="utf-8")) is not None,
            30,
            "the daemon logged the idle unload with its memory",
        )
        unloads = re.findall(pattern, log_path.read_text(encoding="utf-8"))
        names, before, after = unloads[0]
        assert "multilingual-e5-small-enpt" in names
        assert int(after) < int(before), unloads  # memory given back to the system
        again = json.loads(ok(casetrack(case_home, "search", "--case", CASE, QUERY, "--json", **env)))
        assert answer(again) == answer(baseline)
        assert status()["model_loads"] > after_search["model_loads"]  # loaded again by this search
    finally:
        client.stop_daemon(settings, timeout=60)
    assert client.ping(settings) is None
