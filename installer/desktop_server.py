"""Claude Desktop's entry point in the CaseTrack bundle (manifest.json `server.entry_point`).

The host runs this file in the environment uv installs for the bundle (pyproject.toml + uv.lock)
and it starts `casetrack serve`, the stdio MCP server. Only the standard library is imported before
that, plus platformdirs (a CaseTrack dependency) when a folder variable must be expanded.

First it repairs what a host can pass unexpanded in the CaseTrack settings of `mcp_config.env`:
- a user_config default holding a folder variable (`${DOCUMENTS}/CaseTrack`): the MCPB library
  substitutes `${user_config.*}` after the system folders, so the default's own `${DOCUMENTS}`
  reaches the server as written, and would become a folder named `${DOCUMENTS}` under the bundle;
- a setting the host left unfilled (`${user_config.memory_mode}`): dropped, so CaseTrack's
  default applies (the data folder: Documents/CaseTrack; the memory mode: detected from RAM).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, MutableMapping

_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def host_folders() -> dict[str, str]:
    """The folders a host substitutes (the MCPB spec's `${HOME}`, `${DOCUMENTS}`...), found as it does."""
    import platformdirs

    return {
        "HOME": os.path.expanduser("~"),
        "DOCUMENTS": platformdirs.user_documents_dir(),
        "DESKTOP": platformdirs.user_desktop_dir(),
        "DOWNLOADS": platformdirs.user_downloads_dir(),
        "/": os.sep,
        "pathSeparator": os.sep,
    }


def expand(value: str, folders: Callable[[], dict[str, str]] = host_folders) -> str | None:
    """`value` with the host's folder variables expanded; None if it names something no host fills."""
    if "${" not in value:
        return value
    known = folders()
    expanded = _VARIABLE.sub(lambda m: known.get(m.group(1), m.group(0)), value)
    return None if "${" in expanded else expanded


def repair_environment(environ: MutableMapping[str, str],
                       folders: Callable[[], dict[str, str]] = host_folders) -> list[str]:
    """Expand or drop the CASETRACK_* variables a host passed with `${...}` left in; one note per change."""
    notes = []
    for key in sorted(k for k in environ if k.startswith("CASETRACK_") and "${" in environ[k]):
        value = environ[key]
        fixed = expand(value, folders)
        if fixed is None:
            del environ[key]
            notes.append(f"{key}={value!r} was not filled in by the host: using CaseTrack's default")
        else:
            environ[key] = fixed
            notes.append(f"{key}={value!r} expanded to {fixed!r}")
    return notes


def main() -> None:
    for note in repair_environment(os.environ):
        sys.stderr.write(f"casetrack bundle: {note}\n")  # the host's log of this server (stdout is MCP)
    from casetrack.cli.main import main as casetrack_main

    sys.argv = [sys.argv[0], "serve", *sys.argv[1:]]
    casetrack_main()


if __name__ == "__main__":
    main()
