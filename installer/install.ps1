# Install CaseTrack (Windows) into .\.venv, fill the install's models folder, run the demo (a case
# built from the bundled samples, searched) and print the command that connects Claude.
# The Windows twin of installer/install.sh (+ common.sh, ocr.sh): same steps, same messages.
#
# Usage (from any folder; -Python C:\path\to\python.exe, or $env:PYTHON, chooses the Python):
#   powershell -ExecutionPolicy Bypass -File installer\install.ps1
# Safe to run again: it finishes an interrupted install and repairs a broken .venv.
#
# Runs on Windows PowerShell 5.1 and PowerShell 7. Keep this file ASCII: Windows PowerShell reads a
# file without a byte-order mark in the system's code page.

#Requires -Version 5.1
[CmdletBinding()]
param(
    [string]$Python = $env:PYTHON
)

$ErrorActionPreference = 'Stop'
# PowerShell 7.3+ may be set to throw on a program's non-zero exit: exit codes are checked here.
$PSNativeCommandUseErrorActionPreference = $false

$MinMinor = 11
$Marker = '.casetrack-install'   # casetrack/setup/installation.py reads it (update, uninstall)
# One line of JSON from any Python (2.7 too), ASCII even for a path like C:\Users\Joao-with-a-tilde
# (a program's output is decoded in the console's code page): {"version": "3.11.9", "platform":
# "win-amd64", "path": "C:\\...\\python.exe"}. No double quotes in the code: Windows PowerShell 5.1
# does not escape them for a program's command line.
$ProbeCode = "import sys, sysconfig, json; sys.stdout.write(json.dumps({'version': '%d.%d.%d' % tuple(sys.version_info[:3]), 'platform': sysconfig.get_platform(), 'path': sys.executable}))"
$WantedPlatform = 'win-amd64'   # the locked wheels (lancedb, onnxruntime...) exist for 64-bit x86 only
$TesseractId = 'UB-Mannheim.TesseractOCR'

# -- output ---------------------------------------------------------------------------------------

function Say([string]$Text) { Write-Host $Text }

function Warn([string]$Text) { [Console]::Error.WriteLine($Text) }

# Print the lines to stderr and end the install with exit code 1.
function Fail([string[]]$Lines) {
    foreach ($line in $Lines) { Warn $line }
    exit 1
}

# How to run a program from PowerShell: a path with spaces needs the call operator and quotes.
function Format-Command([string]$Path) {
    if ($Path -match '\s') { return "& `"$Path`"" }
    return $Path
}

# -- running programs -----------------------------------------------------------------------------

# Run a program, capture its output (stdout and stderr) and return @{Code; Lines}. The preference is
# relaxed for this call only: Windows PowerShell turns a redirected stderr line into an error that
# 'Stop' would throw on. A program that is not found gives Code 127, one that cannot start 1.
function Invoke-Native([string]$Exe, [string[]]$Arguments = @()) {
    $ErrorActionPreference = 'Continue'
    if (-not (Get-Command $Exe -ErrorAction SilentlyContinue)) {
        return [pscustomobject]@{ Code = 127; Lines = @("$Exe was not found") }
    }
    $lines = @()
    $code = 1
    try {
        $lines = @(& $Exe @Arguments 2>&1 | ForEach-Object { "$_" })
        $code = $LASTEXITCODE
    } catch {
        $lines = @("$_")
        $code = 1
    }
    if ($null -eq $code) { $code = 1 }
    return [pscustomobject]@{ Code = [int]$code; Lines = $lines }
}

# Run a program with its messages shown (stderr straight to the console, stdout through the host or
# dropped with -Quiet) and return its exit code.
function Invoke-Shown([string]$Exe, [string[]]$Arguments = @(), [switch]$Quiet) {
    $ErrorActionPreference = 'Continue'
    if (-not (Get-Command $Exe -ErrorAction SilentlyContinue)) {
        Warn "Could not run ${Exe}: it was not found."
        return 127
    }
    try {
        if ($Quiet) { & $Exe @Arguments | Out-Null } else { & $Exe @Arguments | Out-Host }
        $code = $LASTEXITCODE
    } catch {
        Warn "Could not run ${Exe}: $($_.Exception.Message)"
        return 1
    }
    if ($null -eq $code) { return 1 }
    return [int]$code
}

function Test-Program([string]$Name) {
    return [bool](Get-Command $Name -CommandType Application -ErrorAction SilentlyContinue)
}

# -- Python 3.11 or newer -------------------------------------------------------------------------

# What interpreter $Exe (with $Prefix, e.g. py's -3.11) is: @{Version; Major; Minor; Platform; Path;
# Exe; Prefix}, or $null when it does not run. Exe and Prefix are what runs it again.
function Get-PythonInfo([string]$Exe, [string[]]$Prefix = @()) {
    $run = Invoke-Native $Exe ($Prefix + @('-c', $ProbeCode))
    if ($run.Code -ne 0) { return $null }
    foreach ($line in $run.Lines) {
        if (-not $line.Trim().StartsWith('{')) { continue }
        try { $probe = $line | ConvertFrom-Json } catch { continue }
        $m = [regex]::Match([string]$probe.version, '^(\d+)\.(\d+)\.\d+$')
        if (-not $m.Success) { continue }
        return [pscustomobject]@{
            Version  = [string]$probe.version
            Major    = [int]$m.Groups[1].Value
            Minor    = [int]$m.Groups[2].Value
            Platform = [string]$probe.platform
            Path     = [string]$probe.path
            Exe      = $Exe
            Prefix   = $Prefix
        }
    }
    return $null
}

function Test-NewEnough($Info) {
    return ($null -ne $Info) -and ($Info.Major -eq 3) -and ($Info.Minor -ge $MinMinor)
}

# Why an interpreter cannot be used ("" when it can).
function Get-PythonProblem($Info) {
    if ($null -eq $Info) { return 'not a Python that runs' }
    if (-not (Test-NewEnough $Info)) { return "Python $($Info.Version)" }
    if ($Info.Platform -eq 'win-arm64') {
        return "Python $($Info.Version) for Windows on ARM, which CaseTrack does not support (lancedb has no build for it)"
    }
    if ($Info.Platform -ne $WantedPlatform) {
        return "a 32-bit Python $($Info.Version) ($($Info.Platform)): CaseTrack needs the 64-bit one"
    }
    return ''
}

function Write-PythonHelp {
    Warn 'How to get Python 3.11 (64-bit):'
    Warn '  winget install Python.Python.3.11'
    Warn '  or the Windows installer (64-bit) from python.org/downloads; tick "Add python.exe to PATH".'
    Warn '  (A "python" that opens the Microsoft Store is only a shortcut, not an installed Python.)'
}

function Get-MajorMinor([string]$Version) { return ($Version -replace '^(\d+\.\d+).*$', '$1') }

# The Python to build .venv with: -Python / $env:PYTHON if given, else the first of py -3.11,
# py -3.12, py -3.13, py -3, python, python3 that is 3.11 or newer and 64-bit. Ends the install with
# the way to get one when there is none.
function Select-Python {
    if ($Python) {
        $info = Get-PythonInfo $Python
        $problem = Get-PythonProblem $info
        if (-not $problem) { return [pscustomobject]@{ Label = $Python; Info = $info } }
        Warn "Error: PYTHON=$Python is $($problem): CaseTrack needs Python 3.11 or newer (64-bit)."
        Write-PythonHelp
        exit 1
    }
    $candidates = @()
    if (Test-Program 'py') {
        foreach ($flag in '-3.11', '-3.12', '-3.13', '-3') {
            $candidates += [pscustomobject]@{ Label = "py $flag"; Exe = 'py'; Prefix = @($flag) }
        }
    }
    foreach ($name in 'python', 'python3') {
        if (Test-Program $name) {
            $candidates += [pscustomobject]@{ Label = $name; Exe = $name; Prefix = @() }
        }
    }
    $found = @()
    foreach ($candidate in $candidates) {
        $info = Get-PythonInfo $candidate.Exe $candidate.Prefix
        $problem = Get-PythonProblem $info
        if (-not $problem) { return [pscustomobject]@{ Label = $candidate.Label; Info = $info } }
        if ($null -ne $info) {
            $found += "$($candidate.Label)=$($info.Version)"
        } elseif ($candidate.Exe -ne 'py' -or $candidate.Label -eq 'py -3') {
            $found += "$($candidate.Label)=does-not-run"   # py -3.11 failing only means "no 3.11"
        }
    }
    if ($found.Count -gt 0) {
        Warn "Error: CaseTrack needs Python 3.11 or newer (64-bit); found only: $($found -join ' ')."
    } else {
        Warn 'Error: CaseTrack needs Python 3.11 or newer; no Python was found (py, python, python3).'
    }
    Write-PythonHelp
    Warn 'Then open a new PowerShell window (it sees the new Python) and run this again, or choose one:'
    Warn '  powershell -ExecutionPolicy Bypass -File installer\install.ps1 -Python C:\path\to\python.exe'
    exit 1
}

# -- .venv: made, or repaired -----------------------------------------------------------------------

# The state of .venv: 'missing', 'ok', 'foreign' (not a virtual environment: never touched) or
# 'broken:<why>' (to be made again). As _ct_venv_state in installer/common.sh.
function Get-VenvState($Chosen) {
    if (-not (Test-Path -LiteralPath $Venv)) { return 'missing' }
    if (-not (Test-Path -LiteralPath $Venv -PathType Container)) { return 'foreign' }
    if (@(Get-ChildItem -LiteralPath $Venv -Force).Count -eq 0) { return 'broken:it is empty' }
    if (-not (Test-Path -LiteralPath (Join-Path $Venv 'pyvenv.cfg') -PathType Leaf)) { return 'foreign' }
    if (-not (Test-Path -LiteralPath $VenvPython -PathType Leaf)) {
        return 'broken:its Python is missing (removed or moved since)'
    }
    $info = Get-PythonInfo $VenvPython
    if ($null -eq $info) { return 'broken:its Python does not run' }
    if (-not (Test-NewEnough $info)) { return "broken:it has Python $($info.Version), older than 3.11" }
    if ($info.Platform -ne $WantedPlatform) {
        return "broken:it has a Python for $($info.Platform), not $WantedPlatform"
    }
    if ($Python -and ((Get-MajorMinor $info.Version) -ne (Get-MajorMinor $Chosen.Info.Version))) {
        return "broken:it has Python $($info.Version), not the $($Chosen.Info.Version) of PYTHON=$Python"
    }
    if ((Invoke-Native $VenvPython @('-m', 'pip', '--version')).Code -ne 0) { return 'broken:it has no pip' }
    return 'ok'
}

function Remove-Venv {
    try {
        Remove-Item -LiteralPath $Venv -Recurse -Force
    } catch {
        # Windows PowerShell's Remove-Item sometimes gives up on deep trees: cmd's rmdir does not.
        $null = Invoke-Native 'cmd.exe' @('/d', '/c', 'rmdir', '/s', '/q', $Venv)
    }
    if (Test-Path -LiteralPath $Venv) {
        Fail @("Error: could not delete $Venv to make it again (a file in it is in use).",
               '  Quit Claude Desktop and end the python.exe or casetrack.exe processes that run from it',
               '  (Task Manager, Details), then run this again.')
    }
}

function New-Venv($Chosen) {
    Say "Creating .venv with $($Chosen.Label) (Python $($Chosen.Info.Version)) ..."
    $code = Invoke-Shown $Chosen.Info.Exe ($Chosen.Info.Prefix + @('-m', 'venv', $Venv))
    if ($code -ne 0) {
        if (Test-Path -LiteralPath $Venv) { Remove-Item -LiteralPath $Venv -Recurse -Force -ErrorAction SilentlyContinue }
        Fail @("Error: $($Chosen.Info.Path) could not create a virtual environment (its messages are above).",
               '  Repair or reinstall Python (winget install Python.Python.3.11, or the installer from',
               '  python.org/downloads with pip ticked), then run this again.')
    }
}

# pip install into .venv, then check that the package imports (a half-written package does not).
function Install-IntoVenv {
    $pip = @('-m', 'pip', 'install', '--quiet', '--disable-pip-version-check')
    if ((Invoke-Shown $VenvPython ($pip + @('--upgrade', 'pip'))) -ne 0) { return $false }
    if ((Invoke-Shown $VenvPython ($pip + @('-e', $Root))) -ne 0) { return $false }
    return ((Invoke-Shown $VenvPython @('-c', 'import casetrack.cli.main')) -eq 0)
}

# The marker that says this install finished (read by casetrack update / uninstall). UTF-8 without
# a byte-order mark: Python would read a BOM as part of the first key.
function Write-Marker($Chosen) {
    $stamp = (Get-Date).ToUniversalTime().ToString("yyyy-MM-dd'T'HH:mm:ss'Z'")
    $text = "root=$Root`npython=$($Chosen.Info.Version)`nextras=`ninstalled=$stamp`n"
    $tmp = Join-Path $Venv "$Marker.tmp"
    [System.IO.File]::WriteAllText($tmp, $text, (New-Object System.Text.UTF8Encoding $false))
    Move-Item -LiteralPath $tmp -Destination (Join-Path $Venv $Marker) -Force
}

function Stop-InstallFailed($Chosen) {
    $lines = @('Error: pip could not install CaseTrack into .venv (its messages are above).',
               "  Check the connection to the package registry (pip config list shows pip's settings), then run",
               '  this again: the next run finishes or repairs .venv.',
               '  If pip says a file is in use (WinError 32), quit Claude Desktop first.',
               '  If it names a path that is too long, move this folder nearer the drive root (C:\CaseTrack).')
    if (@('3.11', '3.12') -notcontains (Get-MajorMinor $Chosen.Info.Version)) {
        $lines += "  Python $($Chosen.Info.Version) may be too new for a library's builds: install 3.11 (winget install Python.Python.3.11)."
    }
    Fail $lines
}

# As _ct_setup_venv in installer/common.sh: make or repair .venv, install, write the marker.
function Install-Venv($Chosen) {
    $state = Get-VenvState $Chosen
    $unfinished = $false
    $created = $false
    if ($state -eq 'foreign') {
        Fail @('Error: .venv exists but is not a Python virtual environment; it was left untouched.',
               '  Move it aside (Rename-Item .venv .venv.old), then run this again.')
    } elseif ($state -eq 'missing') {
        New-Venv $Chosen
        $created = $true
    } elseif ($state.StartsWith('broken:')) {
        Say "Recreating .venv: $($state.Substring(7))."
        Remove-Venv
        New-Venv $Chosen
        $created = $true
    } elseif (-not (Test-Path -LiteralPath $MarkerPath)) {
        $unfinished = $true
        Say 'Repairing .venv: its last install did not finish (or predates this installer).'
    } elseif (Test-Path -LiteralPath $CT) {
        # Windows cannot replace a program's files while it runs: stop the daemon this .venv runs.
        $null = Invoke-Native $CT @('daemon', 'stop')
    }
    if (Test-Path -LiteralPath $MarkerPath) { Remove-Item -LiteralPath $MarkerPath -Force }
    Say 'Installing CaseTrack and its libraries into .venv (the first time: several minutes) ...'
    if (-not (Install-IntoVenv)) {
        # Twice unfinished in a row: the venv itself may be damaged. Start again from nothing, once.
        if ($created -or -not $unfinished) { Stop-InstallFailed $Chosen }
        Say 'Recreating .venv: installing into it failed again.'
        Remove-Venv
        New-Venv $Chosen
        if (-not (Install-IntoVenv)) { Stop-InstallFailed $Chosen }
    }
    Write-Marker $Chosen
}

# -- Tesseract OCR (English, Portuguese, orientation detection) -----------------------------------

# Where CaseTrack finds tesseract (casetrack/ocr/engine.py): CASETRACK_TESSERACT, PATH, then the
# installer's folders (it does not add itself to PATH).
function Find-Tesseract {
    if ($env:CASETRACK_TESSERACT -and (Test-Path -LiteralPath $env:CASETRACK_TESSERACT -PathType Leaf)) {
        return $env:CASETRACK_TESSERACT
    }
    $onPath = Get-Command 'tesseract' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) { return $onPath.Path }
    foreach ($folder in @($env:ProgramFiles, ${env:ProgramFiles(x86)}, 'C:\Program Files')) {
        if (-not $folder) { continue }
        $exe = Join-Path $folder 'Tesseract-OCR\tesseract.exe'
        if (Test-Path -LiteralPath $exe -PathType Leaf) { return $exe }
    }
    return $null
}

function Test-Admin {
    try {
        $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
        $principal = New-Object Security.Principal.WindowsPrincipal $identity
        return $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
    } catch {
        return $false
    }
}

# Install tesseract when it is missing and winget can do it without a question (an elevated
# window: no UAC prompt); then say what is there, or the exact command that adds what is missing.
function Install-Ocr {
    $tesseract = Find-Tesseract
    if (-not $tesseract -and (Test-Program 'winget') -and (Test-Admin)) {
        Say 'Installing Tesseract OCR with winget ...'
        $null = Invoke-Shown 'winget' @('install', '--id', $TesseractId, '--exact', '--silent',
                                        '--accept-package-agreements', '--accept-source-agreements')
        $tesseract = Find-Tesseract
    }
    if (-not $tesseract) {
        Warn 'OCR: Tesseract with English and Portuguese is not installed, so scanned pages and images cannot be'
        Warn '  read yet (everything else works). Install it with:'
        Warn "  winget install $TesseractId --interactive"
        Warn '  and tick Portuguese under "Additional language data (download)" in its list of components.'
        Warn '  (Without winget: the UB Mannheim Tesseract installer for Windows, with Portuguese ticked.)'
        return
    }
    $listing = Invoke-Native $tesseract @('--list-langs')
    if ($listing.Code -ne 0) {
        Warn "OCR: $tesseract does not run ($(@($listing.Lines)[0])), so scanned pages cannot be read yet."
        Warn "  Install it again: winget install $TesseractId --force --interactive   (tick Portuguese)"
        return
    }
    $langs = @($listing.Lines | ForEach-Object { $_.Trim() })
    $missing = @(@('eng', 'por', 'osd') | Where-Object { $langs -notcontains $_ })
    $version = @((Invoke-Native $tesseract @('--version')).Lines | Where-Object { $_ -match 'tesseract' })
    $name = 'tesseract'
    if ($version.Count -gt 0) { $name = $version[0].Trim() }
    if ($missing.Count -eq 0) {
        Say "OCR: $name with eng, por and osd"
        return
    }
    $tessdata = Join-Path (Split-Path -Parent $tesseract) 'tessdata'
    $files = ($missing | ForEach-Object { "$_.traineddata" }) -join ', '
    Warn "OCR: $name ($tesseract) lacks $($missing -join ', '), so scans that need it cannot be read yet."
    if ($missing -contains 'por') {
        Warn '  Portuguese must be ticked under "Additional language data (download)" in the Tesseract installer:'
    }
    Warn "  run it again with: winget install $TesseractId --force --interactive"
    Warn "  or, as an administrator, copy $files (https://github.com/tesseract-ocr/tessdata_fast)"
    Warn "  into $tessdata"
}

# -- models ---------------------------------------------------------------------------------------

# Whether $Folder holds an installed model (a sub-folder with a model.json), as config.holds_models.
function Test-HoldsModels([string]$Folder) {
    if (-not (Test-Path -LiteralPath $Folder -PathType Container)) { return $false }
    $models = @(Get-ChildItem -LiteralPath $Folder -Directory | Where-Object {
        -not $_.Name.StartsWith('.') -and (Test-Path -LiteralPath (Join-Path $_.FullName 'model.json') -PathType Leaf)
    })
    return $models.Count -gt 0
}

# The install's own models folder ($Root\models), which every entry point finds (models\README.md):
# from the offline pack beside the repository when there is one, else downloaded once.
function Install-Models {
    $target = Join-Path $Root 'models'
    if ($env:CASETRACK_MODELS_DIR -and -not $FromPack) {
        Say "Models: $env:CASETRACK_MODELS_DIR (CASETRACK_MODELS_DIR: keep it set where CaseTrack runs)"
        return
    }
    if (Test-HoldsModels $target) {
        Say "Models: $target"
        return
    }
    if ($FromPack) {
        Say "Installing the models from the offline pack $env:CASETRACK_MODELS_DIR into $target ..."
        $code = Invoke-Shown $CT @('--models-dir', $target, 'models', 'import', $env:CASETRACK_MODELS_DIR) -Quiet
    } else {
        Say "Downloading the models into $target (once) ..."
        $code = Invoke-Shown $CT @('--models-dir', $target, 'models', 'download')
    }
    if ($code -eq 0) { return }
    Warn "Models: not installed, so search is keyword-only until you run: $(Format-Command $CT) models download"
    Warn "  (offline: $(Format-Command $CT) models import DIR)"
}

# -- the install ----------------------------------------------------------------------------------

if ($env:OS -ne 'Windows_NT') {
    Fail @('Error: installer\install.ps1 is the Windows installer.',
           '  On Linux and macOS run: bash installer/install.sh')
}

$Root = (Resolve-Path -LiteralPath (Join-Path $PSScriptRoot '..')).ProviderPath
$Venv = Join-Path $Root '.venv'
$VenvPython = Join-Path $Venv 'Scripts\python.exe'
$CT = Join-Path $Venv 'Scripts\casetrack.exe'
$MarkerPath = Join-Path $Venv $Marker
$FromPack = $false

# Environment changes last for this install only (a window that runs the script keeps its own).
$SavedEnv = @{}
foreach ($name in 'CASETRACK_MODELS_DIR', 'PYTHONIOENCODING') {
    $SavedEnv[$name] = [Environment]::GetEnvironmentVariable($name, 'Process')
}
Push-Location -LiteralPath $Root
try {
    # CaseTrack prints citations with non-ASCII characters: UTF-8 even when its output is piped.
    $env:PYTHONIOENCODING = 'utf-8'

    $Chosen = Select-Python      # Python 3.11+ first, then .venv made or repaired, CaseTrack installed
    Install-Venv $Chosen

    # The offline model pack beside the repository (air-gapped installs), used in place.
    $pack = Join-Path (Split-Path -Parent $Root) 'shared\models'
    if (-not $env:CASETRACK_MODELS_DIR -and (Test-Path -LiteralPath $pack -PathType Container)) {
        $env:CASETRACK_MODELS_DIR = (Resolve-Path -LiteralPath $pack).ProviderPath
        $FromPack = $true
    }

    Install-Ocr
    Say "CaseTrack installed: $CT"
    Install-Models

    # Run where the demo writes to this console itself (its citations keep their characters).
    $ErrorActionPreference = 'Continue'
    & $CT demo
    $demoCode = $LASTEXITCODE
    $ErrorActionPreference = 'Stop'
    if ($demoCode -ne 0) {
        Fail @('',
               'The demo did not finish (its messages are above). See what is missing and how to fix it:',
               "  $(Format-Command $CT) doctor")
    }

    $shown = Format-Command $CT   # (PowerShell's names ignore case: never $ct beside $CT)
    Say ''
    Say "Check this install any time: $shown doctor"
    Say "Connect it to Claude: $shown setup-claude-code   (Claude Desktop: $shown setup-claude-desktop)"
} catch {
    Warn "Error: the installer stopped: $($_.Exception.Message)"
    Warn "  (installer\install.ps1, line $($_.InvocationInfo.ScriptLineNumber)). Run it again: it finishes or repairs"
    Warn '  what is there. If it stops at the same place, the message above says what is missing.'
    exit 1
} finally {
    foreach ($name in $SavedEnv.Keys) {
        [Environment]::SetEnvironmentVariable($name, $SavedEnv[$name], 'Process')
    }
    Pop-Location
}
