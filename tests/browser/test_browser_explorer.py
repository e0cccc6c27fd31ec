"""What a reader does in the explorer, in a real Chromium (Playwright).

That each value of each axis, clicked, shows the engine's commands (and again when the axis's
first value is clicked back) is judged on every grid of every recipe, with JavaScript and
without, by test_judges_browser.py's test_every_value_answers_a_real_mouse_click."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import open_page
from explorer_support import click_value, grid_id, open_tabs, other_value
from judge_support import SHOWN_COMMANDS
from recipebook import expand, load
from recipebook.rendering import files
from recipebook.rendering.files import selection_files

pytestmark = pytest.mark.browser
RECIPES = Path(__file__).resolve().parents[2] / "recipes"


def visible_commands(page, grid_id: str) -> list[str]:
    """The text a reader sees of each server command, each rank picked in turn (innerText
    skips hidden lines)."""
    return page.evaluate(SHOWN_COMMANDS, grid_id)


def test_copy_button_copies_exactly_the_shown_command(browser, server):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    open_page(page, f"{server}/en/recipes/A.X-K2.html")
    recipe = load(RECIPES / "A.X-K2.json")
    gid = grid_id(page, "prefill-decode-disaggregated", "Latency")
    open_tabs(page, gid)
    click_value(page, gid, "lmcache", "cpu")
    click_value(page, gid, "tool_calling", "off")
    expected = expand(recipe, "prefill-decode-disaggregated", "Latency", {"lmcache": "cpu", "tool_calling": "off"})
    roles = page.locator(f"#{gid} .rb-cmds .rb-role:not(.rb-router)")
    assert roles.count() == len(expected.roles()) == 2
    # the decode role: one block, a rank picker; each rank picked by a real click copies its own command
    decode = roles.nth(1)
    commands = dict(expected.roles())["decode"]
    assert decode.locator(".rb-ranks input").count() == len(commands) == 8
    for rank in (0, 4, 7):
        radio = decode.locator(".rb-ranks input").nth(rank)
        page.click(f'label[for="{radio.get_attribute("id")}"]')
        decode.locator(".rb-copy").click()
        assert page.evaluate("navigator.clipboard.readText()") == commands[rank].shell
    roles.nth(0).locator(".rb-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == dict(expected.roles())["prefill"][0].shell
    context.close()


def test_selection_is_kept_in_the_url_fragment(browser, server):
    context = browser.new_context()
    page = context.new_page()
    open_page(page, f"{server}/en/recipes/A.X-K2.html")
    gid = grid_id(page, "aggregated-pipeline-parallel", "Throughput")
    open_tabs(page, gid)
    click_value(page, gid, "spec_decode", "eagle3")
    click_value(page, gid, "reasoning_parser", "off")
    link = page.url
    assert "s=aggregated-pipeline-parallel" in link and "spec_decode=eagle3" in link
    other = context.new_page()
    open_page(other, link)
    recipe = load(RECIPES / "A.X-K2.json")
    expected = expand(
        recipe, "aggregated-pipeline-parallel", "Throughput", {"spec_decode": "eagle3", "reasoning_parser": "off"}
    )
    assert other.locator(f"#{gid}").is_visible()
    assert visible_commands(other, gid) == [c.shell for c in expected.commands]
    context.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_ready_to_run_files_follow_the_selection(browser, server, javascript):
    """With JavaScript the link writes the chosen selection's files in the page (they equal
    the engine's); without it, it opens the target's page of static files, which exists."""
    recipe = load(RECIPES / "A.X-K2.json")
    strategy, target = "prefill-decode-disaggregated", "Latency"
    context = browser.new_context(java_script_enabled=javascript, accept_downloads=True)
    page = context.new_page()
    open_page(page, f"{server}/en/recipes/A.X-K2.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    default, axis, value = other_value(recipe, strategy, target)
    click_value(page, gid, axis, value)
    chosen = expand(recipe, strategy, target, {**default, axis: value})
    if not javascript:
        with page.expect_navigation():
            page.click(f"#{gid} a.rb-dl")
        assert "ready-to-run files" in page.title() and page.locator("a", has_text="serve.sh").count() == 1
        context.close()
        return
    page.click(f"#{gid} a.rb-dl")
    page.wait_for_selector(f"#{gid} .rb-dl-files a")
    links = page.locator(f"#{gid} .rb-dl-files a")
    expected = selection_files(chosen)
    archive = f"{files.folder_name(chosen)}.tar"
    assert [links.nth(i).inner_text() for i in range(links.count())] == [archive, *expected]
    with page.expect_download() as info:
        links.nth(0).click()  # every file in one download
    assert info.value.suggested_filename == archive
    assert Path(info.value.path()).read_bytes() == files.archive(files.folder_name(chosen), expected)
    for i in (1, 2, links.count() - 1):
        name = links.nth(i).inner_text()
        with page.expect_download() as info:
            links.nth(i).click()
        download = info.value
        assert download.suggested_filename == name.replace("/", "_")  # a browser saves a folder's file flat
        assert Path(download.path()).read_text() == expected[name], name
    # choosing another value rewrites the offered files
    click_value(page, gid, axis, default[axis])
    page.wait_for_function(
        f"document.querySelector('#{gid} .rb-dl-files a') && "
        f"document.querySelectorAll('#{gid} .rb-dl-files a').length === "
        f"{1 + len(selection_files(expand(recipe, strategy, target)))}"
    )
    context.close()
