"""Where the adapter's files live: its package, static assets, templates, and the catalogs."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STATIC = PACKAGE / "static"
TEMPLATES = PACKAGE / "templates"
ROOT = PACKAGE.parents[1]  # the project (conf.py, locale/, recipes/)
LOCALE = ROOT / "locale"
