"""Test root of a role that spans nodes: the page of the fixture of every multi-node shape
(tests/data/multinode), built on its own for the explorer's and the browser's tests."""

import runpy
from pathlib import Path

import recipebook

REPOSITORY = Path(recipebook.__file__).resolve().parents[2]
SITE = runpy.run_path(str(REPOSITORY / "conf.py"))

extensions = ["myst_parser", "recipebook_sphinx"]
exclude_patterns = ["_build"]
recipebook_dir = str(REPOSITORY / "tests" / "data" / "multinode")
recipebook_pages = {"recipe": "{name}", "install": "index", "configuration": "index"}
recipebook_versions = SITE["recipebook_versions"]
recipebook_languages = SITE["recipebook_languages"]
html_theme = "furo"
