"""installer/install.ps1, the Windows installer, checked without PowerShell.

No PowerShell can be installed on the Linux machines that run these tests (no package of it in the
registries they reach), so the script is never executed here. What is checked instead:

* its syntax: brackets balanced outside strings and comments (a small tokenizer that knows
  PowerShell's quoting, here-strings and `$( )` inside strings), and, where the
  `tree-sitter-powershell` grammar is installed, a full parse with no error node;
* that it is Windows PowerShell 5.1 code: ASCII only, none of PowerShell 7's `&&`, `||`, `??`, and
  none of bash's (`fi`, `/dev/null`, `${X:-}`, ...);
* its names: every function it calls is defined before the install starts, every variable it reads
  is assigned or automatic, and no variable is spelled in two cases (PowerShell ignores case);
* every step of install.sh (common.sh, ocr.sh) is there, with the same key messages, the same pip
  arguments and the same marker keys, and every program it runs has its exit code checked;
* the one piece of it that is another program's code, the Python probe, is run with this Python
  and its JSON compared with what the script reads from it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from casetrack.setup.installation import Installation
from tests.conftest import REPO

SCRIPT = REPO / "installer" / "install.ps1"
OPEN, CLOSE = "([{", ")]}"


@dataclass
class Scanned:
    code: str  # the script with comments removed and string contents blanked (quotes kept)
    strings: list[tuple[str, str, int]] = field(default_factory=list)  # (quote kind, content, line)


def _line(src: str, pos: int) -> int:
    return src.count("\n", 0, pos) + 1


class _Scanner:
    """PowerShell's lexical layers, enough to tell code from strings and comments."""

    def __init__(self, src: str) -> None:
        self.src, self.pos, self.out = src, 0, Scanned("")
        self.code: list[str] = []

    def run(self) -> Scanned:
        self.code_until(None)
        self.out.code = "".join(self.code)
        return self.out

    def code_until(self, closer: str | None) -> None:
        """Code up to the `)` that closes a `$(` (closer) or the end; nested brackets counted."""
        depth, src = 0, self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if closer and ch == closer and depth == 0:
                return
            if self.comment() or self.string():
                continue
            if ch == "`":  # an escaped character is code, whatever it is
                self.code.append(src[self.pos : self.pos + 2])
                self.pos += 2
                continue
            if closer and ch in "()":
                depth += 1 if ch == "(" else -1
            self.code.append(ch)
            self.pos += 1

    def comment(self) -> bool:
        """Skip a block comment (`<# #>`, its line breaks kept) or a line comment at pos."""
        src, two = self.src, self.src[self.pos : self.pos + 2]
        if two == "<#":
            end = src.find("#>", self.pos + 2)
            end = len(src) if end < 0 else end + 2
            self.code.append("\n" * src.count("\n", self.pos, end))
            self.pos = end
            return True
        if two.startswith("#"):
            end = src.find("\n", self.pos)
            self.pos = len(src) if end < 0 else end
            return True
        return False

    def string(self) -> bool:
        """Read a here-string, a single- or a double-quoted string at pos."""
        src, two = self.src, self.src[self.pos : self.pos + 2]
        if two in ("@'", '@"') and src[self.pos + 2 : self.pos + 3] in ("\n", "\r"):
            self.here_string(two[1])
        elif two.startswith("'"):
            self.single_quoted()
        elif two.startswith('"'):
            self.double_quoted()
        else:
            return False
        return True

    def single_quoted(self) -> None:
        start, src = self.pos, self.src
        self.pos += 1
        while self.pos < len(src):
            if src[self.pos] == "'" and src[self.pos + 1 : self.pos + 2] == "'":
                self.pos += 2
            elif src[self.pos] == "'":
                break
            else:
                self.pos += 1
        content = src[start + 1 : self.pos]
        self.out.strings.append(("'", content.replace("''", "'"), _line(src, start)))
        self.code.append("'" + re.sub(r"[^\n]", " ", content) + "'")
        self.pos += 1

    def double_quoted(self) -> None:
        """A "..." string: backtick escapes, "" for a quote, and $( code ) inside."""
        start, src = self.pos, self.src
        self.code.append('"')
        self.pos += 1
        content: list[str] = []
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "`":
                content.append(src[self.pos : self.pos + 2])
                self.pos += 2
            elif ch == '"' and src[self.pos + 1 : self.pos + 2] == '"':
                content.append('""')
                self.pos += 2
            elif ch == '"':
                break
            elif src[self.pos : self.pos + 2] == "$(":
                content.append("$(...)")
                self.code.append("$(")
                self.pos += 2
                self.code_until(")")
                self.code.append(")")
                self.pos += 1
            else:
                content.append(ch)
                self.pos += 1
        text = "".join(content)
        self.out.strings.append(('"', text, _line(src, start)))
        self.code.append(re.sub(r"[^\n]", " ", text.replace("$(...)", "")) + '"')
        self.pos += 1

    def here_string(self, quote: str) -> None:
        start, src = self.pos, self.src
        end = src.find("\n" + quote + "@", self.pos)
        end = len(src) if end < 0 else end
        self.out.strings.append((quote, src[self.pos + 3 : end], _line(src, start)))
        self.code.append("@" + quote + "\n" * src.count("\n", self.pos, end) + "\n" + quote + "@")
        self.pos = end + 3


def scan(src: str) -> Scanned:
    return _Scanner(src).run()


def unbalanced(code: str) -> list[str]:
    """Each bracket of `code` that is not closed, or closes the wrong one."""
    stack: list[tuple[str, int]] = []
    problems = []
    for pos, ch in enumerate(code):
        if ch == "`":
            continue
        if pos and code[pos - 1] == "`":
            continue
        if ch in OPEN:
            stack.append((ch, _line(code, pos)))
        elif ch in CLOSE:
            want = OPEN[CLOSE.index(ch)]
            if not stack or stack[-1][0] != want:
                problems.append(f"line {_line(code, pos)}: {ch} closes {stack[-1] if stack else 'nothing'}")
            else:
                stack.pop()
    problems += [f"line {line}: {ch} never closed" for ch, line in stack]
    return problems


@pytest.fixture(scope="module")
def source() -> str:
    return SCRIPT.read_text(encoding="ascii")


@pytest.fixture(scope="module")
def scanned(source: str) -> Scanned:
    return scan(source)


def strings_of(scanned: Scanned) -> str:
    return "\n".join(content for _, content, _ in scanned.strings)


# -- the checker itself -----------------------------------------------------------------------------


def test_the_scanner_tells_code_from_strings_and_comments() -> None:
    sample = (
        "$a = 'it''s (' # a comment with {\n"
        '$b = "x $(Join-Path $a "c(") y `" {"\n'
        "<# block ( #>\n$c = @'\n  ( {\n'@\nif ($a) { $b }\n"
    )
    found = scan(sample)
    assert unbalanced(found.code) == []
    assert [s[1] for s in found.strings] == ["it's (", "c(", 'x $(...) y `" {', "  ( {"]
    assert "Join-Path $a" in found.code and "comment" not in found.code and "block" not in found.code
    assert unbalanced(scan("if ($a) { $b ").code) == ["line 1: { never closed"]
    assert unbalanced(scan('$x = @(1, "2)"\n').code) == ["line 1: ( never closed"]
    assert unbalanced(scan("$x = (1]").code) == ["line 1: ] closes ('(', 1)", "line 1: ( never closed"]


# -- syntax -----------------------------------------------------------------------------------------


def test_ascii_only_without_byte_order_mark() -> None:
    """Windows PowerShell 5.1 reads a BOM-less script in the ANSI code page: a curly quote or a dash
    would be misread (a curly quote even ends a string)."""
    data = SCRIPT.read_bytes()
    bad = [(_line(data.decode("latin-1"), i), hex(b)) for i, b in enumerate(data) if b > 127]
    assert bad == [] and not data.startswith(b"\xef\xbb\xbf")
    assert b"\t" not in data


def test_brackets_balance_outside_strings_and_comments(scanned: Scanned) -> None:
    assert unbalanced(scanned.code) == []


def test_it_parses_with_the_powershell_grammar(source: str) -> None:
    """A full parse where the tree-sitter PowerShell grammar is installed (it is not in [test])."""
    ts = pytest.importorskip("tree_sitter")
    grammar = pytest.importorskip("tree_sitter_powershell")
    tree = ts.Parser(ts.Language(grammar.language())).parse(source.encode("ascii"))
    errors = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            errors.append((node.start_point[0] + 1, source.encode()[node.start_byte : node.end_byte][:60]))
        stack.extend(node.children)
    assert errors == []


def test_windows_powershell_51_code_and_no_bash(scanned: Scanned, source: str) -> None:
    code = scanned.code
    assert source.splitlines()[:20].count("#Requires -Version 5.1") == 1
    for pattern, what in [
        (r"&&|\|\|", "&& and || (PowerShell 7 only)"),
        (r"\?\?|\?\.", "?? and ?. (PowerShell 7 only)"),
        (r"/dev/null|>&2|2>/", "POSIX redirections"),
        (r"\$\{\w+:-", "${X:-default}"),
        (r"(?<![\w$-])(fi|then|elif|esac|done|export|source|local|echo)\b", "bash keywords and echo"),
        (r"\[\[|\[ -[a-z] ", "test brackets"),
        (r"-AdditionalChildPath|\$IsWindows", "PowerShell 6+ names"),
    ]:
        hits = sorted({_line(code, m.start()) for m in re.finditer(pattern, code)})
        assert hits == [], f"{what} on lines {hits}"
    assert ".venv/bin" not in source and "bin\\python" not in source  # Windows venvs: Scripts\\python.exe


def test_stop_on_errors_is_set_before_anything_runs(source: str) -> None:
    stop = source.index("\n$ErrorActionPreference = 'Stop'\n")
    assert stop < source.index("\nfunction ")
    assert source.count("$ErrorActionPreference = 'Stop'") == 2  # and again after the demo
    assert "\n$PSNativeCommandUseErrorActionPreference = $false\n" in source[: source.index("\nfunction ")]


# -- names --------------------------------------------------------------------------------------------

BUILTIN_COMMANDS = {
    "Write-Host",
    "Get-Command",
    "Test-Path",
    "Join-Path",
    "Split-Path",
    "Resolve-Path",
    "Remove-Item",
    "Move-Item",
    "Get-ChildItem",
    "Where-Object",
    "ForEach-Object",
    "Select-Object",
    "Out-Null",
    "Out-Host",
    "New-Object",
    "Get-Date",
    "Push-Location",
    "Pop-Location",
}
AUTOMATIC = {
    "_",
    "null",
    "true",
    "false",
    "lastexitcode",
    "psscriptroot",
    "erroractionpreference",
    "psnativecommanduseerroractionpreference",
}


def _functions(code: str) -> dict[str, int]:
    return {m[1]: m.start() for m in re.finditer(r"(?m)^function ([\w-]+)", code)}


def test_every_command_called_is_defined_before_the_install_starts(scanned: Scanned) -> None:
    code = scanned.code
    defined = _functions(code)
    main = code.index("# -- the install") if "# -- the install" in code else code.index("\nif ($env:OS")
    assert max(defined.values()) < main
    called = set(re.findall(r"(?<![\w$.-])([A-Z][a-z]+-[A-Z][A-Za-z]+)\b", code))
    assert called - BUILTIN_COMMANDS - set(defined) == set()
    short = {name for name in defined if "-" not in name}  # Say, Warn, Fail
    assert short == {"Say", "Warn", "Fail"}
    unused = [name for name in defined if len(re.findall(rf"(?<![\w-]){re.escape(name)}\b", code)) < 2]
    assert unused == []


def _variables_read(scanned: Scanned) -> set[str]:
    names = set(re.findall(r"\$(?:script:)?(\w+)", scanned.code))
    for kind, content, _ in scanned.strings:
        if kind == '"':
            names |= set(re.findall(r"(?<!`)\$\{?(?:script:)?(\w+)", content.replace("$(...)", "")))
    return {n for n in names if n.lower() != "env"} - {n for n in names if re.fullmatch(r"\d+", n)}


def _variables_set(code: str) -> set[str]:
    assigned = set(re.findall(r"\$(\w+)\s*(?:=(?!=)|\+=)", code))
    loops = set(re.findall(r"foreach\s*\(\s*\$(\w+)\s+in\b", code))
    params = set(re.findall(r"\[(?:string|string\[\]|switch)\]\$(\w+)", code))
    untyped = {
        p
        for head in re.findall(r"(?m)^function [\w-]+\(([^)]*)\)", code)
        for p in re.findall(r"\$(\w+)", head)
    }
    return assigned | loops | params | untyped


def _scopes(code: str) -> tuple[str, list[str]]:
    """(the script's own level, each function's text): a function's locals live in its own scope."""
    bodies, top, last = [], [], 0
    for m in re.finditer(r"(?m)^function [\w-]+", code):
        pos, depth = m.end(), 0
        while depth or code[pos] != "{":  # past the (parameters), to the body
            depth += {"(": 1, ")": -1}.get(code[pos], 0)
            pos += 1
        depth, pos = 1, pos + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(code[pos], 0)
            pos += 1
        top.append(code[last : m.start()])
        bodies.append(code[m.start() : pos])
        last = pos
    top.append(code[last:])
    return "".join(top), bodies


def _spellings(code: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name in re.findall(r"\$(?:script:)?(\w+)", code):
        if name.lower() != "env":
            found.setdefault(name.lower(), set()).add(name)
    return found


def test_every_variable_read_is_set_and_spelled_one_way(scanned: Scanned, source: str) -> None:
    read, written = _variables_read(scanned), _variables_set(scanned.code)
    assert {n for n in read if n.lower() not in AUTOMATIC} - written == set()
    # PowerShell ignores case: $ct and $CT are one variable. One spelling per name at the script's
    # level and in each function.
    top, bodies = _scopes(scan(source).code)
    assert len(bodies) == len(_functions(scanned.code))
    clashes = {f"script: {k}": v for k, v in _spellings(top).items() if len(v) > 1}
    for body in bodies:
        name = body.split()[1].split("(")[0]
        clashes.update({f"{name}: {k}": v for k, v in _spellings(body).items() if len(v) > 1})
    assert clashes == {}
    assert _spellings("$ct = 1; $CT") == {"ct": {"ct", "CT"}}  # what the check would catch


def test_no_variable_in_a_string_is_followed_by_a_colon(scanned: Scanned) -> None:
    """ "$Exe: ..." reads as a scope or drive name (like $env:X) and does not parse: ${Exe} is needed."""
    bad = [
        (line, m[0])
        for kind, content, line in scanned.strings
        if kind == '"'
        for m in re.finditer(r"(?<!`)\$(\w+):", content)
        if m[1].lower() not in ("env", "script", "global")
    ]
    assert bad == []
    assert re.search(r"(?<!`)\$(\w+):", "Could not run $Exe: it") is not None  # what it finds


# -- the steps of install.sh ----------------------------------------------------------------------


def test_python_311_or_newer_is_found_the_windows_way_or_the_way_to_get_it_is_said(
    scanned: Scanned, source: str
) -> None:
    code, text = scanned.code, strings_of(scanned)
    assert "$MinMinor = 11" in code and "-ge $MinMinor" in code
    flags = [f for f in re.findall(r"'(-3(?:\.\d+)?)'", source)]
    assert flags == ["-3.11", "-3.12", "-3.13", "-3"]  # 3.11 first, like common.sh
    assert source.index("'python', 'python3'") > source.index("'-3.11'")
    for words in (
        "winget install Python.Python.3.11",
        "python.org/downloads",
        "64-bit",
        "CaseTrack needs Python 3.11 or newer",
        "-Python C:\\path\\to\\python.exe",
    ):
        assert words in text, words
    assert "win-amd64" in text and "win-arm64" in text  # 32-bit and ARM Pythons are refused, with why


def test_a_broken_venv_is_recreated_as_common_sh_does(scanned: Scanned, source: str) -> None:
    text = strings_of(scanned)
    common = (REPO / "installer" / "common.sh").read_text(encoding="utf-8")
    reasons = re.findall(r'echo "broken:([^"$]+?)(?:"|\$)', common)
    assert len(reasons) >= 5
    for reason in reasons:  # the same words for the same states
        assert f"broken:{reason.strip()}" in text, reason
    for words in (
        "Scripts\\python.exe",
        "Scripts\\casetrack.exe",
        "pyvenv.cfg",
        ".casetrack-install",
        "Recreating .venv: ",
        "Repairing .venv: its last install did not finish",
        "Recreating .venv: installing into it failed again.",
        "Error: .venv exists but is not a Python virtual environment; it was left untouched.",
    ):
        assert words in text, words
    assert words_in_order(
        source,
        [
            "function Install-Venv",
            "Get-VenvState",
            "'foreign'",
            "'missing'",
            "New-Venv",
            "StartsWith('broken:')",
            "Remove-Venv",
            "New-Venv",
            "Install-IntoVenv",
            "$created -or -not $unfinished",
            "Remove-Venv",
            "New-Venv",
            "Install-IntoVenv",
            "Write-Marker",
        ],
    )


def words_in_order(text: str, words: list[str]) -> bool:
    pos = 0
    for word in words:
        pos = text.find(word, pos)
        if pos < 0:
            raise AssertionError(f"{word!r} is missing after position {pos}")
        pos += len(word)
    return True


def test_pip_installs_the_same_way_as_common_sh(source: str, scanned: Scanned) -> None:
    common = (REPO / "installer" / "common.sh").read_text(encoding="utf-8")
    assert "pip install --quiet --disable-pip-version-check -e" in common
    assert "@('-m', 'pip', 'install', '--quiet', '--disable-pip-version-check')" in source
    assert "@('--upgrade', 'pip')" in source and "@('-e', $Root)" in source  # no extras, like install.sh
    assert "import casetrack.cli.main" in strings_of(scanned)


def test_the_marker_has_common_sh_keys_without_a_byte_order_mark(source: str) -> None:
    common = (REPO / "installer" / "common.sh").read_text(encoding="utf-8")
    body = common[common.index("_ct_write_marker() {") :]
    keys_sh = re.findall(r'echo "(\w+)=', body[: body.index("\n}")])
    text = re.search(r'\$text = "([^"]+)"', source)
    assert text is not None
    keys_ps = re.findall(r"(?:^|`n)(\w+)=", text[1])
    assert keys_ps == keys_sh == ["root", "python", "extras", "installed"]
    assert "New-Object System.Text.UTF8Encoding $false" in source  # Python would read a BOM into "root"
    assert words_in_order(source, ["function Write-Marker", "$Marker.tmp", "WriteAllText", "Move-Item"])


def test_tesseract_is_installed_by_winget_only_without_questions_else_the_command_is_said(
    scanned: Scanned, source: str
) -> None:
    text = strings_of(scanned)
    assert "$TesseractId = 'UB-Mannheim.TesseractOCR'" in source
    assert "(Test-Program 'winget') -and (Test-Admin)" in source  # elevated: no UAC question
    assert re.search(r"'--silent',\s+'--accept-package-agreements', '--accept-source-agreements'", source)
    for words in (
        "winget install $TesseractId --interactive",
        "winget install $TesseractId --force --interactive",
        'tick Portuguese under "Additional language data (download)"',
        "traineddata",
        "tessdata_fast",
        "OCR: $name with eng, por and osd",
        "OCR: Tesseract with English and Portuguese is not installed",
    ):
        assert words in text, words
    assert "@('eng', 'por', 'osd')" in source and "'--list-langs'" in source
    engine = (REPO / "casetrack" / "ocr" / "engine.py").read_text(encoding="utf-8")
    assert r"C:\Program Files\Tesseract-OCR\tesseract.exe" in engine  # where both look
    assert "'Tesseract-OCR\\tesseract.exe'" in source and "CASETRACK_TESSERACT" in source


def test_models_come_from_the_offline_pack_else_are_downloaded_into_the_install(source: str) -> None:
    install_sh = (REPO / "installer" / "install.sh").read_text(encoding="utf-8")
    assert (
        '--models-dir "$target" models import' in install_sh
        and '--models-dir "$target" models download' in install_sh
    )
    assert "@('--models-dir', $target, 'models', 'import', $env:CASETRACK_MODELS_DIR)" in source
    assert "@('--models-dir', $target, 'models', 'download')" in source
    assert "Join-Path (Split-Path -Parent $Root) 'shared\\models'" in source
    assert "'model.json'" in source and "$target = Join-Path $Root 'models'" in source
    assert words_in_order(
        source, ["Install-Venv $Chosen", "$FromPack = $true", "Install-Ocr", "Install-Models", "& $CT demo"]
    )


def test_the_demo_then_doctor_and_the_claude_commands_end_it(source: str, scanned: Scanned) -> None:
    text = strings_of(scanned)
    assert words_in_order(
        source,
        [
            "& $CT demo",
            "$demoCode = $LASTEXITCODE",
            "if ($demoCode -ne 0)",
            "The demo did not finish",
            "doctor",
            "Check this install any time:",
            "Connect it to Claude:",
        ],
    )
    for words in (
        "$shown setup-claude-code",
        "(Claude Desktop: $shown setup-claude-desktop)",
        "$shown doctor",
    ):
        assert words in text, words


def test_every_program_run_has_its_exit_code_checked(scanned: Scanned) -> None:
    code = scanned.code
    lines = code.splitlines()
    calls = [i for i, line in enumerate(lines) if re.search(r"(?<![\w'])& \$\w+", line)]
    assert len(calls) >= 3
    for i in calls:
        assert "$LASTEXITCODE" in "\n".join(lines[i : i + 3]), f"line {i + 1}: {lines[i].strip()}"
    # The helpers' results are used: no Invoke-Native / Invoke-Shown whose code is dropped unseen,
    # except where ignoring it is the point ($null = ...: the daemon stop, winget, rmdir).
    for m in re.finditer(r"(?m)^(.*)\b(Invoke-Native|Invoke-Shown) ", code):
        before = m[1].strip()
        assert before.startswith(("$", "if ", "return", "$null =")) or before.endswith(("(", "= ")), m[0]
    assert len(re.findall(r"\$null = Invoke-", code)) == 3


def test_the_commands_casetrack_prints_for_windows_name_this_script() -> None:
    installation = Installation(
        Path("C:/CaseTrack/.venv"),
        Path("C:/CaseTrack/.venv/Scripts/python.exe"),
        in_venv=True,
        windows=True,
        marker={"root": str(REPO)},
    )
    command = installation.installer_command()
    assert command.startswith("powershell -ExecutionPolicy Bypass -File ")
    assert Path(command.split("-File ", 1)[1].strip('"')) == SCRIPT and SCRIPT.is_file()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "powershell -ExecutionPolicy Bypass -File installer\\install.ps1" in readme


# -- the Python probe, run --------------------------------------------------------------------------


def _assigned_string(source: str, name: str) -> str:
    m = re.search(rf"^\${name} = (['\"])(.*)\1\s*(?:#.*)?$", source, flags=re.MULTILINE)
    assert m is not None, name
    value = m[2]
    if m[1] == '"':
        assert "$" not in value and "`" not in value  # nothing PowerShell would expand
    else:
        value = value.replace("''", "'")
    return value


def test_the_python_probe_runs_and_its_json_is_what_the_script_reads(source: str) -> None:
    code = _assigned_string(source, "ProbeCode")
    assert '"' not in code  # Windows PowerShell 5.1 would not escape it for python's command line
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        env={"PYTHONIOENCODING": "utf-8", "PATH": ""},
    )
    assert done.stdout.isascii() and "\n" not in done.stdout.strip()  # read in any console code page
    probe = json.loads(done.stdout)
    assert probe == {
        "version": ".".join(map(str, sys.version_info[:3])),
        "platform": sysconfig.get_platform(),
        "path": sys.executable,
    }
    reader = source[source.index("function Get-PythonInfo") : source.index("function Test-NewEnough")]
    assert "ConvertFrom-Json" in reader
    assert set(re.findall(r"\$probe\.(\w+)", reader)) == set(probe)
    version = re.search(r"\[regex\]::Match\(\[string\]\$probe\.version, '(.+?)'\)", reader)
    assert version is not None and re.fullmatch(version[1], probe["version"])
    assert re.fullmatch(version[1], "3.11") is None
    minor = re.search(r"-replace '(.+?)', '\$1'", source)
    assert minor is not None and re.sub(minor[1], r"\1", "3.11.9") == "3.11"


def test_the_probe_keeps_a_non_ascii_path_ascii(source: str, tmp_path: Path) -> None:
    """Windows decodes a program's output in the console's code page: a user folder like
    C:\\Users\\Jo\u00e3o must reach the script intact, so the probe escapes it (JSON)."""
    code = _assigned_string(source, "ProbeCode").replace("sys.executable", "sys.argv[1]")
    done = subprocess.run(
        [sys.executable, "-c", code, "C:\\Users\\Jo\u00e3o\\python.exe"],
        capture_output=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.isascii() and json.loads(done.stdout)["path"] == "C:\\Users\\Jo\u00e3o\\python.exe"
