"""Test root of the doctree snapshots: one page per directive, on a frozen copy of a recipe.

recipes/snapshot-model.json is gpt-oss-120b.json as it was when the snapshots were
checked by hand, renamed; it does not follow later edits of the shipped recipes.
"""

import runpy
from pathlib import Path

import recipebook

REPOSITORY = Path(recipebook.__file__).resolve().parents[2]
SITE = runpy.run_path(str(REPOSITORY / "conf.py"))

extensions = ["myst_parser", "recipebook_sphinx"]
exclude_patterns = ["_build", "recipes"]
recipebook_dir = "recipes"
recipebook_pages = {"recipe": "{name}", "install": "index", "configuration": "flags"}
recipebook_versions = SITE["recipebook_versions"]
recipebook_languages = SITE["recipebook_languages"]
html_theme = "basic"
