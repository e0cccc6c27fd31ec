"""Create the page of a recipe: python -m recipebook_sphinx.newpage NAME.

The page holds the recipe directives under the standard headings, and empty guide
sections for the author to write.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

from recipebook import check_file
from recipebook.checking import safety
from recipebook.problems import errors

TEMPLATE = """# Serving {name} on RBLN NPU

```{{recipe-header}} {name}
```

## Prerequisites and installation

```{{recipe-install}} {name}
```

## Serving commands

Pick a strategy and a target, then the features you want. The commands follow your
choice; the recommended combination is selected when the page opens.

```{{recipe-explorer}} {name}
```

## Client example

```{{recipe-client}} {name}
```

## Measured performance

```{{recipe-results}} {name}
```

## Overview

TODO: what the model is and how it is served on RBLN NPUs.

## Configuration

TODO: the verified devices and what the strategies' engine arguments do.

## Notes and constraints

TODO: limits a reader must know before serving.
"""


# a recipe name as the schema has it: letters, digits, '.', '_' and '-', a letter or digit first
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
USAGE = "usage: python -m recipebook_sphinx.newpage NAME (make recipe-page NAME=<recipe name>)"


def _refused(message: str) -> int:
    print(f"{message}; {USAGE}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        return _refused("one recipe name, please")
    name = argv[0]
    if not NAME.fullmatch(name):
        shown = repr(name if len(name) <= 100 else name[:100] + "…")
        return _refused(
            f"{shown} is not a recipe name (letters, digits, '.', '_' and '-', a letter or digit first, at most "
            "100): a page is written as source/recipes/NAME.md and nowhere else"
        )
    portable = safety.portable_name_problem(name)
    if portable:
        return _refused(portable)
    recipe_file = Path("recipes", f"{name}.json")
    try:
        kind = stat.S_IFMT(os.stat(recipe_file).st_mode)
    except OSError:
        kind = None
    if kind != stat.S_IFREG:
        print(f"{recipe_file}: no such recipe (a regular file recipes/NAME.json)", file=sys.stderr)
        return 1
    _recipe, problems = check_file(recipe_file)
    for problem in problems:
        print(problem, file=sys.stderr)
    page = Path("source", "recipes", f"{name}.md")
    if page.exists() or page.is_symlink():
        print(f"{page} exists; not overwritten", file=sys.stderr)
        return 1
    page.write_text(TEMPLATE.format(name=name), encoding="utf-8")
    print(f"wrote {page}; write its guide sections, then run make html")
    return 1 if errors(problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
