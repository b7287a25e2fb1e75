"""The CLI imports a command's module only when that command runs (casetrack/cli/main.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from casetrack.cli.main import _COMMANDS, cli


def test_every_listed_command_loads_under_its_name() -> None:
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == list(_COMMANDS)
    for name in _COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name
    assert cli.get_command(ctx, "no-such-command") is None


def test_help_lists_every_command() -> None:
    out = CliRunner().invoke(cli, ["--help"]).output
    assert all(f"  {name} " in out for name in _COMMANDS), out


def test_a_command_imports_its_own_module_only() -> None:
    code = (
        "import sys; from casetrack.cli.main import cli; import click; "
        "cli.get_command(click.Context(cli), 'search'); "
        "print(sorted(m for m in sys.modules if m.startswith('casetrack.cli.') and m.endswith('_cmds')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['casetrack.cli.search_cmds']"


def test_a_wrong_case_name_is_said_before_the_search_modules_load(tmp_path: Path) -> None:
    code = (
        "import sys; from click.testing import CliRunner; from casetrack.cli.main import cli; "
        f"r = CliRunner(env={{'CASETRACK_CLI_DAEMON': 'never'}}).invoke(cli, ['--data-dir', {str(tmp_path)!r}, "
        "'search', '--case', 'Nope', 'prazo']); "
        "print(r.exit_code, 'lancedb' in sys.modules, \"No case named 'Nope'\" in r.output)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "False", "True"], out
