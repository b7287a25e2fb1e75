# Sourced by installer/install.sh: Tesseract OCR (scanned pages and images) with English and
# Portuguese. Installed when it is missing and the system's package manager can do it without
# questions (apt as root or with passwordless sudo; Homebrew); otherwise the command is printed
# and CaseTrack runs without OCR until then (`casetrack status` says what is missing).
_ocr_ready() {
  command -v tesseract >/dev/null 2>&1 || return 1
  local langs
  langs="$(tesseract --list-langs 2>/dev/null)"
  for lang in eng por osd; do
    printf '%s\n' "$langs" | grep -qx "$lang" || return 1
  done
}

if _ocr_ready; then
  echo "OCR: $(tesseract --version 2>&1 | head -n 1) with eng, por and osd"
elif command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
  echo "Installing Tesseract OCR (English, Portuguese) with apt-get ..."
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
  $SUDO apt-get install -y -qq tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-osd >/dev/null \
    || echo "OCR: apt-get could not install Tesseract; run: sudo apt-get install tesseract-ocr tesseract-ocr-por" >&2
elif command -v brew >/dev/null 2>&1; then
  echo "Installing Tesseract OCR with Homebrew ..."
  brew install tesseract tesseract-lang >/dev/null || echo "OCR: run: brew install tesseract tesseract-lang" >&2
else
  echo "OCR: Tesseract is not installed, so scanned pages and images cannot be read yet. Install it with" >&2
  echo "  Debian/Ubuntu: sudo apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-por" >&2
  echo "  macOS:         brew install tesseract tesseract-lang" >&2
  echo "  Windows:       winget install UB-Mannheim.TesseractOCR (tick Portuguese under additional languages)" >&2
fi
