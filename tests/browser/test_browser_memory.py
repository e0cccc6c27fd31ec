"""The memory panel in Chromium, in both languages, at a desktop and a phone width: the panel
the chosen selection shows holds the engine's figures (the browser computes none), follows a
change of selection with or without JavaScript, and fits the width; the prose figures of a
page come from the engine too."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import laid_out, open_page
from explorer_support import click_value, grid_id, open_tabs
from recipe_support import AXK2_NAME, SHIPPED
from recipebook import expand, load
from recipebook.expanding import memory

DP, TARGET = "aggregated-data-expert-parallel", "Latency"
GIB = 2**30
# FIT-FACTS.md, "The anchor": the KV cache per data-parallel rank at the two lengths of the prose.
ANCHOR = {262144: 22_690_922_496, 163840: 14_247_788_544}
WORDS = {"en": ("KV cache", "Free"), "ko": ("KV 캐시", "남는 메모리")}


def engine_fit(recipe, selection=None) -> memory.Fit:
    result = expand(recipe, DP, TARGET, selection or {})
    return memory.fit(recipe.facts, recipe.strategy(DP).target(TARGET).skus, result.commands)


# The memory panels of a grid that the page shows, each read as a reader sees it (innerText):
# its summary, the cells of its first row, where it lies, and the words of its first header.
SHOWN_PANELS = """gid => [...document.querySelectorAll(`#${gid} .rb-fit`)].filter(p => p.checkVisibility()).map(panel => {
  const box = panel.getBoundingClientRect();
  return {
    summary: panel.querySelector('.rb-fit-summary').innerText,
    cells: [...panel.querySelector('tbody tr').querySelectorAll('td')].map(td => td.innerText),
    box: {x: box.x, width: box.width},
    header: panel.querySelector('th').innerText,
  };
})"""


# The selection a grid's inputs show.
READ_SELECTION = """gid => {
  const out = {};
  for (const input of document.getElementById(gid).querySelectorAll('input[data-axis]')) {
    if (input.type === 'checkbox') out[input.dataset.axis] = input.checked ? 'on' : 'off';
    else if (input.checked) out[input.dataset.axis] = input.value;
  }
  return out;
}"""


def shown_panel(page, gid: str) -> dict:
    panels = page.evaluate(SHOWN_PANELS, gid)  # one round trip for what used to take eight
    assert len(panels) == 1  # one set of figures for the chosen selection
    return panels[0]


@pytest.fixture(scope="module")
def memory_pages(browser, server):
    """The A.X-K2 page of a language, with or without JavaScript, opened once (a context of its
    own) and shared by the widths: a test resizes the window to its width (Chromium lays the page
    out anew) and leaves the grid on the selection the page opened on. The prose figures' test
    reads the page with JavaScript too."""
    pages: dict[tuple[str, bool], Any] = {}
    contexts = []

    def at(language: str, javascript: bool, width: int):
        if (language, javascript) not in pages:
            context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=javascript)
            contexts.append(context)
            page = context.new_page()
            open_page(page, f"{server}/{language}/recipes/{AXK2_NAME}.html")
            pages[(language, javascript)] = page
        page = pages[(language, javascript)]
        laid_out(page, width)
        return page

    yield at
    for context in contexts:
        context.close()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_panel_shows_the_engines_figures_for_the_chosen_selection(memory_pages, language, width, javascript):
    recipe = load(SHIPPED / f"{AXK2_NAME}.json")
    page = memory_pages(language, javascript, width)
    gid = grid_id(page, DP, TARGET)
    open_tabs(page, gid)
    default = dict(expand(recipe, DP, TARGET).selection)
    assert page.evaluate(READ_SELECTION, gid) == default  # as the page opened (or as the last width left it)
    fit = engine_fit(recipe)
    rank = fit.ranks[0]
    shown = shown_panel(page, gid)
    assert shown["cells"][:2] == [memory.gib(rank.weights_bytes), memory.gib(rank.kv_cache_bytes)]
    assert memory.gib(rank.kv_cache_bytes) == f"{ANCHOR[fit.max_model_len] / GIB:.1f} GiB"
    assert memory.gib(rank.available_bytes) in shown["summary"]
    assert shown["cells"][2].startswith(memory.gib(rank.free_bytes))
    assert shown["box"]["x"] >= 0 and shown["box"]["x"] + shown["box"]["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if language == "ko":
        assert "랭크" in shown["header"]
    # another value of the first axis: the panel of that selection, with its own figures
    axis, values = next((a, v) for a, v in recipe.strategy(DP).target(TARGET).grid.axes.items() if len(v) > 1)
    for value in values:
        if value == default[axis]:
            continue
        click_value(page, gid, axis, value)
        other = engine_fit(recipe, {**default, axis: value}).ranks[0]
        shown = shown_panel(page, gid)
        assert memory.gib(other.available_bytes) in shown["summary"], (axis, value)
        assert shown["cells"][2].startswith(memory.gib(other.free_bytes))
    click_value(page, gid, axis, default[axis])  # back to the opening selection, for the next width
    assert page.evaluate(READ_SELECTION, gid) == default


@pytest.mark.parametrize("language", ["en", "ko"])
def test_prose_figures_come_from_the_engine(memory_pages, language):
    page = memory_pages(language, True, 1280)  # the page the panel's tests share (they change no prose)
    figures = page.locator(".rb-figure").all_inner_texts()
    assert figures == [f"{ANCHOR[n] / GIB:.1f} GiB" for n in (262144, 163840)]
