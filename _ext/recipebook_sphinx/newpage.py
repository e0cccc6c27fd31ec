"""Create the page of a recipe: python -m recipebook_sphinx.newpage NAME.

The page holds the recipe directives under the standard headings, and empty guide
sections for the author to write.
"""

from __future__ import annotations

import sys
from pathlib import Path

from recipebook import check_file
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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m recipebook_sphinx.newpage NAME", file=sys.stderr)
        return 2
    name = argv[0]
    recipe_file = Path("recipes", f"{name}.json")
    if not recipe_file.is_file():
        print(f"{recipe_file}: no such recipe", file=sys.stderr)
        return 1
    _recipe, problems = check_file(recipe_file)
    for problem in problems:
        print(problem, file=sys.stderr)
    page = Path("source", "recipes", f"{name}.md")
    if page.exists():
        print(f"{page} exists; not overwritten", file=sys.stderr)
        return 1
    page.write_text(TEMPLATE.format(name=name), encoding="utf-8")
    print(f"wrote {page}; write its guide sections, then run make html")
    return 1 if errors(problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
