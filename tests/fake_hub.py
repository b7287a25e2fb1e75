"""A stand-in for the model hub's file endpoint on 127.0.0.1, so download tests need no network.

It answers `HEAD` and `GET /{owner}/{name}/resolve/{revision}/{path}` the way huggingface-hub
expects: `X-Repo-Commit`, an `ETag` that is the git blob sha1 for regular files, and for LFS
files `X-Linked-Etag` (the sha256) and `X-Linked-Size`; `Content-Length`; `Range: bytes=N-`
answered with 206. Errors carry `X-Error-Code` (RepoNotFound, RevisionNotFound, EntryNotFound),
which huggingface-hub turns into its typed exceptions. Tests can make the first GET of a file
stop after N bytes (to exercise resume), ignore Range headers, or serve bytes other than the
advertised ones.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote, urlsplit

LFS_SUFFIXES = (".onnx", ".bin", ".safetensors")


@dataclass
class HubFile:
    data: bytes
    lfs: bool
    served: bytes | None = None  # what GET sends, when a test wants a corrupt transfer

    @property
    def etag(self) -> str:
        if self.lfs:
            return hashlib.sha256(self.data).hexdigest()
        return hashlib.sha1(b"blob %d\0" % len(self.data) + self.data).hexdigest()


@dataclass
class FakeHub:
    """Files by (repo, commit, path); `refs` maps (repo, branch) to a commit."""

    files: dict[tuple[str, str, str], HubFile] = field(default_factory=dict)
    refs: dict[tuple[str, str], str] = field(default_factory=dict)
    drop_after: dict[str, int] = field(default_factory=dict)  # path -> bytes sent before the first GET breaks
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)  # (method, file path, Range)
    ignore_range: bool = False  # answer Range requests with the whole file (200), as some proxies do
    rate: int | None = None  # bytes per second a GET body is sent at (a slow line), None: at once
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def add(self, repo: str, commit: str, path: str, data: bytes, served: bytes | None = None) -> None:
        """Publish `data` as `path` of `repo` at `commit`, which also becomes the repo's main."""
        self.files[(repo, commit, path)] = HubFile(data, path.endswith(LFS_SUFFIXES), served)
        self.refs[(repo, "main")] = commit

    def add_folder(self, repo: str, commit: str, folder: Path, layout: dict[str, str]) -> None:
        """Publish files of a local folder: `layout` maps repo path -> file name in `folder`."""
        for repo_path, name in layout.items():
            self.add(repo, commit, repo_path, (folder / name).read_bytes())

    def gets(self, path: str) -> list[str | None]:
        """The Range header of every GET of `path` (None for a plain GET)."""
        return [rng for method, p, rng in self.requests if method == "GET" and p == path]

    def __enter__(self) -> FakeHub:
        hub = self

        class Handler(_Handler):
            state = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: FakeHub

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - keep pytest output clean
        pass

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self._answer(body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        found = self._find()
        if found is None:
            return
        commit, path, hub_file = found
        payload = hub_file.data if hub_file.served is None else hub_file.served
        start = self._range_start() if body else 0
        self._send_headers(commit, hub_file, payload, start)
        if body:
            self._send_body(path, payload, start)

    def _find(self) -> tuple[str, str, HubFile] | None:
        """The commit, path and file a request names; None once the error the hub would send for
        it (repo, revision or file unknown) is answered."""
        parts = unquote(urlsplit(self.path).path).lstrip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            self._error(404, "EntryNotFound", None)
            return None
        repo, revision, path = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
        self.state.requests.append((self.command, path, self.headers.get("Range")))
        if not any(key[0] == repo for key in self.state.files):
            self._error(401, "RepoNotFound", None)
            return None
        commit = self.state.refs.get((repo, revision), revision)
        if not any(key[:2] == (repo, commit) for key in self.state.files):
            self._error(404, "RevisionNotFound", None)
            return None
        hub_file = self.state.files.get((repo, commit, path))
        if hub_file is None:
            self._error(404, "EntryNotFound", commit)
            return None
        return commit, path, hub_file

    def _range_start(self) -> int:
        """Where a GET's `Range: bytes=N-` starts (0: the whole file, or ranges are ignored)."""
        header = self.headers.get("Range")
        if not header or not header.startswith("bytes=") or self.state.ignore_range:
            return 0
        return int(header[len("bytes=") :].split("-")[0])

    def _send_headers(self, commit: str, hub_file: HubFile, payload: bytes, start: int) -> None:
        self.send_response(206 if start else 200)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"{hub_file.etag}"')
        if hub_file.lfs:
            self.send_header("X-Linked-Etag", f'"{hub_file.etag}"')
            self.send_header("X-Linked-Size", str(len(hub_file.data)))
        self.send_header("Accept-Ranges", "bytes")
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(payload) - 1}/{len(payload)}")
        self.send_header("Content-Length", str(len(payload) - start))
        self.end_headers()

    def _send_body(self, path: str, payload: bytes, start: int) -> None:
        """The body from `start`: broken off once when the test asks, at `rate` when set."""
        cut = self.state.drop_after.pop(path, None)
        if cut is not None:
            # Send part of the body, then drop the connection as a flaky network would.
            self.wfile.write(payload[start:cut])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if self.state.rate is None:
            self.wfile.write(payload[start:])
            return
        step = 1 << 16
        for offset in range(start, len(payload), step):
            try:
                self.wfile.write(payload[offset : offset + step])
                self.wfile.flush()
            except OSError:  # the client went away (a cancelled download)
                return
            time.sleep(step / self.state.rate)

    def _error(self, status: int, code: str, commit: str | None) -> None:
        message = f"{code} (fake hub)".encode()
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", code)
        if commit:
            self.send_header("X-Repo-Commit", commit)
        self.send_header("Content-Length", str(len(message)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(message)
