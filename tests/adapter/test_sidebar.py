"""The sidebar rendered once per folder and marked per page is Furo's, page for page
(``recipebook_sphinx/page/sidebar.py``).

Each build below computes, for every page it writes, Furo's own navigation tree (Furo's
function on the page's own context, after the page's tree was set) and compares it with the
tree the page got: on a test root with every shape of table of contents the sidebar meets, over
two builds in one process (the second after a title changed and a page was added), and on the
shipped site in both languages (its not-found page has another toctree: Furo's own).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import furo
import pytest
import sphinx.locale
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from recipebook_sphinx.page import sidebar

ROOT = Path(__file__).resolve().parents[2]


def _compare(app: Sphinx, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Every page written: (its tree, Furo's tree); and the pages whose tree was reused."""
    pages: dict[str, tuple[str, str]] = {}
    reused: set[str] = set()
    page_tree = sidebar.page_tree

    def spy(app: Sphinx, pagename: str) -> str | None:
        tree = page_tree(app, pagename)
        if tree is not None:
            reused.add(pagename)
        return tree

    def check(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
        pages[pagename] = (context["furo_navigation_tree"], furo._compute_navigation_tree(context))

    monkeypatch.setattr(sidebar, "page_tree", spy)
    app.connect("html-page-context", check, priority=900)
    return pages, reused


def _assert_furos(pages: dict[str, tuple[str, str]]) -> None:
    assert pages
    for pagename, (mine, furos) in pages.items():
        assert mine == furos, pagename


@pytest.mark.sphinx("html", testroot="sidebar", freshenv=True)
def test_every_page_s_tree_is_furos(app, monkeypatch):
    pages, reused = _compare(app, monkeypatch)
    app.build()
    _assert_furos(pages)
    docs = set(app.env.found_docs)
    assert docs <= set(pages)
    # every page is reused but the one with a link into it by an anchor (its second title)
    assert set(pages) - reused == {"other/two-titles"}
    furo_tree = pages["guide/deep/leaf"][0]
    assert 'class="current reference internal" href="#"' in furo_tree
    assert furo_tree.count("current-page") == 1
    assert "checked" in furo_tree  # its ancestors' checkboxes are checked
    assert "current" not in pages["other/orphan"][0]  # in no toctree: nothing current
    assert pages["other/twice"][0].count("current reference internal") == 3  # listed three times


@pytest.mark.sphinx("html", testroot="sidebar", freshenv=True)
def test_a_second_build_in_the_same_process_has_its_own_tree(app, monkeypatch):
    app.build()
    pages, _reused = _compare(app, monkeypatch)
    source = Path(app.srcdir)
    (source / "first.rst").write_text("Renamed first page\n==================\n\nText.\n", encoding="utf-8")
    (source / "guide" / "two.rst").write_text("Guide, two\n==========\n", encoding="utf-8")
    index = source / "guide" / "index.rst"
    index.write_text(index.read_text(encoding="utf-8").replace("   one\n", "   one\n   two\n"), encoding="utf-8")
    app.build()
    _assert_furos(pages)
    assert "guide/two" in pages
    assert all("Renamed first page" in mine for mine, _furos in pages.values())


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_page_of_the_shipped_site_has_furos_tree(tmp_path, monkeypatch, language):
    # in Sphinx's own namespace for docutils' directives, roles and nodes, as sphinx-build builds:
    # what the app registers is gone after it, so a later app in this process starts clean
    with docutils_namespace():
        app = Sphinx(
            srcdir=ROOT / "source",
            confdir=ROOT,
            outdir=tmp_path / "html",
            doctreedir=tmp_path / "doctrees",
            buildername="html",
            confoverrides={"language": language},
            status=None,
            warning=io.StringIO(),
            freshenv=True,
        )
        pages, reused = _compare(app, monkeypatch)
        try:
            app.build()
        finally:
            sphinx.locale.translators.clear()  # its catalogs, as sphinx.testing's cleanup drops them
    _assert_furos(pages)
    assert "recipes/A.X-K2" in reused and "index" in reused
    assert set(pages) - reused == {"404"}  # sphinx-notfound-page's own toctree: Furo's computation
