"""``python -m tools.vocabulary``: regenerate a vocabulary file (see the package's docstring)."""

import sys

from .cli import main

sys.exit(main())
