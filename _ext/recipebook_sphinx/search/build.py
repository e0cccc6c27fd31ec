"""The search page's own pipeline in a build: what it needs from the pages, and its scripts.

- :func:`note_explorer_terms` (``doctree-read``) keeps, per page, the index terms that only
  its command explorer holds (a flag of a command, a selector's label), read from the
  doctree the way Sphinx's indexer reads it, in the recipebook domain's per-page state. The
  scorer counts a word found only there below the same word in the page's text, so the
  guide that explains a feature ranks above the recipe pages that merely offer it.
- On the search page only, :func:`page_context` writes ``_static/recipebook-search-data.js``
  (those terms, the scorer's numbers of :data:`PARAMS`, the page's translated strings) and
  adds it and ``recipebook-search.js`` (the query pipeline and scorer, whose head comment
  explains the steps; tested in Node.js by ``tests/js/``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Set
from pathlib import Path
from typing import Any, Final

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import get_translation
from sphinx.search import SearchLanguage, languages

from .. import store
from ..config import language as current_language
from ..explorer.html import recipe_explorer

_ = get_translation("recipebook")

#: The scorer's numbers; read by the search page (``recipebook-search-data.js``).
PARAMS: Final[dict[str, Any]] = {
    # how much a word found in each place counts: towards showing the page at all (cover), and
    # towards its rank (rank)
    "cover": {"title": 1.0, "heading": 1.0, "body": 1.0, "explorer": 0.75},
    "rank": {"title": 1.0, "heading": 0.85, "body": 0.7, "explorer": 0.5},
    "quality": {"exact": 1.0, "prefix": 0.7, "typo": 0.8, "title": 0.9},
    "unknownDocs": 1,
    # an unknown word weighs as a word on one page times this: it lowers a result, not vetoes it
    "unknown": 0.7,
    "threshold": 0.5,
    "phraseTitle": 0.5,
    "phraseHeading": 0.3,
    "minHangul": 2,  # syllables, for a prefix or a typo
    "minLatin": 4,  # letters, for a prefix, a typo or a title match
}

#: Letters a Korean typist confuses: a consonant with its tense or aspirated partner (the
#: tense ones are the shifted keys), vowels that sound alike or differ by the y-glide (ㅓ/ㅕ
#: are neighbouring keys), final consonants pronounced alike. In a two-syllable word, a typo
#: is one of these; a longer word may have any one letter wrong.
CONFUSABLE_JAMO: Final = (
    "\u1100\u1101\u110f",  # ㄱ ㄲ ㅋ
    "\u1103\u1104\u1110",  # ㄷ ㄸ ㅌ
    "\u1107\u1108\u1111",  # ㅂ ㅃ ㅍ
    "\u1109\u110a",  # ㅅ ㅆ
    "\u110c\u110d\u110e",  # ㅈ ㅉ ㅊ
    "\u1161\u1163",  # ㅏ ㅑ
    "\u1165\u1167",  # ㅓ ㅕ
    "\u1169\u116d",  # ㅗ ㅛ
    "\u116e\u1172",  # ㅜ ㅠ
    "\u116e\u1173",  # ㅜ ㅡ
    "\u1162\u1164\u1166\u1168",  # ㅐ ㅒ ㅔ ㅖ
    "\u116b\u116c\u1170",  # ㅙ ㅚ ㅞ
    "\u11a8\u11a9\u11bf",  # final ㄱ ㄲ ㅋ
    "\u11ae\u11ba\u11bb\u11bd\u11be\u11c0\u11c2",  # final ㄷ ㅅ ㅆ ㅈ ㅊ ㅌ ㅎ
    "\u11b8\u11c1",  # final ㅂ ㅍ
)

DATA_JS = "recipebook-search-data.js"
SEARCH_JS = "recipebook-search.js"
SEARCH_CSS = "recipebook-search.css"
# Sphinx's message when nothing is found (searchtools.js); the page replaces it with its own.
SPHINX_NO_RESULTS = (
    "Your search did not match any documents. Please make sure that all words are spelled "
    "correctly and that you've selected enough categories."
)


@functools.cache
def _search_language(code: str, options: tuple[tuple[str, str], ...]) -> SearchLanguage:
    """The search language the HTML builder's indexer uses for this language code."""
    found = languages.get(code) or languages.get(code.partition("_")[0]) or languages["en"]
    if isinstance(found, str):
        module, _dot, name = found.rpartition(".")
        found = getattr(__import__(module, fromlist=[name]), name)
    return found(dict(options))


def _words(node: nodes.Node, explorer: bool) -> Iterator[tuple[str, bool]]:
    """Every text of the doctree the indexer reads, and whether it is inside an explorer
    (the walk of ``sphinx.search._feed_visit_nodes``)."""
    if isinstance(node, nodes.comment):
        return
    if isinstance(node, nodes.Element) and "no-search" in node["classes"]:
        return
    if isinstance(node, nodes.raw):
        if "html" in node.get("format", "").split():
            text = re.sub(r"<(style|script).*?</\1>", "", node.astext(), flags=re.IGNORECASE | re.DOTALL)
            yield re.sub(r"<[^<]+?>", "", text), explorer
        return
    if isinstance(node, nodes.Text):
        yield node.astext(), explorer
    explorer = explorer or isinstance(node, recipe_explorer)
    for child in node.children:
        yield from _words(child, explorer)


def _terms(lang: SearchLanguage) -> Callable[[str], str | None]:
    """A word's index term as the indexer makes it (None: not indexed), kept per language for
    the whole build: the pages of a site share most of their words."""
    known = _TERMS.setdefault(id(lang), {})

    def term(word: str) -> str | None:
        found = known.get(word, "")
        if found == "":
            stem = lang.stem(word).lower()
            found = stem if lang.word_filter(stem) or not lang.word_filter(word) else word
            found = known[word] = found if lang.word_filter(found) else None
        return found

    return term


_TERMS: dict[int, dict[str, str | None]] = {}


def explorer_terms(document: nodes.Node, lang: SearchLanguage) -> Set[str]:
    """Index terms the page holds only inside its command explorers."""
    term = _terms(lang)
    known = _TEXTS.setdefault(id(lang), {})
    if len(known) > _TEXTS_KEPT:  # a very large site: start again rather than grow without end
        known.clear()
    inside: set[str] = set()
    outside: set[str] = set()
    texts: tuple[set[str], set[str]] = (set(), set())  # outside, inside: each text is split once
    for text, explorer in _words(document, False):
        texts[explorer].add(text)
    for place, found in ((outside, texts[0]), (inside, texts[1])):
        for text in found:
            words = known.get(text)
            if words is None:
                words = known[text] = frozenset(t for word in lang.split(text) if (t := term(word)) is not None)
            place.update(words)
    return inside - outside


_TEXTS: dict[int, dict[str, frozenset[str]]] = {}  # per language: a text's index terms
_TEXTS_KEPT = 200_000


def note_explorer_terms(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the terms only the page's explorers hold, kept with the page's state."""
    env = app.env
    if not any(True for _ in document.findall(recipe_explorer)):
        return
    config = env.config
    code = config.html_search_language or current_language(config)
    lang = _search_language(code, tuple(sorted(config.html_search_options.items())))
    store.data(env)["explorer_terms"][env.docname] = sorted(explorer_terms(document, lang))


def data_script(explorer: dict[str, list[str]]) -> str:
    data = {
        "explorer": dict(sorted(explorer.items())),
        "params": PARAMS,
        "confusable": CONFUSABLE_JAMO,
        "strings": {
            "noResults": str(
                _(
                    "No page matches these words. Check the spelling, or search for a model, a flag or a feature by its name."
                )
            )
        },
        "sphinxNoResults": SPHINX_NO_RESULTS,
    }
    return f"var RecipeSearchData = {json.dumps(data, ensure_ascii=False, sort_keys=True)};\n"


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """The search page runs the site's pipeline: its data file is written, its scripts added."""
    if pagename != "search" or app.builder.format != "html":
        return
    target = Path(app.outdir, "_static", DATA_JS)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(data_script(store.data(app.env)["explorer_terms"]), encoding="utf-8")
    app.add_js_file(DATA_JS, defer="defer")
    app.add_js_file(SEARCH_JS, defer="defer")
    app.add_css_file(SEARCH_CSS)


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", note_explorer_terms)
    app.connect("html-page-context", page_context)
