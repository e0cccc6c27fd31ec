"""A page with the rules directive, for tests/adapter/test_rules_page.py (no recipes: the folder is this one)."""

import runpy
from pathlib import Path

import recipebook

REPOSITORY = Path(recipebook.__file__).resolve().parents[2]

extensions = ["myst_parser", "recipebook_sphinx"]
exclude_patterns = ["_build"]
recipebook_dir = "."  # holds no recipe
SITE = runpy.run_path(str(REPOSITORY / "conf.py"))
recipebook_versions = SITE["recipebook_versions"]
recipebook_languages = SITE["recipebook_languages"]
locale_dirs = ["locale/"]
gettext_compact = True
html_theme = "basic"
