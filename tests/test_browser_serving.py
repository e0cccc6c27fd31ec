"""The explorer's additions (issue 13) on the built site: change marks against the base,
client/bench per selection, placeholder values, copy on plain HTTP.

Expectations come from the engine's expansions (commands of each selection and of the base
selection), not from the page's own markup.
"""

from __future__ import annotations

import functools
import http.server
import re
import shlex
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import recipebook
from conftest import _QuietHandler
from recipe_support import NAMES, RECIPES
from recipebook import client
from recipebook.expansion import expand_selection, neutral_value, offered

CONT = re.compile(r"^\s*\\?\s*|\s*\\\s*$")


def norm(text: str) -> str:
    """A command line without its continuation backslash and indentation."""
    return CONT.sub("", text.strip("\n")).strip()


@functools.cache
def recipe(name: str) -> recipebook.Recipe:
    return recipebook.load(RECIPES / f"{name}.json")


def base_of(target) -> dict[str, str] | None:
    grid = target.grid
    chosen = {a: neutral_value(grid, a) for a in grid.axes}
    if None in chosen.values() or recipebook.expansion.is_excluded(grid, chosen):
        return None
    return chosen


def lines(command) -> list[str]:
    return [norm(t) for t in (*command.envs, *command.args)]


def expected_marks(rec, strategy, target, selection) -> list[tuple[list[str], list[str]]]:
    """Per command: (added, removed) lines against the base selection, each sorted."""
    base = expand_selection(rec, strategy, target, base_of(target))
    chosen = expand_selection(rec, strategy, target, selection)
    out = []
    for b, c in zip(base.commands, chosen.commands, strict=True):
        added, removed = client.line_diff(lines(b), lines(c))
        out.append((sorted(added), sorted(removed)))
    return out


def cases():
    for name in NAMES:
        rec = recipe(name)
        for strategy, target in rec.targets():
            if base_of(target) is not None:
                yield name, rec, strategy, target


def hidden(element, index: tuple[int, ...]) -> bool:
    """Whether the explorer's CSS hides an element at a selection (class h-AXIS-VALUE)."""
    for node in [element, *element.parents]:
        for cls in node.get("class", []) if hasattr(node, "get") else []:
            m = re.fullmatch(r"h-(\d+)-(\d+)", cls)
            if m and index[int(m.group(1))] == int(m.group(2)):
                return True
    return False


def marks_in_html(pre, index) -> tuple[list[str], list[str]]:
    def text(el):
        return norm("".join(t for t in el.find_all(string=True) if "rb-sr" not in (t.parent.get("class") or [])))

    added = sorted(text(el) for el in pre.select("ins.rb-add") if not hidden(el, index))
    removed = sorted(text(el) for el in pre.select("del") if not hidden(el, index))
    return added, removed


@pytest.mark.parametrize("language", ["en", "ko"])
def test_change_marks_match_the_line_diff_without_javascript(site: Path, language: str):
    checked = 0
    for name, rec, strategy, target in cases():
        soup = BeautifulSoup((site / language / "recipes" / f"{name}.html").read_text(encoding="utf-8"), "html.parser")
        form = soup.select_one(f'form.rb-grid[data-strategy="{strategy.slug}"][data-target="{target.target}"]')
        assert form.select_one("input.rb-diffsw"), "the switch is a checkbox the CSS reads with :has()"
        gid = form["id"]
        axes = list(target.grid.axes.items())
        for selection in offered(target.grid):
            index = tuple(values.index(selection[a]) for a, values in axes)
            want = expected_marks(rec, strategy, target, selection)
            pres = [form.select_one(f"pre#{gid}-c{n}") for n in range(len(want))]
            got = [marks_in_html(pre, index) for pre in pres]
            assert got == want, (name, strategy.slug, target.target, selection)
            checked += 1
    assert checked > 0


def test_client_and_bench_per_selection_without_javascript(site: Path):
    for name in NAMES:
        rec = recipe(name)
        soup = BeautifulSoup((site / "en" / "recipes" / f"{name}.html").read_text(encoding="utf-8"), "html.parser")
        for strategy, target in rec.targets():
            form = soup.select_one(f'form.rb-grid[data-strategy="{strategy.slug}"][data-target="{target.target}"]')
            axes = list(target.grid.axes.items())
            for selection in offered(target.grid):
                index = tuple(values.index(selection[a]) for a, values in axes)
                shown = [s for s in form.select("div.rb-serving") if not hidden(s, index)]
                assert len(shown) == 1
                pres = [p.get_text() for p in shown[0].select("pre")]
                expansion = expand_selection(rec, strategy, target, selection)
                assert client.client_command(expansion) in pres
                assert client.bench_command(expansion) in pres
                for plan in client.roles(expansion, strategy.nodes):  # each role's readiness checks
                    assert "\n".join(plan.wait) in pres
                bench = shlex.split(client.bench_command(expansion))
                url = bench[bench.index("--base-url") + 1]
                if target.grid.router:
                    assert url == f"http://{client.ROUTER_HOST}"  # prefill/decode: the router
                else:
                    assert url.startswith(f"http://{client.SERVER_HOST}:")


# -- in Chromium ----------------------------------------------------------------------

browser_mark = pytest.mark.browser

VISIBLE_MARKS = """([gid, count]) => {
  const text = el => { const c = el.cloneNode(true); c.querySelectorAll('.rb-sr').forEach(s => s.remove());
                       return c.textContent; };
  const shown = el => el.getClientRects().length > 0;
  const out = [];
  for (let n = 0; n < count; n++) {
    const pre = document.getElementById(gid + '-c' + n);
    out.push([[...pre.querySelectorAll('ins.rb-add')].filter(shown).map(text),
              [...pre.querySelectorAll('del')].filter(shown).map(text)]);
  }
  return out;
}"""

SET_SELECTION = """([gid, chosen]) => {
  const grid = document.getElementById(gid);
  grid.querySelectorAll('input[data-axis]').forEach(input => {
    const value = chosen[input.dataset.axis];
    if (input.type === 'checkbox') input.checked = value === 'on';
    else if (input.value === value) input.checked = true;
  });
}"""


def open_all_tabs(page) -> None:
    # every tab panel shown, so each grid's lines have boxes
    page.add_style_tag(content=".sd-tab-content{display:block!important}")


@browser_mark
def test_change_marks_in_chromium(browser, server):
    # without JavaScript: test_change_marks_match_the_line_diff_without_javascript reads the
    # same classes the CSS uses (a Chromium context with JavaScript off hung here; to be fixed)
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10000)
    try:
        for name, rec, strategy, target in cases():
            page.goto(f"{server}/en/recipes/{name}.html")
            open_all_tabs(page)
            gid = page.eval_on_selector(
                f'form.rb-grid[data-strategy="{strategy.slug}"][data-target="{target.target}"]', "f => f.id"
            )
            page.check(f"#{gid}-diff")
            for selection in offered(target.grid):
                want = expected_marks(rec, strategy, target, selection)
                page.evaluate(SET_SELECTION, [gid, selection])
                got = page.evaluate(VISIBLE_MARKS, [gid, len(want)])
                got = [(sorted(norm(t) for t in a), sorted(norm(t) for t in r)) for a, r in got]
                assert got == want, (name, strategy.slug, target.target, selection)
    finally:
        context.close()


def pd_grid(page, name: str) -> str | None:
    return page.evaluate(
        """() => { const f = [...document.querySelectorAll('form.rb-grid')]
                     .find(g => g.querySelector('.rb-router')); return f ? f.id : null; }"""
    )


@browser_mark
def test_placeholder_values_replace_show_copy_and_persist(browser, server):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(10000)
    try:
        name = next(n for n in NAMES if any(t.grid.router for _s, t in recipe(n).targets()))
        page.goto(f"{server}/en/recipes/{name}.html")
        open_all_tabs(page)
        gid = pd_grid(page, name)
        field = page.locator(f"#{gid}-ph-POD_IP")
        # a quote or a space is rejected, and nothing is stored
        for bad in ("10.0.0.5'", "10.0.0 5", "$(id)"):
            field.fill(bad)
            field.dispatch_event("change")
            assert field.get_attribute("aria-invalid") == "true"
            assert page.locator(f"#{gid} .rb-phmsg").inner_text().strip()
            assert page.evaluate("() => localStorage.getItem('rb-placeholders')") in (None, "{}")
        field.fill("10.0.0.5")
        field.dispatch_event("change")
        assert field.get_attribute("aria-invalid") is None
        texts = page.eval_on_selector_all(f"#{gid} pre", "ps => ps.map(p => p.innerText)")
        using = [t for t in texts if "10.0.0.5" in t]
        assert using and not any("<POD_IP>" in t for t in texts)
        # the copied text of a command that uses it
        index = next(i for i, t in enumerate(texts) if "10.0.0.5" in t)
        page.locator(f"#{gid} pre").nth(index).locator("xpath=../..").locator("button.rb-copy").click()
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert "10.0.0.5" in copied and "<POD_IP>" not in copied
        # another recipe page keeps the value
        other = next((n for n in NAMES if n != name), name)
        page.goto(f"{server}/en/recipes/{other}.html")
        assert page.evaluate("() => JSON.parse(localStorage.getItem('rb-placeholders')).POD_IP") == "10.0.0.5"
        spans = page.eval_on_selector_all("pre .rb-ph", "s => s.map(x => [x.dataset.ph, x.textContent])")
        assert all(text == "10.0.0.5" for ph, text in spans if ph == "POD_IP")
        inputs = page.eval_on_selector_all("input[data-ph='POD_IP']", "s => s.map(x => x.value)")
        assert all(v == "10.0.0.5" for v in inputs)
    finally:
        context.close()


@browser_mark
def test_copy_works_on_plain_http(browser, site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.2", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    # Chromium trusts every 127.x address as secure; a host name mapped to 127.0.0.2 is not
    from conftest import CHROMIUM, CHROMIUM_ARGS

    plain = browser.browser_type.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP recipes.test 127.0.0.2"]
    )
    context = plain.new_context()
    page = context.new_page()
    page.set_default_timeout(10000)
    try:
        page.goto(f"http://recipes.test:{httpd.server_port}/en/recipes/{NAMES[0]}.html")
        assert page.evaluate("() => window.isSecureContext") is False
        page.evaluate(
            """() => document.addEventListener('copy', () => {
                 const a = document.activeElement; window.__copied = a && a.value !== undefined
                   ? a.value.slice(a.selectionStart, a.selectionEnd) : String(getSelection()); })"""
        )
        button = page.locator("button.rb-copy:visible").first
        expected = button.locator("xpath=..").locator("pre").inner_text().rstrip("\n")
        button.click()
        assert page.evaluate("() => window.__copied") == expected
        assert button.inner_text() == button.get_attribute("data-done")
    finally:
        context.close()
        plain.close()
        httpd.shutdown()
