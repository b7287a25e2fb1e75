"""The real CLI in-process (click's runner), for tests: `run` asserts success unless told not to."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner, Result

from casetrack.cli.main import cli


def run(*args: str, ok: bool = True, env: dict[str, str] | None = None) -> Result:
    result = CliRunner(env=env).invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def run_json(*args: str, ok: bool = True, env: dict[str, str] | None = None) -> Any:
    return json.loads(run(*args, "--json", ok=ok, env=env).stdout)
