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

PAGE = """# {name}

```{{recipe-header}} {name}
```

```{{recipe-install}} {name}
```

```{{recipe-explorer}} {name}
```

```{{recipe-client}} {name}
```

```{{recipe-results}} {name}
```
"""
INDEX = """# Recipes

```{{recipe-catalogue}}
```

```{{toctree}}
{names}
install
```
"""


def _write_pages(app, config):
    """One page per recipe of the configured folder (a test may point it elsewhere), and the index.

    Written into the copy of this root that a test builds, when the pages are missing, so a
    recipe added to recipes/ gets its page here as `make recipe-page` gives it one on the site.
    """
    folder = Path(app.confdir, config.recipebook_dir)
    names = sorted(p.stem for p in folder.glob("*.json") if p.name != "schema.json")
    for name in names:
        page = Path(app.srcdir, f"{name}.md")
        if not page.exists() and name not in config.test_recipes_without_page:
            page.write_text(PAGE.format(name=name), encoding="utf-8")
    index = Path(app.srcdir, "index.md")
    if not index.exists():
        listed = [name for name in names if name not in config.test_recipes_without_page]
        index.write_text(INDEX.format(names="\n".join(listed)), encoding="utf-8")


def setup(app):
    app.add_config_value("test_recipes_without_page", [], "env", types=(list,))
    app.connect("config-inited", _write_pages, priority=400)
