"""The search index of each language, built from the explorer's text form (issue 10).

Sphinx's indexer strips the tags of a raw HTML node without putting spaces back, so an
explorer written as raw HTML glued its labels into terms such as ``cachingoffonon`` or
``디코딩사용``. The explorer is now a node whose children hold each label and each command
line as words of their own. These tests read the built pages (what a reader sees), find
every place where two texts meet at a tag without a space between them, and check that the
word spanning that seam is not a term of the index; and that the explorer's words, labels
and flags alike, lead to the page that shows them.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, NavigableString
from sphinx.testing.util import SphinxTestApp

from recipe_support import SHIPPED

WORD = re.compile(r"\w+")


def recipe_names() -> list[str]:
    return sorted(p.stem for p in SHIPPED.glob("*.json") if p.name != "schema.json")


@pytest.fixture(scope="module", params=["en", "ko"])
def built(request: pytest.FixtureRequest, rootdir: Path, tmp_path_factory: pytest.TempPathFactory):
    srcdir = tmp_path_factory.mktemp(f"search-{request.param}") / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = SphinxTestApp("html", srcdir=srcdir, confoverrides={"language": request.param}, freshenv=True)
    try:
        app.build()
        text = Path(app.outdir, "searchindex.js").read_text(encoding="utf-8")
        yield app, json.loads(text[len("Search.setIndex(") : -1])
    finally:
        app.cleanup()


def docs_for(index: dict[str, Any], term: str) -> set[str]:
    files = index["terms"].get(term, [])
    files = [files] if isinstance(files, int) else files
    return {index["docnames"][f] for f in files}


def seams(form: Any) -> list[tuple[str, str]]:
    """Pairs of texts that meet at a tag with a word character on both sides."""
    texts = [s for s in form.descendants if isinstance(s, NavigableString)]
    found = []
    for left, right in itertools.pairwise(texts):
        tail, head = re.search(r"\w+\Z", left), re.match(r"\w+", right)
        if tail and head:
            found.append((tail.group(), head.group()))
    return found


def grids(app: Any, name: str) -> list[Any]:
    page = Path(app.outdir, f"{name}.html").read_text(encoding="utf-8")
    return BeautifulSoup(page, "html.parser").select("form.rb-grid")


def test_no_glued_terms(built) -> None:
    app, index = built
    lang = app.builder.indexer.lang
    terms = set(index["terms"]) | set(index["titleterms"])
    checked = 0
    for name in recipe_names():
        forms = grids(app, name)
        assert forms, f"{name}: no explorer on its page"
        for form in forms:
            for tail, head in seams(form):
                glued = tail + head
                for word in lang.split(glued):
                    start = glued.find(word)
                    if not start < len(tail) < start + len(word):
                        continue  # the language splits the two texts apart anyway (Hangul next to Latin)
                    stem = lang.stem(word).lower()
                    if stem in {lang.stem(tail).lower(), lang.stem(head).lower()}:
                        continue  # the stemmer takes it back apart (Korean: 호출 + the particle 이)
                    assert stem not in terms, f"{name}: {tail!r}+{head!r} glued into {word!r}"
                    assert word.lower() not in terms, f"{name}: {tail!r}+{head!r} glued into {word!r}"
                    checked += 1
    assert checked, "the explorer's markup has no seams between words: this check checked nothing"


def _page_words(lang: Any, text: str) -> set[str]:
    return {lang.stem(w).lower() for w in lang.split(text) if lang.word_filter(lang.stem(w).lower())}


def test_labels_and_flags_lead_to_the_page(built) -> None:
    """Every word of each selector's labels, and of every flag a command shows, finds the page
    (the labels of the page's own controls, such as the changes switch, are not content)."""
    app, index = built
    lang = app.builder.indexer.lang
    for name in recipe_names():
        for form in grids(app, name):
            labels = " ".join(e.get_text(" ") for e in form.select(".rb-selectors legend, .rb-selectors label"))
            flags = " ".join(re.findall(r"--[a-z][a-z0-9-]*", " ".join(pre.get_text() for pre in form.select("pre"))))
            assert flags, f"{name}: no flags in the explorer"
            for word in sorted(_page_words(lang, labels) | _page_words(lang, flags)):
                assert name in docs_for(index, word), f"{name}: searching {word!r} does not find the page"
