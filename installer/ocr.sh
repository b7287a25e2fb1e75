# Sourced by installer/install.sh: Tesseract OCR (scanned pages and images) with English and
# Portuguese (and orientation detection). Installed when it is missing and the system's package
# manager can do it without questions (apt as root or with passwordless sudo; Homebrew);
# otherwise the exact command is printed and CaseTrack runs without OCR until then
# (`casetrack doctor` and `casetrack status` say what is missing).
_ocr_ready() {
  command -v tesseract >/dev/null 2>&1 || return 1
  local langs lang
  langs="$(tesseract --list-langs 2>/dev/null || true)"
  for lang in eng por osd; do
    printf '%s\n' "$langs" | grep -qx "$lang" || return 1
  done
}

_ocr_command() {  # the command that installs it here
  if command -v apt-get >/dev/null 2>&1; then
    echo "sudo apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-osd"
  elif command -v brew >/dev/null 2>&1 || [ "$(uname -s 2>/dev/null)" = Darwin ]; then
    echo "brew install tesseract tesseract-lang"
  elif command -v dnf >/dev/null 2>&1; then
    echo "sudo dnf install tesseract tesseract-langpack-por tesseract-osd"
  else
    echo "install tesseract (4.0 or newer) with the eng, por and osd languages using your package manager"
  fi
}

_ocr_apt() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  echo "Installing Tesseract OCR (English, Portuguese) with apt-get ..."
  $sudo apt-get install -y -qq tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-osd >/dev/null 2>&1 \
    || { $sudo apt-get update -qq >/dev/null 2>&1 && \
         $sudo apt-get install -y -qq tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-osd >/dev/null 2>&1; } \
    || true
}

if _ocr_ready; then
  echo "OCR: $(tesseract --version 2>&1 | head -n 1) with eng, por and osd"
else
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
    _ocr_apt
  elif command -v brew >/dev/null 2>&1; then
    echo "Installing Tesseract OCR with Homebrew ..."
    brew install tesseract tesseract-lang >/dev/null 2>&1 || true
  fi
  if _ocr_ready; then
    echo "OCR: $(tesseract --version 2>&1 | head -n 1) with eng, por and osd"
  else
    echo "OCR: Tesseract with English and Portuguese is not installed, so scanned pages and images cannot be" >&2
    echo "  read yet (everything else works). Install it with:" >&2
    echo "  $(_ocr_command)" >&2
  fi
fi
