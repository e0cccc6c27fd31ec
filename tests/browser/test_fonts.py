"""Issue 42.7: a verdict about layout does not depend on the fonts of the machine.

- Chromium runs with the tests' own fontconfig (browser_support.chromium_env): it sees the
  fonts of the Debian packages tools/system-packages installs and nothing else, even when the
  machine has another font where fontconfig looks by default (a user's font folder).
- The page keeps a flag of its prose whole with any font (codewrap.keep_flags): in every font
  family the tests have and at every width of the article, no ``--flag`` of a recipe page breaks
  after its ``--`` (nor anywhere, up to codewrap.KEEP_UP_TO characters). Before, a machine with
  Liberation Sans showed ``--|data-parallel-size`` on the A.X-K2 page at 1280 px.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

import playwright
import pytest

from browser_support import GENERIC_FAMILIES, font_files, font_packages, fontconfig, open_page, set_content, settle
from conftest import CHROMIUM, CHROMIUM_ARGS
from judge_support import LANGUAGES
from recipebook_sphinx.page import codewrap

pytestmark = pytest.mark.browser

FAMILIES = """async () => [...new Set((await queryLocalFonts()).map(font => font.family))].sort()"""


def _families(playwright_browser, env: dict[str, str], url: str) -> list[str]:
    """The font families a Chromium launched with env offers a page (the Local Font Access API)."""
    other = playwright_browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
    try:
        context = other.new_context()
        context.grant_permissions(["local-fonts"])
        page = context.new_page()
        page.goto(url)
        return page.evaluate(FAMILIES)
    finally:
        other.close()


def _another_font() -> Path:
    """A font no package of tools/system-packages installs: the icon font pip's Playwright ships."""
    found = sorted(Path(playwright.__file__).parent.rglob("*.ttf"))
    assert found, "Playwright's package ships no .ttf file any more: pick another font for this test"
    return found[0]


def test_another_font_on_the_machine_changes_nothing(browser, server, chromium_env, tmp_path):
    home = tmp_path / "home"
    fonts = home / ".local" / "share" / "fonts"
    fonts.mkdir(parents=True)
    other = fonts / "another.ttf"
    other.write_bytes(_another_font().read_bytes())
    machine = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / "cache")}
    url = f"{server}/en/index.html"  # a loopback page: a secure context, where the API exists

    as_tested = _families(browser, chromium_env, url)
    with_another = _families(browser, {**chromium_env, **machine}, url)
    system_default = {key: value for key, value in chromium_env.items() if key != "FONTCONFIG_FILE"}
    seen_by_default = _families(browser, {**system_default, **machine}, url)

    new = set(seen_by_default) - set(as_tested)
    assert new, "the machine's own fontconfig did not find the font put in the user's font folder"
    assert with_another == as_tested, set(with_another) ^ set(as_tested)
    for families in GENERIC_FAMILIES.values():
        assert set(families) <= set(as_tested), (families, as_tested)


def test_the_tests_fontconfig_names_only_the_packages_files(tmp_path):
    files = font_files(font_packages())
    text = fontconfig(files, tmp_path / "cache")
    assert "fonts-noto-cjk" in font_packages()  # the Korean pages' font
    assert "/etc/fonts" not in text and "~" not in text and "prefix=" not in text  # nothing of the machine's
    accepted = [line.strip()[len("<glob>") : -len("</glob>")] for line in text.splitlines() if "<glob>/" in line]
    assert accepted == [html.escape(file) for file in files] and all(os.path.isfile(file) for file in files)
    assert "<rejectfont><glob>*</glob></rejectfont>" in text


# Every flag (--name, or a short option such as -m) in the visible text of the main article whose
# dashes and the character after them lie on different lines, or, for a flag of up to `longest`
# characters, whose characters do not all lie on one line. The characters looked at are read one
# by one only when their range has more than one client rect (with a height): in one line box,
# none is broken.
FLAG_BREAKS = """(longest) => {
  const main = document.querySelector('article[role="main"]') || document.body;
  const broken = [];
  const line = (node, at) => {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    const rect = Array.from(range.getClientRects()).find(r => r.height > 0);
    return rect ? [(rect.top + rect.bottom) / 2, rect.height] : null;
  };
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.includes('-') || !node.parentElement.checkVisibility()) continue;
    if (node.parentElement.closest('pre, script, style, .rb-sr')) continue;
    for (const match of node.data.matchAll(/(?<![\\w-])(?:--[A-Za-z0-9]|-[A-Za-z])[A-Za-z0-9_.-]*/g)) {
      const flag = match[0].replace(/[.-]+$/, '');
      const dashes = flag.startsWith('--') ? 2 : 1;
      const last = flag.length <= longest ? flag.length - 1 : dashes;
      // the characters looked at all in one line box (one client rect with a height): none broken
      const span = document.createRange();
      span.setStart(node, match.index);
      span.setEnd(node, match.index + last + 1);
      if (Array.from(span.getClientRects()).filter(r => r.height > 0).length <= 1) continue;
      const first = line(node, match.index);
      for (let i = 1; i <= last; i++) {
        const here = line(node, match.index + i);
        if (first && here && Math.abs(here[0] - first[0]) >= first[1] / 2) {
          broken.push(flag.slice(0, i) + '|' + flag.slice(i));
          break;
        }
      }
    }
  }
  return broken;
}"""

# Every family forced on the article, then its width narrowed step by step: where a line ends
# moves through every flag of its text.
SWEEP = (
    """async ([families, widths, longest]) => {
  const check = """
    + FLAG_BREAKS
    + """;
  const main = document.querySelector('article[role="main"]') || document.body;
  const style = document.head.appendChild(document.createElement('style'));
  const found = {};
  for (const family of families) {
    style.textContent = `article[role="main"], article[role="main"] * { font-family: "${family}" !important; }`;
    for (const width of widths) {
      main.style.width = width + 'px';
      for (const broken of check(longest)) found[broken] = `${family} at ${width}px`;
    }
  }
  main.style.width = '';
  style.remove();
  return found;
}"""
)

WIDTHS = list(range(260, 900, 7))


def _sweep_families() -> list[str]:
    return sorted({family for families in GENERIC_FAMILIES.values() for family in families})


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_flag_in_a_recipe_page_stays_whole_in_any_font_at_any_width(browser, server, site, language):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    found = {}
    for recipe in sorted((site / language / "recipes").glob("*.html")):
        open_page(page, f"{server}/{language}/recipes/{recipe.name}")
        flags = page.evaluate(FLAG_BREAKS, 10_000)  # the flags a reader sees, whole at this width
        assert not flags, flags
        for broken, where in page.evaluate(SWEEP, [_sweep_families(), WIDTHS, codewrap.KEEP_UP_TO]).items():
            found[f"{recipe.name}: {broken}"] = where
    page.close()
    assert not found, found


def test_the_sweep_sees_a_flag_broken_after_its_dashes(browser):
    """Not blind: the same prose without codewrap.keep_flags breaks after "--", and after the
    dash of a short option, at some width in some family; with it, nowhere; the text a reader
    copies is the same."""
    prose = (
        "<p>If the KV cache is on every chiplet: To fit, spread the model over more devices: a larger "
        "--pipeline-parallel-size, or --data-parallel-size with expert parallelism.</p>"
        "<p>올리려면 --pipeline-parallel-size를 키우거나 --data-parallel-size를 키웁니다.</p>"
        "<p>Each explorer above shows the benchmark that measures its selection; python -m recipebook results "
        "add stores what it writes, python -m recipebook fit says what fits, python -m venv makes a venv.</p>"
    )
    style = f"<style>.{codewrap.CLASS} {{ white-space: nowrap; }}</style>"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    results, texts = [], []
    for body in (prose, codewrap.keep_flags(prose)):
        set_content(page, f'{style}<article role="main">{body}</article>')
        results.append(page.evaluate(SWEEP, [_sweep_families(), WIDTHS, codewrap.KEEP_UP_TO]))
        settle(page)
        texts.append(page.evaluate("() => document.querySelector('article').innerText"))
    page.close()
    before, after = results
    assert any(broken.startswith("--|") for broken in before), before
    assert any(broken.startswith("-|") for broken in before), before
    assert after == {}, after
    assert texts[0] == texts[1]
