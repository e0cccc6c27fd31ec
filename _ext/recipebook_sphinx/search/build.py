"""The search page's own pipeline in a build: what it needs from the pages, and its scripts.

- :func:`note_explorer_terms` (``doctree-read``) keeps, per page, the index terms that only
  its command explorer holds (a flag of a command, a selector's label), and the terms the
  page names in the places that say what a part of it is about (a definition's term, an
  explorer's heading, a caption, a field's name), read from the doctree the way Sphinx's
  indexer reads it, in the recipebook domain's per-page state. The scorer counts a word
  found only in an explorer below the same word in the page's text, and a word in one of
  those places above it: the guide that defines a flag, or the recipe whose explorer has a
  heading for a strategy, ranks above a page that mentions it in passing.
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
from typing import Any, Final, TypedDict

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import get_translation
from sphinx.search import SearchLanguage, languages

from .. import store
from ..config import language as current_language
from ..explorer.html import recipe_explorer
from . import summaries

_ = get_translation("recipebook")

#: The scorer's numbers; read by the search page (``recipebook-search-data.js``).
PARAMS: Final[dict[str, Any]] = {
    # how much a word found in each place counts: towards showing the page at all (cover), and
    # towards its rank (rank)
    "cover": {"title": 1.0, "heading": 1.0, "term": 1.0, "body": 1.0, "explorer": 0.75},
    "rank": {"title": 1.0, "heading": 0.85, "term": 0.8, "body": 0.7, "explorer": 0.5},
    "quality": {"exact": 1.0, "prefix": 0.7, "typo": 0.8, "title": 0.9},
    # an unknown word weighs as a word on one page (as much as the rarest word a page holds): a
    # page must hold more than that to be shown, so a query about what the site lacks is not
    # answered by a page that shares one word of it
    "unknownDocs": 1,
    "unknown": 1.0,
    "threshold": 0.5,  # a page is shown if it holds more than this share of the query's weight
    # what a reference page's headings, terms and text hold counts this much (its title in full)
    "referenceText": 0.5,
    "phraseTitle": 0.5,
    "phraseHeading": 0.3,
    # a page whose title or a heading asks the query's question (how many ... need: "How many
    # NPUs a model needs") is the answer, above the pages that only share its one word
    "question": 1.0,
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


#: Where a page says what one of its parts is about: a definition's term (a flag the guide
#: explains), a heading inside an explorer (a strategy, a role), a caption, a field's name
#: (and the first sentence of each section, :func:`_leads`).
FOCUS_NODES: Final = (nodes.term, nodes.rubric, nodes.caption, nodes.field_name)


def _words(node: nodes.Node, explorer: bool, focus: bool = False) -> Iterator[tuple[str, bool, bool]]:
    """Every text of the doctree the indexer reads, whether it is inside an explorer, and
    whether it names what a part of the page is about (the walk of
    ``sphinx.search._feed_visit_nodes``)."""
    if isinstance(node, nodes.comment):
        return
    if isinstance(node, nodes.Element) and "no-search" in node["classes"]:
        return
    if isinstance(node, nodes.raw):
        if "html" in node.get("format", "").split():
            text = re.sub(r"<(style|script).*?</\1>", "", node.astext(), flags=re.IGNORECASE | re.DOTALL)
            yield re.sub(r"<[^<]+?>", "", text), explorer, focus
        return
    if isinstance(node, nodes.Text):
        yield node.astext(), explorer, focus
    explorer = explorer or isinstance(node, recipe_explorer)
    focus = focus or isinstance(node, FOCUS_NODES)
    for child in node.children:
        yield from _words(child, explorer, focus)


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


_SENTENCE_END = re.compile(r"(?<=[.!?\u3002])\s")


def _leads(document: nodes.Node) -> Iterator[str]:
    """The first sentence of each section: where a page says what the section is about ("The
    model list: every recipe of the site...")."""
    for section in document.findall(nodes.section):
        if "no-search" in section["classes"]:
            continue
        first = next((child for child in section.children if isinstance(child, nodes.paragraph)), None)
        if first is not None and "no-search" not in first["classes"]:
            yield _SENTENCE_END.split(first.astext(), maxsplit=1)[0]


def page_terms(document: nodes.Node, lang: SearchLanguage) -> tuple[Set[str], Set[str]]:
    """Index terms the page holds only inside its command explorers, and the terms it names
    where it says what a part of it is about (:data:`FOCUS_NODES`)."""
    term = _terms(lang)
    known = _TEXTS.setdefault(id(lang), {})
    if len(known) > _TEXTS_KEPT:  # a very large site: start again rather than grow without end
        known.clear()
    inside: set[str] = set()
    outside: set[str] = set()
    focus: set[str] = set()
    texts: tuple[set[str], set[str], set[str]] = (set(), set(), set())  # outside, inside, focus: each split once
    for text, explorer, focused in _words(document, False):
        texts[explorer].add(text)
        if focused:
            texts[2].add(text)
    texts[2].update(_leads(document))
    for place, found in ((outside, texts[0]), (inside, texts[1]), (focus, texts[2])):
        for text in found:
            words = known.get(text)
            if words is None:
                words = known[text] = frozenset(t for word in lang.split(text) if (t := term(word)) is not None)
            place.update(words)
    return inside - outside, focus


def explorer_terms(document: nodes.Node, lang: SearchLanguage) -> Set[str]:
    """Index terms the page holds only inside its command explorers."""
    return page_terms(document, lang)[0]


_TEXTS: dict[int, dict[str, frozenset[str]]] = {}  # per language: a text's index terms
_TEXTS_KEPT = 200_000


def note_explorer_terms(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the terms only the page's explorers hold, and those it names where it says
    what a part of it is about, kept with the page's state."""
    env = app.env
    config = env.config
    code = config.html_search_language or current_language(config)
    lang = _search_language(code, tuple(sorted(config.html_search_options.items())))
    inside, focus = page_terms(document, lang)
    tier = str(env.metadata.get(env.docname, {}).get("search", ""))
    kept: PageTerms = {"explorer": sorted(inside), "focus": sorted(focus), "tier": tier}
    store.data(env)["explorer_terms"][env.docname] = kept


class PageTerms(TypedDict):
    """What the search page keeps of one page (``explorer_terms`` in the domain's data)."""

    explorer: list[str]  # index terms only its explorers hold
    focus: list[str]  # terms it names where it says what a part of it is about
    tier: str  # its front matter's ``search`` ("reference"), or ""


def data_script(terms: dict[str, PageTerms]) -> str:
    pages = sorted(terms.items())
    data = {
        "explorer": {name: found["explorer"] for name, found in pages if found["explorer"]},
        "focus": {name: found["focus"] for name, found in pages if found["focus"]},
        # pages whose front matter says `search: reference`: found by what their titles and
        # headings name, their text ranked below the guides' and the recipes'
        "reference": [name for name, found in pages if found.get("tier") == "reference"],
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
        "summaries": summaries.FOLDER,
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
    app.connect("html-page-context", summaries.write, priority=900)  # the body as the page shows it
