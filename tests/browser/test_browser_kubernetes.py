"""The explorer's Kubernetes panel in a real Chromium: the selection's kubernetes/ files, as
the download writes them (recipebook-files.js build), following the selection; without
JavaScript, links to the opening selection's static copies."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import polib
import pytest

from browser_support import open_page
from explorer_support import click_value, grid_id, open_tabs, other_value
from recipebook import expand, load
from recipebook.rendering import kubernetes
from recipebook.rendering.files import selection_files

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "recipes"
TITLE = "Kubernetes manifests"
# one prefill/decode target (a router, a decode role of 8 ranks) and one of one role
CASES = [("A.X-K2", "prefill-decode-disaggregated", "Latency"), ("gpt-oss-120b", "aggregated", "Throughput")]


def _title(language: str) -> str:
    if language == "en":
        return TITLE
    catalog = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "recipebook.po"))
    found = catalog.find(TITLE)
    assert found and found.msgstr and not found.fuzzy
    return found.msgstr


def _manifests(expansion) -> dict[str, str]:
    return {name: text for name, text in selection_files(expansion).items() if name.startswith("kubernetes/")}


def _shown(page, gid: str) -> dict[str, str]:
    return page.eval_on_selector(
        f"#{gid} .rb-k8s-panel",
        """p => Object.fromEntries([...p.querySelectorAll('.rb-k8s-file')].filter(b => !b.hidden)
                 .map(b => [b.dataset.file, b.querySelector('pre').textContent]))""",
    )


def _wait_for(page, gid: str, expected: dict[str, str]) -> None:
    """Until the panel shows exactly these files (the script fills them once the API document is in)."""
    try:
        page.wait_for_function(
            """([gid, expected]) => {
                 const boxes = [...document.querySelectorAll('#' + gid + ' .rb-k8s-file')].filter(b => !b.hidden);
                 return boxes.length === Object.keys(expected).length &&
                        boxes.every(b => b.querySelector('pre').textContent === expected[b.dataset.file]);
               }""",
            arg=[gid, expected],
            timeout=15000,
        )
    except Exception:
        shown = _shown(page, gid)
        assert shown == expected  # names what differs
        raise


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize(("name", "strategy", "target"), CASES, ids=[c[0] for c in CASES])
def test_the_panel_shows_the_selections_manifests_as_the_engine_writes_them(
    browser, server, site, name, strategy, target, language
):
    recipe = load(RECIPES / f"{name}.json")
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    open_page(page, f"{server}/{language}/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    panel = page.locator(f"#{gid} details.rb-k8s-panel")
    summary = panel.locator("summary")
    assert summary.inner_text() == _title(language)
    opening = expand(recipe, strategy, target)
    summary.click()
    _wait_for(page, gid, _manifests(opening))
    assert panel.locator(".rb-k8s-static").is_hidden()
    apply = panel.locator(".rb-code").first
    assert apply.locator("pre").inner_text() == kubernetes.APPLY
    # another value of an axis: the panel follows, and shows what the engine writes for it
    default, axis, value = other_value(recipe, strategy, target)
    click_value(page, gid, axis, value)
    chosen = expand(recipe, strategy, target, {**default, axis: value})
    expected = _manifests(chosen)
    assert expected != _manifests(opening)
    _wait_for(page, gid, expected)
    assert [a for a in panel.locator("a[data-file]").all_inner_texts()] == list(expected)
    # the copy button of a file copies that file; its name downloads it
    last = list(expected)[-1]
    box = panel.locator(f'.rb-k8s-file[data-file="{last}"]')
    box.locator(".rb-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == expected[last].rstrip("\n")
    apply.locator(".rb-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == kubernetes.APPLY
    with page.expect_download() as info:
        panel.locator(f'a[data-file="{last}"]').click()
    assert info.value.suggested_filename == last.rsplit("/", 1)[-1]
    assert Path(info.value.path()).read_text(encoding="utf-8") == expected[last]
    # back to the opening selection (the form's reset)
    page.click(f"#{gid} button.rb-reset")
    _wait_for(page, gid, _manifests(opening))
    context.close()


@pytest.mark.parametrize(("name", "strategy", "target"), CASES, ids=[c[0] for c in CASES])
def test_without_javascript_the_panel_links_the_opening_selections_manifests(browser, server, name, strategy, target):
    recipe = load(RECIPES / f"{name}.json")
    expected = _manifests(expand(recipe, strategy, target))
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    open_page(page, f"{server}/en/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    panel = page.locator(f"#{gid} details.rb-k8s-panel")
    panel.locator("summary").click()
    assert panel.locator(".rb-k8s-static").is_visible()
    assert panel.locator(".rb-code pre").first.inner_text() == kubernetes.APPLY
    assert all(box.is_hidden() for box in panel.locator(".rb-k8s-file").all())
    links = panel.locator("a[data-file]")
    assert links.all_inner_texts() == list(expected)
    for k, file in enumerate(expected):
        href = links.nth(k).evaluate("a => a.href")
        with urllib.request.urlopen(href) as response:
            assert response.read().decode("utf-8") == expected[file], file
    context.close()


def test_the_page_holds_no_manifest_text(site):
    """The panel is filled from the API document: the page carries file names, not YAML."""
    for name, _strategy, _target in CASES:
        html = (site / "en" / "recipes" / f"{name}.html").read_text(encoding="utf-8")
        assert html.count('class="rb-k8s-panel"') == len(list(load(RECIPES / f"{name}.json").targets()))
        assert "kind: Deployment" not in html and "RECIPEBOOK-ARGS" not in html
