"""The catalogue of a portal of a hundred recipes (bench/portal.py's suite), in Chromium: at 375,
1280 and 1920 px, in both languages, the landing page never scrolls sideways and no catalogue cell
is cut (long Hugging Face names wrap), with JavaScript and without it; the filters narrow the table.

The portal (real recipes of every shape imported from vLLM Recipes, tests/data/portal-recipes,
and generated ones) is written into a temporary project copy and built there (both languages),
once for the session (conftest.portal_project, which the portal's search tests share). The landing
page is opened once per language and JavaScript setting and laid out at each width in turn
(catalogue); the filters are tried on the Korean one with JavaScript, once it has been measured.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from browser_support import laid_out
from conftest import PORTAL_COUNT, served

pytestmark = pytest.mark.browser


COUNT = PORTAL_COUNT
# Cells cut or the page wider than the viewport: measured after layout, in CSS pixels.
MEASURE = """() => {
  const page = document.scrollingElement;
  const cut = [...document.querySelectorAll('table.rb-catalogue td, table.rb-catalogue th')]
    .filter((cell) => cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 1)
    .map((cell) => cell.textContent.trim().slice(0, 60));
  const wrapper = document.querySelector('table.rb-catalogue').closest('.table-wrapper');
  return {
    page: page.scrollWidth - page.clientWidth,
    wrapper: wrapper ? wrapper.scrollWidth - wrapper.clientWidth : 0,
    cut,
    rows: document.querySelectorAll('table.rb-catalogue tbody > tr').length,
  };
}"""


@pytest.fixture(scope="module")
def portal_site(portal_project: Path) -> Path:
    return portal_project / "_build" / "html"


@pytest.fixture(scope="module")
def portal_server(portal_site: Path):
    with served(portal_site) as base:
        yield base


WIDTHS = (375, 1280, 1920)
Found = tuple[dict[str, Any], list[str]]  # MEASURE's answer and the model cells' texts


@pytest.fixture(scope="module")
def catalogue(browser, portal_server) -> Iterator[Callable[[str, bool], tuple[Page, dict[int, Found]]]]:
    """The landing page of a language, with JavaScript or without, and what MEASURE finds there at
    each width. The page is opened once, at the first width, then laid out again at each other
    (the window resized: Chromium lays the whole page out anew and its media queries apply afresh,
    as for a reader who widens a window); the page must report innerWidth equal to the width.
    Measured the first time a test asks; the tab stays open for the module's other tests."""
    opened: dict[tuple[str, bool], tuple[Page, dict[int, Found]]] = {}
    contexts = []

    def at(language: str, script: bool) -> tuple[Page, dict[int, Found]]:
        if (language, script) not in opened:
            context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}, java_script_enabled=script)
            contexts.append(context)
            tab = context.new_page()
            tab.goto(f"{portal_server}/{language}/index.html")
            found: dict[int, Found] = {}
            for width in WIDTHS:
                laid_out(tab, width)  # (at the first width: the size it opened at)
                names = tab.eval_on_selector_all(
                    "table.rb-catalogue td.rb-col-model", "(cells) => cells.map((c) => c.textContent)"
                )
                found[width] = (tab.evaluate(MEASURE), names)
            opened[language, script] = (tab, found)
        return opened[language, script]

    yield at
    for context in contexts:
        context.close()


@pytest.mark.parametrize("script", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_catalogue_of_a_hundred_recipes_fits_every_screen(catalogue, portal_site, language, width, script):
    found, names = catalogue(language, script)[1][width]
    recipes = [p for p in (portal_site.parent.parent / "recipes").glob("*.json") if p.name != "schema.json"]
    assert found["rows"] == len(recipes) >= COUNT  # the project's own recipes (make test-batch's) beside them
    assert any(len(name.strip()) >= 30 for name in names)  # long names are there to wrap
    assert found["page"] <= 0 and found["wrapper"] <= 0, found
    assert not found["cut"], found


def test_the_filters_narrow_the_table_and_say_how_many_are_left(catalogue):
    tab = catalogue("ko", True)[0]  # the Korean page with JavaScript, measured (above) before it is changed here
    laid_out(tab, 1280)
    rows = "table.rb-catalogue tbody > tr"
    total = tab.locator(rows).count()
    shown = f"{rows}:not([hidden])"
    selects = tab.eval_on_selector_all(".rb-cat-filters select", "(s) => s.map((x) => x.dataset.filter)")
    assert selects == ["provider", "sku", "npus", "kind", "feature"]
    labels = tab.inner_text(".rb-cat-filters")
    assert "전략 종류" in labels and "추측 디코딩" in labels  # the labels are Korean on the Korean page

    tab.select_option("select[data-filter=kind]", "disaggregated")
    disaggregated = tab.locator(shown).count()
    assert 0 < disaggregated < total
    for row in tab.locator(shown).all():
        assert "rb-kind-disaggregated" in row.get_attribute("class")

    tab.select_option("select[data-filter=feature]", "speculative-decoding")
    both = tab.locator(shown).count()
    assert 0 < both <= disaggregated
    for row in tab.locator(shown).all():
        assert "rb-has-speculative-decoding" in row.get_attribute("class")

    provider = tab.eval_on_selector("select[data-filter=provider] option:nth-child(2)", "(o) => o.value")
    tab.select_option("select[data-filter=kind]", "")
    tab.select_option("select[data-filter=feature]", "")
    tab.select_option("select[data-filter=provider]", provider)
    for row in tab.locator(shown).all():
        assert row.locator("td.rb-col-provider").inner_text().strip() == provider
    count = tab.locator(shown).count()
    assert f"{total}개 중 {count}개" in tab.inner_text(".rb-cat-count")
