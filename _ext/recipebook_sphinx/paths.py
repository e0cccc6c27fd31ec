"""Where the adapter's files live: its package, static assets, templates, and the catalogs."""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.config import Config

PACKAGE = Path(__file__).resolve().parent
STATIC = PACKAGE / "static"
TEMPLATES = PACKAGE / "templates"
# The checkout the package runs from (pip install -e ., or _ext/ on the path): its locale/ holds
# the extension's own catalogs, read after a project's own (a project that has none still gets them).
ROOT = PACKAGE.parents[1]
LOCALE = ROOT / "locale"


def locale_dirs(srcdir: str | os.PathLike[str], config: Config) -> list[Path]:
    """Where the extension's catalogs (its words, the recipes' labels) are read from, the first
    that has a message first: the built project's ``locale_dirs``, then the checkout's locale/."""
    folders = [Path(srcdir, folder).resolve() for folder in config.locale_dirs]
    return [*folders, LOCALE] if LOCALE.resolve() not in folders else folders
