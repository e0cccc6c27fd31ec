"""The two scripts of the search page that a build generates, made without a build, for the
Node.js tests beside this file (``npm test``; searchkit.js runs this when no built site is named):

- ``language_data.js``: Sphinx's own template filled as its indexer fills it, with the site's
  search language of that code (the class the extension registers for it);
- ``recipebook-search-data.js``: the extension's data script, with no page's terms (the tests make
  their own small indexes) and the page's strings in that language (the project's catalogs).

Prints both as one JSON object: ``python tests/js/jsdata.py ko``. The pytest suite checks they
are what a build writes (tests/.../test_search_pipeline.py), so the Node.js tests run on what the
site runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import sphinx
import sphinx.locale
from sphinx.util.template import SphinxRenderer

from recipebook_sphinx.i18n import po_check
from recipebook_sphinx.paths import LOCALE
from recipebook_sphinx.search.build import data_script
from recipebook_sphinx.search.english import SearchEnglishPorter
from recipebook_sphinx.search.korean import SearchKorean

# the search language of each code, as recipebook_sphinx's setup() registers them
LANGUAGES = {"en": SearchEnglishPorter, "ko": SearchKorean}
TEMPLATE = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "language_data.js.jinja"


def language_data(code: str) -> str:
    """language_data.js as Sphinx's HTML builder writes it (IndexBuilder.context_for_searchtool)."""
    lang = LANGUAGES[code]({})
    context = {
        "search_language_stemming_code": lang.js_stemmer_code,  # js_stemmer_rawcode is empty
        "search_language_stop_words": json.dumps(sorted(lang.stopwords)),
        "search_scorer_tool": "",  # the site sets no html_search_scorer
        "search_word_splitter_code": lang.js_splitter_code,
    }
    return SphinxRenderer().render_string(TEMPLATE.read_text(encoding="utf-8"), context)


def search_data(code: str) -> str:
    """recipebook-search-data.js of a site without pages, its strings in that language."""
    problems = po_check.compile_language([LOCALE], code)  # as a build's extension compiles them when it loads
    assert not problems, problems
    sphinx.locale.init([str(LOCALE)], code, "recipebook")
    return data_script({})


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in LANGUAGES:
        print(f"usage: python tests/js/jsdata.py {'|'.join(LANGUAGES)}", file=sys.stderr)
        return 2
    code = argv[0]
    print(json.dumps({"language_data.js": language_data(code), "recipebook-search-data.js": search_data(code)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
