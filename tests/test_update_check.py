"""`casetrack update [--check]` against a local stand-in of a package index ("simple" HTML pages).

The real pip of the test's venv runs `pip index versions casetrack`; PIP_INDEX_URL points it at a
small HTTP server started here on 127.0.0.1 (and PIP_CONFIG_FILE at nothing), so no request
leaves the machine. The server records every path asked for.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from casetrack import __version__
from casetrack.setup.installation import INSTALL_MARKER, current_installation
from casetrack.setup.update import parse_index_versions, version_key
from tests.cli_runner import run


@dataclass
class StandInIndex:
    versions: list[str]
    listed: bool = True
    requests: list[str] = field(default_factory=list)
    url: str = ""


def _handler(index: StandInIndex) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            index.requests.append(self.path)
            if not (index.listed and self.path.rstrip("/") == "/simple/casetrack"):
                self.send_error(404)
                return
            links = "".join(
                f'<a href="/files/casetrack-{v}-py3-none-any.whl">casetrack-{v}-py3-none-any.whl</a>\n'
                for v in index.versions
            )
            body = f"<!DOCTYPE html><html><body>\n{links}</body></html>\n".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

    return Handler


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInIndex]:
    """The stand-in index, and pip pointed at it (and nowhere else)."""
    state = StandInIndex(["0.0.9", __version__, "99.1.0"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/simple/"
    _point_pip_at(monkeypatch, tmp_path, state.url)
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _point_pip_at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str) -> None:
    for name in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_INDEX_URL", url)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path / "pip-cache"))
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "10")


def test_a_newer_version_is_reported_with_the_upgrade_command(index: StandInIndex) -> None:
    report = json.loads(run("update", "--check", "--json").stdout)
    assert report["checked"] is True and report["installed"] == __version__
    assert (report["latest"], report["update_available"]) == ("99.1.0", True)
    assert set(report["available"]) == {"0.0.9", __version__, "99.1.0"}
    assert report["commands"] == list(current_installation().upgrade_commands())
    assert any(path.rstrip("/") == "/simple/casetrack" for path in index.requests)
    out = run("update", "--check").output
    assert f"A newer CaseTrack is available: 99.1.0 (this is {__version__})" in out
    assert report["commands"][-1] in out


def test_up_to_date(index: StandInIndex) -> None:
    index.versions = ["0.0.1", __version__]
    out = run("update", "--check").output
    assert f"CaseTrack {__version__} is up to date (newest on the package registry: {__version__})" in out


def test_a_package_the_index_does_not_carry_is_a_clear_error(index: StandInIndex) -> None:
    index.listed = False
    result = run("update", "--check", ok=False)
    assert result.exit_code == 1
    assert "did not list casetrack" in result.output and "casetrack update --check again" in result.output


def test_an_unreachable_index_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _point_pip_at(monkeypatch, tmp_path, f"http://127.0.0.1:{port}/simple/")
    result = run("update", "--check", ok=False)
    assert result.exit_code == 1 and "Error:" in result.output
    assert "Check your connection" in result.output


def test_without_check_nothing_is_asked(index: StandInIndex) -> None:
    report = json.loads(run("update", "--json").stdout)
    assert report == {
        "installed": __version__,
        "checked": False,
        "commands": list(current_installation().upgrade_commands()),
    }
    out = run("update").output
    assert "To upgrade it, run:" in out and "casetrack update --check" in out
    assert index.requests == []


# -- the pieces -----------------------------------------------------------------------------------


def test_pip_output_and_version_order() -> None:
    text = (
        "casetrack (1.10.0)\nAvailable versions: 1.10.0, 1.9.2, 1.0\n  INSTALLED: 1.0\n  LATEST:    1.10.0\n"
    )
    assert parse_index_versions(text) == ("1.10.0", "1.9.2", "1.0")
    assert parse_index_versions("WARNING: something\n") == ()
    assert version_key("1.10.0") > version_key("1.9.2") > version_key("1.0")
    assert version_key("1.0") == version_key("1.0.0")
    assert version_key("1.0") > version_key("1.0rc1") and version_key("1.0.post1") > version_key("1.0")
    assert version_key("0.2.0.dev3") < version_key("0.2.0")


def test_the_upgrade_command_fits_the_installation(tmp_path: Path) -> None:
    checkout = tmp_path / "casetrack"
    venv = checkout / ".venv"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("version = 3.11.7\n", encoding="utf-8")
    python = str(venv / "bin" / "python")
    plain = current_installation(str(venv), "/usr", python, windows=False)
    assert plain.upgrade_commands() == (f'"{python}" -m pip install --upgrade casetrack',)
    (venv / INSTALL_MARKER).write_text(f"root={checkout}\npython=3.11.7\n", encoding="utf-8")
    installed = current_installation(str(venv), "/usr", python, windows=False)
    assert installed.by_installer
    assert "Put the new release's files in" in installed.upgrade_commands()[0]
    (checkout / ".git").mkdir()
    assert installed.upgrade_commands() == (
        f'git -C "{checkout}" pull',
        f'bash "{checkout}/installer/install.sh"',
    )
    elsewhere = current_installation(str(tmp_path / "other" / ".venv"), "/usr", python, windows=False)
    assert not elsewhere.by_installer  # no marker there
