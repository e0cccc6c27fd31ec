"""The explorer's Kubernetes panel in a real Chromium: after Roles and nodes and linked from it,
the selection's kubernetes/ files as the download writes them (recipebook-files.js build),
following the selection and the cluster's settings; a value that cannot be used is marked and
left out; what each node must offer follows the CPU and memory; opened from disk the panel still
writes the files (the API document as a script), and says why not when it cannot; at 375 px the
YAML keeps its lines. Without JavaScript, links to the opening selection's static copies."""

from __future__ import annotations

import re
import shutil
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
TITLE = "Run it on Kubernetes"
# one prefill/decode target (a router, a decode role of 8 ranks) and one of one role
CASES = [("A.X-K2", "prefill-decode-disaggregated", "Latency"), ("gpt-oss-120b", "aggregated", "Throughput")]


def _title(language: str) -> str:
    if language == "en":
        return TITLE
    catalog = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "recipebook.po"))
    found = catalog.find(TITLE)
    assert found and found.msgstr and not found.fuzzy
    return found.msgstr


def _manifests(expansion, settings: dict[str, str] | None = None) -> dict[str, str]:
    return {
        name: text
        for name, text in selection_files(expansion, None, settings).items()
        if name.startswith("kubernetes/")
    }


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


def _type(page, gid: str, name: str, value: str) -> None:
    settings = page.locator(f"#{gid} details.rb-k8s-settings")
    if not settings.evaluate("d => d.open"):
        settings.locator("summary").click()
    field = page.locator(f"#{gid} [data-k8s='{name}']")
    if field.evaluate("f => f.tagName") == "SELECT":
        field.select_option(value)
    else:
        field.fill(value)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize(("name", "strategy", "target"), CASES, ids=[c[0] for c in CASES])
def test_the_panel_shows_the_selections_manifests_as_the_engine_writes_them(
    browser, server, site, name, strategy, target, language
):
    """In English: the panel's title, its link from Roles and nodes, the opening selection's files,
    then another value, the cluster's settings, a refused value, a file's copy and download, and
    the settings kept over the form's reset. In Korean: the title in Korean, the link, and the
    opening selection's files (the panel's script runs on the Korean page); the rest is the English
    run's verdict: the Korean explorer, this panel with its settings fields, buttons and links
    included, is the English one in other words (test_other_languages_explorers_are_the_english_
    ones_in_other_words), both load the same recipebook-files.js, and the files are written from
    the one API document both pages link to (api/recipes/NAME.json, outside the language trees),
    the inputs' values and the settings fields, never from words."""
    recipe = load(RECIPES / f"{name}.json")
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    open_page(page, f"{server}/{language}/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    panel = page.locator(f"#{gid} section.rb-k8s-panel")
    assert panel.locator(".rb-role-title").first.inner_text() == _title(language)
    # Roles and nodes links to it, and the link lands on it
    page.locator(f"#{gid} a.rb-k8s-link").locator("visible=true").first.click()
    assert page.evaluate("location.hash") == f"#{gid}-k8s-panel"
    opening = expand(recipe, strategy, target)
    _wait_for(page, gid, _manifests(opening))
    assert panel.locator(".rb-k8s-static").is_hidden()
    apply = panel.locator(".rb-code").first
    assert apply.locator("pre").inner_text() == kubernetes.APPLY
    if language != "en":
        context.close()
        return  # the rest is language-blind (see above)
    # another value of an axis: the panel follows, and shows what the engine writes for it
    default, axis, value = other_value(recipe, strategy, target)
    click_value(page, gid, axis, value)
    chosen = expand(recipe, strategy, target, {**default, axis: value})
    expected = _manifests(chosen)
    assert expected != _manifests(opening)
    _wait_for(page, gid, expected)
    # the cluster's settings: the files follow them as the engine writes them
    settings = {"npu": "dra", "namespace": "serving", "cpu": "48", "storage-class": "fast-nvme"}
    for setting, given in settings.items():
        _type(page, gid, setting, given)
    expected = _manifests(chosen, settings)
    _wait_for(page, gid, expected)
    assert "kind: ResourceClaimTemplate" in "".join(expected.values())
    # a value that cannot be used is marked, and the files keep the default
    _type(page, gid, "namespace", "Not A Name")
    field = page.locator(f"#{gid} [data-k8s='namespace']")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.locator("xpath=..").locator(".rb-k8s-bad").is_visible()
    _wait_for(page, gid, _manifests(chosen, {k: v for k, v in settings.items() if k != "namespace"}))
    # the copy button of a file copies that file; its link downloads it
    last = list(expected)[-1]
    box = panel.locator(f'.rb-k8s-file[data-file="{last}"]')
    box.locator("summary").click()
    box.locator(".rb-copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == _shown(page, gid)[last].rstrip("\n")
    with page.expect_download() as info:
        box.locator("a[data-file]").click()
    assert info.value.suggested_filename == last.rsplit("/", 1)[-1]
    assert Path(info.value.path()).read_text(encoding="utf-8") == _shown(page, gid)[last]
    # the settings are kept from page to page (the last value that could be used; not the cache
    # sizes), and the form's reset keeps them
    page.click(f"#{gid} button.rb-reset")
    _wait_for(page, gid, _manifests(opening, settings))
    context.close()


@pytest.mark.parametrize("language", ["en", "ko"])
def test_what_each_node_must_offer_follows_the_cpu_and_memory(browser, server, language):
    name, strategy, target = CASES[0]
    page = browser.new_page()
    open_page(page, f"{server}/{language}/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    needs = page.locator(f"#{gid} .rb-k8s-variant").locator("visible=true").locator(".rb-k8s-needs")
    before = needs.all_inner_texts()
    numbers = [set(map(int, re.findall(r"\d+", text))) for text in before]
    assert numbers and all(n & {40, 41} for n in numbers)  # the default 40 CPUs, and the proxy's 1
    _type(page, gid, "cpu", "64")
    _type(page, gid, "memory", "500Gi")
    page.wait_for_function(
        "([gid]) => [...document.querySelectorAll('#' + gid + ' .rb-k8s-needs')].some(e => e.textContent.includes('64'))",
        arg=[gid],
    )
    after = [set(map(int, re.findall(r"\d+", text))) for text in needs.all_inner_texts()]
    assert all(n & {64, 65} for n in after) and any(500 in n for n in after)
    page.close()


def test_opened_from_disk_the_panel_writes_the_files_or_says_why_not(browser, site, tmp_path):
    """From file:// a page may not fetch the API document; it loads it as a script instead, and
    when even that is missing the panel says so and keeps the static links."""
    name, strategy, target = CASES[0]
    recipe = load(RECIPES / f"{name}.json")
    expected = _manifests(expand(recipe, strategy, target))
    page = browser.new_page()
    open_page(page, (site / "en" / "recipes" / f"{name}.html").as_uri())
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    page.locator(f"#{gid} section.rb-k8s-panel").scroll_into_view_if_needed()
    _wait_for(page, gid, expected)
    assert page.locator(f"#{gid} .rb-k8s-disk").is_hidden()
    page.close()
    # a copy of the site without the scripts of the documents
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    for script in (copy / "api" / "recipes").glob("*.js"):
        script.unlink()
    page = browser.new_page()
    open_page(page, (copy / "en" / "recipes" / f"{name}.html").as_uri())
    open_tabs(page, gid)
    panel = page.locator(f"#{gid} section.rb-k8s-panel")
    panel.scroll_into_view_if_needed()
    page.locator(f"#{gid} .rb-k8s-disk").wait_for(state="visible")
    assert panel.locator(".rb-k8s-static").is_visible()
    page.close()


def test_at_375_px_the_yaml_keeps_its_lines(browser, server):
    name, strategy, target = CASES[0]
    page = browser.new_page(viewport={"width": 375, "height": 800})
    open_page(page, f"{server}/en/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    expected = _manifests(expand(load(RECIPES / f"{name}.json"), strategy, target))
    page.locator(f"#{gid} section.rb-k8s-panel").scroll_into_view_if_needed()  # it is written once in view
    _wait_for(page, gid, expected)
    box = page.locator(f'#{gid} .rb-k8s-file[data-file="kubernetes/decode.yaml"]')
    box.locator("summary").click()
    pre = box.locator("pre")
    style, scroll, client, lines, height = pre.evaluate(
        """p => { const s = getComputedStyle(p);
                  const range = document.createRange(); range.selectNodeContents(p);
                  const rows = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                  return [s.whiteSpace, p.scrollWidth, p.clientWidth, rows.size, p.textContent.split('\\n').length - 1]; }"""
    )
    assert style == "pre"
    assert scroll > client  # a long line scrolls sideways inside the box
    assert lines == height  # one row per line: no line of YAML wraps under another
    assert box.evaluate("b => b.getBoundingClientRect().right") <= 375
    page.close()


@pytest.mark.parametrize(("name", "strategy", "target"), CASES, ids=[c[0] for c in CASES])
def test_without_javascript_the_panel_links_the_opening_selections_manifests(browser, server, name, strategy, target):
    recipe = load(RECIPES / f"{name}.json")
    expected = _manifests(expand(recipe, strategy, target))
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    open_page(page, f"{server}/en/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    panel = page.locator(f"#{gid} section.rb-k8s-panel")
    assert panel.locator(".rb-k8s-static").is_visible()
    assert panel.locator(".rb-k8s-settings").is_hidden()  # nothing to set without the script
    assert panel.locator(".rb-code pre").first.inner_text() == kubernetes.APPLY
    assert [s.strip() for s in panel.locator(".rb-k8s-file > summary").all_inner_texts()] == list(expected)
    links = panel.locator("a[data-file]")
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
