"""``python -m recipebook_sphinx.i18n [--compile] LOCALE_DIR [LANG ...]``: the catalog check
(``po_check.main``), run on its own (``make html`` runs it before anything is built)."""

from __future__ import annotations

import sys

from .po_check import main

sys.exit(main(sys.argv[1:]))
