"""HTML pages: decoded as browsers decode them, their blocks read as paragraphs, struck-through
(revoked) text left out or marked."""
