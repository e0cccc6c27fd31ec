"""Accessibility judged by axe-core (npm, pinned in package-lock.json) in Chromium.

Every page of both languages (judge_support.reader_pages), opened once and judged in a light
and a dark colour scheme (the site root, which sends a reader with JavaScript on to a language, as a reader
without JavaScript sees it); on a recipe page also each explorer grid that the page's run did not see, with
its tabs opened (axe skips what is not displayed): on an English page in both schemes, on another
language's page in the light scheme by every rule but the colour ones (why: COLOUR_RULES). The bar: no
violation of serious or critical impact. Keyboard operation is judged in test_judges_browser.py.
"""

from __future__ import annotations

import re

import pytest

from browser_support import open_page, settle
from explorer_support import HIDDEN_GRIDS, SHOW_GRID
from judge_support import LANGUAGES, node_tool, reader_pages

pytestmark = pytest.mark.browser
BAR = ("serious", "critical")

RUN = """async ([scope, rules, off]) => {
  const options = {resultTypes: ['violations']};
  if (rules) options.runOnly = {type: 'rule', values: rules};
  if (off) options.rules = Object.fromEntries(off.map(id => [id, {enabled: false}]));
  const result = await axe.run(scope ? {include: [[scope]]} : document, options);
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').slice(1).join(' ').trim()),
  }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    return node_tool("axe-core/axe.min.js").read_text(encoding="utf-8")


def _judge(page, where: str, scope: str | None, rules: list[str] | None, off: list[str] | None = None) -> list[str]:
    found = []
    for violation in page.evaluate(RUN, [scope, rules, off]):
        if violation["impact"] in BAR:
            nodes = "; ".join(violation["nodes"][:3])
            found.append(
                f"{where}: {violation['impact']} {violation['id']} ({violation['help']}) x{len(violation['nodes'])}: {nodes}"
            )
    return found


def _without_scripts(route) -> None:
    """The page as a reader without JavaScript gets it (the root page redirects otherwise)."""
    response = route.fetch()
    body = re.sub(r"<script\b.*?</script>", "", response.text(), flags=re.S)
    route.fulfill(response=response, body=body)


# The colour transitions a change of scheme starts (tab labels ease their colour) have ended.
TRANSITIONS_DONE = "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))"

# light: every rule; dark: the rules a colour scheme can change (contrast)
SCHEMES = (("light", None), ("dark", ["color-contrast", "link-in-text-block"]))
# The rules that judge colours. A grid behind closed tabs of another language's recipe page is not
# judged by them: its markup is the English grid's, element for element, class for class, code
# byte for byte, under the same stylesheets (test_other_languages_explorers_are_the_english_ones_
# in_other_words; its :lang rules set only word breaks and the font family), so each of its
# texts has the English one's colours, background and font size, and the English grid is judged
# by them in both schemes. Every other rule (names, labels, roles: they read the words) judges it
# in Korean too, and the grid each Korean page opens on is judged with the whole page, by every rule.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# The grids a page shows as it opens (eval_on_selector_all of form.rb-grid).
SHOWN_GRIDS = "forms => forms.filter(f => f.checkVisibility()).map(f => f.id)"


def test_no_serious_or_critical_violation_on_any_page(browser, server, site, axe_source):
    """Each page opened once and judged in both schemes (the browser's preferred scheme
    switched on the open page: the stylesheet follows it as on a reader's machine). A page opens
    in the scheme the one before it was last judged in, is judged in it, then in the other."""
    found: list[str] = []
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    # axe-core is in every document the page opens, from its start: handed to Chromium once, and
    # compiled once (not 500 KB sent and parsed again for each page)
    page.add_init_script(axe_source)
    root = f"{server}/index.html"
    pages = reader_pages(site)
    schemes_seen = set()
    grids_judged = dict.fromkeys(LANGUAGES, 0)
    order = list(SCHEMES)
    for rel in pages:
        if rel == "index.html":
            # routed for its own load only: while a page has a route, Chromium hands every request
            # it makes (each stylesheet, script, font and image of every page) to Playwright
            page.route(root, _without_scripts)
            open_page(page, root)
            page.unroute(root, _without_scripts)
        else:
            open_page(page, f"{server}/{rel}")
        assert page.url == f"{server}/{rel}"
        assert page.evaluate("typeof axe.run") == "function", rel
        english = rel.startswith(f"{LANGUAGES[0]}/")
        grids = page.eval_on_selector_all("form.rb-grid", HIDDEN_GRIDS) if "/recipes/" in rel else []
        opened = page.eval_on_selector_all("form.rb-grid", SHOWN_GRIDS) if grids else []
        for n, (scheme, rules) in enumerate(order):
            if n:  # the page opened in the first (the context's scheme, as the page before left it)
                page.emulate_media(color_scheme=scheme)
                settle(page)
            page.evaluate(TRANSITIONS_DONE)  # colours eased from the other scheme have arrived
            schemes_seen.add(page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches"))
            found += _judge(page, f"{scheme} {rel}", None, rules)
            # then the grids behind closed tabs (the page's run has judged the one shown)
            if not english and scheme != "light":
                continue  # another language's: only the light scheme's rules that read words (COLOUR_RULES)
            for gid in grids:
                page.evaluate(SHOW_GRID, gid)
                settle(page)
                found += _judge(page, f"{scheme} {rel} #{gid}", f"#{gid}", rules, None if english else COLOUR_RULES)
                grids_judged[rel.split("/")[0]] += 1
            if grids and not n:  # the page as it opened, for the other scheme's run of the whole page
                for gid in opened:
                    page.evaluate(SHOW_GRID, gid)
                settle(page)
        order.reverse()
    context.close()
    assert len(pages) > 18
    assert schemes_seen == {False, True}
    assert all(grids_judged.values()), grids_judged
    assert not found, f"{len(found)} serious or critical violation(s):\n" + "\n".join(found)
