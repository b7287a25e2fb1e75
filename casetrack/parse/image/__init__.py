"""Scanned pages: image files (PNG, JPEG, TIFF) and a PDF's pages without a usable text layer,
read by tesseract into `Page`s and kept on disk page by page while a file is read."""
