import runpy
from pathlib import Path

import recipebook

REPOSITORY = Path(recipebook.__file__).resolve().parents[2]

extensions = ["myst_parser", "recipebook_sphinx"]
exclude_patterns = ["_build", "recipes"]
# the real recipes of the repository, wherever the test root was copied
recipebook_dir = str(REPOSITORY / "recipes")
recipebook_pages = {"recipe": "{name}", "install": "install", "configuration": "install"}
# the same package versions as the site
SITE = runpy.run_path(str(REPOSITORY / "conf.py"))
recipebook_versions = SITE["recipebook_versions"]
recipebook_languages = SITE["recipebook_languages"]
html_theme = "basic"
